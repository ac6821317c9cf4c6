//! AVX-512 IFMA Montgomery arithmetic in radix 2^52: the accelerator's kernels.
//!
//! # The unit
//!
//! `vpmadd52luq` / `vpmadd52huq` multiply the low 52 bits of two 64-bit lanes and add the
//! low (or high) 52 bits of the 104-bit product to a third lane, eight lanes per `zmm`.
//! That is the DSP56000 of Dusse and Kaliski's card (24x24-bit products into 56-bit
//! accumulators) with 12 guard bits instead of 8: numbers are held in radix 2^52
//! ([`radix52`]), products accumulate without carry propagation, and one normalisation
//! ends each Montgomery product.
//!
//! # Almost-Montgomery products (`amm`, `ams`)
//!
//! With `R = 2^(52 D)` and `k0 = -n^-1 mod 2^52`, word-serial Montgomery multiplication
//! (Dusse-Kaliski section 3, Tang-Tsui-Leong Algorithm 2 at radix 2^52) computes
//! `amm(a, b) = (a b + q n) / R` with `q < R`: see [`amm`]. There is no final subtraction,
//! as in Dusse-Kaliski's Theorem 2 and Shand-Bertin-Vuillemin's redundant results; in the
//! unsigned form the theorem needs `n < R / 4`, which fixes the digit count
//! (`radix52::digits_for_bits`: 20 digits for 1024-bit moduli, 30, 40, 60, 79 for 1536,
//! 2048, 3072, 4096):
//!
//! ```text
//! a, b < 2n,  4n < R   =>   amm(a, b) < (4 n^2 + R n) / R = n (4n / R + 1) < 2n
//! x < R,  RR < n       =>   amm(x, RR) < (R n + R n) / R = 2n          (into Montgomery form)
//! a < 2n               =>   amm(a, 1) < (2n + R n) / R < n + 1         (out of it)
//! ```
//!
//! so values stay below `2n` through a whole exponentiation and only the result is
//! reduced, once, from `[0, n]`. `ams(a) = amm(a, a)` with the digit products `a_i a_j`,
//! `i < j`, computed once and doubled: about `3 D^2` IFMA instructions against `4 D^2`
//! ([`ams`]).
//!
//! Guard bits: a step adds to each accumulator digit at most four terms below 2^52 (the
//! low and high halves of one `a b_i` and one `n y` product, or of the squaring's row and
//! `n y`) and the carry out of digit 0 (below 2^12). A digit lives through at most `D`
//! steps, so it stays below `4 D 2^52 + D 2^12 < 2^61` for `D <= 128`: no carry pass is
//! needed inside a product, for every supported size, and the normalisation's inputs are
//! below 2^63 as it requires. The multiplicands, though, must be normalised (IFMA reads 52
//! bits), which is why each product ends with one.
//!
//! # Layouts and entry points
//!
//! * [`exp_x2::exp_x2`]: the two CRT exponentiations of one RSA private operation,
//!   interleaved digit by digit in one register set (`X2`), OpenSSL's
//!   `ossl_rsaz_mod_exp_avx512_x2` organisation; [`exp_x2::exp_public_x2`] runs the
//!   RSA fault check (one public exponent) on the same kernel. From 17 to 40 digits
//!   (RSA-2048's 20, RSA-3072's 30, RSA-4096's 40) the blocks hold the digits strided
//!   ([`amm_x2_strided`]; a digit count that is not a multiple of 4 is padded with zero
//!   digits up to one), so that a step's shift is one shuffle, not one a block, and the
//!   squarings take each cross product once, by digit class, inside the reduction's steps
//!   ([`ams_x2_strided`]).
//! * [`exp_mb8::exp_mb8`]: eight independent exponentiations, one per lane (Intel
//!   crypto_mb's `mb8`), moduli and exponent lengths may differ per lane, each lane with its
//!   own [`LaneStatus`]. Transposed (digit `k` of the eight lanes in one register), the
//!   products by column groups wherever a group width divides the digit count (every even
//!   class, 10 to 60 digits) and by rows otherwise up to 32 digits; above that (79 digits)
//!   a row accumulator does not fit the 32 registers and the batch runs as four x2 pairs
//!   (see `exp_mb8`).
//!
//! Both take a [`crate::arch::x86_64::cpu::Ifma`] token, use fixed windows (`window`), read
//! the power table by a masked scan, and are constant-time in bases and exponents: no
//! branch or address depends on them, only on the public sizes (digit count, exponent
//! slice lengths). Secret temporaries (tables, accumulators, windows, digit copies) are
//! zeroized before returning. The modulus and `RR = 2^(104 D) mod n` come from the caller
//! in [`radix52::Params52`] (x2) or per lane (mb8).
//!
//! # Scheduling (AMD Zen 4)
//!
//! Zen 4 runs a 512-bit IFMA as two 256-bit halves: one `zmm` or two `ymm` IFMA per cycle,
//! latency 4 (a memory operand costs about an eighth more); independent `valignq`s and
//! additions issue beside them at no cost (32 IFMA with 16 of either: 32 cycles), but
//! the kernels' shifts and additions sit on loop-carried chains, and a `zmm` store
//! stalls the multipliers, so accumulators must stay in registers (the `unroll!` macro
//! below makes their indices constant). The mb8 kernels are throughput-bound (80 IFMA a
//! step at 20 digits). The x2 kernels at 20 digits have 20 IFMA a step against a
//! quotient-digit chain (`y` to the next `y`) through the vector accumulator that is
//! longer than the step's products, so the digit that decides the next `y` is tracked
//! apart in an `xmm` register with a carry computed without `y` (`amm::Digit0`), the
//! high halves go to registers of their own, and the next `y` is computed before the
//! step's bulk in program order. The normalisation between two products is a stretch
//! of pure latency on that chain, so it is kept short: inlined into the product up to 40
//! digits (the accumulators stay in registers), its comparison masks packed into words
//! in the mask registers, its carry lookahead in general registers (`vec52`).
//!
//! Per lane, a transposed mb8 product costs less than an x2 one (every instruction works
//! on eight independent lanes and no shift needs a shuffle), which is what batching buys;
//! when a batch pays is the RSA layer's policy (`rsa::accel`). The x2 squaring uses
//! `ams_x2` where it beats `amm_x2`, from 30 digits up (`exp_x2::AMS_X2_DIGITS`). At 20,
//! 30 and 40 digits the exponentiations run the strided `amm_x2s`, whose shift is one
//! shuffle a step, and the squarings `ams_x2s`, which takes each cross product once,
//! doubled per class; the squaring beats its unstrided twin everywhere, the product at 20
//! and 40 digits (at 30, in 32 slots, it is level with `amm_x2`), and together they make
//! the x2 pairs of the CRT halves of RSA-2048, RSA-3072 and RSA-4096 markedly faster than
//! on `amm_x2` and `ams_x2`.
//!
//! `crates/bench`'s `ifma` benchmark measures all of this: the cycles of one product in
//! a dependent chain (each output the next input) for every kernel and digit count
//! (`ifma -- cycles`), and whole exponentiations with full-length exponents beside
//! OpenSSL's RSA private operation in the same process. The x2 pair is an RSA operation's
//! exponentiations only; the CRT recombination, blinding and fault check of the RSA layer
//! come on top, and the rates of whole RSA operations are in `docs/performance.md`.

/// Expands `$body` once for each `$k` in `0..$n` (a constant) as straight-line code: the
/// kernels keep their accumulators in registers, which needs every index constant, and
/// LLVM does not fully unroll loops of this size by itself. The expansion holds one copy
/// of the body for every step the count could have, each under `if k < n`, which LLVM
/// folds away once `n` is known. Those copies are compile time (nested loops multiply
/// them), so a loop whose count the kernel bounds names the bound, `unroll!(k in 0..n,
/// max 8 => ...)` (4, 8, 12, 20 or 40), and a count above it is an internal error. Without a
/// bound, counts up to 32 unroll and larger ones get an ordinary loop (correct, but with
/// the accumulators in memory).
macro_rules! unroll {
    ($k:ident in 0..$n:expr => $body:block) => {{
        if $n <= 32 {
            unroll!(@ $k, $n, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
        } else {
            #[allow(clippy::needless_range_loop)]
            for $k in 0..$n $body
        }
    }};
    ($k:ident in 0..$n:expr, max 4 => $body:block) => {
        unroll!(@ $k, $n, 4, $body, 0 1 2 3)
    };
    ($k:ident in 0..$n:expr, max 8 => $body:block) => {
        unroll!(@ $k, $n, 8, $body, 0 1 2 3 4 5 6 7)
    };
    ($k:ident in 0..$n:expr, max 12 => $body:block) => {
        unroll!(@ $k, $n, 12, $body, 0 1 2 3 4 5 6 7 8 9 10 11)
    };
    ($k:ident in 0..$n:expr, max 20 => $body:block) => {
        unroll!(@ $k, $n, 20, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19)
    };
    ($k:ident in 0..$n:expr, max 40 => $body:block) => {
        unroll!(@ $k, $n, 40, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19
            20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39)
    };
    (@ $k:ident, $n:expr, $max:literal, $body:block, $($i:literal)*) => {{
        assert!($n <= $max, "internal error: unroll! past its bound");
        unroll!(@ $k, $n, $body, $($i)*)
    }};
    (@ $k:ident, $n:expr, $body:block, $($i:literal)*) => {{
        $( if $i < $n { let $k: usize = $i; $body } )*
    }};
}

// First: the products use its `normalize_x2!`.
#[macro_use]
mod vec52;

pub(crate) mod amm;
pub(crate) mod amm_x2_strided;
pub(crate) mod ams;
mod ams_x2_strided;
pub(crate) mod exp_mb8;
pub(crate) mod exp_x2;
mod mb8_columns;
pub(crate) mod mb8_karatsuba;
mod mont_mb8;
pub(crate) mod radix52;
pub(crate) mod sized;
pub(crate) mod window;

use crate::Error;

/// The outcome of one lane of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneStatus {
    /// The lane's result is in its output.
    Done,
    /// The lane had no job.
    Empty,
    /// The lane's inputs were invalid; its output was zero-filled.
    Failed(Error),
}

/// Bits `[pos, pos + w)` of the little-endian limbs `e` (zero beyond its end), `w <= 8`.
/// Constant-time in the value of `e`; `pos` and `w` are public.
fn window_bits(e: &[u64], pos: usize, w: usize) -> u64 {
    radix52::bits_at(e, pos) & ((1 << w) - 1)
}

#[cfg(feature = "hazmat")]
pub mod hazmat;
#[cfg(test)]
pub(crate) mod tests;
