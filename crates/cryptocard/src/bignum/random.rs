//! Uniformly random `Nat`s from a [`RandomSource`].
//!
//! * [`Nat::random_bits`]: exactly `n` bits (the top bit set, the others uniform), as RSA
//!   prime candidates need.
//! * [`Nat::random_below`]: uniform in `[0, bound)` by rejection sampling: draw
//!   `bits(bound)` uniform bits and retry while the draw is `>= bound`. Each draw succeeds
//!   with probability `bound / 2^bits(bound) > 1/2`, so the expected number of draws is
//!   below 2 and the result is exactly uniform (no modular bias). A source that fails 128
//!   draws in a row (probability below `2^-128` for a working one) is reported as
//!   [`Error::Rng`] rather than looping for ever.
//! * [`Nat::random_range`]: uniform in `[low, high)`, as `low + random_below(high - low)`.
//!
//! Intermediate buffers are zeroised. The number of draws leaks (it is independent of the
//! value returned).

use super::nat::Nat;
use crate::rng::RandomSource;
use crate::{Error, Result};
use zeroize::Zeroizing;

const MAX_DRAWS: usize = 128;

impl Nat {
    /// A uniform value in `[0, 2^bits)`.
    fn random_up_to_bits(bits: usize, rng: &mut dyn RandomSource) -> Result<Nat> {
        let len = bits.div_ceil(8);
        let mut buf = Zeroizing::new(vec![0u8; len]);
        rng.fill_bytes(&mut buf)?;
        if !bits.is_multiple_of(8) {
            buf[0] &= (1u8 << (bits % 8)) - 1;
        }
        Ok(Nat::from_be_bytes(&buf))
    }

    /// A uniform value of exactly `bits` bits: in `[2^(bits - 1), 2^bits)`, and zero for
    /// `bits = 0`.
    pub fn random_bits(bits: usize, rng: &mut dyn RandomSource) -> Result<Nat> {
        let mut n = Nat::random_up_to_bits(bits, rng)?;
        if bits > 0 {
            n.set_bit(bits - 1, true);
        }
        Ok(n)
    }

    /// A uniform value in `[0, bound)`; fails with [`Error::InvalidArgument`] for
    /// `bound = 0`.
    pub fn random_below(bound: &Nat, rng: &mut dyn RandomSource) -> Result<Nat> {
        if bound.is_zero() {
            return Err(Error::InvalidArgument("random_below: bound is zero"));
        }
        let bits = bound.bits();
        for _ in 0..MAX_DRAWS {
            let n = Nat::random_up_to_bits(bits, rng)?;
            if n < *bound {
                return Ok(n);
            }
        }
        Err(Error::Rng)
    }

    /// A uniform value in `[low, high)`; fails with [`Error::InvalidArgument`] unless
    /// `low < high`.
    pub fn random_range(low: &Nat, high: &Nat, rng: &mut dyn RandomSource) -> Result<Nat> {
        let width = high
            .checked_sub(low)
            .filter(|w| !w.is_zero())
            .ok_or(Error::InvalidArgument("random_range: empty range"))?;
        Ok(Nat::random_below(&width, rng)? + low)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic source: a 64-bit xorshift, or a constant byte.
    struct Fixed(u64, Option<u8>);

    impl RandomSource for Fixed {
        fn fill_bytes(&mut self, dest: &mut [u8]) -> Result<()> {
            for b in dest {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                *b = self.1.unwrap_or(self.0 as u8);
            }
            Ok(())
        }
    }

    #[test]
    fn bounds_sizes_and_errors() {
        let mut rng = Fixed(0x1234_5678, None);
        let bound = Nat::from_u64(1000);
        let mut seen = [false; 10];
        for _ in 0..500 {
            let x = Nat::random_below(&bound, &mut rng).unwrap();
            assert!(x < bound);
            seen[x.to_u64().unwrap() as usize / 100] = true;
        }
        assert!(seen.iter().all(|&s| s), "every tenth of the range is hit");
        for bits in [0, 1, 7, 8, 9, 64, 65, 1000] {
            assert_eq!(Nat::random_bits(bits, &mut rng).unwrap().bits(), bits);
        }
        let (lo, hi) = (Nat::from_u64(10), Nat::from_u64(13));
        for _ in 0..50 {
            let x = Nat::random_range(&lo, &hi, &mut rng).unwrap();
            assert!(lo <= x && x < hi);
        }
        assert!(Nat::random_below(&Nat::zero(), &mut rng).is_err());
        assert!(Nat::random_range(&hi, &lo, &mut rng).is_err());
        assert!(Nat::random_range(&lo, &lo, &mut rng).is_err());
        // A stuck source never lands below 1000 (0x3ff... is always >= 1000).
        let mut stuck = Fixed(1, Some(0xff));
        assert_eq!(Nat::random_below(&bound, &mut stuck), Err(Error::Rng));
    }
}
