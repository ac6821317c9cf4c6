//! PKCS#1 v1.5, PSS and raw verification on arbitrary signatures and messages, with every
//! distinct public key of BoringSSL's RSA test file (512 to 2048 bits, odd sizes too).
#![no_main]

use cryptocard::rsa::RsaPublicKey;
use std::sync::OnceLock;

fn keys() -> &'static [RsaPublicKey] {
    static KEYS: OnceLock<Vec<RsaPublicKey>> = OnceLock::new();
    KEYS.get_or_init(|| {
        include_str!("../../tests/data/rsa/boringssl_rsa_tests.txt")
            .lines()
            .filter_map(|l| l.strip_prefix("RSAPublicKey = "))
            .map(|h| RsaPublicKey::from_pkcs1_der(&hex::decode(h).unwrap()).unwrap())
            .fold(Vec::new(), |mut v, k| {
                if !v.contains(&k) {
                    v.push(k);
                }
                v
            })
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some((&which, rest)) = data.split_first() {
        let keys = keys();
        cryptocard::rsa::fuzzing::verify(&keys[usize::from(which) % keys.len()], rest);
    }
});
