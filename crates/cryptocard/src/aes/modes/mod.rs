//! Modes of operation for AES (NIST SP 800-38A, 2001): ECB, CBC, CFB-128, CFB-8, OFB and
//! CTR, streaming through [`AesCtx`] (OpenSSL EVP style) and one-shot through [`encrypt`]
//! and [`decrypt`]. The OpenSSL names (`aes-128-cbc`, `aes-256-ctr`, `aes128`, ...) are
//! looked up by [`crate::cipher::lookup`], which knows every cipher of the crate.
//!
//! The modes are the DES ones ([`Mode`]); [`Mode::Cfb64`], full-block feedback, is CFB-128
//! on AES's 16-byte block (OpenSSL's `aes-*-cfb`, alias `aes-*-cfb128`). CTR takes the
//! whole 16-byte IV as the initial counter block and increments it as one 128-bit
//! big-endian integer, wrapping mod 2^128, as OpenSSL's `aes-*-ctr` (SP 800-38A Appendix
//! B.1 with m = 128).
//!
//! This is a parallel module to `des::modes` rather than the DES code made generic: the
//! DES kernels keep their chain on DES's internal expanded halves (between IP and IP^-1),
//! which has no AES counterpart, while the AES kernels hand whole runs of blocks to
//! AES-NI or VAES. What does not depend on the block's shape is shared: [`Mode`], [`Direction`],
//! [`Padding`] and the constant-time PKCS#7 check.
//!
//! ```
//! use cryptocard::aes::{Aes, AesCtx, Mode, Padding, modes};
//!
//! let aes = Aes::new(&[7u8; 16])?;
//! let mut ctx = AesCtx::encryptor(aes.clone(), Mode::Ctr, &[0u8; 16], Padding::None)?;
//! let mut out = vec![0u8; 20];
//! let n = ctx.update(b"stream ", &mut out)?;
//! let n = n + ctx.update(b"in pieces", &mut out[n..])?;
//! assert_eq!(out[..n], modes::encrypt(&aes, Mode::Ctr, &[0; 16], Padding::None, b"stream in pieces")?);
//! # Ok::<(), cryptocard::Error>(())
//! ```

mod ctx;
mod kernels;

pub use ctx::AesCtx;

use super::{Aes, Direction, Mode, Padding};
use crate::Result;

impl AesCtx {
    /// An encryption context; see [`AesCtx::new`].
    pub fn encryptor(cipher: Aes, mode: Mode, iv: &[u8], padding: Padding) -> Result<Self> {
        Self::new(cipher, mode, Direction::Encrypt, iv, padding)
    }

    /// A decryption context; see [`AesCtx::new`].
    pub fn decryptor(cipher: Aes, mode: Mode, iv: &[u8], padding: Padding) -> Result<Self> {
        Self::new(cipher, mode, Direction::Decrypt, iv, padding)
    }
}

/// Runs a whole message through a fresh context.
fn one_shot(mut ctx: AesCtx, data: &[u8]) -> Result<Vec<u8>> {
    let mut out = vec![0u8; ctx.update_len(data.len()) + 16];
    let n = ctx.update(data, &mut out)?;
    let m = ctx.finalize(&mut out[n..])?;
    out.truncate(n + m);
    Ok(out)
}

/// Encrypts `data` in one call. `iv` as in [`AesCtx::new`]. Errors as [`AesCtx::new`] and
/// [`AesCtx::finalize`].
pub fn encrypt(
    cipher: &Aes,
    mode: Mode,
    iv: &[u8],
    padding: Padding,
    data: &[u8],
) -> Result<Vec<u8>> {
    one_shot(AesCtx::encryptor(cipher.clone(), mode, iv, padding)?, data)
}

/// Decrypts `data` in one call. Errors: `Decryption` for bad padding, and as
/// [`AesCtx::new`] and [`AesCtx::finalize`].
pub fn decrypt(
    cipher: &Aes,
    mode: Mode,
    iv: &[u8],
    padding: Padding,
    data: &[u8],
) -> Result<Vec<u8>> {
    one_shot(AesCtx::decryptor(cipher.clone(), mode, iv, padding)?, data)
}
