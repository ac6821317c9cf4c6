//! PBKDF2 with HMAC (RFC 8018 section 5.2; NIST SP 800-132).
//!
//! `DK = T_1 || T_2 || ... ` truncated to `dkLen` bytes, where
//! `T_i = U_1 ^ U_2 ^ ... ^ U_c`, `U_1 = PRF(P, S || INT(i))`, `U_j = PRF(P, U_{j-1})`,
//! with `PRF = HMAC-H` keyed with the password and `INT(i)` the block index as four
//! big-endian bytes (steps 1-5 of section 5.2).
//!
//! The password is absorbed into the two HMAC key states once (in [`Hmac::new`]); every
//! iteration restarts from copies of them, so an iteration costs two compressions of
//! short messages. The iteration count is public; nothing here branches on the password.

use super::{HashAlg, HashFunction, Hmac};
use crate::Error;
use zeroize::Zeroize;

/// Fills `out` with PBKDF2-HMAC-`H`(password, salt, iterations).
///
/// Errors: `InvalidArgument` when `iterations` is 0, `out` is empty, or `out` is longer
/// than `(2^32 - 1) · hLen` bytes (section 5.2 step 1).
pub fn pbkdf2_hmac<H: HashFunction>(
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    out: &mut [u8],
) -> Result<(), Error> {
    if iterations == 0 {
        return Err(Error::InvalidArgument("PBKDF2 needs at least one iteration"));
    }
    if out.is_empty() || out.len() as u64 > u64::from(u32::MAX) * H::OUTPUT_LEN as u64 {
        return Err(Error::InvalidArgument("PBKDF2 derived key length out of range"));
    }
    let prf = Hmac::<H>::new(password);
    for (i, chunk) in out.chunks_mut(H::OUTPUT_LEN).enumerate() {
        // The length check above bounds the block count by 2^32 - 1.
        let index = i as u32 + 1;
        let mut mac = prf.clone();
        mac.update(salt);
        mac.update(&index.to_be_bytes());
        let mut u = mac.finalize_reset();
        let mut t = u;
        for _ in 1..iterations {
            mac.update(u.as_ref());
            u = mac.finalize_reset();
            for (t, u) in t.as_mut().iter_mut().zip(u.as_ref()) {
                *t ^= u;
            }
        }
        chunk.copy_from_slice(&t.as_ref()[..chunk.len()]);
        u.as_mut().zeroize();
        t.as_mut().zeroize();
    }
    Ok(())
}

/// PBKDF2 with HMAC over the digest `alg`, chosen at run time.
pub fn pbkdf2_hmac_alg(
    alg: HashAlg,
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    out: &mut [u8],
) -> Result<(), Error> {
    super::dispatch!(alg, H => pbkdf2_hmac::<H>(password, salt, iterations, out))
}
