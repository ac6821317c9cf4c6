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
//! Scratch per level: `t` (`2h + 1` limbs, whose front first holds the two differences)
//! and `zm` (`2h` limbs); sub-products use the rest.

use super::Basecase;
use super::recursive::Mul;
use crate::bignum::add::{abs_diff, add_1, add_or_sub_assign};
use crate::bignum::limb::Limb;
use crate::ct::Choice;

/// Scratch limbs a multiplication level with split `h` needs for itself.
pub const fn mul_own_scratch(h: usize) -> usize {
    4 * h + 1
}

/// Scratch limbs a squaring level with split `h` needs for itself.
pub const fn sqr_own_scratch(h: usize) -> usize {
    4 * h + 1
}

/// `r = a * b` for `a.len() = n >= m = b.len() > ceil(n/2)`; `r.len() == n + m`.
pub fn mul<K: Basecase>(ctx: &Mul<'_, K>, r: &mut [Limb], a: &[Limb], b: &[Limb], s: &mut [Limb]) {
    let (n, m) = (a.len(), b.len());
    let h = n.div_ceil(2);
    assert!(n >= m && m > h, "internal error: karatsuba shape");
    let (a0, a1) = a.split_at(h);
    let (b0, b1) = b.split_at(h);
    let (t, s) = s.split_at_mut(2 * h + 1);
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
pub fn sqr<K: Basecase>(ctx: &Mul<'_, K>, r: &mut [Limb], a: &[Limb], s: &mut [Limb]) {
    let n = a.len();
    let h = n.div_ceil(2);
    assert!(n >= 2, "internal error: karatsuba shape");
    let (a0, a1) = a.split_at(h);
    let (t, s) = s.split_at_mut(2 * h + 1);
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

/// `r += (z0 + z2 ± zm)·B^h`, with `z0 = r[..2h]`, `z2 = r[2h..]`, `zm` of `2h` limbs,
/// subtracting where `sub` is true; `t` is `2h + 1` limbs of scratch.
fn middle(r: &mut [Limb], t: &mut [Limb], zm: &[Limb], h: usize, sub: Choice) {
    let (z0, z2) = r.split_at(2 * h);
    t[..2 * h].copy_from_slice(z0);
    t[2 * h] = 0;
    // z0 + z2 < 2 B^(2h): no carry out of 2h + 1 limbs.
    add_1(t, z2);
    // Modulo B^(2h+1) the result is the true middle term, below 2 B^(2h).
    add_or_sub_assign(t, zm, sub);
    // r[h..] has n + m - h >= 2h limbs; a (2h+1)-th limb of t beyond r is zero.
    let len = t.len().min(r.len() - h);
    debug_assert!(t[len..].iter().all(|&x| x == 0), "internal error: karatsuba middle");
    let carry = add_1(&mut r[h..], &t[..len]);
    debug_assert_eq!(carry, 0, "internal error: karatsuba carry");
}
