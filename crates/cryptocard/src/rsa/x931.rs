//! ANSI X9.31 signatures (ANSI X9.31-1998, "Digital Signatures Using Reversible Public
//! Key Cryptography for the Financial Services Industry (rDSA)", section 4.1.1 and the
//! signature value of 5.2), as OpenSSL makes them with `RSA_X931_PADDING`.
//!
//! ```text
//! IR = 6B BB .. BB BA || H(M) || id || CC      (6A || H(M) || id || CC when k = |H| + 3)
//! Σ  = min(IR^d mod n, n - IR^d mod n)
//! ```
//!
//! `id` names the digest by its ISO/IEC 10118-3 number: 0x33 SHA-1, 0x34 SHA-256, 0x36
//! SHA-384, 0x35 SHA-512 (the four OpenSSL knows, crypto/rsa/rsa_x931.c
//! `RSA_X931_hash_id`). IR ends in the nibble C, so IR ≡ 12 (mod 16); n is odd, so of r
//! and n - r at most one is ≡ 12, and a verifier undoes the min by taking r = Σ^e mod n
//! when r ≡ 12 (mod 16) and n - r otherwise.
//!
//! The scheme is legacy: banking systems and FIPS 186-2 to 186-4 used it, FIPS 186-5
//! withdrew it. It is here because OpenSSL's default provider still signs with it, so a
//! program that prefers our provider (`?provider=cryptocard`) can ask for it too.
//!
//! As for PKCS#1 v1.5 there are two ways to say what is signed: a digest with its
//! algorithm ([`RsaPrivateKey::sign_x931_prehashed`], which appends the id), or the
//! caller's framed bytes, id included ([`RsaPrivateKey::sign_x931_raw`], what OpenSSL's
//! `RSA_private_encrypt` with `RSA_X931_PADDING` takes; OpenSSL 3's providers insist on
//! a digest).

use super::key::{RsaPrivateKey, RsaPublicKey};
use crate::digest::{HashAlg, Hasher};
use crate::rng::RandomSource;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// IR's first byte when there is padding (`6B`: the header nibble 6, then B).
const HEADER_PADDED: u8 = 0x6b;
/// IR's first byte without padding (`6A`: the header nibble and the pad's end nibble).
const HEADER_BARE: u8 = 0x6a;
/// A padding byte.
const PAD: u8 = 0xbb;
/// The padding's last byte.
const PAD_END: u8 = 0xba;
/// IR's last byte, the trailer's second.
const TRAILER: u8 = 0xcc;

/// The ISO/IEC 10118-3 id byte of `hash` in the X9.31 trailer, for the digests OpenSSL
/// signs with; `None` for the others.
pub fn hash_id(hash: HashAlg) -> Option<u8> {
    match hash {
        HashAlg::Sha1 => Some(0x33),
        HashAlg::Sha256 => Some(0x34),
        HashAlg::Sha512 => Some(0x35),
        HashAlg::Sha384 => Some(0x36),
        _ => None,
    }
}

/// `digest || id`, after checking the digest's length and that `hash` has an id.
fn framed(hash: HashAlg, digest: &[u8]) -> Result<Vec<u8>> {
    let id = hash_id(hash).ok_or(Error::Unsupported("X9.31 signs with SHA-1 or SHA-2 only"))?;
    if digest.len() != hash.output_len() {
        return Err(Error::InvalidArgument("digest length does not match the hash algorithm"));
    }
    let mut data = digest.to_vec();
    data.push(id);
    Ok(data)
}

/// The k-byte representative IR of `data` (OpenSSL's `RSA_padding_add_X931`):
/// [`Error::MessageTooLong`] when `data` and the three framing bytes exceed k.
fn encode(data: &[u8], k: usize) -> Result<Zeroizing<Vec<u8>>> {
    if data.len() + 2 > k {
        return Err(Error::MessageTooLong);
    }
    // `pad` bytes of 6B BB..BB BA before the data: none but 6A when it is 0.
    let pad = k - data.len() - 2;
    let mut em = Zeroizing::new(vec![PAD; k]);
    if pad == 0 {
        em[0] = HEADER_BARE;
    } else {
        em[0] = HEADER_PADDED;
        em[pad] = PAD_END;
    }
    em[pad + 1..k - 1].copy_from_slice(data);
    em[k - 1] = TRAILER;
    Ok(em)
}

/// The data of a representative (OpenSSL's `RSA_padding_check_X931`, which wants at
/// least one BB after a 6B header): [`Error::Verification`] for any other layout, and for
/// empty data.
fn decode(em: &[u8]) -> Result<&[u8]> {
    let (&header, rest) = em.split_first().ok_or(Error::Verification)?;
    let (&trailer, rest) = rest.split_last().ok_or(Error::Verification)?;
    let data = match header {
        HEADER_BARE => rest,
        HEADER_PADDED => {
            let pads = rest.iter().take_while(|&&b| b == PAD).count();
            if pads == 0 || rest.get(pads) != Some(&PAD_END) {
                return Err(Error::Verification);
            }
            &rest[pads + 1..]
        }
        _ => return Err(Error::Verification),
    };
    if trailer != TRAILER || data.is_empty() {
        return Err(Error::Verification);
    }
    Ok(data)
}

impl RsaPrivateKey {
    /// The X9.31 signature of `msg` hashed with `hash` (SHA-1, SHA-256, SHA-384 or
    /// SHA-512; [`Error::Unsupported`] for the others). Returns k bytes.
    pub fn sign_x931(
        &self,
        hash: HashAlg,
        msg: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        let digest = Hasher::digest(hash, msg);
        self.sign_x931_prehashed(hash, digest.as_bytes(), rng)
    }

    /// The X9.31 signature of a digest the caller computed with `hash`
    /// ([`Error::InvalidArgument`] if its length is not `hash`'s).
    pub fn sign_x931_prehashed(
        &self,
        hash: HashAlg,
        digest: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        self.sign_x931_raw(&framed(hash, digest)?, rng)
    }

    /// The X9.31 signature of `data` framed by the caller (the digest and its id byte):
    /// IR of `data`, RSASP1, then the smaller of the result and n minus it.
    pub fn sign_x931_raw(&self, data: &[u8], rng: &mut dyn RandomSource) -> Result<Vec<u8>> {
        let s = super::declassify::signature(self.raw_private(&encode(data, self.size())?, rng))?;
        self.public.x931_signature(s)
    }

    /// IR of a digest computed with `hash`: RSASP1's k-byte input (for `batch.rs`).
    pub(super) fn x931_sign_input_prehashed(
        &self,
        hash: HashAlg,
        digest: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        encode(&framed(hash, digest)?, self.size())
    }
}

impl RsaPublicKey {
    /// Σ = min(s, n - s) of RSASP1's k-byte result `s` (a public value: the signature
    /// either way).
    pub(crate) fn x931_signature(&self, s: Vec<u8>) -> Result<Vec<u8>> {
        let x = self.elem_from_be_bytes(&s).map_err(|_| Error::Internal("RSASP1 result >= n"))?;
        let other = self.n.to_be_bytes(&self.n.neg(&x));
        // Both are k bytes, so the byte order is the numbers' order.
        Ok(if other < s { other } else { s })
    }

    /// IR of an X9.31 signature: r = Σ^e mod n, or n - r when r is not 12 mod 16 (the
    /// verifier's side of the min). [`Error::Verification`] for a signature that is not
    /// k bytes or not less than n.
    fn open_x931(&self, sig: &[u8]) -> Result<Vec<u8>> {
        let r = self.open_signature(sig)?;
        if r.last().is_some_and(|&b| b & 0x0f == 0x0c) {
            return Ok(r);
        }
        let x = self.elem_from_be_bytes(&r).map_err(|_| Error::Verification)?;
        Ok(self.n.to_be_bytes(&self.n.neg(&x)))
    }

    /// Verifies an X9.31 signature of `msg` hashed with `hash`: `Ok(())` or
    /// [`Error::Verification`].
    pub fn verify_x931(&self, hash: HashAlg, msg: &[u8], sig: &[u8]) -> Result<()> {
        let digest = Hasher::digest(hash, msg);
        self.verify_x931_prehashed(hash, digest.as_bytes(), sig)
    }

    /// Verifies an X9.31 signature of a digest the caller computed with `hash`.
    pub fn verify_x931_prehashed(&self, hash: HashAlg, digest: &[u8], sig: &[u8]) -> Result<()> {
        if self.recover_x931_digest(hash, sig)? == digest {
            Ok(())
        } else {
            Err(Error::Verification)
        }
    }

    /// The digest an X9.31 signature by `hash` carries (`openssl pkeyutl -verifyrecover
    /// -pkeyopt digest:... -pkeyopt rsa_padding_mode:x931`): [`RsaPublicKey::recover_x931`]'s
    /// data, which must be a digest of `hash`'s length and then `hash`'s id;
    /// [`Error::Verification`] otherwise (also for a hash without an id).
    pub fn recover_x931_digest(&self, hash: HashAlg, sig: &[u8]) -> Result<Vec<u8>> {
        let data = self.recover_x931(sig)?;
        match data.split_last() {
            Some((&id, d)) if Some(id) == hash_id(hash) && d.len() == hash.output_len() => {
                Ok(d.to_vec())
            }
            _ => Err(Error::Verification),
        }
    }

    /// The framed data of an X9.31 signature, the digest and its id byte (`openssl
    /// pkeyutl -verifyrecover -pkeyopt rsa_padding_mode:x931`); [`Error::Verification`]
    /// if the representative is malformed.
    pub fn recover_x931(&self, sig: &[u8]) -> Result<Vec<u8>> {
        Ok(decode(&self.open_x931(sig)?)?.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn representative_layout() {
        let em = encode(&[1, 2, 3], 8).unwrap();
        assert_eq!(&em[..], &[0x6b, 0xbb, 0xbb, 0xba, 1, 2, 3, 0xcc]);
        assert_eq!(decode(&em).unwrap(), &[1, 2, 3]);
        // No room for BB..BA: the header and the pad's end share 6A.
        let bare = encode(&[1, 2, 3], 5).unwrap();
        assert_eq!(&bare[..], &[0x6a, 1, 2, 3, 0xcc]);
        assert_eq!(decode(&bare).unwrap(), &[1, 2, 3]);
        assert_eq!(encode(&[1, 2, 3], 4).unwrap_err(), Error::MessageTooLong);
        // Room for BA alone: OpenSSL writes 6B BA, and its check refuses it (no BB).
        let one = encode(&[1, 2, 3], 6).unwrap();
        assert_eq!(&one[..], &[0x6b, 0xba, 1, 2, 3, 0xcc]);
        assert_eq!(decode(&one).unwrap_err(), Error::Verification);
    }

    #[test]
    fn malformed_representatives_are_refused() {
        for bad in [
            &[0x6b, 0xbb, 0xba, 1, 0xcd][..], // trailer
            &[0x6c, 0xbb, 0xba, 1, 0xcc],     // header
            &[0x6b, 0xbb, 0xbb, 0xbb, 0xcc],  // no BA
            &[0x6b, 0xbb, 0xba, 0xcc],        // no data
            &[0x6a, 0xcc],
            &[0x6a],
            &[],
        ] {
            assert_eq!(decode(bad).unwrap_err(), Error::Verification, "{bad:02x?}");
        }
    }

    #[test]
    fn hash_ids_are_iso_10118_numbers() {
        assert_eq!(framed(HashAlg::Sha256, &[7; 32]).unwrap()[32], 0x34);
        assert_eq!(hash_id(HashAlg::Sha384), Some(0x36));
        assert_eq!(hash_id(HashAlg::Sha512), Some(0x35));
        assert!(framed(HashAlg::Sha224, &[0; 28]).is_err());
        assert!(framed(HashAlg::Sha1, &[0; 19]).is_err());
    }
}
