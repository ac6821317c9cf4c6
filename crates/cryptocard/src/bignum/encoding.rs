//! Hexadecimal and decimal strings.
//!
//! Hexadecimal is a regrouping of bits: 16 digits a limb. Decimal goes limb-wise through
//! the largest power of ten in a limb, `10^19 < 2^64`: parsing multiplies by `10^19` and
//! adds the next 19 digits (one multiply-add pass), printing divides by `10^19` and emits 19
//! digits per remainder (`divrem_1`). Both are quadratic, fine for the sizes cryptography
//! uses (a 65536-bit number is about 20,000 digits).
//!
//! Parsing accepts only digits (either case for hexadecimal), at least one; no sign,
//! prefix, separator or whitespace. Anything else is [`Error::InvalidEncoding`], never a
//! panic. [`core::str::FromStr`] and [`core::fmt::Display`] are decimal, like the integer
//! types; [`core::fmt::LowerHex`] and [`core::fmt::UpperHex`] honour `{:#x}`.

use super::div::divrem_1;
use super::nat::Nat;
use crate::limb::{Limb, mac};
use crate::{Error, Result};
use core::fmt;

/// `10^19`, the largest power of ten below `2^64`.
const TEN19: Limb = 10_000_000_000_000_000_000;
const DEC_DIGITS_PER_LIMB: usize = 19;

impl Nat {
    /// Parses hexadecimal digits (upper or lower case, leading zeros allowed).
    pub fn from_hex(s: &str) -> Result<Nat> {
        let bytes = s.as_bytes();
        if bytes.is_empty() {
            return Err(Error::InvalidEncoding("empty hexadecimal string"));
        }
        let mut limbs = Vec::with_capacity(bytes.len().div_ceil(16));
        for chunk in bytes.rchunks(16) {
            let mut limb: Limb = 0;
            for &c in chunk {
                let digit = (c as char)
                    .to_digit(16)
                    .ok_or(Error::InvalidEncoding("not a hexadecimal digit"))?;
                limb = (limb << 4) | digit as Limb;
            }
            limbs.push(limb);
        }
        Ok(Nat::from_limbs(limbs))
    }

    /// Lowercase hexadecimal without leading zeros (`"0"` for zero).
    pub fn to_hex(&self) -> String {
        match self.as_limbs().split_last() {
            None => "0".into(),
            Some((top, rest)) => {
                let mut s = format!("{top:x}");
                for l in rest.iter().rev() {
                    s.push_str(&format!("{l:016x}"));
                }
                s
            }
        }
    }

    /// Parses decimal digits (leading zeros allowed).
    pub fn from_dec(s: &str) -> Result<Nat> {
        let bytes = s.as_bytes();
        if bytes.is_empty() {
            return Err(Error::InvalidEncoding("empty decimal string"));
        }
        let mut limbs: Vec<Limb> = Vec::with_capacity(bytes.len() / DEC_DIGITS_PER_LIMB + 1);
        // The first chunk takes the leftover digits, so that the others are exactly 19.
        let first = match bytes.len() % DEC_DIGITS_PER_LIMB {
            0 => DEC_DIGITS_PER_LIMB,
            k => k,
        };
        let (head, tail) = bytes.split_at(first);
        for chunk in core::iter::once(head).chain(tail.chunks(DEC_DIGITS_PER_LIMB)) {
            let mut x: Limb = 0;
            for &c in chunk {
                if !c.is_ascii_digit() {
                    return Err(Error::InvalidEncoding("not a decimal digit"));
                }
                // At most 19 digits: below 10^19 < 2^64.
                x = x * 10 + (c - b'0') as Limb;
            }
            // limbs = limbs · 10^19 + x, in place, with x as the first carry.
            let mut carry = x;
            for l in limbs.iter_mut() {
                (*l, carry) = mac(0, *l, TEN19, carry);
            }
            if carry != 0 {
                limbs.push(carry);
            }
        }
        Ok(Nat::from_limbs(limbs))
    }

    /// Decimal digits without leading zeros (`"0"` for zero).
    pub fn to_dec(&self) -> String {
        if self.is_zero() {
            return "0".into();
        }
        let mut x = self.as_limbs().to_vec();
        let mut q = Vec::with_capacity(x.len());
        let mut chunks = Vec::with_capacity(x.len() * 64 / 63 + 1);
        while !x.is_empty() {
            q.resize(x.len(), 0);
            chunks.push(divrem_1(&mut q, &x, TEN19));
            core::mem::swap(&mut x, &mut q);
            while x.last() == Some(&0) {
                x.pop();
            }
        }
        let mut s = String::with_capacity(chunks.len() * DEC_DIGITS_PER_LIMB);
        let mut rest = chunks.iter().rev();
        if let Some(top) = rest.next() {
            s.push_str(&top.to_string());
        }
        for c in rest {
            s.push_str(&format!("{c:019}"));
        }
        s
    }
}

impl core::str::FromStr for Nat {
    type Err = Error;
    /// Decimal, as [`Nat::from_dec`].
    fn from_str(s: &str) -> Result<Nat> {
        Nat::from_dec(s)
    }
}

impl fmt::Display for Nat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad_integral(true, "", &self.to_dec())
    }
}

impl fmt::LowerHex for Nat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad_integral(true, "0x", &self.to_hex())
    }
}

impl fmt::UpperHex for Nat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad_integral(true, "0x", &self.to_hex().to_ascii_uppercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_round_trip_and_reject_junk() {
        let n = Nat::from_hex("0001234567890abcdefABCDEF0123456789").unwrap();
        assert_eq!(n.to_hex(), "1234567890abcdefabcdef0123456789");
        assert_eq!(format!("{n:#x}"), "0x1234567890abcdefabcdef0123456789");
        assert_eq!(format!("{:X}", Nat::from_u64(255)), "FF");
        assert_eq!(Nat::zero().to_hex(), "0");
        // 2^64 = 18446744073709551616, 10^19 and its neighbours.
        let two64 = Nat::from_limbs(vec![0, 1]);
        assert_eq!(two64.to_dec(), "18446744073709551616");
        assert_eq!(Nat::from_dec("18446744073709551616").unwrap(), two64);
        assert_eq!(Nat::from_u64(TEN19).to_string(), "10000000000000000000");
        assert_eq!("9999999999999999999".parse::<Nat>().unwrap(), Nat::from_u64(TEN19 - 1));
        assert_eq!(format!("{:>5}", Nat::from_u64(42)), "   42");
        assert_eq!(Nat::from_dec("000").unwrap(), Nat::zero());
        assert_eq!(Nat::zero().to_string(), "0");
        for bad in ["", "12a", "-1", "+1", " 1", "1_0", "０"] {
            assert!(Nat::from_dec(bad).is_err(), "{bad:?}");
        }
        for bad in ["", "0x1", "g", "-a", "1 "] {
            assert!(Nat::from_hex(bad).is_err(), "{bad:?}");
        }
    }
}
