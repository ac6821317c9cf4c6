//! `Nat`: an owned arbitrary-precision natural number.
//!
//! Limbs are little-endian and normalised: the most significant limb is never zero, and
//! zero is the empty vector. The normalisation makes `Nat` arithmetic variable-time in the
//! *size* of its values, so secrets that must not leak their size go through the fixed-size
//! types of [`crate::modular`] instead. The size itself (limb and bit length) is computed
//! in constant time and made public in `shape.rs`. Limbs are zeroised when a `Nat` is
//! dropped.

use crate::limb::{LIMB_BYTES, Limb};
use crate::{Error, Result};
use core::cmp::Ordering;
use zeroize::Zeroize;

/// An arbitrary-precision unsigned integer.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Nat {
    limbs: Vec<Limb>,
}

impl Drop for Nat {
    fn drop(&mut self) {
        self.limbs.zeroize();
    }
}

impl Nat {
    /// Zero.
    pub const fn zero() -> Nat {
        Nat { limbs: Vec::new() }
    }

    /// One.
    pub fn one() -> Nat {
        Nat::from_u64(1)
    }

    /// A one-limb value.
    pub fn from_u64(x: u64) -> Nat {
        Nat::from_limbs(vec![x])
    }

    /// A two-limb value.
    pub fn from_u128(x: u128) -> Nat {
        Nat::from_limbs(vec![x as Limb, (x >> 64) as Limb])
    }

    /// Takes little-endian limbs, dropping high zero limbs.
    pub fn from_limbs(limbs: Vec<Limb>) -> Nat {
        let mut n = Nat { limbs };
        n.normalize();
        n
    }

    /// Copies little-endian limbs, dropping high zero limbs.
    pub fn from_slice(limbs: &[Limb]) -> Nat {
        Nat::from_limbs(limbs.to_vec())
    }

    /// The little-endian limbs, without high zero limbs (empty for zero).
    pub fn as_limbs(&self) -> &[Limb] {
        &self.limbs
    }

    /// The limbs, zero-extended (or checked) to exactly `len` limbs. Fails with
    /// [`Error::InvalidArgument`] if the value does not fit.
    ///
    /// The copy is allocated once, at its final length, so no shorter copy of the limbs is
    /// left behind in freed memory by a reallocation: a caller that wraps the result in
    /// `Zeroizing` (a CRT exponent, a value to invert) wipes the only copy.
    pub fn to_limbs_padded(&self, len: usize) -> Result<Vec<Limb>> {
        if self.limbs.len() > len {
            return Err(Error::InvalidArgument("value does not fit the requested width"));
        }
        let mut v = Vec::with_capacity(len);
        v.extend_from_slice(&self.limbs);
        v.resize(len, 0);
        Ok(v)
    }

    /// Number of limbs (zero has none).
    pub fn limb_len(&self) -> usize {
        self.limbs.len()
    }

    /// Drops high zero limbs. Every constructor and operation leaves `Nat` normalised.
    pub(crate) fn normalize(&mut self) {
        self.limbs.truncate(super::shape::limbs(&self.limbs));
    }

    /// Mutable access to the limb vector for in-crate algorithms; the caller must
    /// leave it normalised (or call `normalize`).
    pub(crate) fn limbs_mut(&mut self) -> &mut Vec<Limb> {
        &mut self.limbs
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    /// True for one.
    pub fn is_one(&self) -> bool {
        self.limbs.as_slice() == [1]
    }

    /// True for odd values.
    pub fn is_odd(&self) -> bool {
        self.limbs.first().is_some_and(|l| l & 1 == 1)
    }

    /// Number of significant bits (0 for zero).
    pub fn bits(&self) -> usize {
        super::shape::bits(&self.limbs)
    }

    /// Bit `i` (bit 0 is the least significant); bits beyond the value are 0.
    pub fn bit(&self, i: usize) -> bool {
        let (q, r) = (i / Limb::BITS as usize, i % Limb::BITS as usize);
        self.limbs.get(q).is_some_and(|l| (l >> r) & 1 == 1)
    }

    /// True for even values (zero included).
    pub fn is_even(&self) -> bool {
        !self.is_odd()
    }

    /// Sets bit `i` to `value`, growing or normalising the value as needed. The value
    /// grows to `i + 1` bits: with `i` from untrusted input, bound it first.
    pub fn set_bit(&mut self, i: usize, value: bool) {
        let (q, r) = (i / Limb::BITS as usize, i % Limb::BITS as usize);
        if value {
            if self.limbs.len() <= q {
                self.limbs.resize(q + 1, 0);
            }
            self.limbs[q] |= 1 << r;
        } else if let Some(l) = self.limbs.get_mut(q) {
            *l &= !(1 << r);
            self.normalize();
        }
    }

    /// The number of trailing zero bits, or `None` for zero (which has infinitely many).
    pub fn trailing_zeros(&self) -> Option<usize> {
        let i = self.limbs.iter().position(|&l| l != 0)?;
        Some(i * Limb::BITS as usize + self.limbs[i].trailing_zeros() as usize)
    }

    /// The value as a `u128`, if it fits.
    pub fn to_u128(&self) -> Option<u128> {
        match self.limbs.as_slice() {
            [] => Some(0),
            [x] => Some(*x as u128),
            [x, y] => Some(*x as u128 | (*y as u128) << 64),
            _ => None,
        }
    }

    /// The value as a `u64`, if it fits.
    pub fn to_u64(&self) -> Option<u64> {
        match self.limbs.as_slice() {
            [] => Some(0),
            [x] => Some(*x),
            _ => None,
        }
    }

    /// Reads a big-endian byte string (leading zeros allowed; empty is zero).
    pub fn from_be_bytes(bytes: &[u8]) -> Nat {
        let mut limbs = Vec::with_capacity(bytes.len().div_ceil(LIMB_BYTES));
        for chunk in bytes.rchunks(LIMB_BYTES) {
            let mut buf = [0u8; LIMB_BYTES];
            buf[LIMB_BYTES - chunk.len()..].copy_from_slice(chunk);
            limbs.push(Limb::from_be_bytes(buf));
        }
        Nat::from_limbs(limbs)
    }

    /// The minimal big-endian encoding (empty for zero).
    pub fn to_be_bytes(&self) -> Vec<u8> {
        let len = self.bits().div_ceil(8);
        let mut out = vec![0u8; len];
        self.write_be_bytes(&mut out);
        out
    }

    /// The big-endian encoding left-padded with zeros to exactly `len` bytes, or
    /// [`Error::InvalidArgument`] if the value needs more (RFC 8017 I2OSP).
    pub fn to_be_bytes_padded(&self, len: usize) -> Result<Vec<u8>> {
        if self.bits().div_ceil(8) > len {
            return Err(Error::InvalidArgument("integer too large for the requested length"));
        }
        let mut out = vec![0u8; len];
        self.write_be_bytes(&mut out);
        Ok(out)
    }

    /// Writes the low `out.len()` bytes of the value, big-endian, into `out`.
    fn write_be_bytes(&self, out: &mut [u8]) {
        for (i, byte) in out.iter_mut().rev().enumerate() {
            let limb = self.limbs.get(i / LIMB_BYTES).copied().unwrap_or(0);
            *byte = (limb >> (8 * (i % LIMB_BYTES))) as u8;
        }
    }
}

impl Ord for Nat {
    fn cmp(&self, other: &Nat) -> Ordering {
        crate::limb::cmp_vartime(&self.limbs, &other.limbs)
    }
}

impl PartialOrd for Nat {
    fn partial_cmp(&self, other: &Nat) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl From<u64> for Nat {
    fn from(x: u64) -> Nat {
        Nat::from_u64(x)
    }
}

impl From<u128> for Nat {
    fn from(x: u128) -> Nat {
        Nat::from_u128(x)
    }
}

impl core::fmt::Debug for Nat {
    /// Prints the value in hexadecimal. Do not log secrets.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Nat(0x")?;
        match self.limbs.split_last() {
            None => f.write_str("0")?,
            Some((top, rest)) => {
                write!(f, "{top:x}")?;
                for l in rest.iter().rev() {
                    write!(f, "{l:016x}")?;
                }
            }
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip() {
        let bytes = [0u8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
        let n = Nat::from_be_bytes(&bytes);
        assert_eq!(n.as_limbs(), &[0x0405060708090a0b, 0x010203]);
        assert_eq!(n.to_be_bytes(), &bytes[2..]);
        assert_eq!(n.to_be_bytes_padded(16).unwrap()[3..], bytes[0..13]);
        assert!(n.to_be_bytes_padded(10).is_err());
        assert_eq!(n.bits(), 8 * 11 - 7);
        assert!(Nat::from_be_bytes(&[0, 0]).is_zero());
        assert_eq!(Nat::zero().to_be_bytes(), Vec::<u8>::new());
    }

    /// The padded copy is one allocation of exactly `len` limbs: growing a shorter copy
    /// would free that one with the limbs still in it.
    #[test]
    fn padded_limbs_are_allocated_once() {
        let n = Nat::from_limbs(vec![1, 2, 3]);
        for len in [3, 4, 5, 9, 64] {
            let v = n.to_limbs_padded(len).unwrap();
            assert_eq!(v[..3], [1, 2, 3]);
            assert!(v[3..].iter().all(|&l| l == 0) && v.len() == len);
            assert_eq!(v.capacity(), len, "len {len}");
        }
        assert!(n.to_limbs_padded(2).is_err());
    }

    #[test]
    fn bits_and_order() {
        let n = Nat::from_limbs(vec![0b101, 0, 0]);
        assert_eq!(n.limb_len(), 1);
        assert!(n.bit(0) && !n.bit(1) && n.bit(2) && !n.bit(200));
        assert!(Nat::from_u64(3) < Nat::from_limbs(vec![0, 1]));
        assert_eq!(format!("{:?}", Nat::from_limbs(vec![1, 2])), "Nat(0x20000000000000001)");
        assert_eq!(Nat::from_u128(u128::MAX).as_limbs(), &[!0, !0]);
        assert_eq!(Nat::from_u128(5).to_u128(), Some(5));
        assert_eq!(Nat::from_limbs(vec![1, 2, 3]).to_u128(), None);
        let mut m = Nat::zero();
        m.set_bit(130, true);
        assert_eq!(m.as_limbs(), &[0, 0, 4]);
        assert_eq!(m.trailing_zeros(), Some(130));
        m.set_bit(130, false);
        assert!(m.is_zero() && m.is_even());
        assert_eq!(m.trailing_zeros(), None);
        m.set_bit(500, false);
        assert!(m.is_zero());
    }
}
