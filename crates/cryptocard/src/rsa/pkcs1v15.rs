//! RSASSA-PKCS1-v1_5 signatures (RFC 8017 section 8.2) with EMSA-PKCS1-v1_5 encoding
//! (section 9.2).
//!
//! ```text
//! EM = 0x00 || 0x01 || PS || 0x00 || T        PS: emLen - tLen - 3 >= 8 bytes of 0xff
//! T  = DigestInfo(hash OID, H(M))             (the DER prefix of 9.2 note 1, then H(M))
//! ```
//!
//! Three ways to say what T is:
//!
//! * [`RsaPrivateKey::sign_pkcs1v15`]: hash the message with a [`HashAlg`] (every digest
//!   of [`crate::digest`]: MD2, MD4, MD5, SHA-1, SHA-2, SHA-3);
//! * [`RsaPrivateKey::sign_pkcs1v15_prehashed`]: a digest the caller computed, with its
//!   algorithm;
//! * [`RsaPrivateKey::sign_pkcs1v15_raw`]: T is the caller's bytes, no DigestInfo: what
//!   `openssl pkeyutl -sign` does without `-digest` (TLS 1.0/1.1's MD5||SHA-1 signatures).
//!
//! Verification re-encodes and compares (section 8.2.2 step 3 and the note after 9.2):
//! the only accepted encoding is the DER one with the explicit NULL parameter, so no
//! parser is exposed to the attacker (Bleichenbacher's 2006 forgery of lax parsers, the
//! BERserk family). Verification is public; the comparison is constant time anyway.
//!
//! With the `rustcrypto-traits` feature (default) this module also has the `rsa` crate's
//! typed keys for the RustCrypto `signature` traits: [`SigningKey<D>`](SigningKey),
//! [`VerifyingKey<D>`](VerifyingKey) and [`Signature`], `D` being one of
//! [`crate::digest`]'s hashers.

use super::key::{RsaPrivateKey, RsaPublicKey};
#[cfg(feature = "rustcrypto-traits")]
pub use super::signing::pkcs1v15::{Signature, SigningKey, VerifyingKey};
use crate::ct;
use crate::digest::{HashAlg, Hasher};
use crate::rng::RandomSource;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// The shortest PS allowed (9.2 step 5: emLen >= tLen + 11).
const MIN_PS_LEN: usize = 8;

/// EMSA-PKCS1-v1_5 steps 3-6 for T = `prefix || digest`: the k-byte EM, or
/// [`Error::MessageTooLong`] ("intended encoded message length too short").
fn encode(prefix: &[u8], digest: &[u8], k: usize) -> Result<Zeroizing<Vec<u8>>> {
    let t_len = prefix.len() + digest.len();
    if k < t_len + MIN_PS_LEN + 3 {
        return Err(Error::MessageTooLong);
    }
    let mut em = Zeroizing::new(vec![0xffu8; k]);
    em[0] = 0x00;
    em[1] = 0x01;
    let t = k - t_len;
    em[t - 1] = 0x00;
    em[t..t + prefix.len()].copy_from_slice(prefix);
    em[t + prefix.len()..].copy_from_slice(digest);
    Ok(em)
}

/// T's two parts for a digest computed with `hash`, after checking its length.
fn digest_info(hash: HashAlg, digest: &[u8]) -> Result<&'static [u8]> {
    if digest.len() != hash.output_len() {
        return Err(Error::InvalidArgument("digest length does not match the hash algorithm"));
    }
    Ok(hash.digest_info_prefix())
}

impl RsaPrivateKey {
    /// RSASSA-PKCS1-V1_5-SIGN (8.2.1) of `msg` hashed with `hash`. Returns k bytes.
    /// [`Error::MessageTooLong`] if the key is too small for the DigestInfo.
    pub fn sign_pkcs1v15(
        &self,
        hash: HashAlg,
        msg: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        let digest = Hasher::digest(hash, msg);
        self.sign_pkcs1v15_prehashed(hash, digest.as_bytes(), rng)
    }

    /// RSASSA-PKCS1-V1_5-SIGN of a digest the caller computed with `hash`
    /// ([`Error::InvalidArgument`] if its length is not `hash`'s).
    pub fn sign_pkcs1v15_prehashed(
        &self,
        hash: HashAlg,
        digest: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        super::declassify::signature(
            self.raw_private(&self.pkcs1v15_sign_input(hash, digest)?, rng),
        )
    }

    /// EMSA-PKCS1-v1_5 of a digest: RSASP1's k-byte input (shared with `batch.rs`).
    pub(super) fn pkcs1v15_sign_input(
        &self,
        hash: HashAlg,
        digest: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        encode(digest_info(hash, digest)?, digest, self.size())
    }

    /// Type-1 padding of `data` without DigestInfo: RSASP1's k-byte input.
    pub(super) fn pkcs1v15_raw_sign_input(&self, data: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        encode(&[], data, self.size())
    }

    /// PKCS#1 v1.5 type 1 padding of `data` itself (no DigestInfo), then RSASP1, as
    /// `openssl pkeyutl -sign` without `-digest`. `data` is at most k - 11 bytes.
    pub fn sign_pkcs1v15_raw(&self, data: &[u8], rng: &mut dyn RandomSource) -> Result<Vec<u8>> {
        super::declassify::signature(self.raw_private(&self.pkcs1v15_raw_sign_input(data)?, rng))
    }
}

impl RsaPublicKey {
    /// RSAVP1 then I2OSP for verification: the k-byte EM of a k-byte signature, or
    /// [`Error::Verification`] (wrong length, s >= n).
    pub(crate) fn open_signature(&self, sig: &[u8]) -> Result<Vec<u8>> {
        if sig.len() != self.size() {
            return Err(Error::Verification);
        }
        let s = self.elem_from_be_bytes(sig).map_err(|_| Error::Verification)?;
        Ok(self.n.to_be_bytes(&self.public_elem(&s)))
    }

    /// RSASSA-PKCS1-V1_5-VERIFY (8.2.2) of `msg` hashed with `hash`: `Ok(())` or
    /// [`Error::Verification`].
    pub fn verify_pkcs1v15(&self, hash: HashAlg, msg: &[u8], sig: &[u8]) -> Result<()> {
        let digest = Hasher::digest(hash, msg);
        self.verify_pkcs1v15_prehashed(hash, digest.as_bytes(), sig)
    }

    /// RSASSA-PKCS1-V1_5-VERIFY of a digest computed by the caller with `hash`.
    pub fn verify_pkcs1v15_prehashed(
        &self,
        hash: HashAlg,
        digest: &[u8],
        sig: &[u8],
    ) -> Result<()> {
        let prefix = digest_info(hash, digest).map_err(|_| Error::Verification)?;
        self.verify_encoded(prefix, digest, sig)
    }

    /// Verifies a [`RsaPrivateKey::sign_pkcs1v15_raw`] signature over `data`.
    pub fn verify_pkcs1v15_raw(&self, data: &[u8], sig: &[u8]) -> Result<()> {
        self.verify_encoded(&[], data, sig)
    }

    fn verify_encoded(&self, prefix: &[u8], digest: &[u8], sig: &[u8]) -> Result<()> {
        let em = self.open_signature(sig)?;
        let expected = encode(prefix, digest, self.size()).map_err(|_| Error::Verification)?;
        if ct::bytes_eq(&em, &expected).declassify() { Ok(()) } else { Err(Error::Verification) }
    }

    /// The data of a type 1 padded signature (`openssl pkeyutl -verifyrecover` without
    /// `-digest`): the bytes after 00 01 FF..FF (at least 8) 00. [`Error::Verification`]
    /// if the padding is wrong. With a DigestInfo inside, that is returned as it is.
    pub fn recover_pkcs1v15_raw(&self, sig: &[u8]) -> Result<Vec<u8>> {
        let em = self.open_signature(sig)?;
        if em[0] != 0x00 || em[1] != 0x01 {
            return Err(Error::Verification);
        }
        let ps_len = em[2..].iter().take_while(|&&b| b == 0xff).count();
        let sep = 2 + ps_len;
        if ps_len < MIN_PS_LEN || em.get(sep) != Some(&0x00) {
            return Err(Error::Verification);
        }
        Ok(em[sep + 1..].to_vec())
    }

    /// The digest a signature by `hash` carries (`openssl pkeyutl -verifyrecover` with
    /// `-pkeyopt digest:`): [`RsaPublicKey::recover_pkcs1v15_raw`]'s data, which must be
    /// `hash`'s DigestInfo; [`Error::Verification`] otherwise.
    pub fn recover_pkcs1v15_digest(&self, hash: HashAlg, sig: &[u8]) -> Result<Vec<u8>> {
        let data = self.recover_pkcs1v15_raw(sig)?;
        match data.strip_prefix(hash.digest_info_prefix()) {
            Some(d) if d.len() == hash.output_len() => Ok(d.to_vec()),
            _ => Err(Error::Verification),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_layout() {
        let em = encode(&[0xaa, 0xbb], &[1, 2, 3], 20).unwrap();
        let mut expected = vec![0x00, 0x01];
        expected.extend([0xff; 12]);
        expected.extend([0x00, 0xaa, 0xbb, 1, 2, 3]);
        assert_eq!(&em[..], &expected[..]);
        // tLen + 11 is the minimum.
        assert!(encode(&[], &[0; 9], 20).is_ok());
        assert_eq!(encode(&[], &[0; 10], 20).unwrap_err(), Error::MessageTooLong);
        assert!(digest_info(HashAlg::Sha256, &[0; 31]).is_err());
    }
}
