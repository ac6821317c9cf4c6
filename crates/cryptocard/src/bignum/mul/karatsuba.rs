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
//! multiplication and 1024 bits for squaring on the DSP; with our `u128` basecase the
//! cut-overs are in [`super::thresholds::PORTABLE`].
//!
//! Scratch per level: `t` (`2h` limbs, the two differences) and `zm` (`2h` limbs);
//! sub-products use the rest. The additions run on the kernel set's carry chains
//! (`Basecase::add_n` and friends, see `linear`).

use super::Basecase;
use super::linear::{add_or_sub, add_small};
use super::recursive::Multiplier;
use crate::ct::Choice;
use crate::limb::Limb;

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
    let sa = ctx.kernel.abs_diff(da, a0, a1);
    let sb = ctx.kernel.abs_diff(db, b0, b1);
    ctx.mul(zm, da, db, s);

    // z0 + z2 - (a0 - a1)(b0 - b1): subtract zm when the product is non-negative.
    ctx.kernel.karatsuba_middle(r, zm, h, Choice::from_bit(1 ^ sa ^ sb));
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
    ctx.kernel.abs_diff(da, a0, a1);
    ctx.sqr(zm, da, s);
    // (a0 - a1)^2 >= 0: always subtracted.
    ctx.kernel.karatsuba_middle(r, zm, h, Choice::TRUE);
}

/// `r += (z0 + z2 ± zm)·B^h`, subtracting `zm` where `sub` is true, with `z0 = r[..2h]`
/// and `z2 = r[2h..]` in place; `zm` (`2h` limbs, scratch) is destroyed.
///
/// Write `z0 = H0·B^h + L0` and `z2 = H2·B^h + L2` in `h`-limb halves (`H2` may be
/// shorter, `n + m >= 3h` always). With `S = H0 + L2 = S' + c1·B^h` (GMP's `toom22`
/// sharing of the common sum),
///
/// ```text
/// r = L0 + (S + L0)·B^h + (S + H2)·B^(2h) + H2·B^(3h) ± zm·B^h
///   = L0 + (S' + L0)·B^h + (S' + H2)·B^(2h) + H2·B^(3h) + c1·(B^(2h) + B^(3h)) ± zm·B^h
/// ```
///
/// so: `r[2h..3h] = S'` (carry `c1`), `r[h..2h] = S' + L0` (carry `c2` at `2h`),
/// `r[2h..3h] += H2` (carry `c3` at `3h`), `±zm` over `r[h..]` (sign-extended: two's
/// complement modulo `B^(n+m)`), then `c1 + c2` at `2h` and `c1 + c3` at `3h`. Every step
/// is an exact operation modulo `B^(n+m)`, and the true result `a·b` is below `B^(n+m)`,
/// so the carries out of the top are dropped. About `9h` limb steps on the kernel's
/// carry chains.
pub(super) fn middle<K: Basecase + ?Sized>(
    k: &K,
    r: &mut [Limb],
    zm: &mut [Limb],
    h: usize,
    sub: Choice,
) {
    let (c1, c2, c3) = {
        let (l0, rest) = r.split_at_mut(h);
        let (h0, rest) = rest.split_at_mut(h);
        let (l2, h2) = rest.split_at_mut(h);
        let c1 = k.add_n_assign(l2, h0, 0);
        let c2 = k.add_n(h0, l2, l0, 0);
        let c3 = k.add_1(l2, h2);
        (c1, c2, c3)
    };
    add_or_sub(k, &mut r[h..], zm, sub);
    add_small(k, &mut r[2 * h..], c1 + c2);
    add_small(k, &mut r[3 * h..], c1 + c3);
}
