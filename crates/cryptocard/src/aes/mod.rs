//! AES, the Advanced Encryption Standard (FIPS 197, 2001; updated 2023), with 128-, 192-
//! and 256-bit keys, and its modes of operation (NIST SP 800-38A) as OpenSSL names them.
//!
//! # How it is built
//!
//! * [`Aes`]: the key schedule (FIPS 197 section 5.2) and the block cipher, with three
//!   implementations ([`Implementation`]) behind the one type, the fastest the CPU has
//!   chosen when the key is set:
//!   - VAES (`arch::x86_64::vaes`): two blocks a round instruction on 256-bit registers,
//!     for the modes whose blocks are independent (ECB, CTR, CBC and CFB decryption),
//!     with AES-NI for the serial chains; used when the CPU has VAES and AVX2;
//!   - AES-NI (`arch::x86_64::aesni`), used when the CPU has it (proved by a detected
//!     `cpu::AesNi` token);
//!   - `soft` (private): portable and constant-time, the S-box computed by inversion in
//!     GF(2^8) on all sixteen bytes of a `u128` at once (no table, no secret branch).
//!     Always compiled, the reference AES-NI is tested against, and reachable directly
//!     through [`Aes::new_portable`].
//! * [`modes`]: ECB, CBC, CFB-128, CFB-8, OFB and CTR in a streaming [`AesCtx`]
//!   shaped like the DES [`crate::des::CipherCtx`] (the same [`Mode`], [`Direction`] and
//!   [`Padding`]), and one-shot [`modes::encrypt`] / [`modes::decrypt`]. The OpenSSL
//!   names (`aes-256-cbc`, `aes128`, ...) are in [`crate::cipher::lookup`], beside the
//!   DES ones, so one lookup serves `enc`. `cargo bench -p cryptocard-bench --bench aes`
//!   times a call of each mode against OpenSSL's EVP context, short messages first.
//!
//! ```
//! use cryptocard::aes::{Aes, modes, Mode, Padding};
//!
//! let aes = Aes::new(&[0x42; 32])?;
//! let ct = modes::encrypt(&aes, Mode::Cbc, &[0x24; 16], Padding::Pkcs7, b"attack at dawn")?;
//! assert_eq!(ct.len(), 16);
//! assert_eq!(modes::decrypt(&aes, Mode::Cbc, &[0x24; 16], Padding::Pkcs7, &ct)?, b"attack at dawn");
//! # Ok::<(), cryptocard::Error>(())
//! ```
//!
//! # Side channels
//!
//! Every implementation runs in time independent of the key and the data: AES-NI and
//! VAES by the instructions' design, the portable one by construction (fixed sequences
//! of shifts, masks, XORs and constant multiplications). Round keys are zeroized on drop and never
//! printed by `Debug`.

mod soft;

pub mod modes;

pub use crate::des::modes::{Direction, Mode, Padding};
use crate::{Error, Result};
pub use modes::AesCtx;
use zeroize::Zeroize;

#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{
    aesni,
    cpu::{AesNi, Vaes},
    vaes,
};

/// The serial chains of CBC and CFB encryption and of OFB.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Chain {
    /// `s = E(s xor x)`, output `s`.
    Cbc,
    /// `s = E(s) xor x`, output `s`.
    Cfb,
    /// `s = E(s)`, output `s xor x`.
    Ofb,
}

#[cfg(target_arch = "x86_64")]
impl Chain {
    /// The same chain for the AES-NI kernels.
    fn ni(self) -> aesni::Chain {
        match self {
            Chain::Cbc => aesni::Chain::Cbc,
            Chain::Cfb => aesni::Chain::Cfb,
            Chain::Ofb => aesni::Chain::Ofb,
        }
    }
}

/// The code an [`Aes`] schedule runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Implementation {
    /// Portable constant-time Rust, on every CPU.
    Portable,
    /// AES-NI on 128-bit registers, eight blocks interleaved in the parallel modes.
    AesNi,
    /// VAES on 256-bit registers (sixteen blocks interleaved) for ECB, CTR and CBC
    /// decryption; AES-NI for single blocks and the serial chains.
    Vaes,
}

impl Implementation {
    /// The implementations this CPU runs, fastest first: the first is what [`Aes::new`]
    /// picks.
    pub fn available() -> Vec<Implementation> {
        // Each needs what the next needs and more (VAES is used with AES-NI).
        let all = [Implementation::Vaes, Implementation::AesNi, Implementation::Portable];
        let first = all.iter().position(|&i| i == Self::fastest()).unwrap_or(all.len() - 1);
        all[first..].to_vec()
    }

    /// The fastest implementation this CPU runs, the one [`Aes::new`] picks (CPUID is
    /// cached by the standard library, so this is cheap enough for every key setup).
    pub fn fastest() -> Implementation {
        #[cfg(target_arch = "x86_64")]
        if AesNi::detect().is_some() {
            return match Vaes::detect() {
                Some(_) => Implementation::Vaes,
                None => Implementation::AesNi,
            };
        }
        Implementation::Portable
    }

    /// A short lower-case name: `portable`, `aes-ni` or `vaes`.
    pub fn name(self) -> &'static str {
        match self {
            Implementation::Portable => "portable",
            Implementation::AesNi => "aes-ni",
            Implementation::Vaes => "vaes",
        }
    }
}

/// The shortest input a VAES key sends to the VAES kernels: below it, AES-NI's kernels
/// (one block a register, unrolled for the key's round count, each round key read where
/// it is used) finish before VAES's set-up (fifteen round keys broadcast to both lanes,
/// a loop over the rounds) has paid for itself. Nine blocks, from `crates/bench`'s `aes`
/// benchmark on AMD Zen 4, VAES (the default) against `AES_IMPL=aes-ni`.
#[cfg(target_arch = "x86_64")]
const VAES_MIN_BYTES: usize = 9 * 16;

/// The implementation a key runs on, with the proof that the CPU has it.
#[derive(Clone, Copy)]
enum Backend {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Ni(AesNi),
    #[cfg(target_arch = "x86_64")]
    Vaes(AesNi, Vaes),
}

/// An AES key schedule: AES-128, AES-192 or AES-256 by the key's length. Cloning copies
/// the schedule; every copy is zeroized on drop.
#[derive(Clone)]
pub struct Aes {
    /// Encryption round keys `rk[0..=nr]` (FIPS 197 section 5.2), in byte order.
    rk: [[u8; 16]; 15],
    /// AES-NI's decryption round keys (the equivalent inverse cipher); unused (zero) on
    /// the portable path, which runs the inverse cipher with `rk`.
    dk: [[u8; 16]; 15],
    /// 10, 12 or 14.
    nr: usize,
    backend: Backend,
}

impl core::fmt::Debug for Aes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Aes")
            .field("bits", &(32 * (self.nr - 6)))
            .field("implementation", &self.implementation())
            .finish_non_exhaustive()
    }
}

impl Drop for Aes {
    fn drop(&mut self) {
        self.rk.zeroize();
        self.dk.zeroize();
    }
}

impl Aes {
    /// The key schedule of a 16-, 24- or 32-byte key, on the fastest implementation the
    /// CPU has (the first of [`Implementation::available`]).
    /// Errors: `InvalidKey` for any other length.
    pub fn new(key: &[u8]) -> Result<Aes> {
        Self::with_implementation(key, Implementation::fastest())
    }

    /// The key schedule on a chosen implementation (to compare them, or to test one
    /// against another). Errors: `InvalidKey` as [`Aes::new`]; `Unsupported` if this CPU
    /// lacks the instructions `implementation` needs.
    pub fn with_implementation(key: &[u8], implementation: Implementation) -> Result<Aes> {
        #[allow(unused_mut)]
        let mut aes = Self::new_portable(key)?;
        #[cfg(target_arch = "x86_64")]
        {
            let ni = AesNi::detect();
            aes.backend = match (implementation, ni, Vaes::detect()) {
                (Implementation::Portable, ..) => return Ok(aes),
                (Implementation::AesNi, Some(ni), _) => Backend::Ni(ni),
                (Implementation::Vaes, Some(ni), Some(v)) => Backend::Vaes(ni, v),
                _ => return Err(Error::Unsupported("this CPU lacks that AES implementation")),
            };
            if let Some(ni) = ni {
                aesni::inverse_keys(ni, &aes.rk, aes.nr, &mut aes.dk);
            }
            Ok(aes)
        }
        #[cfg(not(target_arch = "x86_64"))]
        match implementation {
            Implementation::Portable => Ok(aes),
            _ => Err(Error::Unsupported("this CPU lacks that AES implementation")),
        }
    }

    /// The key schedule on the portable constant-time implementation, whatever the CPU
    /// (for tests against AES-NI, and for those who want it). Errors as [`Aes::new`].
    pub fn new_portable(key: &[u8]) -> Result<Aes> {
        if !matches!(key.len(), 16 | 24 | 32) {
            return Err(Error::InvalidKey("an AES key is 16, 24 or 32 bytes"));
        }
        let mut aes =
            Aes { rk: [[0; 16]; 15], dk: [[0; 16]; 15], nr: 0, backend: Backend::Portable };
        aes.nr = soft::expand_key(key, &mut aes.rk);
        Ok(aes)
    }

    /// True if this schedule runs on AES-NI or VAES.
    pub fn is_accelerated(&self) -> bool {
        !matches!(self.backend, Backend::Portable)
    }

    /// The implementation this schedule runs on.
    pub fn implementation(&self) -> Implementation {
        match self.backend {
            Backend::Portable => Implementation::Portable,
            #[cfg(target_arch = "x86_64")]
            Backend::Ni(_) => Implementation::AesNi,
            #[cfg(target_arch = "x86_64")]
            Backend::Vaes(..) => Implementation::Vaes,
        }
    }

    /// The key length in bytes: 16, 24 or 32.
    pub fn key_len(&self) -> usize {
        4 * (self.nr - 6)
    }

    /// Encrypts one block in place (FIPS 197 section 5.1).
    pub fn encrypt_block(&self, block: &mut [u8; 16]) {
        self.encrypt_blocks(block);
    }

    /// Decrypts one block in place (FIPS 197 section 5.3).
    pub fn decrypt_block(&self, block: &mut [u8; 16]) {
        self.decrypt_blocks(block);
    }

    /// Encrypts whole 16-byte blocks in place (the ECB function); AES-NI interleaves
    /// eight at a time, VAES sixteen (a single block goes to AES-NI). Panics if
    /// `blocks.len()` is not a multiple of 16 (an internal contract: the modes check
    /// lengths first).
    pub(crate) fn encrypt_blocks(&self, blocks: &mut [u8]) {
        assert!(blocks.len().is_multiple_of(16), "internal error: AES input is not whole blocks");
        match self.backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Vaes(_, v) if blocks.len() >= VAES_MIN_BYTES => {
                vaes::encrypt(v, &self.rk, self.nr, blocks)
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Ni(t) | Backend::Vaes(t, _) => aesni::encrypt(t, &self.rk, self.nr, blocks),
            Backend::Portable => {
                for b in blocks.chunks_exact_mut(16) {
                    soft::encrypt(&self.rk, self.nr, b.try_into().expect("16 bytes"));
                }
            }
        }
    }

    /// A serial feedback chain (CBC or CFB encryption, OFB) over whole blocks; see
    /// `Chain`. On AES-NI the round keys stay in registers from block to block.
    pub(crate) fn chain(&self, kind: Chain, iv: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
        match self.backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Ni(t) | Backend::Vaes(t, _) => {
                aesni::chain(t, &self.rk, self.nr, kind.ni(), iv, input, output)
            }
            Backend::Portable => {
                for (x, y) in input.chunks_exact(16).zip(output.chunks_exact_mut(16)) {
                    if kind == Chain::Cbc {
                        iv.iter_mut().zip(x).for_each(|(s, x)| *s ^= x);
                    }
                    soft::encrypt(&self.rk, self.nr, iv);
                    y.copy_from_slice(iv);
                    if kind == Chain::Cfb {
                        iv.iter_mut().zip(x).for_each(|(s, x)| *s ^= x);
                    }
                    if kind != Chain::Cbc {
                        y.iter_mut().zip(x).for_each(|(y, x)| *y ^= x);
                    }
                }
            }
        }
    }

    /// CTR over whole blocks (`aes::modes` kernels' contract): fused on AES-NI and VAES
    /// (counters, rounds and XOR in registers, eight or sixteen blocks at a time),
    /// returning true; false (nothing done) on the portable path, where the caller lays
    /// the counters out and uses [`Aes::encrypt_blocks`].
    pub(crate) fn ctr_fused(&self, ctr: &mut [u8; 16], input: &[u8], output: &mut [u8]) -> bool {
        match self.backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Vaes(_, v) if input.len() >= VAES_MIN_BYTES => {
                vaes::ctr(v, &self.rk, self.nr, ctr, input, output);
                true
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Ni(t) | Backend::Vaes(t, _) => {
                aesni::ctr(t, &self.rk, self.nr, ctr, input, output);
                true
            }
            Backend::Portable => false,
        }
    }

    /// CBC (`CFB` false) or CFB-128 (`CFB` true) decryption over whole blocks, fused on
    /// AES-NI and VAES as [`Aes::ctr_fused`] (the chaining blocks through the rounds or
    /// XORed in, in registers); false (nothing done) on the portable path, where the
    /// caller lays the previous blocks out and runs the block functions.
    pub(crate) fn chained_decrypt_fused<const CFB: bool>(
        &self,
        iv: &mut [u8; 16],
        input: &[u8],
        output: &mut [u8],
    ) -> bool {
        // CBC runs the inverse cipher on the ciphertext, CFB the cipher on the one before.
        let keys = if CFB { &self.rk } else { &self.dk };
        match self.backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Vaes(_, v) if input.len() >= VAES_MIN_BYTES => {
                vaes::chained_decrypt::<CFB>(v, keys, self.nr, iv, input, output);
                true
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Ni(t) | Backend::Vaes(t, _) => {
                aesni::chained_decrypt::<CFB>(t, keys, self.nr, iv, input, output);
                true
            }
            Backend::Portable => false,
        }
    }

    /// Decrypts whole 16-byte blocks in place; as [`Aes::encrypt_blocks`].
    pub(crate) fn decrypt_blocks(&self, blocks: &mut [u8]) {
        assert!(blocks.len().is_multiple_of(16), "internal error: AES input is not whole blocks");
        match self.backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Vaes(_, v) if blocks.len() >= VAES_MIN_BYTES => {
                vaes::decrypt(v, &self.dk, self.nr, blocks)
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Ni(t) | Backend::Vaes(t, _) => aesni::decrypt(t, &self.dk, self.nr, blocks),
            Backend::Portable => {
                for b in blocks.chunks_exact_mut(16) {
                    soft::decrypt(&self.rk, self.nr, b.try_into().expect("16 bytes"));
                }
            }
        }
    }
}
