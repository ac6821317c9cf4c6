//! The x2 almost-Montgomery product in a strided layout, where the shift by one digit of
//! each step is one `valignq` instead of one per block.
//!
//! In the contiguous [`X2`] layout, block `v` holds digits `4v..4v+4`, so the division by
//! 2^52 at the end of a step moves every block two lanes down (`S` shuffles a step, with
//! `S = D / 4` blocks). On AMD Zen 4 they compete with the products for the pipes, and a
//! step without them is markedly faster (`crates/bench`, `ifma`). Here block `v`, lane
//! pair `L` (`0 <= L < 4`) holds digit `L S + v` of both numbers:
//!
//! ```text
//! digit k = L S + v    ->  block k mod S, lane pair k div S
//! shift:   new block v = old block v + 1               (v < S - 1: a renaming)
//!          new block S - 1 = old block 0, one lane pair down (one valignq)
//! ```
//!
//! A digit count `D` that is not a multiple of 4 runs in `P` slots, `D` rounded up to one,
//! the slots of digits `D..P` zero: the `D` steps of the product (`R = 2^(52 D)`) shift
//! over all `P` slots, which costs no more products where `P / 4` blocks are as many as
//! the contiguous layout's `ceil(D / 4)`, and the result, below `2n < 2^(52 D)`, has
//! zeros there again once normalised.
//!
//! The products are lane-wise, so the step is [`amm`](super::amm)'s with other indices;
//! the digit after digit 0, which feeds the quotient-digit shadow (`Digit0`), is lane pair
//! 0 of block 1. The high halves go straight into the block above (the top block's into
//! the block the shift brings in), not into registers of their own as in `amm_x2`: one
//! addition a step instead of one a block, and half the registers, which made the product
//! faster at 30 digits in 32 slots and no slower at 20 and 40 (`crates/bench`, `ifma`, AMD
//! Zen 4). The normalisation ([`normalize_x2s`]) propagates carries in the same order,
//! with the carry bits put in digit order in one word up to 32 digits, two above.
//!
//! The layout is used for the whole exponentiation (tables included) by `exp_x2` where it
//! applies ([`strided_fits`]); [`to_strided`] and [`from_strided`] convert at its ends.

use super::amm::Digit0;
use super::radix52::DIGIT_MASK;
use super::vec52::{self, X2};
use core::arch::x86_64::*;

/// Whether `D` digits run strided in `P` slots: `P` is `D` rounded up to a multiple of 4
/// (four lane pairs a block; the slots of digits `D..P` hold zeros), and has at least five
/// blocks (`spread`'s copies must not overlap) and at most ten (the carry bits of both
/// numbers in two words, and the kernels' blocks in registers).
pub(super) const fn strided_fits(d: usize, p: usize) -> bool {
    p == d.next_multiple_of(4) && p >= 20 && p <= 40
}

/// Evaluates `$body` with the constant `$p` set to the slot count of `$d` digits'
/// strided layout (see [`strided_fits`]) where there is one, else `$none`: the slot count
/// as a constant for generic code, which cannot compute `D.next_multiple_of(4)` in a type.
macro_rules! with_strided_slots {
    ($d:expr, $p:ident => $body:expr, else => $none:expr) => {
        with_strided_slots!(@ $d, $p, $body, $none, 20 24 28 32 36 40)
    };
    (@ $d:expr, $p:ident, $body:expr, $none:expr, $($n:literal)*) => {
        $(if const { $crate::arch::x86_64::ifma::amm_x2_strided::strided_fits($d, $n) } {
            const $p: usize = $n;
            $body
        } else)* {
            $none
        }
    };
}
pub(crate) use with_strided_slots;

/// Index in `X2::<P>::d` of digit `k` in the strided layout of `P` slots.
pub(super) const fn slot<const P: usize>(k: usize) -> usize {
    4 * (k % (P / 4)) + k / (P / 4)
}

/// `x` (contiguous) in the strided layout of `P` slots.
pub(super) fn to_strided<const D: usize, const P: usize>(x: &X2<D>) -> X2<P> {
    assert!(strided_fits(D, P), "internal error: no strided layout for D");
    let mut out = X2::<P>::ZERO;
    for k in 0..D {
        out.d[slot::<P>(k)] = x.d[k];
    }
    out
}

/// `x` (strided, `P` slots) in the contiguous layout, digits `D..P` dropped.
pub(super) fn from_strided<const D: usize, const P: usize>(x: &X2<P>) -> X2<D> {
    assert!(strided_fits(D, P), "internal error: no strided layout for D");
    let mut out = X2::<D>::ZERO;
    for k in 0..D {
        out.d[k] = x.d[slot::<P>(k)];
    }
    out
}

/// `amm(a, b)` of two interleaved numbers of `D` digits, all operands strided in `P`
/// slots (those of digits `D..P` zero); contract as [`amm_x2`](super::amm::amm_x2) with
/// `R = 2^(52 D)`, `strided_fits(D, P)`. The `D` steps run over all `P` slots: the
/// padding costs no products where `P / 4` blocks are as many as `D` digits need.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl,avx512bw")]
pub(super) fn amm_x2s<const D: usize, const P: usize>(
    a: &X2<P>,
    b: &X2<P>,
    n: &X2<P>,
    k0: &[u64; 2],
    out: &mut X2<P>,
) {
    assert!(strided_fits(D, P), "internal error: no strided layout for D");
    let s = P / 4;
    let k0 = vec52::load2(k0);
    let zero = _mm512_setzero_si512();
    let zx = _mm_setzero_si128();
    let a0 = vec52::pair(a, 0);
    let mut acc = [zero; P];
    let mut digit0 = Digit0::new(_mm_madd52lo_epu64(zx, a0, vec52::pair(b, 0)), k0);
    let (n0, n1) = (vec52::pair(n, 0), vec52::pair(n, slot::<P>(1)));
    for i in 0..D {
        let bi = vec52::pair_bcast(b, slot::<P>(i));
        // Digits 0 and 1 first (blocks 0 and 1): the next digit 0.
        acc[0] = _mm512_madd52lo_epu64(acc[0], vec52::block(a, 0), bi);
        acc[1] = _mm512_madd52lo_epu64(acc[1], vec52::block(a, 1), bi);
        acc[1] = _mm512_madd52hi_epu64(acc[1], vec52::block(a, 0), bi);
        let next = if i + 1 < D {
            _mm_madd52lo_epu64(zx, a0, vec52::pair(b, slot::<P>(i + 1)))
        } else {
            zx
        };
        let x = _mm_add_epi64(_mm512_castsi512_si128(acc[1]), next);
        let (y, carry) = (digit0.y, digit0.carry);
        digit0 = digit0.next_at(x, n1, n0, k0);
        // The high halves go straight into the block above (before the shift), the top
        // block's into `last`, which joins the block the shift brings in.
        let yb = _mm512_shuffle_i64x2::<0>(_mm512_castsi128_si512(y), _mm512_castsi128_si512(y));
        let mut last = zero;
        unroll!(v in 0..s, max 12 => {
            let (av, nv) = (vec52::block(a, v), vec52::block(n, v));
            if v > 1 {
                acc[v] = _mm512_madd52lo_epu64(acc[v], av, bi);
            }
            acc[v] = _mm512_madd52lo_epu64(acc[v], nv, yb);
            if v + 1 < s {
                if v > 0 {
                    acc[v + 1] = _mm512_madd52hi_epu64(acc[v + 1], av, bi);
                }
                acc[v + 1] = _mm512_madd52hi_epu64(acc[v + 1], nv, yb);
            } else {
                last = _mm512_madd52hi_epu64(_mm512_madd52hi_epu64(zero, av, bi), nv, yb);
            }
        });
        acc[1] = _mm512_add_epi64(acc[1], _mm512_zextsi128_si512(carry));
        let first = acc[0];
        unroll!(v in 0..s, max 12 => {
            acc[v] = if v + 1 < s {
                acc[v + 1]
            } else {
                _mm512_add_epi64(_mm512_alignr_epi64::<2>(zero, first), last)
            };
        });
    }
    normalize_x2s(&acc[..s], out);
}

/// [`vec52::normalize_x2`] for the strided layout: digits below 2^63 in, normalised
/// digits out (the value below `2^(52 D)` in both numbers).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn normalize_x2s<const D: usize>(acc: &[__m512i], out: &mut X2<D>) {
    let s = D / 4;
    assert_eq!(acc.len(), s, "internal error: block count");
    let mask = _mm512_set1_epi64(DIGIT_MASK as i64);
    let zero = _mm512_setzero_si512();
    // Step 1: t_k = (x_k mod 2^52) + (x_(k-1) >> 52); digit k - 1 is the block below,
    // same lanes, or for block 0 the last block one lane pair up.
    let mut t = [zero; 10];
    let last_hi = _mm512_srli_epi64::<52>(acc[s - 1]);
    for v in 0..s {
        let below = if v > 0 {
            _mm512_srli_epi64::<52>(acc[v - 1])
        } else {
            _mm512_alignr_epi64::<6>(last_hi, zero)
        };
        t[v] = _mm512_add_epi64(_mm512_and_si512(acc[v], mask), below);
    }
    // Step 2: generate / propagate bits in digit order (bit 2k + number), in one word up to
    // 32 digits, two above.
    let (mut g, mut p) = (0u128, 0u128);
    for (v, &tv) in t[..s].iter().enumerate() {
        g |= spread::<D>(_mm512_cmpgt_epu64_mask(tv, mask), v);
        p |= spread::<D>(_mm512_cmpeq_epi64_mask(tv, mask), v);
    }
    let carries = if D <= 32 {
        let [c] = vec52::lookahead(&[g as u64], &[p as u64]);
        u128::from(c)
    } else {
        let words = |x: u128| [x as u64, (x >> 64) as u64];
        let [lo, hi] = vec52::lookahead(&words(g), &words(p));
        u128::from(lo) | u128::from(hi) << 64
    };
    for (v, &tv) in t[..s].iter().enumerate() {
        let c = gather::<D>(carries, v);
        let y = _mm512_mask_sub_epi64(tv, c, tv, _mm512_set1_epi64(-1));
        vec52::set_block(out, v, _mm512_and_si512(y, mask));
    }
}

/// Block `v`'s lane mask (bit `2L + s`: digit `L S + v` of number `s`) at its digit-order
/// bits `2 (L S + v) + s`: a multiplication makes four copies of the mask 2 (S - 1) >= 8
/// bits apart (so they do not overlap), which puts field `L` of copy `L` at `2 L S`; the
/// mask keeps those.
#[inline]
fn spread<const D: usize>(m: u8, v: usize) -> u128 {
    let s = D / 4;
    let copies: u64 = (0..4).map(|l| 1 << (2 * l * (s - 1))).sum();
    let fields: u64 = (0..4).map(|l| 3 << (2 * l * s)).sum();
    u128::from((u64::from(m) * copies) & fields) << (2 * v)
}

/// The inverse of [`spread`]: block `v`'s lane mask from digit-order bits. The fields at
/// `2 L S` are multiplied into copies shifted by `2 (S - 1) (3 - L)`, which brings field
/// `L` of copy `L` to bit `6 (S - 1) + 2 L`; no other copy's field reaches those eight bits
/// or carries into them (`tests` checks every mask at every digit count that runs
/// strided).
#[inline]
fn gather<const D: usize>(w: u128, v: usize) -> u8 {
    let s = D / 4;
    let fields: u64 = (0..4).map(|l| 3 << (2 * l * s)).sum();
    let copies: u64 = (0..4).map(|l| 1 << (2 * (s - 1) * (3 - l))).sum();
    // Block v's fields lie below bit 2 (3 S + v) + 2 <= 62 + 2 v: one word after the shift,
    // and the product's bits that matter are below 6 (S - 1) + 8 <= 64.
    let x = (w >> (2 * v)) as u64 & fields;
    (x.wrapping_mul(copies) >> (6 * (s - 1))) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`spread`] and [`gather`] against bit-by-bit placement, every mask and block.
    fn spread_gather<const D: usize>() {
        let s = D / 4;
        for v in 0..s {
            for m in 0..=255u8 {
                let want: u128 =
                    (0..8).map(|b| u128::from(m >> b & 1) << (2 * ((b / 2) * s + v) + b % 2)).sum();
                assert_eq!(spread::<D>(m, v), want, "spread D={D} v={v} m={m}");
                // Other blocks' bits set too: gather must pick block v's alone.
                let others = (0..s).filter(|&u| u != v).fold(0, |w, u| w | spread::<D>(0xff, u));
                assert_eq!(gather::<D>(want | others, v), m, "gather D={D} v={v} m={m}");
            }
        }
    }

    #[test]
    fn spread_and_gather_are_inverse() {
        spread_gather::<20>();
        spread_gather::<24>();
        spread_gather::<28>();
        spread_gather::<32>();
        spread_gather::<36>();
        spread_gather::<40>();
    }
}
