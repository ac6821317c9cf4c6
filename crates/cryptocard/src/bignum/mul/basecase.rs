//! Single-limb kernels and the schoolbook basecase.
//!
//! `addmul_1` is the inner loop of operand scanning (GMP `mpn_addmul_1`); the basecase
//! below multiplies row by row with it.

use crate::bignum::limb::{mac, Limb};

/// `r = a * b`, returning the high limb. `r.len() == a.len()`.
#[inline]
pub fn mul_1(r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
    assert_eq!(r.len(), a.len(), "internal error: mul_1 lengths");
    let mut carry = 0;
    for (r, &a) in r.iter_mut().zip(a) {
        (*r, carry) = mac(0, a, b, carry);
    }
    carry
}

/// `r += a * b` over `a.len()` limbs of `r`, returning the high limb (the carry out of
/// `r[a.len() - 1]`). `r.len() >= a.len()`; limbs of `r` beyond `a.len()` are untouched.
#[inline]
pub fn addmul_1(r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
    assert!(r.len() >= a.len(), "internal error: addmul_1 lengths");
    let mut carry = 0;
    for (r, &a) in r.iter_mut().zip(a) {
        (*r, carry) = mac(*r, a, b, carry);
    }
    carry
}

/// `r = a * b` by operand scanning. `r.len() == a.len() + b.len()`, and neither input is
/// empty. Time depends only on the lengths.
pub fn mul_basecase(r: &mut [Limb], a: &[Limb], b: &[Limb]) {
    assert!(!a.is_empty() && !b.is_empty(), "internal error: mul_basecase empty input");
    assert_eq!(r.len(), a.len() + b.len(), "internal error: mul_basecase lengths");
    let n = a.len();
    r[n] = mul_1(&mut r[..n], a, b[0]);
    for (j, &bj) in b.iter().enumerate().skip(1) {
        r[n + j] = addmul_1(&mut r[j..j + n], a, bj);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_products() {
        let mut r = [0; 4];
        mul_basecase(&mut r, &[!0, !0], &[!0, !0]);
        // (2^128 - 1)^2 = 2^256 - 2^129 + 1
        assert_eq!(r, [1, 0, !0 - 1, !0]);
        let mut r = [0; 3];
        mul_basecase(&mut r, &[3, 0], &[5]);
        assert_eq!(r, [15, 0, 0]);
    }
}
