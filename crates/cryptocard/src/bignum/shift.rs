//! Bit shifts of limb slices by less than a limb (GMP's `mpn_lshift`, `mpn_rshift`).
//!
//! A shift by `s` bits, `0 <= s < 64`, moves each limb's low `64 - s` bits up and carries
//! its top `s` bits into the next limb: `r[i] = (a[i] << s) | (a[i - 1] >> (64 - s))`.
//! Shifts by whole limbs are slice moves, done by the callers. The `s = 0` case is
//! written separately because `x >> 64` is not defined.
//!
//! Time depends on the lengths and on `s` (a public shift count) only.

use crate::limb::{LIMB_BITS, Limb};

/// `r = a << s` over `a.len()` limbs, `0 <= s < 64`; returns the `s` bits shifted out of
/// the top, in the low bits of the result. `r.len() == a.len()`.
#[inline]
pub fn lshift(r: &mut [Limb], a: &[Limb], s: u32) -> Limb {
    assert_eq!(r.len(), a.len(), "internal error: lshift lengths");
    assert!((s as usize) < LIMB_BITS, "internal error: lshift count");
    if s == 0 {
        r.copy_from_slice(a);
        return 0;
    }
    let mut low = 0;
    for (r, &a) in r.iter_mut().zip(a) {
        *r = (a << s) | low;
        low = a >> (LIMB_BITS as u32 - s);
    }
    low
}

/// `a <<= s` in place, `0 <= s < 64`; returns the bits shifted out of the top.
#[inline]
pub fn lshift_assign(a: &mut [Limb], s: u32) -> Limb {
    assert!((s as usize) < LIMB_BITS, "internal error: lshift count");
    if s == 0 {
        return 0;
    }
    let mut low = 0;
    for a in a.iter_mut() {
        let x = *a;
        *a = (x << s) | low;
        low = x >> (LIMB_BITS as u32 - s);
    }
    low
}

/// `r = a >> s` over `a.len()` limbs, `0 <= s < 64`; returns the `s` bits shifted out of
/// the bottom, in the *high* bits of the result (GMP's convention: the returned limb is
/// what the next lower limb would receive). `r.len() == a.len()`.
#[inline]
pub fn rshift(r: &mut [Limb], a: &[Limb], s: u32) -> Limb {
    assert_eq!(r.len(), a.len(), "internal error: rshift lengths");
    assert!((s as usize) < LIMB_BITS, "internal error: rshift count");
    if s == 0 {
        r.copy_from_slice(a);
        return 0;
    }
    let mut high = 0;
    for (r, &a) in r.iter_mut().zip(a).rev() {
        *r = (a >> s) | high;
        high = a << (LIMB_BITS as u32 - s);
    }
    high
}

/// `a >>= s` in place, `0 <= s < 64`; returns the bits shifted out, in the high bits.
#[inline]
pub fn rshift_assign(a: &mut [Limb], s: u32) -> Limb {
    assert!((s as usize) < LIMB_BITS, "internal error: rshift count");
    if s == 0 {
        return 0;
    }
    let mut high = 0;
    for a in a.iter_mut().rev() {
        let x = *a;
        *a = (x >> s) | high;
        high = x << (LIMB_BITS as u32 - s);
    }
    high
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_move_bits_across_limbs() {
        let a = [0x8000_0000_0000_0001, 0x1];
        let mut r = [0; 2];
        assert_eq!(lshift(&mut r, &a, 1), 0);
        assert_eq!(r, [2, 3]);
        assert_eq!(lshift(&mut r, &a, 63), 0);
        assert_eq!(r, [1 << 63, (1 << 63) | (1 << 62)]);
        assert_eq!(rshift(&mut r, &a, 1), 1 << 63);
        assert_eq!(r, [0xc000_0000_0000_0000, 0]);
        assert_eq!(rshift(&mut r, &a, 0), 0);
        assert_eq!(r, a);
        let mut b = a;
        assert_eq!(lshift_assign(&mut b, 4), 0);
        assert_eq!(b, [0x10, 0x18]);
        assert_eq!(rshift_assign(&mut b, 4), 0);
        assert_eq!(b, a);
        assert_eq!(lshift_assign(&mut [!0], 8), 0xff);
        assert_eq!(rshift_assign(&mut [0xff], 8), 0xff << 56);
    }
}
