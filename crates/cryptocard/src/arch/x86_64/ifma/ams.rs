//! Almost-Montgomery squaring (AMS) in radix 2^52, for the mb8 and x2 layouts.
//!
//! `ams(a) = amm(a, a)`, with each off-diagonal product `a_i a_j` (`i < j`) computed once
//! and counted twice, as in Dusse-Kaliski's Montgomery squaring and Markovic et al.'s
//! dedicated squaring: `D (D + 1) / 2` digit products instead of `D^2`, so a squaring
//! costs about `3 D^2` IFMA instructions against `4 D^2` for a multiplication (the
//! reduction half is unchanged), 25% fewer.
//!
//! The square is interleaved with the reduction row by row: step `i` adds row `i` of the
//! upper triangle, `a_i a_j` for `j >= i`, whose lowest position `2i` is at or above the
//! digit `i` that step `i` retires, so the Montgomery loop of `amm` applies unchanged.
//!
//! Doubling: IFMA reads only the low 52 bits of its multiplicands, so `2 a_j` (53 bits)
//! cannot be a multiplicand. Instead the row uses `a2_i = 2 a_i mod 2^52` and adds back
//! the lost bit: `2 a_i a_j = a2_i a_j + c_i a_j 2^52` with `c_i` bit 51 of `a_i`, the
//! second term a masked addition of `a_j` one digit up.

use super::amm::{Digit0, reduce_step_mb8, reduce_step_x2};
use super::radix52::DIGIT_MASK;
use super::vec52::{self, Mb8, X2};
use core::arch::x86_64::*;

/// `ams(a) = a^2 / R mod n` of eight lanes; contract as `amm_mb8` with `b = a`. `scratch`
/// receives `2a` (a secret the caller zeroizes when done).
#[target_feature(enable = "avx512f,avx512ifma,avx512vl,avx512bw")]
pub(super) fn ams_mb8<const D: usize>(
    a: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
    scratch: &mut Mb8<D>,
) {
    let k0 = vec52::load8(k0);
    let zero = _mm512_setzero_si512();
    let not_one = _mm512_set1_epi64(!1);
    doubled_mb8(a, scratch);
    let a2 = &*scratch;
    let mut acc = [zero; D];
    let mut top = zero;
    for i in 0..D {
        let ai = vec52::row(a, i);
        // Row i: a_i times [a_i, e_(i+1), a2_(i+2), ...] from digit i up, where e_(i+1) is
        // a2_(i+1) without the carry in from digit i.
        unroll!(j in 0..D => {
            if j >= i {
                let m = if j == i {
                    ai
                } else if j == i + 1 {
                    _mm512_and_si512(vec52::row(a2, j), not_one)
                } else {
                    vec52::row(a2, j)
                };
                acc[j] = _mm512_madd52lo_epu64(acc[j], m, ai);
                let up = if j + 1 < D { &mut acc[j + 1] } else { &mut top };
                *up = _mm512_madd52hi_epu64(*up, m, ai);
            }
        });
        reduce_step_mb8(&mut acc, &mut top, n, k0);
    }
    vec52::normalize_mb8(&acc, out);
}

/// `2a` in normalised digits, `a2_j = (2 a_j mod 2^52) + c_(j-1)` with `c_j` bit 51 of
/// `a_j` (the low bit of `2 a_j mod 2^52` is free for it). `a < 2^(52 D - 1)`, so the carry
/// out of the top digit is zero.
#[target_feature(enable = "avx512f")]
fn doubled_mb8<const D: usize>(a: &Mb8<D>, a2: &mut Mb8<D>) {
    let mask = _mm512_set1_epi64(DIGIT_MASK as i64);
    let mut c = _mm512_setzero_si512();
    for j in 0..D {
        let x = vec52::row(a, j);
        let d = _mm512_or_si512(_mm512_and_si512(_mm512_slli_epi64::<1>(x), mask), c);
        vec52::set_row(a2, j, d);
        c = _mm512_srli_epi64::<51>(x);
    }
    debug_assert!(a.0[D - 1].iter().all(|&d| d >> 51 == 0), "internal error: a >= R / 2");
}

/// `ams(a) = a^2 / R mod n` of two interleaved numbers; contract as `amm_x2` with `b = a`.
///
/// Row `i` reaches the blocks from `i / 4` up, so the steps go in groups of four, one
/// group per block `vi` and each group its own unrolled copy: in it the blocks that take
/// products are a constant set (`vi..`), and the lanes of blocks `vi` and `vi + 1` that
/// row `i` blends (below) are selected by masks computed from `i`, not by branches.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl,avx512bw")]
pub(super) fn ams_x2<const D: usize>(a: &X2<D>, n: &X2<D>, k0: &[u64; 2], out: &mut X2<D>) {
    let k0 = vec52::load2(k0);
    let blocks = X2::<D>::BLOCKS;
    let zero = _mm512_setzero_si512();
    let (a2, e) = doubled_x2(a);
    let mut acc = [zero; D];
    let mut h = [zero; D];
    let mut digit0 = Digit0::new(_mm_setzero_si128(), k0);
    unroll!(vi in 0..blocks, max 20 => {
        for i in 4 * vi..D.min(4 * vi + 4) {
            let ai = vec52::pair_bcast(a, i);
            // Row i: a_i times [a_i, e_(i+1), a2_(i+2), ...] from digit i up. In block vi
            // the lanes below digit i are cleared, digit i takes a_i and digit i + 1 takes
            // e_(i+1); when digit i + 1 starts the next block, that block's lane pair 0
            // takes it.
            let r = 2 * (i % 4);
            let keep: u8 = 0xff << r;
            let diag: u8 = 0b11 << r;
            let next: u8 = (0b1100u16 << r) as u8;
            let next_up: u8 = (0b1100u16 << r >> 8) as u8;
            let row = |v: usize, acc: &mut __m512i, h: &mut __m512i| {
                let mut m = a2[v];
                if v == vi {
                    m = _mm512_mask_blend_epi64(diag, m, vec52::block(a, v));
                    m = _mm512_mask_blend_epi64(next, m, e[v]);
                    m = _mm512_maskz_mov_epi64(keep, m);
                } else if v == vi + 1 {
                    m = _mm512_mask_blend_epi64(next_up, m, e[v]);
                }
                *acc = _mm512_madd52lo_epu64(*acc, m, ai);
                *h = _mm512_madd52hi_epu64(zero, m, ai);
            };
            // Block 0 first (rows 0..4 reach it): it holds the next digit 0.
            h[0] = zero;
            if vi == 0 {
                row(0, &mut acc[0], &mut h[0]);
                if i == 0 {
                    digit0 = Digit0::new(_mm512_castsi512_si128(acc[0]), k0);
                }
            }
            let e1 = _mm512_extracti32x4_epi32::<1>(acc[0]);
            let x = _mm_add_epi64(e1, _mm512_castsi512_si128(h[0]));
            let (y, carry) = (digit0.y, digit0.carry);
            digit0 = digit0.next(x, n, k0);
            unroll!(v in 0..blocks, max 20 => {
                if v > 0 {
                    if v >= vi {
                        row(v, &mut acc[v], &mut h[v]);
                    } else {
                        h[v] = zero;
                    }
                }
            });
            reduce_step_x2(&mut acc, &mut h, y, carry, n);
        }
    });
    end_x2!(&acc[..blocks], out);
}

/// `(a2, e)` with `a2 = 2a` in normalised digits (`a2_j = (2 a_j mod 2^52) + c_(j-1)`, `c_j`
/// bit 51 of `a_j`) and `e_j = 2 a_j mod 2^52` (without the carry in). `a < 2^(52 D - 1)`,
/// so the carry out of the top digit is zero and `2a` fits `D` digits.
#[inline]
#[target_feature(enable = "avx512f")]
fn doubled_x2<const D: usize>(a: &X2<D>) -> ([__m512i; D], [__m512i; D]) {
    let mask = _mm512_set1_epi64(DIGIT_MASK as i64);
    let zero = _mm512_setzero_si512();
    let (mut a2, mut e) = ([zero; D], [zero; D]);
    unroll!(v in 0..X2::<D>::BLOCKS => {
        let x = vec52::block(a, v);
        e[v] = _mm512_and_si512(_mm512_slli_epi64::<1>(x), mask);
        let c = _mm512_srli_epi64::<51>(x);
        let below = if v > 0 { _mm512_srli_epi64::<51>(vec52::block(a, v - 1)) } else { zero };
        // The carry of digit j - 1 is two lanes down (one digit of the same number).
        a2[v] = _mm512_or_si512(e[v], _mm512_alignr_epi64::<6>(c, below));
    });
    debug_assert!(a.d[D - 1].iter().all(|&d| d >> 51 == 0), "internal error: a >= R / 2");
    (a2, e)
}
