//! Division with remainder in constant time, for any non-zero divisor (even ones too):
//! restoring long division, one bit of the dividend at a time.
//!
//! For x = sum x_i 2^i and a divisor m of n limbs, keep a remainder a < m and, from the
//! top bit of x down, set a = 2a + x_i; then 2a + x_i < 2m, so one subtraction of m, kept
//! by a mask where it does not borrow, restores a < m, and the quotient bit is 1 exactly
//! when it was kept (TAOCP vol. 2, 4.3.1, the radix-2 case of algorithm D). With a held
//! in n + 1 limbs, 2a + 1 < 2m < 2^(64n + 1) always fits.
//!
//! This is BoringSSL's `bn_div_consttime` (crypto/fipsmodule/bn/div.c), which its
//! `RSA_check_key` uses for d mod (p - 1) for the same reason as here: p - 1 is secret
//! and even, so Montgomery reduction ([`crate::modular`]) does not apply, and Knuth's
//! algorithm D ([`super::div`]) corrects its quotient estimates by branches on the
//! values. Its cost is 64 * len(x) steps of three passes over n + 1 limbs; it serves key
//! validation, which runs once per key.
//!
//! What leaks: the limb lengths of x and m (public sizes), never their values.

use super::shift::lshift_assign;
use crate::ct::{Choice, conditional_copy};
use crate::limb::{LIMB_BITS, Limb, sub_n};
use zeroize::Zeroizing;

/// (x / m, x mod m): the quotient in `x.len()` limbs, the remainder in `m.len()` limbs.
/// Contract: `m` is not zero (the caller checks it; it may be secret, so this does not).
/// Time depends only on `x.len()` and `m.len()`.
pub(crate) fn div_rem_ct(x: &[Limb], m: &[Limb]) -> (Zeroizing<Vec<Limb>>, Zeroizing<Vec<Limb>>) {
    let n = m.len();
    let mut q = Zeroizing::new(vec![0; x.len()]);
    let mut divisor = Zeroizing::new(vec![0; n + 1]);
    divisor[..n].copy_from_slice(m);
    let mut acc = Zeroizing::new(vec![0; n + 1]);
    let mut diff = Zeroizing::new(vec![0; n + 1]);
    for i in (0..x.len() * LIMB_BITS).rev() {
        let (limb, bit) = (i / LIMB_BITS, i % LIMB_BITS);
        // acc = 2 acc + x_i: acc < m, so the top bit of its n + 1 limbs is clear.
        lshift_assign(&mut acc, 1);
        acc[0] |= (x[limb] >> bit) & 1;
        let keep = Choice::from_bit(sub_n(&mut diff, &acc, &divisor) ^ 1);
        conditional_copy(keep, &mut acc, &diff);
        q[limb] |= keep.bit() << bit;
    }
    let r = Zeroizing::new(acc[..n].to_vec());
    (q, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bignum::Nat;

    fn check(x: &Nat, m: &Nat) {
        let (q, r) = div_rem_ct(x.as_limbs(), m.as_limbs());
        let (want_q, want_r) = x.div_rem(m).unwrap();
        assert_eq!((Nat::from_slice(&q), Nat::from_slice(&r)), (want_q, want_r), "{x:?} / {m:?}");
        assert_eq!((q.len(), r.len()), (x.limb_len(), m.limb_len()));
    }

    #[test]
    fn matches_algorithm_d() {
        let n = |h: &str| Nat::from_hex(h).unwrap();
        let values = [
            n("0"),
            n("1"),
            n("ffffffffffffffff"),
            n("10000000000000000"),
            n("123456789abcdef0fedcba9876543210ffffffffffffffff0000000000000001"),
            n("ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"),
        ];
        let divisors = [
            n("1"),
            n("2"),
            n("ffffffffffffffff"),
            n("8000000000000000"),
            n("10000000000000000"),
            n("fedcba98765432100000000000000000"),
            n("ffffffffffffffffffffffffffffffff"),
            n("1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef12"),
        ];
        for x in &values {
            for m in &divisors {
                check(x, m);
            }
        }
    }

    #[test]
    fn even_divisors_of_rsa_size() {
        // d mod (p - 1) at RSA sizes: a 2048-bit dividend, a 1024-bit even divisor.
        let mut rng = crate::test_rng::SplitMix64(7);
        let mut random =
            |limbs: usize| Nat::from_limbs((0..limbs).map(|_| rng.next_u64()).collect());
        for _ in 0..8 {
            let x = random(32);
            let mut m = random(16);
            m.set_bit(0, false);
            m.set_bit(1023, true);
            check(&x, &m);
        }
    }
}
