//! Toom-3 multiplication and squaring (Toom 1963, Cook 1966; GMP's `toom33`), with
//! Bodrato's interpolation sequence.
//!
//! Split into thirds of `k = ceil(n/3)` limbs, `x = B^k`: `a(x) = a2 x^2 + a1 x + a0`,
//! likewise `b(x)`, so `a·b = c(x)` with `c` of degree 4. Five point values determine `c`;
//! with the points `0, 1, -1, -2, ∞` (Bodrato and Zanoni, "Integer and polynomial
//! multiplication: towards optimal Toom-Cook matrices", ISSAC 2007):
//!
//! ```text
//! a(0) = a0    a(1) = a0 + a1 + a2    a(-1) = a0 - a1 + a2    a(-2) = a0 - 2a1 + 4a2
//! a(∞) = a2,   and v_p = a(p)·b(p) for each point: five products of about n/3 limbs
//! ```
//!
//! so `T(n) = 5 T(n/3) + O(n)`, `O(n^1.465)`. Bodrato's sequence recovers `c` with two
//! exact halvings, one exact division by 3 and a few additions:
//!
//! ```text
//! r3 = (v(-2) - v(1)) / 3     r1 = (v(1) - v(-1)) / 2     r2 = v(-1) - v(0)
//! r3 = (r2 - r3) / 2 + 2 v(∞) r2 = r2 + r1 - v(∞)         r1 = r1 - r3
//! c = v(∞) x^4 + r3 x^3 + r2 x^2 + r1 x + v(0)
//! ```
//!
//! Signs. `a(-1)` and `a(-2)` may be negative: they are evaluated as magnitude and sign
//! (the sign as a mask, never a branch), multiplied as magnitudes, and the products
//! negated under a mask. The interpolation then runs in two's complement on
//! `w = 2k + 2` limbs, where every intermediate value fits: the evaluations are below
//! `5 B^k` (so `k + 1` limbs), the products below `25 B^(2k)`, and all the intermediate
//! values of the sequence are below `64 B^(2k)` in absolute value, far inside the signed
//! range of `w` limbs. The exact division by 3 is a multiplication by `3^-1 mod 2^64` limb
//! by limb (Jebelean's exact division), which is right for negative values in two's
//! complement too; the halvings are arithmetic shifts. The final `r1, r2, r3` are the
//! true (non-negative) coefficients, each below `3 B^(2k)`.
//!
//! Scratch per level: `v(1), v(-1), v(-2)` (`2k + 2` limbs each), the evaluations
//! (`k + 1` limbs each) and two temporaries; sub-products use the rest.

use super::Basecase;
use super::linear::{cnd_neg, divexact_assign};
use super::recursive::Multiplier;
use crate::bignum::shift::{lshift, rshift_assign};
use crate::ct::Choice;
use crate::limb::{LIMB_BITS, Limb};

/// Scratch limbs a multiplication level with part size `k` needs for itself.
pub const fn mul_own_scratch(k: usize) -> usize {
    3 * (2 * k + 2) + 8 * (k + 1)
}

/// Scratch limbs a squaring level with part size `k` needs for itself.
pub const fn sqr_own_scratch(k: usize) -> usize {
    3 * (2 * k + 2) + 5 * (k + 1)
}

/// `r = a * b` for `a.len() = n >= m = b.len() > 2 ceil(n/3)`; `r.len() == n + m`.
pub fn mul<K: Basecase>(
    ctx: &Multiplier<'_, K>,
    r: &mut [Limb],
    a: &[Limb],
    b: &[Limb],
    s: &mut [Limb],
) {
    let (n, m) = (a.len(), b.len());
    let k = n.div_ceil(3);
    assert!(n >= m && m > 2 * k, "internal error: toom3 shape");
    let (v, s) = s.split_at_mut(3 * (2 * k + 2));
    let (ea, s) = s.split_at_mut(3 * (k + 1));
    let (eb, s) = s.split_at_mut(3 * (k + 1));
    let (tmp, s) = s.split_at_mut(2 * (k + 1));
    let kern = ctx.kernel;
    let (sa1, sa2) = evaluate(kern, a, k, ea, tmp);
    let (sb1, sb2) = evaluate(kern, b, k, eb, tmp);
    let (ea1, eam) = ea.split_at(k + 1);
    let (eam1, eam2) = eam.split_at(k + 1);
    let (eb1, ebm) = eb.split_at(k + 1);
    let (ebm1, ebm2) = ebm.split_at(k + 1);
    let (v1, vm) = v.split_at_mut(2 * k + 2);
    let (vm1, vm2) = vm.split_at_mut(2 * k + 2);
    ctx.mul(v1, ea1, eb1, s);
    ctx.mul(vm1, eam1, ebm1, s);
    cnd_neg(kern, Choice::from_bit(sa1 ^ sb1), vm1);
    ctx.mul(vm2, eam2, ebm2, s);
    cnd_neg(kern, Choice::from_bit(sa2 ^ sb2), vm2);
    {
        let (v0, rest) = r.split_at_mut(2 * k);
        ctx.mul(v0, &a[..k], &b[..k], s);
        ctx.mul(&mut rest[2 * k..], &a[2 * k..], &b[2 * k..], s);
    }
    interpolate(kern, r, v1, vm1, vm2, k);
}

/// `r = a^2` for `a.len() = n >= 3`; `r.len() == 2n`.
pub fn sqr<K: Basecase>(ctx: &Multiplier<'_, K>, r: &mut [Limb], a: &[Limb], s: &mut [Limb]) {
    let n = a.len();
    let k = n.div_ceil(3);
    assert!(n >= 3, "internal error: toom3 shape");
    let (v, s) = s.split_at_mut(3 * (2 * k + 2));
    let (ea, s) = s.split_at_mut(3 * (k + 1));
    let (tmp, s) = s.split_at_mut(2 * (k + 1));
    // Squares are non-negative: the signs of a(-1), a(-2) do not matter.
    evaluate(ctx.kernel, a, k, ea, tmp);
    let (ea1, eam) = ea.split_at(k + 1);
    let (eam1, eam2) = eam.split_at(k + 1);
    let (v1, vm) = v.split_at_mut(2 * k + 2);
    let (vm1, vm2) = vm.split_at_mut(2 * k + 2);
    ctx.sqr(v1, ea1, s);
    ctx.sqr(vm1, eam1, s);
    ctx.sqr(vm2, eam2, s);
    {
        let (v0, rest) = r.split_at_mut(2 * k);
        ctx.sqr(v0, &a[..k], s);
        ctx.sqr(&mut rest[2 * k..], &a[2 * k..], s);
    }
    interpolate(ctx.kernel, r, v1, vm1, vm2, k);
}

/// Writes `|x(1)|, |x(-1)|, |x(-2)|` (each `k + 1` limbs) into `e`, returning the signs of
/// `x(-1)` and `x(-2)` (1 for negative). `tmp` is `2(k + 1)` limbs.
fn evaluate<K: Basecase>(
    kern: &K,
    x: &[Limb],
    k: usize,
    e: &mut [Limb],
    tmp: &mut [Limb],
) -> (Limb, Limb) {
    let (x0, x12) = x.split_at(k);
    let (x1, x2) = x12.split_at(k);
    let (e1, em) = e.split_at_mut(k + 1);
    let (em1, em2) = em.split_at_mut(k + 1);
    let (t1, t2) = tmp.split_at_mut(k + 1);
    // t1 = x0 + x2 < 2 B^k.
    t1[..k].copy_from_slice(x0);
    t1[k] = 0;
    kern.add_1(t1, x2);
    // x(1) = t1 + x1 < 3 B^k; x(-1) = t1 - x1, |x(-1)| < 2 B^k.
    e1.copy_from_slice(t1);
    kern.add_1(e1, x1);
    let s1 = kern.abs_diff(em1, t1, x1);
    // x(-2) = (x0 + 4 x2) - 2 x1: both terms below 5 B^k.
    let l2 = x2.len();
    t1.fill(0);
    t1[l2] = lshift(&mut t1[..l2], x2, 2);
    kern.add_1(t1, x0);
    t2[k] = lshift(&mut t2[..k], x1, 1);
    let s2 = kern.abs_diff(em2, t1, t2);
    (s1, s2)
}

/// Bodrato's sequence on `w = 2k + 2`-limb two's complement values, then the
/// recomposition into `r`, which holds `v(0)` in `r[..2k]` and `v(∞)` in `r[4k..]`.
fn interpolate<K: Basecase>(
    kern: &K,
    r: &mut [Limb],
    v1: &mut [Limb],
    vm1: &mut [Limb],
    vm2: &mut [Limb],
    k: usize,
) {
    {
        let (v0, rest) = r.split_at(2 * k);
        let vinf = &rest[2 * k..];
        // r3 = (v(-2) - v(1)) / 3
        kern.sub_1(vm2, v1);
        divexact_assign(vm2, 3);
        // r1 = (v(1) - v(-1)) / 2
        kern.sub_1(v1, vm1);
        sar1_assign(v1);
        // r2 = v(-1) - v(0)
        kern.sub_1(vm1, v0);
        // r3 = (r2 - r3) / 2 + 2 v(∞)
        kern.sub_1(vm2, vm1);
        cnd_neg(kern, Choice::TRUE, vm2);
        sar1_assign(vm2);
        kern.add_1(vm2, vinf);
        kern.add_1(vm2, vinf);
        // r2 = r2 + r1 - v(∞)
        kern.add_1(vm1, v1);
        kern.sub_1(vm1, vinf);
        // r1 = r1 - r3
        kern.sub_1(v1, vm2);
    }
    // c = v(0) + r1 x + r2 x^2 + r3 x^3 + v(∞) x^4, with the gap [2k, 4k) cleared first.
    r[2 * k..4 * k].fill(0);
    for (coeff, off) in [(&*v1, k), (&*vm1, 2 * k), (&*vm2, 3 * k)] {
        // The product is below B^(n+m): limbs of a coefficient beyond r are zero.
        let len = coeff.len().min(r.len() - off);
        debug_assert!(coeff[len..].iter().all(|&x| x == 0), "internal error: toom3 coefficient");
        let carry = kern.add_1(&mut r[off..], &coeff[..len]);
        debug_assert_eq!(carry, 0, "internal error: toom3 carry");
    }
}

/// Arithmetic shift right by one bit of a two's complement value known to be even.
fn sar1_assign(v: &mut [Limb]) {
    let sign = v.last().map_or(0, |&t| t & (1 << (LIMB_BITS - 1)));
    rshift_assign(v, 1);
    if let Some(t) = v.last_mut() {
        *t |= sign;
    }
}
