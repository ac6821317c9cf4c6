//! Bounded work on hostile keys and parameters (issue 18, section 3): every call that a
//! hostile key file or caller could make expensive answers with a clear error, and
//! answers within a time limit (`common::within`), so a regression fails instead of
//! hanging. The hostile keys are built here from the 2048-bit test key's primes.

mod common;
use common::within;

use cryptocard::Error;
use cryptocard::bignum::Nat;
use cryptocard::rng::OsRng;
use cryptocard::rsa::encoding::{
    DEFAULT_MAX_ITERATIONS, RECOVERY_NOT_ENABLED, TOO_MANY_ITERATIONS,
};
use cryptocard::rsa::pkcs1::{self, OtherPrimeInfo, UintRef};
use cryptocard::rsa::pkcs8::EncryptedPrivateKeyInfoRef;
use cryptocard::rsa::pkcs8::der::Encode;
use cryptocard::rsa::pkcs8::der::asn1::OctetStringRef;
use cryptocard::rsa::pkcs8::pkcs5::{self, pbes2};
use cryptocard::rsa::{KeyParseOptions, RsaPrivateKey, RsaPublicKey, key_from_der_with};

/// Seconds a call may take: far above what the bounded code needs, far below what the
/// unbounded code took on these inputs.
const LIMIT: u64 = 5;

const E: u64 = 65537;

fn test_key() -> RsaPrivateKey {
    let der = hex::decode(include_str!("data/rsa/rsa2048_pkcs1.hex").trim()).unwrap();
    RsaPrivateKey::from_pkcs1_der(&der).unwrap()
}

fn recovering() -> KeyParseOptions {
    KeyParseOptions { recover_primes: true, ..KeyParseOptions::default() }
}

/// Big-endian bytes of x, with one zero byte for zero (DER INTEGER content).
fn be(x: &Nat) -> Vec<u8> {
    let b = x.to_be_bytes();
    if b.is_empty() { vec![0] } else { b }
}

fn uint(b: &[u8]) -> UintRef<'_> {
    UintRef::new(b).unwrap()
}

/// A PKCS#1 `RSAPrivateKey` with whatever values it is given: `crt` is None for zero CRT
/// fields, else (primes, exponents, coefficients), more than two primes as
/// `otherPrimeInfos`.
fn pkcs1_der(n: &Nat, e: &Nat, d: &Nat, crt: Option<(&[Nat], &[Nat], &[Nat])>) -> Vec<u8> {
    let zero = Nat::zero();
    let zeros = [zero.clone(), zero.clone()];
    let (primes, exps, coeffs) = crt.unwrap_or((&zeros[..], &zeros[..], &zeros[..1]));
    let bytes = |v: &[Nat]| v.iter().map(be).collect::<Vec<_>>();
    let (pb, eb, cb) = (bytes(primes), bytes(exps), bytes(coeffs));
    let (nb, e_b, db) = (be(n), be(e), be(d));
    let others: Vec<OtherPrimeInfo<UintRef<'_>>> = (2..pb.len())
        .map(|i| OtherPrimeInfo {
            prime: uint(&pb[i]),
            exponent: uint(&eb[i]),
            coefficient: uint(&cb[i - 1]),
        })
        .collect();
    pkcs1::RsaPrivateKeyRef {
        modulus: uint(&nb),
        public_exponent: uint(&e_b),
        private_exponent: uint(&db),
        prime1: uint(&pb[0]),
        prime2: uint(&pb[1]),
        exponent1: uint(&eb[0]),
        exponent2: uint(&eb[1]),
        coefficient: uint(&cb[0]),
        other_prime_infos: (!others.is_empty()).then_some(others),
    }
    .to_der()
    .unwrap()
}

/// The CRT values of a key with `primes`, computed here (by the variable-time `Nat`
/// functions: test data), for a DER file that carries them.
fn crt_values(d: &Nat, primes: &[Nat]) -> (Vec<Nat>, Vec<Nat>) {
    let one = Nat::one();
    let exps = primes.iter().map(|r| d.rem(&r.sub(&one).unwrap()).unwrap()).collect();
    let mut coeffs = vec![primes[1].mod_inverse_vartime(&primes[0]).unwrap()];
    let mut prefix = &primes[0] * &primes[1];
    for r in &primes[2..] {
        coeffs.push(prefix.mod_inverse_vartime(r).unwrap());
        prefix = &prefix * r;
    }
    (exps, coeffs)
}

/// e^-1 mod lcm(r_i - 1) for `primes` (r_i may repeat only as a prime power's p).
fn private_exponent(e: &Nat, lambda: &Nat) -> Nat {
    e.mod_inverse_vartime(lambda).unwrap()
}

/// n = p^8 (8192 bits) with zero CRT fields and a d that is right for it: e*d = 1 mod
/// lambda(p^8) = p^7 (p - 1), so the cheap first test of the recovery passes and, before
/// the perfect-power test, every one of its tries failed (the units mod p^8 are cyclic).
#[test]
fn recovery_refuses_a_prime_power_at_once() {
    let key = test_key();
    let p = key.primes()[0].clone();
    let n = p.pow(8).unwrap();
    assert!(n.bits() > 8180 && n.bits() <= 8192, "{}", n.bits());
    let lambda = &p.pow(7).unwrap() * &p.sub(&Nat::one()).unwrap();
    let e = Nat::from_u64(E);
    let d = private_exponent(&e, &lambda);
    let der = pkcs1_der(&n, &e, &d, None);
    let want = Error::InvalidKey("the modulus is a perfect power, not p*q");

    let plain = der.clone();
    let got = within(LIMIT, "plain parse of p^8", move || RsaPrivateKey::from_pkcs1_der(&plain));
    assert_eq!(got.err(), Some(RECOVERY_NOT_ENABLED));
    let got = within(LIMIT, "recovering parse of p^8", move || {
        RsaPrivateKey::from_pkcs1_der_with(&der, &recovering()).err()
    });
    assert_eq!(got, Some(want));
    let got = within(LIMIT, "from_n_e_d of p^8", move || RsaPrivateKey::from_n_e_d(n, e, d).err());
    assert_eq!(got, Some(want));
}

/// n = p^8 * q, 9216 bits and no perfect power: over the recovery's 8192-bit cap, refused
/// before any exponentiation (it used to try up to 100 bases at 9216 bits).
#[test]
fn recovery_refuses_moduli_over_8192_bits() {
    let key = test_key();
    let (p, q) = (key.primes()[0].clone(), key.primes()[1].clone());
    let n = &p.pow(8).unwrap() * &q;
    assert!(n.bits() > 9200);
    let one = Nat::one();
    let lambda = (&p.pow(7).unwrap() * &p.sub(&one).unwrap()).lcm(&q.sub(&one).unwrap());
    let e = Nat::from_u64(E);
    let d = private_exponent(&e, &lambda);
    let got = within(LIMIT, "from_n_e_d at 9216 bits", move || RsaPrivateKey::from_n_e_d(n, e, d));
    assert!(matches!(got, Err(Error::Unsupported(why)) if why.contains("8192")), "{:?}", got.err());
}

/// A 3071-bit e on a 3072-bit modulus, and a 2047-bit e on a real 2048-bit key (with
/// d = 65537): both used to be accepted, with verification and blinding as dear as a
/// private operation.
#[test]
fn public_exponents_are_bounded_for_every_size() {
    let want = Error::InvalidKey("public exponent longer than 64 bits");
    let mut n = Nat::zero();
    n.set_bit(3071, true);
    n.set_bit(0, true);
    let mut e = Nat::zero();
    e.set_bit(3070, true);
    e.set_bit(0, true);
    let got = within(LIMIT, "3071-bit e", move || RsaPublicKey::new(n, e).err());
    assert_eq!(got, Some(want));

    let key = test_key();
    let primes = key.primes().to_vec();
    let one = Nat::one();
    let lambda = primes[0].sub(&one).unwrap().lcm(&primes[1].sub(&one).unwrap());
    let d = Nat::from_u64(E);
    let e = d.mod_inverse_vartime(&lambda).unwrap();
    assert!(e.bits() > 2000);
    let n = key.public_key().n();
    let (exps, coeffs) = crt_values(&d, &primes);
    let der = pkcs1_der(&n, &e, &d, Some((&primes[..], &exps[..], &coeffs[..])));
    let got = within(LIMIT, "PKCS#1 key with a 2047-bit e", move || {
        RsaPrivateKey::from_pkcs1_der(&der).err()
    });
    assert_eq!(got, Some(want));
    let got = within(LIMIT, "from_components with a 2047-bit e", move || {
        RsaPrivateKey::from_components(n, e, d, primes).err()
    });
    assert_eq!(got, Some(want));
    // A 64-bit e, the most key generation takes, is still read.
    let e64 = Nat::from_u64(u64::MAX);
    assert!(RsaPublicKey::new(key.public_key().n(), e64).is_ok());
}

/// Keys with prime factors 3 and 5 (p = 3 with a 1024-bit q; and 3, 5 beside the test
/// key's primes) used to parse and then fail at every signature; now they are refused.
#[test]
fn tiny_prime_factors_are_refused() {
    let want = Error::InvalidKey("a prime factor is shorter than 64 bits");
    let key = test_key();
    let (p, q) = (key.primes()[0].clone(), key.primes()[1].clone());
    let one = Nat::one();
    let e = Nat::from_u64(E);
    let cases = [vec![p.clone(), Nat::from_u64(3)], vec![p, q, Nat::from_u64(3), Nat::from_u64(5)]];
    for primes in cases {
        let n = primes.iter().fold(Nat::one(), |acc, r| &acc * r);
        let lambda = primes.iter().fold(Nat::one(), |acc, r| acc.lcm(&r.sub(&one).unwrap()));
        let d = private_exponent(&e, &lambda);
        let (exps, coeffs) = crt_values(&d, &primes);
        let der = pkcs1_der(&n, &e, &d, Some((&primes[..], &exps[..], &coeffs[..])));
        let what = format!("{} primes", primes.len());
        let got = within(LIMIT, &what, move || RsaPrivateKey::from_pkcs1_der(&der).err());
        assert_eq!(got, Some(want), "{what}");
        let e = e.clone();
        let got =
            within(LIMIT, &what, move || RsaPrivateKey::from_components(n, e, d, primes).err());
        assert_eq!(got, Some(want), "{what}");
    }
}

/// An encrypted PKCS#8 file with PBES2, PBKDF2-HMAC-SHA512 and AES-256-CBC, any iteration
/// count and any ciphertext.
fn encrypted_der(iterations: u32, ciphertext: &[u8]) -> Vec<u8> {
    let kdf = pbes2::Pbkdf2Params {
        salt: pbes2::Salt::new([7u8; 16]).unwrap(),
        iteration_count: iterations,
        key_length: None,
        prf: pbes2::Pbkdf2Prf::HmacWithSha512,
    };
    EncryptedPrivateKeyInfoRef {
        encryption_algorithm: pkcs5::EncryptionScheme::Pbes2(pbes2::Parameters {
            kdf: pbes2::Kdf::Pbkdf2(kdf),
            encryption: pbes2::EncryptionScheme::Aes256Cbc { iv: [9u8; 16] },
        }),
        encrypted_data: OctetStringRef::new(ciphertext).unwrap(),
    }
    .to_der()
    .unwrap()
}

/// 10,000,000 iterations of PBKDF2-HMAC-SHA512 used to be derived before anything else was
/// looked at; the default ceiling is now 1,000,000 and is checked first.
#[test]
fn pbkdf2_iterations_have_a_lower_default_ceiling() {
    assert_eq!(DEFAULT_MAX_ITERATIONS, 1_000_000);
    for iterations in [10_000_000, DEFAULT_MAX_ITERATIONS + 1] {
        let der = encrypted_der(iterations, &[0x5a; 64]);
        let got = within(LIMIT, "iterations over the ceiling", move || {
            RsaPrivateKey::from_pkcs8_encrypted_der(&der, b"password").err()
        });
        assert_eq!(got, Some(TOO_MANY_ITERATIONS), "{iterations}");
    }
}

/// A ciphertext that is empty or not a whole number of cipher blocks is refused before the
/// key derivation (it used to cost the full derivation, then read as a wrong password).
#[test]
fn cheap_checks_come_before_the_key_derivation() {
    let want = Error::InvalidEncoding(
        "password-encrypted data is empty or not a whole number of cipher blocks",
    );
    for ciphertext in [&[0x5a; 15][..], &[0x5a; 33], &[]] {
        let der = encrypted_der(DEFAULT_MAX_ITERATIONS, ciphertext);
        let got = within(LIMIT, "bad ciphertext length", move || {
            RsaPrivateKey::from_pkcs8_encrypted_der(&der, b"password").err()
        });
        assert_eq!(got, Some(want), "{} bytes", ciphertext.len());
    }
}

/// The ceiling is the caller's: a key written with 2048 iterations (OpenSSL's count) is
/// refused under a ceiling of 2047 and read under 2048, by every parser that takes it.
#[test]
fn the_ceiling_is_a_setting() {
    let key = test_key();
    let der = key.to_pkcs8_encrypted_der(b"pw", &mut OsRng).unwrap();
    let opts = |max_iterations| KeyParseOptions { max_iterations, ..KeyParseOptions::default() };
    assert_eq!(
        RsaPrivateKey::from_pkcs8_encrypted_der_with(&der, b"pw", &opts(2047)).err(),
        Some(TOO_MANY_ITERATIONS)
    );
    assert_eq!(key_from_der_with(&der, Some(b"pw"), &opts(2047)).err(), Some(TOO_MANY_ITERATIONS));
    assert_eq!(RsaPrivateKey::from_pkcs8_encrypted_der_with(&der, b"pw", &opts(2048)), Ok(key));
}
