//! `req` and `x509`: certificates and requests we make are read and verified by
//! OpenSSL, those OpenSSL makes (PKCS#1 v1.5 and PSS) are verified and printed by us as
//! OpenSSL prints them, and bad input fails with one line. The interoperability tests
//! skip, saying so, where the `openssl` command line is not installed.

mod common;
use common::*;

fn key() -> &'static str {
    static KEY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    KEY.get_or_init(|| data("rsa2048.pem").to_str().unwrap().to_string())
}

/// A CA made by us in `dir`: ca.pem.
fn our_ca(dir: &std::path::Path, extra: &[&str]) -> String {
    let ca = path(dir, "ca.pem");
    let mut args = vec!["req", "-new", "-x509", "-key", key(), "-subj", "/C=US/O=cc/CN=cc CA"];
    args.extend_from_slice(&["-days", "10", "-out", &ca]);
    args.extend_from_slice(extra);
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&run(&args, b""));
    ca
}

#[test]
fn our_certificates_pass_openssl_verify() {
    if !have_openssl("our_certificates_pass_openssl_verify") {
        return;
    }
    let dir = tempdir();
    for sigopts in [&[][..], &["-sha384"][..], &["-sigopt", "rsa_padding_mode:pss"][..]] {
        let ca = our_ca(dir.path(), sigopts);
        let text =
            String::from_utf8(openssl(&["x509", "-in", &ca, "-noout", "-text"], b"")).unwrap();
        assert!(text.contains("CA:TRUE") && text.contains("Issuer: C = US, O = cc, CN = cc CA"));
        // A request from a new key, issued by the CA.
        let (leaf_key, csr, leaf) = (
            path(dir.path(), "leaf.key"),
            path(dir.path(), "leaf.csr"),
            path(dir.path(), "leaf.pem"),
        );
        let mut args = vec!["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", &leaf_key];
        args.extend_from_slice(&["-subj", "/CN=leaf", "-out", &csr]);
        args.extend_from_slice(sigopts);
        ok(&run(&args, b""));
        openssl(&["req", "-in", &csr, "-verify", "-noout"], b"");
        let mut args = vec!["x509", "-req", "-in", &csr, "-CA", &ca, "-CAkey", key()];
        args.extend_from_slice(&["-days", "5", "-out", &leaf]);
        args.extend_from_slice(sigopts);
        let owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let owned: Vec<&str> = owned.iter().map(String::as_str).collect();
        ok(&run(&owned, b""));
        let v = openssl(&["verify", "-CAfile", &ca, &leaf], b"");
        assert_eq!(String::from_utf8(v).unwrap(), format!("{leaf}: OK\n"));
        // The key OpenSSL reads is the one -newkey wrote.
        let ours = ok(&run(&["x509", "-in", &leaf, "-noout", "-pubkey"], b""));
        assert_eq!(ours, openssl(&["pkey", "-in", &leaf_key, "-pubout"], b""));
    }
}

#[test]
fn openssl_certificates_and_requests_are_read_and_printed_as_openssl_does() {
    if !have_openssl("openssl_certificates_and_requests_are_read_and_printed_as_openssl_does") {
        return;
    }
    let dir = tempdir();
    for sigopts in [&[][..], &["-sigopt", "rsa_padding_mode:pss", "-sha512"][..]] {
        let (cert, csr) = (path(dir.path(), "o.pem"), path(dir.path(), "o.csr"));
        let mut args = vec!["req", "-x509", "-key", key(), "-subj", "/C=DE/O=x, y/CN=o"];
        args.extend_from_slice(&["-days", "3", "-out", &cert]);
        args.extend_from_slice(sigopts);
        openssl(&args, b"");
        let mut args = vec!["req", "-new", "-key", key(), "-subj", "/CN=r", "-out", &csr];
        args.extend_from_slice(sigopts);
        openssl(&args, b"");
        for flags in [
            &["-text", "-noout"][..],
            &["-noout", "-subject", "-issuer", "-serial", "-dates"],
            &["-noout", "-fingerprint"],
            &["-noout", "-fingerprint", "-sha256"],
            &["-noout", "-pubkey"],
            &["-outform", "DER"],
            &[],
        ] {
            let mut args = vec!["x509", "-in", cert.as_str()];
            args.extend_from_slice(flags);
            assert_eq!(ok(&run(&args, b"")), openssl(&args, b""), "x509 {flags:?}");
        }
        let args = ["req", "-in", csr.as_str(), "-noout", "-text"];
        assert_eq!(ok(&run(&args, b"")), openssl(&args, b""));
        let out = run(&["req", "-in", &csr, "-verify", "-noout"], b"");
        ok(&out);
        assert!(String::from_utf8_lossy(&out.stderr).contains("self-signature verify OK"));
        // Issue from OpenSSL's request with our x509 -req, under an OpenSSL CA.
        let leaf = path(dir.path(), "issued.pem");
        ok(&run(&["x509", "-req", "-in", &csr, "-CA", &cert, "-CAkey", key(), "-out", &leaf], b""));
        let v = openssl(&["verify", "-CAfile", &cert, &leaf], b"");
        assert!(String::from_utf8(v).unwrap().ends_with(": OK\n"));
        // DER in, PEM out; the same certificate.
        let der = openssl(&["x509", "-in", &cert, "-outform", "DER"], b"");
        let pem = ok(&run(&["x509", "-inform", "DER"], &der));
        assert_eq!(pem, std::fs::read(&cert).unwrap());
    }
}

#[test]
fn set_serial_days_and_subject_printing() {
    let dir = tempdir();
    let ca = our_ca(dir.path(), &["-set_serial", "0x1234"]);
    let out = ok_text(&run(&["x509", "-in", &ca, "-noout", "-serial", "-subject"], b""));
    assert_eq!(out, "serial=1234\nsubject=C = US, O = cc, CN = cc CA\n");
    let text = ok_text(&run(&["x509", "-in", &ca, "-noout", "-text"], b""));
    assert!(text.contains("        Serial Number: 4660 (0x1234)\n"), "{text}");
}

#[test]
fn tampered_and_malformed_input_fail_with_one_line() {
    let dir = tempdir();
    let csr = path(dir.path(), "r.csr");
    ok(&run(
        &["req", "-new", "-key", key(), "-subj", "/CN=r", "-outform", "DER", "-out", &csr],
        b"",
    ));
    let mut der = std::fs::read(&csr).unwrap();
    let i = der.len() / 3;
    der[i] ^= 0x20;
    let bad = path(dir.path(), "bad.csr");
    std::fs::write(&bad, &der).unwrap();
    let out = run(&["req", "-in", &bad, "-verify", "-noout"], b"");
    assert_eq!(out.status.code(), Some(1));
    for junk in [
        &b""[..],
        b"\x30\x82\xff\xff",
        b"-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n",
    ] {
        fails(&run(&["x509", "-noout", "-text"], junk), 1, "could not read certificate");
        fails(&run(&["req", "-noout", "-text"], junk), 1, "could not read certificate request");
    }
    fails(&run(&["req", "-new", "-key", key(), "-subj", "CN=x"], b""), 1, "must start with '/'");
    fails(&run(&["req", "-new", "-subj", "/CN=x"], b""), 1, "-key");
    // The CA key must be the CA certificate's.
    let ca = our_ca(dir.path(), &[]);
    let other = path(dir.path(), "other.key");
    ok(&run(&["genpkey", "-algorithm", "RSA", "-out", &other], b""));
    let csr_pem = path(dir.path(), "r2.csr");
    ok(&run(&["req", "-new", "-key", key(), "-subj", "/CN=r", "-out", &csr_pem], b""));
    fails(
        &run(&["x509", "-req", "-in", &csr_pem, "-CA", &ca, "-CAkey", &other], b""),
        1,
        "key values mismatch",
    );
}

#[test]
fn modulus_and_checkend_answer_as_openssl_does() {
    let dir = tempdir();
    let ca = our_ca(dir.path(), &[]);
    // The certificate's modulus is the key's, as `rsa -modulus` prints it.
    let cert_mod = ok_text(&run(&["x509", "-in", &ca, "-noout", "-modulus"], b""));
    let key_mod = ok_text(&run(&["rsa", "-in", key(), "-noout", "-modulus"], b""));
    assert!(cert_mod.starts_with("Modulus=") && cert_mod.len() == "Modulus=".len() + 512 + 1);
    assert_eq!(cert_mod, key_mod);
    // Valid for ten days: not within a day, within a year. No certificate is written,
    // and the printers given before still print.
    let day = run(&["x509", "-in", &ca, "-subject", "-checkend", "86400"], b"");
    assert_eq!(ok_text(&day), "subject=C = US, O = cc, CN = cc CA\nCertificate will not expire\n");
    let year = run(&["x509", "-in", &ca, "-checkend", "31536000"], b"");
    assert_eq!(year.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&year.stdout), "Certificate will expire\n");
    fails(&run(&["x509", "-in", &ca, "-checkend", "soon"], b""), 1, "-checkend");
    if have_openssl("modulus_and_checkend_answer_as_openssl_does") {
        for args in [
            &["-noout", "-modulus", "-subject"][..],
            &["-subject", "-checkend", "86400", "-modulus"][..],
            &["-checkend", "31536000"][..],
        ] {
            let mut full = vec!["x509", "-in", &ca];
            full.extend_from_slice(args);
            let ours = run(&full, b"");
            let theirs = openssl_raw(&full, b"");
            assert_eq!(ours.stdout, theirs.stdout, "{args:?}");
            assert_eq!(ours.status.code(), theirs.status.code(), "{args:?}");
        }
    }
}

#[test]
fn name_hashes_are_openssls() {
    // As `openssl x509 -noout -subject_hash -issuer_hash -subject_hash_old` (OpenSSL
    // 3.0.19) prints them for crates/pki/tests/data's certificates: the second has spaces
    // and capitals in its name, which the canonical form folds.
    let pki = |name: &str| {
        let p: std::path::PathBuf =
            [env!("CARGO_MANIFEST_DIR"), "..", "pki", "tests", "data", name].iter().collect();
        p.to_str().unwrap().to_string()
    };
    for (file, want) in [
        ("inter.pem", "3e18eac5\n997c7fbe\n4acac735\n"),
        ("openssl-pss.pem", "40d9b084\n40d9b084\n32ae9de2\n"),
    ] {
        let args = ["-noout", "-subject_hash", "-issuer_hash", "-subject_hash_old"];
        let out = run(&[&["x509", "-in", &pki(file)][..], &args].concat(), b"");
        assert_eq!(ok_text(&out), want, "{file}");
        let out = run(&["x509", "-in", &pki(file), "-noout", "-hash"], b"");
        assert_eq!(ok_text(&out), want[..9], "{file}");
    }
}

#[test]
fn ext_prints_the_named_extensions_as_openssl_does() {
    // As `openssl x509 -noout -ext ...` (OpenSSL 3.0.19) prints them: an authority key
    // identifier that names its issuer and serial, and a directory name in the one-line
    // form, from two public roots (tests/data/README.md).
    let certigna = data("root-certigna.pem").to_str().unwrap().to_string();
    let izenpe = data("root-izenpe.pem").to_str().unwrap().to_string();
    let out = run(&["x509", "-in", &certigna, "-noout", "-ext", "authorityKeyIdentifier"], b"");
    assert_eq!(
        ok_text(&out),
        "X509v3 Authority Key Identifier: \n    \
         keyid:1A:ED:FE:41:39:90:B4:24:59:BE:01:F2:52:D5:45:F6:5A:39:DC:11\n    \
         DirName:/C=FR/O=Dhimyotis/CN=Certigna\n    serial:FE:DC:E3:01:0F:C9:48:FF\n"
    );
    let out = run(&["x509", "-in", &izenpe, "-noout", "-ext", "subjectAltName"], b"");
    assert_eq!(
        ok_text(&out),
        "X509v3 Subject Alternative Name: \n    email:info@izenpe.com, \
         DirName:/O=IZENPE S.A. - CIF A01337260-RMerc.Vitoria-Gasteiz T1055 F62 S8\
         /street=Avda del Mediterraneo Etorbidea 14 - 01010 Vitoria-Gasteiz\n"
    );
    // The certificate's order, not the list's; none of them: a line on stderr, status 0.
    let out = run(&["x509", "-in", &certigna, "-noout", "-ext", "keyUsage,basicConstraints"], b"");
    let text = ok_text(&out);
    assert!(text.find("Basic Constraints") < text.find("Key Usage"), "{text}");
    let out = run(&["x509", "-in", &certigna, "-noout", "-ext", "subjectAltName,bogus"], b"");
    assert!(out.status.success() && out.stdout.is_empty());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "No extensions in certificate\n");
    if have_openssl("ext_prints_the_named_extensions_as_openssl_does") {
        let names = "basicConstraints,keyUsage,subjectKeyIdentifier,authorityKeyIdentifier,\
                     extendedKeyUsage,subjectAltName";
        for file in [&certigna, &izenpe] {
            let args = ["x509", "-in", file.as_str(), "-noout", "-ext", names];
            assert_eq!(run(&args, b"").stdout, openssl(&args, b""), "{file}");
        }
    }
}

#[test]
fn real_roots_print_as_openssl_prints_them() {
    // tests/data/README.md: six public roots and OpenSSL's -text of each.
    let roots = [
        "root-certigna",
        "root-izenpe",
        "root-ec",
        "root-quovadis",
        "root-entrust",
        "root-chunghwa",
    ];
    for name in roots {
        let pem = data(&format!("{name}.pem")).to_str().unwrap().to_string();
        let want = std::fs::read_to_string(data(&format!("{name}.txt"))).unwrap();
        let out = run(&["x509", "-in", &pem, "-noout", "-text"], b"");
        assert_eq!(ok_text(&out), want, "{name}");
    }
}

#[test]
fn certificates_are_written_as_issued() {
    // Its validity is GeneralizedTime before 2050: written back byte for byte, so its
    // signature still verifies and its fingerprint is OpenSSL's.
    let pem = data("root-certum.pem").to_str().unwrap().to_string();
    let text = std::fs::read_to_string(&pem).unwrap();
    assert_eq!(ok_text(&run(&["x509", "-in", &pem], b"")), text);
    let der = ok(&run(&["x509", "-in", &pem, "-outform", "DER"], b""));
    assert_eq!(ok_text(&run(&["x509", "-inform", "DER"], &der)), text);
    let fp = ok_text(&run(&["x509", "-in", &pem, "-noout", "-fingerprint", "-sha256"], b""));
    assert!(
        fp.starts_with("sha256 Fingerprint=B6:76:F2:ED:DA:E8:77:5C:D3:6C:B0:F6:3C:D1:D4:60"),
        "{fp}"
    );
    if have_openssl("certificates_are_written_as_issued") {
        assert_eq!(der, openssl(&["x509", "-in", &pem, "-outform", "DER"], b""));
    }
    // Carried in a signed message and in a PKCS#12 file, it comes out unchanged.
    let pki = |n: &str| format!("{}/../pki/tests/data/{n}", env!("CARGO_MANIFEST_DIR"));
    let (signer, key) = (pki("signer.pem"), pki("signer.key"));
    let body: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
    let sign = ["cms", "-sign", "-signer", &signer, "-inkey", &key, "-certfile", &pem];
    let msg = ok(&run(&[&sign[..], &["-outform", "DER", "-nodetach"]].concat(), b"hi\n"));
    let listed = ok_text(&run(&["pkcs7", "-inform", "DER", "-print_certs"], &msg));
    assert!(listed.replace('\n', "").contains(&body), "{listed}");
    let export = [
        "pkcs12",
        "-export",
        "-in",
        &signer,
        "-inkey",
        &key,
        "-certfile",
        &pem,
        "-passout",
        "pass:x",
    ];
    let p12 = ok(&run(&export, b""));
    let out = ok_text(&run(&["pkcs12", "-nokeys", "-passin", "pass:x"], &p12));
    assert!(out.replace('\n', "").contains(&body), "{out}");
}
