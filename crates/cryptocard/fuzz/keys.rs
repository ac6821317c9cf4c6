//! The fixed keys of the fuzz targets, from the library's test data, shared with the test
//! that runs the targets' bodies over their seed corpora (`tests/fuzz_corpus.rs` includes
//! this file). The callers cache them.

#![allow(dead_code)] // each includer uses its own part

use cryptocard::rsa::{RsaPrivateKey, RsaPublicKey};

const BORINGSSL: &str = include_str!("../tests/data/rsa/boringssl_rsa_tests.txt");

/// The 512-bit key of BoringSSL's RSA test file (`decrypt`).
pub fn rsa512() -> RsaPrivateKey {
    let block = &BORINGSSL[BORINGSSL.find("Key = RSA-512\n").unwrap()..];
    let der = block.lines().find_map(|l| l.strip_prefix("PKCS8 = ")).unwrap();
    RsaPrivateKey::from_pkcs8_der(&hex::decode(der).unwrap()).unwrap()
}

/// Every distinct public key of BoringSSL's RSA test file, 512 to 2048 bits, odd sizes
/// too (`verify`).
pub fn boringssl_public_keys() -> Vec<RsaPublicKey> {
    let mut keys: Vec<RsaPublicKey> = Vec::new();
    for h in BORINGSSL.lines().filter_map(|l| l.strip_prefix("RSAPublicKey = ")) {
        let k = RsaPublicKey::from_pkcs1_der(&hex::decode(h).unwrap()).unwrap();
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}

/// Two 1024-bit keys (one batch class, two moduli), the 2048-bit key of BoringSSL's file
/// and a 3072-bit key (`private_batch`).
pub fn batch_keys() -> Vec<RsaPrivateKey> {
    let pem = |text: &str| RsaPrivateKey::from_pem(text, None).unwrap();
    let der = hex::decode(include_str!("../tests/data/rsa/rsa2048_pkcs1.hex").trim()).unwrap();
    vec![
        pem(include_str!("../tests/data/rsa/rsa1024.pem")),
        pem(include_str!("../tests/data/rsa/rsa1024b.pem")),
        RsaPrivateKey::from_pkcs1_der(&der).unwrap(),
        pem(include_str!("../tests/data/rsa/rsa3072.pem")),
    ]
}
