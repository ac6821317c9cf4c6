//! Constant-time comparison of limb slices. The variable-time ones (`bit_length`,
//! `cmp_vartime`) are in `crate::limb`, below the CPU kernels that use them too.

use crate::ct::Choice;
use crate::limb::{Limb, sbb};

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
        assert!(lt_n(&[5, 1], &[6, 1]).declassify());
        assert!(!lt_n(&[6, 1], &[6, 1]).declassify());
        assert!(!lt_n(&[0, 2], &[!0, 1]).declassify());
    }
}
