//! RC2 (RFC 2268, Rivest 1987): a 64-bit block cipher on 16-bit words, with a key of 1 to
//! 128 bytes and an "effective key length" that caps the key's strength.
//!
//! **Legacy.** RC2 survives in one place users still meet: PKCS#12 files. Windows and
//! OpenSSL 1.x encrypted the certificates of a `.pfx` with `pbeWithSHAAnd40BitRC2-CBC`
//! (RFC 7292 appendix C), a 40-bit key chosen for the export rules of the 1990s, and
//! OpenSSL 3's `pkcs12 -legacy` still does. It is here to read those files and to write
//! them for old consumers. A 40-bit key falls to exhaustive search in hours; 64 bits is the
//! most RFC 2268 calls strong, and the 64-bit block limits a key to a few GiB (Sweet32).
//!
//! Timing: the key expansion (section 2) indexes PITABLE by key bytes, and the MASH rounds
//! (section 3.2) index the expanded key by data; a cache observer learns about both. The
//! PKCS#12 uses derive the key from a password, so the leak is of a derived key per file,
//! not of a long-term secret, but do not use RC2 where timing matters.
//!
//! [`Rc2`] encrypts single blocks; [`cbc_encrypt`] and [`cbc_decrypt`] run CBC with PKCS#7
//! padding (RFC 2040 section 8 for the mode, RFC 5652 section 6.3 for the padding), the
//! only mode PKCS#12 and S/MIME (RFC 2311) used.

use crate::{Error, Result};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The block length in bytes.
pub const BLOCK_LEN: usize = 8;

/// RFC 2268 section 2: a permutation of 0..255 from the digits of pi.
const PITABLE: [u8; 256] = [
    0xd9, 0x78, 0xf9, 0xc4, 0x19, 0xdd, 0xb5, 0xed, 0x28, 0xe9, 0xfd, 0x79, 0x4a, 0xa0, 0xd8, 0x9d,
    0xc6, 0x7e, 0x37, 0x83, 0x2b, 0x76, 0x53, 0x8e, 0x62, 0x4c, 0x64, 0x88, 0x44, 0x8b, 0xfb, 0xa2,
    0x17, 0x9a, 0x59, 0xf5, 0x87, 0xb3, 0x4f, 0x13, 0x61, 0x45, 0x6d, 0x8d, 0x09, 0x81, 0x7d, 0x32,
    0xbd, 0x8f, 0x40, 0xeb, 0x86, 0xb7, 0x7b, 0x0b, 0xf0, 0x95, 0x21, 0x22, 0x5c, 0x6b, 0x4e, 0x82,
    0x54, 0xd6, 0x65, 0x93, 0xce, 0x60, 0xb2, 0x1c, 0x73, 0x56, 0xc0, 0x14, 0xa7, 0x8c, 0xf1, 0xdc,
    0x12, 0x75, 0xca, 0x1f, 0x3b, 0xbe, 0xe4, 0xd1, 0x42, 0x3d, 0xd4, 0x30, 0xa3, 0x3c, 0xb6, 0x26,
    0x6f, 0xbf, 0x0e, 0xda, 0x46, 0x69, 0x07, 0x57, 0x27, 0xf2, 0x1d, 0x9b, 0xbc, 0x94, 0x43, 0x03,
    0xf8, 0x11, 0xc7, 0xf6, 0x90, 0xef, 0x3e, 0xe7, 0x06, 0xc3, 0xd5, 0x2f, 0xc8, 0x66, 0x1e, 0xd7,
    0x08, 0xe8, 0xea, 0xde, 0x80, 0x52, 0xee, 0xf7, 0x84, 0xaa, 0x72, 0xac, 0x35, 0x4d, 0x6a, 0x2a,
    0x96, 0x1a, 0xd2, 0x71, 0x5a, 0x15, 0x49, 0x74, 0x4b, 0x9f, 0xd0, 0x5e, 0x04, 0x18, 0xa4, 0xec,
    0xc2, 0xe0, 0x41, 0x6e, 0x0f, 0x51, 0xcb, 0xcc, 0x24, 0x91, 0xaf, 0x50, 0xa1, 0xf4, 0x70, 0x39,
    0x99, 0x7c, 0x3a, 0x85, 0x23, 0xb8, 0xb4, 0x7a, 0xfc, 0x02, 0x36, 0x5b, 0x25, 0x55, 0x97, 0x31,
    0x2d, 0x5d, 0xfa, 0x98, 0xe3, 0x8a, 0x92, 0xae, 0x05, 0xdf, 0x29, 0x10, 0x67, 0x6c, 0xba, 0xc9,
    0xd3, 0x00, 0xe6, 0xcf, 0xe1, 0x9e, 0xa8, 0x2c, 0x63, 0x16, 0x01, 0x3f, 0x58, 0xe2, 0x89, 0xa9,
    0x0d, 0x38, 0x34, 0x1b, 0xab, 0x33, 0xff, 0xb0, 0xbb, 0x48, 0x0c, 0x5f, 0xb9, 0xb1, 0xcd, 0x2e,
    0xc5, 0xf3, 0xdb, 0x47, 0xe5, 0xa5, 0x9c, 0x77, 0x0a, 0xa6, 0x20, 0x68, 0xfe, 0x7f, 0xc1, 0xad,
];

/// The rotation of each word in a MIX round (section 3.1: s[0..3]).
const ROT: [u32; 4] = [1, 2, 3, 5];

/// RC2 with an expanded key (zeroized on drop).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Rc2 {
    k: [u16; 64],
}

impl core::fmt::Debug for Rc2 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Rc2 { .. }")
    }
}

impl Rc2 {
    /// The cipher for `key` (1 to 128 bytes) at `effective_bits` of strength (1 to 1024;
    /// RFC 2268's T1). PKCS#12 uses 5-byte keys at 40 bits and 16-byte keys at 128; the
    /// RFC's default for new uses is the key's own length in bits. Errors: `InvalidKey`
    /// for a key length or effective length out of range.
    pub fn new(key: &[u8], effective_bits: usize) -> Result<Rc2> {
        if key.is_empty() || key.len() > 128 {
            return Err(Error::InvalidKey("an RC2 key is 1 to 128 bytes"));
        }
        if !(1..=1024).contains(&effective_bits) {
            return Err(Error::InvalidKey("RC2's effective key length is 1 to 1024 bits"));
        }
        // Section 2, the key expansion, on a 128-byte buffer L.
        let t = key.len();
        let mut l = [0u8; 128];
        l[..t].copy_from_slice(key);
        for i in t..128 {
            l[i] = PITABLE[usize::from(l[i - 1].wrapping_add(l[i - t]))];
        }
        let t8 = effective_bits.div_ceil(8);
        let tm = 0xffu8 >> (8 * t8 - effective_bits);
        l[128 - t8] = PITABLE[usize::from(l[128 - t8] & tm)];
        for i in (0..128 - t8).rev() {
            l[i] = PITABLE[usize::from(l[i + 1] ^ l[i + t8])];
        }
        let mut k = [0u16; 64];
        for (w, pair) in k.iter_mut().zip(l.chunks_exact(2)) {
            *w = u16::from_le_bytes([pair[0], pair[1]]);
        }
        l.zeroize();
        Ok(Rc2 { k })
    }

    /// Encrypts one block in place (section 3.3: five MIXING rounds, a MASHING round, six
    /// MIXING, a MASHING, five MIXING).
    pub fn encrypt_block(&self, block: &mut [u8; BLOCK_LEN]) {
        let mut r = words(block);
        let mut j = 0;
        for round in 0..16 {
            for i in 0..4 {
                let mixed = r[i]
                    .wrapping_add(self.k[j])
                    .wrapping_add(r[(i + 3) % 4] & r[(i + 2) % 4])
                    .wrapping_add(!r[(i + 3) % 4] & r[(i + 1) % 4]);
                r[i] = mixed.rotate_left(ROT[i]);
                j += 1;
            }
            if round == 4 || round == 10 {
                for i in 0..4 {
                    r[i] = r[i].wrapping_add(self.k[usize::from(r[(i + 3) % 4] & 63)]);
                }
            }
        }
        *block = bytes(r);
    }

    /// Decrypts one block in place (section 4: the rounds of [`Rc2::encrypt_block`]
    /// undone in reverse order).
    pub fn decrypt_block(&self, block: &mut [u8; BLOCK_LEN]) {
        let mut r = words(block);
        let mut j = 64;
        for round in (0..16).rev() {
            for i in (0..4).rev() {
                j -= 1;
                r[i] = r[i]
                    .rotate_right(ROT[i])
                    .wrapping_sub(self.k[j])
                    .wrapping_sub(r[(i + 3) % 4] & r[(i + 2) % 4])
                    .wrapping_sub(!r[(i + 3) % 4] & r[(i + 1) % 4]);
            }
            if round == 5 || round == 11 {
                for i in (0..4).rev() {
                    r[i] = r[i].wrapping_sub(self.k[usize::from(r[(i + 3) % 4] & 63)]);
                }
            }
        }
        *block = bytes(r);
    }
}

/// The block as four little-endian words R[0..3].
fn words(block: &[u8; BLOCK_LEN]) -> [u16; 4] {
    core::array::from_fn(|i| u16::from_le_bytes([block[2 * i], block[2 * i + 1]]))
}

fn bytes(r: [u16; 4]) -> [u8; BLOCK_LEN] {
    let mut out = [0u8; BLOCK_LEN];
    for (chunk, w) in out.chunks_exact_mut(2).zip(r) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// CBC encryption with PKCS#7 padding: the ciphertext, a whole number of blocks.
pub fn cbc_encrypt(cipher: &Rc2, iv: &[u8; BLOCK_LEN], plaintext: &[u8]) -> Vec<u8> {
    let pad = BLOCK_LEN - plaintext.len() % BLOCK_LEN;
    let mut out = Vec::with_capacity(plaintext.len() + pad);
    out.extend_from_slice(plaintext);
    out.resize(plaintext.len() + pad, pad as u8);
    let mut chain = *iv;
    for chunk in out.chunks_exact_mut(BLOCK_LEN) {
        for (c, x) in chain.iter_mut().zip(chunk.iter()) {
            *c ^= x;
        }
        cipher.encrypt_block(&mut chain);
        chunk.copy_from_slice(&chain);
    }
    out
}

/// CBC decryption, removing PKCS#7 padding. Errors: `InvalidArgument` unless the
/// ciphertext is a non-empty whole number of blocks; `Decryption` for bad padding (in
/// PKCS#12, a wrong password).
pub fn cbc_decrypt(cipher: &Rc2, iv: &[u8; BLOCK_LEN], ciphertext: &[u8]) -> Result<Vec<u8>> {
    if ciphertext.is_empty() || !ciphertext.len().is_multiple_of(BLOCK_LEN) {
        return Err(Error::InvalidArgument("RC2-CBC input is not a whole number of blocks"));
    }
    let mut out = Vec::with_capacity(ciphertext.len());
    let mut chain = *iv;
    for chunk in ciphertext.chunks_exact(BLOCK_LEN) {
        let mut block: [u8; BLOCK_LEN] = chunk.try_into().expect("chunks are whole blocks");
        cipher.decrypt_block(&mut block);
        for (b, c) in block.iter_mut().zip(chain) {
            *b ^= c;
        }
        out.extend_from_slice(&block);
        chain.copy_from_slice(chunk);
    }
    let pad = usize::from(out[out.len() - 1]);
    let good = (1..=BLOCK_LEN).contains(&pad)
        && out[out.len() - pad..].iter().all(|&b| usize::from(b) == pad);
    if !good {
        out.zeroize();
        return Err(Error::Decryption);
    }
    out.truncate(out.len() - pad);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// RFC 2268 section 5, all eight vectors: (key, effective bits, plaintext, ciphertext).
    #[test]
    fn rfc2268_vectors() {
        let vectors = [
            ("0000000000000000", 63, "0000000000000000", "ebb773f993278eff"),
            ("ffffffffffffffff", 64, "ffffffffffffffff", "278b27e42e2f0d49"),
            ("3000000000000000", 64, "1000000000000001", "30649edf9be7d2c2"),
            ("88", 64, "0000000000000000", "61a8a244adacccf0"),
            ("88bca90e90875a", 64, "0000000000000000", "6ccf4308974c267f"),
            ("88bca90e90875a7f0f79c384627bafb2", 64, "0000000000000000", "1a807d272bbe5db1"),
            ("88bca90e90875a7f0f79c384627bafb2", 128, "0000000000000000", "2269552ab0f85ca6"),
            (
                "88bca90e90875a7f0f79c384627bafb216f80a6f85920584c42fceb0be255daf1e",
                129,
                "0000000000000000",
                "5b78d3a43dfff1f1",
            ),
        ];
        for (key, bits, pt, ct) in vectors {
            let c = Rc2::new(&hex(key), bits).unwrap();
            let mut block: [u8; 8] = hex(pt).try_into().unwrap();
            c.encrypt_block(&mut block);
            assert_eq!(block.to_vec(), hex(ct), "key {key} at {bits} bits");
            c.decrypt_block(&mut block);
            assert_eq!(block.to_vec(), hex(pt));
        }
    }

    #[test]
    fn pitable_is_a_permutation() {
        let mut seen = [false; 256];
        for &b in &PITABLE {
            assert!(!seen[usize::from(b)], "{b:#04x} twice");
            seen[usize::from(b)] = true;
        }
    }

    #[test]
    fn cbc_round_trips_every_length_and_refuses_bad_padding() {
        let c = Rc2::new(b"\x01\x02\x03\x04\x05", 40).unwrap();
        let iv = [7u8; 8];
        for len in 0..40 {
            let msg: Vec<u8> = (0..len as u8).collect();
            let ct = cbc_encrypt(&c, &iv, &msg);
            assert_eq!(ct.len(), (len / 8 + 1) * 8);
            assert_eq!(cbc_decrypt(&c, &iv, &ct).unwrap(), msg);
        }
        let mut ct = cbc_encrypt(&c, &iv, b"sixteen bytes...");
        let last = ct.len() - 9;
        ct[last] ^= 1; // flips the last plaintext byte, the padding
        assert!(matches!(cbc_decrypt(&c, &iv, &ct), Err(Error::Decryption)));
        assert!(cbc_decrypt(&c, &iv, &ct[..7]).is_err());
        assert!(cbc_decrypt(&c, &iv, &[]).is_err());
    }

    #[test]
    fn refuses_keys_out_of_range() {
        assert!(Rc2::new(&[], 64).is_err());
        assert!(Rc2::new(&[0; 129], 64).is_err());
        assert!(Rc2::new(&[0; 8], 0).is_err());
        assert!(Rc2::new(&[0; 8], 1025).is_err());
        assert!(Rc2::new(&[0; 128], 1024).is_ok());
    }
}
