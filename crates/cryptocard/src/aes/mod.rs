//! AES, the Advanced Encryption Standard (FIPS 197, 2001; updated 2023), with 128-, 192-
//! and 256-bit keys, and its modes of operation (NIST SP 800-38A) as OpenSSL names them.
//!
//! # How it is built
//!
//! * [`Aes`]: the key schedule (FIPS 197 section 5.2) and the block cipher, with two
//!   implementations behind the one type, chosen when the key is set:
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
//!   DES ones, so one lookup serves `enc`.
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
//! Both implementations run in time independent of the key and the data: AES-NI by the
//! instructions' design, the portable one by construction (fixed sequences of shifts,
//! masks, XORs and constant multiplications). Round keys are zeroized on drop and never
//! printed by `Debug`.

mod soft;

pub mod modes;

pub use crate::des::modes::{Direction, Mode, Padding};
use crate::{Error, Result};
pub use modes::AesCtx;
use zeroize::Zeroize;

#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{aesni, cpu::AesNi};

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

/// The implementation a key runs on.
#[derive(Clone, Copy)]
enum Backend {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Ni(AesNi),
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
            .field("accelerated", &self.is_accelerated())
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
    /// The key schedule of a 16-, 24- or 32-byte key, on AES-NI when the CPU has it.
    /// Errors: `InvalidKey` for any other length.
    pub fn new(key: &[u8]) -> Result<Aes> {
        #[allow(unused_mut)]
        let mut aes = Self::new_portable(key)?;
        #[cfg(target_arch = "x86_64")]
        if let Some(token) = AesNi::detect() {
            aesni::inverse_keys(token, &aes.rk, aes.nr, &mut aes.dk);
            aes.backend = Backend::Ni(token);
        }
        Ok(aes)
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

    /// True if this schedule runs on AES-NI.
    pub fn is_accelerated(&self) -> bool {
        !matches!(self.backend, Backend::Portable)
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
    /// eight at a time. Panics if `blocks.len()` is not a multiple of 16 (an internal
    /// contract: the modes check lengths first).
    pub(crate) fn encrypt_blocks(&self, blocks: &mut [u8]) {
        assert!(blocks.len().is_multiple_of(16), "internal error: AES input is not whole blocks");
        match self.backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Ni(t) => aesni::encrypt(t, &self.rk, self.nr, blocks),
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
            Backend::Ni(t) => aesni::chain(t, &self.rk, self.nr, kind.ni(), iv, input, output),
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

    /// CTR over whole blocks (`aes::modes` kernels' contract): fused on AES-NI (counters,
    /// rounds and XOR in registers, eight blocks at a time), returning true; false (nothing
    /// done) on the portable path, where the caller lays the counters out and uses [`Aes::encrypt_blocks`].
    pub(crate) fn ctr_fused(&self, ctr: &mut [u8; 16], input: &[u8], output: &mut [u8]) -> bool {
        match self.backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Ni(t) => {
                aesni::ctr(t, &self.rk, self.nr, ctr, input, output);
                true
            }
            Backend::Portable => false,
        }
    }

    /// CBC decryption over whole blocks, fused on AES-NI as [`Aes::ctr_fused`]; false
    /// (nothing done) on the portable path.
    pub(crate) fn cbc_decrypt_fused(
        &self,
        iv: &mut [u8; 16],
        input: &[u8],
        output: &mut [u8],
    ) -> bool {
        match self.backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Ni(t) => {
                aesni::cbc_decrypt(t, &self.dk, self.nr, iv, input, output);
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
            Backend::Ni(t) => aesni::decrypt(t, &self.dk, self.nr, blocks),
            Backend::Portable => {
                for b in blocks.chunks_exact_mut(16) {
                    soft::decrypt(&self.rk, self.nr, b.try_into().expect("16 bytes"));
                }
            }
        }
    }
}
