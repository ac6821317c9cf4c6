//! One RSA private operation's two CRT exponentiations at once: two moduli of the same
//! digit count, interleaved in one register set (OpenSSL's `ossl_rsaz_mod_exp_avx512_x2`
//! organisation).
//!
//! The two numbers share every instruction ([`X2`] layout: block `v` of a `zmm` holds
//! digits `4v..4v+4` of both), so one exponentiation pair costs about what one would,
//! and each number's chain of quotient digits hides behind the other's products.
//! Constant-time in the bases and exponents; the time depends on `D` and on the longer
//! exponent slice.

use super::amm::amm_x2;
use super::amm_x2_strided::{amm_x2s, from_strided, to_strided, with_strided_slots};
use super::ams::ams_x2;
use super::ams_x2_strided::ams_x2s;
use super::radix52::{self, Params52};
use super::vec52::{self, X2};
use super::window::{Exponents, Kernels};
use crate::Error;
use crate::arch::x86_64::cpu::Ifma;
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// The digit counts whose squarings use `ams_x2`: every class from 30 digits up, where it
/// beats `amm_x2(a, a)` (on AMD Zen 4, chained cycles of `crates/bench`'s `ifma`
/// benchmark: by 7% at 30 digits, 12% at 40 and 60, 2% at 79; rerun it to retune). Where
/// the strided layout runs (20, 30 and 40 digits among RSA's sizes) it squares with its
/// own kernel, `ams_x2s`, instead.
pub(crate) const AMS_X2_DIGITS: core::ops::RangeInclusive<usize> = 30..=79;

/// Whether `d` is in [`AMS_X2_DIGITS`], at compile time (`contains` is not `const`).
const fn ams_x2_digits(d: usize) -> bool {
    *AMS_X2_DIGITS.start() <= d && d <= *AMS_X2_DIGITS.end()
}

/// `out[s] = base[s]^exp[s] mod n_s` for `s = 0, 1`, where `params[s]` holds `n_s`.
///
/// `base[s]` and `out[s]` have `params[s].limbs()` limbs and `base[s] < n_s`; the
/// exponents have any length. On error the outputs are zero-filled. Constant-time in the
/// bases and exponents (the validity check reveals only whether `base < n`).
pub(crate) fn exp_x2<const D: usize>(
    ifma: Ifma,
    out: [&mut [u64]; 2],
    base: [&[u64]; 2],
    exp: [&[u64]; 2],
    params: [&Params52<D>; 2],
) -> Result<(), Error> {
    pair::<D>(ifma, out, base, Exponents::Secret(exp), params)
}

/// `out[s] = base[s]^e mod n_s` for `s = 0, 1` and one public exponent `e`
/// ([`exp_public`](super::window::exp_public): binary, its branches follow `e`'s bits):
/// the RSA fault check, m^e mod p and mod q in one pass. Contract and errors otherwise as
/// [`exp_x2`]; constant-time in the bases.
pub(crate) fn exp_public_x2<const D: usize>(
    ifma: Ifma,
    out: [&mut [u64]; 2],
    base: [&[u64]; 2],
    e: &[u64],
    params: [&Params52<D>; 2],
) -> Result<(), Error> {
    pair::<D>(ifma, out, base, Exponents::Public(e), params)
}

/// [`exp_x2`] and [`exp_public_x2`]: the limbs in and out of the pair layout.
fn pair<const D: usize>(
    ifma: Ifma,
    out: [&mut [u64]; 2],
    base: [&[u64]; 2],
    exp: Exponents<'_, 2>,
    params: [&Params52<D>; 2],
) -> Result<(), Error> {
    let mut inp = PairInputs::<D>::default();
    for s in 0..2 {
        match params[s].operand_digits(base[s], out[s].len()) {
            Ok(mut digits) => {
                inp.set(s, &params[s].n, &params[s].rr, &digits, params[s].k0);
                digits.zeroize();
            }
            Err(e) => {
                inp.base.zeroize();
                for o in out {
                    o.fill(0);
                }
                return Err(e);
            }
        }
    }
    let mut result = X2::<D>::ZERO;
    exp_pair::<D, X2_WINDOW>(ifma, &inp, exp, &mut result);
    for (s, o) in out.into_iter().enumerate() {
        let digits: [u64; D] = core::array::from_fn(|k| result.d[k][s]);
        let fits = radix52::from_radix52(o, &digits);
        assert!(fits.declassify(), "internal error: result does not fit the modulus");
    }
    result.zeroize();
    inp.base.zeroize();
    Ok(())
}

/// The interleaved inputs of a pair: digits of the moduli, of `RR` and of the bases, and
/// the two `k0`.
pub(super) struct PairInputs<const D: usize> {
    pub(super) n: X2<D>,
    pub(super) rr: X2<D>,
    pub(super) base: X2<D>,
    pub(super) k0: [u64; 2],
}

impl<const D: usize> Default for PairInputs<D> {
    /// Both numbers on the harmless modulus 1 (`k0 = -1 mod 2^52`), base and RR 0.
    fn default() -> Self {
        let mut n = X2::ZERO;
        n.d[0] = [1, 1];
        PairInputs { n, rr: X2::ZERO, base: X2::ZERO, k0: [radix52::DIGIT_MASK; 2] }
    }
}

impl<const D: usize> PairInputs<D> {
    /// Sets number `s` from radix-2^52 digits.
    pub(super) fn set(&mut self, s: usize, n: &[u64; D], rr: &[u64; D], base: &[u64; D], k0: u64) {
        for k in 0..D {
            self.n.d[k][s] = n[k];
            self.rr.d[k][s] = rr[k];
            self.base.d[k][s] = base[k];
        }
        self.k0[s] = k0;
    }
}

/// Window width of the x2 exponentiations (tuned on AMD Zen 4 with `crates/bench`'s
/// `ifma -- windows`; rerun it to retune).
pub(crate) const X2_WINDOW: usize = 5;

/// `out = base^exp mod n` for both numbers of `inp`, fully reduced, with windows of `W`
/// bits.
pub(super) fn exp_pair<const D: usize, const W: usize>(
    ifma: Ifma,
    inp: &PairInputs<D>,
    exp: Exponents<'_, 2>,
    out: &mut X2<D>,
) {
    with_strided_slots!(D, P => {
        let (n, mut base) = (to_strided::<D, P>(&inp.n), to_strided::<D, P>(&inp.base));
        let rr = to_strided::<D, P>(&inp.rr);
        let mut k = X2sKernels::<D, P> { _ifma: ifma, n: &n, k0: inp.k0 };
        let mut strided = X2::<P>::ZERO;
        exp.run::<_, W>(&mut k, &base, &rr, &mut strided);
        *out = from_strided::<D, P>(&strided);
        strided.zeroize();
        base.zeroize();
    }, else => {
        let mut k = X2Kernels::<D> { _ifma: ifma, n: &inp.n, k0: inp.k0 };
        exp.run::<_, W>(&mut k, &inp.base, &inp.rr, out);
    });
    for s in 0..2 {
        let mut x: [u64; D] = core::array::from_fn(|j| out.d[j][s]);
        let n: [u64; D] = core::array::from_fn(|j| inp.n.d[j][s]);
        radix52::reduce_once(&mut x, &n);
        for (j, d) in x.iter().enumerate() {
            out.d[j][s] = *d;
        }
        x.zeroize();
    }
}

/// The x2 products bound to a pair of moduli, in the contiguous layout.
struct X2Kernels<'a, const D: usize> {
    _ifma: Ifma,
    n: &'a X2<D>,
    k0: [u64; 2],
}

impl<const D: usize> Kernels for X2Kernels<'_, D> {
    type Num = X2<D>;
    const LANES: usize = 2;

    fn zero(&self) -> X2<D> {
        X2::ZERO
    }

    fn one(&self) -> X2<D> {
        let mut one = X2::ZERO;
        one.d[0] = [1, 1];
        one
    }

    fn mul(&mut self, a: &X2<D>, b: &X2<D>, out: &mut X2<D>) {
        // SAFETY: `self._ifma` proves the CPU has the features `amm_x2` enables.
        unsafe { amm_x2(a, b, self.n, &self.k0, out) }
    }

    fn sqr(&mut self, a: &X2<D>, out: &mut X2<D>) {
        if const { ams_x2_digits(D) } {
            // SAFETY: as in `mul`, for `ams_x2`.
            unsafe { ams_x2(a, self.n, &self.k0, out) }
        } else {
            self.mul(a, a, out);
        }
    }

    fn select(&self, table: &[X2<D>], idx: &[u64; 8], out: &mut X2<D>) {
        // SAFETY: as in `mul`.
        unsafe { select_x2(table, [idx[0], idx[1]], out) }
    }
}

/// The x2 products of `D` digits bound to a pair of moduli in the strided layout of `P`
/// slots (`amm_x2s`, squarings by `ams_x2s`).
struct X2sKernels<'a, const D: usize, const P: usize> {
    _ifma: Ifma,
    n: &'a X2<P>,
    k0: [u64; 2],
}

impl<const D: usize, const P: usize> Kernels for X2sKernels<'_, D, P> {
    type Num = X2<P>;
    const LANES: usize = 2;

    fn zero(&self) -> X2<P> {
        X2::ZERO
    }

    fn one(&self) -> X2<P> {
        // Digit 0 is slot 0 in the strided layout too.
        let mut one = X2::ZERO;
        one.d[0] = [1, 1];
        one
    }

    fn mul(&mut self, a: &X2<P>, b: &X2<P>, out: &mut X2<P>) {
        // SAFETY: `self._ifma` proves the CPU has the features `amm_x2s` enables.
        unsafe { amm_x2s::<D, P>(a, b, self.n, &self.k0, out) }
    }

    fn sqr(&mut self, a: &X2<P>, out: &mut X2<P>) {
        // SAFETY: as in `mul`, for `ams_x2s`.
        unsafe { ams_x2s::<D, P>(a, self.n, &self.k0, out) }
    }

    fn select(&self, table: &[X2<P>], idx: &[u64; 8], out: &mut X2<P>) {
        // SAFETY: as in `mul`, for `select_x2`.
        unsafe { select_x2(table, [idx[0], idx[1]], out) }
    }
}

/// `out = table[idx[s]]` for number `s`, by a masked scan of the whole table.
#[target_feature(enable = "avx512f")]
pub(super) fn select_x2<const D: usize>(table: &[X2<D>], idx: [u64; 2], out: &mut X2<D>) {
    let blocks = X2::<D>::BLOCKS;
    let idx = vec52::pair_splat(idx);
    let zero = _mm512_setzero_si512();
    let mut acc = [zero; D];
    for (k, entry) in table.iter().enumerate() {
        let hit = _mm512_cmpeq_epi64_mask(idx, _mm512_set1_epi64(k as i64));
        // The mask as an opaque vector: left visible, LLVM folds it into a masked `vporq`
        // with a memory operand, a data path that depends on the secret index.
        let m = vec52::opaque(_mm512_maskz_mov_epi64(hit, _mm512_set1_epi64(-1)));
        unroll!(v in 0..blocks => {
            acc[v] = _mm512_or_si512(acc[v], _mm512_and_si512(vec52::block(entry, v), m));
        });
    }
    unroll!(v in 0..blocks => {
        vec52::set_block(out, v, acc[v]);
    });
}
