//! ring as a peer: BoringSSL's assembly and a Rust bignum layer, the other provider rustls
//! ships and the RSA of much of the Rust ecosystem (webpki, quinn, older rustls).
//!
//! RSA: PKCS#1 v1.5 with SHA-256. ring signs with 2048- to 4096-bit keys only
//! (`PRIVATE_KEY_PUBLIC_MODULUS_MAX_BITS`) and verifies 1024 to 8192 bits (below 2048
//! through the `_FOR_LEGACY_USE_ONLY` parameters). It hashes the message itself: ring has no
//! signing of a precomputed digest, so the peer is handed the message whose SHA-256 the
//! others sign (a few bytes, well under 1% of an RSA operation). Verification goes
//! through `UnparsedPublicKey`, ring's only public-key API, which reads the key and sets up
//! its Montgomery constants on every call: that is ring's verification as its users get it.
//! Digests: SHA-1, SHA-256, SHA-384, SHA-512 and SHA-512/256, one-shot.

use crate::{Origin, PeerError, PeerInfo, Result};
use ::ring::digest;
use ::ring::signature::{self, RsaKeyPair, UnparsedPublicKey};
use std::sync::OnceLock;

/// Modulus sizes `RsaKeyPair` signs with.
pub const SIGN_BITS: std::ops::RangeInclusive<u32> = 2048..=4096;
/// Modulus sizes the PKCS#1 v1.5 SHA-256 verification takes (below 2048: legacy).
pub const VERIFY_BITS: std::ops::RangeInclusive<u32> = 1024..=8192;

/// Identity of the `ring` crate this binary was built with (version from Cargo.lock).
pub fn info() -> &'static PeerInfo {
    static INFO: OnceLock<PeerInfo> = OnceLock::new();
    INFO.get_or_init(|| PeerInfo {
        id: "ring",
        name: "ring",
        version: env!("COMPARE_RING_VERSION").to_string(),
        origin: Origin::Crate,
    })
}

/// A private key ready to sign with PKCS#1 v1.5 and SHA-256.
#[derive(Debug)]
pub struct RsaSigner {
    key: RsaKeyPair,
    rng: ::ring::rand::SystemRandom,
}

impl RsaSigner {
    /// Reads a PKCS#8 `PrivateKeyInfo` of a `bits`-bit key; a size outside [`SIGN_BITS`]
    /// is [`PeerError::Unavailable`].
    pub fn from_pkcs8(der: &[u8], bits: u32) -> Result<Self> {
        if !SIGN_BITS.contains(&bits) {
            return Err(PeerError::Unavailable(format!(
                "ring signs with 2048- to 4096-bit RSA keys, not {bits}"
            )));
        }
        let key = RsaKeyPair::from_pkcs8(der).map_err(|e| PeerError::Failed {
            call: "RsaKeyPair::from_pkcs8",
            detail: e.to_string(),
        })?;
        Ok(RsaSigner { key, rng: ::ring::rand::SystemRandom::new() })
    }

    /// The signature length in bytes.
    pub fn signature_len(&self) -> usize {
        self.key.public().modulus_len()
    }

    /// Signs `message` (hashing it with SHA-256) into `out`, which must be
    /// [`RsaSigner::signature_len`] bytes long.
    pub fn sign_into(&self, message: &[u8], out: &mut [u8]) -> Result<()> {
        if out.len() != self.signature_len() {
            return Err(PeerError::InvalidInput("signature buffer of the wrong length"));
        }
        self.key
            .sign(&signature::RSA_PKCS1_SHA256, &self.rng, message, out)
            .map_err(|_| PeerError::Failed { call: "RsaKeyPair::sign", detail: String::new() })
    }
}

/// A public key for PKCS#1 v1.5 SHA-256 verification: the `RSAPublicKey` ring takes, cut
/// from the SubjectPublicKeyInfo once; ring parses it on each verification.
#[derive(Debug)]
pub struct RsaVerifier {
    key: UnparsedPublicKey<Vec<u8>>,
}

impl RsaVerifier {
    /// Reads a SubjectPublicKeyInfo of a `bits`-bit key; a size outside [`VERIFY_BITS`] is
    /// [`PeerError::Unavailable`].
    pub fn from_spki(der: &[u8], bits: u32) -> Result<Self> {
        if !VERIFY_BITS.contains(&bits) {
            return Err(PeerError::Unavailable(format!(
                "ring verifies with 1024- to 8192-bit RSA keys, not {bits}"
            )));
        }
        let params: &'static signature::RsaParameters = if bits < 2048 {
            &signature::RSA_PKCS1_1024_8192_SHA256_FOR_LEGACY_USE_ONLY
        } else {
            &signature::RSA_PKCS1_2048_8192_SHA256
        };
        let key = spki_subject_public_key(der)?.to_vec();
        Ok(RsaVerifier { key: UnparsedPublicKey::new(params, key) })
    }

    /// Whether `signature` is a PKCS#1 v1.5 SHA-256 signature of `message`.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        self.key.verify(message, signature).is_ok()
    }
}

/// The contents of a SubjectPublicKeyInfo's `subjectPublicKey` BIT STRING (for RSA, the
/// PKCS#1 `RSAPublicKey`): `SEQUENCE { AlgorithmIdentifier, BIT STRING }`, DER.
fn spki_subject_public_key(spki: &[u8]) -> Result<&[u8]> {
    const BAD: PeerError = PeerError::InvalidInput("not a DER SubjectPublicKeyInfo");
    let (body, rest) = der_element(spki, 0x30).ok_or(BAD)?;
    if !rest.is_empty() {
        return Err(BAD);
    }
    let (_algorithm, body) = der_element(body, 0x30).ok_or(BAD)?;
    let (bits, rest) = der_element(body, 0x03).ok_or(BAD)?;
    match bits.split_first() {
        Some((0, key)) if rest.is_empty() => Ok(key),
        _ => Err(BAD),
    }
}

/// Splits a DER element with tag `tag` off the front of `der`: (contents, what follows).
fn der_element(der: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&t, rest) = der.split_first()?;
    let (&first, rest) = rest.split_first()?;
    if t != tag {
        return None;
    }
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let (digits, rest) = rest.split_at(n);
        (digits.iter().fold(0usize, |acc, &d| acc << 8 | usize::from(d)), rest)
    };
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// A digest algorithm of ring.
#[derive(Clone, Copy, Debug)]
pub struct Hash {
    alg: &'static digest::Algorithm,
}

impl Hash {
    /// The algorithm named as in `speed` ("sha256"...).
    pub fn by_name(name: &str) -> Result<Hash> {
        let alg = match name {
            "sha1" => &digest::SHA1_FOR_LEGACY_USE_ONLY,
            "sha256" => &digest::SHA256,
            "sha384" => &digest::SHA384,
            "sha512" => &digest::SHA512,
            "sha512-256" => &digest::SHA512_256,
            _ => return Err(PeerError::Unavailable(format!("{name} is not in ring"))),
        };
        Ok(Hash { alg })
    }

    /// Output length in bytes.
    pub fn size(&self) -> usize {
        self.alg.output_len()
    }

    /// Hashes `message` from a fresh state into `out`; returns the length written.
    pub fn digest_into(&self, message: &[u8], out: &mut [u8]) -> Result<usize> {
        let d = digest::digest(self.alg, message);
        let d = d.as_ref();
        out.get_mut(..d.len())
            .ok_or(PeerError::InvalidInput("digest buffer too small"))?
            .copy_from_slice(d);
        Ok(d.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spki_is_cut_to_the_rsa_public_key() {
        // SEQUENCE { SEQUENCE { OID rsaEncryption, NULL }, BIT STRING { 0, SEQUENCE {} } }
        let spki = [
            0x30, 0x14, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01,
            0x01, 0x05, 0x00, 0x03, 0x03, 0x00, 0x30, 0x00,
        ];
        assert_eq!(spki_subject_public_key(&spki), Ok(&[0x30, 0x00][..]));
        assert!(spki_subject_public_key(&spki[..spki.len() - 1]).is_err(), "truncated");
        let mut octets = spki;
        octets[17] = 0x04;
        assert!(spki_subject_public_key(&octets).is_err(), "not a BIT STRING");
    }

    #[test]
    fn digests_match_known_answers() {
        let mut out = [0u8; 64];
        let n = Hash::by_name("sha256").unwrap().digest_into(b"abc", &mut out).unwrap();
        assert_eq!(
            hex::encode(&out[..n]),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(Hash::by_name("md5").is_err());
    }
}
