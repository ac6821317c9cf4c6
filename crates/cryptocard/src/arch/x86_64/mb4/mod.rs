//! Four independent modular exponentiations in the 64-bit lanes of AVX2 registers: the
//! batch unit of CPUs without AVX-512 IFMA (AMD Zen 2 and 3, Intel before Ice Lake).
//!
//! # Why vectors without IFMA
//!
//! The scalar core (`adx`: `mulx` with two carry chains) takes one 64x64-bit product a
//! cycle at best, and about 1.4 cycles per product with its additions. `vpmuludq`
//! multiplies the low 32 bits of four 64-bit lanes, and Zen 3, Zen 4 and Skylake issue two
//! a cycle: eight digit products a cycle. With 28-bit digits (the 8 bits above each
//! product's 56 are the guard bits that let products accumulate without carries), that is
//! 8 x 28^2 = 6272 "bit-products" a cycle against the core's 64^2 = 4096, so four lanes
//! of one exponentiation each beat four exponentiations on the core by about what the
//! vector loop keeps of its peak. Gueron and Krasnov ("Software implementation of modular
//! exponentiation, using advanced vector instructions architectures", WAIFI 2012; OpenSSL's
//! `rsaz-avx2`) ran one 1024-bit exponentiation across the lanes in radix 2^29, which
//! needs horizontal carries and lost to `mulx` once CPUs had it. Here each lane is its
//! own exponentiation, as in Intel's multi-buffer RSA and our IFMA `mb8`, so no lane ever
//! talks to another: the same code as one exponentiation, four at a time.
//!
//! # Almost-Montgomery products in radix 2^28
//!
//! [`amm`]: word-serial Montgomery (Dusse-Kaliski section 3) with `R = 2^(28 D)` and
//! `k0 = -n^-1 mod 2^28`, no final subtraction (values stay below `2n` when `4n < R`,
//! as in `ifma`), and a normalisation (one carry pass) at the end of each product, since
//! `vpmuludq` reads 32 bits and the digits must be below 2^28 again. The squaring takes
//! each cross product once against a doubled digit.
//!
//! Guard bits: a step adds to each accumulator digit at most one product of the
//! multiplier (below 2^56, or 2^57 against a doubled digit in the squaring) and one of the
//! reduction (below 2^56); a digit lives through at most `D` steps, so it stays below
//! `3 D 2^56` plus carries below `D 2^36`: under 2^64 for `D <= 84`. The sizes used,
//! 20, 38, 56 and 74 digits ([`DIGITS`]), hold moduli of 512, 1024, 1536 and 2048 bits
//! (`28 D - 2` bits at most).
//!
//! # The exponentiation
//!
//! [`exp::exp_mb4`] runs the fixed-window exponentiation shared with the IFMA layouts
//! (`ifma::window`, 5-bit windows) on these products, with the table read by a masked
//! scan of every entry in each lane ([`amm::select_mb4`]). Constant-time in bases and
//! exponents: no branch or address depends on them, only on the digit count and the
//! exponents' public lengths.

pub(crate) mod amm;
pub(crate) mod exp;
#[cfg(feature = "hazmat")]
pub mod hazmat;
pub(crate) mod sized;
#[cfg(test)]
mod tests;

use super::radix::{RadixParams, digit_mask};
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// Bits in a digit.
pub const DIGIT_BITS: u32 = 28;
/// The low 28 bits of a word.
pub(crate) const DIGIT_MASK: u64 = digit_mask(DIGIT_BITS);
/// The digit counts compiled, for moduli of up to 512, 1024, 1536 and 2048 bits.
pub const DIGITS: [usize; 4] = [20, 38, 56, 74];

/// The Montgomery parameters of one modulus in radix 2^28.
pub(crate) type Params28<const D: usize> = RadixParams<D, DIGIT_BITS>;

/// Four numbers of `D` radix-2^28 digits, transposed: `self.0[k][l]` is digit `k` of lane
/// `l`, so digit `k` of the four is one `ymm` register.
#[derive(Clone)]
#[repr(C, align(32))]
pub struct Mb4<const D: usize>(pub(crate) [[u64; 4]; D]);

impl<const D: usize> Mb4<D> {
    /// Four zeros.
    pub const ZERO: Self = Mb4([[0; 4]; D]);

    /// Digit `k` of the four numbers.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn row(&self, k: usize) -> __m256i {
        let r: &[u64; 4] = &self.0[k];
        // SAFETY: `r` is 32 readable bytes at a 32-byte boundary (`Mb4` is `align(32)` and
        // its rows are 32 bytes each).
        unsafe { _mm256_load_si256(r.as_ptr().cast()) }
    }

    /// Sets digit `k` of the four numbers.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) fn set_row(&mut self, k: usize, v: __m256i) {
        let r: &mut [u64; 4] = &mut self.0[k];
        // SAFETY: as in `row`, for writing through a unique reference.
        unsafe { _mm256_store_si256(r.as_mut_ptr().cast(), v) }
    }
}

impl<const D: usize> Zeroize for Mb4<D> {
    fn zeroize(&mut self) {
        self.0.iter_mut().for_each(Zeroize::zeroize);
    }
}

/// Only the shape: the digits may be secret.
impl<const D: usize> core::fmt::Debug for Mb4<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Mb4<{D}>")
    }
}
