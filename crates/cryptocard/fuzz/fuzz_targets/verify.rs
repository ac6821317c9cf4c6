//! PKCS#1 v1.5, PSS, X9.31 and raw verification on arbitrary signatures and messages, with every
//! distinct public key of BoringSSL's RSA test file (512 to 2048 bits, odd sizes too).
#![no_main]

#[path = "../keys.rs"]
mod keys;

use cryptocard::rsa::RsaPublicKey;
use std::sync::OnceLock;

fn keys() -> &'static [RsaPublicKey] {
    static KEYS: OnceLock<Vec<RsaPublicKey>> = OnceLock::new();
    KEYS.get_or_init(keys::boringssl_public_keys)
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    cryptocard::rsa::fuzzing::verify_any(keys(), data);
});
