//! Karatsuba multiplication and squaring (Karatsuba and Ofman, 1962; GMP's `toom22`).
//!
//! Split at `h = ceil(n/2)` limbs, `x = B^h`: `a = a1·x + a0`, `b = b1·x + b0`. Then
//!
//! ```text
//! a·b = z2·x^2 + (z0 + z2 - (a0 - a1)(b0 - b1))·x + z0,   z0 = a0·b0,  z2 = a1·b1
//! ```
//!
//! three half-size products instead of four, so `T(n) = 3 T(n/2) + O(n)`, `O(n^1.585)`.
//! This is the *subtractive* form: `|a0 - a1|` and `|b0 - b1|` fit in `h` limbs (an
//! additive `a0 + a1` would need `h + 1`), and the sign of their product is carried as a
//! mask, so no branch depends on the values.
//!
//! Bounds. `a0, b0 < B^h`, `a1 < B^(n-h)`, `b1 < B^(m-h)`, `n - h <= h`, `m - h <= h`:
//! * `z0` fills `2h` limbs, `z2` fills `n + m - 2h <= 2h` limbs: they are written side by
//!   side into `r`, and `z0 + z2 < 2 B^(2h)` fits in `2h + 1` limbs.
//! * the middle term `z0 + z2 - (a0 - a1)(b0 - b1) = a0·b1 + a1·b0 < 2 B^(2h)`: computed
//!   modulo `B^(2h+1)` it is exact, with top limb 0 or 1, whatever the sign in between.
//! * adding it at offset `h` cannot carry out of `r`: the sum is `a·b < B^(n+m)`.
//!
//! Markovic, Unkasevic and Djordjevic ("RSA algorithm optimization on assembler of TI
//! TMS320C54x", tables 1-3) find Karatsuba-Ofman paying from about 512 bits for
//! multiplication and 1024 bits for squaring on the DSP; on Zen 4 with our `u128`
//! basecase the cut-overs are in [`super::thresholds::PORTABLE`].
//!
//! Scratch per level: `t` (`2h` limbs: first the two differences, then a copy of
//! `z0`'s high half) and `zm` (`2h` limbs); sub-products use the rest.

use super::Basecase;
use super::recursive::Multiplier;
use crate::bignum::add::{abs_diff, add_limb};
use crate::bignum::limb::{LIMB_BITS, Limb, WideLimb};
use crate::ct::Choice;

/// Scratch limbs a multiplication level with split `h` needs for itself.
pub const fn mul_own_scratch(h: usize) -> usize {
    4 * h
}

/// Scratch limbs a squaring level with split `h` needs for itself.
pub const fn sqr_own_scratch(h: usize) -> usize {
    4 * h
}

/// `r = a * b` for `a.len() = n >= m = b.len() > ceil(n/2)`; `r.len() == n + m`.
pub fn mul<K: Basecase>(
    ctx: &Multiplier<'_, K>,
    r: &mut [Limb],
    a: &[Limb],
    b: &[Limb],
    s: &mut [Limb],
) {
    let (n, m) = (a.len(), b.len());
    let h = n.div_ceil(2);
    assert!(n >= m && m > h, "internal error: karatsuba shape");
    let (a0, a1) = a.split_at(h);
    let (b0, b1) = b.split_at(h);
    let (t, s) = s.split_at_mut(2 * h);
    let (zm, s) = s.split_at_mut(2 * h);

    // z0 and z2, side by side in r.
    {
        let (z0, z2) = r.split_at_mut(2 * h);
        ctx.mul(z0, a0, b0, s);
        ctx.mul(z2, a1, b1, s);
    }
    // zm = |a0 - a1|·|b0 - b1|; the product (a0 - a1)(b0 - b1) is negative when exactly
    // one difference is.
    let (da, db) = t[..2 * h].split_at_mut(h);
    let sa = abs_diff(da, a0, a1);
    let sb = abs_diff(db, b0, b1);
    ctx.mul(zm, da, db, s);

    // t = z0 + z2 - (a0 - a1)(b0 - b1): subtract zm when the product is non-negative.
    middle(r, t, zm, h, Choice::from_bit(1 ^ sa ^ sb));
}

/// `r = a^2`, `r.len() == 2 * a.len()`, `a.len() >= 2`.
pub fn sqr<K: Basecase>(ctx: &Multiplier<'_, K>, r: &mut [Limb], a: &[Limb], s: &mut [Limb]) {
    let n = a.len();
    let h = n.div_ceil(2);
    assert!(n >= 2, "internal error: karatsuba shape");
    let (a0, a1) = a.split_at(h);
    let (t, s) = s.split_at_mut(2 * h);
    let (zm, s) = s.split_at_mut(2 * h);
    {
        let (z0, z2) = r.split_at_mut(2 * h);
        ctx.sqr(z0, a0, s);
        ctx.sqr(z2, a1, s);
    }
    let da = &mut t[..h];
    abs_diff(da, a0, a1);
    ctx.sqr(zm, da, s);
    // (a0 - a1)^2 >= 0: always subtracted.
    middle(r, t, zm, h, Choice::TRUE);
}

/// `r += (z0 + z2 ± zm)·B^h` in one pass, subtracting `zm` where `sub` is true, with
/// `z0 = r[..2h]` and `z2 = r[2h..]` in place and `t` (at least `h` limbs) as scratch.
///
/// Write `z0 = H0·B^h + L0` and `z2 = H2·B^h + L2` in `h`-limb halves (`H2` may be
/// shorter). The middle term lands on `r[h..2h] = H0` and `r[2h..3h] = L2`, so
///
/// ```text
/// r[h..2h]  = H0 + L0 + L2 ± zm_lo
/// r[2h..3h] = L2 + H0 + H2 ± zm_hi     (H0 as it was before the first line)
/// ```
///
/// then the carry goes into `H2`. The subtraction is the masked two's complement
/// `!zm + 1`, which adds `B^(2h)` too much; that is taken back from the final carry. Each
/// step adds five limbs, so the carry between steps is at most 4.
fn middle(r: &mut [Limb], t: &mut [Limb], zm: &[Limb], h: usize, sub: Choice) {
    let (l0, rest) = r.split_at_mut(h);
    let (h0, rest) = rest.split_at_mut(h);
    let (l2, h2) = rest.split_at_mut(h);
    let h0_old = &mut t[..h];
    h0_old.copy_from_slice(h0);
    let (zm_lo, zm_hi) = zm.split_at(h);
    let m = sub.mask();
    let mut c = sub.bit() as WideLimb;
    for (((x, &y), &z), &w) in h0.iter_mut().zip(&*l0).zip(&*l2).zip(zm_lo) {
        let s = *x as WideLimb + y as WideLimb + z as WideLimb + (w ^ m) as WideLimb + c;
        *x = s as Limb;
        c = s >> LIMB_BITS;
    }
    let k = h2.len().min(h);
    for (((x, &y), &z), &w) in l2[..k].iter_mut().zip(&*h0_old).zip(&*h2).zip(zm_hi) {
        let s = *x as WideLimb + y as WideLimb + z as WideLimb + (w ^ m) as WideLimb + c;
        *x = s as Limb;
        c = s >> LIMB_BITS;
    }
    for ((x, &y), &w) in l2[k..].iter_mut().zip(&h0_old[k..]).zip(&zm_hi[k..]) {
        let s = *x as WideLimb + y as WideLimb + (w ^ m) as WideLimb + c;
        *x = s as Limb;
        c = s >> LIMB_BITS;
    }
    // The true carry is c - sub >= 0: the whole sum is a·b, non-negative and below
    // B^(n+m), so nothing is left over after H2.
    let carry = add_limb(h2, (c as Limb).wrapping_sub(sub.bit()));
    debug_assert_eq!(carry, 0, "internal error: karatsuba carry");
}
