//! No `Debug` output prints a secret number: every type that can hold a prime, a private
//! exponent, a residue or a candidate for a prime shows its sizes only. Each is formatted
//! with `{:?}` around a prime of the RSA-2048 test key, and the text must hold no run of
//! digits long enough to be a limb or a radix-2^52 digit, in hex or in decimal, and none
//! of the prime's limbs.

use cryptocard::bignum::Nat;
use cryptocard::modular::Modulus;
use cryptocard::modular::prime::MillerRabin;
use cryptocard::rsa::RsaPrivateKey;

/// A secret prime, 1024 bits.
fn prime() -> Nat {
    let der = hex::decode(include_str!("data/rsa/rsa2048_pkcs1.hex").trim()).unwrap();
    RsaPrivateKey::from_pkcs1_der(&der).unwrap().primes()[0].clone()
}

/// Fails if `text` (the `Debug` of `what`) holds 8 or more hex digits in a row, 6 or
/// more decimal digits in a row, or a limb of `secret` in either base.
fn assert_redacted(what: &str, text: &str, secret: &Nat) {
    let runs = |is: fn(char) -> bool| text.split(|c: char| !is(c)).map(str::len).max().unwrap_or(0);
    assert!(runs(|c| c.is_ascii_hexdigit()) < 8, "{what} prints hex digits: {text}");
    assert!(runs(|c| c.is_ascii_digit()) < 6, "{what} prints decimal digits: {text}");
    for limb in secret.as_limbs() {
        assert!(!text.contains(&format!("{limb:x}")), "{what} prints a limb: {text}");
        assert!(!text.contains(&limb.to_string()), "{what} prints a limb: {text}");
    }
}

#[test]
fn miller_rabin_shows_the_size_only() {
    let p = prime();
    let mr = MillerRabin::new(&p).unwrap();
    let text = format!("{mr:?}");
    assert_redacted("MillerRabin", &text, &p);
    assert!(text.contains("bits: 1024"), "{text}");
}

#[test]
fn moduli_elements_and_keys_show_sizes_only() {
    let p = prime();
    let m: Modulus = Modulus::from_nat(&p).unwrap();
    assert_redacted("Modulus", &format!("{m:?}"), &p);
    let x = m.to_mont(&m.elem_reduce(&Nat::from_u64(7)));
    assert_redacted("Elem", &format!("{x:?}"), &p);
    let der = hex::decode(include_str!("data/rsa/rsa2048_pkcs1.hex").trim()).unwrap();
    let key = RsaPrivateKey::from_pkcs1_der(&der).unwrap();
    let text = format!("{key:?}");
    for secret in key.primes().iter().chain(key.crt_exponents()).chain([key.d()]) {
        assert_redacted("RsaPrivateKey", &text, secret);
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn ifma_parameters_and_lanes_show_sizes_only() {
    use cryptocard::hazmat::ifma::{Mb8Lane, Params52};
    let p = prime();
    let limbs = p.as_limbs();
    // Any RR below the modulus makes parameters (RR is not checked); 20 digits hold 1024
    // bits. Nothing here runs an IFMA instruction.
    let params = Params52::<20>::new(limbs, &[1]).unwrap();
    let text = format!("{params:?}");
    assert_redacted("RadixParams", &text, &p);
    assert!(text.contains("digits: 20") && text.contains("limbs: 16"), "{text}");
    let d = [0x1234_5678_9abc_def1u64; 16];
    let mut out = [0u64; 16];
    let lane = Mb8Lane::new(limbs, limbs, limbs, &d, &mut out);
    let text = format!("{lane:?}");
    assert_redacted("Mb8Lane", &text, &p);
    assert_redacted("Mb8Lane", &text, &Nat::from_slice(&d));
}
