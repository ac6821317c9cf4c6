//! PKCS#12 files: OpenSSL's, read (3.0's AES and SHA-256 defaults, 1.x's 3DES, RC2-40 and
//! SHA-1, plain ones, the empty password), and ours, read back under every scheme; wrong
//! passwords, mismatched keys and hostile iteration counts refused.

mod common;

use common::{cert, data, key};
use cryptocard::digest::HashAlg;
use cryptocard::pbe::{PbeScheme, TOO_MANY_ITERATIONS};
use cryptocard::rng::OsRng;
use cryptocard_pki::Error;
use cryptocard_pki::pkcs12::{BagContent, ParseOptions, Pkcs12, Pkcs12Builder, parse, parse_with};

const PASSWORD: &[u8] = b"cryptocard";

fn kinds(p12: &Pkcs12) -> Vec<&'static str> {
    p12.bags()
        .map(|b| match b.content {
            BagContent::Key { shrouded: Some(_), .. } => "shrouded key",
            BagContent::Key { shrouded: None, .. } => "key",
            BagContent::Cert(_) => "cert",
            BagContent::Other(_) => "other",
        })
        .collect()
}

/// `openssl pkcs12 -export` (3.0.19): the signer's key and certificate and the
/// intermediate, under OpenSSL 3's defaults and under `-legacy`.
#[test]
fn reads_openssls_files() {
    let signer = cert("signer");
    let inter = cert("inter");
    for (file, mac, safe, key_scheme) in [
        (
            "openssl-aes.p12",
            HashAlg::Sha256,
            "PBES2, PBKDF2, AES-256-CBC, Iteration 2048, PRF hmacWithSHA256",
            "PBES2, PBKDF2, AES-256-CBC, Iteration 2048, PRF hmacWithSHA256",
        ),
        (
            "openssl-legacy.p12",
            HashAlg::Sha1,
            "pbeWithSHA1And40BitRC2-CBC, Iteration 2048",
            "pbeWithSHA1And3-KeyTripleDES-CBC, Iteration 2048",
        ),
    ] {
        let p12 = parse(&data(file), PASSWORD).unwrap();
        let m = p12.mac.unwrap();
        assert_eq!(
            (m.digest, m.iterations, m.mac_len, m.salt_len),
            (mac, 2048, mac.output_len(), 8)
        );
        assert_eq!(p12.safes[0].encryption.as_deref(), Some(safe), "{file}");
        assert_eq!(p12.safes[1].encryption, None);
        assert_eq!(kinds(&p12), ["cert", "cert", "shrouded key"], "{file}");
        match &p12.key_bag().unwrap().content {
            BagContent::Key { shrouded, .. } => assert_eq!(shrouded.as_deref(), Some(key_scheme)),
            _ => unreachable!(),
        }
        assert_eq!(p12.rsa_private_key().unwrap(), Some(key("signer.key")));
        assert_eq!(p12.end_entity(), Some(&signer));
        assert_eq!(p12.certificates().collect::<Vec<_>>(), [&signer, &inter]);
        let leaf = p12.bags().next().unwrap();
        assert_eq!(leaf.friendly_name(), Some("signer"));
        assert_eq!(leaf.local_key_id(), p12.key_bag().unwrap().local_key_id());
        assert_eq!(leaf.local_key_id().map(<[u8]>::len), Some(20));
    }
    let aes = parse(&data("openssl-aes.p12"), PASSWORD).unwrap();
    assert_eq!(aes.bags().nth(1).unwrap().friendly_name(), Some("intermediate"));
}

#[test]
fn reads_plain_files_and_the_empty_password() {
    let plain = parse(&data("openssl-plain.p12"), b"ignored: no MAC, no encryption").unwrap();
    assert!(plain.mac.is_none());
    assert_eq!(kinds(&plain), ["cert", "key"]);
    assert_eq!(plain.rsa_private_key().unwrap(), Some(key("signer.key")));

    let empty = parse(&data("openssl-empty-password.p12"), b"").unwrap();
    assert_eq!(empty.rsa_private_key().unwrap(), Some(key("signer.key")));
    assert_eq!(empty.bags().next().unwrap().friendly_name(), Some("Grüße"));
}

#[test]
fn a_wrong_password_fails_the_mac() {
    for file in ["openssl-aes.p12", "openssl-legacy.p12", "openssl-empty-password.p12"] {
        let err = parse(&data(file), b"Cryptocard").unwrap_err();
        assert!(matches!(err, Error::Verify(_)), "{file}: {err}");
    }
}

/// Ours, under each scheme pair, read back by our parser (OpenSSL's reading of them is
/// the CLI's test).
#[test]
fn writes_what_it_reads() {
    let k = key("signer.key");
    let (signer, inter, root) = (cert("signer"), cert("inter"), cert("root"));
    let schemes = [
        (Some("aes-256-cbc"), Some("aes-256-cbc"), Some(HashAlg::Sha256)),
        (Some("PBE-SHA1-3DES"), Some("PBE-SHA1-RC2-40"), Some(HashAlg::Sha1)),
        (Some("PBE-SHA1-2DES"), Some("PBE-SHA1-RC2-128"), Some(HashAlg::Sha512)),
        (Some("aes-128-cbc"), None, None),
        (None, None, Some(HashAlg::Sha384)),
    ];
    for (key_scheme, cert_scheme, mac) in schemes {
        let scheme = |s: Option<&str>| s.map(|n| PbeScheme::from_name(n).unwrap());
        let der = Pkcs12Builder::new()
            .key(&k)
            .cert(&signer)
            .ca_certs([&inter, &root])
            .name("the signer")
            .ca_names(vec!["inter".into()])
            .key_scheme(scheme(key_scheme))
            .cert_scheme(scheme(cert_scheme))
            .mac(mac.map(|h| (h, 1000)))
            .build(b"pw", &mut OsRng)
            .unwrap();
        let p12 = parse(&der, b"pw").unwrap();
        assert_eq!(p12.mac.map(|m| m.digest), mac);
        assert_eq!(p12.rsa_private_key().unwrap().as_ref(), Some(&k));
        assert_eq!(p12.certificates().collect::<Vec<_>>(), [&signer, &inter, &root]);
        assert_eq!(p12.end_entity(), Some(&signer));
        let names: Vec<_> = p12.bags().map(|b| b.friendly_name()).collect();
        assert_eq!(names, [Some("the signer"), Some("inter"), None, Some("the signer")]);
        assert_eq!(p12.safes[0].encryption.is_some(), cert_scheme.is_some());
        if mac.is_some() {
            assert!(matches!(parse(&der, b"pW"), Err(Error::Verify(_))));
        }
    }
    let legacy =
        Pkcs12Builder::new().legacy().key(&k).cert(&signer).build(b"", &mut OsRng).unwrap();
    let p12 = parse(&legacy, b"").unwrap();
    assert_eq!(p12.mac.unwrap().digest, HashAlg::Sha1);
    assert_eq!(p12.rsa_private_key().unwrap().as_ref(), Some(&k));
}

#[test]
fn refuses_a_certificate_that_is_not_the_keys() {
    let err = Pkcs12Builder::new()
        .key(&key("signer.key"))
        .cert(&cert("recipient"))
        .build(b"pw", &mut OsRng)
        .unwrap_err();
    assert!(matches!(err, Error::NoMatch(_)), "{err}");
    assert!(Pkcs12Builder::new().build(b"pw", &mut OsRng).is_err());
}

/// Each derivation's count and their sum are checked before any runs: a MAC at a
/// count above the limit costs nothing, and three derivations at the limit are
/// refused under a total of two.
#[test]
fn iteration_limits_come_before_the_work() {
    let k = key("signer.key");
    let signer = cert("signer");
    let at = |n| {
        let s = PbeScheme::DEFAULT.with_iterations(n).unwrap();
        Pkcs12Builder::new()
            .key(&k)
            .cert(&signer)
            .key_scheme(Some(s))
            .cert_scheme(Some(s))
            .mac(Some((HashAlg::Sha256, n)))
            .build(b"pw", &mut OsRng)
            .unwrap()
    };
    let der = at(3000);
    let opts = |max_iterations, max_total_iterations| ParseOptions {
        max_iterations,
        max_total_iterations,
        ..ParseOptions::default()
    };
    assert!(parse_with(&der, b"pw", &opts(3000, 9000)).is_ok());
    for limits in [opts(2999, 9000), opts(3000, 8999)] {
        let err = parse_with(&der, b"pw", &limits).unwrap_err();
        assert!(matches!(err, Error::Crypto(e) if e == TOO_MANY_ITERATIONS), "{limits:?}: {err}");
    }
}

#[test]
fn malformed_files_are_errors_not_panics() {
    let good = data("openssl-aes.p12");
    for len in [0, 1, 10, good.len() / 2, good.len() - 1] {
        assert!(parse(&good[..len], PASSWORD).is_err(), "{len}");
    }
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x40;
    assert!(parse(&flipped, PASSWORD).is_err());
    assert!(parse(&data("signer.pem"), PASSWORD).is_err());
}
