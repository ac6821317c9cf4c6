//! The square of another Montgomery radix modulo n, for kernels whose numbers are not in
//! 64-bit limbs (the IFMA kernels' radix 2^52, the AVX2 kernels' radix 2^28): their
//! Montgomery radix `R' = 2^r` for a count of digits, and `RR' = 2^(2 r) mod n`, which
//! takes a number into their Montgomery form with one product.

use super::{Elem, Modulus, Mont, Plain};
use crate::bignum::{LIMB_BITS, Nat};

impl<M> Modulus<M> {
    /// `2^(2 r) mod n` for `r >= 64 L` (`L` the limbs of n), in constant time: with
    /// `R = 2^(64 L)` the core's radix and `t = 2 r - 128 L`, two entries into
    /// Montgomery form give `2^t R^2 = 2^(2 r)`. No division by n, which may be a secret
    /// prime (the reduction of `2^t`, a public number of fewer than `2 L` limbs for
    /// every digit count a modulus runs in, is by Montgomery products). The result's
    /// limbs are the value (its `Mont` tag says only that it came out of `to_mont`).
    pub(crate) fn radix_square(&self, r: usize) -> Elem<M, Mont> {
        let t = 2 * r - 2 * LIMB_BITS * self.limbs();
        let mut two_t = Nat::zero();
        two_t.set_bit(t, true);
        let x = self.to_mont(&self.elem_reduce(&two_t));
        // x's limbs are 2^t R mod n; as a plain value into Montgomery form once more.
        self.to_mont(&Elem::<M, Plain>::from_boxed(x.as_limbs().into()))
    }
}
