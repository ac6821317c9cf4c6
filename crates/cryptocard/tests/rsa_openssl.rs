//! Differential tests against OpenSSL's libcrypto (the `openssl` crate, system OpenSSL 3)
//! in both directions, on keys of 1024 to 4096 bits made by both sides (generated once per
//! test binary): signatures (PKCS#1 v1.5, PSS with digest-length and maximum salts),
//! encryption (OAEP with several hash/MGF1/label combinations, PKCS#1 v1.5), and every
//! key format read by the other side, multi-prime keys included (OpenSSL's made by
//! `openssl genpkey -pkeyopt rsa_keygen_primes:3`, ours checked by `RSA_check_key`).

use cryptocard::bignum::Nat;
use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{
    KeyGenOptions, Oaep, Pss, RsaKey, RsaPrivateKey, RsaPublicKey, SaltLength, key_from_der,
};
use openssl::encrypt::{Decrypter, Encrypter};
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private};
use openssl::rsa::{Padding, Rsa};
use openssl::sign::{RsaPssSaltlen, Signer, Verifier};
use openssl::symm::Cipher;
use proptest::prelude::*;
use std::process::Command;
use std::sync::OnceLock;

/// One key on both sides.
struct Pair {
    ours: RsaPrivateKey,
    theirs: PKey<Private>,
}

fn pair_from_openssl(rsa: Rsa<Private>) -> Pair {
    let ours = RsaPrivateKey::from_pkcs1_der(&rsa.private_key_to_der().unwrap()).unwrap();
    Pair { ours, theirs: PKey::from_rsa(rsa).unwrap() }
}

fn pair_from_ours(ours: RsaPrivateKey) -> Pair {
    let rsa = Rsa::private_key_from_der(&ours.to_pkcs1_der().unwrap()).unwrap();
    assert!(rsa.check_key().unwrap(), "OpenSSL's RSA_check_key rejects our key");
    Pair { ours, theirs: PKey::from_rsa(rsa).unwrap() }
}

/// An OpenSSL three-prime key, by the command line (the crate has no multi-prime
/// generation).
fn openssl_multi_prime(bits: usize, primes: usize) -> Pair {
    let out = Command::new("openssl")
        .args(["genpkey", "-algorithm", "RSA", "-pkeyopt"])
        .arg(format!("rsa_keygen_bits:{bits}"))
        .arg("-pkeyopt")
        .arg(format!("rsa_keygen_primes:{primes}"))
        .output()
        .expect("openssl genpkey");
    assert!(out.status.success());
    let pem = String::from_utf8(out.stdout).unwrap();
    let ours = RsaPrivateKey::from_pem(&pem, None).unwrap();
    assert_eq!(ours.primes().len(), primes);
    let theirs = PKey::private_key_from_pem(pem.as_bytes()).unwrap();
    Pair { ours, theirs }
}

/// The keys every test uses: OpenSSL's at 1024, 2048 and 4096 bits and three-prime 2048,
/// ours at 1024, 2048, 3072 and three-prime 2048.
fn keys() -> &'static [Pair] {
    static KEYS: OnceLock<Vec<Pair>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut v: Vec<Pair> = [1024, 2048, 4096]
            .iter()
            .map(|&b| pair_from_openssl(Rsa::generate(b).unwrap()))
            .collect();
        v.push(openssl_multi_prime(2048, 3));
        let small = KeyGenOptions { allow_small: true, ..KeyGenOptions::new(1024) };
        v.push(pair_from_ours(RsaPrivateKey::generate_with(&small, &mut OsRng).unwrap()));
        for bits in [2048, 3072] {
            v.push(pair_from_ours(RsaPrivateKey::generate(bits, &mut OsRng).unwrap()));
        }
        let three = KeyGenOptions { primes: 3, ..KeyGenOptions::new(2048) };
        v.push(pair_from_ours(RsaPrivateKey::generate_with(&three, &mut OsRng).unwrap()));
        v
    })
}

fn md(h: HashAlg) -> MessageDigest {
    match h {
        HashAlg::Sha1 => MessageDigest::sha1(),
        HashAlg::Sha224 => MessageDigest::sha224(),
        HashAlg::Sha256 => MessageDigest::sha256(),
        HashAlg::Sha384 => MessageDigest::sha384(),
        HashAlg::Sha512 => MessageDigest::sha512(),
        HashAlg::Sha3_256 => MessageDigest::sha3_256(),
        other => panic!("no OpenSSL digest mapped for {other}"),
    }
}

const HASHES: [HashAlg; 6] = [
    HashAlg::Sha1,
    HashAlg::Sha224,
    HashAlg::Sha256,
    HashAlg::Sha384,
    HashAlg::Sha512,
    HashAlg::Sha3_256,
];

/// OpenSSL's PSS salt setting and ours for the same choice (`true`: maximum).
fn salts(max: bool) -> (RsaPssSaltlen, SaltLength) {
    if max {
        (RsaPssSaltlen::MAXIMUM_LENGTH, SaltLength::Maximum)
    } else {
        (RsaPssSaltlen::DIGEST_LENGTH, SaltLength::DigestLength)
    }
}

fn openssl_sign(pair: &Pair, h: HashAlg, pss: Option<bool>, msg: &[u8]) -> Vec<u8> {
    let mut s = Signer::new(md(h), &pair.theirs).unwrap();
    if let Some(max) = pss {
        s.set_rsa_padding(Padding::PKCS1_PSS).unwrap();
        s.set_rsa_pss_saltlen(salts(max).0).unwrap();
    }
    s.sign_oneshot_to_vec(msg).unwrap()
}

fn openssl_verify(pair: &Pair, h: HashAlg, pss: Option<bool>, msg: &[u8], sig: &[u8]) -> bool {
    let mut v = Verifier::new(md(h), &pair.theirs).unwrap();
    if let Some(max) = pss {
        v.set_rsa_padding(Padding::PKCS1_PSS).unwrap();
        v.set_rsa_pss_saltlen(salts(max).0).unwrap();
    }
    v.verify_oneshot(sig, msg).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn signatures_both_ways(
        key in 0usize..8,
        hash in 0usize..HASHES.len(),
        scheme in 0usize..3,
        msg in proptest::collection::vec(any::<u8>(), 0..200),
    ) {
        let pair = &keys()[key];
        let h = HASHES[hash];
        let public = pair.ours.public_key();
        // scheme 0: PKCS#1 v1.5; 1: PSS, digest-length salt; 2: PSS, maximum salt.
        let pss = (scheme > 0).then_some(scheme == 2);
        let em_len = (pair.ours.bits() - 1).div_ceil(8);
        if pss == Some(false) && em_len < 2 * h.output_len() + 2 {
            // A digest-length salt does not fit (RFC 8017 9.1.1 step 3).
            let p = Pss::new(h);
            prop_assert_eq!(pair.ours.sign_pss(&p, &msg, &mut OsRng), Err(cryptocard::Error::MessageTooLong));
            return Ok(());
        }
        let ours = match pss {
            None => pair.ours.sign_pkcs1v15(h, &msg, &mut OsRng).unwrap(),
            Some(max) => pair.ours.sign_pss(&Pss::new(h).with_salt(salts(max).1), &msg, &mut OsRng).unwrap(),
        };
        prop_assert!(openssl_verify(pair, h, pss, &msg, &ours));
        let theirs = openssl_sign(pair, h, pss, &msg);
        match pss {
            None => {
                // PKCS#1 v1.5 is deterministic: both sides sign identically.
                prop_assert_eq!(&theirs, &ours);
                prop_assert!(public.verify_pkcs1v15(h, &msg, &theirs).is_ok());
            }
            Some(max) => {
                let p = Pss::new(h).with_salt(salts(max).1);
                prop_assert!(public.verify_pss(&p, &msg, &theirs).is_ok());
                prop_assert!(public.verify_pss(&p.with_salt(SaltLength::Auto), &msg, &theirs).is_ok());
            }
        }
    }

    #[test]
    fn encryption_both_ways(
        key in 0usize..8,
        params in 0usize..5,
        label in proptest::collection::vec(any::<u8>(), 0..20),
        len in 0usize..40,
    ) {
        let pair = &keys()[key];
        let msg: Vec<u8> = (0..len as u8).collect();
        // 0: PKCS#1 v1.5; 1..: OAEP (hash, MGF1 hash, with the label or not).
        let oaep = match params {
            0 => None,
            1 => Some(Oaep::new(HashAlg::Sha1)),
            2 => Some(Oaep::new(HashAlg::Sha256).with_label(&label)),
            3 => Some(Oaep::new(HashAlg::Sha256).with_mgf1(HashAlg::Sha1).with_label(&label)),
            _ => Some(Oaep::new(HashAlg::Sha512).with_mgf1(HashAlg::Sha256)),
        };
        if oaep.as_ref().is_some_and(|o| pair.ours.size() < 2 * o.hash.output_len() + 2 + len) {
            return Ok(());
        }
        let setup_enc = |e: &mut Encrypter<'_>| match &oaep {
            None => e.set_rsa_padding(Padding::PKCS1).unwrap(),
            Some(o) => {
                e.set_rsa_padding(Padding::PKCS1_OAEP).unwrap();
                e.set_rsa_oaep_md(md(o.hash)).unwrap();
                e.set_rsa_mgf1_md(md(o.mgf1)).unwrap();
                if !o.label.is_empty() {
                    e.set_rsa_oaep_label(&o.label).unwrap();
                }
            }
        };
        let setup_dec = |d: &mut Decrypter<'_>| match &oaep {
            None => d.set_rsa_padding(Padding::PKCS1).unwrap(),
            Some(o) => {
                d.set_rsa_padding(Padding::PKCS1_OAEP).unwrap();
                d.set_rsa_oaep_md(md(o.hash)).unwrap();
                d.set_rsa_mgf1_md(md(o.mgf1)).unwrap();
                if !o.label.is_empty() {
                    d.set_rsa_oaep_label(&o.label).unwrap();
                }
            }
        };
        // Theirs encrypts, ours decrypts.
        let mut enc = Encrypter::new(&pair.theirs).unwrap();
        setup_enc(&mut enc);
        let mut ct = vec![0u8; enc.encrypt_len(&msg).unwrap()];
        let n = enc.encrypt(&msg, &mut ct).unwrap();
        ct.truncate(n);
        let back = match &oaep {
            None => pair.ours.decrypt_pkcs1v15(&ct, &mut OsRng).unwrap(),
            Some(o) => pair.ours.decrypt_oaep(o, &ct, &mut OsRng).unwrap(),
        };
        prop_assert_eq!(&back, &msg);
        // Ours encrypts, theirs decrypts.
        let public = pair.ours.public_key();
        let ct = match &oaep {
            None => public.encrypt_pkcs1v15(&msg, &mut OsRng).unwrap(),
            Some(o) => public.encrypt_oaep(o, &msg, &mut OsRng).unwrap(),
        };
        let mut dec = Decrypter::new(&pair.theirs).unwrap();
        setup_dec(&mut dec);
        let mut out = vec![0u8; dec.decrypt_len(&ct).unwrap()];
        let n = dec.decrypt(&ct, &mut out).unwrap();
        prop_assert_eq!(&out[..n], &msg[..]);
    }
}

/// Every component as OpenSSL sees it equals ours.
fn same_key(ours: &RsaPrivateKey, theirs: &Rsa<Private>) {
    let nat = |b: &openssl::bn::BigNumRef| Nat::from_be_bytes(&b.to_vec());
    assert_eq!(ours.public_key().n(), nat(theirs.n()));
    assert_eq!(ours.public_key().e(), &nat(theirs.e()));
    assert_eq!(ours.d(), &nat(theirs.d()));
    if ours.primes().len() == 2 {
        assert_eq!(ours.primes()[0], nat(theirs.p().unwrap()));
        assert_eq!(ours.primes()[1], nat(theirs.q().unwrap()));
        assert_eq!(ours.crt_exponents()[0], nat(theirs.dmp1().unwrap()));
        assert_eq!(ours.crt_exponents()[1], nat(theirs.dmq1().unwrap()));
        assert_eq!(ours.crt_coefficients()[0], nat(theirs.iqmp().unwrap()));
    }
}

/// Run the `openssl` command with `args`, `input` on stdin; its stdout.
fn openssl_cli(args: &[&str], input: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut child = Command::new("openssl")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "openssl {args:?}");
    out.stdout
}

/// Whether the `openssl` command loads the legacy provider (DES, RC2: PBES1 and the
/// RC2 schemes of PKCS#12 need it in OpenSSL 3).
fn openssl_has_legacy() -> bool {
    Command::new("openssl")
        .args(["list", "-cipher-algorithms", "-provider", "legacy"])
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("RC2"))
}

/// The older schemes of encrypted PKCS#8, both ways: OpenSSL 1.0's default
/// (`-v1 PBE-SHA1-3DES`, PKCS#12's scheme), PBES1 with DES and RC2, PBES2 with 3DES.
#[test]
fn encrypted_pkcs8_legacy_schemes_both_ways() {
    use cryptocard::pbe::PbeScheme;
    use cryptocard::rsa::{decrypt_pkcs8_der, encrypt_pkcs8_der};
    let pair = &keys()[0];
    let pem = pair.theirs.private_key_to_pem_pkcs8().unwrap();
    let legacy = openssl_has_legacy();
    for (flag, scheme, needs_legacy) in [
        ("-v1", "PBE-SHA1-3DES", false),
        ("-v1", "PBE-SHA1-2DES", false),
        ("-v2", "des3", false),
        ("-v1", "PBE-SHA1-RC2-40", true),
        ("-v1", "PBE-SHA1-RC2-128", true),
        ("-v1", "PBE-MD5-DES", true),
        ("-v1", "PBE-SHA1-RC2-64", true),
        ("-v2", "des-cbc", true),
    ] {
        if needs_legacy && !legacy {
            eprintln!("skipping {scheme}: openssl has no legacy provider");
            continue;
        }
        let providers: &[&str] =
            if needs_legacy { &["-provider", "legacy", "-provider", "default"] } else { &[] };
        let mut args = vec!["pkcs8", "-topk8", flag, scheme, "-passout", "pass:secret"];
        args.extend(["-outform", "DER"]);
        args.extend(providers);
        let theirs = openssl_cli(&args, &pem);
        let key = RsaPrivateKey::from_pkcs8_encrypted_der(&theirs, b"secret").unwrap();
        assert_eq!(key, pair.ours, "{scheme}");
        assert!(RsaPrivateKey::from_pkcs8_encrypted_der(&theirs, b"Secret").is_err(), "{scheme}");

        let plain = pair.ours.to_pkcs8_der().unwrap();
        let ours = PbeScheme::from_name(scheme).unwrap();
        let der = encrypt_pkcs8_der(&plain, Some(b"secret"), &ours, &mut OsRng).unwrap();
        assert_eq!(&decrypt_pkcs8_der(&der, Some(b"secret"), 2048).unwrap()[..], &plain[..]);
        let mut args = vec!["pkcs8", "-inform", "DER", "-passin", "pass:secret", "-outform", "DER"];
        args.extend(providers);
        // OpenSSL 3.0 writes what it decrypted as PKCS#1, later versions as PKCS#8.
        match key_from_der(&openssl_cli(&args, &der), None).unwrap() {
            RsaKey::Private(k) => assert_eq!(k, pair.ours, "OpenSSL reads our {scheme}"),
            RsaKey::Public(_) => panic!("OpenSSL wrote a public key"),
        }
    }
}

/// Legacy encrypted PEM (`Proc-Type: 4,ENCRYPTED`), both ways, under each cipher:
/// OpenSSL's `-traditional` keys read by us, ours by `openssl rsa` and by libcrypto.
#[test]
fn legacy_encrypted_pem_both_ways() {
    use cryptocard::cipher::Algorithm;
    let pair = &keys()[1];
    let pem = pair.theirs.private_key_to_pem_pkcs8().unwrap();
    let legacy = openssl_has_legacy();
    for (flag, cipher, dek, needs_legacy) in [
        ("-des3", Algorithm::DesEde3, "DES-EDE3-CBC", false),
        ("-aes128", Algorithm::Aes128, "AES-128-CBC", false),
        ("-aes256", Algorithm::Aes256, "AES-256-CBC", false),
        ("-des-ede-cbc", Algorithm::DesEde, "DES-EDE-CBC", false),
        ("-des", Algorithm::Des, "DES-CBC", true),
    ] {
        if needs_legacy && !legacy {
            eprintln!("skipping {flag}: openssl has no legacy provider");
            continue;
        }
        let providers: &[&str] =
            if needs_legacy { &["-provider", "legacy", "-provider", "default"] } else { &[] };
        let mut args = vec!["rsa", "-traditional", flag, "-passout", "pass:secret"];
        args.extend(providers);
        let theirs = String::from_utf8(openssl_cli(&args, &pem)).unwrap();
        assert!(theirs.contains(&format!("DEK-Info: {dek},")), "{flag}");
        assert_eq!(RsaPrivateKey::from_pem(&theirs, Some(b"secret")).unwrap(), pair.ours);

        let ours = pair.ours.to_pkcs1_encrypted_pem(b"secret", cipher, &mut OsRng).unwrap();
        let mut args = vec!["rsa", "-passin", "pass:secret", "-outform", "DER"];
        args.extend(providers);
        match key_from_der(&openssl_cli(&args, ours.as_bytes()), None).unwrap() {
            RsaKey::Private(k) => assert_eq!(k, pair.ours, "OpenSSL reads our {flag}"),
            RsaKey::Public(_) => panic!("OpenSSL wrote a public key"),
        }
        if !needs_legacy {
            let rsa = Rsa::private_key_from_pem_passphrase(ours.as_bytes(), b"secret").unwrap();
            same_key(&pair.ours, &rsa);
        }
    }
}

#[test]
fn formats_openssl_to_ours() {
    for pair in keys() {
        let rsa = pair.theirs.rsa().unwrap();
        let multi = pair.ours.primes().len() > 2;
        let from_pem =
            |pem: &[u8]| RsaPrivateKey::from_pem(std::str::from_utf8(pem).unwrap(), None).unwrap();
        let readers: Vec<RsaPrivateKey> = vec![
            RsaPrivateKey::from_pkcs1_der(&rsa.private_key_to_der().unwrap()).unwrap(),
            from_pem(&rsa.private_key_to_pem().unwrap()),
            RsaPrivateKey::from_pkcs8_der(&pair.theirs.private_key_to_pkcs8().unwrap()).unwrap(),
            from_pem(&pair.theirs.private_key_to_pem_pkcs8().unwrap()),
            RsaPrivateKey::from_pem(
                std::str::from_utf8(
                    &pair
                        .theirs
                        .private_key_to_pem_pkcs8_passphrase(Cipher::aes_256_cbc(), b"x")
                        .unwrap(),
                )
                .unwrap(),
                Some(b"x"),
            )
            .unwrap(),
        ];
        for k in &readers {
            assert_eq!(k, &pair.ours);
            if !multi {
                same_key(k, &rsa);
            }
        }
        let public = pair.ours.public_key();
        assert_eq!(
            &RsaPublicKey::from_public_key_der(&pair.theirs.public_key_to_der().unwrap()).unwrap(),
            public
        );
        assert_eq!(
            &RsaPublicKey::from_pem(
                std::str::from_utf8(&pair.theirs.public_key_to_pem().unwrap()).unwrap()
            )
            .unwrap(),
            public
        );
        assert_eq!(
            &RsaPublicKey::from_pkcs1_der(&rsa.public_key_to_der_pkcs1().unwrap()).unwrap(),
            public
        );
        assert_eq!(
            &RsaPublicKey::from_pem(
                std::str::from_utf8(&rsa.public_key_to_pem_pkcs1().unwrap()).unwrap()
            )
            .unwrap(),
            public
        );
        // And auto-detection of DER.
        assert_eq!(
            key_from_der(&rsa.public_key_to_der_pkcs1().unwrap(), None).unwrap(),
            RsaKey::Public(public.clone())
        );
    }
}

/// Encrypted PKCS#8 with the PBKDF2 PRFs and AES key sizes `openssl pkcs8 -topk8 -v2`
/// offers; and a wrong password is a clean error.
#[test]
fn encrypted_pkcs8_from_the_openssl_command() {
    let pair = &keys()[0];
    let pem = pair.theirs.private_key_to_pem_pkcs8().unwrap();
    for (cipher, prf) in [
        ("aes-256-cbc", "hmacWithSHA256"),
        ("aes-128-cbc", "hmacWithSHA1"),
        ("aes-192-cbc", "hmacWithSHA512"),
        ("aes-256-cbc", "hmacWithSHA384"),
        ("aes-128-cbc", "hmacWithSHA224"),
    ] {
        let out = openssl_cli(
            &[
                "pkcs8",
                "-topk8",
                "-v2",
                cipher,
                "-v2prf",
                prf,
                "-passout",
                "pass:secret",
                "-outform",
                "DER",
            ],
            &pem,
        );
        let key = RsaPrivateKey::from_pkcs8_encrypted_der(&out, b"secret").unwrap();
        assert_eq!(key, pair.ours, "{cipher} {prf}");
        assert_eq!(
            RsaPrivateKey::from_pkcs8_encrypted_der(&out, b"Secret"),
            Err(cryptocard::Error::InvalidEncoding("wrong password or corrupt key")),
            "{cipher} {prf}"
        );
        assert!(matches!(
            RsaPrivateKey::from_pkcs8_encrypted_der_limited(&out, b"secret", 100),
            Err(cryptocard::Error::Unsupported(_))
        ));
    }
}

#[test]
fn formats_ours_to_openssl() {
    for pair in keys() {
        let k = &pair.ours;
        let multi = k.primes().len() > 2;
        let check = |rsa: Rsa<Private>| {
            assert!(rsa.check_key().unwrap());
            if !multi {
                same_key(k, &rsa);
            }
            // The key OpenSSL read signs what we verify.
            let p = PKey::from_rsa(rsa).unwrap();
            let mut s = Signer::new(MessageDigest::sha256(), &p).unwrap();
            let sig = s.sign_oneshot_to_vec(b"m").unwrap();
            k.public_key().verify_pkcs1v15(HashAlg::Sha256, b"m", &sig).unwrap();
        };
        check(Rsa::private_key_from_der(&k.to_pkcs1_der().unwrap()).unwrap());
        check(Rsa::private_key_from_pem(k.to_pkcs1_pem().unwrap().as_bytes()).unwrap());
        check(PKey::private_key_from_pkcs8(&k.to_pkcs8_der().unwrap()).unwrap().rsa().unwrap());
        check(
            PKey::private_key_from_pem(k.to_pkcs8_pem().unwrap().as_bytes())
                .unwrap()
                .rsa()
                .unwrap(),
        );
        let enc = k.to_pkcs8_encrypted_der(b"pw", &mut OsRng).unwrap();
        check(PKey::private_key_from_pkcs8_passphrase(&enc, b"pw").unwrap().rsa().unwrap());
        let enc_pem = k.to_pkcs8_encrypted_pem(b"pw", &mut OsRng).unwrap();
        check(
            PKey::private_key_from_pem_passphrase(enc_pem.as_bytes(), b"pw")
                .unwrap()
                .rsa()
                .unwrap(),
        );
        // Public formats: OpenSSL reads them and encrypts to us.
        let public = k.public_key();
        let readers = [
            PKey::public_key_from_der(&public.to_public_key_der().unwrap()).unwrap().rsa().unwrap(),
            PKey::public_key_from_pem(public.to_public_key_pem().unwrap().as_bytes())
                .unwrap()
                .rsa()
                .unwrap(),
            Rsa::public_key_from_der_pkcs1(&public.to_pkcs1_der().unwrap()).unwrap(),
            Rsa::public_key_from_pem_pkcs1(public.to_pkcs1_pem().unwrap().as_bytes()).unwrap(),
        ];
        for rsa in readers {
            let mut ct = vec![0u8; rsa.size() as usize];
            let n = rsa.public_encrypt(b"hi", &mut ct, Padding::PKCS1).unwrap();
            assert_eq!(k.decrypt_pkcs1v15(&ct[..n], &mut OsRng).unwrap(), b"hi");
        }
        // DER written by us is byte-identical to OpenSSL's re-encoding of it.
        let rsa = Rsa::private_key_from_der(&k.to_pkcs1_der().unwrap()).unwrap();
        assert_eq!(rsa.private_key_to_der().unwrap(), k.to_pkcs1_der().unwrap().as_slice());
        assert_eq!(
            PKey::from_rsa(rsa).unwrap().public_key_to_der().unwrap(),
            public.to_public_key_der().unwrap()
        );
    }
}

/// Our encrypted PKCS#8 has the structure OpenSSL writes (PBES2, PBKDF2 with
/// hmacWithSHA256, 2048 iterations, no keyLength, AES-256-CBC), as `openssl asn1parse`
/// shows it; only the salt differs in length (ours 16 bytes as OpenSSL 3.2+ writes, the
/// system's 3.0 writes 8), and with it the enclosing lengths.
#[test]
fn encrypted_pkcs8_structure_matches_openssl() {
    let k = &keys()[0].ours;
    let ours = k.to_pkcs8_encrypted_der(b"pw", &mut OsRng).unwrap();
    let theirs = openssl_cli(
        &["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-passout", "pass:pw", "-outform", "DER"],
        k.to_pkcs8_pem().unwrap().as_bytes(),
    );
    // (depth, kind, value) of every element; lengths and the contents of OCTET STRINGs
    // dropped (asn1parse prints a random salt raw when its bytes happen to be printable,
    // line breaks included, else as a hex dump: hence only the element lines are read);
    // the INTEGER is the iteration count.
    let shape = |der: &[u8]| -> Vec<String> {
        let text = String::from_utf8_lossy(&openssl_cli(&["asn1parse", "-inform", "DER"], der))
            .into_owned();
        text.lines()
            .filter(|l| l.contains(":d="))
            .map(|l| {
                let depth = l.split("d=").nth(1).unwrap().split_whitespace().next().unwrap();
                let rest = l.split_once(": ").unwrap().1;
                let rest = match rest.trim_start().starts_with("OCTET STRING") {
                    true => "OCTET STRING",
                    false => rest,
                };
                format!("{depth} {}", rest.split_whitespace().collect::<Vec<_>>().join(" "))
            })
            .collect()
    };
    let (a, b) = (shape(&ours), shape(&theirs));
    assert_eq!(a, b);
    assert!(a.contains(&"6 OBJECT :hmacWithSHA256".to_string()), "{a:?}");
    assert!(a.contains(&"5 INTEGER :0800".to_string()), "{a:?}");
    // The salt: the OCTET STRING at depth 5.
    let salt_len = |der: &[u8]| {
        let text = String::from_utf8(openssl_cli(&["asn1parse", "-inform", "DER"], der)).unwrap();
        let line = text
            .lines()
            .find(|l| l.contains("d=5") && l.contains("OCTET STRING"))
            .unwrap()
            .to_string();
        line.split(" l=")
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse::<usize>()
            .unwrap()
    };
    assert_eq!(salt_len(&ours), 16);
    assert_eq!(salt_len(&theirs), 8);
}
