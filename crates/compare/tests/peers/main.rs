//! Known-answer and cross-peer tests for every peer: the vendored builds always, the system
//! libraries where installed (a test prints a line and checks nothing for a library that
//! is absent).
//!
//! Expected values come from the standards (RFC 1319/1320/1321, FIPS 180-2, FIPS 81,
//! RFC 2104/4231) and BoringSSL's bignum test files in `tests/data/`; cross-peer checks
//! compare independent implementations (OpenSSL 4.0 against 3.0, GMP against OpenSSL,
//! nettle against OpenSSL).

mod gmp;
mod nettle;
mod openssl;
mod vectors;

use compare::openssl::Openssl;

/// The vendored OpenSSL and, where installed, the system's.
fn openssls() -> Vec<&'static Openssl> {
    let mut peers = vec![Openssl::vendored().expect("vendored OpenSSL loads")];
    match Openssl::system().expect("system libcrypto loads cleanly if present") {
        Some(sys) => peers.push(sys),
        None => println!(
            "skipping the system OpenSSL: {} not installed",
            compare::openssl::SYSTEM_LIBCRYPTO
        ),
    }
    peers
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).expect("test data is valid hex")
}
