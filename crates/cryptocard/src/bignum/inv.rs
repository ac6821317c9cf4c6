//! Modular inverses: extended Euclid for any modulus (variable-time), and a constant-time
//! binary algorithm for odd moduli.
//!
//! **Extended Euclid** (TAOCP vol. 2, 4.5.2 algorithm X). With `r_(-1) = m`, `r_0 = a`
//! and `r_(i+1) = r_(i-1) - q_i r_i`, the cofactors `s_(i+1) = s_(i-1) - q_i s_i`
//! (`s_(-1) = 0`, `s_0 = 1`) satisfy `s_i a ≡ r_i (mod m)` and alternate in sign, so only
//! their magnitudes `t_(i+1) = t_(i-1) + q_i t_i` are kept, with the sign `(-1)^i`. When
//! `r_i = gcd(a, m) = 1` the inverse is `t_i` for even `i` and `m - t_i` for odd `i`.
//!
//! **Constant-time binary inverse** for odd `m` (Möller's `sec_invert`, as in GMP's
//! `mpn_sec_invert` and Nettle's `ecc_mod_inv`; the binary extended algorithm of
//! TAOCP 4.5.2 exercise 39 with every branch replaced by masks). State `(a, b, u, v)`
//! with `a ≡ u·x`, `b ≡ v·x (mod m)` and `b` odd, starting from `(x, m, 1, 0)`. Each step:
//!
//! ```text
//! if a odd:  if a < b: (a, b, u, v) = (b, a, v, u)     -- done as a - b, then masks
//!            a = a - b;  u = u - v (mod m)
//! a = a / 2;  u = u / 2 (mod m)                         -- (u + m)/2 when u is odd
//! ```
//!
//! Each step removes at least one bit from `bits(a) + bits(b)`, so after
//! `64·len(m) + bits(m)` steps (the bound for any `x` of `len(m)` limbs) `a = 0` and
//! `b = gcd(x, m)`; if that is 1, `v` is the inverse. The loop count depends only on the
//! modulus's public size, every step touches every limb, and the selections are masks.
//!
//! What [`Nat::mod_inverse_odd`] leaks: the limb length and bit length of `m` (public),
//! whether `x` fits in `m`'s limbs, and whether `x` is invertible (the result). Not the
//! value of `x` or of its inverse. The returned `Nat` is normalised, which, like every
//! `Nat`, exposes its size to whoever holds it.

use super::add::{cnd_add_n, cnd_neg_assign, cnd_sub_n};
use super::nat::Nat;
use super::nat_div::Divisor;
use super::shift::rshift_assign;
use crate::ct::{Choice, conditional_swap, limbs_eq};
use crate::limb::{LIMB_BITS, Limb};
use crate::{Error, Result};
use zeroize::Zeroizing;

impl Nat {
    /// `self^-1 mod m` by extended Euclid, for any modulus `m >= 1` (`0` for `m = 1`).
    /// Fails with [`Error::InvalidArgument`] if `m` is zero or `gcd(self, m) != 1`.
    /// Variable-time: for public values, or any modulus where a constant-time
    /// inverse is not needed.
    pub fn mod_inverse_vartime(&self, m: &Nat) -> Result<Nat> {
        let dm = Divisor::new(m)?;
        if m.is_one() {
            return Ok(Nat::zero());
        }
        // (r0, r1) = (m, a mod m), (t0, t1) = (0, 1); i counts the steps for the sign.
        let mut r0 = m.clone();
        let mut r1 = dm.rem_limbs(self.as_limbs());
        let mut t0 = Nat::zero();
        let mut t1 = Nat::one();
        let mut odd = false;
        while !r1.is_zero() {
            let (q, r) = Divisor::new(&r1)?.div_rem(&r0);
            let t = &t0 + &(&q * &t1);
            (r0, r1) = (r1, r);
            (t0, t1) = (t1, t);
            odd = !odd;
        }
        // Now r0 = gcd and t0 is the magnitude of its cofactor, of sign (-1)^(steps - 1).
        if !r0.is_one() {
            return Err(Error::InvalidArgument("not invertible: gcd(a, m) != 1"));
        }
        if odd { Ok(t0) } else { m.sub(&t0) }
    }

    /// `self^-1 mod m` in constant time for an odd modulus `m > 1`, with `self` of at
    /// most as many limbs as `m` (any value below `2^(64 len(m))`; it need not be
    /// reduced). Fails with [`Error::InvalidArgument`] for an even or too small modulus,
    /// a too long `self`, or a non-invertible `self` (including `self ≡ 0`).
    ///
    /// Leaks only the sizes of `m`, whether `self` fits, and whether it is invertible;
    /// see the module documentation.
    pub fn mod_inverse_odd(&self, m: &Nat) -> Result<Nat> {
        if !super::shape::odd(m.as_limbs()) || m.is_one() {
            return Err(Error::InvalidArgument("mod_inverse_odd needs an odd modulus > 1"));
        }
        let n = m.limb_len();
        let x = self.to_limbs_padded(n).map(Zeroizing::new).map_err(|_| {
            Error::InvalidArgument("mod_inverse_odd: value longer than the modulus")
        })?;
        let mut v = Zeroizing::new(vec![0; n]);
        let invertible = sec_invert(&mut v, &x, m.as_limbs(), m.bits());
        if !invertible.declassify() {
            return Err(Error::InvalidArgument("not invertible: gcd(a, m) != 1"));
        }
        Ok(Nat::from_slice(&v))
    }
}

/// `v = x^-1 mod m` by the masked binary algorithm; returns whether `gcd(x, m) = 1` (if
/// not, `v` is meaningless). Contract: `v`, `x`, `m` of the same length `n >= 1`, `m` odd
/// and `m > 1`, `m_bits` its bit length. Time depends only on `n` and `m_bits`. Allocates
/// three `n`-limb buffers (zeroised on drop).
pub(crate) fn sec_invert(v: &mut [Limb], x: &[Limb], m: &[Limb], m_bits: usize) -> Choice {
    let n = m.len();
    assert!(x.len() == n && v.len() == n && super::shape::odd(m), "internal error: sec_invert");
    let mut a = Zeroizing::new(x.to_vec());
    let mut b = Zeroizing::new(m.to_vec());
    let mut u = Zeroizing::new(vec![0; n]);
    u[0] = 1;
    v.fill(0);
    // (m + 1) / 2, added when halving an odd u: (u + m) / 2 = (u >> 1) + (m + 1) / 2.
    // Secret when m is (a prime of a key being made): wiped on drop, like a, b and u.
    let mut half = Zeroizing::new(m.to_vec());
    rshift_assign(&mut half, 1);
    let carry = crate::limb::add_limb(&mut half, 1);
    debug_assert_eq!(carry, 0);

    for _ in 0..LIMB_BITS * n + m_bits {
        let odd = Choice::from_bit(a[0] & 1);
        // a -= b if a is odd; a borrow means a < b: then b takes the old a (b + (a - b))
        // and a becomes b - a, and u, v swap.
        let swap = Choice::from_bit(cnd_sub_n(odd, &mut a, &b));
        cnd_add_n(swap, &mut b, &a);
        cnd_neg_assign(swap, &mut a);
        conditional_swap(swap, &mut u, v);
        // u -= v (mod m) if a was odd.
        let borrow = cnd_sub_n(odd, &mut u, v);
        cnd_add_n(Choice::from_bit(borrow), &mut u, m);
        // a is even now: halve it, and u with it (mod m).
        rshift_assign(&mut a, 1);
        let u_odd = Choice::from_bit(rshift_assign(&mut u, 1) >> (LIMB_BITS - 1));
        cnd_add_n(u_odd, &mut u, &half);
    }
    // a = 0 and b = gcd(x, m): invertible exactly when b = 1.
    let mut one = vec![0; n];
    one[0] = 1;
    limbs_eq(&b, &one)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_inverses() {
        let n = |x: u64| Nat::from_u64(x);
        for m in [3u64, 7, 15, 101, 0xffff_ffff_ffff_ffc5] {
            for a in [1u64, 2, 5, 6, 100, m - 1, m + 1, u64::MAX] {
                let g = n(a).gcd(&n(m));
                let vt = n(a).mod_inverse_vartime(&n(m));
                let ct = n(a).mod_inverse_odd(&n(m));
                if g.is_one() {
                    let inv = vt.unwrap();
                    assert_eq!(ct.unwrap(), inv, "a = {a}, m = {m}");
                    assert!(inv < n(m));
                    let prod = (n(a) * &inv).rem(&n(m)).unwrap();
                    assert!(prod.is_one(), "a = {a}, m = {m}");
                } else {
                    assert!(vt.is_err() && ct.is_err(), "a = {a}, m = {m}");
                }
            }
        }
        assert!(n(3).mod_inverse_vartime(&n(0)).is_err());
        assert_eq!(n(3).mod_inverse_vartime(&n(1)).unwrap(), n(0));
        assert_eq!(n(3).mod_inverse_vartime(&n(10)).unwrap(), n(7));
        assert!(n(3).mod_inverse_odd(&n(10)).is_err());
        assert!(n(3).mod_inverse_odd(&n(1)).is_err());
        assert!(Nat::from_limbs(vec![1, 1]).mod_inverse_odd(&n(7)).is_err());
    }
}
