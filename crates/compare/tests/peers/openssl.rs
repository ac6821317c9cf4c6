//! OpenSSL peers: vendored 4.0.3 always, the system's 3.x where installed.

use super::vectors::{self, SHA_ABC, bn_cases, trim};
use super::{openssls, unhex};
use compare::openssl::{Openssl, RsaOp, RsaPadding};
use compare::{Origin, PeerError};

#[test]
fn versions_and_origins() {
    let v = Openssl::vendored().unwrap();
    let built = env!("COMPARE_OPENSSL_SRC").split_once('+').unwrap().1;
    assert_eq!(v.info().version, built, "vendored library reports the openssl-src release");
    assert_eq!(v.info().origin, Origin::Vendored);
    assert_eq!(v.info().to_string(), format!("OpenSSL {built} (vendored)"));
    assert!(v.has_legacy(), "legacy provider is built into the vendored libcrypto");
    if let Some(s) = Openssl::system().unwrap() {
        assert_eq!(s.info().origin, Origin::System);
        assert!(
            s.info().version.starts_with("3."),
            "system libcrypto.so.3 is OpenSSL 3.x: {}",
            s.info()
        );
        assert_ne!(s.info().version, v.info().version, "two distinct libraries are loaded");
    }
}

#[test]
fn digests_known_answers() {
    for lib in openssls() {
        for (alg, msg, want) in vectors::rfc_digests() {
            match lib.digest(&alg) {
                Ok(mut d) => {
                    assert_eq!(hex::encode(d.digest(&msg).unwrap()), want, "{} {alg}", lib.info())
                }
                Err(PeerError::Unavailable(why)) if lib.info().origin == Origin::System => {
                    println!("skipping {alg} on {}: {why}", lib.info());
                }
                Err(e) => panic!("{} {alg}: {e}", lib.info()),
            }
        }
        for (alg, want) in SHA_ABC {
            let mut d = lib.digest(alg).unwrap();
            assert_eq!(hex::encode(d.digest(b"abc").unwrap()), *want, "{} {alg}", lib.info());
            assert_eq!(d.size() * 2, want.len());
        }
    }
}

#[test]
fn digest_streaming_matches_one_shot() {
    let msg: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
    for lib in openssls() {
        for alg in ["md5", "sha1", "sha256", "sha512"] {
            let mut d = lib.digest(alg).unwrap();
            let whole = d.digest(&msg).unwrap();
            for chunk in [1, 7, 64, 999] {
                let mut out = vec![0; d.size()];
                let n = d.digest_chunks_into(&msg, chunk, &mut out).unwrap();
                assert_eq!(&out[..n], &whole[..], "{} {alg} in {chunk}-byte pieces", lib.info());
            }
        }
        // A known answer through the streaming path as well.
        let mut d = lib.digest("sha256").unwrap();
        let mut out = [0u8; 32];
        d.digest_chunks_into(b"abc", 1, &mut out).unwrap();
        assert_eq!(hex::encode(out), SHA_ABC[2].1);
    }
}

#[test]
fn hmac_known_answers() {
    // RFC 4231 test cases 1 and 2 (HMAC-SHA-256), RFC 2104's first example (HMAC-MD5).
    let cases: [(&str, Vec<u8>, &[u8], &str); 3] = [
        (
            "sha256",
            vec![0x0b; 20],
            b"Hi There",
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
        ),
        (
            "sha256",
            b"Jefe".to_vec(),
            b"what do ya want for nothing?",
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
        ),
        ("md5", vec![0x0b; 16], b"Hi There", "9294727a3638bb1c13f48ef8158bfc9d"),
    ];
    for lib in openssls() {
        for (md, key, data, want) in &cases {
            let mut h = lib.hmac(md, key).unwrap();
            // Twice: the second tag comes from the re-initialised keyed state.
            assert_eq!(hex::encode(h.mac(data).unwrap()), *want, "{} HMAC-{md}", lib.info());
            assert_eq!(hex::encode(h.mac(data).unwrap()), *want, "{} HMAC-{md} again", lib.info());
        }
    }
}

/// CMAC (NIST SP 800-38B's examples: AES-128 over one block, three-key triple-DES over
/// one block), twice each from the keyed state.
#[test]
fn cmac_known_answers() {
    let msg = hex::decode("6bc1bee22e409f96e93d7e117393172a").unwrap();
    let cases = [
        (
            "AES-128-CBC",
            "2b7e151628aed2a6abf7158809cf4f3c",
            16,
            &msg[..],
            "070a16b46b4d4144f79bdd9dd04a287c",
        ),
        (
            "DES-EDE3-CBC",
            "8aa83bf8cbda10620bc1bf19fbb6cd58bc313d4a371ca8b5",
            8,
            &msg[..8],
            "8e8f293136283797",
        ),
    ];
    for lib in openssls() {
        for (cipher, key, size, data, want) in cases {
            let mut m = lib.cmac(cipher, &hex::decode(key).unwrap(), size).unwrap();
            assert_eq!(hex::encode(m.mac(data).unwrap()), want, "{} CMAC {cipher}", lib.info());
            assert_eq!(
                hex::encode(m.mac(data).unwrap()),
                want,
                "{} CMAC {cipher} again",
                lib.info()
            );
        }
        assert!(lib.cmac("NO-SUCH-CIPHER", &[0; 16], 16).is_err());
    }
}

#[test]
fn des_known_answers_and_round_trips() {
    for lib in openssls() {
        if !lib.has_legacy() {
            println!("skipping single DES on {}: no legacy provider", lib.info());
            continue;
        }
        for case in vectors::des_cases() {
            let (key, iv, pt, ct) =
                (unhex(&case.key), unhex(&case.iv), unhex(&case.pt), unhex(&case.ct));
            let mut enc = lib.cipher(&case.alg, &key, &iv, true).unwrap();
            assert_eq!(enc.apply(&pt).unwrap(), ct, "{} {}", lib.info(), case.alg);
            enc.finish().unwrap();
            let mut dec = lib.cipher(&case.alg, &key, &iv, false).unwrap();
            assert_eq!(dec.apply(&ct).unwrap(), pt, "{} {} decrypt", lib.info(), case.alg);
            // Triple DES with three equal keys is single DES (EDE with K1 = K2 = K3).
            let ede3 = vectors::ede3_name(&case.alg);
            let mut enc3 = lib.cipher(&ede3, &key.repeat(3), &iv, true).unwrap();
            assert_eq!(enc3.apply(&pt).unwrap(), ct, "{} {ede3}", lib.info());
        }
    }
}

#[test]
fn cipher_rejects_bad_inputs() {
    let lib = Openssl::vendored().unwrap();
    assert!(matches!(
        lib.cipher("des-ede3-cbc", &[0; 8], &[0; 8], true),
        Err(PeerError::InvalidInput(_))
    ));
    assert!(matches!(lib.cipher("des-cbc", &[0; 8], &[], true), Err(PeerError::InvalidInput(_))));
    assert!(matches!(
        lib.cipher("no-such-cipher", &[0; 8], &[], true),
        Err(PeerError::Unavailable(_))
    ));
    let mut c = lib.cipher("des-ecb", &unhex("0123456789abcdef"), &[], true).unwrap();
    assert!(matches!(c.update(&[0; 5], &mut [0; 16]), Err(PeerError::InvalidInput(_))));
    assert!(matches!(c.update(&[0; 16], &mut [0; 8]), Err(PeerError::InvalidInput(_))));
    assert!(matches!(lib.digest("no-such-digest"), Err(PeerError::Unavailable(_))));
}

#[test]
fn modexp_and_mul_match_boringssl_vectors() {
    let exp_cases = bn_cases(include_str!("../data/mod_exp_tests.txt"), "ModExp");
    let mul_cases = bn_cases(include_str!("../data/product_tests.txt"), "Product");
    for lib in openssls() {
        let mut checked = 0;
        for c in &exp_cases {
            let m = trim(&c["M"]);
            if m.last().is_none_or(|b| b & 1 == 0) || m == [1] {
                continue;
            }
            let mut op = lib.modexp(&c["A"], &c["E"], m).unwrap();
            op.run_consttime().unwrap();
            assert_eq!(trim(&op.result().unwrap()), trim(&c["ModExp"]), "{} consttime", lib.info());
            op.run_vartime().unwrap();
            assert_eq!(trim(&op.result().unwrap()), trim(&c["ModExp"]), "{} vartime", lib.info());
            checked += 1;
        }
        assert!(checked > 50, "most ModExp cases have an odd modulus ({checked})");
        for c in &mul_cases {
            let mut op = lib.bn_mul(&c["A"], &c["B"]).unwrap();
            op.run().unwrap();
            assert_eq!(op.result().unwrap(), trim(&c["Product"]), "{} BN_mul", lib.info());
        }
        // 3^5 mod 7 = 243 mod 7 = 5.
        let mut small = lib.modexp(&[3], &[5], &[7]).unwrap();
        small.run_consttime().unwrap();
        assert_eq!(small.result().unwrap(), [5]);
        assert!(matches!(lib.modexp(&[3], &[5], &[8]), Err(PeerError::InvalidInput(_))));
        assert!(matches!(lib.modexp(&[3], &[5], &[]), Err(PeerError::InvalidInput(_))));
    }
}

/// SHA-256 of "abc", the digest the RSA tests sign.
fn digest_abc() -> Vec<u8> {
    unhex(SHA_ABC[2].1)
}

#[test]
fn rsa_sign_verify_encrypt_decrypt() {
    let tbs = digest_abc();
    for lib in openssls() {
        let key = lib.rsa_generate(2048).unwrap();
        assert_eq!((key.bits(), key.size()), (2048, 256));
        let public = lib.rsa_public_key_der(&key.to_spki_der().unwrap()).unwrap();
        for private in [
            lib.rsa_private_key_der(&key.to_pkcs8_der().unwrap()).unwrap(),
            lib.rsa_private_key_der(&key.to_pkcs1_der().unwrap()).unwrap(),
        ] {
            for padding in [
                RsaPadding::Pkcs1 { digest: Some("sha256") },
                RsaPadding::Pss { digest: "sha256", salt_len: -1 },
            ] {
                let sig = private.prepare(RsaOp::Sign, padding).unwrap().run(&tbs).unwrap();
                assert_eq!(sig.len(), 256);
                let mut verifier = public.prepare(RsaOp::Verify, padding).unwrap();
                assert!(verifier.verify(&tbs, &sig).unwrap(), "{} {padding:?}", lib.info());
                let mut bad = sig.clone();
                bad[17] ^= 1;
                assert!(
                    !verifier.verify(&tbs, &bad).unwrap(),
                    "{} {padding:?} tampered",
                    lib.info()
                );
                // Short by its last byte, not its first: OpenSSL (3.0 and 4.0) reads a PSS
                // signature shorter than the modulus as a number, so with a leading zero
                // byte (1 in 256 signatures) `sig[1..]` is the same signature and passes.
                assert!(
                    !verifier.verify(&tbs, &sig[..sig.len() - 1]).unwrap(),
                    "{} {padding:?} short",
                    lib.info()
                );
            }
            for padding in
                [RsaPadding::Pkcs1 { digest: None }, RsaPadding::Oaep { digest: "sha256" }]
            {
                let ct = public
                    .prepare(RsaOp::Encrypt, padding)
                    .unwrap()
                    .run(b"attack at dawn")
                    .unwrap();
                let pt = private.prepare(RsaOp::Decrypt, padding).unwrap().run(&ct).unwrap();
                assert_eq!(pt, b"attack at dawn", "{} {padding:?}", lib.info());
            }
            // Raw RSA: m^e^d = m for m below the modulus.
            let mut m = vec![0u8; 256];
            m[1..].copy_from_slice(&[0x5a; 255]);
            let c = public.prepare(RsaOp::Encrypt, RsaPadding::None).unwrap().run(&m).unwrap();
            assert_ne!(c, m);
            assert_eq!(
                private.prepare(RsaOp::Decrypt, RsaPadding::None).unwrap().run(&c).unwrap(),
                m
            );
        }
        assert!(matches!(
            key.prepare(RsaOp::Sign, RsaPadding::Oaep { digest: "sha256" }),
            Err(PeerError::InvalidInput(_))
        ));
        assert!(matches!(lib.rsa_private_key_der(b"not a key"), Err(PeerError::Failed { .. })));
    }
}

#[test]
fn rsa_keys_and_signatures_agree_across_openssl_versions() {
    let libs = openssls();
    if libs.len() < 2 {
        println!("skipping the cross-version RSA check: no system OpenSSL");
        return;
    }
    let tbs = digest_abc();
    let pkcs1 = RsaPadding::Pkcs1 { digest: Some("sha256") };
    for (signer, other) in [(libs[0], libs[1]), (libs[1], libs[0])] {
        let key = signer.rsa_generate(2048).unwrap();
        let theirs = other.rsa_private_key_der(&key.to_pkcs8_der().unwrap()).unwrap();
        let sig = key.prepare(RsaOp::Sign, pkcs1).unwrap().run(&tbs).unwrap();
        // PKCS#1 v1.5 signatures are deterministic: both libraries must produce the same.
        assert_eq!(theirs.prepare(RsaOp::Sign, pkcs1).unwrap().run(&tbs).unwrap(), sig);
        let public = other.rsa_public_key_der(&key.to_spki_der().unwrap()).unwrap();
        assert!(public.prepare(RsaOp::Verify, pkcs1).unwrap().verify(&tbs, &sig).unwrap());
        let oaep = RsaPadding::Oaep { digest: "sha256" };
        let ct = public.prepare(RsaOp::Encrypt, oaep).unwrap().run(b"hello").unwrap();
        assert_eq!(key.prepare(RsaOp::Decrypt, oaep).unwrap().run(&ct).unwrap(), b"hello");
    }
}
