//! CMAC, the block-cipher MAC of NIST SP 800-38B (RFC 4493 for AES-128), over AES and
//! the DES family: payment systems authenticate with it under triple-DES and AES (the key
//! blocks of ANSI X9.143, formerly TR-31, and EMV's AES secure messaging), and `openssl
//! mac CMAC` computes it.
//!
//! The data runs through CBC under the key from a zero IV, as in a CBC-MAC, but the last
//! block is first masked with a subkey (SP 800-38B section 6.1): `K1` if it is whole, `K2`
//! if it was padded with `10...0` (section 6.2; the empty message is one padded block).
//! The subkeys come from `L = E_K(0^b)` by doubling in GF(2^b): a shift left, and the
//! constant `R_b` (0x87 for 128-bit blocks, 0x1B for 64-bit ones) folded in where the bit
//! shifted out is set, without a branch on it. Masking the last block is what makes CMAC
//! secure for messages of any length, unlike the plain CBC-MAC (`des::mac`).
//!
//! The tag is the last cipher block (8 bytes for the DES family, 16 for AES); a shorter
//! one is its prefix (section 6.2's `Tlen`), which [`Cmac::verify`] compares in constant
//! time.

use crate::aes::{Aes, Chain};
use crate::cipher::Algorithm;
use crate::des::{BlockCipher64, Des, Tdes};
use crate::{Error, Result, ct};
use zeroize::Zeroize;

/// The block cipher under the MAC.
enum Block {
    Des(Des),
    Tdes(Tdes),
    Aes(Aes),
}

impl Block {
    fn len(&self) -> usize {
        match self {
            Block::Des(_) | Block::Tdes(_) => 8,
            Block::Aes(_) => 16,
        }
    }

    /// Encrypts the first [`Block::len`] bytes of `b` in place.
    fn encrypt(&self, b: &mut [u8; 16]) {
        let mut half = [0u8; 8];
        match self {
            Block::Des(c) => {
                half.copy_from_slice(&b[..8]);
                c.encrypt_block(&mut half);
                b[..8].copy_from_slice(&half);
            }
            Block::Tdes(c) => {
                half.copy_from_slice(&b[..8]);
                c.encrypt_block(&mut half);
                b[..8].copy_from_slice(&half);
            }
            Block::Aes(c) => c.encrypt_block(b),
        }
        half.zeroize();
    }
}

/// `x` doubled in GF(2^(8 len)): shifted left one bit, `R_b` folded into the last byte
/// when the bit shifted out was set (SP 800-38B section 6.1, steps 2 and 3).
fn double(x: &[u8; 16], len: usize) -> [u8; 16] {
    let rb = if len == 16 { 0x87 } else { 0x1b };
    let mut out = [0u8; 16];
    let carry = x[0] >> 7;
    for i in 0..len {
        let next = if i + 1 < len { x[i + 1] >> 7 } else { 0 };
        out[i] = (x[i] << 1) | next;
    }
    // All ones where the top bit was set, zero otherwise: no branch on the secret.
    out[len - 1] ^= rb & 0u8.wrapping_sub(carry);
    out
}

/// A CMAC computation: [`Cmac::new`], [`Cmac::update`] as the data comes, then
/// [`Cmac::finalize`] or [`Cmac::verify`].
pub struct Cmac {
    cipher: Block,
    k1: [u8; 16],
    k2: [u8; 16],
    /// The CBC chain value.
    chain: [u8; 16],
    /// The last block seen, not yet chained: whether it is the last of the message is
    /// known only when more data comes or none does.
    pending: [u8; 16],
    pending_len: usize,
}

impl core::fmt::Debug for Cmac {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Cmac").field("block_len", &self.cipher.len()).finish_non_exhaustive()
    }
}

impl Drop for Cmac {
    fn drop(&mut self) {
        self.k1.zeroize();
        self.k2.zeroize();
        self.chain.zeroize();
        self.pending.zeroize();
    }
}

impl Cmac {
    /// CMAC over `algorithm` under `key`, which must be the algorithm's key length (8
    /// bytes for DES, 16 for two-key and 24 for three-key triple-DES, 16, 24 or 32 for
    /// AES). Errors: `InvalidKey` for another length.
    pub fn new(algorithm: Algorithm, key: &[u8]) -> Result<Cmac> {
        if key.len() != algorithm.key_len() {
            return Err(Error::InvalidKey("CMAC: the key is not the cipher's length"));
        }
        let cipher = match algorithm {
            Algorithm::Des => Block::Des(Des::new(key)?),
            Algorithm::DesEde | Algorithm::DesEde3 => Block::Tdes(Tdes::new(key)?),
            _ => Block::Aes(Aes::new(key)?),
        };
        let len = cipher.len();
        let mut l = [0u8; 16];
        cipher.encrypt(&mut l);
        let k1 = double(&l, len);
        let k2 = double(&k1, len);
        l.zeroize();
        Ok(Cmac { cipher, k1, k2, chain: [0; 16], pending: [0; 16], pending_len: 0 })
    }

    /// The tag's full length: the cipher's block, 8 or 16 bytes.
    pub fn block_len(&self) -> usize {
        self.cipher.len()
    }

    /// Adds `data` to the message.
    pub fn update(&mut self, mut data: &[u8]) {
        let len = self.cipher.len();
        while !data.is_empty() {
            if self.pending_len == len {
                // More data follows: the pending block is not the last.
                for (c, p) in self.chain[..len].iter_mut().zip(&self.pending[..len]) {
                    *c ^= p;
                }
                self.cipher.encrypt(&mut self.chain);
                self.pending_len = 0;
                data = self.bulk(data);
            }
            let take = (len - self.pending_len).min(data.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&data[..take]);
            self.pending_len += take;
            data = &data[take..];
        }
    }

    /// Chains the whole blocks of `data` but the last (the one that may end the message
    /// stays for [`Cmac::update`] to hold back) through AES's CBC kernel, whose round keys
    /// stay in registers from block to block; returns what is left. The DES family, whose
    /// blocks cost far more than the call, goes block by block.
    fn bulk<'a>(&mut self, data: &'a [u8]) -> &'a [u8] {
        let Block::Aes(aes) = &self.cipher else { return data };
        let whole = data.len().saturating_sub(1) / 16 * 16;
        let mut scratch = [0u8; 1024];
        for part in data[..whole].chunks(scratch.len()) {
            aes.chain(Chain::Cbc, &mut self.chain, part, &mut scratch[..part.len()]);
        }
        scratch.zeroize();
        &data[whole..]
    }

    /// The full tag (the cipher's block length).
    pub fn finalize(mut self) -> CmacTag {
        self.finalize_reset()
    }

    /// The full tag, and the computation ready for another message under the same key
    /// (the key schedule and subkeys kept, as a server that MACs many messages keeps
    /// them).
    pub fn finalize_reset(&mut self) -> CmacTag {
        let len = self.cipher.len();
        let subkey = if self.pending_len == len {
            self.k1
        } else {
            // Padding: a one bit, then zeros (SP 800-38B section 6.2 step 3).
            self.pending[self.pending_len] = 0x80;
            self.pending[self.pending_len + 1..len].fill(0);
            self.k2
        };
        for ((c, p), k) in self.chain[..len].iter_mut().zip(&self.pending).zip(&subkey) {
            *c ^= p ^ k;
        }
        self.cipher.encrypt(&mut self.chain);
        let tag = CmacTag { bytes: self.chain, len };
        self.chain.zeroize();
        self.pending.zeroize();
        self.pending_len = 0;
        tag
    }

    /// Checks `tag`, the full tag or a prefix of it of at least 4 bytes, in constant time.
    /// Errors: `Verification` if it does not match or is too short or too long.
    pub fn verify(self, tag: &[u8]) -> Result<()> {
        let len = self.cipher.len();
        let ours = self.finalize();
        if !(4..=len).contains(&tag.len()) {
            return Err(Error::Verification);
        }
        if ct::bytes_eq(&ours.as_bytes()[..tag.len()], tag).declassify() {
            Ok(())
        } else {
            Err(Error::Verification)
        }
    }
}

/// A CMAC tag. It compares in constant time; `Debug` shows its length only.
#[derive(Clone)]
pub struct CmacTag {
    bytes: [u8; 16],
    len: usize,
}

impl CmacTag {
    /// The tag bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl PartialEq for CmacTag {
    fn eq(&self, other: &CmacTag) -> bool {
        ct::bytes_eq(self.as_bytes(), other.as_bytes()).declassify()
    }
}

impl Eq for CmacTag {}

impl core::fmt::Debug for CmacTag {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "CmacTag({} bytes)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// The subkeys of RFC 4493 section 4 (AES-128): L, K1, K2.
    #[test]
    fn subkeys_as_rfc_4493_derives_them() {
        let c = Cmac::new(Algorithm::Aes128, &unhex("2b7e151628aed2a6abf7158809cf4f3c")).unwrap();
        assert_eq!(&c.k1[..], &unhex("fbeed618357133667c85e08f7236a8de")[..]);
        assert_eq!(&c.k2[..], &unhex("f7ddac306ae266ccf90bc11ee46d513b")[..]);
    }

    /// A message split anywhere gives the tag of the message whole, fed a byte at a time
    /// (which never reaches the bulk path) the same; the empty message is one padded
    /// block.
    #[test]
    fn splits_do_not_matter() {
        let msg: Vec<u8> = (0..2100u32).map(|i| (i * 7 + 3) as u8).collect();
        let keys = [
            (Algorithm::DesEde3, unhex("8aa83bf8cbda10620bc1bf19fbb6cd58bc313d4a371ca8b5")),
            (Algorithm::Aes128, unhex("2b7e151628aed2a6abf7158809cf4f3c")),
        ];
        for (alg, key) in &keys {
            for len in [0, 1, 15, 16, 17, 32, 1040, 1041, 2100] {
                let msg = &msg[..len];
                let whole = {
                    let mut c = Cmac::new(*alg, key).unwrap();
                    c.update(msg);
                    c.finalize()
                };
                let mut bytewise = Cmac::new(*alg, key).unwrap();
                for b in msg {
                    bytewise.update(core::slice::from_ref(b));
                }
                assert_eq!(bytewise.finalize(), whole, "{alg:?}, {len} bytes a byte at a time");
                for split in (0..=len).step_by(7) {
                    let mut c = Cmac::new(*alg, key).unwrap();
                    c.update(&msg[..split]);
                    c.update(&[]);
                    c.update(&msg[split..]);
                    assert_eq!(c.finalize(), whole, "{alg:?}, {len} bytes split at {split}");
                }
            }
        }
        let key = &keys[0].1;
        let msg = &msg[..40];
        let whole = {
            let mut c = Cmac::new(Algorithm::DesEde3, key).unwrap();
            c.update(msg);
            c.finalize()
        };
        // A reset computation starts afresh under the same key.
        let mut c = Cmac::new(Algorithm::DesEde3, key).unwrap();
        c.update(b"another message first");
        let _ = c.finalize_reset();
        c.update(msg);
        assert_eq!(c.finalize_reset(), whole);
        assert!(c.verify(&whole.as_bytes()[..3]).is_err(), "a tag under 4 bytes");
        assert!(Cmac::new(Algorithm::Aes128, key).is_err(), "a key of another cipher");
    }
}
