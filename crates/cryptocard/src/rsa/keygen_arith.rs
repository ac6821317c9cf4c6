//! The arithmetic key generation does on secret primes, without branches on their values:
//! gcd, lcm, and the inverse of a small public exponent.
//!
//! * [`gcd_odd`]: gcd(x, m) for odd m by the binary algorithm with masked steps (the
//!   loop of `bignum`'s constant-time inverse without the cofactors): state (a, b), b odd;
//!   if a is odd, (a, b) = (|a - b|, min(a, b)); then a = a/2. Each step removes at least
//!   one bit from bits(a) + bits(b), so 2 * 64 * L steps (L limbs) reach a = 0, b = gcd.
//! * [`lcm`]: lcm(x, y) = x * (y / g) for even x, y: g = 2^min(v2(x), v2(y)) *
//!   gcd(x, odd(y)). The powers of two (v2(r_i - 1)) are public: Miller-Rabin's timing
//!   shows them, and they come from its one declassification
//!   (`miller_rabin::two_adic_order`). The division by the secret g is the constant-time
//!   long division of `bignum::div_ct`.
//! * [`inverse_small`]: e^-1 mod m for e < 2^64, gcd(e, m) = 1, any m: with
//!   t = -m^-1 mod e, e divides 1 + m*t, and d = (1 + m*t)/e satisfies e*d = 1 + m*t = 1
//!   (mod m), with 0 < d <= m. Only m mod e and a one-limb constant-time inverse mod e
//!   touch the secret; no extended Euclid on m.

use crate::bignum::{
    LIMB_BITS, Limb, Nat, cnd_add_n, cnd_neg_assign, cnd_sub_n, div_rem_ct, divrem_1, rshift_assign,
};
use crate::ct::{self, Choice};
use crate::modular::prime::miller_rabin::two_adic_order;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// gcd(x, m) for odd m, constant time in the values (time depends on the limb lengths).
pub(crate) fn gcd_odd(x: &Nat, m: &Nat) -> Nat {
    debug_assert!(m.is_odd(), "internal error: gcd_odd needs an odd m");
    let len = x.limb_len().max(m.limb_len());
    let pad = |v: &Nat| Zeroizing::new(v.to_limbs_padded(len).unwrap_or_default());
    let (mut a, mut b) = (pad(x), pad(m));
    for _ in 0..2 * LIMB_BITS * len {
        let odd = Choice::from_bit(a[0] & 1);
        let swap = Choice::from_bit(cnd_sub_n(odd, &mut a, &b));
        cnd_add_n(swap, &mut b, &a);
        cnd_neg_assign(swap, &mut a);
        rshift_assign(&mut a, 1);
    }
    Nat::from_slice(&b)
}

/// lcm(x, y) for even, non-zero x and y (see the module docs for what leaks).
pub(crate) fn lcm(x: &Nat, y: &Nat) -> Result<Nat> {
    if x.is_zero() || y.is_zero() {
        return Err(Error::InvalidArgument("lcm of zero"));
    }
    let (tx, ty) = (two_adic_order(x.as_limbs()), two_adic_order(y.as_limbs()));
    let g = gcd_odd(x, &(y >> ty)) << tx.min(ty);
    let (y_over_g, _) = div_rem_ct(y.as_limbs(), g.as_limbs());
    Ok(x * &Nat::from_slice(&y_over_g))
}

/// x > 2^k, in constant time (every limb is read).
pub(crate) fn above_pow2(x: &[Limb], k: usize) -> Choice {
    let mut pow = vec![0; x.len()];
    if let Some(limb) = pow.get_mut(k / LIMB_BITS) {
        *limb = 1 << (k % LIMB_BITS);
    }
    at_least_pow2(x, k) & !ct::limbs_eq(x, &pow)
}

/// x >= 2^k, in constant time (every limb is read).
fn at_least_pow2(x: &[Limb], k: usize) -> Choice {
    let high = x.iter().enumerate().fold(0, |acc, (i, &l)| {
        let (lo, hi) = (i * LIMB_BITS, (i + 1) * LIMB_BITS);
        let kept = match (hi <= k, lo >= k) {
            (true, _) => 0,
            (_, true) => l,
            _ => l >> (k - lo),
        };
        acc | kept
    });
    !ct::is_zero(high)
}

/// e^-1 mod m for odd e < 2^64 with gcd(e, m) = 1 and m > 1 (see the module docs).
/// Fails with [`Error::InvalidArgument`] if e is not invertible.
pub(crate) fn inverse_small(e: u64, m: &Nat) -> Result<Nat> {
    const NOT_INVERTIBLE: Error = Error::InvalidArgument("e is not invertible modulo m");
    if e < 3 || e.is_multiple_of(2) {
        return Err(NOT_INVERTIBLE);
    }
    // t = -(m mod e)^-1 mod e, by the constant-time inverse mod the odd e.
    let m_mod_e = m.rem_u64(e)?;
    let inv = Nat::from_u64(m_mod_e)
        .mod_inverse_odd(&Nat::from_u64(e))
        .map_err(|_| NOT_INVERTIBLE)?
        .to_u64()
        .unwrap_or(0);
    // e - inv, or 0 for inv = 0, without a branch.
    let t = ct::is_zero(inv).select(0, e - inv);
    // (1 + m*t) / e, exactly.
    let mut num: Vec<Limb> = (m * &Nat::from_u64(t) + &Nat::one()).as_limbs().to_vec();
    let mut q = vec![0; num.len()];
    let rem = divrem_1(&mut q, &num, e);
    zeroize::Zeroize::zeroize(&mut num);
    // Always 0 (the identity above): public.
    if ct::declassify(rem) != 0 {
        return Err(Error::InvalidArgument("internal error: e does not divide 1 + m*t"));
    }
    Ok(Nat::from_limbs(q))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cases_match_the_vartime_versions() {
        let n = |x: u64| Nat::from_u64(x);
        for (x, m) in [(12u64, 9u64), (0, 7), (35, 21), (1 << 40, 3), (u64::MAX, 0xffff_fffb)] {
            assert_eq!(gcd_odd(&n(x), &n(m)), n(x).gcd(&n(m)), "gcd({x}, {m})");
        }
        for (x, y) in [(4u64, 6u64), (10, 12), (2, 2), (1 << 20, 3 << 7), (1000, 998)] {
            assert_eq!(lcm(&n(x), &n(y)).unwrap(), n(x).lcm(&n(y)), "lcm({x}, {y})");
        }
        for (e, m) in [(3u64, 10u64), (65537, 1 << 40), (17, 3120), (65537, 999_999_999_990)] {
            let d = inverse_small(e, &n(m)).unwrap();
            assert_eq!(d, n(e).mod_inverse_vartime(&n(m)).unwrap(), "e = {e}, m = {m}");
        }
        assert!(inverse_small(3, &n(9)).is_err());
        assert!(inverse_small(4, &n(9)).is_err());
    }

    #[test]
    fn powers_of_two_compare() {
        let two_65 = [0, 2, 0];
        assert!(!above_pow2(&two_65, 65).declassify());
        assert!(above_pow2(&[1, 2, 0], 65).declassify());
        assert!(!above_pow2(&[!0, 1, 0], 65).declassify());
        assert!(above_pow2(&two_65, 64).declassify());
        assert!(!above_pow2(&[5], 200).declassify());
        assert!(above_pow2(&[5], 0).declassify() && !above_pow2(&[1], 0).declassify());
    }

    #[test]
    fn multi_limb_gcd_and_inverse() {
        // gcd(a*g, b*g) = g for coprime a, b; and the inverse of 65537 mod a long even m.
        let g = Nat::from_hex("1234567890abcdef1234567890abcdef1").unwrap();
        let a = Nat::from_hex("fedcba98765432100123456789abcdef3").unwrap();
        let b = Nat::from_hex("10000000000000000000000000000000000000001").unwrap();
        let expected = (&a * &g).gcd(&(&b * &g));
        assert_eq!(gcd_odd(&(&a * &g), &(&b * &g)), expected);
        let m = (&a * &b) << 3;
        let d = inverse_small(65537, &m).unwrap();
        assert!((&d * &Nat::from_u64(65537)).rem(&m).unwrap().is_one());
        assert!(d < m);
    }
}
