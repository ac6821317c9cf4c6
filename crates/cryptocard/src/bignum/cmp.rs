//! Comparison of limb slices.

use super::limb::{LIMB_BITS, Limb, sbb};
use crate::ct::Choice;
use core::cmp::Ordering;

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

/// `a < b` for slices of the same public length, in constant time: the borrow out of
/// `a - b`, computed over every limb.
pub fn lt_n(a: &[Limb], b: &[Limb]) -> Choice {
    assert_eq!(a.len(), b.len(), "internal error: lt_n lengths");
    let mut borrow = 0;
    for (&x, &y) in a.iter().zip(b) {
        (_, borrow) = sbb(x, y, borrow);
    }
    Choice::from_bit(borrow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders() {
        assert_eq!(cmp_vartime(&[1, 2], &[1, 2, 0]), Ordering::Equal);
        assert_eq!(cmp_vartime(&[5, 1], &[7, 0]), Ordering::Greater);
        assert_eq!(cmp_vartime(&[], &[0, 1]), Ordering::Less);
        assert!(lt_n(&[5, 1], &[6, 1]).declassify());
        assert!(!lt_n(&[6, 1], &[6, 1]).declassify());
        assert!(!lt_n(&[0, 2], &[!0, 1]).declassify());
    }
}
