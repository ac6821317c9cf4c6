//! Byte- and index-sized wrappers of [`crate::ct`] for the constant-time unpadding of
//! OAEP and PKCS#1 v1.5 encryption: comparisons of secret bytes and selections of secret
//! indices, without branches.

use crate::bignum::Limb;
use crate::ct::{self, Choice};

/// `b == 0`.
#[inline]
pub(crate) fn is_zero(b: u8) -> Choice {
    ct::is_zero(Limb::from(b))
}

/// `a == b`.
#[inline]
pub(crate) fn eq(a: u8, b: u8) -> Choice {
    ct::eq(Limb::from(a), Limb::from(b))
}

/// `a < b` for indices (below 2^63).
#[inline]
pub(crate) fn lt(a: usize, b: usize) -> Choice {
    ct::lt(a as Limb, b as Limb)
}

/// `a` if `c`, else `b`, for indices.
#[inline]
pub(crate) fn select_index(c: Choice, a: usize, b: usize) -> usize {
    c.select(a as Limb, b as Limb) as usize
}

/// `a` if `c`, else `b`, for bytes.
#[inline]
pub(crate) fn select_byte(c: Choice, a: u8, b: u8) -> u8 {
    c.select(Limb::from(a), Limb::from(b)) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_helpers() {
        assert!(is_zero(0).declassify() && !is_zero(1).declassify() && !is_zero(255).declassify());
        assert!(eq(7, 7).declassify() && !eq(7, 6).declassify());
        assert!(lt(3, 10).declassify() && !lt(10, 10).declassify() && !lt(11, 10).declassify());
        assert_eq!(select_index(Choice::TRUE, 5, 9), 5);
        assert_eq!(select_index(Choice::FALSE, 5, 9), 9);
        assert_eq!(select_byte(Choice::TRUE, 0xab, 0xcd), 0xab);
        assert_eq!(select_byte(Choice::FALSE, 0xab, 0xcd), 0xcd);
    }
}
