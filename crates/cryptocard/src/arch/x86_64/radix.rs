//! Numbers in radix `2^B` for the vector kernels: `B = 52` for AVX-512 IFMA
//! (`ifma::radix52`), `B = 28` for the AVX2 lanes (`mb4`).
//!
//! A number `x < 2^(B D)` is held as `D` digits `x_k < 2^B` in `u64` words,
//! `x = sum x_k 2^(B k)`: digit `k` is bits `[B k, B k + B)` of `x`, and the `64 - B` bits
//! above each digit are the guard bits the kernels accumulate into. Conversions of secret
//! numbers branch on lengths only.

use crate::Error;
use crate::ct::{self, Choice};
use zeroize::Zeroize;

/// The low `bits` bits of a word.
pub(crate) const fn digit_mask(bits: u32) -> u64 {
    (1 << bits) - 1
}

/// The largest modulus size, in bits, that `digits` digits of `bits` bits hold with
/// `4 n < R = 2^(bits digits)`: the condition under which almost-Montgomery products stay
/// below `2 n` (Dusse-Kaliski's Theorem 2 in the unsigned form; see `ifma`).
pub(crate) const fn max_modulus_bits(digits: usize, bits: u32) -> usize {
    bits as usize * digits - 2
}

/// Writes the radix-`2^bits` digits of the little-endian limbs `src` into `dst` (all of
/// it, zero-filled), and returns whether the value fits in `dst.len()` digits.
/// Constant-time in the values; the lengths are public. `bits <= 64`.
pub(crate) fn to_radix(dst: &mut [u64], src: &[u64], bits: u32) -> Choice {
    // The bits stream through a 128-bit window: a limb enters whenever fewer than `bits`
    // are waiting, a digit leaves at every step (which steps take a limb depends on the
    // lengths only).
    let (b, mask) = (bits as usize, digit_mask(bits));
    let mut limbs = src.iter();
    let (mut window, mut held) = (0u128, 0usize);
    for d in dst.iter_mut() {
        while held < b {
            window |= u128::from(limbs.next().copied().unwrap_or(0)) << held;
            held += 64;
        }
        *d = window as u64 & mask;
        window >>= b;
        held -= b;
    }
    // Every bit of src that did not become a digit must be zero.
    let spill = limbs.fold(window as u64 | (window >> 64) as u64, |acc, &w| acc | w);
    ct::is_zero(spill)
}

/// Writes the number with radix-`2^bits` digits `src` (each below `2^bits`) into the
/// little-endian limbs `dst` (all of it, zero-filled), and returns whether it fits.
/// Constant-time in the values; the lengths are public. (A 128-bit window as in
/// [`to_radix`].)
pub(crate) fn from_radix(dst: &mut [u64], src: &[u64], bits: u32) -> Choice {
    let mut limbs = dst.iter_mut();
    let (mut window, mut held, mut spill) = (0u128, 0usize, 0u64);
    let mut emit = |w: u64| match limbs.next() {
        Some(limb) => *limb = w,
        None => spill |= w,
    };
    for &d in src {
        debug_assert!(d <= digit_mask(bits), "internal error: unnormalised digit");
        window |= u128::from(d) << held;
        held += bits as usize;
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

/// `x = x - n` if `x >= n`: the final reduction of a result in `[0, 2n)`, on normalised
/// digits of `bits` bits and equal length, in constant time (a full borrow chain and a
/// masked select).
pub(crate) fn reduce_once(x: &mut [u64], n: &[u64], bits: u32) {
    debug_assert_eq!(x.len(), n.len());
    let mut diff = [0u64; 160];
    let diff = &mut diff[..x.len()];
    let mut borrow = 0u64;
    for ((d, &xd), &nd) in diff.iter_mut().zip(x.iter()).zip(n) {
        let t = xd.wrapping_sub(nd).wrapping_sub(borrow);
        borrow = t >> 63;
        *d = t & digit_mask(bits);
    }
    // Keep x where the subtraction borrowed (x < n).
    let keep_x = Choice::from_bit(borrow);
    for (xd, &d) in x.iter_mut().zip(diff.iter()) {
        *xd = keep_x.select(*xd, d);
    }
    diff.fill(0);
}

/// `-n^-1 mod 2^bits` for odd `n` (only its low word matters), by Newton's iteration
/// `x <- x (2 - n x)`, which doubles the number of correct low bits: `x = n` is right to 3
/// bits (`n^2 = 1 mod 8` for odd `n`), five steps give 96 >= 64.
pub(crate) fn neg_inv(n_low: u64, bits: u32) -> u64 {
    debug_assert!(n_low & 1 == 1, "internal error: even modulus");
    let mut x = n_low;
    for _ in 0..5 {
        x = x.wrapping_mul(2u64.wrapping_sub(n_low.wrapping_mul(x)));
    }
    x.wrapping_neg() & digit_mask(bits)
}

/// The Montgomery parameters of one odd modulus `n < 2^(B D - 2)` in radix `2^B`: its
/// digits, `k0 = -n^-1 mod 2^B` (the Montgomery quotient factor of Dusse-Kaliski section
/// 3, for the digit radix) and `RR = 2^(2 B D) mod n`, the square of the Montgomery radix
/// `R = 2^(B D)`, which takes a number into Montgomery form with one multiplication. `RR`
/// is computed by the caller (the modular layer, once per key) and cached with the rest;
/// this type only checks that it is below `n`.
///
/// Numbers that go with these parameters are passed as little-endian `u64` limb slices of
/// exactly [`RadixParams::limbs`] limbs, the length of the modulus slice it was made from.
/// Constructing the parameters may branch on the modulus (public, or the caller's
/// constant-time path took care of it); `operand_digits` is constant-time in the operand.
/// Its `Debug` shows the sizes only: the modulus is often a secret prime.
#[derive(Clone)]
pub struct RadixParams<const D: usize, const B: u32> {
    /// The digits of `n`.
    pub(crate) n: [u64; D],
    /// The digits of `RR = 2^(2 B D) mod n`.
    pub(crate) rr: [u64; D],
    /// `-n^-1 mod 2^B`.
    pub(crate) k0: u64,
    /// The limb length of the numbers that go with this modulus.
    limbs: usize,
}

impl<const D: usize, const B: u32> core::fmt::Debug for RadixParams<D, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RadixParams")
            .field("digit_bits", &B)
            .field("digits", &D)
            .field("limbs", &self.limbs)
            .finish_non_exhaustive()
    }
}

impl<const D: usize, const B: u32> RadixParams<D, B> {
    /// Parameters for the modulus `n` (little-endian limbs, high zero limbs allowed) with
    /// `rr = 2^(2 B D) mod n` (any length). Fails if `n` is even (zero included), if it has
    /// more than `B D - 2` bits or more limbs than `D` digits take, or if `rr >= n`.
    /// Whether `rr` is the right residue is not checked: a wrong one gives wrong results.
    /// Variable-time in `n` (public moduli; a secret one takes
    /// [`RadixParams::new_secret`]).
    #[cfg(any(test, feature = "hazmat"))]
    pub fn new(n: &[u64], rr: &[u64]) -> Result<Self, Error> {
        const { assert!(D >= 2, "internal error: RadixParams needs at least two digits") };
        if n.first().is_none_or(|&w| w & 1 == 0) {
            return Err(Error::InvalidArgument("modulus must be odd"));
        }
        let bits = crate::limb::bit_length(n);
        if bits > max_modulus_bits(D, B) || n.len() > (B as usize * D).div_ceil(64) {
            return Err(Error::InvalidArgument("modulus too large for the digit count"));
        }
        if crate::limb::cmp_vartime(rr, n).is_ge() {
            return Err(Error::InvalidArgument("RR must be below the modulus"));
        }
        let mut p = RadixParams { n: [0; D], rr: [0; D], k0: neg_inv(n[0], B), limbs: n.len() };
        // Both fit: n has at most B D - 2 bits and rr < n.
        let fits = to_radix(&mut p.n, n, B) & to_radix(&mut p.rr, rr, B);
        assert!(fits.declassify(), "internal error: checked operands do not fit");
        Ok(p)
    }

    /// Parameters for a secret modulus `p` (an RSA prime; little-endian limbs) with
    /// `rr = 2^(2 B D) mod p` computed by the caller in constant time (or empty where the
    /// kernels need none), in constant time: the checks of `RadixParams::new` made
    /// without branching on `p`, and only their verdict made public (that `p` is odd and
    /// below `2^(B D - 2)`, and `rr` below `2^(B D)`: facts about an RSA prime of a public
    /// size). `rr < p` is not checked; a wrong `rr` gives wrong results. On failure
    /// nothing is kept.
    pub(crate) fn new_secret(p: &[u64], rr: &[u64]) -> Result<Self, Error> {
        const { assert!(D >= 2, "internal error: RadixParams needs at least two digits") };
        if p.is_empty() || p.len() > (B as usize * D).div_ceil(64) {
            return Err(Error::InvalidArgument("modulus length does not fit the digit count"));
        }
        let odd = Choice::from_bit(p[0] & 1);
        let k0 = neg_inv(p[0] | 1, B);
        let mut params = RadixParams { n: [0; D], rr: [0; D], k0, limbs: p.len() };
        let fits = to_radix(&mut params.n, p, B)
            & ct::is_zero(params.n[D - 1] >> (B - 2))
            & to_radix(&mut params.rr, rr, B);
        if !(odd & fits).declassify() {
            params.zeroize_secrets();
            return Err(Error::InvalidArgument("modulus even, or too large for the digit count"));
        }
        Ok(params)
    }

    /// Zeroes the digits of the modulus and `RR`, and `k0` (a secret modulus's
    /// parameters, when they are dropped or refused).
    pub(crate) fn zeroize_secrets(&mut self) {
        self.n.zeroize();
        self.rr.zeroize();
        self.k0.zeroize();
    }

    /// Parameters for the modulus `n`, computing `RR = 2^(2 B D) mod n` itself by one long
    /// division (`Nat::rem`): microseconds at RSA sizes, once per key. Variable-time in `n`,
    /// which is public; fails as `RadixParams::new`. For the tests: the library takes
    /// `RR` from the modular layer, which sits above this one.
    #[cfg(test)]
    pub(crate) fn from_modulus_vartime(n: &[u64]) -> Result<Self, Error> {
        if n.first().is_none_or(|&w| w & 1 == 0) {
            return Err(Error::InvalidArgument("modulus must be odd"));
        }
        let mut r2 = crate::bignum::Nat::zero();
        r2.set_bit(2 * B as usize * D, true);
        let rr = r2.rem(&crate::bignum::Nat::from_slice(n))?;
        Self::new(n, rr.as_limbs())
    }

    /// The limb length of the numbers (bases, results) that go with this modulus.
    pub(crate) fn limbs(&self) -> usize {
        self.limbs
    }

    /// The digits of an operand `base` that goes with this modulus, checking the contract
    /// of the exponentiations: `base` and `out_len` are [`RadixParams::limbs`] long and
    /// `base < n`. Constant-time in `base`; the error reveals only which check failed.
    pub(crate) fn operand_digits(&self, base: &[u64], out_len: usize) -> Result<[u64; D], Error> {
        if base.len() != self.limbs || out_len != self.limbs {
            return Err(Error::InvalidArgument("base and result must have the modulus's length"));
        }
        let mut digits = [0u64; D];
        let fits = to_radix(&mut digits, base, B);
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

/// One lane's inputs to a multi-lane exponentiation in radix `2^B` (the IFMA mb8 and
/// the AVX2 mb4 layouts): the modulus's digits, `RR`, `k0`, and the base's digits.
#[derive(Clone, Copy)]
pub(crate) struct LaneDigits<const D: usize, const B: u32> {
    pub(crate) n: [u64; D],
    pub(crate) rr: [u64; D],
    pub(crate) base: [u64; D],
    pub(crate) k0: u64,
}

impl<const D: usize, const B: u32> LaneDigits<D, B> {
    /// The dummy lane of an empty or refused slot: modulus 1 (`k0 = -1 mod 2^B`), base 0,
    /// RR 0, so that it computes harmlessly beside the others.
    pub(crate) const DUMMY: Self = {
        let mut n = [0; D];
        n[0] = 1;
        LaneDigits { n, rr: [0; D], base: [0; D], k0: digit_mask(B) }
    };

    /// The lane of `base` (checked by [`RadixParams::operand_digits`]) under `p`.
    pub(crate) fn from_params(
        p: &RadixParams<D, B>,
        base: &[u64],
        out_len: usize,
    ) -> Result<Self, Error> {
        let base = p.operand_digits(base, out_len)?;
        Ok(LaneDigits { n: p.n, rr: p.rr, base, k0: p.k0 })
    }
}
