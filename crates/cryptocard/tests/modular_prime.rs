//! Probable primes: generation (exact size, top bits, acceptance check) checked by
//! OpenSSL's `BN_is_prime`, and `is_probable_prime` against OpenSSL on random odd
//! numbers and against known pseudoprimes.

mod common;
mod modular_common;

use cryptocard::Error;
use cryptocard::bignum::Nat;
use cryptocard::modular::prime::{
    ADVERSARIAL_ROUNDS, PrimeOptions, generate_prime, is_probable_prime, is_probable_prime_vartime,
};
use modular_common::*;
use openssl::bn::{BigNum, BigNumContext};
use proptest::prelude::*;

// A deterministic test source (SplitMix64). Not for keys.
use common::SplitMix64 as TestRng;

fn openssl_is_prime(n: &Nat) -> bool {
    let bn = BigNum::from_slice(&n.to_be_bytes()).unwrap();
    bn.is_prime(64, &mut BigNumContext::new().unwrap()).unwrap()
}

#[test]
fn generated_primes_have_the_requested_shape() {
    let mut rng = TestRng(1);
    for bits in [32, 33, 63, 64, 65, 100, 127, 128, 255, 512, 1024] {
        for top_two_bits in [true, false] {
            let opts = PrimeOptions { top_two_bits, ..Default::default() };
            let p = generate_prime(bits, &opts, &mut rng).unwrap();
            assert_eq!(p.bits(), bits);
            assert!(p.is_odd());
            if top_two_bits {
                assert!(p.bit(bits - 2), "{bits}: second bit");
            }
            assert!(openssl_is_prime(&p), "{bits}: {p:?} is not prime");
        }
    }
}

#[test]
fn two_primes_with_top_bits_make_an_exact_modulus() {
    let mut rng = TestRng(2);
    let opts = PrimeOptions::default();
    for bits in [256, 512] {
        let p = big_nat(&generate_prime(bits, &opts, &mut rng).unwrap());
        let q = big_nat(&generate_prime(bits, &opts, &mut rng).unwrap());
        assert_eq!((p * q).bits() as usize, 2 * bits);
    }
}

#[test]
fn acceptance_check_is_applied() {
    // gcd(p - 1, e) = 1 for the prime e = 3 means p mod 3 = 2; the sieve alone would
    // also accept p mod 3 = 1, half the primes.
    let mut rng = TestRng(3);
    let check = |p: &Nat| big_nat(p) % 3u8 != num_bigint::BigUint::from(1u8);
    let opts = PrimeOptions { accept: Some(&check), ..Default::default() };
    for _ in 0..20 {
        let p = big_nat(&generate_prime(160, &opts, &mut rng).unwrap());
        assert_eq!(p % 3u8, num_bigint::BigUint::from(2u8));
    }
}

#[test]
fn an_acceptance_check_that_never_accepts_is_an_error() {
    let mut rng = TestRng(6);
    let never = |_: &Nat| false;
    let opts = PrimeOptions { accept: Some(&never), ..Default::default() };
    assert!(matches!(generate_prime(32, &opts, &mut rng), Err(Error::InvalidArgument(_))));
}

#[test]
fn sizes_out_of_range_are_errors() {
    let mut rng = TestRng(4);
    for bits in [0, 1, 2, 31, 16385] {
        assert!(matches!(
            generate_prime(bits, &PrimeOptions::default(), &mut rng),
            Err(Error::InvalidArgument(_))
        ));
    }
}

#[test]
fn known_pseudoprimes_and_primes() {
    let mut rng = TestRng(5);
    // Carmichael numbers and strong pseudoprimes to several small bases (composite), and
    // primes around them. 3215031751 is a strong pseudoprime to bases 2, 3, 5 and 7;
    // 3825123056546413051 to every base up to 23.
    let composites: [u64; 8] = [0, 1, 4, 561, 41041, 825265, 3215031751, 3825123056546413051];
    let primes: [u64; 6] = [2, 3, 17881, 17891, 4294967291, 18446744073709551557];
    for c in composites {
        assert!(
            !is_probable_prime(&Nat::from_u64(c), ADVERSARIAL_ROUNDS, &mut rng).unwrap(),
            "{c}"
        );
        assert!(!is_probable_prime_vartime(&Nat::from_u64(c), 20, &mut rng).unwrap(), "{c}");
    }
    for p in primes {
        assert!(is_probable_prime(&Nat::from_u64(p), 20, &mut rng).unwrap(), "{p}");
        assert!(is_probable_prime_vartime(&Nat::from_u64(p), 20, &mut rng).unwrap(), "{p}");
    }
    // 2^127 - 1 is prime; 2^128 + 1 is not (it is divisible by 59649589127497217).
    assert!(is_probable_prime(&nat(&(pow2(127) - 1u8)), 20, &mut rng).unwrap());
    assert!(!is_probable_prime(&nat(&(pow2(128) + 1u8)), 20, &mut rng).unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn agrees_with_openssl(v in prop::collection::vec(any::<u64>(), 1..=8), seed in any::<u64>()) {
        let mut v = v;
        v[0] |= 1;
        let n = Nat::from_limbs(v);
        let mut rng = TestRng(seed);
        let want = openssl_is_prime(&n);
        prop_assert_eq!(is_probable_prime(&n, 20, &mut rng).unwrap(), want);
        prop_assert_eq!(is_probable_prime_vartime(&n, 20, &mut rng).unwrap(), want);
    }

    #[test]
    fn agrees_with_openssl_near_primes(bits in 33usize..=300, seed in any::<u64>()) {
        // Numbers next to a prime are prime or composite with a much more even split.
        let mut rng = TestRng(seed);
        let p = big_nat(&generate_prime(bits, &PrimeOptions::default(), &mut rng).unwrap());
        for delta in [0u32, 2, 4, 6] {
            let n = nat(&(&p + delta));
            prop_assert_eq!(is_probable_prime(&n, 20, &mut rng).unwrap(), openssl_is_prime(&n));
        }
    }
}
