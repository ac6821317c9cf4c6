//! Addition and subtraction of limb slices (GMP's `mpn_add_n`, `mpn_sub_n`, `mpn_add_1`,
//! `mpn_sub_1`).
//!
//! These run in time that depends only on the slice lengths, so they serve constant-time
//! code too. Outputs may not alias inputs (Rust's borrow rules enforce it); for in-place
//! updates use the `*_assign` forms.

use super::limb::{adc, sbb, Limb};

/// `r = a + b` over `a.len()` limbs, returning the carry (0 or 1).
/// `r`, `a` and `b` have the same length.
#[inline]
pub fn add_n(r: &mut [Limb], a: &[Limb], b: &[Limb]) -> Limb {
    assert!(r.len() == a.len() && a.len() == b.len(), "internal error: add_n lengths");
    let mut carry = 0;
    for ((r, &a), &b) in r.iter_mut().zip(a).zip(b) {
        (*r, carry) = adc(a, b, carry);
    }
    carry
}

/// `r = a - b` over `a.len()` limbs, returning the borrow (0 or 1).
/// `r`, `a` and `b` have the same length.
#[inline]
pub fn sub_n(r: &mut [Limb], a: &[Limb], b: &[Limb]) -> Limb {
    assert!(r.len() == a.len() && a.len() == b.len(), "internal error: sub_n lengths");
    let mut borrow = 0;
    for ((r, &a), &b) in r.iter_mut().zip(a).zip(b) {
        (*r, borrow) = sbb(a, b, borrow);
    }
    borrow
}

/// `a += b` in place over `b.len()` limbs of `a` (`a.len() >= b.len()`), propagating the
/// carry through the rest of `a`; returns the final carry (0 or 1).
/// Time depends on the lengths only.
#[inline]
pub fn add_1(a: &mut [Limb], b: &[Limb]) -> Limb {
    assert!(a.len() >= b.len(), "internal error: add_1 lengths");
    let mut carry = 0;
    let (lo, hi) = a.split_at_mut(b.len());
    for (a, &b) in lo.iter_mut().zip(b) {
        (*a, carry) = adc(*a, b, carry);
    }
    for a in hi {
        (*a, carry) = adc(*a, 0, carry);
    }
    carry
}

/// `a -= b` in place over `b.len()` limbs of `a` (`a.len() >= b.len()`), propagating the
/// borrow through the rest of `a`; returns the final borrow (0 or 1).
/// Time depends on the lengths only.
#[inline]
pub fn sub_1(a: &mut [Limb], b: &[Limb]) -> Limb {
    assert!(a.len() >= b.len(), "internal error: sub_1 lengths");
    let mut borrow = 0;
    let (lo, hi) = a.split_at_mut(b.len());
    for (a, &b) in lo.iter_mut().zip(b) {
        (*a, borrow) = sbb(*a, b, borrow);
    }
    for a in hi {
        (*a, borrow) = sbb(*a, 0, borrow);
    }
    borrow
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carry_and_borrow_ripple() {
        let mut r = [0; 3];
        assert_eq!(add_n(&mut r, &[!0, !0, 1], &[1, 0, 0]), 0);
        assert_eq!(r, [0, 0, 2]);
        assert_eq!(add_n(&mut r, &[!0, !0, !0], &[1, 0, 0]), 1);
        assert_eq!(r, [0, 0, 0]);
        assert_eq!(sub_n(&mut r, &[0, 0, 0], &[1, 0, 0]), 1);
        assert_eq!(r, [!0, !0, !0]);
        let mut a = [!0, !0, 7];
        assert_eq!(add_1(&mut a, &[1]), 0);
        assert_eq!(a, [0, 0, 8]);
        assert_eq!(sub_1(&mut a, &[1]), 0);
        assert_eq!(a, [!0, !0, 7]);
    }
}
