//! Modes of operation for the 64-bit block ciphers (FIPS 81 "DES Modes of Operation",
//! 1980; NIST SP 800-38A, 2001): ECB, CBC, CFB-64, CFB-8, OFB and CTR, streaming through
//! [`CipherCtx`] (OpenSSL EVP style), one-shot through [`encrypt`] and [`decrypt`], and by
//! OpenSSL cipher name through [`crate::cipher::lookup`]. The same [`Mode`], [`Direction`]
//! and [`Padding`] serve AES (`crate::aes::modes`).
//!
//! ```
//! use cryptocard::des::{self, CipherCtx, Des, Mode, Padding};
//!
//! // Streaming CBC with PKCS#7 padding, fed in pieces.
//! let cipher = Des::new(&[0x13, 0x34, 0x57, 0x79, 0x9b, 0xbc, 0xdf, 0xf1])?;
//! let mut ctx = CipherCtx::encryptor(cipher.clone(), Mode::Cbc, &[0u8; 8], Padding::Pkcs7)?;
//! let mut out = vec![0u8; 32];
//! let mut n = ctx.update(b"legacy ", &mut out)?;
//! n += ctx.update(b"payment data", &mut out[n..])?;
//! n += ctx.finalize(&mut out[n..])?;
//! let plain = des::modes::decrypt(&cipher, Mode::Cbc, &[0; 8], Padding::Pkcs7, &out[..n])?;
//! assert_eq!(plain, b"legacy payment data");
//! # Ok::<(), cryptocard::Error>(())
//! ```
//!
//! CTR has no DES standard and no OpenSSL DES cipher; here the whole 8-byte IV is the
//! initial counter block, incremented as one 64-bit big-endian integer (wrapping mod
//! 2^64), as SP 800-38A Appendix B.1's "standard incrementing function" with m = 64. Do not
//! encrypt more than 2^32 blocks under one key in any mode (Sweet32).

mod ctx;
pub(crate) mod kernels;
pub(crate) mod pending;

pub use ctx::CipherCtx;

use super::BlockCipher64;
use crate::Result;

/// A mode of operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Electronic codebook (FIPS 81 section 3; SP 800-38A 6.1). Leaks equal blocks.
    Ecb,
    /// Cipher block chaining (FIPS 81 section 4; SP 800-38A 6.2).
    Cbc,
    /// Cipher feedback with full-block feedback (FIPS 81 section 5; SP 800-38A 6.3): 64-bit
    /// on DES, OpenSSL's `des-cfb` / `des-ede3-cfb`; 128-bit on AES (`crate::aes`),
    /// OpenSSL's `aes-*-cfb` (CFB-128).
    Cfb64,
    /// Cipher feedback with 8-bit feedback (FIPS 81 section 5 with K = 8). `des-cfb8`.
    Cfb8,
    /// Output feedback (FIPS 81 section 6; SP 800-38A 6.4).
    Ofb,
    /// Counter mode (SP 800-38A 6.5) with a 64-bit big-endian counter: see the module docs.
    Ctr,
}

impl Mode {
    /// True for ECB and CBC, which work on whole blocks and may pad.
    pub fn is_block_mode(self) -> bool {
        matches!(self, Mode::Ecb | Mode::Cbc)
    }

    /// The IV length in bytes of a DES mode: 0 for ECB, 8 otherwise (AES's are 16:
    /// [`crate::cipher::CipherSpec::iv_len`] has the length for any cipher).
    pub fn iv_len(self) -> usize {
        if self == Mode::Ecb { 0 } else { 8 }
    }
}

/// Encryption or decryption.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Plaintext in, ciphertext out.
    Encrypt,
    /// Ciphertext in, plaintext out.
    Decrypt,
}

/// Padding of the last block in ECB and CBC (the stream modes need none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Padding {
    /// PKCS#7 (RFC 5652 section 6.3): 1 to 8 bytes, each holding the count. OpenSSL's
    /// default.
    Pkcs7,
    /// No padding: the input must be whole blocks (OpenSSL's `-nopad`).
    None,
}

/// Runs a whole message through a fresh context.
fn one_shot<C: BlockCipher64>(mut ctx: CipherCtx<C>, data: &[u8]) -> Result<Vec<u8>> {
    let mut out = vec![0u8; ctx.update_len(data.len()) + 8];
    let n = ctx.update(data, &mut out)?;
    let m = ctx.finalize(&mut out[n..])?;
    out.truncate(n + m);
    Ok(out)
}

/// Encrypts `data` in one call. `iv` as in [`CipherCtx::new`]. Errors as
/// [`CipherCtx::new`] and [`CipherCtx::finalize`].
pub fn encrypt<C: BlockCipher64>(
    cipher: &C,
    mode: Mode,
    iv: &[u8],
    padding: Padding,
    data: &[u8],
) -> Result<Vec<u8>> {
    one_shot(CipherCtx::encryptor(cipher.clone(), mode, iv, padding)?, data)
}

/// Decrypts `data` in one call. Errors: `Decryption` for bad padding, and as
/// [`CipherCtx::new`] and [`CipherCtx::finalize`].
pub fn decrypt<C: BlockCipher64>(
    cipher: &C,
    mode: Mode,
    iv: &[u8],
    padding: Padding,
    data: &[u8],
) -> Result<Vec<u8>> {
    one_shot(CipherCtx::decryptor(cipher.clone(), mode, iv, padding)?, data)
}
