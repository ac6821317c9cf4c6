//! `Nat` division with remainder, and [`Divisor`], a divisor normalised once for many
//! reductions (the general-modulus fallback of `mod_mul_vartime` and `pow_mod_vartime`).
//!
//! Both run Knuth's algorithm D ([`super::div`]) and are variable-time.

use super::div::{div_qr_normalized, divrem_1};
use super::nat::Nat;
use super::shift::{lshift, rshift_assign};
use crate::limb::Limb;
use crate::{Error, Result};
use core::cmp::Ordering;

/// A non-zero divisor, shifted left once so that its top bit is set (algorithm D's step
/// D1), for repeated division. Its `Debug` shows the size only (a divisor may be secret:
/// p - 1, lambda(n)).
#[derive(Clone)]
pub(crate) struct Divisor {
    /// `d << shift`, as a `Nat` so that it is zeroised when dropped.
    norm: Nat,
    shift: u32,
    /// The divisor as given.
    d: Nat,
}

impl core::fmt::Debug for Divisor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Divisor").field("bits", &self.d.bits()).finish_non_exhaustive()
    }
}

impl Divisor {
    /// Prepares division by `d`; fails with [`Error::InvalidArgument`] for zero.
    pub(crate) fn new(d: &Nat) -> Result<Divisor> {
        let Some(&top) = d.as_limbs().last() else {
            return Err(Error::InvalidArgument("division by zero"));
        };
        let shift = top.leading_zeros();
        let mut norm = d.as_limbs().to_vec();
        lshift(&mut norm, d.as_limbs(), shift);
        Ok(Divisor { norm: Nat::from_limbs(norm), shift, d: d.clone() })
    }

    /// The divisor as given.
    pub(crate) fn value(&self) -> &Nat {
        &self.d
    }

    /// `(floor(x / d), x mod d)`.
    pub(crate) fn div_rem(&self, x: &Nat) -> (Nat, Nat) {
        self.divide(x.as_limbs(), true)
    }

    /// `x mod d` for any little-endian limbs `x` (not necessarily normalised).
    pub(crate) fn rem_limbs(&self, x: &[Limb]) -> Nat {
        self.divide(x, false).1
    }

    fn divide(&self, x: &[Limb], want_q: bool) -> (Nat, Nat) {
        let d = self.d.as_limbs();
        let n = d.len();
        let len = x.len() - x.iter().rev().take_while(|&&l| l == 0).count();
        let x = &x[..len];
        if crate::limb::cmp_vartime(x, d) == Ordering::Less {
            return (Nat::zero(), Nat::from_slice(x));
        }
        if n == 1 {
            let mut q = vec![0; x.len()];
            let r = divrem_1(&mut q, x, d[0]);
            let q = if want_q { Nat::from_limbs(q) } else { Nat::zero() };
            return (q, Nat::from_u64(r));
        }
        // D1: u = x << shift, one limb longer; its top n limbs are below norm (the top
        // limb holds at most `shift` bits and norm's top bit is set), so the quotient
        // has x.len() + 1 - n limbs.
        let mut u = vec![0; x.len() + 1];
        u[x.len()] = lshift(&mut u[..x.len()], x, self.shift);
        let mut q = vec![0; x.len() + 1 - n];
        div_qr_normalized(&mut q, &mut u, self.norm.as_limbs());
        // D8: unnormalise the remainder.
        u.truncate(n);
        rshift_assign(&mut u, self.shift);
        let r = Nat::from_limbs(u);
        (Nat::from_limbs(q), r)
    }
}

impl Nat {
    /// `(floor(self / d), self mod d)` by Knuth's algorithm D, or
    /// [`Error::InvalidArgument`] if `d` is zero. Variable-time.
    pub fn div_rem(&self, d: &Nat) -> Result<(Nat, Nat)> {
        Ok(Divisor::new(d)?.div_rem(self))
    }

    /// `self mod d`, or [`Error::InvalidArgument`] if `d` is zero. Variable-time.
    pub fn rem(&self, d: &Nat) -> Result<Nat> {
        Ok(Divisor::new(d)?.rem_limbs(self.as_limbs()))
    }

    /// `self mod d` for a one-limb divisor, or [`Error::InvalidArgument`] if `d` is zero.
    pub fn rem_u64(&self, d: u64) -> Result<u64> {
        if d == 0 {
            return Err(Error::InvalidArgument("division by zero"));
        }
        let a = self.as_limbs();
        // The quotient of a secret (a candidate prime, lambda(n)) is as secret: wiped.
        let mut q = zeroize::Zeroizing::new(vec![0; a.len()]);
        Ok(divrem_1(&mut q, a, d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A divisor may be secret (p - 1, lambda(n)): its `Debug` shows its size only.
    #[test]
    fn debug_shows_the_size_only() {
        let d = Divisor::new(&Nat::from_limbs(vec![0x0123_4567_89ab_cdef, 0xfedc_ba98])).unwrap();
        assert_eq!(format!("{d:?}"), "Divisor { bits: 96, .. }");
    }

    #[test]
    fn division_identity_on_edge_shapes() {
        let cases: [(&[Limb], &[Limb]); 6] = [
            (&[0, 0, 1], &[1, 1]),
            (&[!0, !0, !0, !0], &[!0, !0]),
            (&[5, 6, 7], &[0, 1 << 63]),
            (&[1, 2, 3], &[4]),
            (&[0, 0, 0, 0x8000_0000], &[1, 0, 0x8000_0000]),
            (&[!0, 0, !0, !0 >> 1], &[!0, !0 >> 1]),
        ];
        for (x, d) in cases {
            let (x, d) = (Nat::from_slice(x), Nat::from_slice(d));
            let (q, r) = x.div_rem(&d).unwrap();
            assert!(r < d);
            assert_eq!(&q * &d + &r, x);
            assert_eq!(x.rem(&d).unwrap(), r);
        }
        assert!(Nat::one().div_rem(&Nat::zero()).is_err());
        assert_eq!(Nat::from_u64(100).rem_u64(7).unwrap(), 2);
    }
}
