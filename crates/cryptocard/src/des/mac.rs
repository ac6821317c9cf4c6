//! CBC-MACs on DES and triple-DES: the FIPS 113 Data Authentication Algorithm and ISO/IEC
//! 9797-1:2011 MAC algorithms 1 and 3.
//!
//! * **MAC algorithm 1** (ISO/IEC 9797-1 section 7.2; FIPS 113's DAA with DES, a zero IV
//!   and zero padding): `H_0 = IV = 0`, `H_i = E_K(D_i xor H_{i-1})` over the padded data,
//!   tag = the leftmost `m` bits of `H_q` (FIPS 113 section 3: 16 <= m <= 64). [`CbcMac`].
//! * **MAC algorithm 3**, the "retail MAC" of ANSI X9.19 (ISO/IEC 9797-1 section 7.4,
//!   output transformation 3): single-DES CBC under `K`, then `G = E_K(D_K'(H_q))` with a
//!   second key `K'` (a 16-byte key `K || K'`). [`RetailMac`].
//!
//! Padding (ISO/IEC 9797-1 section 6.3): method 1 appends as few zero bytes as give a
//! positive multiple of 8 (none for aligned non-empty data; one zero block for empty data);
//! method 2 appends 0x80 then zeros (always); method 3 prepends a block holding the data
//! length in bits (big-endian) and then pads like method 1 (possibly with none at all),
//! so the length must be declared up front. PKCS#7 is offered for interoperability
//! with tools that use it (Bouncy Castle's `CBCBlockCipherMac` with PKCS7 padding).
//!
//! A CBC-MAC is secure only for messages of one fixed length (or with padding method 3, or
//! algorithm 3 against length extension); the tag is compared in constant time by
//! [`CbcMac::verify`] and [`RetailMac::verify`]. Like DES itself, these MACs are kept for
//! legacy and payment systems.

use super::cipher::sealed::Inner;
use super::feistel::{fp_contract, ip_expand};
use super::modes::kernels::cbc_mac_blocks;
use super::{BlockCipher64, Des};
use crate::{Error, Result, ct};
use zeroize::Zeroize;

/// How the data is padded to whole blocks (ISO/IEC 9797-1 section 6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MacPadding {
    /// Padding method 1: zero bytes, none if the data is already a positive multiple of 8
    /// bytes. FIPS 113.
    Zeros,
    /// Padding method 2: a 0x80 byte, then zero bytes.
    OneAndZeros,
    /// Padding method 3: a length block (the data length in bits) in front, zero bytes at
    /// the end as needed. The data length in bytes must be given here, before the data.
    LengthPrefixed(u64),
    /// PKCS#7 (not an ISO method): 1 to 8 bytes, each holding their count.
    Pkcs7,
}

/// A finished MAC: `len` leading bytes of the final block (2 to 8). Only those are kept
/// (the rest of the block, which a shortened tag hides, is not), and they compare in
/// constant time. `Debug` shows the length only: print [`MacTag::as_bytes`] on purpose.
#[derive(Clone, Copy)]
pub struct MacTag {
    bytes: [u8; 8],
    len: usize,
}

impl PartialEq for MacTag {
    fn eq(&self, other: &MacTag) -> bool {
        crate::ct::bytes_eq(self.as_bytes(), other.as_bytes()).declassify()
    }
}

impl Eq for MacTag {}

impl core::fmt::Debug for MacTag {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "MacTag({} bytes)", self.len)
    }
}

impl MacTag {
    /// The tag bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl AsRef<[u8]> for MacTag {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// The CBC chain of a MAC with its buffered partial block.
#[derive(Clone)]
struct Chain<C: BlockCipher64> {
    cipher: C,
    h: u64,
    buf: [u8; 8],
    buf_len: usize,
    len: u64,
    padding: MacPadding,
    tag_len: usize,
}

impl<C: BlockCipher64> Drop for Chain<C> {
    fn drop(&mut self) {
        self.h.zeroize();
        self.buf.zeroize();
    }
}

impl<C: BlockCipher64> Chain<C> {
    fn new(cipher: C, iv: u64, padding: MacPadding, tag_len: usize) -> Result<Self> {
        if !(2..=8).contains(&tag_len) {
            return Err(Error::InvalidArgument("a CBC-MAC tag is 2 to 8 bytes (16 to 64 bits)"));
        }
        let mut chain = Chain { cipher, h: iv, buf: [0; 8], buf_len: 0, len: 0, padding, tag_len };
        if let MacPadding::LengthPrefixed(n) = padding {
            let bits =
                n.checked_mul(8).ok_or(Error::InvalidArgument("data too long for method 3"))?;
            cbc_mac_blocks(&chain.cipher, &mut chain.h, &bits.to_be_bytes());
        }
        Ok(chain)
    }

    fn update(&mut self, mut data: &[u8]) {
        self.len = self.len.wrapping_add(data.len() as u64);
        if self.buf_len > 0 {
            let take = (8 - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
            if self.buf_len < 8 {
                return;
            }
            let block = self.buf;
            cbc_mac_blocks(&self.cipher, &mut self.h, &block);
            self.buf_len = 0;
        }
        let whole = data.len() / 8 * 8;
        cbc_mac_blocks(&self.cipher, &mut self.h, &data[..whole]);
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    /// Pads, runs the last block and returns `H_q`.
    fn finish(&mut self) -> Result<u64> {
        let n = self.buf_len;
        let pad_block = match self.padding {
            MacPadding::Zeros => n > 0 || self.len == 0,
            MacPadding::LengthPrefixed(declared) => {
                if declared != self.len {
                    return Err(Error::InvalidArgument(
                        "data length differs from the declared one",
                    ));
                }
                n > 0
            }
            MacPadding::OneAndZeros => {
                self.buf[n] = 0x80;
                self.buf[n + 1..].fill(0);
                true
            }
            MacPadding::Pkcs7 => {
                self.buf[n..].fill((8 - n) as u8);
                true
            }
        };
        if pad_block {
            if matches!(self.padding, MacPadding::Zeros | MacPadding::LengthPrefixed(_)) {
                self.buf[n..].fill(0);
            }
            let block = self.buf;
            cbc_mac_blocks(&self.cipher, &mut self.h, &block);
        }
        Ok(self.h)
    }

    fn tag(&self, h: u64) -> MacTag {
        let mut bytes = h.to_be_bytes();
        // The bytes a shortened tag hides go no further: with the whole final block, an
        // extension of the message is easy to forge under algorithm 1.
        bytes[self.tag_len..].fill(0);
        MacTag { bytes, len: self.tag_len }
    }
}

/// ISO/IEC 9797-1 MAC algorithm 1 (CBC-MAC) over DES or triple-DES; with DES, a zero IV
/// and [`MacPadding::Zeros`] it is the FIPS 113 Data Authentication Algorithm.
#[derive(Clone)]
pub struct CbcMac<C: BlockCipher64> {
    chain: Chain<C>,
}

impl<C: BlockCipher64> core::fmt::Debug for CbcMac<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CbcMac").field("cipher", &C::NAME).finish_non_exhaustive()
    }
}

impl<C: BlockCipher64> CbcMac<C> {
    /// A MAC with a zero IV, the given padding and a tag of `tag_len` bytes (2 to 8).
    /// Errors: `InvalidArgument` for another tag length.
    pub fn new(cipher: C, padding: MacPadding, tag_len: usize) -> Result<Self> {
        Ok(CbcMac { chain: Chain::new(cipher, 0, padding, tag_len)? })
    }

    /// As [`CbcMac::new`] with a nonzero initial chaining value. Not FIPS 113 or ISO
    /// conformant; for legacy checksums such as OpenSSL's `DES_cbc_cksum`.
    pub fn with_iv(cipher: C, iv: &[u8; 8], padding: MacPadding, tag_len: usize) -> Result<Self> {
        Ok(CbcMac { chain: Chain::new(cipher, u64::from_be_bytes(*iv), padding, tag_len)? })
    }

    /// Feeds more data. Any split of the data gives the same tag.
    pub fn update(&mut self, data: &[u8]) {
        self.chain.update(data);
    }

    /// The tag. Errors: `InvalidArgument` if padding method 3 was declared with another
    /// length.
    pub fn finalize(mut self) -> Result<MacTag> {
        let h = self.chain.finish()?;
        Ok(self.chain.tag(h))
    }

    /// Checks `tag` in constant time. Errors: `Verification` on mismatch (including a
    /// wrong tag length), or as [`CbcMac::finalize`].
    pub fn verify(self, tag: &[u8]) -> Result<()> {
        verify(self.finalize()?, tag)
    }
}

impl CbcMac<Des> {
    /// The FIPS 113 Data Authentication Algorithm: DES, zero IV, zero padding, the leftmost
    /// `tag_len` bytes (2 to 8). Errors: `InvalidKey` for a key that is not 8 bytes.
    pub fn fips113(key: &[u8], tag_len: usize) -> Result<Self> {
        CbcMac::new(Des::new(key)?, MacPadding::Zeros, tag_len)
    }
}

/// ISO/IEC 9797-1 MAC algorithm 3, the ANSI X9.19 retail MAC: DES-CBC under `K`, then
/// `E_K(D_K'(H_q))`.
#[derive(Clone)]
pub struct RetailMac {
    chain: Chain<Des>,
    k2: Des,
}

impl core::fmt::Debug for RetailMac {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("RetailMac { .. }")
    }
}

impl RetailMac {
    /// A retail MAC under the 16-byte key `K || K'`, zero IV, with the given padding and
    /// tag length (2 to 8 bytes). Errors: `InvalidKey` unless the key is 16 bytes,
    /// `InvalidArgument` for a bad tag length.
    pub fn new(key: &[u8], padding: MacPadding, tag_len: usize) -> Result<Self> {
        if key.len() != 16 {
            return Err(Error::InvalidKey("a retail MAC key is 16 bytes (K || K')"));
        }
        let chain = Chain::new(Des::new(&key[..8])?, 0, padding, tag_len)?;
        Ok(RetailMac { chain, k2: Des::new(&key[8..])? })
    }

    /// Feeds more data.
    pub fn update(&mut self, data: &[u8]) {
        self.chain.update(data);
    }

    /// The tag. Errors as [`CbcMac::finalize`].
    pub fn finalize(mut self) -> Result<MacTag> {
        let h = self.chain.finish()?;
        let k1 = &self.chain.cipher;
        let g = fp_contract(k1.encrypt_inner(self.k2.decrypt_inner(ip_expand(h))));
        Ok(self.chain.tag(g))
    }

    /// Checks `tag` in constant time. Errors: `Verification` on mismatch.
    pub fn verify(self, tag: &[u8]) -> Result<()> {
        verify(self.finalize()?, tag)
    }
}

fn verify(expected: MacTag, tag: &[u8]) -> Result<()> {
    if ct::bytes_eq(expected.as_bytes(), tag).declassify() {
        Ok(())
    } else {
        Err(Error::Verification)
    }
}
