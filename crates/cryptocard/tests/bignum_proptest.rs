//! Differential tests of every `Nat` operation against num-bigint, on values from one limb
//! to 8192 bits (and a little beyond, where a multiplication threshold lies there),
//! biased towards the edges: zero, one, all-ones limbs, `2^k - 1`, `2^k`, `2^k + 1`,
//! equal operands, one-limb divisors, divisors whose top limb is just above or below the
//! dividend's, and lengths either side of every multiplication threshold.

use cryptocard::bignum::{Nat, mul::thresholds::PORTABLE};
use num_bigint::BigUint;
use num_integer::Integer;
use proptest::prelude::*;

fn big(n: &Nat) -> BigUint {
    let mut digits = Vec::new();
    for &l in n.as_limbs() {
        digits.push(l as u32);
        digits.push((l >> 32) as u32);
    }
    BigUint::new(digits)
}

fn nat(b: &BigUint) -> Nat {
    Nat::from_limbs(b.to_u64_digits())
}

/// Limb counts: small ones, anything up to 8192 bits, and both sides of each threshold.
fn length() -> impl Strategy<Value = usize> {
    let t = PORTABLE;
    let edges: Vec<usize> = [t.mul_karatsuba, t.sqr_karatsuba, t.mul_toom3, t.sqr_toom3]
        .iter()
        .flat_map(|&x| [x - 1, x, x + 1, 2 * x - 1, 2 * x])
        .filter(|&x| x <= 2 * 128)
        .collect();
    prop_oneof![
        3 => 1usize..=4,
        4 => 1usize..=128,
        2 => proptest::sample::select(edges),
    ]
}

/// One limb, biased to the values that stress carries.
fn limb() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => any::<u64>(),
        1 => Just(0u64),
        1 => Just(1u64),
        2 => Just(u64::MAX),
        1 => Just(1u64 << 63),
        1 => Just(u64::MAX >> 1),
    ]
}

/// A value: zero, one, `2^k` and its neighbours, all-ones limbs, or edge-biased limbs.
fn value() -> impl Strategy<Value = Nat> {
    prop_oneof![
        1 => Just(Nat::zero()),
        1 => Just(Nat::one()),
        2 => (0usize..8192, -1i8..=1).prop_map(|(k, d)| {
            let p = Nat::one() << k;
            match d {
                -1 => p.checked_sub(&Nat::one()).unwrap(),
                0 => p,
                _ => p + Nat::one(),
            }
        }),
        2 => length().prop_map(|n| Nat::from_limbs(vec![u64::MAX; n])),
        8 => length().prop_flat_map(|n| proptest::collection::vec(limb(), n))
            .prop_map(Nat::from_limbs),
        4 => length().prop_flat_map(|n| proptest::collection::vec(any::<u64>(), n))
            .prop_map(Nat::from_limbs),
    ]
}

fn nonzero() -> impl Strategy<Value = Nat> {
    value().prop_map(|v| if v.is_zero() { Nat::one() } else { v })
}

/// A dividend and divisor with the divisor's top limb just below, at, or just above the
/// dividend's top limb at the same position, or a one-limb divisor.
fn division_pair() -> impl Strategy<Value = (Nat, Nat)> {
    prop_oneof![
        3 => (value(), nonzero()),
        2 => (value(), 1u64..).prop_map(|(a, d)| (a, Nat::from_u64(d))),
        3 => (nonzero(), 0usize..6, -1i64..=1, proptest::collection::vec(limb(), 0..8)).prop_map(
            |(d, extra, delta, low)| {
                // a = (d's limbs with the top one moved by delta) followed below by
                // `extra` more limbs.
                let mut top = d.as_limbs().to_vec();
                let t = top.last_mut().unwrap();
                *t = t.wrapping_add(delta as u64);
                let mut a: Vec<u64> = low.into_iter().cycle().take(extra).collect();
                a.extend(top);
                (Nat::from_limbs(a), d)
            },
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn add_sub_cmp(a in value(), b in value()) {
        let (x, y) = (big(&a), big(&b));
        prop_assert_eq!(big(&(&a + &b)), &x + &y);
        prop_assert_eq!(a.cmp(&b), x.cmp(&y));
        match a.checked_sub(&b) {
            Some(d) => prop_assert_eq!(big(&d), &x - &y),
            None => prop_assert!(x < y),
        }
        prop_assert_eq!(a.sub(&b).is_ok(), x >= y);
        // a - a = 0, (a + b) - b = a
        prop_assert!(a.checked_sub(&a).unwrap().is_zero());
        prop_assert_eq!((&a + &b).checked_sub(&b).unwrap(), a);
    }

    #[test]
    fn mul_and_square(a in value(), b in value()) {
        let (x, y) = (big(&a), big(&b));
        prop_assert_eq!(big(&(&a * &b)), &x * &y);
        prop_assert_eq!(big(&a.square()), &x * &x);
        // Equal operands through the general product.
        prop_assert_eq!(&a * &a, a.square());
    }

    #[test]
    fn shifts(a in value(), k in 0usize..1000) {
        let x = big(&a);
        prop_assert_eq!(big(&(&a << k)), &x << k);
        prop_assert_eq!(big(&(&a >> k)), &x >> k);
    }

    #[test]
    fn division((a, d) in division_pair()) {
        let (x, y) = (big(&a), big(&d));
        let (q, r) = a.div_rem(&d).unwrap();
        prop_assert_eq!(big(&q), &x / &y);
        prop_assert_eq!(big(&r), &x % &y);
        prop_assert_eq!(a.rem(&d).unwrap(), r);
        if let Some(d1) = d.to_u64() {
            prop_assert_eq!(a.rem_u64(d1).unwrap(), (&x % d1).to_u64_digits().first().copied().unwrap_or(0));
        }
    }

    #[test]
    fn strings(a in value()) {
        let x = big(&a);
        prop_assert_eq!(a.to_hex(), x.to_str_radix(16));
        prop_assert_eq!(a.to_dec(), x.to_str_radix(10));
        prop_assert_eq!(Nat::from_hex(&x.to_str_radix(16)).unwrap(), a.clone());
        prop_assert_eq!(Nat::from_dec(&x.to_str_radix(10)).unwrap(), a.clone());
        prop_assert_eq!(format!("{a}"), x.to_string());
        prop_assert_eq!(nat(&BigUint::from_bytes_be(&a.to_be_bytes())), a);
    }

    #[test]
    fn gcd_lcm(a in value(), b in value()) {
        let (x, y) = (big(&a), big(&b));
        prop_assert_eq!(big(&a.gcd(&b)), x.gcd(&y));
        prop_assert_eq!(big(&a.lcm(&b)), x.lcm(&y));
        prop_assert_eq!(a.gcd(&a), a.clone());
    }
}

proptest! {
    // The inverses and powers are the slow operations: fewer cases, smaller sizes for
    // the exponents.
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn inverses(a in value(), m in nonzero()) {
        let (x, y) = (big(&a), big(&m));
        let want = x.modinv(&y);
        match a.mod_inverse_vartime(&m) {
            Ok(inv) => prop_assert_eq!(Some(big(&inv)), want),
            Err(_) => prop_assert!(want.is_none()),
        }
        if m.is_odd() && !m.is_one() {
            let a = a.rem(&m).unwrap();
            match a.mod_inverse_odd(&m) {
                Ok(inv) => prop_assert_eq!(Some(big(&inv)), x.modinv(&y)),
                Err(_) => prop_assert!(x.modinv(&y).is_none()),
            }
        }
    }

    #[test]
    fn pow_mod(a in value(), e in 0u64.., e_len in 0usize..6, m in nonzero()) {
        // Exponents up to 6 limbs, moduli of any size and parity.
        let e = Nat::from_limbs(vec![e; e_len]);
        let (x, f, y) = (big(&a), big(&e), big(&m));
        prop_assert_eq!(big(&a.pow_mod_vartime(&e, &m).unwrap()), x.modpow(&f, &y));
        let b = Nat::from_limbs(vec![e.to_u64().unwrap_or(7); 3]);
        prop_assert_eq!(big(&a.mod_mul_vartime(&b, &m).unwrap()), (&x * big(&b)) % &y);
    }

    #[test]
    fn plain_pow(a in value(), e in 0u32..40) {
        let x = big(&a);
        prop_assert_eq!(big(&a.pow(e as u64).unwrap()), x.pow(e));
    }
}

#[test]
fn zero_divisor_and_modulus_are_errors() {
    let a = Nat::from_u64(5);
    assert!(a.div_rem(&Nat::zero()).is_err());
    assert!(a.rem(&Nat::zero()).is_err());
    assert!(a.rem_u64(0).is_err());
    assert!(a.pow_mod_vartime(&a, &Nat::zero()).is_err());
    assert!(a.mod_mul_vartime(&a, &Nat::zero()).is_err());
    assert!(a.mod_inverse_vartime(&Nat::zero()).is_err());
}
