//! The x2 almost-Montgomery squaring in the strided layout of
//! [`amm_x2_strided`](super::amm_x2_strided): each cross product once, organised by the
//! layout's digit classes, and issued in the shadow of the reduction.
//!
//! Squaring row by row inside the Montgomery loop (as [`ams`](super::ams) does) saves
//! products only where a row's digits `j < i` fill whole blocks, and in the strided
//! layout every block holds digits from all four quarters of the number: at 20 digits a
//! row could skip 10 of 100 block products. Here the square is organised by the digit
//! classes of the layout instead. With `S = P / 4` blocks (`P` slots), digit
//! `r = v' + L' S` sits in block `v'`, lane pair `L'`; the product of the broadcast digit
//! `a_r` and block `v` (digits `v + L S`) is digit `r + v + L S` in lane pair `L`, so it
//! adds to one accumulator block, class `c[r + v]`, whose lane pair `L` stands for digit
//! `r + v + L S` (`c[m]` for `m < D + S`, the high halves into `c[m + 1]`). Every
//! unordered pair `{a_r, a_j}` of different classes is covered once by the row of the
//! lower class and the block of the higher one, counted twice; the pairs inside one class
//! come from the full product of every row with its own block, each ordered pair once and
//! the diagonal once:
//!
//! ```text
//! a^2 = sum_(r, v > r mod S) 2 a_r block_v  +  sum_r a_r block_(r mod S)   (in c)
//! ```
//!
//! 60 block products at 20 digits, against 100 for a product. The doubling is not in the
//! rows: the products of a row with the blocks above its class go undoubled into
//! accumulators of their own, `cx`, and a class is doubled into `c` (a shift and an
//! addition) once its last product is in, which is within one step of the loop below.
//! Doubling in the row instead (IFMA reads only 52 bits of `2 a_r`: `2 a_r a_j = e_r a_j
//! + t_r a_j 2^52`, with `e_r = 2 a_r mod 2^52` and `t_r` bit 51 of `a_r`) cost a pass
//! that wrote `e`, a masked addition per doubled block product, and twenty lane masks
//! built from `t_r` on the scalar side, which LLVM spilled; doubling per class is
//! markedly faster, for the squaring and for whole exponentiations (`crates/bench`,
//! `ifma`).
//!
//! The reduction is `amm`'s loop without the multiplicand's products: the window of `D`
//! digits starts as `c[0..S]` (block `v` of window `i` holds digits `i + v + L S`, the
//! classes of `c[i + v]`), each step adds `y n`, shifts, and takes `c[i + S]` into the
//! block that the shift brings in at the top, whose digits it holds exactly. The quotient
//! digits follow the `Digit0` shadow as in `amm_x2s`; every class feeding a digit is in
//! the window before that digit becomes digit 1. After `D` steps the window is
//! `(a^2 + q n) / R`, below `2n` as for `amm` (`a < 2n`, `4n < R`). A reduction step has
//! 10 `zmm` products at 20 digits against 20 in `amm_x2s`, so its high halves go straight
//! into the block above (one addition a step instead of five), and the square's products
//! for class `i + S + LEAD` run inside step `i`, where the quotient-digit chain leaves
//! the multipliers idle: computed first, in a separate pass, they made the squaring no
//! faster than `amm_x2s`; interleaved, they come nearly free.
//!
//! Guard bits: a digit of the square sums at most `2 D` halves below 2^52 (each cross
//! product's two halves counted twice, in `cx` and by the doubling), and the reduction at
//! most `2 D` more: below `4 D 2^52 < 2^60` up to 40 digits.

use super::amm::Digit0;
use super::amm_x2_strided::{normalize_x2s, slot, strided_fits};
use super::vec52::{self, X2};
use core::arch::x86_64::*;

/// The accumulators of the square by digit class.
type Classes = [__m512i; 64];

/// How many steps before the reduction takes a class its products are issued (tuned on
/// AMD Zen 4 against 1, 3 and 4 with `crates/bench`'s `ifma` benchmark, at 20 and 40
/// digits, where they were within the noise of each other; rerun it to retune).
const LEAD: usize = 2;

/// `ams(a) = a^2 / R mod n` of two interleaved numbers of `D` digits, all operands
/// strided in `P` slots; contract as [`amm_x2s`](super::amm_x2_strided::amm_x2s) with
/// `b = a`. The rows of the padding digits `D..P`, zeros, are skipped.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl,avx512bw")]
pub(super) fn ams_x2s<const D: usize, const P: usize>(
    a: &X2<P>,
    n: &X2<P>,
    k0: &[u64; 2],
    out: &mut X2<P>,
) {
    assert!(strided_fits(D, P), "internal error: no strided layout for D");
    let s = P / 4;
    let k0 = vec52::load2(k0);
    let zero = _mm512_setzero_si512();
    // c[m], lane pair L: digit m + L S of the square, m < D + S (the length covers every
    // index the unrolled loops name, used or not).
    let mut c: Classes = [zero; 64];
    // The cross products of rows with blocks above their class, undoubled, by class; a
    // class is doubled into `c` once it is complete (`fold!`).
    let mut cx: Classes = [zero; 64];
    // The product of row r (digit r) and block v, into classes r + v and r + v + 1:
    // into `cx` if v is above r's class, into `c` if it is r's class, none below.
    macro_rules! row_block {
        ($r:expr, $v:expr) => {{
            let (r, v) = ($r, $v);
            let x = vec52::block(a, v);
            if v == r % s {
                let ar = vec52::pair_bcast(a, slot::<P>(r));
                c[r + v] = _mm512_madd52lo_epu64(c[r + v], x, ar);
                c[r + v + 1] = _mm512_madd52hi_epu64(c[r + v + 1], x, ar);
            } else if v > r % s {
                let ar = vec52::pair_bcast(a, slot::<P>(r));
                cx[r + v] = _mm512_madd52lo_epu64(cx[r + v], x, ar);
                cx[r + v + 1] = _mm512_madd52hi_epu64(cx[r + v + 1], x, ar);
            }
        }};
    }
    // Class m is complete once its own products (low halves) and class m - 1's (high
    // halves) are in: c[m] += 2 cx[m].
    macro_rules! fold {
        ($m:expr) => {{
            let m = $m;
            c[m] = _mm512_add_epi64(c[m], _mm512_slli_epi64::<1>(cx[m]));
        }};
    }
    // Classes the window needs at the start, and LEAD steps' worth ahead.
    unroll!(r in 0..D, max 40 => {
        unroll!(v in 0..s, max 12 => {
            if r + v < s + LEAD {
                row_block!(r, v);
            }
        });
    });
    unroll!(m in 0..D, max 40 => {
        if m < s + LEAD {
            fold!(m);
        }
    });
    let (n0, n1) = (vec52::pair(n, slot::<P>(0)), vec52::pair(n, slot::<P>(1)));
    let mut acc = [zero; P];
    acc[..s].copy_from_slice(&c[..s]);
    // Digit 0 of the square is class 0's lane pair 0 alone: complete.
    let mut digit0 = Digit0::new(_mm512_castsi512_si128(acc[0]), k0);
    unroll!(i in 0..D, max 40 => {
        // Window digit 1 (block 1, lane pair 0): every class of it is in.
        let ew = _mm512_castsi512_si128(acc[1]);
        let (y, carry) = (digit0.y, digit0.carry);
        digit0 = digit0.next_at(ew, n1, n0, k0);
        // y n: the low halves in place, the high halves straight into the block above
        // (before the shift), the top block's into the block the shift brings in.
        let yb = _mm512_shuffle_i64x2::<0>(_mm512_castsi128_si512(y), _mm512_castsi128_si512(y));
        let mut last = zero;
        unroll!(v in 0..s, max 12 => {
            let nv = vec52::block(n, v);
            acc[v] = _mm512_madd52lo_epu64(acc[v], nv, yb);
            if v + 1 < s {
                acc[v + 1] = _mm512_madd52hi_epu64(acc[v + 1], nv, yb);
            } else {
                last = _mm512_madd52hi_epu64(zero, nv, yb);
            }
        });
        acc[1] = _mm512_add_epi64(acc[1], _mm512_zextsi128_si512(carry));
        // The square's products for class i + S + LEAD, in the reduction's shadow.
        unroll!(v in 0..s, max 12 => {
            if i + s + LEAD >= v && i + s + LEAD - v < D {
                row_block!(i + s + LEAD - v, v);
            }
        });
        if i + s + LEAD < D + s {
            fold!(i + s + LEAD);
        }
        // The shift of `amm_x2s`, and class i + S into the block it brings in.
        let first = acc[0];
        unroll!(v in 0..s, max 12 => {
            acc[v] = if v + 1 < s {
                acc[v + 1]
            } else {
                let moved = _mm512_alignr_epi64::<2>(zero, first);
                _mm512_add_epi64(_mm512_add_epi64(moved, last), c[i + s])
            };
        });
    });
    // The last step's successor digit is not needed.
    let _after_last = digit0;
    normalize_x2s(&acc[..s], out);
}
