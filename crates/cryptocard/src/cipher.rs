//! OpenSSL cipher names (`openssl enc -des-ede3-cbc`, `-aes-256-cbc`,
//! `EVP_get_cipherbyname`) mapped to this crate's ciphers (DES, triple-DES and AES) and
//! modes, and a context whose cipher is chosen at run time.
//!
//! It sits above [`des`](crate::des) and [`aes`](crate::aes), which know nothing of each
//! other's names: `enc`, `mac` and `speed` find every cipher here.

use crate::aes::{Aes, AesCtx};
use crate::des::modes::{CipherCtx, Direction, Mode, Padding};
use crate::des::{Des, Tdes};
use crate::{Error, Result};

/// The block cipher behind a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Single DES, 8-byte key.
    Des,
    /// Triple-DES keying option 2, 16-byte key (`des-ede*`).
    DesEde,
    /// Triple-DES keying option 1, 24-byte key (`des-ede3*`).
    DesEde3,
    /// AES-128, 16-byte key (`aes-128-*`).
    Aes128,
    /// AES-192, 24-byte key (`aes-192-*`).
    Aes192,
    /// AES-256, 32-byte key (`aes-256-*`).
    Aes256,
}

impl Algorithm {
    /// The block size in bytes: 8 for DES and triple-DES, 16 for AES.
    pub const fn block_len(self) -> usize {
        match self {
            Algorithm::Des | Algorithm::DesEde | Algorithm::DesEde3 => 8,
            Algorithm::Aes128 | Algorithm::Aes192 | Algorithm::Aes256 => 16,
        }
    }

    /// The key length in bytes: 8 for DES, 16 or 24 for two- or three-key triple-DES, 16,
    /// 24 or 32 for AES.
    pub const fn key_len(self) -> usize {
        match self {
            Algorithm::Des => 8,
            Algorithm::DesEde | Algorithm::Aes128 => 16,
            Algorithm::DesEde3 | Algorithm::Aes192 => 24,
            Algorithm::Aes256 => 32,
        }
    }
}

/// What a cipher name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CipherSpec {
    /// The canonical (OpenSSL) name, lower case.
    pub name: &'static str,
    /// The block cipher.
    pub algorithm: Algorithm,
    /// The mode.
    pub mode: Mode,
    /// Key length in bytes.
    pub key_len: usize,
    /// IV length in bytes.
    pub iv_len: usize,
}

const fn spec(name: &'static str, algorithm: Algorithm, mode: Mode) -> CipherSpec {
    let iv_len = if matches!(mode, Mode::Ecb) { 0 } else { algorithm.block_len() };
    CipherSpec { name, algorithm, mode, key_len: algorithm.key_len(), iv_len }
}

use Algorithm::{Aes128 as A1, Aes192 as A2, Aes256 as A3, Des as D1, DesEde as D2, DesEde3 as D3};

/// Every supported cipher under its canonical name. The `des*-ctr` names are this crate's
/// (OpenSSL has no DES CTR; see the `modes` docs); the rest are OpenSSL's. `aes-*-cfb` is
/// CFB-128 (see `aes::modes`).
pub const CIPHERS: &[CipherSpec] = &[
    spec("des-ecb", D1, Mode::Ecb),
    spec("des-cbc", D1, Mode::Cbc),
    spec("des-cfb", D1, Mode::Cfb64),
    spec("des-cfb8", D1, Mode::Cfb8),
    spec("des-ofb", D1, Mode::Ofb),
    spec("des-ctr", D1, Mode::Ctr),
    spec("des-ede", D2, Mode::Ecb),
    spec("des-ede-cbc", D2, Mode::Cbc),
    spec("des-ede-cfb", D2, Mode::Cfb64),
    spec("des-ede-ofb", D2, Mode::Ofb),
    spec("des-ede-ctr", D2, Mode::Ctr),
    spec("des-ede3", D3, Mode::Ecb),
    spec("des-ede3-cbc", D3, Mode::Cbc),
    spec("des-ede3-cfb", D3, Mode::Cfb64),
    spec("des-ede3-cfb8", D3, Mode::Cfb8),
    spec("des-ede3-ofb", D3, Mode::Ofb),
    spec("des-ede3-ctr", D3, Mode::Ctr),
    spec("aes-128-ecb", A1, Mode::Ecb),
    spec("aes-128-cbc", A1, Mode::Cbc),
    spec("aes-128-cfb", A1, Mode::Cfb64),
    spec("aes-128-cfb8", A1, Mode::Cfb8),
    spec("aes-128-ofb", A1, Mode::Ofb),
    spec("aes-128-ctr", A1, Mode::Ctr),
    spec("aes-192-ecb", A2, Mode::Ecb),
    spec("aes-192-cbc", A2, Mode::Cbc),
    spec("aes-192-cfb", A2, Mode::Cfb64),
    spec("aes-192-cfb8", A2, Mode::Cfb8),
    spec("aes-192-ofb", A2, Mode::Ofb),
    spec("aes-192-ctr", A2, Mode::Ctr),
    spec("aes-256-ecb", A3, Mode::Ecb),
    spec("aes-256-cbc", A3, Mode::Cbc),
    spec("aes-256-cfb", A3, Mode::Cfb64),
    spec("aes-256-cfb8", A3, Mode::Cfb8),
    spec("aes-256-ofb", A3, Mode::Ofb),
    spec("aes-256-ctr", A3, Mode::Ctr),
];

/// OpenSSL's aliases and the canonical names they stand for.
const ALIASES: &[(&str, &str)] = &[
    ("des", "des-cbc"),
    ("des-ede-ecb", "des-ede"),
    ("des-ede3-ecb", "des-ede3"),
    ("des3", "des-ede3-cbc"),
    ("des-cfb64", "des-cfb"),
    ("des-ede-cfb64", "des-ede-cfb"),
    ("des-ede3-cfb64", "des-ede3-cfb"),
    ("aes128", "aes-128-cbc"),
    ("aes192", "aes-192-cbc"),
    ("aes256", "aes-256-cbc"),
    ("aes-128-cfb128", "aes-128-cfb"),
    ("aes-192-cfb128", "aes-192-cfb"),
    ("aes-256-cfb128", "aes-256-cfb"),
];

/// Every name [`lookup`] takes, canonical names and aliases, lower case, in no order.
pub fn names() -> impl Iterator<Item = &'static str> {
    CIPHERS.iter().map(|s| s.name).chain(ALIASES.iter().map(|&(alias, _)| alias))
}

/// The cipher with this OpenSSL name or alias (case-insensitive, a leading `-` allowed as
/// on the `openssl enc` command line), or `None`.
pub fn lookup(name: &str) -> Option<CipherSpec> {
    let name = name.strip_prefix('-').unwrap_or(name);
    let canonical = ALIASES
        .iter()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
        .map_or(name, |&(_, c)| c);
    CIPHERS.iter().find(|s| s.name.eq_ignore_ascii_case(canonical)).copied()
}

impl CipherSpec {
    /// A context for this cipher. Errors: `InvalidKey` unless `key` is `key_len` bytes,
    /// `InvalidArgument` unless `iv` is `iv_len` bytes.
    pub fn new_ctx(
        &self,
        key: &[u8],
        iv: &[u8],
        dir: Direction,
        padding: Padding,
    ) -> Result<AnyCipherCtx> {
        if key.len() != self.key_len {
            return Err(Error::InvalidKey("key length does not match the cipher"));
        }
        Ok(match self.algorithm {
            Algorithm::Des => {
                AnyCipherCtx::Des(CipherCtx::new(Des::new(key)?, self.mode, dir, iv, padding)?)
            }
            Algorithm::DesEde | Algorithm::DesEde3 => {
                AnyCipherCtx::Tdes(CipherCtx::new(Tdes::new(key)?, self.mode, dir, iv, padding)?)
            }
            Algorithm::Aes128 | Algorithm::Aes192 | Algorithm::Aes256 => {
                AnyCipherCtx::Aes(AesCtx::new(Aes::new(key)?, self.mode, dir, iv, padding)?)
            }
        })
    }
}

/// A [`CipherCtx`] whose cipher was chosen at run time (by [`lookup`]). Dispatches once per
/// call, not per block.
// The variants differ in size (one key schedule or three); a context lives once per
// stream, so an allocation to even them out would cost more than the bytes.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum AnyCipherCtx {
    /// Single DES.
    Des(CipherCtx<Des>),
    /// Triple-DES (any keying option).
    Tdes(CipherCtx<Tdes>),
    /// AES (any key size).
    Aes(AesCtx),
}

impl AnyCipherCtx {
    /// See [`CipherCtx::update_len`].
    pub fn update_len(&self, input_len: usize) -> usize {
        match self {
            AnyCipherCtx::Des(c) => c.update_len(input_len),
            AnyCipherCtx::Tdes(c) => c.update_len(input_len),
            AnyCipherCtx::Aes(c) => c.update_len(input_len),
        }
    }

    /// See [`CipherCtx::update`].
    pub fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        match self {
            AnyCipherCtx::Des(c) => c.update(input, output),
            AnyCipherCtx::Tdes(c) => c.update(input, output),
            AnyCipherCtx::Aes(c) => c.update(input, output),
        }
    }

    /// See [`CipherCtx::finalize`].
    pub fn finalize(self, output: &mut [u8]) -> Result<usize> {
        match self {
            AnyCipherCtx::Des(c) => c.finalize(output),
            AnyCipherCtx::Tdes(c) => c.finalize(output),
            AnyCipherCtx::Aes(c) => c.finalize(output),
        }
    }
}
