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

use crate::Error;
use crate::ct::{self, Choice};

/// Bits in a digit.
pub(crate) const DIGIT_BITS: u32 = 52;
/// The low 52 bits of a word.
pub(crate) const DIGIT_MASK: u64 = (1 << DIGIT_BITS) - 1;

/// The smallest digit count `D` for moduli of up to `bits` bits: `4 n < R = 2^(52 D)`, the
/// condition under which almost-Montgomery products stay below `2 n` (see `super`).
#[cfg(test)]
pub(crate) const fn digits_for_bits(bits: usize) -> usize {
    (bits + 2).div_ceil(DIGIT_BITS as usize)
}

/// The largest modulus size, in bits, that `D` digits can hold with `4 n < 2^(52 D)`.
pub const fn max_modulus_bits(digits: usize) -> usize {
    DIGIT_BITS as usize * digits - 2
}

/// Writes the radix-2^52 digits of the little-endian limbs `src` into `dst` (all of it,
/// zero-filled), and returns whether the value fits in `dst.len()` digits. Constant-time in
/// the values; the lengths are public.
pub(crate) fn to_radix52(dst: &mut [u64], src: &[u64]) -> Choice {
    // The bits stream through a 128-bit window: a limb enters whenever fewer than 52 bits
    // are waiting, a digit leaves at every step (which steps take a limb depends on the
    // lengths only).
    let mut limbs = src.iter();
    let (mut window, mut held) = (0u128, 0usize);
    for d in dst.iter_mut() {
        while held < 52 {
            window |= u128::from(limbs.next().copied().unwrap_or(0)) << held;
            held += 64;
        }
        *d = window as u64 & DIGIT_MASK;
        window >>= 52;
        held -= 52;
    }
    // Every bit of src that did not become a digit must be zero.
    let spill = limbs.fold(window as u64 | (window >> 64) as u64, |acc, &w| acc | w);
    ct::is_zero(spill)
}

/// Bits `[pos, pos + 64)` of the little-endian limbs `src`, zero beyond its end.
/// Constant-time in the values; `pos` and the length are public.
pub(crate) fn bits_at(src: &[u64], pos: usize) -> u64 {
    let (l, s) = (pos / 64, pos % 64);
    let lo = src.get(l).copied().unwrap_or(0) >> s;
    let hi = match (s, src.get(l + 1)) {
        (0, _) | (_, None) => 0,
        (_, Some(&h)) => h << (64 - s),
    };
    lo | hi
}

/// Writes the number with radix-2^52 digits `src` (each below 2^52) into the little-endian
/// limbs `dst` (all of it, zero-filled), and returns whether it fits. Constant-time in the
/// values; the lengths are public. (A 128-bit window as in [`to_radix52`].)
pub(crate) fn from_radix52(dst: &mut [u64], src: &[u64]) -> Choice {
    let mut limbs = dst.iter_mut();
    let (mut window, mut held, mut spill) = (0u128, 0usize, 0u64);
    let mut emit = |w: u64| match limbs.next() {
        Some(limb) => *limb = w,
        None => spill |= w,
    };
    for &d in src {
        debug_assert!(d <= DIGIT_MASK, "internal error: unnormalised digit");
        window |= u128::from(d) << held;
        held += 52;
        if held >= 64 {
            emit(window as u64);
            window >>= 64;
            held -= 64;
        }
    }
    emit(window as u64);
    for limb in limbs {
        *limb = 0;
    }
    ct::is_zero(spill)
}

/// `x = x - n` if `x >= n`: the final reduction of a result in `[0, 2n)`, on normalised
/// digits of equal length, in constant time (a full borrow chain and a masked select).
pub(crate) fn reduce_once(x: &mut [u64], n: &[u64]) {
    debug_assert_eq!(x.len(), n.len());
    let mut diff = [0u64; 128];
    let diff = &mut diff[..x.len()];
    let mut borrow = 0u64;
    for ((d, &xd), &nd) in diff.iter_mut().zip(x.iter()).zip(n) {
        let t = xd.wrapping_sub(nd).wrapping_sub(borrow);
        borrow = t >> 63;
        *d = t & DIGIT_MASK;
    }
    // Keep x where the subtraction borrowed (x < n).
    let keep_x = Choice::from_bit(borrow);
    for (xd, &d) in x.iter_mut().zip(diff.iter()) {
        *xd = keep_x.select(*xd, d);
    }
    diff.fill(0);
}

/// `-n^-1 mod 2^52` for odd `n` (only its low word matters), by Newton's iteration
/// `x <- x (2 - n x)`, which doubles the number of correct low bits: `x = n` is right to 3
/// bits (`n^2 = 1 mod 8` for odd `n`), five steps give 96 >= 64.
pub(crate) fn neg_inv52(n_low: u64) -> u64 {
    debug_assert!(n_low & 1 == 1, "internal error: even modulus");
    let mut x = n_low;
    for _ in 0..5 {
        x = x.wrapping_mul(2u64.wrapping_sub(n_low.wrapping_mul(x)));
    }
    x.wrapping_neg() & DIGIT_MASK
}

/// The Montgomery parameters of one odd modulus `n < 2^(52 D - 2)` in radix 2^52.
///
/// Numbers that go with these parameters are passed as little-endian `u64` limb slices of
/// exactly `Params52::limbs` limbs, the length of the modulus slice it was made from.
/// Its `Debug` shows the sizes only: the modulus is often a secret prime.
#[derive(Clone)]
pub struct Params52<const D: usize> {
    /// The digits of `n`.
    pub(super) n: [u64; D],
    /// The digits of `RR = 2^(104 D) mod n`.
    pub(super) rr: [u64; D],
    /// `-n^-1 mod 2^52`.
    pub(super) k0: u64,
    /// The limb length of the numbers that go with this modulus.
    limbs: usize,
}

impl<const D: usize> core::fmt::Debug for Params52<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Params52")
            .field("digits", &D)
            .field("limbs", &self.limbs)
            .finish_non_exhaustive()
    }
}

impl<const D: usize> Params52<D> {
    /// Parameters for the modulus `n` (little-endian limbs, high zero limbs allowed) with
    /// `rr = 2^(2 * 52 * D) mod n` (any length). Fails if `n` is even (zero included), if
    /// it has more than `52 D - 2` bits or more limbs than `D` digits take, or if `rr >= n`.
    /// Whether `rr` is the right residue is not checked: a wrong one gives wrong results.
    pub fn new(n: &[u64], rr: &[u64]) -> Result<Self, Error> {
        const { assert!(D >= 2, "internal error: Params52 needs at least two digits") };
        if n.first().is_none_or(|&w| w & 1 == 0) {
            return Err(Error::InvalidArgument("modulus must be odd"));
        }
        let bits = crate::limb::bit_length(n);
        if bits > max_modulus_bits(D) || n.len() > (52 * D).div_ceil(64) {
            return Err(Error::InvalidArgument("modulus too large for the digit count"));
        }
        if crate::limb::cmp_vartime(rr, n).is_ge() {
            return Err(Error::InvalidArgument("RR must be below the modulus"));
        }
        let mut p = Params52 { n: [0; D], rr: [0; D], k0: neg_inv52(n[0]), limbs: n.len() };
        // Both fit: n has at most 52 D - 2 bits and rr < n.
        let fits = to_radix52(&mut p.n, n) & to_radix52(&mut p.rr, rr);
        assert!(fits.declassify(), "internal error: checked operands do not fit");
        Ok(p)
    }

    /// Parameters for the modulus `n`, computing `RR = 2^(104 D) mod n` itself by one long
    /// division (`Nat::rem`): microseconds at RSA sizes, once per key. Variable-time in `n`,
    /// which is public; fails as [`Params52::new`]. For the tests: the library takes `RR`
    /// from the modular layer, which sits above this one.
    #[cfg(test)]
    pub(crate) fn from_modulus_vartime(n: &[u64]) -> Result<Self, Error> {
        if n.first().is_none_or(|&w| w & 1 == 0) {
            return Err(Error::InvalidArgument("modulus must be odd"));
        }
        let mut r2 = crate::bignum::Nat::zero();
        r2.set_bit(2 * 52 * D, true);
        let rr = r2.rem(&crate::bignum::Nat::from_slice(n))?;
        Self::new(n, rr.as_limbs())
    }

    /// The limb length of the numbers (bases, results) that go with this modulus.
    pub(crate) fn limbs(&self) -> usize {
        self.limbs
    }

    /// The radix-2^52 digits of an operand `base` that goes with this modulus, checking the
    /// contract of the exponentiations: `base` and `out_len` are [`Params52::limbs`] long
    /// and `base < n`. Constant-time in `base`; the error reveals only which check failed.
    pub(super) fn operand_digits(&self, base: &[u64], out_len: usize) -> Result<[u64; D], Error> {
        if base.len() != self.limbs || out_len != self.limbs {
            return Err(Error::InvalidArgument("base and result must have the modulus's length"));
        }
        let mut digits = [0u64; D];
        let fits = to_radix52(&mut digits, base);
        // Borrow out of base - n over the digits.
        let mut borrow = 0u64;
        for (&xd, &nd) in digits.iter().zip(&self.n) {
            borrow = xd.wrapping_sub(nd).wrapping_sub(borrow) >> 63;
        }
        if !(fits & Choice::from_bit(borrow)).declassify() {
            digits.fill(0);
            return Err(Error::InvalidArgument("base must be below the modulus"));
        }
        Ok(digits)
    }
}

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
