//! RSAES-PKCS1-v1_5 (RFC 8017 section 7.2): EM = 0x00 || 0x02 || PS || 0x00 || M, PS at
//! least 8 non-zero random bytes.
//!
//! Decryption of this scheme is Bleichenbacher's padding oracle (CRYPTO '98) and its
//! descendants (ROBOT, 2017; Marvin, 2023): any observable difference between valid and
//! invalid padding, an error or a few cycles, decrypts ciphertexts. Two forms:
//!
//! * [`RsaPrivateKey::decrypt_pkcs1v15`] (the default): **implicit rejection**
//!   ([`super::implicit`]): an invalid padding yields a deterministic pseudo-random
//!   message derived from the key and the ciphertext, returned exactly like a real one,
//!   so the caller cannot branch on validity either. This is OpenSSL 3.2+'s default.
//! * [`RsaPrivateKey::decrypt_pkcs1v15_explicit`]: the RFC's "decryption error",
//!   [`Error::Decryption`] without detail, for protocols that must know (and then must
//!   make their own handling constant time).
//!
//! Both scan the padding in constant time: the checks of 7.2.2 step 3 (first byte 0,
//! second 2, a zero separator at index >= 10) are combined into one mask; the separator
//! is found by a masked scan of the whole block. Both require a ciphertext of exactly k
//! bytes (7.2.2 step 1, a public check).

use super::ct_bytes::{eq, is_zero, lt, select_byte, select_index};
use super::implicit::synthetic_message;
use super::key::{RsaPrivateKey, RsaPublicKey};
use crate::ct::Choice;
use crate::rng::RandomSource;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// The shortest PS (7.2.1 step 2: at least eight octets).
const MIN_PS_LEN: usize = 8;

impl RsaPublicKey {
    /// RSAES-PKCS1-V1_5-ENCRYPT (7.2.1): k bytes. [`Error::MessageTooLong`] if `msg` is
    /// longer than k - 11 bytes.
    pub fn encrypt_pkcs1v15(&self, msg: &[u8], rng: &mut dyn RandomSource) -> Result<Vec<u8>> {
        let k = self.size();
        if msg.len() + MIN_PS_LEN + 3 > k {
            return Err(Error::MessageTooLong);
        }
        let mut em = Zeroizing::new(vec![0u8; k]);
        em[1] = 0x02;
        let ps_end = k - msg.len() - 1;
        fill_nonzero(&mut em[2..ps_end], rng)?;
        em[ps_end + 1..].copy_from_slice(msg);
        self.raw_public(&em)
    }
}

/// Fills `buf` with random non-zero bytes (each zero drawn again).
fn fill_nonzero(buf: &mut [u8], rng: &mut dyn RandomSource) -> Result<()> {
    rng.fill_bytes(buf)?;
    let mut one = [0u8; 1];
    for b in buf.iter_mut() {
        let mut tries = 0;
        while *b == 0 {
            tries += 1;
            if tries > 64 {
                return Err(Error::Rng);
            }
            rng.fill_bytes(&mut one)?;
            *b = one[0];
        }
    }
    Ok(())
}

/// The constant-time check of EM = 0x00 || 0x02 || PS (>= 8 bytes) || 0x00 || M: whether
/// it is valid, and where M starts (meaningless when it is not).
pub(crate) fn check_padding(em: &[u8]) -> (Choice, usize) {
    let mut good = is_zero(em[0]) & eq(em[1], 2);
    let mut found = Choice::FALSE;
    let mut zero_index = 0;
    for (i, &b) in em.iter().enumerate().skip(2) {
        let z = is_zero(b);
        zero_index = select_index(!found & z, i, zero_index);
        found = found | z;
    }
    // No separator leaves zero_index = 0, which fails this too.
    good = good & !lt(zero_index, 2 + MIN_PS_LEN);
    (good, zero_index + 1)
}

impl RsaPrivateKey {
    /// RSADP for decryption: the k-byte EM of a k-byte ciphertext, or
    /// [`Error::Decryption`] for a wrong length or c >= n (public checks).
    fn open_ciphertext(&self, ct: &[u8], rng: &mut dyn RandomSource) -> Result<Zeroizing<Vec<u8>>> {
        self.pkcs1v15_ct_check(ct)?;
        open_result(self.raw_private(ct, rng))
    }

    /// The public checks before RSADP (shared with `batch.rs`).
    pub(super) fn pkcs1v15_ct_check(&self, ct: &[u8]) -> Result<()> {
        if ct.len() != self.size() || self.size() < MIN_PS_LEN + 3 {
            return Err(Error::Decryption);
        }
        Ok(())
    }

    /// RSAES-PKCS1-V1_5-DECRYPT with implicit rejection (see the module docs): the
    /// message, or for an invalid padding a synthetic message indistinguishable from one.
    /// Errors only for a publicly invalid ciphertext (length not k, value >= n) and for
    /// faults ([`Error::FaultDetected`]).
    pub fn decrypt_pkcs1v15(&self, ct: &[u8], rng: &mut dyn RandomSource) -> Result<Vec<u8>> {
        let em = self.open_ciphertext(ct, rng)?;
        Ok(self.pkcs1v15_implicit_finish(ct, &em))
    }

    /// Implicit rejection's step after RSADP: the message of `em`, or the synthetic one
    /// (shared with `batch.rs`).
    pub(super) fn pkcs1v15_implicit_finish(&self, ct: &[u8], em: &[u8]) -> Vec<u8> {
        // The synthetic message first, on every call, so that timing does not depend on
        // the padding.
        let (synthetic, synthetic_start) = synthetic_message(&self.d_hash, ct, self.size());
        let (good, msg_start) = check_padding(em);
        let start =
            super::declassify::message_start(select_index(good, msg_start, synthetic_start));
        // `start` is the returned length, public by design; the bytes are selected with a
        // mask from both buffers.
        em[start..]
            .iter()
            .zip(&synthetic[start..])
            .map(|(&real, &fake)| select_byte(good, real, fake))
            .collect()
    }

    /// RSAES-PKCS1-V1_5-DECRYPT with the explicit "decryption error": the message, or
    /// [`Error::Decryption`] for any failure. The padding check is constant time; the
    /// result necessarily tells whether it passed.
    pub fn decrypt_pkcs1v15_explicit(
        &self,
        ct: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        let em = self.open_ciphertext(ct, rng)?;
        explicit_finish(&em)
    }
}

/// RSADP's result for decryption: c >= n is a public [`Error::Decryption`].
pub(super) fn open_result(rsadp: Result<Vec<u8>>) -> Result<Zeroizing<Vec<u8>>> {
    rsadp.map(Zeroizing::new).map_err(|e| match e {
        Error::InvalidArgument(_) => Error::Decryption,
        other => other,
    })
}

/// The explicit-error variant's step after RSADP (shared with `batch.rs`).
pub(super) fn explicit_finish(em: &[u8]) -> Result<Vec<u8>> {
    let (good, msg_start) = check_padding(em);
    if !good.declassify() {
        return Err(Error::Decryption);
    }
    Ok(em[msg_start..].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_checks() {
        let mut em = vec![0x00, 0x02, 1, 2, 3, 4, 5, 6, 7, 8, 0x00, b'h', b'i'];
        let (good, start) = check_padding(&em);
        assert!(good.declassify());
        assert_eq!(&em[start..], b"hi");
        // Empty message.
        let (good, start) = check_padding(&em[..11]);
        assert!(good.declassify() && start == 11);
        // PS of seven bytes.
        em[9] = 0;
        assert!(!check_padding(&em).0.declassify());
        em[9] = 9;
        for (i, v) in [(0, 1), (1, 1), (1, 0)] {
            let mut bad = em.clone();
            bad[i] = v;
            assert!(!check_padding(&bad).0.declassify(), "byte {i} = {v}");
        }
        // No separator.
        let no_sep: Vec<u8> = [0x00, 0x02].into_iter().chain([7u8; 20]).collect();
        assert!(!check_padding(&no_sep).0.declassify());
    }
}
