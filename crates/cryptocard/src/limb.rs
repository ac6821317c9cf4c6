//! The limb, its carry-propagating primitives, and the carry chains and comparisons over
//! limb slices that every layer shares (GMP's `mpn_add_n`, `mpn_sub_n`, `mpn_add`,
//! `mpn_sub`, `mpn_cmp`).
//!
//! This is the bottom of the crate: it imports nothing from it. The portable arithmetic
//! ([`crate::bignum`], which re-exports all of it), the constant-time masks of
//! [`crate::ct`] and the CPU kernels of `arch` all build on it, so that a kernel in
//! `arch` never has to import the number layer it serves (see the crate docs).
//!
//! A limb is a `u64`. Products and carries are computed in `u128`, which LLVM lowers to a
//! single `mul`/`mulx` and `add`/`adc` pair on x86-64 and `mul`/`umulh` on AArch64.
//!
//! The slice functions run in time that depends only on the slice lengths (but for the
//! `_vartime` comparison and [`bit_length`], which say so), so they serve constant-time
//! code too. Outputs may not alias inputs (Rust's borrow rules enforce it); in-place
//! updates are the forms that take one `&mut` slice (`add_1`, `sub_1`, `add_limb`,
//! `sub_limb`). Every carry and borrow here is 0 or 1, because
//! (2^64 - 1) + (2^64 - 1) + 1 = 2^65 - 1 < 2^65; the loops carry it as a `bool`
//! ([`adc_bit`], [`sbb_bit`]), the form that compiles to one `adc`/`sbb` per limb.

use core::cmp::Ordering;

/// One digit of a multi-precision number, radix 2^64.
pub type Limb = u64;
/// A double-width limb, for products and carries.
pub type WideLimb = u128;
/// Bits in a limb.
pub const LIMB_BITS: usize = 64;
/// Bytes in a limb.
pub const LIMB_BYTES: usize = 8;

/// `a + b + carry`, returning `(sum, carry_out)`. `carry` may be any limb; the carry out
/// is then at most 1 if `carry <= 1`, and at most `carry` in general:
/// (2^64 - 1) + (2^64 - 1) + c < 2^65 + c.
#[inline(always)]
pub const fn adc(a: Limb, b: Limb, carry: Limb) -> (Limb, Limb) {
    let t = (a as WideLimb) + (b as WideLimb) + (carry as WideLimb);
    (t as Limb, (t >> LIMB_BITS) as Limb)
}

/// `a - b - borrow` with `borrow` in {0, 1}, returning `(difference, borrow_out)` with
/// `borrow_out` in {0, 1}.
#[inline(always)]
pub const fn sbb(a: Limb, b: Limb, borrow: Limb) -> (Limb, Limb) {
    let t = (a as WideLimb).wrapping_sub((b as WideLimb) + (borrow as WideLimb));
    (t as Limb, ((t >> LIMB_BITS) as Limb) & 1)
}

/// `a + b + carry` for a carry *bit*, returning `(sum, carry_out)`. This is the form
/// LLVM lowers to one `adc` per limb in a loop (measured faster than the `u128` form of
/// [`adc`] on Zen 4); the linear kernels use it.
#[inline(always)]
pub const fn adc_bit(a: Limb, b: Limb, carry: bool) -> (Limb, bool) {
    let (s, c1) = a.overflowing_add(b);
    let (s, c2) = s.overflowing_add(carry as Limb);
    // At most one of the two additions overflows.
    (s, c1 | c2)
}

/// `a - b - borrow` for a borrow *bit*, returning `(difference, borrow_out)`: one `sbb`.
#[inline(always)]
pub const fn sbb_bit(a: Limb, b: Limb, borrow: bool) -> (Limb, bool) {
    let (d, b1) = a.overflowing_sub(b);
    let (d, b2) = d.overflowing_sub(borrow as Limb);
    (d, b1 | b2)
}

/// `acc + a * b + carry`, returning `(low, high)`. Never overflows: the largest value is
/// (2^64 - 1) + (2^64 - 1)^2 + (2^64 - 1) = 2^128 - 1.
#[inline(always)]
pub const fn mac(acc: Limb, a: Limb, b: Limb, carry: Limb) -> (Limb, Limb) {
    let t = (acc as WideLimb) + (a as WideLimb) * (b as WideLimb) + (carry as WideLimb);
    (t as Limb, (t >> LIMB_BITS) as Limb)
}

/// `r = a + b` over `a.len()` limbs, returning the carry (0 or 1).
/// `r`, `a` and `b` have the same length.
#[inline]
pub fn add_n(r: &mut [Limb], a: &[Limb], b: &[Limb]) -> Limb {
    assert!(r.len() == a.len() && a.len() == b.len(), "internal error: add_n lengths");
    let mut carry = false;
    for ((r, &a), &b) in r.iter_mut().zip(a).zip(b) {
        (*r, carry) = adc_bit(a, b, carry);
    }
    carry as Limb
}

/// `r = a - b` over `a.len()` limbs, returning the borrow (0 or 1).
/// `r`, `a` and `b` have the same length.
#[inline]
pub fn sub_n(r: &mut [Limb], a: &[Limb], b: &[Limb]) -> Limb {
    assert!(r.len() == a.len() && a.len() == b.len(), "internal error: sub_n lengths");
    let mut borrow = false;
    for ((r, &a), &b) in r.iter_mut().zip(a).zip(b) {
        (*r, borrow) = sbb_bit(a, b, borrow);
    }
    borrow as Limb
}

/// `a += b` in place over `b.len()` limbs of `a` (`a.len() >= b.len()`), propagating the
/// carry through the rest of `a`; returns the final carry (0 or 1).
/// Time depends on the lengths only.
#[inline]
pub fn add_1(a: &mut [Limb], b: &[Limb]) -> Limb {
    assert!(a.len() >= b.len(), "internal error: add_1 lengths");
    let mut carry = false;
    let (lo, hi) = a.split_at_mut(b.len());
    for (a, &b) in lo.iter_mut().zip(b) {
        (*a, carry) = adc_bit(*a, b, carry);
    }
    for a in hi {
        (*a, carry) = adc_bit(*a, 0, carry);
    }
    carry as Limb
}

/// `a -= b` in place over `b.len()` limbs of `a` (`a.len() >= b.len()`), propagating the
/// borrow through the rest of `a`; returns the final borrow (0 or 1).
/// Time depends on the lengths only.
#[inline]
pub fn sub_1(a: &mut [Limb], b: &[Limb]) -> Limb {
    assert!(a.len() >= b.len(), "internal error: sub_1 lengths");
    let mut borrow = false;
    let (lo, hi) = a.split_at_mut(b.len());
    for (a, &b) in lo.iter_mut().zip(b) {
        (*a, borrow) = sbb_bit(*a, b, borrow);
    }
    for a in hi {
        (*a, borrow) = sbb_bit(*a, 0, borrow);
    }
    borrow as Limb
}

/// `a += x` for a single limb `x`, propagating the carry through all of `a`; returns the
/// carry out (0 or 1). Time depends on the length only (GMP's `mpn_incr_u` without the
/// early exit).
#[inline]
pub fn add_limb(a: &mut [Limb], x: Limb) -> Limb {
    let (s, mut carry) = a.first().map_or((0, x != 0), |&a0| a0.overflowing_add(x));
    if let Some((a0, rest)) = a.split_first_mut() {
        *a0 = s;
        for a in rest {
            (*a, carry) = adc_bit(*a, 0, carry);
        }
    }
    carry as Limb
}

/// `a -= x` for a single limb `x`, propagating the borrow through all of `a`; returns the
/// borrow out (0 or 1). Time depends on the length only.
#[inline]
#[cfg(any(test, feature = "hazmat"))]
pub fn sub_limb(a: &mut [Limb], x: Limb) -> Limb {
    let (d, mut borrow) = a.first().map_or((0, x != 0), |&a0| a0.overflowing_sub(x));
    if let Some((a0, rest)) = a.split_first_mut() {
        *a0 = d;
        for a in rest {
            (*a, borrow) = sbb_bit(*a, 0, borrow);
        }
    }
    borrow as Limb
}

/// The bit length of the little-endian limbs `x` (0 for zero; high zero limbs allowed).
/// Variable-time: for public numbers or public lengths.
pub fn bit_length(x: &[Limb]) -> usize {
    x.iter()
        .rposition(|&l| l != 0)
        .map_or(0, |i| (i + 1) * LIMB_BITS - x[i].leading_zeros() as usize)
}

/// Compares two little-endian limb slices of any lengths as numbers (high zero limbs are
/// ignored). Variable-time: it stops at the first differing limb from the top.
pub fn cmp_vartime(a: &[Limb], b: &[Limb]) -> Ordering {
    let n = a.len().max(b.len());
    for i in (0..n).rev() {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        if x != y {
            return x.cmp(&y);
        }
    }
    Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carries_at_the_extremes() {
        assert_eq!(adc(!0, !0, 1), (!0, 1));
        assert_eq!(adc(!0, 0, 1), (0, 1));
        assert_eq!(sbb(0, 0, 1), (!0, 1));
        assert_eq!(sbb(0, !0, 1), (0, 1));
        assert_eq!(sbb(5, 3, 1), (1, 0));
        assert_eq!(mac(!0, !0, !0, !0), (!0, !0));
        assert_eq!(adc_bit(!0, !0, true), (!0, true));
        assert_eq!(adc_bit(!0, 0, true), (0, true));
        assert_eq!(adc_bit(5, 6, false), (11, false));
        assert_eq!(sbb_bit(0, !0, true), (0, true));
        assert_eq!(sbb_bit(5, 3, true), (1, false));
    }

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

    #[test]
    fn single_limb_forms() {
        let mut a = [!0, !0, 0];
        assert_eq!(add_limb(&mut a, 1), 0);
        assert_eq!(a, [0, 0, 1]);
        assert_eq!(sub_limb(&mut a, 1), 0);
        assert_eq!(a, [!0, !0, 0]);
        assert_eq!(add_limb(&mut [!0], 1), 1);
        assert_eq!(sub_limb(&mut [0, 0], 1), 1);
    }

    #[test]
    fn orders_and_lengths() {
        assert_eq!(cmp_vartime(&[1, 2], &[1, 2, 0]), Ordering::Equal);
        assert_eq!(cmp_vartime(&[5, 1], &[7, 0]), Ordering::Greater);
        assert_eq!(cmp_vartime(&[], &[0, 1]), Ordering::Less);
        assert_eq!(bit_length(&[0, 0]), 0);
        assert_eq!(bit_length(&[1, 0]), 1);
        assert_eq!(bit_length(&[!0, 5, 0]), 67);
    }
}
