//! Every RSA key parser (PKCS#1, PKCS#8, encrypted PKCS#8, SPKI, PEM) on arbitrary bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    cryptocard::rsa::fuzzing::parse_keys(data);
});
