//! Mask generation functions: MGF1 (RFC 8017 appendix B.2.1), used by OAEP and PSS, and
//! SHAKE128/SHAKE256 as the MGF of RSASSA-PSS (RFC 8702 section 3.2).
//!
//! MGF1(seed, len) = T truncated to `len` bytes, T = Hash(seed || C_0) || Hash(seed ||
//! C_1) || ..., C_i the 4-byte big-endian counter i. With SHAKE the mask is simply
//! SHAKE(seed, len). The masks are applied in place by XOR, which is all the schemes do
//! with them. Constant time: the work depends on the lengths only.

use crate::digest::{HashAlg, Hasher, XofAlg};

/// A mask generation function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mgf {
    /// MGF1 over a hash (RFC 8017 B.2.1).
    Mgf1(HashAlg),
    /// A SHAKE XOF as the MGF (RFC 8702 3.2; PSS only).
    Shake(XofAlg),
}

impl Mgf {
    /// `out ^= MGF(seed, out.len())`.
    pub(crate) fn apply(self, seed: &[u8], out: &mut [u8]) {
        match self {
            Mgf::Mgf1(hash) => mgf1_xor(hash, seed, out),
            Mgf::Shake(xof) => {
                let mut mask = zeroize::Zeroizing::new(vec![0u8; out.len()]);
                xof.xof(seed, &mut mask);
                out.iter_mut().zip(mask.iter()).for_each(|(o, m)| *o ^= m);
            }
        }
    }
}

/// `out ^= MGF1-Hash(seed, out.len())`. `out` is at most a modulus long, far below
/// MGF1's limit of 2^32 hLen bytes.
pub(crate) fn mgf1_xor(hash: HashAlg, seed: &[u8], out: &mut [u8]) {
    let mut prefix = Hasher::new(hash);
    prefix.update(seed);
    for (counter, chunk) in out.chunks_mut(hash.output_len()).enumerate() {
        let mut h = prefix.clone();
        h.update(&(counter as u32).to_be_bytes());
        // A block of the mask is as secret as what it masks (OAEP's seed and DB).
        let mut t = h.finalize();
        for (o, t) in chunk.iter_mut().zip(t.as_bytes()) {
            *o ^= t;
        }
        t.wipe();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mgf1_is_the_hash_of_seed_and_counter() {
        let mut out = [0u8; 45];
        mgf1_xor(HashAlg::Sha1, b"seed", &mut out);
        let mut expected = Vec::new();
        for c in 0u32..3 {
            let mut h = Hasher::new(HashAlg::Sha1);
            h.update(b"seed");
            h.update(&c.to_be_bytes());
            expected.extend_from_slice(h.finalize().as_bytes());
        }
        assert_eq!(&out[..], &expected[..45]);
        // Applying the same mask twice restores the input.
        mgf1_xor(HashAlg::Sha1, b"seed", &mut out);
        assert_eq!(out, [0u8; 45]);
    }
}
