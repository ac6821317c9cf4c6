//! The eight-lane almost-Montgomery squaring and product with a Karatsuba square or
//! product, fused into the column groups of [`mb8_columns`](super::mb8_columns).
//!
//! With `h = D / 2` and `a = a0 + B^h a1` (`B = 2^52`), Karatsuba's subtractive form
//! (Knuth, TAOCP vol. 2, 4.3.3) squares with three half-size squares instead of one
//! full one:
//!
//! ```text
//! a^2 = S0 + B^h (S0 + S1 - T) + B^(2h) S1,   S0 = a0^2, S1 = a1^2, T = d^2, d = |a0 - a1|
//!     = U + B^h (U - T),                       U = S0 + B^h S1
//! ```
//!
//! so column `c` of the square is `U[c] + U[c - h] - T[c - h]`, columns being the sums
//! the column groups accumulate (low halves of the pairs in `c`, high halves of those in
//! `c - 1`). The three squares have `h (h + 1) / 2` pairs each against `D (D + 1) / 2`:
//! 630 against 820 at 40 digits, 165 against 210 at 20. `U`'s columns are made once, as
//! their group comes, and stored; `h` columns later the group at `c` reads `U[c - h]`
//! back, and makes `T[c - h]` from `d`, which is computed (normalised, in constant time:
//! a subtraction and a conditional negation, two borrow chains) before the groups. The
//! reduction is `mb8_columns::groups`, unchanged: the square's products fill the gaps of its
//! quotient-digit chain as they do in `ams_mb8_ps`.
//!
//! The product is the same with `U = a0 b0 + B^h a1 b1` and `T = |a0 - a1| |b0 - b1|`,
//! subtracted in the lanes where `(a0 - a1)(b0 - b1) >= 0` and added in the others
//! (`ab = U + B^h (U - (a0 - a1)(b0 - b1))`): 1200 pairs against 1600 at 40 digits.
//! At 40 digits both beat the plain column groups in a dependent chain (`crates/bench`,
//! `ifma -- products40`).
//!
//! The subtraction makes columns negative where `T`'s outweighs the rest, so columns are
//! signed and their carries arithmetic shifts (as they are in `mb8_columns::groups` for every
//! product). Guard bits: `U[c]` and `U[c - h]` sum at most `8 h = 4 D` halves below 2^52,
//! `T` at most `2D`, the reduction `2D` more: magnitudes below `6 D 2^52 < 2^62` up to
//! 64 digits.

use super::mb8_columns::{Acc, groups, mac};
use super::radix52::DIGIT_MASK;
use super::vec52::{self, Mb8};
use core::arch::x86_64::*;

/// Whether [`ams_mb8_ks`] and [`amm_mb8_ks`] run `D` digits with column groups of `W`:
/// groups of 4 (the width the classes use where the halves are whole groups; one width
/// keeps the unrolled code, and its compile time, small), and halves that are whole
/// groups (8 divides `D`), so that the half products' column groups line up with the
/// product's.
pub(super) const fn ks_fits<const D: usize, const W: usize>() -> bool {
    W == 4 && super::mb8_columns::width_ok::<D, W>() && D.is_multiple_of(2 * W)
}

/// The clipped rows of a group at `k0 >= h` of the product of two `h`-digit numbers
/// (digits `$x(i)`, `$y(i)`), as `mb8_columns`'s `clipped_rows!`: row `r = k0 - h + 1 + t`,
/// `t < W - 1`, reaches columns `m <= t` (its pairs `(r, j)` have `j = h - 1 - t + m`).
macro_rules! clipped_half_rows {
    ($W:expr, $h:expr, $k0:expr, $x:expr, $y:expr, $acc:expr) => {{
        let (h, k0) = ($h, $k0);
        unroll!(t in 0..$W, max 4 => {
            if t + 1 < $W {
                let yr = $y(k0 - h + 1 + t);
                unroll!(m in 0..$W, max 4 => {
                    if m <= t {
                        mac($acc, m, $x(h - 1 - t + m), yr);
                    }
                });
            }
        });
    }};
}

/// Columns `[k0, k0 + W)` (`k0` a multiple of `W` below `2h`) of the square of the
/// `h`-digit number whose digit `i` is `$row(i)`: the cross products (`i < j`) undoubled
/// into `cx`, the diagonal into `dg`, each pair's low half into its column `m` and its
/// high half into `m + 1`. The rows are those of `mb8_columns::ams_mb8_ps` with `h` for `D`: in
/// the last group, rows from their diagonal to their clipped end; else the clipped rows
/// (above the middle), the full rows, and the rows starting at their diagonal in the
/// group. Every test is per group, none per pair.
macro_rules! half_square_columns {
    ($W:expr, $h:expr, $k0:expr, $row:expr, $cx:expr, $dg:expr) => {{
        let (h, k0) = ($h, $k0);
        // Row i from column `first` (its diagonal, at 2i - k0, if in the group) to `last`.
        macro_rules! from_diagonal {
            ($i:expr, $first:expr, $last:expr) => {{
                let (i, first, last) = ($i, $first, $last);
                let xi = $row(i);
                unroll!(m in 0..$W, max 4 => {
                    if m >= first && m <= last {
                        if k0 + m == 2 * i {
                            mac($dg, m, xi, xi);
                        } else {
                            mac($cx, m, $row(k0 + m - i), xi);
                        }
                    }
                });
            }};
        }
        if k0 + $W == 2 * h {
            unroll!(t in 0..$W, max 4 => {
                if t + 1 < $W {
                    let i = h - $W + 1 + t;
                    from_diagonal!(i, (2 * i).saturating_sub(k0), t);
                }
            });
        } else {
            if k0 >= h {
                clipped_half_rows!($W, h, k0, $row, $row, $cx);
            }
            for r in (k0 + $W).saturating_sub(h)..k0 / 2 {
                let xr = $row(r);
                unroll!(m in 0..$W, max 4 => {
                    mac($cx, m, $row(k0 + m - r), xr);
                });
            }
            unroll!(t in 0..$W, max 4 => {
                if 2 * t < $W {
                    from_diagonal!(k0 / 2 + t, 2 * t, $W - 1);
                }
            });
        }
    }};
}

/// The group at `c0` takes `U`'s columns `uv` (`U[c0..c0 + W]`) and `U[c0 - h..]`: it
/// adds both, and keeps `uv` for the group `h` columns on, in `u_low` (columns below `D`)
/// or `rest` (the `h` above).
macro_rules! keep_u {
    ($W:expr, $D:expr, $h:expr, $c0:expr, $acc:expr, $u_low:expr, $rest:expr, $uv:expr) => {{
        let (d, h, c0, uv) = ($D, $h, $c0, $uv);
        unroll!(m in 0..$W, max 4 => {
            $acc[m] = _mm512_add_epi64($acc[m], uv[m]);
        });
        if c0 < d {
            unroll!(m in 0..$W, max 4 => {
                vec52::set_row($u_low, c0 + m, uv[m]);
            });
        } else if c0 < d + h {
            unroll!(m in 0..$W, max 4 => {
                vec52::set_row($rest, c0 - d + m, uv[m]);
            });
        }
        if c0 >= h && c0 < d + h {
            unroll!(m in 0..$W, max 4 => {
                $acc[m] = _mm512_add_epi64($acc[m], vec52::row($u_low, c0 - h + m));
            });
        } else if c0 >= d + h {
            unroll!(m in 0..$W, max 4 => {
                $acc[m] = _mm512_add_epi64($acc[m], vec52::row($rest, c0 - h - d + m));
            });
        }
    }};
}

/// `d = |a0 - a1|` (`h = D / 2` normalised digits of `a = a0 + B^h a1`) into rows
/// `at..at + h` of `dst`; returns all ones in the lanes where `a0 < a1`. A borrow chain
/// makes `a0 - a1 + B^h [a0 < a1]` (borrows are 0 or -1), and the lanes that borrowed are
/// negated modulo `B^h` (complement and add one). Constant time.
#[inline]
#[target_feature(enable = "avx512f")]
fn half_difference<const D: usize>(a: &Mb8<D>, dst: &mut Mb8<D>, at: usize) -> __m512i {
    let h = D / 2;
    let zero = _mm512_setzero_si512();
    let mask = _mm512_set1_epi64(DIGIT_MASK as i64);
    let mut borrow = zero;
    for i in 0..h {
        let t = _mm512_add_epi64(_mm512_sub_epi64(vec52::row(a, i), vec52::row(a, h + i)), borrow);
        borrow = _mm512_srai_epi64::<52>(t);
        vec52::set_row(dst, at + i, _mm512_and_si512(t, mask));
    }
    let flip = _mm512_and_si512(borrow, mask);
    let mut carry = _mm512_srli_epi64::<63>(borrow);
    for i in 0..h {
        let t = _mm512_add_epi64(_mm512_xor_si512(vec52::row(dst, at + i), flip), carry);
        carry = _mm512_srli_epi64::<52>(t);
        vec52::set_row(dst, at + i, _mm512_and_si512(t, mask));
    }
    borrow
}

/// Columns `[k0, k0 + W)` (`k0` a multiple of `W` below `2h`) of the product of the
/// `h`-digit numbers whose digits are `$x(i)` and `$y(i)` into `acc`: the rows of
/// `mb8_columns::amm_mb8_ps` with `h` for `D` (full rows, then the triangle of rows starting in the
/// group below the middle; clipped rows, then full rows above it).
macro_rules! half_product_columns {
    ($W:expr, $h:expr, $k0:expr, $x:expr, $y:expr, $acc:expr) => {{
        let (h, k0) = ($h, $k0);
        let (first_full, end_full) = if k0 < h { (0, k0) } else { (k0 + $W - h, h) };
        if k0 >= h {
            clipped_half_rows!($W, h, k0, $x, $y, $acc);
        }
        for r in first_full..end_full {
            let yr = $y(r);
            unroll!(m in 0..$W, max 4 => {
                mac($acc, m, $x(k0 + m - r), yr);
            });
        }
        if k0 < h {
            unroll!(t in 0..$W, max 4 => {
                let yr = $y(k0 + t);
                unroll!(m in 0..$W, max 4 => {
                    if m >= t {
                        mac($acc, m, $x(m - t), yr);
                    }
                });
            });
        }
    }};
}

/// `amm(a, b)` of eight lanes by column groups of `W` with a Karatsuba product:
/// `ab = U + B^h (U - s T)` with `U = a0 b0 + B^h a1 b1`, `T = |a0 - a1| |b0 - b1|` and
/// `s` the sign of `(a0 - a1)(b0 - b1)`, lane by lane; contract as `mb8_columns::amm_mb8_ps`, for
/// `ks_fits::<D, W>()` (`y` and `scratch` receive secrets). `scratch` holds `U` as for
/// [`ams_mb8_ks`], then `|a0 - a1|` after `U` in `scratch[1]` and `|b0 - b1|` in
/// `scratch[2]`.
#[target_feature(enable = "avx512f,avx512ifma")]
#[allow(clippy::too_many_arguments)]
pub(super) fn amm_mb8_ks<const D: usize, const W: usize>(
    a: &Mb8<D>,
    b: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
    y: &mut Mb8<D>,
    scratch: &mut [Mb8<D>; 3],
) {
    assert!(ks_fits::<D, W>(), "internal error: no Karatsuba product for D and W");
    let h = D / 2;
    let zero = _mm512_setzero_si512();
    let [u_low, rest, db] = scratch;
    // Lanes where (a0 - a1)(b0 - b1) >= 0 subtract T: all ones there.
    let (sa, sb) = (half_difference(a, rest, h), half_difference(b, db, 0));
    let minus = _mm512_xor_si512(_mm512_xor_si512(sa, sb), _mm512_set1_epi64(-1));
    let (mut u_out, mut t_over) = (zero, zero);
    groups::<D, W>(
        n,
        k0,
        out,
        y,
        |acc, c0| {
            // U = a0 b0 + B^h a1 b1, columns c0..c0 + W: into the group, and kept.
            let mut u: Acc = [zero; _];
            u[0] = u_out;
            if c0 < D {
                half_product_columns!(W, h, c0, |i| vec52::row(a, i), |i| vec52::row(b, i), &mut u);
            }
            if c0 >= h && c0 < D + h {
                half_product_columns!(
                    W,
                    h,
                    c0 - h,
                    |i| vec52::row(a, h + i),
                    |i| vec52::row(b, h + i),
                    &mut u
                );
            }
            let uv: [__m512i; W] = core::array::from_fn(|m| u[m]);
            u_out = u[W];
            keep_u!(W, D, h, c0, acc, u_low, rest, uv);
            // -s T, columns c0 - h..c0 - h + W of |a0 - a1| |b0 - b1|: (T ^ minus) - minus
            // is -T where `minus` is all ones, T where it is zero.
            if c0 >= h && c0 < D + h {
                let mut t: Acc = [zero; _];
                t[0] = t_over;
                half_product_columns!(
                    W,
                    h,
                    c0 - h,
                    |i| vec52::row(rest, h + i),
                    |i| vec52::row(db, i),
                    &mut t
                );
                unroll!(m in 0..W, max 4 => {
                    let st = _mm512_sub_epi64(_mm512_xor_si512(t[m], minus), minus);
                    acc[m] = _mm512_add_epi64(acc[m], st);
                });
                t_over = t[W];
            }
        },
        || {},
    );
}

/// `ams(a) = amm(a, a)` of eight lanes by column groups of `W` with a Karatsuba square;
/// contract as `mb8_columns::ams_mb8_ps` (`y` and `scratch` receive secrets: the caller zeroizes
/// them when done), for `ks_fits::<D, W>()`. `scratch[0]` holds `U`'s columns below `D`,
/// `scratch[1]` the rest (`h` of them) and then `d`.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn ams_mb8_ks<const D: usize, const W: usize>(
    a: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
    y: &mut Mb8<D>,
    scratch: &mut [Mb8<D>; 3],
    side: impl FnMut(),
) {
    assert!(ks_fits::<D, W>(), "internal error: no Karatsuba squaring for D and W");
    let h = D / 2;
    let zero = _mm512_setzero_si512();
    let [u_low, rest, _] = scratch;
    half_difference(a, rest, h);
    let (mut ux_over, mut ud_over, mut tx_over, mut td_over) = (zero, zero, zero, zero);
    groups::<D, W>(
        n,
        k0,
        out,
        y,
        |acc, c0| {
            // U = S0 + B^h S1, columns c0..c0 + W: into the group, and kept.
            let (mut ux, mut ud): (Acc, Acc) = ([zero; _], [zero; _]);
            (ux[0], ud[0]) = (ux_over, ud_over);
            if c0 < D {
                half_square_columns!(W, h, c0, |i| vec52::row(a, i), &mut ux, &mut ud);
            }
            if c0 >= h && c0 < D + h {
                half_square_columns!(W, h, c0 - h, |i| vec52::row(a, h + i), &mut ux, &mut ud);
            }
            let uv: [__m512i; W] =
                core::array::from_fn(|m| _mm512_add_epi64(ud[m], _mm512_add_epi64(ux[m], ux[m])));
            (ux_over, ud_over) = (ux[W], ud[W]);
            keep_u!(W, D, h, c0, acc, u_low, rest, uv);
            // -T, columns c0 - h..c0 - h + W of d^2.
            if c0 >= h && c0 < D + h {
                let (mut tx, mut td): (Acc, Acc) = ([zero; _], [zero; _]);
                (tx[0], td[0]) = (tx_over, td_over);
                half_square_columns!(W, h, c0 - h, |i| vec52::row(rest, h + i), &mut tx, &mut td);
                unroll!(m in 0..W, max 4 => {
                    let t = _mm512_add_epi64(td[m], _mm512_add_epi64(tx[m], tx[m]));
                    acc[m] = _mm512_sub_epi64(acc[m], t);
                });
                (tx_over, td_over) = (tx[W], td[W]);
            }
        },
        side,
    );
}
