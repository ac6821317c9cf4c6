//! Key validation: every inconsistency in a private or public key is refused with
//! `Error::InvalidKey` (never a panic), starting from BoringSSL's RSA-2048 test key.

use cryptocard::Error;
use cryptocard::bignum::Nat;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{KeyGenOptions, KeyParseOptions, RsaPrivateKey, RsaPublicKey, encoding};

/// n, e, d, [p, q], [dP, dQ], [qInv] of the test key.
struct Parts {
    n: Nat,
    e: Nat,
    d: Nat,
    primes: Vec<Nat>,
    exps: Vec<Nat>,
    coeffs: Vec<Nat>,
}

fn parts() -> Parts {
    let der = hex::decode(include_str!("data/rsa/rsa2048_pkcs1.hex").trim()).unwrap();
    let k = RsaPrivateKey::from_pkcs1_der(&der).unwrap();
    Parts {
        n: k.public_key().n(),
        e: k.public_key().e().clone(),
        d: k.d().clone(),
        primes: k.primes().to_vec(),
        exps: k.crt_exponents().to_vec(),
        coeffs: k.crt_coefficients().to_vec(),
    }
}

fn build(p: Parts) -> Result<RsaPrivateKey, Error> {
    RsaPrivateKey::from_crt_components(p.n, p.e, p.d, p.primes, p.exps, p.coeffs)
}

fn invalid_key(r: Result<RsaPrivateKey, Error>, what: &str) {
    match r {
        Err(Error::InvalidKey(_)) => {}
        other => panic!("{what}: expected InvalidKey, got {other:?}"),
    }
}

#[test]
fn the_unmodified_key_is_accepted() {
    assert!(build(parts()).is_ok());
}

#[test]
fn inconsistencies_are_rejected() {
    let two = Nat::from_u64(2);
    let one = Nat::one();
    type Mutation = Box<dyn Fn(&mut Parts)>;
    let cases: Vec<(&str, Mutation)> = vec![
        ("wrong d", Box::new(|p| p.d = &p.d + &Nat::from_u64(2))),
        ("d = 0", Box::new(|p| p.d = Nat::zero())),
        ("d = 1", Box::new(|p| p.d = Nat::one())),
        ("d >= n", Box::new(|p| p.d = &p.n + &Nat::one())),
        ("wrong dP", Box::new(move |p| p.exps[0] = &p.exps[0] + &two)),
        ("wrong dQ", Box::new(move |p| p.exps[1] = &p.exps[1] + &one)),
        ("wrong qInv", Box::new(|p| p.coeffs[0] = &p.coeffs[0] + &Nat::one())),
        ("qInv not reduced", Box::new(|p| p.coeffs[0] = &p.coeffs[0] + &p.primes[0])),
        ("p*q != n", Box::new(|p| p.primes[0] = &p.primes[0] + &Nat::from_u64(2))),
        ("p and q equal", Box::new(|p| p.primes[1] = p.primes[0].clone())),
        ("even e", Box::new(|p| p.e = Nat::from_u64(65536))),
        ("e = 1", Box::new(|p| p.e = Nat::one())),
        ("e = 0", Box::new(|p| p.e = Nat::zero())),
        ("e >= n", Box::new(|p| p.e = &p.n + &Nat::from_u64(2))),
        ("even n", Box::new(|p| p.n = &p.n + &Nat::one())),
        ("one prime", Box::new(|p| p.primes.truncate(1))),
        ("missing exponent", Box::new(|p| p.exps.truncate(1))),
        ("missing coefficient", Box::new(|p| p.coeffs.clear())),
        ("even prime", Box::new(|p| p.primes[0] = &p.primes[0] + &Nat::one())),
        ("prime 1", Box::new(|p| p.primes = vec![Nat::one(), p.n.clone()])),
    ];
    for (what, mutate) in cases {
        let mut p = parts();
        mutate(&mut p);
        invalid_key(build(p), what);
    }
    // Swapped p and q with the same qInv: qInv no longer inverts.
    let mut p = parts();
    p.primes.swap(0, 1);
    p.exps.swap(0, 1);
    invalid_key(build(p), "swapped primes, old qInv");
}

#[test]
fn sizes_are_bounded() {
    // A 256-bit "modulus" (two 128-bit primes): below the 512-bit floor.
    let p = Nat::from_hex("f0000000000000000000000000000061").unwrap();
    let q = Nat::from_hex("e00000000000000000000000000000d3").unwrap();
    let n = &p * &q;
    assert!(matches!(
        RsaPublicKey::new(n.clone(), Nat::from_u64(65537)),
        Err(Error::InvalidKey(_))
    ));
    invalid_key(
        RsaPrivateKey::from_components(n, Nat::from_u64(65537), Nat::from_u64(3), vec![p, q]),
        "tiny n",
    );
    // Above 16384 bits.
    let mut big = Nat::zero();
    big.set_bit(16384, true);
    big.set_bit(0, true);
    assert!(matches!(RsaPublicKey::new(big, Nat::from_u64(3)), Err(Error::InvalidKey(_))));
    // Every modulus takes at most a 64-bit e: a 512-bit one too (OpenSSL's rule allowed
    // any e below 3072 bits).
    let k = KeyGenOptions { allow_small: true, ..KeyGenOptions::new(512) };
    let key = RsaPrivateKey::generate_with(&k, &mut OsRng).unwrap();
    let n512 = key.public_key().n();
    assert!(RsaPublicKey::new(n512.clone(), Nat::from_hex("ffffffffffffffff").unwrap()).is_ok());
    assert_eq!(
        RsaPublicKey::new(n512, Nat::from_hex("10000000000000001").unwrap()),
        Err(Error::InvalidKey("public exponent longer than 64 bits"))
    );
    let mut n4096 = Nat::zero();
    n4096.set_bit(4095, true);
    n4096.set_bit(0, true);
    assert!(RsaPublicKey::new(n4096.clone(), Nat::from_hex("ffffffffffffffff").unwrap()).is_ok());
    assert!(matches!(
        RsaPublicKey::new(n4096, Nat::from_hex("10000000000000001").unwrap()),
        Err(Error::InvalidKey(_))
    ));
    // New keys: at least 1024 bits unless asked.
    assert!(RsaPrivateKey::generate(512, &mut OsRng).is_err());
    assert!(RsaPrivateKey::generate(16385, &mut OsRng).is_err());
}

#[test]
fn missing_crt_values_are_computed_or_recovered() {
    let p = parts();
    let full = build(parts()).unwrap();
    let from_primes =
        RsaPrivateKey::from_components(p.n.clone(), p.e.clone(), p.d.clone(), p.primes.clone())
            .unwrap();
    assert_eq!(from_primes, full);
    let recovered = RsaPrivateKey::from_n_e_d(p.n, p.e, p.d).unwrap();
    assert_eq!(recovered.public_key(), full.public_key());
    assert_eq!(recovered.d(), full.d());
    let mut got = recovered.primes().to_vec();
    got.sort();
    let mut want = full.primes().to_vec();
    want.sort();
    assert_eq!(got, want);
}

/// A PKCS#1 key with zero CRT fields (only n, e, d) is read only when the recovery of its
/// primes is asked for; a plain parse names the option.
#[test]
fn pkcs1_with_zero_crt_fields() {
    let p = parts();
    let int = |x: &Nat| {
        let mut b = x.to_be_bytes();
        if b.is_empty() || b[0] & 0x80 != 0 {
            b.insert(0, 0);
        }
        let mut out = vec![0x02];
        let len = b.len();
        if len < 128 {
            out.push(len as u8);
        } else {
            out.extend([0x82, (len >> 8) as u8, len as u8]);
        }
        out.extend(b);
        out
    };
    let mut body = vec![0x02, 0x01, 0x00];
    for x in [&p.n, &p.e, &p.d] {
        body.extend(int(x));
    }
    for _ in 0..5 {
        body.extend([0x02, 0x01, 0x00]);
    }
    let mut der = vec![0x30, 0x82, (body.len() >> 8) as u8, body.len() as u8];
    der.extend(body);
    assert_eq!(RsaPrivateKey::from_pkcs1_der(&der), Err(encoding::RECOVERY_NOT_ENABLED));
    let recover = KeyParseOptions { recover_primes: true, ..KeyParseOptions::default() };
    let key = RsaPrivateKey::from_pkcs1_der_with(&der, &recover).unwrap();
    assert_eq!(key, build(parts()).unwrap());
}
