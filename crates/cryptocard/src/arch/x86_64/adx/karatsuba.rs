//! One Karatsuba level over the unrolled kernels, for the sizes where the generic
//! recursion's bookkeeping costs more than the level saves: the 48- and 64-limb
//! Montgomery chains (`almost_chain`) and 32-limb products through the bignum seam
//! (`basecase`). The same formula as `bignum::mul::karatsuba`, with every pass on the
//! carry chains of `linear` and no length dispatch.

use super::linear;
use crate::arch::x86_64::cpu::Adx;
use crate::limb::Limb;

/// `|a0 - a1|` of the halves of `a` (length `2H`) into `d`, returning the sign (1 when
/// `a1 > a0`), on the `adc`/`sbb` chains of `linear`.
fn half_diff<const H: usize>(adx: Adx, d: &mut [Limb], a: &[Limb]) -> Limb {
    let (a0, a1) = a.split_at(H);
    linear::abs_diff(adx, d, a0, a1)
}

/// `s[0..2K) = a * b` (or `a^2` when `b` is `None`) for `K = 2H` by one Karatsuba level
/// over the unrolled `H`-limb kernels (`bignum::mul::karatsuba` with the asm middle
/// term); `t` is `4H` limbs of scratch.
pub(crate) fn karatsuba_product<const H: usize>(
    adx: Adx,
    s: &mut [Limb],
    a: &[Limb],
    b: Option<&[Limb]>,
    t: &mut [Limb],
) {
    let (d, t) = t.split_at_mut(H);
    let (e, zm) = t.split_at_mut(H);
    let zm = &mut zm[..2 * H];
    let (z0, z2) = s[..4 * H].split_at_mut(2 * H);
    let (a0, a1) = a.split_at(H);
    let sub = match b {
        None => {
            super::sqr::sqr_unrolled::<H>(adx, z0, a0);
            super::sqr::sqr_unrolled::<H>(adx, z2, a1);
            half_diff::<H>(adx, d, a);
            super::sqr::sqr_unrolled::<H>(adx, zm, d);
            !0
        }
        Some(b) => {
            let (b0, b1) = b.split_at(H);
            super::mul::mul_unrolled::<H>(adx, z0, a0, b0);
            super::mul::mul_unrolled::<H>(adx, z2, a1, b1);
            let sa = half_diff::<H>(adx, d, a);
            let sb = half_diff::<H>(adx, e, b);
            super::mul::mul_unrolled::<H>(adx, zm, d, e);
            (1 ^ sa ^ sb).wrapping_neg()
        }
    };
    for x in zm.iter_mut() {
        *x ^= sub;
    }
    linear::karatsuba_middle(adx, &mut s[..4 * H], zm, H, sub);
}
