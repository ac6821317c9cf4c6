//! nettle (system, where installed) and RustCrypto's md2.

use super::unhex;
use super::vectors::{self, SHA_ABC};
use compare::nettle::Nettle;
use compare::openssl::Openssl;
use compare::{Origin, PeerError, rustcrypto};

fn nettle() -> Option<&'static Nettle> {
    let n = Nettle::system().expect("system nettle loads cleanly if present");
    if n.is_none() {
        println!("skipping nettle: {} not installed", compare::nettle::SYSTEM_LIBNETTLE);
    }
    n
}

#[test]
fn nettle_digests_known_answers() {
    let Some(n) = nettle() else { return };
    assert_eq!(n.info().origin, Origin::System);
    assert!(n.info().version.starts_with("3."), "{}", n.info());
    for (alg, msg, want) in vectors::rfc_digests() {
        assert_eq!(hex::encode(n.hash(&alg).unwrap().digest(&msg)), want, "nettle {alg}");
    }
    for (alg, want) in SHA_ABC {
        assert_eq!(hex::encode(n.hash(alg).unwrap().digest(b"abc")), *want, "nettle {alg}");
    }
    assert!(matches!(n.hash("whirlpool"), Err(PeerError::Unavailable(_))));
}

#[test]
fn nettle_des_known_answers() {
    let Some(n) = nettle() else { return };
    let ossl = Openssl::vendored().unwrap();
    for case in vectors::des_cases().into_iter().filter(|c| c.alg != "des-ofb") {
        let (key, iv, pt, ct) =
            (unhex(&case.key), unhex(&case.iv), unhex(&case.pt), unhex(&case.ct));
        assert_eq!(
            n.des(&case.alg, &key, &iv, true).unwrap().apply(&pt).unwrap(),
            ct,
            "nettle {}",
            case.alg
        );
        assert_eq!(
            n.des(&case.alg, &key, &iv, false).unwrap().apply(&ct).unwrap(),
            pt,
            "nettle {} decrypt",
            case.alg
        );
        // Triple DES with distinct keys: nettle and OpenSSL must agree.
        let ede3 = vectors::ede3_name(&case.alg);
        let key3: Vec<u8> = (0..24u8).map(|i| i.wrapping_mul(37) ^ 0xa5).collect();
        let ours = n.des(&ede3, &key3, &iv, true).unwrap().apply(&pt).unwrap();
        let theirs = ossl.cipher(&ede3, &key3, &iv, true).unwrap().apply(&pt).unwrap();
        assert_eq!(ours, theirs, "nettle and OpenSSL {ede3}");
    }
    assert!(matches!(n.des("des-cbc", &[0; 8], &[], true), Err(PeerError::InvalidInput(_))));
    assert!(matches!(n.des("des-ede3", &[0; 8], &[], true), Err(PeerError::InvalidInput(_))));
}

#[test]
fn rustcrypto_md2_known_answers() {
    let info = rustcrypto::md2_info();
    assert_eq!(info.origin, Origin::Crate);
    assert!(info.version.starts_with("0.11"), "{info}");
    let mut seen = 0;
    for (alg, msg, want) in vectors::rfc_digests().into_iter().filter(|(a, ..)| a == "md2") {
        assert_eq!(hex::encode(rustcrypto::md2(&msg)), want, "{alg}");
        seen += 1;
    }
    assert_eq!(seen, 7, "RFC 1319's seven MD2 examples");
}
