//! Greatest common divisor (binary, Stein 1967; TAOCP vol. 2, 4.5.2 algorithm B) and
//! least common multiple.
//!
//! With `g = 2^k · g'` where `2^k` is the largest power of two dividing both inputs:
//!
//! ```text
//! gcd(a, b) = 2^k · gcd(a', b')          a', b' the inputs with all factors 2 removed
//! gcd(a', b') = gcd(a', (b' - a') / 2^t) for odd a' < b', t = trailing zeros of b' - a'
//! ```
//!
//! Each step costs one subtraction and one shift of the longer operand and removes at
//! least one bit, so `gcd` takes at most `bits(a) + bits(b)` steps of `O(n)` limbs.
//! Why binary rather than Lehmer: it needs no division (so no quotient estimation to get
//! wrong), its state is two in-place buffers, and at the sizes cryptography needs (up to
//! 8192 bits) its quadratic cost is microseconds to a millisecond; Lehmer's algorithm,
//! which replaces ~63 of these steps by one 2x2 matrix of single limbs, pays off at larger
//! sizes. The constant-time inverse ([`Nat::mod_inverse_odd`]) is the same algorithm with
//! masked steps.
//!
//! Variable-time: the number of steps and every branch depend on the values.

use super::nat::Nat;
use super::shift::rshift_assign;
use crate::limb::{LIMB_BITS, Limb, cmp_vartime, sub_1};
use core::cmp::Ordering;

/// Removes the trailing zero bits of a non-zero normalised value in place (shifting
/// right), keeping it normalised; returns how many there were.
fn strip_twos(v: &mut Vec<Limb>) -> usize {
    let limbs = v.iter().position(|&l| l != 0).unwrap_or(0);
    v.drain(..limbs);
    let bits = v.first().map_or(0, |l| l.trailing_zeros());
    rshift_assign(v, bits);
    while v.last() == Some(&0) {
        v.pop();
    }
    limbs * LIMB_BITS + bits as usize
}

impl Nat {
    /// `gcd(self, other)`, with `gcd(0, x) = x`. Binary algorithm; variable-time.
    pub fn gcd(&self, other: &Nat) -> Nat {
        if self.is_zero() {
            return other.clone();
        }
        if other.is_zero() {
            return self.clone();
        }
        // Work in Nats so that the intermediate values are zeroised on drop.
        let mut a = self.clone();
        let mut b = other.clone();
        let k = strip_twos(a.limbs_mut()).min(strip_twos(b.limbs_mut()));
        // Invariant: a and b odd, normalised, gcd unchanged.
        loop {
            match cmp_vartime(a.as_limbs(), b.as_limbs()) {
                Ordering::Equal => break,
                Ordering::Greater => core::mem::swap(&mut a, &mut b),
                Ordering::Less => {}
            }
            // b > a, both odd: b - a is even and non-zero.
            let bl = b.limbs_mut();
            sub_1(bl, a.as_limbs());
            while bl.last() == Some(&0) {
                bl.pop();
            }
            strip_twos(bl);
        }
        a << k
    }

    /// `lcm(self, other) = self / gcd(self, other) · other`, with `lcm(0, x) = 0`.
    pub fn lcm(&self, other: &Nat) -> Nat {
        if self.is_zero() || other.is_zero() {
            return Nat::zero();
        }
        let g = self.gcd(other);
        match self.div_rem(&g) {
            Ok((q, _)) => q * other,
            Err(_) => unreachable!("internal error: gcd of non-zero values is non-zero"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_gcds() {
        let n = |x: u64| Nat::from_u64(x);
        assert_eq!(n(12).gcd(&n(18)), n(6));
        assert_eq!(n(0).gcd(&n(18)), n(18));
        assert_eq!(n(18).gcd(&n(0)), n(18));
        assert_eq!(n(0).gcd(&n(0)), n(0));
        assert_eq!(n(1 << 40).gcd(&n(3 << 20)), n(1 << 20));
        assert_eq!(n(17).gcd(&n(17)), n(17));
        assert_eq!(n(4).lcm(&n(6)), n(12));
        assert_eq!(n(0).lcm(&n(6)), n(0));
        let big = Nat::from_limbs(vec![0, 0, 3]);
        // gcd(3·2^128, 3·2^65) = 3·2^65
        assert_eq!(big.gcd(&Nat::from_limbs(vec![0, 6])), Nat::from_limbs(vec![0, 6]));
    }
}
