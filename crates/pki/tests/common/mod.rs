//! Helpers shared by the PKI tests: the files of tests/data, the test PKI's trust, small
//! keys and extensions made on the spot.

#![allow(dead_code)]

use const_oid::AssociatedOid;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{KeyGenOptions, RsaPrivateKey};
use cryptocard_pki::cert::Extension;
use cryptocard_pki::cms::VerifyOptions;
use der::Encode;
use der::asn1::OctetString;
use x509_cert::Certificate;
use x509_cert::der::DecodePem;

/// The bytes of tests/data/`name`.
pub fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The certificate in tests/data/`name`.pem.
pub fn cert(name: &str) -> Certificate {
    Certificate::from_pem(data(&format!("{name}.pem"))).unwrap()
}

/// The private key in the PEM file tests/data/`file`.
pub fn key(file: &str) -> RsaPrivateKey {
    RsaPrivateKey::from_pem(std::str::from_utf8(&data(file)).unwrap(), None).unwrap()
}

/// Trusts the test root, with the intermediate given as untrusted.
pub fn trust() -> VerifyOptions {
    VerifyOptions {
        trusted: vec![cert("root")],
        untrusted: vec![cert("inter")],
        ..Default::default()
    }
}

/// A fresh key of `bits` bits, below the library's usual minimum if asked.
pub fn small_key(bits: usize) -> RsaPrivateKey {
    let opts = KeyGenOptions { allow_small: true, ..KeyGenOptions::new(bits) };
    RsaPrivateKey::generate_with(&opts, &mut OsRng).unwrap()
}

/// `value` as a certificate extension.
pub fn ext<T: Encode + AssociatedOid>(value: &T, critical: bool) -> Extension {
    Extension {
        extn_id: T::OID,
        critical,
        extn_value: OctetString::new(value.to_der().unwrap()).unwrap(),
    }
}
