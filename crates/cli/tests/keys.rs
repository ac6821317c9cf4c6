//! `genpkey`, `genrsa` and `pkey`: every key format OpenSSL writes is read, conversions
//! give byte for byte the files OpenSSL wrote (tests/data, see its README), `-text` is
//! OpenSSL's, new keys are usable by OpenSSL, and bad key files fail with one line.

mod common;
use common::*;

fn key(name: &str) -> String {
    data(name).to_str().unwrap().to_string()
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(data(name)).unwrap()
}

const PW: &str = "pass:cryptocard";

#[test]
fn every_format_reads_and_converts_to_what_openssl_wrote() {
    // Private keys in any form, to PKCS#8 PEM: the bytes of OpenSSL's rsa2048.pem.
    for (file, extra) in [
        ("rsa2048.pem", &[][..]),
        ("rsa2048.der", &[]),
        ("rsa2048.der", &["-inform", "DER"]),
        ("rsa2048.pkcs1.pem", &[]),
        ("rsa2048.pkcs1.der", &[]),
        ("rsa2048.enc.pem", &["-passin", PW]),
        ("rsa2048.enc.der", &["-passin", PW]),
        ("rsa2048.pkcs1.des3.pem", &["-passin", PW]),
    ] {
        let path = key(file);
        let mut args = vec!["pkey", "-in", path.as_str()];
        args.extend_from_slice(extra);
        assert_eq!(ok(&run(&args, b"")), read("rsa2048.pem"), "{file} {extra:?}");
    }
    let k = key("rsa2048.pem");
    let conversions: [(&[&str], &str); 5] = [
        (&["-traditional"], "rsa2048.pkcs1.pem"),
        (&["-outform", "DER"], "rsa2048.der"),
        (&["-outform", "der", "-traditional"], "rsa2048.pkcs1.der"),
        (&["-pubout"], "rsa2048.pub.pem"),
        (&["-pubout", "-outform", "DER"], "rsa2048.pub.der"),
    ];
    for (flags, want) in conversions {
        let mut args = vec!["pkey", "-in", k.as_str()];
        args.extend_from_slice(flags);
        assert_eq!(ok(&run(&args, b"")), read(want), "{flags:?}");
    }
    // Public keys in, SubjectPublicKeyInfo out; from stdin too.
    for file in ["rsa2048.pub.pem", "rsa2048.pub.der", "rsa2048.rsapub.pem"] {
        let out = run(&["pkey", "-pubin"], &read(file));
        assert_eq!(ok(&out), read("rsa2048.pub.pem"), "{file}");
    }
}

#[test]
fn text_dump_is_openssls() {
    let k = key("rsa2048.pem");
    let text = ok_text(&run(&["pkey", "-in", &k, "-text", "-noout"], b""));
    assert!(text.starts_with("Private-Key: (2048 bit, 2 primes)\nmodulus:\n    00:"), "{text}");
    assert!(text.contains("\npublicExponent: 65537 (0x10001)\nprivateExponent:\n"), "{text}");
    for label in ["prime1:", "prime2:", "exponent1:", "exponent2:", "coefficient:"] {
        assert!(text.lines().any(|l| l == label), "{label}");
    }
    // The same dump from every encoding of the key.
    let der = key("rsa2048.pkcs1.der");
    assert_eq!(ok_text(&run(&["pkey", "-in", &der, "-text", "-noout"], b"")), text);
    let three = key("rsa1024-3primes.pem");
    let text3 = ok_text(&run(&["pkey", "-in", &three, "-text", "-noout"], b""));
    assert!(text3.starts_with("Private-Key: (1024 bit, 3 primes)"), "{text3}");
    for label in ["prime3:", "exponent3:", "coefficient3:"] {
        assert!(text3.lines().any(|l| l == label), "{label}: {text3}");
    }
    let pubtext = ok_text(&run(&["pkey", "-in", &k, "-text_pub", "-noout"], b""));
    assert!(pubtext.starts_with("Public-Key: (2048 bit)\nModulus:\n"), "{pubtext}");
    assert!(pubtext.ends_with("\nExponent: 65537 (0x10001)\n"), "{pubtext}");
    // Key first, then the text, as OpenSSL orders them.
    let both = ok_text(&run(&["pkey", "-in", &k, "-text"], b""));
    assert!(both.starts_with("-----BEGIN PRIVATE KEY-----") && both.ends_with(&text), "{both}");
    if have_openssl("text_dump_is_openssls") {
        for (file, flags) in [
            ("rsa2048.pem", &["-text", "-noout"][..]),
            ("rsa1024-3primes.pem", &["-text", "-noout"]),
            ("rsa2048.pem", &["-text_pub", "-noout"]),
            ("rsa2048.pub.pem", &["-pubin", "-text", "-noout"]),
            ("rsa2048.pem", &["-check", "-noout"]),
        ] {
            let path = key(file);
            let mut args = vec!["pkey", "-in", path.as_str()];
            args.extend_from_slice(flags);
            assert_eq!(ok(&run(&args, b"")), openssl(&args, b""), "{file} {flags:?}");
        }
    }
}

#[test]
fn check_and_encrypted_output() {
    let k = key("rsa2048.pem");
    assert_eq!(ok_text(&run(&["pkey", "-in", &k, "-check", "-noout"], b"")), "Key is valid\n");
    let p = key("rsa2048.pub.pem");
    assert_eq!(
        ok_text(&run(&["pkey", "-in", &p, "-pubin", "-pubcheck", "-noout"], b"")),
        "Key is valid\n"
    );
    fails(&run(&["pkey", "-in", &p, "-pubin", "-check"], b""), 1, "-check needs a private key");
    // Encrypted PKCS#8 out, read back by us (and by OpenSSL where installed).
    let dir = tempdir();
    let enc = path(dir.path(), "enc.pem");
    ok(&run(&["pkey", "-in", &k, "-aes256", "-passout", "pass:s3cret", "-out", &enc], b""));
    let text = std::fs::read_to_string(&enc).unwrap();
    assert!(text.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"), "{text}");
    assert_eq!(
        ok(&run(&["pkey", "-in", &enc, "-passin", "pass:s3cret"], b"")),
        read("rsa2048.pem")
    );
    if have_openssl("check_and_encrypted_output") {
        assert_eq!(
            openssl(&["pkey", "-in", &enc, "-passin", "pass:s3cret"], b""),
            read("rsa2048.pem")
        );
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&enc).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "private keys are written owner-only: {mode:o}");
    }
}

/// Every file that holds private material is created owner-only (0600), as OpenSSL
/// creates it, whatever the umask allows, and replacing an existing readable file does
/// not keep its mode; public outputs follow the umask. (`pkey -text -noout -out F`
/// wrote d and the primes with mode 0644.)
#[cfg(unix)]
#[test]
fn private_material_is_written_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |f: &str| std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
    let dir = tempdir();
    let k = key("rsa2048.pem");
    let private_outputs: [&[&str]; 7] = [
        &["pkey", "-in", &k, "-text", "-noout"],
        &["pkey", "-in", &k],
        &["pkey", "-in", &k, "-traditional", "-outform", "DER"],
        &["pkey", "-in", &k, "-text", "-pubcheck"],
        &["genrsa", "1024"],
        &["genrsa", "-traditional", "-3", "1024"],
        &["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-text"],
    ];
    for (i, args) in private_outputs.iter().enumerate() {
        let out = path(dir.path(), &format!("private{i}"));
        // An existing world-readable file: the private output must not inherit its mode.
        std::fs::write(&out, b"old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mut argv = args.to_vec();
        argv.splice(1..1, ["-out", out.as_str()]);
        ok(&run(&argv, b""));
        assert_ne!(std::fs::read(&out).unwrap(), b"old", "{args:?}");
        assert_eq!(mode(&out), 0o600, "{args:?}");
    }
    let text = std::fs::read_to_string(path(dir.path(), "private0")).unwrap();
    assert!(text.contains("privateExponent:") && text.contains("prime1:"), "{text}");
    // Public material keeps the umask's mode: a fresh file is readable beyond the owner
    // exactly when the umask lets a plain file be.
    let plain = path(dir.path(), "plain");
    std::fs::File::create(&plain).unwrap();
    let public_outputs: [&[&str]; 3] = [
        &["pkey", "-in", &k, "-pubout"],
        &["pkey", "-in", &k, "-text_pub", "-noout"],
        &["pkey", "-in", &k, "-check", "-noout"],
    ];
    for (i, args) in public_outputs.iter().enumerate() {
        let out = path(dir.path(), &format!("public{i}"));
        let mut argv = args.to_vec();
        argv.splice(1..1, ["-out", out.as_str()]);
        ok(&run(&argv, b""));
        assert_eq!(mode(&out), mode(&plain), "{args:?}");
    }
}

#[test]
fn bad_key_files() {
    let dir = tempdir();
    let pem = String::from_utf8(read("rsa2048.pem")).unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated.pem", pem.as_bytes()[..pem.len() / 2].to_vec()),
        ("garbage.pem", pem.replace("MII", "M!I").into_bytes()),
        ("nolabel.pem", b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".to_vec()),
        ("truncated.der", read("rsa2048.der")[..600].to_vec()),
        ("garbage.der", bytes(9, 700)),
        ("empty", Vec::new()),
    ];
    let before = {
        for (name, data) in &cases {
            std::fs::write(dir.path().join(name), data).unwrap();
        }
        std::fs::write(dir.path().join("out.pem"), b"keep me").unwrap();
        listing(dir.path())
    };
    let out = path(dir.path(), "out.pem");
    for (name, _) in &cases {
        let p = path(dir.path(), name);
        let line = fails(&run(&["pkey", "-in", &p, "-out", &out], b""), 1, "could not read key");
        assert!(line.contains(name), "{line}");
    }
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
    assert_eq!(listing(dir.path()), before);
    let enc = key("rsa2048.enc.pem");
    fails(&run(&["pkey", "-in", &enc, "-passin", "pass:wrong"], b""), 1, "wrong password");
    fails(&run(&["pkey", "-in", &enc], b""), 1, "give its password with -passin");
    fails(&run(&["pkey", "-in", &key("rsa2048.enc.der")], b""), 1, "-passin");
    fails(&run(&["pkey", "-in", &enc, "-passin", "nonsense"], b""), 1, "invalid password argument");
    fails(&run(&["pkey", "-in", &key("rsa2048.pub.pem")], b""), 1, "holds a public key");
    fails(&run(&["pkey", "-in", &key("rsa2048.pem"), "-pubin"], b""), 1, "holds a private key");
    fails(&run(&["pkey", "-in", "/nonexistent/k.pem"], b""), 1, "No such file");
    fails(&run(&["pkey", "-in", &key("rsa2048.pem"), "-inform", "XML"], b""), 1, "-inform");
    fails(
        &run(&["pkey", "-in", &key("rsa2048.pem"), "-inform", "DER"], b""),
        1,
        "could not read key",
    );
    fails(
        &run(&["pkey", "-in", &key("rsa2048.pem"), "-camellia128", "-passout", "pass:x"], b""),
        1,
        "-aes-256-cbc",
    );
    fails(&run(&["pkey", "-in", &key("rsa2048.pem"), "-aes256"], b""), 1, "-passout");
    let der_pkcs1 = ["-aes256", "-passout", "pass:x", "-traditional", "-outform", "DER"];
    let k = key("rsa2048.pem");
    let mut args = vec!["pkey", "-in", k.as_str()];
    args.extend_from_slice(&der_pkcs1);
    fails(&run(&args, b""), 1, "a DER PKCS#1 key cannot be encrypted");
    let legacy = key("rsa2048.pkcs1.des3.pem");
    fails(&run(&["pkey", "-in", &legacy, "-passin", "pass:wrong"], b""), 1, "wrong password");
    fails(&run(&["pkey", "-in", &legacy], b""), 1, "give its password with -passin");
}

/// Legacy encrypted PEM (`Proc-Type: 4,ENCRYPTED`), as OpenSSL's `-traditional` with a
/// cipher writes it: ours read by OpenSSL and by us, with each cipher flag and command.
#[test]
fn traditional_keys_under_legacy_pem_encryption() {
    let dir = tempdir();
    let k = key("rsa2048.pem");
    for (flag, dek) in [
        ("-des3", "DES-EDE3-CBC"),
        ("-aes128", "AES-128-CBC"),
        ("-aes-192-cbc", "AES-192-CBC"),
        ("-aes256", "AES-256-CBC"),
    ] {
        for cmd in ["pkey", "rsa"] {
            let out = path(dir.path(), &format!("{cmd}{flag}.pem"));
            let args = ["-in", &k, "-traditional", flag, "-passout", "pass:pw", "-out", &out];
            let mut all = vec![cmd];
            all.extend_from_slice(&args);
            ok(&run(&all, b""));
            let text = std::fs::read_to_string(&out).unwrap();
            let head = format!(
                "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: {dek},"
            );
            assert!(text.starts_with(&head), "{cmd} {flag}: {text}");
            let back = run(&["pkey", "-in", &out, "-passin", "pass:pw"], b"");
            assert_eq!(ok(&back), read("rsa2048.pem"), "{cmd} {flag}");
            if have_openssl("traditional_keys_under_legacy_pem_encryption") {
                let theirs = openssl(&["pkey", "-in", &out, "-passin", "pass:pw"], b"");
                assert_eq!(theirs, read("rsa2048.pem"), "OpenSSL reads our {cmd} {flag}");
            }
        }
    }
    let g = ok_text(&run(&["genrsa", "-traditional", "-des3", "-passout", "pass:pw", "1024"], b""));
    assert!(g.contains("Proc-Type: 4,ENCRYPTED\nDEK-Info: DES-EDE3-CBC,"), "{g}");
    let t = ok_text(&run(&["pkey", "-passin", "pass:pw", "-text", "-noout"], g.as_bytes()));
    assert!(t.starts_with("Private-Key: (1024 bit, 2 primes)"), "{t}");
}

#[test]
fn genpkey_and_genrsa_make_keys_openssl_uses() {
    let dir = tempdir();
    let k = path(dir.path(), "k.pem");
    ok(&run(
        &[
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:1024",
            "-pkeyopt",
            "rsa_keygen_pubexp:0x10003",
            "-pkeyopt",
            "rsa_keygen_primes:3",
            "-out",
            &k,
        ],
        b"",
    ));
    let text = ok_text(&run(&["pkey", "-in", &k, "-text", "-noout"], b""));
    assert!(text.starts_with("Private-Key: (1024 bit, 3 primes)"), "{text}");
    assert!(text.contains("publicExponent: 65539 (0x10003)"), "{text}");
    assert!(ok_text(&run(&["pkey", "-in", &k, "-check", "-noout"], b"")) == "Key is valid\n");
    // DER, encrypted.
    let kd = path(dir.path(), "k.der");
    ok(&run(
        &[
            "genpkey",
            "-algorithm",
            "rsa",
            "-outform",
            "DER",
            "-aes-256-cbc",
            "-pass",
            "pass:pw",
            "-out",
            &kd,
        ],
        b"",
    ));
    let text = ok_text(&run(&["pkey", "-in", &kd, "-passin", "pass:pw", "-text", "-noout"], b""));
    assert!(text.starts_with("Private-Key: (2048 bit, 2 primes)"), "{text}");
    // genrsa: PKCS#8 by default, PKCS#1 with -traditional, e = 3 with -3.
    let g = ok_text(&run(&["genrsa", "1024"], b""));
    assert!(g.starts_with("-----BEGIN PRIVATE KEY-----"), "{g}");
    let g = ok_text(&run(&["genrsa", "-traditional", "-3", "1024"], b""));
    assert!(g.starts_with("-----BEGIN RSA PRIVATE KEY-----"), "{g}");
    let t = ok_text(&run(&["pkey", "-text", "-noout"], g.as_bytes()));
    assert!(t.contains("publicExponent: 3 (0x3)"), "{t}");
    let ge = path(dir.path(), "ge.pem");
    ok(&run(
        &["genrsa", "-aes256", "-passout", "pass:pw", "-primes", "3", "-out", &ge, "1536"],
        b"",
    ));
    assert!(
        std::fs::read_to_string(&ge).unwrap().starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----")
    );
    if have_openssl("genpkey_and_genrsa_make_keys_openssl_uses") {
        assert_eq!(openssl(&["pkey", "-in", &k, "-check", "-noout"], b""), b"Key is valid\n");
        let t = String::from_utf8(openssl(
            &["pkey", "-in", &ge, "-passin", "pass:pw", "-text", "-noout"],
            b"",
        ))
        .unwrap();
        assert!(t.starts_with("Private-Key: (1536 bit, 3 primes)"), "{t}");
        openssl(&["pkey", "-in", &kd, "-passin", "pass:pw", "-check", "-noout"], b"");
    }
}

#[test]
fn keygen_bad_arguments() {
    for (args, needle) in [
        (&["genpkey"][..], "-algorithm RSA"),
        (&["genpkey", "-algorithm", "EC"], "EC is not supported"),
        (&["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:100"], "100-bit"),
        (&["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:x"], "invalid value 'x'"),
        (&["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_primes:9"], "primes"),
        (&["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_pubexp:4"], "exponent"),
        (
            &["genpkey", "-algorithm", "RSA", "-pkeyopt", "ec_paramgen_curve:P-256"],
            "ec_paramgen_curve",
        ),
        (&["genpkey", "-algorithm", "RSA", "-aes-256-cbc"], "-pass"),
        (&["genpkey", "-algorithm", "RSA", "-aria256", "-pass", "pass:x"], "-aes-256-cbc"),
        (&["genpkey", "-algorithm", "RSA", "-outform", "TXT"], "-outform"),
        (&["genrsa", "lots"], "invalid key size 'lots'"),
        (&["genrsa", "1024", "2048"], "unexpected argument"),
        (&["genrsa", "-primes", "x"], "-primes: invalid value"),
    ] {
        fails(&run(args, b""), 1, needle);
    }
}
