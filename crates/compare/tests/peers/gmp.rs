//! GMP peers: the bundled 6.3.0 where the build could make it (it needs m4), the system's
//! libgmp.so.10 where installed.

use super::vectors::{bn_cases, trim};
use compare::gmp::Gmp;
use compare::openssl::Openssl;
use compare::{Origin, PeerError};

/// The bundled GMP, or `None` (with a line saying why) where the build left it out. Where
/// m4 is on PATH the build could make it, so its absence is a failure.
fn bundled() -> Option<&'static Gmp> {
    match Gmp::bundled() {
        Ok(gmp) => Some(gmp),
        Err(PeerError::Unavailable(why)) => {
            assert!(why.starts_with("the bundled GMP was not built: "), "{why}");
            let m4 = std::process::Command::new("m4").arg("--version").output();
            assert!(
                !m4.is_ok_and(|o| o.status.success()),
                "m4 is on PATH but {why}; `cargo clean -p compare` rebuilds it"
            );
            println!("skipping the bundled GMP: {why}");
            None
        }
        Err(e) => panic!("unexpected error: {e}"),
    }
}

fn gmps() -> Vec<&'static Gmp> {
    let mut peers: Vec<_> = bundled().into_iter().collect();
    match Gmp::system().expect("system libgmp loads cleanly if present") {
        Some(sys) => peers.push(sys),
        None => println!("skipping the system GMP: {} not installed", compare::gmp::SYSTEM_LIBGMP),
    }
    peers
}

#[test]
fn versions_and_origins() {
    if let Some(b) = bundled() {
        assert_eq!(b.info().version, "6.3.0", "vendor/ holds GMP 6.3.0: {}", b.info());
        assert_eq!(b.info().origin, Origin::Bundled);
        assert_eq!(b.info().to_string(), "GMP 6.3.0 (bundled)");
    }
    if let Some(s) = Gmp::system().unwrap() {
        assert_eq!(s.info().origin, Origin::System);
        assert!(s.info().version.starts_with("6."), "{}", s.info());
    }
}

#[test]
fn modexp_matches_boringssl_vectors() {
    for gmp in gmps() {
        let mut checked = 0;
        for c in bn_cases(include_str!("../data/mod_exp_tests.txt"), "ModExp") {
            let m = trim(&c["M"]);
            if m.last().is_none_or(|b| b & 1 == 0) || m == [1] || trim(&c["E"]).is_empty() {
                continue;
            }
            let mut op = gmp.modexp(&c["A"], &c["E"], m).unwrap();
            op.run_sec();
            assert_eq!(trim(&op.result()), trim(&c["ModExp"]), "{} powm_sec", gmp.info());
            op.run();
            assert_eq!(trim(&op.result()), trim(&c["ModExp"]), "{} powm", gmp.info());
            checked += 1;
        }
        assert!(checked > 50, "most cases qualify ({checked})");
        let mut small = gmp.modexp(&[3], &[5], &[7]).unwrap();
        small.run_sec();
        assert_eq!(small.result(), [5], "3^5 mod 7");
    }
}

#[test]
fn mul_matches_boringssl_vectors() {
    for gmp in gmps() {
        for c in bn_cases(include_str!("../data/product_tests.txt"), "Product") {
            let mut op = gmp.mul(&c["A"], &c["B"]);
            op.run();
            assert_eq!(op.result(), trim(&c["Product"]), "{} mpz_mul", gmp.info());
        }
    }
}

#[test]
fn rejects_what_powm_sec_cannot_take() {
    for gmp in gmps() {
        assert!(matches!(gmp.modexp(&[3], &[5], &[8]), Err(PeerError::InvalidInput(_))));
        assert!(matches!(gmp.modexp(&[3], &[5], &[0]), Err(PeerError::InvalidInput(_))));
        assert!(matches!(gmp.modexp(&[3], &[0], &[7]), Err(PeerError::InvalidInput(_))));
    }
}

#[test]
fn large_modexp_agrees_with_openssl() {
    // A 2048-bit odd modulus, base and exponent from a simple deterministic generator.
    let bytes = |seed: u64| -> Vec<u8> {
        let mut x = seed;
        (0..256)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    };
    let (b, e, mut m) = (bytes(1), bytes(2), bytes(3));
    m[0] |= 0x80;
    m[255] |= 1;
    let mut ossl = Openssl::vendored().unwrap().modexp(&b, &e, &m).unwrap();
    ossl.run_consttime().unwrap();
    for gmp in gmps() {
        let mut op = gmp.modexp(&b, &e, &m).unwrap();
        op.run_sec();
        assert_eq!(op.result(), ossl.result().unwrap(), "{} against OpenSSL", gmp.info());
    }
}
