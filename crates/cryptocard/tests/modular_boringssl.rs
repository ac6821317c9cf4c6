//! BoringSSL's known-answer tests for modular multiplication, squaring, exponentiation
//! and Miller-Rabin witnesses (`tests/data/boringssl-bn/`, see its README), through
//! `Modulus`, every exponentiation variant and `MillerRabin`.
//!
//! BoringSSL's `BIGNUM` is signed: an operand A < 0 is mapped to A mod M, computed as
//! the negation mod M of |A| mod M, both through our own reduction.
//!
//! Cases whose modulus is even (or 1) are outside Montgomery arithmetic (`Modulus`
//! refuses them); they go through the general `Nat` fallback, `Nat::mod_mul_vartime`
//! and `Nat::pow_mod_vartime`, and every case of both files runs one way or the other.
//! Every odd-modulus case also runs on the portable kernels when the CPU has faster ones.

mod common;
mod modular_common;

use common::{Record, parse_records, read_data};
use cryptocard::bignum::Nat;
use cryptocard::modular::prime::MillerRabin;
use cryptocard::modular::{Elem, MAX_WINDOW, Modulus, Plain};
use modular_common::*;
use num_bigint::BigUint;

type Case = Record;

/// The cases of one file of tests/data/boringssl-bn, in file order.
fn cases(name: &str) -> Vec<Case> {
    parse_records(&read_data(&format!("boringssl-bn/{name}")))
}

/// (negative, magnitude) of a hex value.
fn signed(c: &Case, key: &str) -> (bool, BigUint) {
    let v = c.get(key).unwrap_or_else(|| panic!("missing {key} in {c:?}"));
    let (neg, digits) = v.strip_prefix('-').map_or((false, v.as_str()), |d| (true, d));
    let mag = BigUint::parse_bytes(digits.as_bytes(), 16).expect("hex");
    (neg, mag)
}

fn unsigned(c: &Case, key: &str) -> BigUint {
    let (neg, mag) = signed(c, key);
    assert!(!neg, "{key} must not be negative");
    mag
}

/// A mod M for a signed A, through `Modulus::elem_reduce` and `Modulus::neg`.
fn residue(m: &Modulus, c: &Case, key: &str) -> Elem<cryptocard::modular::Anon, Plain> {
    let (neg, mag) = signed(c, key);
    let r = m.elem_reduce(&nat(&mag));
    if neg { m.neg(&r) } else { r }
}

/// A mod M for a signed A, by num-bigint (only to feed the `Nat` fallback).
fn signed_mod(c: &Case, key: &str, m: &BigUint) -> BigUint {
    let (neg, mag) = signed(c, key);
    let r = mag % m;
    if neg && r != BigUint::from(0u8) { m - r } else { r }
}

#[test]
fn mod_mul_and_mod_square() {
    let (mut odd, mut even) = (0, 0);
    for c in cases("mod_mul_tests.txt") {
        let m_big = unsigned(&c, "M");
        let square = c.contains_key("ModSquare");
        let want = unsigned(&c, if square { "ModSquare" } else { "ModMul" });
        let Ok(m) = Modulus::from_nat(&nat(&m_big)) else {
            assert!(m_big.bits() <= 1 || !m_big.bit(0), "only even or unit moduli fall back");
            let a = signed_mod(&c, "A", &m_big);
            let b = if square { a.clone() } else { signed_mod(&c, "B", &m_big) };
            let got = nat(&a).mod_mul_vartime(&nat(&b), &nat(&m_big)).unwrap();
            assert_eq!(big_nat(&got), want, "{c:?}");
            even += 1;
            continue;
        };
        for m in [m.clone(), m.with_portable_kernels()] {
            check_mod_mul(&m, &c, square, &want);
        }
        odd += 1;
    }
    println!("mod_mul: {odd} odd-modulus cases through Modulus, {even} through the Nat fallback");
    assert_eq!(odd + even, 437);
    assert!(odd > 0 && even > 0);
}

fn check_mod_mul(m: &Modulus, c: &Case, square: bool, want: &BigUint) {
    let a = residue(m, c, "A");
    let am = m.to_mont(&a);
    if square {
        assert_eq!(&big(m.from_mont(&m.sqr(&am)).as_limbs()), want, "{c:?}");
        assert_eq!(&big(m.mul(&am, &a).as_limbs()), want, "{c:?}");
    } else {
        let b = residue(m, c, "B");
        // Mont x Plain -> Plain, and Mont x Mont -> Mont, then out.
        assert_eq!(&big(m.mul(&am, &b).as_limbs()), want, "{c:?}");
        assert_eq!(&big(m.from_mont(&m.mul(&am, &m.to_mont(&b))).as_limbs()), want, "{c:?}");
    }
}

#[test]
fn mod_exp() {
    let (mut odd, mut even) = (0, 0);
    for c in cases("mod_exp_tests.txt") {
        let m_big = unsigned(&c, "M");
        let e = unsigned(&c, "E");
        let want = unsigned(&c, "ModExp");
        let Ok(m) = Modulus::from_nat(&nat(&m_big)) else {
            assert!(m_big.bits() <= 1 || !m_big.bit(0), "only even or unit moduli fall back");
            let a = signed_mod(&c, "A", &m_big);
            let got = nat(&a).pow_mod_vartime(&nat(&e), &nat(&m_big)).unwrap();
            assert_eq!(big_nat(&got), want, "{c:?}");
            even += 1;
            continue;
        };
        for m in [m.clone(), m.with_portable_kernels()] {
            check_mod_exp(&m, &c, &nat(&e), &want);
        }
        odd += 1;
    }
    println!("mod_exp: {odd} odd-modulus cases through Modulus, {even} through the Nat fallback");
    assert_eq!(odd + even, 140);
    assert!(odd > 0 && even > 0);
}

fn check_mod_exp(m: &Modulus, c: &Case, e: &Nat, want: &BigUint) {
    let base = m.to_mont(&residue(m, c, "A"));
    let out = |x: Elem<_, _>| big(m.from_mont(&x).as_limbs());
    assert_eq!(&out(m.pow(&base, e)), want, "pow {c:?}");
    assert_eq!(&out(m.pow_vartime(&base, e)), want, "pow_vartime {c:?}");
    assert_eq!(&out(m.pow_binary_vartime(&base, e)), want, "pow_binary_vartime {c:?}");
    for w in [1, 2, 4, MAX_WINDOW] {
        assert_eq!(&out(m.pow_kary(&base, e, w).unwrap()), want, "pow_kary {w} {c:?}");
    }
}

#[test]
fn miller_rabin_witnesses() {
    let mut n = 0;
    for c in cases("miller_rabin_tests.txt") {
        let w = nat(&unsigned(&c, "W"));
        let b = nat(&unsigned(&c, "B"));
        let composite = match c["Result"].as_str() {
            "Composite" => true,
            "PossiblyPrime" => false,
            other => panic!("unknown result {other}"),
        };
        let mr = MillerRabin::new(&w).unwrap();
        assert_eq!(mr.is_witness(&b), composite, "{c:?}");
        assert_eq!(mr.is_witness_vartime(&b), composite, "vartime {c:?}");
        n += 1;
    }
    assert_eq!(n, 72);
}
