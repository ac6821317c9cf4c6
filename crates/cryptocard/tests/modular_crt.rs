//! Garner recombination (RFC 8017 5.1.2 step 2) for 2 to 5 pairwise coprime moduli
//! against num-bigint, and its refusal of inconsistent arguments.

mod modular_common;

use cryptocard::modular::{CrtPrime, Elem, Modulus, Mont, Plain, garner_multi, garner2};
use modular_common::*;
use num_bigint::BigUint;
use num_integer::Integer;
use proptest::prelude::*;

enum P {}
enum Q {}
enum R {}
enum N {}

/// An extra prime's modulus, residue and coefficient.
type ExtraPrime = (Modulus<R>, Elem<R, Plain>, Elem<R, Mont>);

/// 2..=5 odd, pairwise coprime moduli of 1..=12 limbs each: random odd values, each
/// moved up by 2 until it is coprime to the ones before it.
fn coprime_moduli() -> impl Strategy<Value = Vec<BigUint>> {
    prop::collection::vec(modulus(12), 2..=5).prop_map(|ms| {
        let mut out: Vec<BigUint> = Vec::new();
        for mut m in ms {
            while out.iter().any(|o| !o.gcd(&m).eq(&BigUint::from(1u8))) {
                m += 2u8;
            }
            out.push(m);
        }
        out
    })
}

fn check(moduli: &[BigUint], seed: &[u64]) -> Result<(), TestCaseError> {
    let n_big: BigUint = moduli.iter().product();
    let m = big(seed) % &n_big;
    let (p_big, q_big) = (&moduli[0], &moduli[1]);
    let p: Modulus<P> = Modulus::from_nat(&nat(p_big)).unwrap();
    let q: Modulus<Q> = Modulus::from_nat(&nat(q_big)).unwrap();
    let n: Modulus<N> = Modulus::from_nat(&nat(&n_big)).unwrap();
    let m1 = p.elem_from_nat(&nat(&(&m % p_big))).unwrap();
    let m2 = q.elem_from_nat(&nat(&(&m % q_big))).unwrap();
    let q_inv = p.to_mont(&p.elem_from_nat(&nat(&q_big.modinv(p_big).unwrap())).unwrap());

    let mut rs: Vec<ExtraPrime> = Vec::new();
    let mut prefix = p_big * q_big;
    for r_big in &moduli[2..] {
        let r: Modulus<R> = Modulus::from_nat(&nat(r_big)).unwrap();
        let mi = r.elem_from_nat(&nat(&(&m % r_big))).unwrap();
        let ti =
            r.to_mont(&r.elem_from_nat(&nat(&(&prefix % r_big).modinv(r_big).unwrap())).unwrap());
        prefix *= r_big;
        rs.push((r, mi, ti));
    }
    let others: Vec<CrtPrime<'_, R>> = rs
        .iter()
        .map(|(r, mi, ti)| CrtPrime { modulus: r, residue: mi, coefficient: ti })
        .collect();
    let got = garner_multi(&p, &q, &m1, &m2, &q_inv, &others, &n).unwrap();
    prop_assert_eq!(big(got.as_limbs()), m.clone());
    if moduli.len() == 2 {
        let got = garner2(&p, &q, &m1, &m2, &q_inv, &n).unwrap();
        prop_assert_eq!(big(got.as_limbs()), m);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn garner_recombines(moduli in coprime_moduli(), seed in prop::collection::vec(any::<u64>(), 64)) {
        check(&moduli, &seed)?;
    }
}

#[test]
fn rsa_sized_two_primes() {
    // Odd, coprime halves of a 2048-bit modulus, q > p (RFC 8017 does not order them).
    let p = pow2(1023) + BigUint::from(1155u32);
    let mut q = pow2(1024) - BigUint::from(105u32);
    while p.gcd(&q) != BigUint::from(1u8) {
        q += 2u8;
    }
    let seed: Vec<u64> = (0..32u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ !i).collect();
    check(&[p, q], &seed).unwrap();
}

#[test]
fn inconsistent_modulus_is_an_error() {
    // n is not p*q: the recombined value does not fit it.
    let (p_big, q_big) = (BigUint::from(1_000_003u32), BigUint::from(999_983u32));
    let p: Modulus<P> = Modulus::from_nat(&nat(&p_big)).unwrap();
    let q: Modulus<Q> = Modulus::from_nat(&nat(&q_big)).unwrap();
    let n: Modulus<N> = Modulus::from_nat(&nat(&BigUint::from(1_000_001u32))).unwrap();
    let m = BigUint::from(987_654_321_987u64);
    let m1 = p.elem_from_nat(&nat(&(&m % &p_big))).unwrap();
    let m2 = q.elem_from_nat(&nat(&(&m % &q_big))).unwrap();
    let q_inv = p.to_mont(&p.elem_from_nat(&nat(&q_big.modinv(&p_big).unwrap())).unwrap());
    assert!(garner2(&p, &q, &m1, &m2, &q_inv, &n).is_err());
}
