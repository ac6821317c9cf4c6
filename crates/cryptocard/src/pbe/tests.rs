use super::*;
use crate::rng::OsRng;

const ALL: &[&str] = &[
    "aes-256-cbc",
    "aes-192-cbc",
    "aes128",
    "des3",
    "des-cbc",
    "PBE-SHA1-3DES",
    "PBE-SHA1-2DES",
    "PBE-SHA1-RC2-128",
    "PBE-SHA1-RC2-40",
    "PBE-MD2-DES",
    "PBE-MD5-DES",
    "PBE-SHA1-DES",
    "PBE-MD2-RC2-64",
    "PBE-MD5-RC2-64",
    "PBE-SHA1-RC2-64",
];

#[test]
fn every_scheme_round_trips_and_refuses_the_wrong_password() {
    let mut rng = OsRng;
    for name in ALL {
        let scheme = PbeScheme::from_name(name).unwrap().with_iterations(3).unwrap();
        for len in [0, 1, 8, 16, 33] {
            let plain: Vec<u8> = (0..len as u8).collect();
            let (alg, ct) = encrypt(&scheme, Some(b"pw"), &plain, &mut rng).unwrap();
            let back = decrypt(&alg, Some(b"pw"), &ct, 3).unwrap();
            assert_eq!(&back[..], &plain[..], "{name}, {len} bytes");
            // A wrong password almost always breaks the padding; rarely it decrypts to
            // something else, which the caller's parse then refuses.
            match decrypt(&alg, Some(b"pW"), &ct, 3) {
                Err(e) => assert_eq!(e, WRONG_PASSWORD, "{name}"),
                Ok(other) => assert_ne!(&other[..], &plain[..], "{name}"),
            }
        }
    }
}

#[test]
fn openssl_describes_each_scheme_so() {
    let mut rng = OsRng;
    for (name, want) in [
        ("aes-256-cbc", "PBES2, PBKDF2, AES-256-CBC, Iteration 2048, PRF hmacWithSHA256"),
        ("des3", "PBES2, PBKDF2, DES-EDE3-CBC, Iteration 2048, PRF hmacWithSHA256"),
        ("PBE-SHA1-3DES", "pbeWithSHA1And3-KeyTripleDES-CBC, Iteration 2048"),
        ("pbeWithSHA1And40BitRC2-CBC", "pbeWithSHA1And40BitRC2-CBC, Iteration 2048"),
        ("PBE-MD5-DES", "pbeWithMD5AndDES-CBC, Iteration 2048"),
    ] {
        let (alg, _) = encrypt(&PbeScheme::from_name(name).unwrap(), None, b"x", &mut rng).unwrap();
        assert_eq!(describe(&alg).unwrap(), want);
    }
    let sha1 = PbeScheme::DEFAULT.with_prf(HashAlg::Sha1).unwrap();
    let (alg, _) = encrypt(&sha1, None, b"x", &mut rng).unwrap();
    assert!(describe(&alg).unwrap().ends_with("PRF hmacWithSHA1"));
    assert!(PbeScheme::from_name("PBE-SHA1-3DES").unwrap().with_prf(HashAlg::Sha256).is_err());
    assert!(PbeScheme::DEFAULT.with_prf(HashAlg::Md5).is_err());
    assert_eq!(PbeScheme::from_name("PBE-SHA1-RC4-128"), None);
    assert_eq!(PbeScheme::from_name("aes-256-ctr"), None);
}

/// The checks that need no password come first: a count above the ceiling, or a
/// ciphertext of the wrong length, costs no derivation (so a count of 2^32 - 1 returns
/// at once).
#[test]
fn cheap_refusals_come_before_the_derivation() {
    let mut rng = OsRng;
    for name in ["aes-256-cbc", "PBE-SHA1-3DES", "PBE-MD5-DES"] {
        let huge = PbeScheme::from_name(name).unwrap().with_iterations(u32::MAX).unwrap();
        let small = PbeScheme::from_name(name).unwrap().with_iterations(1).unwrap();
        let (alg, _) = encrypt(&small, Some(b"pw"), b"data", &mut rng).unwrap();
        let (_, ct) = encrypt(&small, Some(b"pw"), b"data", &mut rng).unwrap();
        let huge_alg =
            Scheme { iterations: u32::MAX, ..Scheme::from_der(&alg).unwrap() }.to_der().unwrap();
        assert_eq!(huge.iterations(), u32::MAX);
        let started = std::time::Instant::now();
        assert_eq!(
            decrypt(&huge_alg, Some(b"pw"), &ct, DEFAULT_MAX_ITERATIONS),
            Err(TOO_MANY_ITERATIONS)
        );
        assert!(decrypt(&alg, Some(b"pw"), &ct[..ct.len() - 1], 1).is_err());
        assert!(decrypt(&alg, Some(b"pw"), &[], 1).is_err());
        assert!(started.elapsed().as_secs() < 5);
        let zero = Scheme { iterations: 0, ..Scheme::from_der(&alg).unwrap() }.to_der().unwrap();
        assert!(matches!(decrypt(&zero, Some(b"pw"), &ct, 1), Err(Error::InvalidEncoding(_))));
    }
}

/// PKCS#12's absent password (no BMP terminator) and empty one differ; PBES2's do not.
#[test]
fn absent_and_empty_passwords() {
    let mut rng = OsRng;
    let p12 = PbeScheme::from_name("PBE-SHA1-3DES").unwrap();
    let (alg, ct) = encrypt(&p12, None, b"secret data", &mut rng).unwrap();
    assert_eq!(&decrypt(&alg, None, &ct, 2048).unwrap()[..], b"secret data");
    assert!(decrypt(&alg, Some(b""), &ct, 2048).map_or(true, |p| &p[..] != b"secret data"));
    let (alg, ct) = encrypt(&PbeScheme::DEFAULT, None, b"secret data", &mut rng).unwrap();
    assert_eq!(&decrypt(&alg, Some(b""), &ct, 2048).unwrap()[..], b"secret data");
}

#[test]
fn malformed_and_unknown_identifiers_are_errors() {
    assert!(decrypt(&[0x30, 0x03, 0x06, 0x01, 0x00], None, &[0; 16], 10).is_err());
    assert!(decrypt(b"", None, &[0; 16], 10).is_err());
    assert!(describe(&[0x30, 0x80]).is_err());
    // pbeWithSHAAnd128BitRC4 (RFC 7292 appendix C) is named but not supported.
    let rc4 = [
        0x30, 0x1c, 0x06, 0x0a, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c, 0x01, 0x01, 0x30,
        0x0e, 0x04, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x02, 0x08, 0x00,
    ];
    assert!(matches!(decrypt(&rc4, None, &[0; 16], 4096), Err(Error::Unsupported(_))));
}
