//! The cargo-fuzz target bodies (`cryptocard::rsa::fuzzing`) on a few thousand random and
//! mutated inputs, so that CI exercises them without nightly. Deterministic (a fixed
//! xorshift seed); any panic fails the test.

mod common;
// The fuzz targets' keys, the same as the targets use.
#[path = "../fuzz/keys.rs"]
mod fuzz_keys;

use common::XorShift64 as XorShift;

use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard::rsa::fuzzing;

const DATA: &str = include_str!("data/rsa/boringssl_rsa_tests.txt");

/// A random mutation of `seed`: flip, set, insert, delete, truncate or splice bytes.
fn mutate(rng: &mut XorShift, seed: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        let last = at.min(v.len().saturating_sub(1));
        match rng.below(6) {
            0 if !v.is_empty() => {
                let bit = 1 << rng.below(8);
                v[last] ^= bit;
            }
            1 if !v.is_empty() => v[last] = rng.next_u64() as u8,
            2 => v.insert(at, rng.next_u64() as u8),
            3 if at < v.len() => {
                v.remove(at);
            }
            4 => v.truncate(at),
            _ => {
                let n = rng.below(16);
                let extra = rng.bytes(n);
                v.splice(at..at, extra);
            }
        }
    }
    v
}

/// Every DER blob of the BoringSSL file (keys in all formats, signatures, ciphertexts).
fn der_seeds() -> Vec<Vec<u8>> {
    DATA.lines()
        .filter_map(|l| l.split_once(" = "))
        .filter(|(k, _)| matches!(*k, "PKCS8" | "SPKI" | "RSAPublicKey" | "RSAPrivateKey"))
        .filter_map(|(_, v)| hex::decode(v).ok())
        .collect()
}

#[test]
fn parse_keys_on_random_and_mutated_input() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut seeds = der_seeds();
    let key = RsaPrivateKey::from_pkcs8_der(&seeds[0]).unwrap();
    for pem in [key.to_pkcs1_pem().unwrap().to_string(), key.to_pkcs8_pem().unwrap().to_string()] {
        seeds.push(pem.into_bytes());
    }
    seeds.push(key.public_key().to_public_key_pem().unwrap().into_bytes());
    seeds.push(key.to_pkcs8_encrypted_der(b"x", &mut OsRng).unwrap());
    for seed in &seeds {
        fuzzing::parse_keys(seed);
    }
    for _ in 0..2500 {
        let seed = &seeds[rng.below(seeds.len())];
        fuzzing::parse_keys(&mutate(&mut rng, seed));
    }
    for _ in 0..500 {
        let len = rng.below(600);
        fuzzing::parse_keys(&rng.bytes(len));
    }
}

#[test]
fn verify_on_random_and_mutated_input() {
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    let keys = fuzz_keys::boringssl_public_keys();
    // Valid signatures to mutate, from the 2048-bit key.
    let der = hex::decode(include_str!("data/rsa/rsa2048_pkcs1.hex").trim()).unwrap();
    let private = RsaPrivateKey::from_pkcs1_der(&der).unwrap();
    let sig = private.sign_pkcs1v15(HashAlg::Sha256, b"msg", &mut OsRng).unwrap();
    let mut valid = vec![1u8];
    valid.extend_from_slice(&sig);
    valid.extend_from_slice(b"msg");
    fuzzing::verify(private.public_key(), &valid);
    for _ in 0..1500 {
        let data = mutate(&mut rng, &valid);
        fuzzing::verify(private.public_key(), &data);
    }
    for _ in 0..1500 {
        let key = &keys[rng.below(keys.len())];
        let len = rng.below(key.size() + 40);
        fuzzing::verify(key, &rng.bytes(len));
    }
}

#[test]
fn decrypt_on_random_and_mutated_input() {
    let mut rng = XorShift(0x0fed_cba9_8765_4321);
    let key = fuzz_keys::rsa512();
    let ct = key.public_key().encrypt_pkcs1v15(b"hello", &mut OsRng).unwrap();
    let mut valid = vec![0u8];
    valid.extend_from_slice(&ct);
    fuzzing::decrypt(&key, &valid);
    for _ in 0..600 {
        fuzzing::decrypt(&key, &mutate(&mut rng, &valid));
    }
    for _ in 0..400 {
        let len = rng.below(80);
        fuzzing::decrypt(&key, &rng.bytes(len));
    }
}
