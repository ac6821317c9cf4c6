//! `Nat` addition, subtraction, multiplication, squaring and shifts, and the operator
//! traits for them.
//!
//! Operators are implemented only where the operation is total: `+`, `*`, `<<`, `>>` (on
//! references and owned values, and the `*Assign` forms). Subtraction can underflow and
//! division can meet a zero divisor, so they are methods returning `Option`/`Result`
//! ([`Nat::checked_sub`], [`Nat::sub`], [`Nat::div_rem`]); there is deliberately no `-`
//! or `/` operator that could panic on untrusted input.
//!
//! Products go through [`super::mul::mul`], which picks the basecase, Karatsuba or Toom-3
//! by size and allocates its scratch space once per call.

use super::mul;
use super::nat::Nat;
use super::shift::{lshift, rshift};
use crate::limb::{LIMB_BITS, Limb, add_1, sub_1};
use crate::{Error, Result};
use core::cmp::Ordering;
use core::ops::{Add, AddAssign, Mul, MulAssign, Shl, ShlAssign, Shr, ShrAssign};

impl Nat {
    /// `self - other`, or `None` if `other > self`.
    pub fn checked_sub(&self, other: &Nat) -> Option<Nat> {
        if self.cmp(other) == Ordering::Less {
            return None;
        }
        let mut v = self.as_limbs().to_vec();
        let borrow = sub_1(&mut v, other.as_limbs());
        debug_assert_eq!(borrow, 0, "internal error: checked_sub borrow");
        Some(Nat::from_limbs(v))
    }

    /// `self - other`, failing with [`Error::InvalidArgument`] if `other > self`.
    pub fn sub(&self, other: &Nat) -> Result<Nat> {
        self.checked_sub(other).ok_or(Error::InvalidArgument("subtraction underflow"))
    }

    /// `self^2`, by dedicated squaring (about half the limb products of `self * self`).
    pub fn square(&self) -> Nat {
        let a = self.as_limbs();
        if a.is_empty() {
            return Nat::zero();
        }
        let mut r = vec![0; 2 * a.len()];
        mul::sqr(&mut r, a);
        Nat::from_limbs(r)
    }

    /// `self << bits`, or `None` if the result would have more than `max_bits` bits: the
    /// form to use with a shift count from untrusted input, since `<<` allocates whatever
    /// the count asks for.
    pub fn checked_shl(&self, bits: usize, max_bits: usize) -> Option<Nat> {
        if self.is_zero() {
            return Some(Nat::zero());
        }
        let total = self.bits().checked_add(bits)?;
        (total <= max_bits).then(|| shl_limbs(self.as_limbs(), bits))
    }
}

/// `a + b` for `a.len() >= b.len()`.
fn add_limbs(a: &[Limb], b: &[Limb]) -> Nat {
    let mut v = Vec::with_capacity(a.len() + 1);
    v.extend_from_slice(a);
    v.push(0);
    // a + b < 2 B^len(a): the extra limb absorbs the carry.
    add_1(&mut v, b);
    Nat::from_limbs(v)
}

fn add_nat(a: &Nat, b: &Nat) -> Nat {
    let (a, b) = (a.as_limbs(), b.as_limbs());
    if a.len() >= b.len() { add_limbs(a, b) } else { add_limbs(b, a) }
}

fn mul_nat(a: &Nat, b: &Nat) -> Nat {
    let (a, b) = (a.as_limbs(), b.as_limbs());
    if a.is_empty() || b.is_empty() {
        return Nat::zero();
    }
    let mut r = vec![0; a.len() + b.len()];
    mul::mul(&mut r, a, b);
    Nat::from_limbs(r)
}

/// `a << bits` (`a` normalised, not empty).
fn shl_limbs(a: &[Limb], bits: usize) -> Nat {
    let (limbs, s) = (bits / LIMB_BITS, (bits % LIMB_BITS) as u32);
    let mut v = vec![0; limbs + a.len() + 1];
    let top = lshift(&mut v[limbs..limbs + a.len()], a, s);
    v[limbs + a.len()] = top;
    Nat::from_limbs(v)
}

fn shl_nat(a: &Nat, bits: usize) -> Nat {
    if a.is_zero() { Nat::zero() } else { shl_limbs(a.as_limbs(), bits) }
}

fn shr_nat(a: &Nat, bits: usize) -> Nat {
    let a = a.as_limbs();
    let (limbs, s) = (bits / LIMB_BITS, (bits % LIMB_BITS) as u32);
    if limbs >= a.len() {
        return Nat::zero();
    }
    let mut v = vec![0; a.len() - limbs];
    rshift(&mut v, &a[limbs..], s);
    Nat::from_limbs(v)
}

/// Implements a binary operator for the four owned/borrowed combinations from one
/// function on references.
macro_rules! forward_binop {
    ($tr:ident, $method:ident, $assign_tr:ident, $assign:ident, $f:ident) => {
        impl $tr<&Nat> for &Nat {
            type Output = Nat;
            fn $method(self, rhs: &Nat) -> Nat {
                $f(self, rhs)
            }
        }
        impl $tr<&Nat> for Nat {
            type Output = Nat;
            fn $method(self, rhs: &Nat) -> Nat {
                $f(&self, rhs)
            }
        }
        impl $tr<Nat> for &Nat {
            type Output = Nat;
            fn $method(self, rhs: Nat) -> Nat {
                $f(self, &rhs)
            }
        }
        impl $tr<Nat> for Nat {
            type Output = Nat;
            fn $method(self, rhs: Nat) -> Nat {
                $f(&self, &rhs)
            }
        }
        impl $assign_tr<&Nat> for Nat {
            fn $assign(&mut self, rhs: &Nat) {
                *self = $f(self, rhs);
            }
        }
        impl $assign_tr<Nat> for Nat {
            fn $assign(&mut self, rhs: Nat) {
                *self = $f(self, &rhs);
            }
        }
    };
}

forward_binop!(Add, add, AddAssign, add_assign, add_nat);
forward_binop!(Mul, mul, MulAssign, mul_assign, mul_nat);

/// Implements a shift operator by a bit count for `&Nat` and `Nat`.
macro_rules! forward_shift {
    ($tr:ident, $method:ident, $assign_tr:ident, $assign:ident, $f:ident) => {
        impl $tr<usize> for &Nat {
            type Output = Nat;
            fn $method(self, bits: usize) -> Nat {
                $f(self, bits)
            }
        }
        impl $tr<usize> for Nat {
            type Output = Nat;
            fn $method(self, bits: usize) -> Nat {
                $f(&self, bits)
            }
        }
        impl $assign_tr<usize> for Nat {
            fn $assign(&mut self, bits: usize) {
                *self = $f(self, bits);
            }
        }
    };
}

// `<<` allocates `bits / 64` limbs: with a count from untrusted input use
// `Nat::checked_shl`, which bounds the result.
forward_shift!(Shl, shl, ShlAssign, shl_assign, shl_nat);
forward_shift!(Shr, shr, ShrAssign, shr_assign, shr_nat);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_identities() {
        let a = Nat::from_limbs(vec![!0, !0]);
        let one = Nat::one();
        let sum = &a + &one;
        assert_eq!(sum.as_limbs(), &[0, 0, 1]);
        assert_eq!(sum.checked_sub(&one).unwrap(), a);
        assert!(one.checked_sub(&a).is_none());
        assert!(one.sub(&a).is_err());
        assert_eq!((&a * &a), a.square());
        assert_eq!((&a << 65).as_limbs(), &[0, !0 - 1, !0, 1]);
        assert_eq!((&a << 65) >> 65, a);
        assert!((&a >> 128).is_zero());
        assert!(a.checked_shl(usize::MAX, usize::MAX).is_none());
        assert!(a.checked_shl(100, 200).is_none());
        assert_eq!(a.checked_shl(72, 200).unwrap(), &a << 72);
        let mut b = a.clone();
        b += &one;
        b *= Nat::from_u64(2);
        assert_eq!(b.as_limbs(), &[0, 0, 2]);
        assert!((Nat::zero() * &a).is_zero());
        assert!((Nat::zero() << 5).is_zero());
    }
}
