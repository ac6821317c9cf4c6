//! `pkeyutl`: every padding and its options, round trips through our own commands, and
//! signatures and ciphertexts exchanged with `openssl pkeyutl` in both directions; bad
//! signatures, undecryptable ciphertexts and bad options fail as OpenSSL's do, leaving no
//! output file behind.

mod common;
use common::*;

fn key(name: &str) -> String {
    data(name).to_str().unwrap().to_string()
}

/// A SHA-256 digest to sign (of "abc", FIPS 180-2 B.1).
fn digest() -> Vec<u8> {
    unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
}

/// `-pkeyopt` before each option.
fn pkeyopts(opts: &[&'static str]) -> Vec<&'static str> {
    opts.iter().flat_map(|o| ["-pkeyopt", *o]).collect()
}

/// Signing options with the input each expects.
fn sign_cases() -> Vec<(Vec<&'static str>, Vec<u8>)> {
    let pss = "rsa_padding_mode:pss";
    vec![
        (pkeyopts(&["digest:sha256"]), digest()),
        (vec![], b"raw data, PKCS#1 type 1 padded".to_vec()),
        (vec!["-rawin", "-digest", "sha384"], b"a message hashed here".to_vec()),
        // Without -digest, SHA-256, as OpenSSL 3 defaults it for RSA.
        (vec!["-rawin"], b"a message hashed with the default digest".to_vec()),
        (pkeyopts(&[pss, "digest:sha256"]), digest()),
        (pkeyopts(&[pss, "digest:sha256", "rsa_pss_saltlen:digest", "rsa_mgf1_md:sha1"]), digest()),
        (pkeyopts(&[pss, "digest:sha256", "rsa_pss_saltlen:7"]), digest()),
        (pkeyopts(&[pss]), digest()[..20].to_vec()),
        // X9.31 wants its digest before its padding in OpenSSL.
        (pkeyopts(&["digest:sha256", "rsa_padding_mode:x931"]), digest()),
    ]
}

/// Verification options matching a signing case (PSS verifies with saltlen auto unless
/// told).
fn verify_opts(sign: &[&'static str]) -> Vec<&'static str> {
    sign.to_vec()
}

fn pkeyutl(op: &str, keyfile: &str, extra: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut args = vec!["pkeyutl", op, "-inkey", keyfile];
    args.extend_from_slice(extra);
    run(&args, stdin)
}

#[test]
fn signatures_round_trip_and_fail_when_altered() {
    let dir = tempdir();
    let (k, p) = (key("rsa2048.pem"), key("rsa2048.pub.pem"));
    for (opts, input) in sign_cases() {
        let sig = ok(&pkeyutl("-sign", &k, &opts, &input));
        assert_eq!(sig.len(), 256, "{opts:?}");
        let sigfile = path(dir.path(), "sig");
        std::fs::write(&sigfile, &sig).unwrap();
        let mut v = verify_opts(&opts);
        v.extend(["-sigfile", sigfile.as_str()]);
        for (keyfile, pubin) in [(&p, true), (&k, false)] {
            let mut args = v.clone();
            if pubin {
                args.push("-pubin");
            }
            let out = pkeyutl("-verify", keyfile, &args, &input);
            assert_eq!(ok_text(&out), "Signature Verified Successfully\n", "{opts:?}");
        }
        let mut bad = sig.clone();
        bad[100] ^= 1;
        std::fs::write(&sigfile, &bad).unwrap();
        let out = pkeyutl("-verify", &p, &[&v[..], &["-pubin"]].concat(), &input);
        assert_eq!(out.status.code(), Some(1), "{opts:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "Signature Verification Failure\n");
        // A signature over other data fails as well.
        std::fs::write(&sigfile, &sig).unwrap();
        let mut other = input.clone();
        other[0] ^= 0x80;
        let out = pkeyutl("-verify", &p, &[&v[..], &["-pubin"]].concat(), &other);
        assert_eq!(out.status.code(), Some(1), "{opts:?}");
    }
    // PKCS#1 v1.5 is deterministic: verifyrecover gives back the DigestInfo, or with a
    // digest set, the digest.
    let sig = ok(&pkeyutl("-sign", &k, &["-pkeyopt", "digest:sha256"], &digest()));
    let rec = ok(&pkeyutl("-verifyrecover", &p, &["-pubin"], &sig));
    assert_eq!(tohex(&rec[..19]), "3031300d060960864801650304020105000420");
    assert_eq!(&rec[19..], digest());
    let rec = ok(&pkeyutl("-verifyrecover", &p, &["-pubin", "-pkeyopt", "digest:sha256"], &sig));
    assert_eq!(rec, digest());
    // X9.31 too: the digest back, and a digest of another kind refused (its id differs).
    let x931 = ["-pkeyopt", "digest:sha256", "-pkeyopt", "rsa_padding_mode:x931"];
    let sig = ok(&pkeyutl("-sign", &k, &x931, &digest()));
    let rec = ok(&pkeyutl("-verifyrecover", &p, &[&["-pubin"][..], &x931].concat(), &sig));
    assert_eq!(rec, digest());
    let sha512 = ["-pubin", "-pkeyopt", "digest:sha512", "-pkeyopt", "rsa_padding_mode:x931"];
    assert_eq!(pkeyutl("-verifyrecover", &p, &sha512, &sig).status.code(), Some(1));
    // Raw RSA: sign then verifyrecover with padding none gives the block back.
    let mut block = bytes(7, 256);
    block[0] = 0;
    let raw = ok(&pkeyutl("-sign", &k, &["-pkeyopt", "rsa_padding_mode:none"], &block));
    let back =
        ok(&pkeyutl("-verifyrecover", &p, &["-pubin", "-pkeyopt", "rsa_padding_mode:none"], &raw));
    assert_eq!(back, block);
}

#[test]
fn encryption_round_trips() {
    let (k, p) = (key("rsa2048.pem"), key("rsa2048.pub.pem"));
    let msg = b"attack at dawn".to_vec();
    for opts in [
        &[][..],
        &["-pkeyopt", "rsa_padding_mode:oaep"],
        &["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha256"],
        &[
            "-pkeyopt",
            "rsa_padding_mode:oaep",
            "-pkeyopt",
            "rsa_oaep_md:sha512",
            "-pkeyopt",
            "rsa_mgf1_md:sha1",
            "-pkeyopt",
            "rsa_oaep_label:0011aabb",
        ],
        &["-pkeyopt", "rsa_pkcs1_implicit_rejection:1"],
    ] {
        let ct = ok(&pkeyutl("-encrypt", &p, &[&["-pubin"], opts].concat(), &msg));
        assert_eq!(ct.len(), 256);
        let ct2 = ok(&pkeyutl("-encrypt", &k, opts, &msg));
        assert_ne!(ct, ct2, "randomized padding");
        assert_eq!(ok(&pkeyutl("-decrypt", &k, opts, &ct)), msg, "{opts:?}");
        assert_eq!(ok(&pkeyutl("-decrypt", &k, opts, &ct2)), msg, "{opts:?}");
    }
    // Raw RSA.
    let mut block = bytes(8, 256);
    block[0] = 0;
    let ct = ok(&pkeyutl("-encrypt", &p, &["-pubin", "-pkeyopt", "rsa_padding_mode:none"], &block));
    assert_eq!(ok(&pkeyutl("-decrypt", &k, &["-pkeyopt", "rsa_padding_mode:none"], &ct)), block);
    // -hexdump in OpenSSL's BIO_dump layout, -rev reverses the input.
    let ct = ok(&pkeyutl("-encrypt", &p, &["-pubin"], b"olleh"));
    let dump = ok_text(&pkeyutl("-decrypt", &k, &["-hexdump"], &ct));
    assert_eq!(dump, format!("0000 - 6f 6c 6c 65 68{}olleh\n", " ".repeat(36)));
    let mut rev = ct.clone();
    rev.reverse();
    assert_eq!(ok(&pkeyutl("-decrypt", &k, &["-rev"], &rev)), b"olleh");
}

#[test]
fn undecryptable_input_fails_and_leaves_no_file() {
    let dir = tempdir();
    let (k, p) = (key("rsa2048.pem"), key("rsa2048.pub.pem"));
    let out = path(dir.path(), "plain.txt");
    std::fs::write(&out, b"previous contents").unwrap();
    let before = listing(dir.path());
    let ct = ok(&pkeyutl("-encrypt", &p, &["-pubin"], b"secret"));
    // A ciphertext decrypts under PKCS#1 v1.5 only if its encoded message starts 00 02; an
    // altered or OAEP ciphertext does so by chance (about 1 in 65536 and 1 in 400), so the
    // inputs below are chosen, through raw decryption, among those that cannot.
    let em = |c: &[u8]| ok(&pkeyutl("-decrypt", &k, &["-pkeyopt", "rsa_padding_mode:none"], c));
    let pkcs1_shaped = |c: &[u8]| em(c).get(..2) == Some(&[0, 2][..]);
    // (Altering byte 10 and after keeps the ciphertext below the modulus.)
    let bad = (10..ct.len())
        .map(|i| {
            let mut b = ct.clone();
            b[i] ^= 0x40;
            b
        })
        .find(|b| !pkcs1_shaped(b))
        .unwrap();
    let oaep = ["-pkeyopt", "rsa_padding_mode:oaep"];
    let ct_oaep = std::iter::repeat_with(|| {
        ok(&pkeyutl("-encrypt", &p, &[&["-pubin"][..], &oaep].concat(), b"secret"))
    })
    .take(20)
    .find(|c| !pkcs1_shaped(c))
    .unwrap();
    let explicit = ["-pkeyopt", "rsa_pkcs1_implicit_rejection:0"];
    for (input, opts) in [
        (bad.clone(), &explicit[..]),
        (ct.clone(), &oaep[..]),
        (ct_oaep.clone(), &explicit[..]),
        (ct[..100].to_vec(), &[][..]),
        (ct[..100].to_vec(), &explicit[..]),
        (ct_oaep.clone(), &["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_label:01"]),
    ] {
        let r = pkeyutl("-decrypt", &k, &[opts, &["-out", out.as_str()]].concat(), &input);
        fails(&r, 1, "decrypting");
        assert_eq!(std::fs::read(&out).unwrap(), b"previous contents");
        assert_eq!(listing(dir.path()), before);
    }
    // By default (and with rsa_pkcs1_implicit_rejection:1), a bad PKCS#1 v1.5 ciphertext
    // decrypts to a deterministic pseudo-random message instead of failing: no padding
    // oracle in the exit status.
    let ir = ["-pkeyopt", "rsa_pkcs1_implicit_rejection:1"];
    for bad in [&bad, &ct_oaep] {
        let a = ok(&pkeyutl("-decrypt", &k, &[], bad));
        assert_eq!(ok(&pkeyutl("-decrypt", &k, &[], bad)), a);
        assert_eq!(ok(&pkeyutl("-decrypt", &k, &ir, bad)), a);
        assert_ne!(a, b"secret");
    }
}

/// The default PKCS#1 v1.5 decryption is OpenSSL 3.2's implicit rejection, to the byte:
/// the synthetic messages of draft-irtf-cfrg-rsa-guidance's vectors for the RSA-2048-2
/// key (the library's `tests/data/rsa/openssl_implicit_rejection.txt`), and the real
/// message of a valid ciphertext; `rsa_pkcs1_implicit_rejection:0` fails on the invalid
/// ones.
#[test]
fn pkcs1_decryption_defaults_to_implicit_rejection() {
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../cryptocard/tests/data/rsa/openssl_implicit_rejection.txt"
    ))
    .unwrap();
    let block = &data[data.find("PrivateKey = RSA-2048-2\n").unwrap()..];
    let pem = &block[block.find("-----BEGIN").unwrap()..];
    let pem = &pem[..pem.find("-----END RSA PRIVATE KEY-----\n").unwrap() + 30];
    let dir = tempdir();
    let k = path(dir.path(), "k.pem");
    std::fs::write(&k, pem).unwrap();
    // The cases of that key that are full length (shorter ones are OpenSSL API leniency).
    let section: Vec<&str> = block.split("\nPrivateKey = ").next().unwrap().lines().collect();
    let cases: Vec<(Vec<u8>, &str)> = section
        .windows(2)
        .filter_map(|w| {
            Some((unhex(w[0].strip_prefix("Input = ")?), w[1].strip_prefix("Output =")?))
        })
        .filter(|(ct, _)| ct.len() == 256)
        .collect();
    let (mut valid, mut invalid) = (0, 0);
    for (ct, want) in &cases {
        let got = ok(&pkeyutl("-decrypt", &k, &[], ct));
        let explicit = pkeyutl("-decrypt", &k, &["-pkeyopt", "rsa_pkcs1_implicit_rejection:0"], ct);
        match want.trim().strip_prefix('"').and_then(|w| w.strip_suffix('"')) {
            Some(text) => {
                assert_eq!(got, text.as_bytes());
                assert_eq!(ok(&explicit), text.as_bytes());
                valid += 1;
            }
            None => {
                assert_eq!(got, unhex(want.trim()), "synthetic message");
                fails(&explicit, 1, "decryption failed");
                invalid += 1;
            }
        }
    }
    assert!(valid >= 1 && invalid >= 3, "{valid} valid, {invalid} invalid cases");
}

#[test]
fn bad_arguments() {
    let (k, p) = (key("rsa2048.pem"), key("rsa2048.pub.pem"));
    let d = digest();
    for (op, keyfile, opts, input, needle) in [
        ("-sign", "", &[][..], &d[..], "-inkey"),
        ("-sign", p.as_str(), &["-pubin"][..], &d[..], "private key is needed"),
        ("-decrypt", p.as_str(), &[][..], &d[..], "holds a public key"),
        ("-verify", p.as_str(), &["-pubin"][..], &d[..], "-sigfile"),
        ("-sign", k.as_str(), &["-pkeyopt", "digest:sha256"][..], &d[..20], "digest length"),
        ("-sign", k.as_str(), &["-pkeyopt", "rsa_padding_mode:oaep"][..], &d[..], "for encryption"),
        (
            "-encrypt",
            p.as_str(),
            &["-pubin", "-pkeyopt", "rsa_padding_mode:pss"][..],
            &d[..],
            "for signatures",
        ),
        ("-encrypt", p.as_str(), &["-pubin"][..], &[7u8; 300][..], "too large"),
        (
            "-encrypt",
            p.as_str(),
            &["-pubin", "-pkeyopt", "rsa_padding_mode:none"][..],
            &d[..],
            "exactly 256 bytes",
        ),
        ("-sign", k.as_str(), &["-digest", "sha256"][..], &d[..], "-digest needs -rawin"),
        ("-sign", k.as_str(), &["-rawin", "-digest", "sha999"][..], &d[..], "unknown digest"),
        ("-sign", k.as_str(), &["-pkeyopt", "rsa_padding_mode:x931"][..], &d[..], "x931"),
        (
            "-sign",
            k.as_str(),
            &["-pkeyopt", "rsa_pss_saltlen:20"][..],
            &d[..],
            "not valid with rsa_padding_mode:pkcs1",
        ),
        (
            "-encrypt",
            p.as_str(),
            &["-pubin", "-pkeyopt", "rsa_oaep_label:xyz"][..],
            &d[..],
            "rsa_oaep_label",
        ),
        ("-sign", k.as_str(), &["-keyform", "BER"][..], &d[..], "-keyform"),
        ("-sign", "/nonexistent.pem", &[][..], &d[..], "No such file"),
        ("-sign", k.as_str(), &["-in", "/nonexistent.bin"][..], &d[..], "No such file"),
    ] {
        let mut args = vec!["pkeyutl", op];
        if !keyfile.is_empty() {
            args.extend(["-inkey", keyfile]);
        }
        args.extend_from_slice(opts);
        fails(&run(&args, input), 1, needle);
    }
}

#[test]
fn interoperates_with_openssl_pkeyutl() {
    if !have_openssl("interoperates_with_openssl_pkeyutl") {
        return;
    }
    let dir = tempdir();
    let keys = [
        (key("rsa2048.pem"), key("rsa2048.pub.pem")),
        (key("rsa1024-3primes.pem"), {
            let p = path(dir.path(), "p3.pem");
            std::fs::write(
                &p,
                openssl(&["pkey", "-in", &key("rsa1024-3primes.pem"), "-pubout"], b""),
            )
            .unwrap();
            p
        }),
    ];
    let sigfile = path(dir.path(), "sig");
    for (k, p) in &keys {
        for (opts, input) in sign_cases() {
            // Ours signs, OpenSSL verifies; OpenSSL signs, ours verifies.
            let sig = ok(&pkeyutl("-sign", k, &opts, &input));
            std::fs::write(&sigfile, &sig).unwrap();
            let mut v = vec![
                "pkeyutl",
                "-verify",
                "-pubin",
                "-inkey",
                p.as_str(),
                "-sigfile",
                sigfile.as_str(),
            ];
            v.extend(verify_opts(&opts));
            assert_eq!(openssl(&v, &input), b"Signature Verified Successfully\n", "{opts:?}");
            let mut s = vec!["pkeyutl", "-sign", "-inkey", k.as_str()];
            s.extend(opts.iter().copied());
            let theirs = openssl(&s, &input);
            if !opts.iter().any(|o| o.contains("pss")) {
                assert_eq!(theirs, sig, "PKCS#1 v1.5 signatures are deterministic: {opts:?}");
            }
            std::fs::write(&sigfile, &theirs).unwrap();
            assert_eq!(ok(&run(&v, &input)), b"Signature Verified Successfully\n", "{opts:?}");
        }
        for opts in [
            &[][..],
            &["-pkeyopt", "rsa_padding_mode:oaep"],
            &[
                "-pkeyopt",
                "rsa_padding_mode:oaep",
                "-pkeyopt",
                "rsa_oaep_md:sha256",
                "-pkeyopt",
                "rsa_oaep_label:c0ffee",
            ],
            &[
                "-pkeyopt",
                "rsa_padding_mode:oaep",
                "-pkeyopt",
                "rsa_oaep_md:sha384",
                "-pkeyopt",
                "rsa_mgf1_md:sha1",
            ],
        ] {
            let msg = b"interoperable secret";
            let mut e = vec!["pkeyutl", "-encrypt", "-pubin", "-inkey", p.as_str()];
            e.extend_from_slice(opts);
            let mut d = vec!["pkeyutl", "-decrypt", "-inkey", k.as_str()];
            d.extend_from_slice(opts);
            assert_eq!(openssl(&d, &ok(&run(&e, msg))), msg, "ours -> openssl {opts:?}");
            assert_eq!(ok(&run(&d, &openssl(&e, msg))), msg, "openssl -> ours {opts:?}");
        }
    }
    // Keys in every format OpenSSL wrote, used by OpenSSL on our signatures.
    let sig = ok(&pkeyutl(
        "-sign",
        &key("rsa2048.enc.der"),
        &["-passin", "pass:cryptocard", "-pkeyopt", "digest:sha256"],
        &digest(),
    ));
    std::fs::write(&sigfile, &sig).unwrap();
    let v = [
        "pkeyutl",
        "-verify",
        "-pubin",
        "-inkey",
        &key("rsa2048.pub.der"),
        "-keyform",
        "DER",
        "-sigfile",
        &sigfile,
        "-pkeyopt",
        "digest:sha256",
    ];
    assert_eq!(openssl(&v, &digest()), b"Signature Verified Successfully\n");
}
