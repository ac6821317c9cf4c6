//! PKCS#1 v1.5 (implicit and explicit), OAEP and raw decryption of arbitrary ciphertexts
//! with the 512-bit key of BoringSSL's RSA test file.
#![no_main]

use cryptocard::rsa::RsaPrivateKey;
use std::sync::OnceLock;

fn key() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| {
        let text = include_str!("../../tests/data/rsa/boringssl_rsa_tests.txt");
        let block = &text[text.find("Key = RSA-512\n").unwrap()..];
        let der = block.lines().find_map(|l| l.strip_prefix("PKCS8 = ")).unwrap();
        RsaPrivateKey::from_pkcs8_der(&hex::decode(der).unwrap()).unwrap()
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    cryptocard::rsa::fuzzing::decrypt(key(), data);
});
