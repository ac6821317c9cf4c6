//! PKCS#1 v1.5 (implicit and explicit), OAEP and raw decryption of arbitrary ciphertexts
//! with the 512-bit key of BoringSSL's RSA test file.
#![no_main]

#[path = "../keys.rs"]
mod keys;

use cryptocard::rsa::RsaPrivateKey;
use std::sync::OnceLock;

fn key() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(keys::rsa512)
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    cryptocard::rsa::fuzzing::decrypt(key(), data);
});
