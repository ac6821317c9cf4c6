//! Every exponentiation variant against the others and against num-bigint: constant
//! time fixed window (every window size), sliding window, binary, and the `Nat`-level
//! wrappers; bases reduced on input, edge exponents and bases, special moduli.

mod common;
mod modular_common;

use cryptocard::bignum::Nat;
use cryptocard::modular::{MAX_WINDOW, Modulus, pow_mod, pow_mod_vartime};
use modular_common::*;
use num_bigint::BigUint;
use proptest::prelude::*;

/// Checks every variant computes base^exp mod n on every kernel set (the CPU's and the
/// portable one); `base` may exceed n.
fn check_all(
    n: &BigUint,
    base: &BigUint,
    exp: &BigUint,
    windows: &[usize],
) -> Result<(), TestCaseError> {
    let want = base.modpow(exp, n);
    let m: Modulus = Modulus::from_nat(&nat(n)).unwrap();
    for m in [m.clone(), m.with_portable_kernels()] {
        let b = m.to_mont(&m.elem_reduce(&nat(base)));
        let e = nat(exp);
        let k = m.kernels();
        let plain = |x: &cryptocard::modular::Elem<_, _>| big(m.from_mont(x).as_limbs());
        prop_assert_eq!(plain(&m.pow(&b, &e)), want.clone(), "pow, {}", k);
        prop_assert_eq!(plain(&m.pow_vartime(&b, &e)), want.clone(), "pow_vartime, {}", k);
        prop_assert_eq!(plain(&m.pow_binary_vartime(&b, &e)), want.clone(), "binary, {}", k);
        for &w in windows {
            prop_assert_eq!(plain(&m.pow_kary(&b, &e, w).unwrap()), want.clone(), "w {}, {}", w, k);
        }
        prop_assert_eq!(big_nat(&pow_mod(&nat(base), &e, &m)), want.clone(), "pow_mod, {}", k);
        let vt = pow_mod_vartime(&nat(base), &e, &m);
        prop_assert_eq!(big_nat(&vt), want.clone(), "pow_mod_vartime, {}", k);
    }
    Ok(())
}

/// Exponents: small ones of every kind, and full-length ones.
fn exponent(max_limbs: usize) -> impl Strategy<Value = BigUint> {
    prop_oneof![
        1 => Just(BigUint::from(0u8)),
        1 => Just(BigUint::from(1u8)),
        1 => Just(BigUint::from(65537u32)),
        2 => (0u64..1 << 20).prop_map(BigUint::from),
        6 => (1..=max_limbs).prop_flat_map(|k| prop::collection::vec(limb(), k)).prop_map(|v| big(&v)),
    ]
}

/// A base below 4n (reduced on input), with 0, 1, n - 1 and n likely.
fn base(n: &BigUint) -> BoxedStrategy<BigUint> {
    let n4 = n * 4u8;
    let (n1, n2) = (n.clone(), n.clone());
    prop_oneof![
        5 => below(&n4),
        1 => Just(n1),
        1 => Just(n2 + 1u8),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Up to 2048-bit moduli and exponents, every window.
    #[test]
    fn all_variants_agree_up_to_2048_bits(
        (n, b, e) in modulus(32).prop_flat_map(|n| (Just(n.clone()), base(&n), exponent(32)))
    ) {
        let windows: Vec<usize> = (1..=MAX_WINDOW).collect();
        check_all(&n, &b, &e, &windows)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Up to 8192-bit moduli, with exponents up to 256 bits to keep the run short.
    #[test]
    fn all_variants_agree_up_to_8192_bits(
        (n, b, e) in (33usize..=128).prop_flat_map(modulus_of)
            .prop_flat_map(|n| (Just(n.clone()), base(&n), exponent(4)))
    ) {
        check_all(&n, &b, &e, &[1, 4])?;
    }
}

#[test]
fn edge_cases() {
    let ns = [
        BigUint::from(3u8),
        BigUint::from(5u8),
        pow2(64) - 1u8,
        pow2(64) + 1u8,
        pow2(127) - 1u8,
        pow2(128) + 1u8,
        pow2(1024) - 1u8,
        pow2(2048) - 1u8,
        pow2(2047) + 1u8,
    ];
    for n in &ns {
        let bases = [
            BigUint::from(0u8),
            BigUint::from(1u8),
            BigUint::from(2u8),
            n - 1u8,
            n.clone(),
            n + 1u8,
            n * 3u8,
        ];
        let exps = [
            BigUint::from(0u8),
            BigUint::from(1u8),
            BigUint::from(2u8),
            n - 1u8,
            n.clone(),
            pow2(130) - 1u8,
        ];
        for b in &bases {
            for e in &exps {
                check_all(n, b, e, &[1, 2, 5, 7]).unwrap();
            }
        }
    }
}

#[test]
fn window_out_of_range_is_an_error() {
    let m: Modulus = Modulus::from_nat(&Nat::from_u64(101)).unwrap();
    let b = m.one();
    for w in [0, MAX_WINDOW + 1] {
        assert!(m.pow_kary(&b, &Nat::from_u64(5), w).is_err());
    }
}

/// The sizes with fused chain kernels (8 to 64 limbs) and their neighbours, full-length
/// exponents, moduli with the top bit set (no headroom: almost-Montgomery chains whose
/// carries do fire) and with headroom, against num-bigint, on the CPU's kernels and the
/// portable ones. Deterministic values (a simple generator), so a failure reproduces.
#[test]
fn chain_sizes_full_exponents() {
    let mut rng = common::XorShift64(0x9e37_79b9_7f4a_7c15);
    let mut next = move || rng.next_u64();
    for k in [8usize, 15, 16, 17, 24, 32, 33, 48, 64] {
        for top in [!0u64, 1 << 63, 1 << 61] {
            let mut n: Vec<u64> = (0..k).map(|_| next()).collect();
            n[0] |= 1;
            n[k - 1] = (n[k - 1] | top) & (top | (top - 1));
            let n = big(&n);
            let b = big(&(0..k).map(|_| next()).collect::<Vec<_>>()) % &n;
            let e = big(&(0..k).map(|_| next()).collect::<Vec<_>>());
            let want = b.modpow(&e, &n);
            let m: Modulus = Modulus::from_nat(&nat(&n)).unwrap();
            for m in [m.clone(), m.with_portable_kernels()] {
                let x = m.to_mont(&m.elem_reduce(&nat(&b)));
                let got = big(m.from_mont(&m.pow(&x, &nat(&e))).as_limbs());
                assert_eq!(got, want, "k = {k}, top {top:#x}, {}", m.kernels());
            }
        }
    }
}
