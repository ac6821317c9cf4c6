//! Masked addition and subtraction of limb slices (GMP's `mpn_cnd_add_n`,
//! `mpn_cnd_sub_n`), absolute differences, and the masked add-or-subtract of Karatsuba's
//! middle term. The plain carry chains (`add_n`, `sub_n`, `add_1`, `sub_1`, `add_limb`,
//! `sub_limb`) are in `crate::limb`, below the CPU kernels that use them too; this module
//! re-exports them.
//!
//! These run in time that depends only on the slice lengths, so they serve constant-time
//! code too. Outputs may not alias inputs (Rust's borrow rules enforce it); in-place
//! updates are the forms that take one `&mut` slice (`cnd_*`, `add_or_sub_assign`).
//!
//! Carry bound: every carry and borrow here is 0 or 1, because
//! (2^64 - 1) + (2^64 - 1) + 1 = 2^65 - 1 < 2^65; the loops carry it as a `bool`
//! ([`adc_bit`], [`sbb_bit`]), the form that compiles to one `adc`/`sbb` per limb.

use crate::ct::Choice;
use crate::limb::{Limb, adc_bit, sbb_bit, sub_n};

/// Where `c` is true, `a += b` (`a.len() == b.len()`), returning the carry (0 or 1, and
/// always 0 where `c` is false). Constant time: `b` is masked, never branched on.
#[inline]
pub fn cnd_add_n(c: Choice, a: &mut [Limb], b: &[Limb]) -> Limb {
    assert_eq!(a.len(), b.len(), "internal error: cnd_add_n lengths");
    let m = c.mask();
    let mut carry = false;
    for (a, &b) in a.iter_mut().zip(b) {
        (*a, carry) = adc_bit(*a, b & m, carry);
    }
    carry as Limb
}

/// Where `c` is true, `a -= b` (`a.len() == b.len()`), returning the borrow (0 or 1, and
/// always 0 where `c` is false). Constant time.
#[inline]
pub fn cnd_sub_n(c: Choice, a: &mut [Limb], b: &[Limb]) -> Limb {
    assert_eq!(a.len(), b.len(), "internal error: cnd_sub_n lengths");
    let m = c.mask();
    let mut borrow = false;
    for (a, &b) in a.iter_mut().zip(b) {
        (*a, borrow) = sbb_bit(*a, b & m, borrow);
    }
    borrow as Limb
}

/// Where `c` is true, `a = -a mod 2^(64 a.len())` (two's complement negation: complement,
/// then add one). Constant time. Turns the result of a borrowing subtraction `x - y`
/// into `|x - y|` when `c` is the borrow.
#[inline]
pub fn cnd_neg_assign(c: Choice, a: &mut [Limb]) {
    let m = c.mask();
    let mut carry = c.bit() != 0;
    for a in a.iter_mut() {
        (*a, carry) = adc_bit(*a ^ m, 0, carry);
    }
}

/// `r = |a - b|`, returning 1 if `a < b` (the sign of `a - b`), else 0.
/// `r.len() == a.len() >= b.len()`; `b` is zero-extended. Constant time: the subtraction
/// is always done, then negated under a mask (the sign is data, not a branch).
#[inline]
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))] // public in `crate::hazmat`
pub fn abs_diff(r: &mut [Limb], a: &[Limb], b: &[Limb]) -> Limb {
    assert!(r.len() == a.len() && a.len() >= b.len(), "internal error: abs_diff lengths");
    let k = b.len();
    let mut borrow = sub_n(&mut r[..k], &a[..k], b) != 0;
    for (r, &a) in r[k..].iter_mut().zip(&a[k..]) {
        (*r, borrow) = sbb_bit(a, 0, borrow);
    }
    cnd_neg_assign(Choice::from_bit(borrow as Limb), r);
    borrow as Limb
}

/// `a = a - b` where `sub` is true, `a = a + b` where it is false, modulo
/// `2^(64 a.len())` (`a.len() >= b.len()`, `b` zero-extended). Constant time: it adds the
/// two's complement `!b + 1` under a mask. Used where the sign of a middle term is data
/// (Karatsuba, Toom-3).
#[inline]
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))] // public in `crate::hazmat`
pub fn add_or_sub_assign(a: &mut [Limb], b: &[Limb], sub: Choice) {
    assert!(a.len() >= b.len(), "internal error: add_or_sub_assign lengths");
    let m = sub.mask();
    let mut carry = sub.bit() != 0;
    let (lo, hi) = a.split_at_mut(b.len());
    for (a, &b) in lo.iter_mut().zip(b) {
        (*a, carry) = adc_bit(*a, b ^ m, carry);
    }
    for a in hi {
        (*a, carry) = adc_bit(*a, m, carry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditional_forms() {
        let mut a = [5, 1];
        assert_eq!(cnd_add_n(Choice::FALSE, &mut a, &[!0, !0]), 0);
        assert_eq!(a, [5, 1]);
        assert_eq!(cnd_add_n(Choice::TRUE, &mut a, &[!0, !0]), 1);
        assert_eq!(a, [4, 1]);
        assert_eq!(cnd_sub_n(Choice::FALSE, &mut a, &[5, 1]), 0);
        assert_eq!(a, [4, 1]);
        assert_eq!(cnd_sub_n(Choice::TRUE, &mut a, &[5, 1]), 1);
        assert_eq!(a, [!0, !0]);

        let mut a = [0, 0];
        cnd_neg_assign(Choice::TRUE, &mut a);
        assert_eq!(a, [0, 0]);
        let mut a = [1, 0];
        cnd_neg_assign(Choice::TRUE, &mut a);
        assert_eq!(a, [!0, !0]);
        cnd_neg_assign(Choice::FALSE, &mut a);
        assert_eq!(a, [!0, !0]);

        let mut r = [0; 2];
        assert_eq!(abs_diff(&mut r, &[3, 0], &[0, 1]), 1);
        assert_eq!(r, [!0 - 2, 0]);
        assert_eq!(abs_diff(&mut r, &[0, 1], &[3, 0]), 0);
        assert_eq!(r, [!0 - 2, 0]);
        assert_eq!(abs_diff(&mut r, &[0, 1], &[3]), 0);
        assert_eq!(r, [!0 - 2, 0]);
        assert_eq!(abs_diff(&mut r, &[2, 0], &[3]), 1);
        assert_eq!(r, [1, 0]);

        let mut a = [5, 0, 0];
        add_or_sub_assign(&mut a, &[7, 1], Choice::TRUE);
        assert_eq!(a, [!0 - 1, !0 - 1, !0]); // 5 - (2^64 + 7) mod 2^192
        add_or_sub_assign(&mut a, &[7, 1], Choice::FALSE);
        assert_eq!(a, [5, 0, 0]);
    }
}
