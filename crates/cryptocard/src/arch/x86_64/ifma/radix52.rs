//! Radix 2^52: conversion from and to 64-bit limbs, and the Montgomery parameters of a
//! modulus in that radix.
//!
//! A number `x < 2^(52 D)` is held as `D` digits `x_k < 2^52` in `u64` words,
//! `x = sum x_k 2^(52 k)`: digit `k` is bits `[52 k, 52 k + 52)` of `x`. The 12 bits above
//! each digit are the guard bits the IFMA kernels accumulate into (see `super`).
//!
//! [`Params52`] is everything a kernel needs to know about one modulus `n`: its digits,
//! `k0 = -n^-1 mod 2^52` (the Montgomery quotient factor of Dusse-Kaliski section 3, here
//! for the digit radix 2^52), and `RR = 2^(2 * 52 * D) mod n`, the square of the Montgomery
//! radix `R = 2^(52 D)`, which takes a number into Montgomery form with one
//! multiplication. `RR` is computed by the caller (the modular layer, once per key) and
//! cached with the rest; this module only checks that it is below `n`.
//!
//! The modulus is public: constructing the parameters may branch on it. Conversions of
//! secret numbers (`to_radix52`, `from_radix52`) only branch on lengths.

use super::super::radix;
pub(crate) use super::super::radix::{RadixParams, bits_at};
use crate::ct::Choice;

/// Bits in a digit.
pub(crate) const DIGIT_BITS: u32 = 52;
/// The low 52 bits of a word.
pub(crate) const DIGIT_MASK: u64 = radix::digit_mask(DIGIT_BITS);

/// The smallest digit count `D` for moduli of up to `bits` bits: `4 n < R = 2^(52 D)`, the
/// condition under which almost-Montgomery products stay below `2 n` (see `super`).
#[cfg(test)]
pub(crate) const fn digits_for_bits(bits: usize) -> usize {
    (bits + 2).div_ceil(DIGIT_BITS as usize)
}

/// The largest modulus size, in bits, that `D` digits can hold with `4 n < 2^(52 D)`.
pub const fn max_modulus_bits(digits: usize) -> usize {
    radix::max_modulus_bits(digits, DIGIT_BITS)
}

/// Writes the radix-2^52 digits of the little-endian limbs `src` into `dst` (all of it,
/// zero-filled), and returns whether the value fits in `dst.len()` digits. Constant-time in
/// the values; the lengths are public.
#[cfg(test)]
pub(crate) fn to_radix52(dst: &mut [u64], src: &[u64]) -> Choice {
    radix::to_radix(dst, src, DIGIT_BITS)
}

/// Writes the number with radix-2^52 digits `src` (each below 2^52) into the little-endian
/// limbs `dst` (all of it, zero-filled), and returns whether it fits. Constant-time in the
/// values; the lengths are public.
pub(crate) fn from_radix52(dst: &mut [u64], src: &[u64]) -> Choice {
    radix::from_radix(dst, src, DIGIT_BITS)
}

/// `x = x - n` if `x >= n`: the final reduction of a result in `[0, 2n)`, on normalised
/// digits of equal length, in constant time.
pub(crate) fn reduce_once(x: &mut [u64], n: &[u64]) {
    radix::reduce_once(x, n, DIGIT_BITS)
}

/// `-n^-1 mod 2^52` for odd `n` (only its low word matters).
#[cfg(test)]
pub(crate) fn neg_inv52(n_low: u64) -> u64 {
    radix::neg_inv(n_low, DIGIT_BITS)
}

/// The Montgomery parameters of one odd modulus in radix 2^52 (`radix::RadixParams`).
pub type Params52<const D: usize> = RadixParams<D, DIGIT_BITS>;

#[cfg(test)]
mod tests {
    use super::*;

    fn splitmix(state: &mut u64) -> u64 {
        let mut g = crate::test_rng::SplitMix64(*state);
        let z = g.next_u64();
        *state = g.0;
        z
    }

    #[test]
    fn digit_counts() {
        assert_eq!(digits_for_bits(512), 10);
        assert_eq!(digits_for_bits(1024), 20);
        assert_eq!(digits_for_bits(1536), 30);
        assert_eq!(digits_for_bits(2048), 40);
        assert_eq!(digits_for_bits(3072), 60);
        assert_eq!(digits_for_bits(4096), 79);
        assert_eq!(digits_for_bits(1038), 20);
        assert_eq!(digits_for_bits(1039), 21);
        for d in 2..100 {
            assert_eq!(digits_for_bits(max_modulus_bits(d)), d);
            assert_eq!(digits_for_bits(max_modulus_bits(d) + 1), d + 1);
        }
    }

    #[test]
    fn conversion_round_trips_at_every_size() {
        let mut s = 1;
        for limbs in 0..70usize {
            let mut x: Vec<u64> = (0..limbs).map(|_| splitmix(&mut s)).collect();
            let digits = (64 * limbs).div_ceil(52);
            let mut d = vec![0; digits];
            assert!(to_radix52(&mut d, &x).declassify());
            assert!(d.iter().all(|&w| w <= DIGIT_MASK));
            // Digit k is bits [52k, 52k + 52), checked bit by bit.
            for (k, &w) in d.iter().enumerate() {
                for b in 0..52 {
                    let p = 52 * k + b;
                    let want = if p < 64 * limbs { (x[p / 64] >> (p % 64)) & 1 } else { 0 };
                    assert_eq!((w >> b) & 1, want, "limbs {limbs} digit {k} bit {b}");
                }
            }
            let mut back = vec![0; limbs];
            assert!(from_radix52(&mut back, &d).declassify());
            assert_eq!(back, x);
            // One digit too few overflows exactly when the top digit is non-zero.
            if digits > 0 {
                let mut short = vec![0; digits - 1];
                let fits = to_radix52(&mut short, &x).declassify();
                assert_eq!(fits, d[digits - 1] == 0);
                x.iter_mut().for_each(|w| *w = 0);
                assert!(to_radix52(&mut short, &x).declassify());
            }
        }
    }

    #[test]
    fn from_radix52_reports_overflow() {
        // Two digits (104 bits) fit one limb only if bits 64..104 are zero.
        let mut one = [0u64; 1];
        assert!(from_radix52(&mut one, &[1, 1]).declassify());
        assert_eq!(one, [1 | 1 << 52]);
        assert!(from_radix52(&mut one, &[5, 0]).declassify());
        assert_eq!(one, [5]);
        assert!(!from_radix52(&mut one, &[0, 1 << 12]).declassify());
        assert!(from_radix52(&mut one, &[DIGIT_MASK, (1 << 12) - 1]).declassify());
        assert_eq!(one, [!0]);
    }

    #[test]
    fn k0_is_minus_the_inverse() {
        let mut s = 7;
        for _ in 0..1000 {
            let n = splitmix(&mut s) | 1;
            let k0 = neg_inv52(n);
            assert!(k0 <= DIGIT_MASK);
            assert_eq!(n.wrapping_mul(k0).wrapping_add(1) & DIGIT_MASK, 0);
        }
        assert_eq!(neg_inv52(1), DIGIT_MASK);
    }

    #[test]
    fn params_check_their_modulus() {
        let n = [0xffff_ffff_ffff_fff1u64, 0x0fff];
        assert!(Params52::<2>::new(&n, &[3]).is_ok());
        assert!(Params52::<2>::new(&[4, 1], &[3]).is_err(), "even");
        assert!(Params52::<2>::new(&[0, 0], &[0]).is_err(), "zero");
        assert!(Params52::<2>::new(&[], &[]).is_err(), "empty");
        assert!(Params52::<2>::new(&n, &n).is_err(), "rr = n");
        // 102 bits is the most two digits take; 103 bits is too many.
        assert!(Params52::<2>::new(&[1, (1 << 38) - 1], &[]).is_ok());
        assert!(Params52::<2>::new(&[1, 1 << 38], &[]).is_err());
        assert!(Params52::<2>::new(&[1, 0, 0], &[]).is_err(), "too many limbs");
        let p = Params52::<2>::new(&n, &[3]).unwrap();
        assert_eq!(p.limbs(), 2);
        // RR computed by the constructor: 2^208 mod n, checked against num-bigint.
        let m = num_bigint::BigUint::from(n[1]) << 64 | num_bigint::BigUint::from(n[0]);
        let rr: num_bigint::BigUint = (num_bigint::BigUint::from(1u8) << 208usize) % &m;
        let q = Params52::<2>::from_modulus_vartime(&n).unwrap();
        let mut want = [0u64; 2];
        let digits = rr.to_u64_digits();
        want[..digits.len()].copy_from_slice(&digits);
        assert_eq!(q.rr, Params52::<2>::new(&n, &want).unwrap().rr);
        assert!(Params52::<2>::from_modulus_vartime(&[0, 0]).is_err());
        assert!(Params52::<2>::from_modulus_vartime(&[2]).is_err());
        assert_eq!(p.k0, neg_inv52(n[0]));
        let below = [0xffff_ffff_ffff_fff0, 0x0fff];
        assert_eq!(p.operand_digits(&below, 2).unwrap()[0], below[0] & DIGIT_MASK);
        assert!(p.operand_digits(&n, 2).is_err());
        assert!(p.operand_digits(&[0, 0x1000], 2).is_err());
        assert!(p.operand_digits(&below, 3).is_err());
        assert!(p.operand_digits(&below[..1], 2).is_err());
    }
}
