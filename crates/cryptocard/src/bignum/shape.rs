//! What a number shows of itself: its length in limbs, its length in bits and its
//! parity. They are computed here in constant time and made public here, in one place.
//!
//! Why they may be public: a [`super::Nat`] is normalised (no high zero limbs), so its
//! limb length shows wherever it goes, and the formats a secret arrives in show as much
//! (a DER INTEGER is minimal: its length is the value's byte length). A modulus, public
//! or a secret prime, has the bit length its key size gives it (an RSA key of n bits has
//! primes of n/2 bits), which the Montgomery constants (`R mod m`) and the inverse's
//! step count depend on; and it is odd, or it is refused. What is secret is every other
//! bit of the value, which nothing here reads into a branch.
//!
//! Under the constant-time validation (`crates/ct-valgrind/tests/ct_valgrind.rs`) the
//! marked secrets pass through [`public`] here and nowhere else on their way to a length:
//! memcheck then reports a size computed any other way from secret limbs.

use crate::ct::{self, Choice};
use crate::limb::{LIMB_BITS, Limb};

/// The size `x`, computed from secret limbs, made public: the one declassification of
/// sizes (see the module docs for why they may be public).
#[inline]
fn public<T: Copy>(x: T) -> T {
    ct::declassify(x)
}

/// The number of limbs of `x` below its high zero limbs (0 for zero), reading every limb.
pub(crate) fn limbs(x: &[Limb]) -> usize {
    let mut len = 0;
    for (i, &l) in x.iter().enumerate() {
        len = (!ct::is_zero(l)).select_usize(i + 1, len);
    }
    public(len)
}

/// The number of significant bits of `x` (0 for zero), reading every limb.
pub(crate) fn bits(x: &[Limb]) -> usize {
    let mut bits = 0;
    for (i, &l) in x.iter().enumerate() {
        let here = (i + 1) * LIMB_BITS - l.leading_zeros() as usize;
        bits = (!ct::is_zero(l)).select_usize(here, bits);
    }
    public(bits)
}

/// Whether `x` is odd (zero, and an empty slice, are even).
pub(crate) fn odd(x: &[Limb]) -> bool {
    public(x.first().map_or(0, |&l| l & 1)) == 1
}

impl Choice {
    /// `a` if the choice is true, else `b`, for sizes.
    #[inline]
    fn select_usize(self, a: usize, b: usize) -> usize {
        self.select(a as Limb, b as Limb) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!((limbs(&[]), bits(&[]), odd(&[])), (0, 0, false));
        assert_eq!((limbs(&[0, 0]), bits(&[0, 0]), odd(&[0, 0])), (0, 0, false));
        assert_eq!((limbs(&[1, 0]), bits(&[1, 0]), odd(&[1, 0])), (1, 1, true));
        assert_eq!((limbs(&[!0, 5, 0]), bits(&[!0, 5, 0])), (2, 67));
        assert_eq!((limbs(&[0, 0, 1 << 63]), bits(&[0, 0, 1 << 63])), (3, 192));
        assert_eq!((limbs(&[0, 7, 0, 0]), bits(&[6, 7, 0, 0]), odd(&[6, 7])), (2, 67, false));
        for x in [[3u64, 0, 9], [0, 0, 0], [1, 1 << 40, 0]] {
            assert_eq!(bits(&x), crate::limb::bit_length(&x));
        }
    }
}
