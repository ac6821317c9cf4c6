//! The PKCS#12 key derivation (RFC 7292 appendix B.2) and its password encoding
//! (appendix B.1).
//!
//! PKCS#12 predates PBKDF2's use in it and derives the key, the IV and the MAC key of a
//! `.p12` file with a function of its own: with `u` the digest's output length and `v`
//! its block length, the purpose byte ID (1 key, 2 IV, 3 MAC key) repeated to `v` bytes
//! as D; salt and password each repeated to a whole number of `v`-byte blocks as I; then
//! for each `u`-byte piece of output, `A = H^r(D || I)`, and each block of I is replaced
//! by `I_j + A' + 1` (mod 2^(8v)), A' being A repeated to `v` bytes.
//!
//! The password enters as a BMPString (big-endian UTF-16) with a two-byte zero terminator.
//! [`bmp_password`] makes it from UTF-8 as OpenSSL 3 does (`OPENSSL_utf82uni`); bytes that
//! are not UTF-8 are taken one by one as Latin-1, OpenSSL's fallback. The iteration count
//! is public; nothing branches on the password.

use crate::digest::{HashAlg, Hasher};
use crate::{Error, Result};
use zeroize::Zeroizing;

/// The purpose byte: what a derivation is for (appendix B.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Purpose {
    /// Key material for a cipher (ID 1).
    Key = 1,
    /// An initial vector (ID 2).
    Iv = 2,
    /// The key of the file's HMAC (ID 3).
    Mac = 3,
}

/// The password as PKCS#12 hashes it: UTF-16BE with a zero terminator (RFC 7292 B.1), or
/// nothing at all for OpenSSL's absent (NULL) password, which old tools wrote for an empty
/// one.
pub fn bmp_password(password: Option<&[u8]>) -> Zeroizing<Vec<u8>> {
    let Some(password) = password else { return Zeroizing::new(Vec::new()) };
    let mut out = Zeroizing::new(Vec::with_capacity(2 * password.len() + 2));
    let mut push = |unit: u16| out.extend_from_slice(&unit.to_be_bytes());
    match core::str::from_utf8(password) {
        Ok(text) => text.encode_utf16().for_each(&mut push),
        Err(_) => password.iter().for_each(|&b| push(u16::from(b))),
    }
    out.extend_from_slice(&[0, 0]);
    out
}

/// Fills `out` with the derivation for `purpose` from `password` (already a BMPString,
/// see [`bmp_password`]), `salt` and `iterations` under `hash`.
///
/// Errors: `InvalidArgument` for zero iterations or an empty `out`.
pub fn pkcs12_kdf(
    hash: HashAlg,
    password: &[u8],
    salt: &[u8],
    purpose: Purpose,
    iterations: u32,
    out: &mut [u8],
) -> Result<()> {
    if iterations == 0 {
        return Err(Error::InvalidArgument("the PKCS#12 key derivation needs an iteration"));
    }
    if out.is_empty() {
        return Err(Error::InvalidArgument("the PKCS#12 key derivation's output is empty"));
    }
    let v = hash.block_len();
    let u = hash.output_len();
    let d = vec![purpose as u8; v];
    // I = S || P, each repeated to a whole number of v-byte blocks (steps 2 to 4).
    let mut i = Zeroizing::new(Vec::new());
    for part in [salt, password] {
        let len = part.len().div_ceil(v) * v;
        i.extend(part.iter().cycle().take(len));
    }
    let mut hasher = Hasher::new(hash);
    let pieces = out.len().div_ceil(u);
    for (n, chunk) in out.chunks_mut(u).enumerate() {
        hasher.update(&d);
        hasher.update(&i);
        let mut a = hasher.finalize_reset();
        for _ in 1..iterations {
            hasher.update(a.as_bytes());
            a = hasher.finalize_reset();
        }
        chunk.copy_from_slice(&a.as_bytes()[..chunk.len()]);
        if n + 1 == pieces {
            break;
        }
        // Step 6C: I_j = (I_j + B + 1) mod 2^(8v), B being A repeated to v bytes.
        let b: Zeroizing<Vec<u8>> =
            Zeroizing::new(a.as_bytes().iter().cycle().take(v).copied().collect());
        for block in i.chunks_exact_mut(v) {
            let mut carry = 1u16;
            for (x, y) in block.iter_mut().rev().zip(b.iter().rev()) {
                let sum = u16::from(*x) + u16::from(*y) + carry;
                *x = sum as u8;
                carry = sum >> 8;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_become_terminated_utf16() {
        assert_eq!(&bmp_password(Some(b"ab"))[..], &[0, b'a', 0, b'b', 0, 0]);
        assert_eq!(&bmp_password(Some(b""))[..], &[0, 0]);
        assert!(bmp_password(None).is_empty());
        // U+00E9 from UTF-8, and U+1F600 as a surrogate pair.
        assert_eq!(&bmp_password(Some("é".as_bytes()))[..], &[0, 0xe9, 0, 0]);
        assert_eq!(&bmp_password(Some("😀".as_bytes()))[..], &[0xd8, 0x3d, 0xde, 0x00, 0, 0]);
        // Not UTF-8: Latin-1, byte by byte.
        assert_eq!(&bmp_password(Some(&[0xe9, b'x']))[..], &[0, 0xe9, 0, b'x', 0, 0]);
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// Go's x/crypto/pkcs12 `TestThatPBKDFWorksCorrectlyForLongKeys`: a 3DES key (24
    /// bytes, more than one SHA-1 output, so step 6C runs) for "sesame".
    #[test]
    fn go_xcrypto_vector_sha1_key() {
        let mut key = [0u8; 24];
        let password = bmp_password(Some(b"sesame"));
        pkcs12_kdf(HashAlg::Sha1, &password, &[0xff; 8], Purpose::Key, 2048, &mut key).unwrap();
        assert_eq!(key.to_vec(), hex("7cd9fd3e2b3be7691a44e3bef0f9ea0fb9b897d4e325d9d1"));
    }

    /// Crypt::OpenSSL::PKCS::Func's test of OpenSSL's `PKCS12_key_gen`: a SHA-256 MAC key.
    #[test]
    fn openssl_key_gen_vector_sha256_mac() {
        let mut key = [0u8; 32];
        let password = bmp_password(Some(b"123456"));
        let salt = hex("e241f01650dbeae4");
        pkcs12_kdf(HashAlg::Sha256, &password, &salt, Purpose::Mac, 2048, &mut key).unwrap();
        let want = "721259f14aad70b58839f71566b433da1b8ad08f650f4d02faaa0b9b095bb51d";
        assert_eq!(key.to_vec(), hex(want));
    }

    #[test]
    fn refuses_zero_iterations_and_empty_output() {
        let mut out = [0u8; 8];
        assert!(pkcs12_kdf(HashAlg::Sha1, &[0, 0], b"salt", Purpose::Key, 0, &mut out).is_err());
        assert!(pkcs12_kdf(HashAlg::Sha1, &[0, 0], b"salt", Purpose::Key, 1, &mut []).is_err());
    }
}
