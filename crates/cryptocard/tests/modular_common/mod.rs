//! Helpers shared by the `modular_*` integration tests: conversions to and from
//! num-bigint, and proptest strategies for moduli and operands.

#![allow(dead_code)]

use cryptocard::bignum::{Limb, Nat};
use num_bigint::BigUint;
use proptest::prelude::*;

pub fn big(limbs: &[Limb]) -> BigUint {
    let bytes: Vec<u8> = limbs.iter().flat_map(|l| l.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

pub fn big_nat(n: &Nat) -> BigUint {
    big(n.as_limbs())
}

/// The value as exactly `k` little-endian limbs (panics if it does not fit).
pub fn limbs(x: &BigUint, k: usize) -> Vec<Limb> {
    let mut v = x.to_u64_digits();
    assert!(v.len() <= k, "value does not fit {k} limbs");
    v.resize(k, 0);
    v
}

pub fn nat(x: &BigUint) -> Nat {
    Nat::from_limbs(x.to_u64_digits())
}

/// 2^bits.
pub fn pow2(bits: usize) -> BigUint {
    BigUint::from(1u8) << bits
}

/// Limbs with the patterns that break carry handling: random, all ones, zeros, and a
/// single high or low bit.
pub fn limb() -> impl Strategy<Value = Limb> {
    prop_oneof![
        6 => any::<Limb>(),
        2 => Just(!0),
        1 => Just(0),
        1 => Just(1),
        1 => Just(1 << 63),
    ]
}

/// An odd modulus of exactly `k` limbs, from the families the tests care about: random
/// (with and without headroom in the top limb), 2^b - 1 (all-ones limbs), 2^b + 1, and
/// small values in one limb.
pub fn modulus_of(k: usize) -> BoxedStrategy<BigUint> {
    let random = prop::collection::vec(limb(), k).prop_map(move |mut v| {
        v[0] |= 1;
        if v[k - 1] == 0 {
            v[k - 1] = 1;
        }
        if v == [1] {
            v[0] = 3;
        }
        big(&v)
    });
    let top_bits = 1..=64usize;
    let mersenne = top_bits.clone().prop_map(move |t| pow2(64 * (k - 1) + t) - 1u8);
    let fermat = (1..=63usize).prop_map(move |t| pow2(64 * (k - 1) + t) + 1u8);
    let s = prop_oneof![
        6 => random.boxed(),
        1 => mersenne.prop_filter("> 1", |n| *n > BigUint::from(1u8)).boxed(),
        1 => fermat.boxed(),
    ];
    if k == 1 {
        let small = (1u64..1000).prop_map(|x| BigUint::from(2 * x + 1));
        prop_oneof![4 => s.boxed(), 1 => Just(BigUint::from(3u8)).boxed(), 1 => small.boxed()]
            .boxed()
    } else {
        s.boxed()
    }
}

/// A modulus of 1..=max_limbs limbs.
pub fn modulus(max_limbs: usize) -> BoxedStrategy<BigUint> {
    (1..=max_limbs).prop_flat_map(modulus_of).boxed()
}

/// A value of up to `k` limbs (any size below R = 2^(64k)).
pub fn below_r(k: usize) -> impl Strategy<Value = BigUint> {
    prop::collection::vec(limb(), k).prop_map(|v| big(&v))
}

/// A value below `n`, with the edge values 0, 1, n - 1 likely.
pub fn below(n: &BigUint) -> BoxedStrategy<BigUint> {
    let n = n.clone();
    let k = n.to_u64_digits().len();
    let n2 = n.clone();
    let n3 = n.clone();
    prop_oneof![
        6 => below_r(k).prop_map(move |x| x % &n),
        1 => Just(BigUint::from(0u8)),
        1 => Just(BigUint::from(1u8) % n2),
        1 => Just(n3 - 1u8),
    ]
    .boxed()
}
