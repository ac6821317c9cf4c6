//! The ciphers of password-based encryption, all in CBC mode with PKCS#7 padding: AES
//! and DES through [`crate::cipher`], RC2 through [`crate::rc2`].

use crate::cipher::{Algorithm, lookup};
use crate::des::{Direction, Padding};
use crate::rc2::{self, Rc2};
use crate::{Error, Result};
use zeroize::Zeroizing;

/// A CBC cipher with its key length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cbc {
    Aes128,
    Aes192,
    Aes256,
    /// Triple-DES with three keys (24 bytes).
    DesEde3,
    /// Triple-DES with two keys (16 bytes), PKCS#12's `2-KeyTripleDES`.
    DesEde,
    Des,
    /// RC2 with a key of `key_len` bytes at `bits` effective bits.
    Rc2 {
        key_len: usize,
        bits: usize,
    },
}

impl Cbc {
    pub const RC2_40: Cbc = Cbc::Rc2 { key_len: 5, bits: 40 };
    pub const RC2_64: Cbc = Cbc::Rc2 { key_len: 8, bits: 64 };
    pub const RC2_128: Cbc = Cbc::Rc2 { key_len: 16, bits: 128 };

    /// The CBC cipher of a block cipher of [`crate::cipher`].
    pub fn from_algorithm(algorithm: Algorithm) -> Cbc {
        match algorithm {
            Algorithm::Des => Cbc::Des,
            Algorithm::DesEde => Cbc::DesEde,
            Algorithm::DesEde3 => Cbc::DesEde3,
            Algorithm::Aes128 => Cbc::Aes128,
            Algorithm::Aes192 => Cbc::Aes192,
            Algorithm::Aes256 => Cbc::Aes256,
        }
    }

    /// The block cipher of [`crate::cipher`], for all but RC2.
    pub fn algorithm(self) -> Option<Algorithm> {
        [Algorithm::Des, Algorithm::DesEde, Algorithm::DesEde3]
            .into_iter()
            .chain([Algorithm::Aes128, Algorithm::Aes192, Algorithm::Aes256])
            .find(|&a| Cbc::from_algorithm(a) == self)
    }

    fn name(self) -> &'static str {
        match self {
            Cbc::Aes128 => "aes-128-cbc",
            Cbc::Aes192 => "aes-192-cbc",
            Cbc::Aes256 => "aes-256-cbc",
            Cbc::DesEde3 => "des-ede3-cbc",
            Cbc::DesEde => "des-ede-cbc",
            Cbc::Des => "des-cbc",
            Cbc::Rc2 { .. } => "rc2-cbc",
        }
    }

    pub fn key_len(self) -> usize {
        match self {
            Cbc::Aes128 | Cbc::DesEde => 16,
            Cbc::Aes192 | Cbc::DesEde3 => 24,
            Cbc::Aes256 => 32,
            Cbc::Des => 8,
            Cbc::Rc2 { key_len, .. } => key_len,
        }
    }

    pub fn block_len(self) -> usize {
        match self {
            Cbc::Aes128 | Cbc::Aes192 | Cbc::Aes256 => 16,
            _ => 8,
        }
    }

    /// Runs the cipher over `input`. Errors: `Decryption` for bad padding, and those of
    /// a key or IV of the wrong length (never from a file: the derivation sizes them).
    pub fn run(
        self,
        key: &[u8],
        iv: &[u8],
        dir: Direction,
        input: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        if let Cbc::Rc2 { bits, .. } = self {
            let cipher = Rc2::new(key, bits)?;
            let iv: &[u8; 8] =
                iv.try_into().map_err(|_| Error::InvalidArgument("an RC2 IV is 8 bytes"))?;
            return match dir {
                Direction::Encrypt => Ok(rc2::cbc_encrypt(&cipher, iv, input)),
                Direction::Decrypt => rc2::cbc_decrypt(&cipher, iv, input),
            }
            .map(Zeroizing::new);
        }
        let spec =
            lookup(self.name()).ok_or(Error::Internal("a PBE cipher is not in the table"))?;
        let mut ctx = spec.new_ctx(key, iv, dir, Padding::Pkcs7)?;
        let mut out = Zeroizing::new(vec![0u8; ctx.update_len(input.len()) + self.block_len()]);
        let n = ctx.update(input, &mut out)?;
        let m = ctx.finalize(&mut out[n..])?;
        out.truncate(n + m);
        Ok(out)
    }
}
