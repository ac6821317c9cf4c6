//! Toom-4 multiplication and squaring (Toom 1963, Cook 1966; GMP's `toom44`), with
//! Bodrato's seven-point interpolation.
//!
//! Split into quarters of `k = ceil(n/4)` limbs, `x = B^k`: `a(x) = a3 x^3 + a2 x^2 +
//! a1 x + a0`, likewise `b`, so `a·b = c(x)` of degree 6. Seven values determine `c`; the
//! points are `0, 1, -1, 2, -2, 1/2, ∞` (Bodrato and Zanoni, "Integer and polynomial
//! multiplication: towards optimal Toom-Cook matrices", ISSAC 2007):
//!
//! ```text
//! W0 = c(0) = a0 b0            W2 = c(1)            W3 = c(-1)          W6 = c(∞) = a3 b3
//! W4 = c(2)                    W1 = c(-2)           W5 = 64 c(1/2) = (8a0 + 4a1 + 2a2 + a3)(8b0 + ...)
//! ```
//!
//! seven products of `k + 1` limbs against nine of `n/4` for two Karatsuba levels, so
//! `T(n) = 7 T(n/4) + O(n)`, `O(n^1.404)`. The coefficients come back by Bodrato's
//! sequence (as in GMP's `mpn_toom_interpolate_7pts`), on `w = 2k + 2`-limb two's
//! complement values:
//!
//! ```text
//! W5 = W5 + W4              W1 = (W4 - W1)/2          W4 = W4 - W0
//! W4 = (W4 - W1)/4 - 16 W6  W3 = (W2 - W3)/2          W2 = W2 - W3
//! W5 = W5 - 65 W2           W2 = W2 - W6 - W0         W5 = (W5 + 45 W2)/2
//! W4 = (W4 - W2)/3          W2 = W2 - W4              W1 = W5 - W1
//! W5 = (W5 - 8 W3)/9        W3 = W3 - W5              W1 = (W1/15 + W5)/2
//! W5 = W5 - W1              then c_i = W_i
//! ```
//!
//! The values halved or quartered are non-negative at that point (`c(2) - c(-2)` is twice
//! the odd part of `c(2)`, and so on), so the shifts are logical; the exact divisions by
//! 3, 9 and 15 are multiplications by the inverse modulo `B` limb by limb (Jebelean),
//! right for two's complement values too. A Python model of these steps on random
//! operands of every shape (`n >= m > 3k`) checked that `w` limbs hold every
//! intermediate and that each `c_i` (`1 <= i <= 5`) is below `B^(2k+1)`.
//!
//! Signs: `a(-1)`, `a(-2)` (and those of `b`) are evaluated as magnitude and sign mask;
//! `W1`, `W3` hold the products of the magnitudes and their sign enters the first step
//! that uses them as a masked negation. No branch depends on the values.
//!
//! Scratch per level: the ten evaluations (`k + 1` limbs each), `W1..W5` (`2k + 2` each)
//! and a `2k + 2`-limb temporary; sub-products use the rest.

use super::Basecase;
use super::basecase::{addmul_1, submul_1};
use super::linear::{cnd_neg, divexact_assign};
use super::recursive::Multiplier;
use crate::bignum::shift::{lshift, rshift_assign};
use crate::ct::Choice;
use crate::limb::Limb;

/// Scratch limbs a multiplication level with part size `k` needs for itself.
pub const fn mul_own_scratch(k: usize) -> usize {
    10 * (k + 1) + 6 * (2 * k + 2)
}

/// Scratch limbs a squaring level with part size `k` needs for itself.
pub const fn sqr_own_scratch(k: usize) -> usize {
    5 * (k + 1) + 6 * (2 * k + 2)
}

/// `r = a * b` for `a.len() = n >= m = b.len() > 3 ceil(n/4)`; `r.len() == n + m`.
pub fn mul<K: Basecase>(
    ctx: &Multiplier<'_, K>,
    r: &mut [Limb],
    a: &[Limb],
    b: &[Limb],
    s: &mut [Limb],
) {
    let (n, m) = (a.len(), b.len());
    let k = n.div_ceil(4);
    assert!(n >= m && m > 3 * k, "internal error: toom4 shape");
    let (ea, s) = s.split_at_mut(5 * (k + 1));
    let (eb, s) = s.split_at_mut(5 * (k + 1));
    let (w, s) = s.split_at_mut(5 * (2 * k + 2));
    let (tmp, s) = s.split_at_mut(2 * k + 2);
    let kern = ctx.kernel;
    let (sa1, sa2) = evaluate(kern, a, k, ea, tmp);
    let (sb1, sb2) = evaluate(kern, b, k, eb, tmp);
    {
        let mut ws = w.chunks_exact_mut(2 * k + 2);
        let mut eas = ea.chunks_exact(k + 1);
        let mut ebs = eb.chunks_exact(k + 1);
        // Evaluations are stored in the order 1, -1, 2, -2, 1/2; products go to W2, W3,
        // W4, W1, W5 (the order of `interpolate`'s arguments below).
        for _ in 0..5 {
            let (wi, x, y) = (ws.next(), eas.next(), ebs.next());
            if let (Some(wi), Some(x), Some(y)) = (wi, x, y) {
                mul_topped(ctx, wi, x, Some(y), s);
            }
        }
    }
    {
        let (v0, rest) = r.split_at_mut(2 * k);
        ctx.mul(v0, &a[..k], &b[..k], s);
        ctx.mul(&mut rest[4 * k..], &a[3 * k..], &b[3 * k..], s);
    }
    let (w2, rest) = w.split_at_mut(2 * k + 2);
    let (w3, rest) = rest.split_at_mut(2 * k + 2);
    let (w4, rest) = rest.split_at_mut(2 * k + 2);
    let (w1, w5) = rest.split_at_mut(2 * k + 2);
    let signs = (Choice::from_bit(sa2 ^ sb2), Choice::from_bit(sa1 ^ sb1));
    interpolate(kern, r, [w1, w2, w3, w4, w5], signs, k, tmp);
}

/// `r = a^2` for `a.len() = n >= 4`; `r.len() == 2n`.
pub fn sqr<K: Basecase>(ctx: &Multiplier<'_, K>, r: &mut [Limb], a: &[Limb], s: &mut [Limb]) {
    let n = a.len();
    let k = n.div_ceil(4);
    assert!(n > 3 * k, "internal error: toom4 shape");
    let (ea, s) = s.split_at_mut(5 * (k + 1));
    let (w, s) = s.split_at_mut(5 * (2 * k + 2));
    let (tmp, s) = s.split_at_mut(2 * k + 2);
    let kern = ctx.kernel;
    // Squares are non-negative: the signs of a(-1), a(-2) do not matter.
    evaluate(kern, a, k, ea, tmp);
    for (wi, x) in w.chunks_exact_mut(2 * k + 2).zip(ea.chunks_exact(k + 1)) {
        mul_topped(ctx, wi, x, None, s);
    }
    {
        let (v0, rest) = r.split_at_mut(2 * k);
        ctx.sqr(v0, &a[..k], s);
        ctx.sqr(&mut rest[4 * k..], &a[3 * k..], s);
    }
    let (w2, rest) = w.split_at_mut(2 * k + 2);
    let (w3, rest) = rest.split_at_mut(2 * k + 2);
    let (w4, rest) = rest.split_at_mut(2 * k + 2);
    let (w1, w5) = rest.split_at_mut(2 * k + 2);
    interpolate(kern, r, [w1, w2, w3, w4, w5], (Choice::FALSE, Choice::FALSE), k, tmp);
}

/// `w = x * y` (`x^2` when `y` is `None`) for `k + 1`-limb evaluations whose top limbs
/// are small (below 16), as a `k x k` product and two corrections, so that the recursion
/// below sees the part size `k` (whose halves are the sizes the basecase is unrolled
/// for) rather than `k + 1`: with `x = x' + t B^k`, `y = y' + u B^k`,
/// `x y = x' y' + (t y' + u x') B^k + t u B^(2k)`. `w` has `2k + 2` limbs.
fn mul_topped<K: Basecase>(
    ctx: &Multiplier<'_, K>,
    w: &mut [Limb],
    x: &[Limb],
    y: Option<&[Limb]>,
    s: &mut [Limb],
) {
    let k = x.len() - 1;
    let kern = ctx.kernel;
    let t = x[k];
    debug_assert!(t < 16, "internal error: toom4 evaluation top");
    let (lo, hi) = w.split_at_mut(2 * k);
    let top = match y {
        Some(y) => {
            let u = y[k];
            debug_assert!(u < 16, "internal error: toom4 evaluation top");
            ctx.mul(lo, &x[..k], &y[..k], s);
            let c1 = kern.addmul_1(&mut lo[k..], &y[..k], t);
            let c2 = kern.addmul_1(&mut lo[k..], &x[..k], u);
            t * u + c1 + c2
        }
        None => {
            ctx.sqr(lo, &x[..k], s);
            kern.addmul_1(&mut lo[k..], &x[..k], 2 * t) + t * t
        }
    };
    // Below 16·16 + 2·16: one limb.
    hi[0] = top;
    hi[1] = 0;
}

/// `d += s << sh` for `s` shorter than `d` (zero-extended), `0 < sh < 64`, with `t` (at
/// least `s.len() + 1` limbs) as the temporary; `d` holds the sum (checked in debug
/// builds).
fn add_shifted<K: Basecase + ?Sized>(
    kern: &K,
    d: &mut [Limb],
    s: &[Limb],
    sh: u32,
    t: &mut [Limb],
) {
    let l = s.len();
    let t = &mut t[..l + 1];
    t[l] = lshift(&mut t[..l], s, sh);
    let c = kern.add_1(d, t);
    debug_assert_eq!(c, 0, "internal error: toom4 evaluation overflow");
}

/// Writes `x(1), |x(-1)|, x(2), |x(-2)|, 8 x(1/2)` (each `k + 1` limbs, in that order)
/// into `e`, returning the signs of `x(-1)` and `x(-2)` (1 for negative). `tmp` is at
/// least `2k + 2` limbs.
fn evaluate<K: Basecase + ?Sized>(
    kern: &K,
    x: &[Limb],
    k: usize,
    e: &mut [Limb],
    tmp: &mut [Limb],
) -> (Limb, Limb) {
    let (x0, rest) = x.split_at(k);
    let (x1, rest) = rest.split_at(k);
    let (x2, x3) = rest.split_at(k);
    let (e1, rest) = e.split_at_mut(k + 1);
    let (em1, rest) = rest.split_at_mut(k + 1);
    let (e2, rest) = rest.split_at_mut(k + 1);
    let (em2, eh) = rest.split_at_mut(k + 1);
    let (t1, rest) = tmp.split_at_mut(k + 1);
    let t2 = &mut rest[..k + 1];
    // x(±1) = (x0 + x2) ± (x1 + x3): both sums below 2 B^k.
    t1[..k].copy_from_slice(x0);
    t1[k] = 0;
    kern.add_1(t1, x2);
    t2[..k].copy_from_slice(x1);
    t2[k] = 0;
    kern.add_1(t2, x3);
    kern.add_n(e1, t1, t2, 0);
    let s1 = kern.abs_diff(em1, t1, t2);
    // x(±2) = (x0 + 4 x2) ± (2 x1 + 8 x3): below 5 B^k and 10 B^k. `em2` is the
    // shift temporary until its own value is written.
    t1[..k].copy_from_slice(x0);
    t1[k] = 0;
    add_shifted(kern, t1, x2, 2, em2);
    t2.fill(0);
    add_shifted(kern, t2, x1, 1, em2);
    add_shifted(kern, t2, x3, 3, em2);
    kern.add_n(e2, t1, t2, 0);
    let s2 = kern.abs_diff(em2, t1, t2);
    // 8 x(1/2) = 8 x0 + 4 x1 + 2 x2 + x3, below 15 B^k (`t1` as the shift temporary).
    eh.fill(0);
    add_shifted(kern, eh, x0, 3, t1);
    add_shifted(kern, eh, x1, 2, t1);
    add_shifted(kern, eh, x2, 1, t1);
    kern.add_1(eh, x3);
    (s1, s2)
}

/// Bodrato's sequence (module docs) on `w = 2k + 2`-limb values `W1..W5` (`W1 = |c(-2)|`
/// and `W3 = |c(-1)|` with the sign masks `signs = (sign of W1, sign of W3)`), then the
/// recomposition into `r`, which holds `W0 = c(0)` in `r[..2k]` and `W6 = c(∞)` in
/// `r[6k..]`. `tmp` has `2k + 2` limbs.
fn interpolate<K: Basecase + ?Sized>(
    kern: &K,
    r: &mut [Limb],
    w: [&mut [Limb]; 5],
    signs: (Choice, Choice),
    k: usize,
    tmp: &mut [Limb],
) {
    let [w1, w2, w3, w4, w5] = w;
    {
        let (w0, rest) = r.split_at(2 * k);
        let w6 = &rest[4 * k..];
        // W5 = W5 + W4
        kern.add_n_assign(w5, w4, 0);
        // W1 = (W4 - c(-2))/2: c(-2) = ±W1, so negate W1 unless c(-2) < 0, then add W4.
        cnd_neg(kern, !signs.0, w1);
        kern.add_n_assign(w1, w4, 0);
        rshift_assign(w1, 1);
        // W4 = (W4 - W0 - W1)/4 - 16 W6
        kern.sub_1(w4, w0);
        let b = kern.sub_n_assign(w4, w1, 0);
        debug_assert_eq!(b, 0, "internal error: toom4 W4");
        rshift_assign(w4, 2);
        let l6 = w6.len();
        tmp[l6] = lshift(&mut tmp[..l6], w6, 4);
        kern.sub_1(w4, &tmp[..l6 + 1]);
        // W3 = (W2 - c(-1))/2, W2 = W2 - W3
        cnd_neg(kern, !signs.1, w3);
        kern.add_n_assign(w3, w2, 0);
        rshift_assign(w3, 1);
        kern.sub_n_assign(w2, w3, 0);
        // W5 = (W5 - 65 W2 + 45 (W2 - W6 - W0))/2, W2 = W2 - W6 - W0
        submul_1(w5, w2, 65);
        kern.sub_1(w2, w6);
        kern.sub_1(w2, w0);
        addmul_1(w5, w2, 45);
        rshift_assign(w5, 1);
        // W4 = (W4 - W2)/3, W2 = W2 - W4
        kern.sub_n_assign(w4, w2, 0);
        divexact_assign(w4, 3);
        kern.sub_n_assign(w2, w4, 0);
        // W1 = W5 - W1
        cnd_neg(kern, Choice::TRUE, w1);
        kern.add_n_assign(w1, w5, 0);
        // W5 = (W5 - 8 W3)/9, W3 = W3 - W5
        tmp[2 * k + 1] = 0;
        lshift(&mut tmp[..2 * k + 2], w3, 3);
        kern.sub_n_assign(w5, &tmp[..2 * k + 2], 0);
        divexact_assign(w5, 9);
        kern.sub_n_assign(w3, w5, 0);
        // W1 = (W1/15 + W5)/2, W5 = W5 - W1
        divexact_assign(w1, 15);
        kern.add_n_assign(w1, w5, 0);
        rshift_assign(w1, 1);
        kern.sub_n_assign(w5, w1, 0);
    }
    // c = W0 + W1 x + ... + W6 x^6, with the gap [2k, 6k) cleared first. Each W_i is
    // added over its own 2k + 2 limbs (or what is left of r), its carry out kept; one
    // pass then takes those carries from the end of each span to the top.
    r[2 * k..6 * k].fill(0);
    let len = r.len();
    let mut carries = [(0usize, 0 as Limb); 5];
    for (i, (coeff, off)) in [(&*w1, k), (&*w2, 2 * k), (&*w3, 3 * k), (&*w4, 4 * k), (&*w5, 5 * k)]
        .into_iter()
        .enumerate()
    {
        // The product is below B^(n+m): limbs of a coefficient beyond r are zero.
        let l = coeff.len().min(len - off);
        debug_assert!(coeff[l..].iter().all(|&x| x == 0), "internal error: toom4 coefficient");
        carries[i] = (off + l, kern.add_n_assign(&mut r[off..off + l], &coeff[..l], 0));
    }
    let c = add_carries(kern, r, &carries);
    debug_assert_eq!(c, 0, "internal error: toom4 carry");
}

/// Adds each carry `c` at its position `p` (`(p, c)` in increasing `p`, `p <= r.len()`;
/// a carry at `r.len()` must be 0) in one pass from the first position to the top of
/// `r`; returns the carry out of the top. Constant time: the segment boundaries are
/// public.
fn add_carries<K: Basecase + ?Sized>(kern: &K, r: &mut [Limb], carries: &[(usize, Limb)]) -> Limb {
    let mut carry = 0;
    for (i, &(p, c)) in carries.iter().enumerate() {
        let end = carries.get(i + 1).map_or(r.len(), |&(q, _)| q);
        debug_assert!(p <= end, "internal error: add_carries order");
        match r[p..end].split_first_mut() {
            None => carry += c,
            Some((first, rest)) => {
                let (s, o1) = first.overflowing_add(c);
                let (s, o2) = s.overflowing_add(carry);
                *first = s;
                carry = kern.add_repeated(rest, 0, (o1 | o2) as Limb);
            }
        }
    }
    carry
}
