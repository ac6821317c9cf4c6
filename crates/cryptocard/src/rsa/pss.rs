//! RSASSA-PSS (RFC 8017 section 8.1) with EMSA-PSS encoding (section 9.1).
//!
//! ```text
//! M'  = 0x00 * 8 || mHash || salt                    H = Hash(M')
//! DB  = PS (zeros) || 0x01 || salt                   maskedDB = DB xor MGF(H, emLen - hLen - 1)
//! EM  = maskedDB || H || 0xbc                        emLen = ceil(emBits / 8), emBits = modBits - 1
//! ```
//!
//! The top 8 emLen - emBits bits of maskedDB are cleared, so EM < 2^emBits < n.
//!
//! Salt length ([`SaltLength`]): the digest length (RFC 8017's recommendation, TLS 1.3),
//! the maximum emLen - hLen - 2 (what `openssl dgst -sigopt rsa_padding_mode:pss` uses by
//! default), or a number; verification can take the length from the signature
//! ([`SaltLength::Auto`], OpenSSL's `RSA_PSS_SALTLEN_AUTO`), so that signatures with any
//! salt, OpenSSL's default included, verify. The hash and the MGF1 hash are separate
//! parameters ([`Pss::with_mgf1`]), as in RFC 4055 `RSASSA-PSS-params`; SHAKE128 and
//! SHAKE256 serve as both hash and MGF per RFC 8702 ([`Pss::shake`]).
//!
//! Verification is public data only and needs no constant-time care; the final
//! comparison of H is constant time anyway. Signing uses fresh random salt from the
//! caller's [`RandomSource`].
//!
//! With the `rustcrypto-traits` feature (default) this module also has the `rsa` crate's
//! typed keys for the RustCrypto `signature` traits: [`SigningKey<D>`](SigningKey) (also
//! named [`BlindedSigningKey`]), [`VerifyingKey<D>`](VerifyingKey) and [`Signature`], `D`
//! being one of [`crate::digest`]'s hashers.

use super::key::{RsaPrivateKey, RsaPublicKey};
pub use super::pss_params::{Pss, PssHash, SaltLength};
#[cfg(feature = "rustcrypto-traits")]
pub use super::signing::pss::{BlindedSigningKey, Signature, SigningKey, VerifyingKey};
use crate::ct;
use crate::rng::RandomSource;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// EMSA-PSS-ENCODE (9.1.1) of mHash into `em_len` bytes for `em_bits`.
fn encode(
    params: &Pss,
    m_hash: &[u8],
    em_bits: usize,
    rng: &mut dyn RandomSource,
) -> Result<Zeroizing<Vec<u8>>> {
    let em_len = em_bits.div_ceil(8);
    let h_len = params.h_len();
    // Step 3: emLen >= hLen + sLen + 2.
    let max_salt = em_len.checked_sub(h_len + 2).ok_or(Error::MessageTooLong)?;
    let s_len = match params.salt {
        SaltLength::DigestLength => h_len,
        SaltLength::Maximum => max_salt,
        SaltLength::Exact(n) => n,
        SaltLength::Auto => {
            return Err(Error::InvalidArgument("PSS signing needs a salt length, not Auto"));
        }
    };
    if s_len > max_salt {
        return Err(Error::MessageTooLong);
    }
    let mut salt = vec![0u8; s_len];
    rng.fill_bytes(&mut salt)?;
    super::declassify::pss_salt(&salt);
    let h = params.hash_m_prime(m_hash, &salt);
    // Steps 7-12: DB = PS || 0x01 || salt, masked; EM = maskedDB || H || 0xbc.
    let db_len = em_len - h_len - 1;
    let mut em = Zeroizing::new(vec![0u8; em_len]);
    em[db_len - s_len - 1] = 0x01;
    em[db_len - s_len..db_len].copy_from_slice(&salt);
    params.mgf.apply(&h, &mut em[..db_len]);
    em[0] &= 0xff >> (8 * em_len - em_bits);
    em[db_len..em_len - 1].copy_from_slice(&h);
    em[em_len - 1] = 0xbc;
    Ok(em)
}

/// EMSA-PSS-VERIFY (9.1.2) of `em` (emLen bytes) against mHash.
fn verify_encoded(params: &Pss, m_hash: &[u8], em: &mut [u8], em_bits: usize) -> Result<()> {
    const BAD: Error = Error::Verification;
    let em_len = em.len();
    let h_len = params.h_len();
    // Steps 3-4.
    if em_len < h_len + 2 || em[em_len - 1] != 0xbc {
        return Err(BAD);
    }
    // Steps 5-6: the top bits of maskedDB must be zero.
    let db_len = em_len - h_len - 1;
    let top_mask = 0xffu8 >> (8 * em_len - em_bits);
    if em[0] & !top_mask != 0 {
        return Err(BAD);
    }
    let (db, rest) = em.split_at_mut(db_len);
    let h = &rest[..h_len];
    // Steps 7-9: unmask DB.
    params.mgf.apply(h, db);
    db[0] &= top_mask;
    // Step 10: PS zeros, then 0x01.
    let ps_len = db.iter().take_while(|&&b| b == 0).count();
    if ps_len == db_len || db[ps_len] != 0x01 {
        return Err(BAD);
    }
    let s_len = db_len - ps_len - 1;
    let expected = match params.salt {
        SaltLength::Auto => s_len,
        SaltLength::DigestLength => h_len,
        SaltLength::Maximum => em_len.saturating_sub(h_len + 2),
        SaltLength::Exact(n) => n,
    };
    if s_len != expected {
        return Err(BAD);
    }
    // Steps 11-14.
    let h2 = params.hash_m_prime(m_hash, &db[ps_len + 1..]);
    if ct::bytes_eq(h, &h2).declassify() { Ok(()) } else { Err(BAD) }
}

fn check_digest(params: &Pss, digest: &[u8]) -> Result<()> {
    if digest.len() != params.h_len() {
        return Err(Error::InvalidArgument("digest length does not match the hash algorithm"));
    }
    Ok(())
}

/// The message digest `sign_pss` signs (shared with `batch.rs`).
pub(super) fn pss_msg_digest(params: &Pss, msg: &[u8]) -> Vec<u8> {
    params.hash.digest(&[msg])
}

impl RsaPrivateKey {
    /// RSASSA-PSS-SIGN (8.1.1) of `msg`. Returns k bytes.
    pub fn sign_pss(
        &self,
        params: &Pss,
        msg: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        let digest = pss_msg_digest(params, msg);
        self.sign_pss_prehashed(params, &digest, rng)
    }

    /// RSASSA-PSS-SIGN of a digest the caller computed with `params.hash`.
    pub fn sign_pss_prehashed(
        &self,
        params: &Pss,
        digest: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        super::declassify::signature(
            self.raw_private(&self.pss_sign_input(params, digest, rng)?, rng),
        )
    }

    /// EMSA-PSS-ENCODE of a digest, padded to RSASP1's k-byte input (shared with
    /// `batch.rs`). Draws the salt from `rng`.
    pub(super) fn pss_sign_input(
        &self,
        params: &Pss,
        digest: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<Zeroizing<Vec<u8>>> {
        check_digest(params, digest)?;
        let em = encode(params, digest, self.bits() - 1, rng)?;
        // EM has emLen = k or k - 1 bytes; RSASP1 takes it as an integer of k bytes.
        let mut padded = Zeroizing::new(vec![0u8; self.size()]);
        let k = padded.len();
        padded[k - em.len()..].copy_from_slice(&em);
        Ok(padded)
    }
}

impl RsaPublicKey {
    /// RSASSA-PSS-VERIFY (8.1.2) of `msg`: `Ok(())` or [`Error::Verification`].
    pub fn verify_pss(&self, params: &Pss, msg: &[u8], sig: &[u8]) -> Result<()> {
        let digest = params.hash.digest(&[msg]);
        self.verify_pss_prehashed(params, &digest, sig)
    }

    /// RSASSA-PSS-VERIFY of a digest computed by the caller with `params.hash`.
    pub fn verify_pss_prehashed(&self, params: &Pss, digest: &[u8], sig: &[u8]) -> Result<()> {
        check_digest(params, digest).map_err(|_| Error::Verification)?;
        let em_bits = self.bits() - 1;
        let em_len = em_bits.div_ceil(8);
        let mut em = self.open_signature(sig)?;
        // Step 2.c: EM = I2OSP(m, emLen); when emLen = k - 1 the first byte must be 0.
        let extra = em.len() - em_len;
        if em[..extra].iter().any(|&b| b != 0) {
            return Err(Error::Verification);
        }
        verify_encoded(params, digest, &mut em[extra..], em_bits)
    }
}
