//! Eight-lane almost-Montgomery products by product scanning in column groups: the
//! transposed kernels for digit counts whose accumulator does not fit the registers.
//!
//! The operand-scanning kernels of `amm` keep the whole running sum, `D + 1` registers,
//! in registers; at 30 digits that leaves one register for everything else (every
//! multiplicand is then a memory operand, one load per IFMA, and the load port binds),
//! and above 31 it spills. Here the double-length sum is built column by column instead
//! (Comba's product scanning; Koc, Acar and Kaliski's "finely integrated product scanning"
//! form of Montgomery multiplication), `W` columns at a time: the group's `W + 1`
//! accumulators stay in registers while the rows `r` that reach them stream past, each row
//! one multiplier (`b_r`, and the quotient digit `y_r`) held in a register against the
//! loaded multiplicands `a_(c - r)`, `n_(c - r)`: half a load per IFMA, and no stores
//! but the quotient digits and the result. Columns `c < D` are retired as they complete
//! (their quotient digits make them zero modulo 2^52, the carry moves up); columns
//! `D..2D` are the result, normalised as they leave.
//!
//! For a column group `[c0, c0 + W)` the pairs `(r, j)`, `c = r + j` in the group, are:
//!
//! * below the diagonal (`c0 < D`): rows `r < c0`, full (all `W` columns, `y_r` known),
//!   then the triangle `r = c0 + k`, columns `m >= k` (`m = c - c0`), where the quotient
//!   digits are made one after the other: `y_r` needs column `r` complete;
//! * above it (`c0 >= D`): the clipped rows `r = c0 - D + 1 + k` (columns `m <= k`,
//!   since `j < D`), then full rows up to `D - 1`.
//!
//! Each pair adds its low half to column `c` and its high half to `c + 1` (the register
//! after the group's last column carries over to the next group). The guard-bit budget
//! is `super`'s: a column absorbs at most four halves per row, `4D` in all; the squaring's
//! doubled cross products are at most `2D` of them (a column has at most `D / 2` cross
//! pairs and as many from the column below), its diagonal one more.
//!
//! Quotient digit and carry of column `r`: `y = (t k0) mod 2^52`, and since
//! `t + lo(n_0 y) = 0 mod 2^52` the carry into column `r + 1` is
//! `(t + 2^52 - 1) >> 52` plus `hi(n_0 y)`, so `lo(n_0 y)` is never computed. Columns
//! are signed (the Karatsuba squaring of `mb8_karatsuba` subtracts), so carries are arithmetic
//! shifts; for the products here, whose columns stay below 2^62, they are the same.

use super::radix52::DIGIT_MASK;
use super::vec52::{self, Mb8};
use core::arch::x86_64::*;

/// The widest column group: the bound (`max 12`) of the unrolled loops over a group's
/// columns and rows.
const MAX_WIDTH: usize = 12;

/// The accumulators of one column group: `W + 1` of them are used (the length covers
/// every index the unrolled loops name, used or not).
pub(super) type Acc = [__m512i; MAX_WIDTH + 1];

/// `acc[m] += lo(x v)`, `acc[m + 1] += hi(x v)`.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn mac(acc: &mut Acc, m: usize, x: __m512i, v: __m512i) {
    acc[m] = _mm512_madd52lo_epu64(acc[m], x, v);
    acc[m + 1] = _mm512_madd52hi_epu64(acc[m + 1], x, v);
}

/// Full rows `r` in `rows` of the group at `c0`: `x_(c0 + m - r) v_r` into column `m`,
/// for every `m < W`. (Macros rather than functions: the accumulators must stay in
/// registers, which needs these inlined, and `#[inline(always)]` is not available with
/// `#[target_feature]`.)
macro_rules! full_rows {
    ($W:expr, $acc:expr, $x:expr, $v:expr, $c0:expr, $rows:expr) => {
        for r in $rows {
            let vr = vec52::row($v, r);
            unroll!(m in 0..$W, max 12 => {
                mac($acc, m, vec52::row($x, $c0 + m - r), vr);
            });
        }
    };
}

/// The clipped rows of a group at `c0 >= D`: row `r = c0 - D + 1 + k`, `k < W - 1`,
/// reaches columns `m <= k` only (its pairs `(r, j)` have `j = D - 1 - k + m < D`).
macro_rules! clipped_rows {
    ($D:expr, $W:expr, $acc:expr, $x:expr, $v:expr, $c0:expr) => {
        unroll!(k in 0..$W, max 12 => {
            if k + 1 < $W {
                let vr = vec52::row($v, $c0 - $D + 1 + k);
                unroll!(m in 0..$W, max 12 => {
                    if m <= k {
                        mac($acc, m, vec52::row($x, $D - 1 - k + m), vr);
                    }
                });
            }
        });
    };
}

/// The group widths for which the kernels are built; `W` must divide `D` and be even
/// (the squaring's diagonal steps two columns per row), and at most [`MAX_WIDTH`] (wider
/// groups were no faster, see [`group_width`]).
pub(super) const fn width_ok<const D: usize, const W: usize>() -> bool {
    W >= 2 && W <= MAX_WIDTH && W.is_multiple_of(2) && D.is_multiple_of(W)
}

/// The column-group width used for `d` digits, 0 where none fits (odd `d`): the narrowest
/// of 4, 6 and 10 that divides `d`. Two columns leave too few independent accumulators;
/// wider groups than these were no faster. Tuned on AMD Zen 4 by the chained cycles of an
/// 8-lane product and squaring at every width (`crates/bench`, `ifma -- cycles`); rerun it
/// to retune.
pub(super) const fn group_width(d: usize) -> usize {
    if d.is_multiple_of(4) {
        4
    } else if d.is_multiple_of(6) {
        6
    } else if d.is_multiple_of(10) {
        10
    } else {
        0
    }
}

/// The column groups of one product, with the quotient-digit (`n y`) half shared by the
/// multiplication and the squaring. `a_part(acc, c0)` adds the multiplicand half's pairs
/// of the group at `c0` (all of them: the triangle's first columns included); then this
/// adds the `n y` pairs, makes the group's quotient digits (below the diagonal, stored to
/// `y`) or its normalised result digits (above it, to `out`). `side()` runs after each
/// group: independent work (a table scan) that then executes in the shadow of the
/// products, on the ports and registers they leave free.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn groups<const D: usize, const W: usize>(
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
    y: &mut Mb8<D>,
    mut a_part: impl FnMut(&mut Acc, usize),
    mut side: impl FnMut(),
) {
    assert!(width_ok::<D, W>(), "internal error: column group width");
    let zero = _mm512_setzero_si512();
    let mask = _mm512_set1_epi64(DIGIT_MASK as i64);
    let k0 = vec52::load8(k0);
    let n0 = vec52::row(n, 0);
    // The register after the last column of the previous group, and the carry of the
    // result digits normalised so far.
    let mut over = zero;
    let mut carry = zero;
    for g in 0..2 * D / W {
        let c0 = g * W;
        let mut acc: Acc = [zero; _];
        acc[0] = over;
        a_part(&mut acc, c0);
        if c0 < D {
            // Full rows: their quotient digits are known.
            full_rows!(W, &mut acc, n, y, c0, 0..c0);
            // The triangle: y_r from column r, then its row.
            unroll!(k in 0..W, max 12 => {
                let t = acc[k];
                let yr = _mm512_madd52lo_epu64(zero, t, k0);
                let c = _mm512_srai_epi64::<52>(_mm512_add_epi64(t, mask));
                let u = _mm512_madd52hi_epu64(c, n0, yr);
                unroll!(m in 0..W, max 12 => {
                    if m > k {
                        mac(&mut acc, m, vec52::row(n, m - k), yr);
                    }
                });
                acc[k + 1] = _mm512_add_epi64(acc[k + 1], u);
                vec52::set_row(y, c0 + k, yr);
            });
        } else {
            clipped_rows!(D, W, &mut acc, n, y, c0);
            full_rows!(W, &mut acc, n, y, c0, c0 + W - D..D);
            unroll!(m in 0..W, max 12 => {
                let t = _mm512_add_epi64(acc[m], carry);
                vec52::set_row(out, c0 + m - D, _mm512_and_si512(t, mask));
                carry = _mm512_srai_epi64::<52>(t);
            });
        }
        over = acc[W];
        side();
    }
}

/// `amm(a, b)` of eight lanes by column groups of `W`; contract as `amm::amm_mb8`, for
/// any `D` that [`width_ok`] accepts. `y` receives the quotient digits (secret: the
/// caller zeroizes it when done).
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn amm_mb8_ps<const D: usize, const W: usize>(
    a: &Mb8<D>,
    b: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
    y: &mut Mb8<D>,
) {
    groups::<D, W>(
        n,
        k0,
        out,
        y,
        |acc, c0| {
            if c0 < D {
                full_rows!(W, acc, a, b, c0, 0..c0);
                unroll!(k in 0..W, max 12 => {
                    let br = vec52::row(b, c0 + k);
                    unroll!(m in 0..W, max 12 => {
                        if m >= k {
                            mac(acc, m, vec52::row(a, m - k), br);
                        }
                    });
                });
            } else {
                clipped_rows!(D, W, acc, a, b, c0);
                full_rows!(W, acc, a, b, c0, c0 + W - D..D);
            }
        },
        || {},
    );
}

/// `ams(a) = amm(a, a)` of eight lanes by column groups of `W`; contract as
/// `ams::ams_mb8`. `y` receives the quotient digits (a secret: the caller zeroizes it when
/// done); `side` runs after each of the `2D / W` column groups (see [`groups`]).
///
/// The square's pairs are `(i, j)`, `i <= j`, in column `i + j`. The cross products
/// (`i < j`) go once into accumulators of their own, `cx`, which are doubled into the
/// group's columns when the group's pairs are in (their high halves past the group carry
/// to the next group's `cx`, doubled there); the diagonal products `a_i a_i` go straight
/// into the columns. (Doubling a column is an addition; doubling the multiplicand instead,
/// as `ams` does, costs a pass that writes `2a` and a correction for its carries.) In a
/// group at `c0` the rows below `c0 / 2` are full, the next `W / 2` rows start inside the
/// group (two columns further each, with their diagonal), and above the diagonal the
/// first rows are clipped as in the multiplication; the last group is both at once.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn ams_mb8_ps<const D: usize, const W: usize>(
    a: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
    y: &mut Mb8<D>,
    side: impl FnMut(),
) {
    let zero = _mm512_setzero_si512();
    // The cross products' high halves past the last group's columns.
    let mut cx_over = zero;
    groups::<D, W>(
        n,
        k0,
        out,
        y,
        |acc, c0| {
            let mut cx: Acc = [zero; _];
            cx[0] = cx_over;
            // Row i from column `first` (its diagonal, at group column 2i - c0, if that is
            // in the group) to column `last`: the diagonal into `acc`, the rest into `cx`.
            macro_rules! row_from_diagonal {
                ($i:expr, $first:expr, $last:expr) => {{
                    let (i, first, last) = ($i, $first, $last);
                    let ai = vec52::row(a, i);
                    unroll!(m in 0..W, max 12 => {
                        if m >= first && m <= last {
                            let c = c0 + m;
                            if c == 2 * i {
                                mac(acc, m, ai, ai);
                            } else {
                                mac(&mut cx, m, vec52::row(a, c - i), ai);
                            }
                        }
                    });
                }};
            }
            if c0 + W == 2 * D {
                // The last group: rows i = D - W + 1 + k reach columns m in
                // [max(0, 2i - c0), k].
                unroll!(k in 0..W, max 12 => {
                    if k + 1 < W {
                        let i = D - W + 1 + k;
                        row_from_diagonal!(i, (2 * i).saturating_sub(c0), k);
                    }
                });
            } else {
                if c0 >= D {
                    // Clipped rows, all of them past their first two columns.
                    clipped_rows!(D, W, &mut cx, a, a, c0);
                }
                full_rows!(W, &mut cx, a, a, c0, (c0 + W).saturating_sub(D)..c0 / 2);
                // Rows starting in the group: i = c0 / 2 + k, from column 2k.
                unroll!(k in 0..W, max 12 => {
                    if 2 * k < W {
                        row_from_diagonal!(c0 / 2 + k, 2 * k, W - 1);
                    }
                });
            }
            unroll!(m in 0..W, max 12 => {
                acc[m] = _mm512_add_epi64(acc[m], _mm512_add_epi64(cx[m], cx[m]));
            });
            cx_over = cx[W];
        },
        side,
    );
}
