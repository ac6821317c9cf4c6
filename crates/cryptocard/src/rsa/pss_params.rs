//! The parameters of RSASSA-PSS (RFC 8017 section 8.1, EMSA-PSS section 9.1; SHAKE per
//! RFC 8702): the hash, the mask generation function and the salt length. The scheme is
//! `pss.rs`; the parameters sit apart so that the signature-trait types can name them
//! without importing the scheme that re-exports those types.

use super::mgf::Mgf;
use crate::digest::{DynXof, HashAlg, Hasher, XofAlg};

/// The PSS salt length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaltLength {
    /// As long as the digest (hLen).
    DigestLength,
    /// The largest that fits: emLen - hLen - 2.
    Maximum,
    /// Exactly this many bytes.
    Exact(usize),
    /// Verification only: whatever the signature carries.
    Auto,
}

/// The hash of RSASSA-PSS: a [`HashAlg`], or a SHAKE XOF with 2 * security bytes of
/// output (SHAKE128: 32, SHAKE256: 64; RFC 8702 section 3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PssHash {
    /// A fixed-length hash.
    Hash(HashAlg),
    /// SHAKE128 or SHAKE256.
    Shake(XofAlg),
}

impl PssHash {
    /// hLen.
    pub fn output_len(self) -> usize {
        match self {
            PssHash::Hash(h) => h.output_len(),
            PssHash::Shake(x) => 2 * x.security_len(),
        }
    }

    /// The hash of the concatenation of `parts`.
    pub(super) fn digest(self, parts: &[&[u8]]) -> Vec<u8> {
        match self {
            PssHash::Hash(alg) => {
                let mut h = Hasher::new(alg);
                parts.iter().for_each(|p| h.update(p));
                h.finalize().as_bytes().to_vec()
            }
            PssHash::Shake(alg) => {
                let mut x = DynXof::new(alg);
                parts.iter().for_each(|p| x.update(p));
                let mut out = vec![0u8; self.output_len()];
                x.finalize_xof().read(&mut out);
                out
            }
        }
    }
}

/// RSASSA-PSS parameters: the message hash, the mask generation function and the salt
/// length (RFC 4055 `RSASSA-PSS-params`, RFC 8702).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pss {
    /// The hash of the message and of M'.
    pub hash: PssHash,
    /// The mask generation function.
    pub mgf: Mgf,
    /// The salt length.
    pub salt: SaltLength,
}

impl Pss {
    /// PSS with `hash` for the message and for MGF1, and a digest-length salt.
    pub fn new(hash: HashAlg) -> Pss {
        Pss { hash: PssHash::Hash(hash), mgf: Mgf::Mgf1(hash), salt: SaltLength::DigestLength }
    }

    /// RSASSA-PSS with SHAKE128 or SHAKE256 as hash and MGF, salt of the digest length
    /// (RFC 8702 section 3.2: 32 or 64 bytes).
    pub fn shake(xof: XofAlg) -> Pss {
        Pss { hash: PssHash::Shake(xof), mgf: Mgf::Shake(xof), salt: SaltLength::DigestLength }
    }

    /// The same with MGF1 over `mgf1`.
    pub fn with_mgf1(self, mgf1: HashAlg) -> Pss {
        Pss { mgf: Mgf::Mgf1(mgf1), ..self }
    }

    /// The same with salt length `salt`.
    pub fn with_salt(self, salt: SaltLength) -> Pss {
        Pss { salt, ..self }
    }

    pub(super) fn h_len(&self) -> usize {
        self.hash.output_len()
    }

    /// H = Hash(0x00 * 8 || mHash || salt) (9.1.1 steps 5-6).
    pub(super) fn hash_m_prime(&self, m_hash: &[u8], salt: &[u8]) -> Vec<u8> {
        self.hash.digest(&[&[0u8; 8], m_hash, salt])
    }
}
