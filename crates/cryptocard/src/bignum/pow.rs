//! Powers: plain `a^e`, and modular multiplication and exponentiation for *any* modulus,
//! even ones included, by division (the general fallback; odd moduli get Montgomery
//! arithmetic in [`crate::modular`]).
//!
//! `pow_mod_vartime` is left-to-right exponentiation with a fixed window of `w` bits
//! (TAOCP vol. 2, 4.6.3; the "2^k-ary method"): precompute `a^0 .. a^(2^w - 1)`, then for
//! each window of the exponent from the top square `w` times and multiply by the table
//! entry. A `k`-bit exponent costs about `k` squarings and `k/w` multiplications, each
//! followed by a reduction by algorithm D with the divisor normalised once. `w` grows
//! with the exponent (1 bit up to 4 bits: 2, up to 64: 3, and so on to 6), the choice
//! that minimises `2^w + k/w`.
//!
//! Everything here is variable-time: the exponent's bits select the multiplications and
//! the reductions' corrections depend on the values. Secret exponents go through
//! [`crate::modular`].

use super::nat::Nat;
use super::nat_div::Divisor;
use crate::{Error, Result};

/// The largest result `pow` computes, in bits (2^32 bits: a 512 MiB number).
pub const MAX_POW_BITS: u64 = 1 << 32;

/// The window width for a `bits`-bit exponent.
fn window(bits: usize) -> usize {
    match bits {
        0..=4 => 1,
        5..=64 => 3,
        65..=512 => 4,
        513..=2048 => 5,
        _ => 6,
    }
}

impl Nat {
    /// `self^e`. Fails with [`Error::InvalidArgument`] if the result would exceed
    /// [`MAX_POW_BITS`] bits (so an untrusted exponent cannot exhaust memory).
    /// `0^0 = 1`. Variable-time.
    pub fn pow(&self, e: u64) -> Result<Nat> {
        if e == 0 {
            return Ok(Nat::one());
        }
        if self.is_zero() || self.is_one() {
            return Ok(self.clone());
        }
        // bits(a^e) <= e·bits(a).
        if (self.bits() as u64).checked_mul(e).is_none_or(|b| b > MAX_POW_BITS) {
            return Err(Error::InvalidArgument("pow result too large"));
        }
        let mut acc = Nat::one();
        for i in (0..u64::BITS - e.leading_zeros()).rev() {
            acc = acc.square();
            if (e >> i) & 1 == 1 {
                acc = &acc * self;
            }
        }
        Ok(acc)
    }

    /// `self · b mod m` for any `m >= 1`; fails with [`Error::InvalidArgument`] for
    /// `m = 0`. Variable-time.
    pub fn mod_mul_vartime(&self, b: &Nat, m: &Nat) -> Result<Nat> {
        let d = Divisor::new(m)?;
        Ok(d.rem_limbs((self * b).as_limbs()))
    }

    /// `self^e mod m` for any `m >= 1`, even or odd; fails with
    /// [`Error::InvalidArgument`] for `m = 0`. `x^0 mod 1 = 0`. Variable-time in every
    /// input: for public exponents or where the caller accepts the leak.
    pub fn pow_mod_vartime(&self, e: &Nat, m: &Nat) -> Result<Nat> {
        let d = Divisor::new(m)?;
        if m.is_one() {
            return Ok(Nat::zero());
        }
        let base = d.rem_limbs(self.as_limbs());
        let bits = e.bits();
        if bits == 0 {
            return Ok(Nat::one());
        }
        let w = window(bits);
        let mut table = Vec::with_capacity(1 << w);
        table.push(Nat::one());
        for i in 1..1 << w {
            let prev: &Nat = &table[i - 1];
            table.push(d.rem_limbs((prev * &base).as_limbs()));
        }
        let mut acc = Nat::one();
        // Windows from the top; the first may be shorter.
        let mut i = bits.div_ceil(w) * w;
        while i > 0 {
            i -= w;
            for _ in 0..w {
                acc = d.rem_limbs(acc.square().as_limbs());
            }
            let mut digit = 0;
            for j in (0..w).rev() {
                digit = (digit << 1) | e.bit(i + j) as usize;
            }
            if digit != 0 {
                acc = d.rem_limbs((&acc * &table[digit]).as_limbs());
            }
        }
        debug_assert!(acc < *d.value(), "internal error: pow_mod_vartime reduction");
        Ok(acc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_powers() {
        let n = |x: u64| Nat::from_u64(x);
        assert_eq!(n(3).pow(4).unwrap(), n(81));
        assert_eq!(n(0).pow(0).unwrap(), n(1));
        assert_eq!(n(0).pow(5).unwrap(), n(0));
        assert_eq!(n(2).pow(200).unwrap(), Nat::one() << 200);
        assert!(n(2).pow(u64::MAX).is_err());
        assert_eq!(n(1).pow(u64::MAX).unwrap(), n(1));
        assert_eq!(n(4).pow_mod_vartime(&n(13), &n(497)).unwrap(), n(445));
        assert_eq!(n(4).pow_mod_vartime(&n(0), &n(497)).unwrap(), n(1));
        assert_eq!(n(4).pow_mod_vartime(&n(0), &n(1)).unwrap(), n(0));
        assert_eq!(
            n(3).pow_mod_vartime(&n(1000), &n(1 << 20)).unwrap().to_u64(),
            Some((0..1000).fold(1u64, |acc, _| acc * 3 % (1 << 20)))
        );
        assert!(n(4).pow_mod_vartime(&n(2), &n(0)).is_err());
        assert_eq!(n(7).mod_mul_vartime(&n(9), &n(10)).unwrap(), n(3));
        assert!(n(7).mod_mul_vartime(&n(9), &n(0)).is_err());
    }
}
