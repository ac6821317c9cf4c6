//! `cryptocard crl` beside `openssl crl`: the text dump and the printing options of every
//! CRL of crates/pki/tests/data (made by OpenSSL, see its make-crls.sh) equal OpenSSL's
//! where it is installed, and hold the values OpenSSL printed for them where it is not;
//! conversion keeps the bytes; `-verify` tells a good signature from a bad one by its
//! exit status; bad input fails with one line.

mod common;

use common::*;
use std::path::PathBuf;

fn pki(name: &str) -> String {
    let p: PathBuf =
        [env!("CARGO_MANIFEST_DIR"), "..", "pki", "tests", "data", name].iter().collect();
    p.to_str().unwrap().to_string()
}

/// Every CRL of the test data, by path.
fn all_crls() -> Vec<String> {
    let dir: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "pki", "tests", "data"].iter().collect();
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("crl-") && n.ends_with(".pem"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 14, "{names:?}");
    names.iter().map(|n| pki(n)).collect()
}

/// `crl ARGS` here, and where installed `openssl crl ARGS` with the same stdout.
fn both(args: &[&str]) -> String {
    let mut all = vec!["crl"];
    all.extend_from_slice(args);
    let ours = ok_text(&run(&all, b""));
    if have_openssl("crl") {
        let theirs = String::from_utf8(openssl(&all, b"")).unwrap();
        assert_eq!(ours, theirs, "crl {args:?}");
    }
    ours
}

#[test]
fn text_as_openssl_prints_it() {
    for crl in all_crls() {
        let text = both(&["-in", &crl, "-text", "-noout"]);
        assert!(text.starts_with("Certificate Revocation List (CRL):\n"), "{crl}: {text}");
        assert!(text.contains("\n    Signature Value:"), "{crl}");
    }
    let text = both(&["-in", &pki("crl-inter.pem"), "-text", "-noout"]);
    for line in [
        "        Version 2 (0x1)\n",
        "        Issuer: CN = cryptocard-test-intermediate\n",
        "        Last Update: Nov  1 00:00:00 2025 GMT\n",
        "        Next Update: Nov  1 00:00:00 2125 GMT\n",
        "    Serial Number: F5D572D4F097CCFB\n        Revocation Date: Nov  1 00:00:00 2025 GMT\n",
        "            X509v3 CRL Reason Code: \n                Key Compromise\n",
        "            X509v3 CRL Number: \n                1\n",
    ] {
        assert!(text.contains(line), "{line:?} not in {text}");
    }
    let text = both(&["-in", &pki("crl-inter-entries.pem"), "-text", "-noout"]);
    for line in [
        "                0x0100000000000000000000000000000000\n",
        "            Invalidity Date: \n                Jan  1 00:00:00 2024 GMT\n",
        "            Hold Instruction Code: \n                Hold Instruction Reject\n",
        "1F202122\\\n232425262728\n",
        "                Remove From CRL\n",
        "            X509v3 Issuer Alternative Name: \n                email:ca@example.com\n",
    ] {
        assert!(text.contains(line), "{line:?} not in {text}");
    }
    let text = both(&["-in", &pki("crl-inter-delta.pem"), "-text", "-noout"]);
    assert!(text.contains("            X509v3 Delta CRL Indicator: critical\n                7\n"));
    assert!(text.contains(
        "                Only Some Reasons:\n                  Key Compromise, Superseded\n"
    ));
    let text = both(&["-in", &pki("crl-root-v1.pem"), "-text", "-noout"]);
    assert!(
        text.contains("        Version 1 (0x0)\n") && text.contains("No Revoked Certificates.\n")
    );
    assert!(!text.contains("CRL extensions"));
    let text = both(&["-in", &pki("crl-inter-pss.pem"), "-text", "-noout"]);
    assert!(text.contains("        Signature Algorithm: rsassaPss        \n"));
}

#[test]
fn fields_print_in_the_order_given() {
    let crl = pki("crl-inter.pem");
    let args = [
        "-in",
        &crl,
        "-noout",
        "-issuer",
        "-crlnumber",
        "-hash",
        "-lastupdate",
        "-nextupdate",
        "-fingerprint",
        "-hash_old",
    ];
    let out = both(&args);
    let want = "issuer=CN = cryptocard-test-intermediate\n\
                crlNumber=0x01\n\
                issuer name hash=3e18eac5\n\
                lastUpdate=Nov  1 00:00:00 2025 GMT\n\
                nextUpdate=Nov  1 00:00:00 2125 GMT\n\
                SHA1 Fingerprint=D1:D2:BD:1D:8A:1E:D0:76:C0:90:7B:71:8C:92:36:6A:F8:AC:21:EF\n\
                issuer name old hash=4acac735\n";
    assert_eq!(out, want);
    let out = both(&["-in", &crl, "-noout", "-fingerprint", "-sha256", "-lastupdate"]);
    assert!(out.starts_with("SHA2-256 Fingerprint=F8:2B:21:F5:"), "{out}");
    assert!(out.ends_with("\nlastUpdate=Nov  1 00:00:00 2025 GMT\n"), "{out}");
    let out = both(&["-in", &pki("crl-root-v1.pem"), "-noout", "-crlnumber", "-nextupdate"]);
    assert_eq!(out, "crlNumber=<NONE>\nnextUpdate=Nov  1 00:00:00 2125 GMT\n");
}

#[test]
fn conversion_keeps_the_bytes() {
    let pem_path = pki("crl-inter-entries.pem");
    let pem = std::fs::read(&pem_path).unwrap();
    let dir = tempdir();
    let der_path = path(dir.path(), "crl.der");
    ok(&run(&["crl", "-in", &pem_path, "-outform", "DER", "-out", &der_path], b""));
    let der = std::fs::read(&der_path).unwrap();
    assert_eq!(der[0], 0x30);
    if have_openssl("conversion_keeps_the_bytes") {
        assert_eq!(der, openssl(&["crl", "-in", &pem_path, "-outform", "DER"], b""));
    }
    // Back to PEM, by content or with -inform DER, from a file or stdin.
    assert_eq!(ok(&run(&["crl", "-in", &der_path], b"")), pem);
    assert_eq!(ok(&run(&["crl", "-inform", "DER"], &der)), pem);
    // -text goes with the CRL to -out.
    let out = path(dir.path(), "both.txt");
    ok(&run(&["crl", "-in", &der_path, "-text", "-out", &out], b""));
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.starts_with("Certificate Revocation List (CRL):\n"));
    assert!(written.ends_with(std::str::from_utf8(&pem).unwrap()));
    // DER read as PEM is no CRL.
    fails(&run(&["crl", "-in", &der_path, "-inform", "PEM", "-noout"], b""), 1, "CRL");
}

#[test]
fn verify_tells_good_signatures_from_bad() {
    let inter = pki("inter.pem");
    for crl in ["crl-inter.pem", "crl-inter-pss.pem", "crl-inter-entries.pem"] {
        let out = run(&["crl", "-in", &pki(crl), "-noout", "-CAfile", &inter], b"");
        ok(&out);
        assert_eq!(String::from_utf8_lossy(&out.stderr), "verify OK\n", "{crl}");
    }
    let root = pki("root.pem");
    let v1 = ["crl", "-in", &pki("crl-root-v1.pem"), "-verify", "-noout", "-CAfile", &root];
    let out = run(&v1, b"");
    assert!(ok(&out).is_empty());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "verify OK\n");
    // Nobody of the issuer's name among the trusted certificates.
    let wrong =
        run(&["crl", "-in", &pki("crl-inter.pem"), "-noout", "-CAfile", &pki("root.pem")], b"");
    fails(&wrong, 1, "Error getting CRL issuer certificate");
    // One bit of the signature flipped: a failure, and nothing written.
    let dir = tempdir();
    let der = ok(&run(&["crl", "-in", &pki("crl-inter.pem"), "-outform", "DER"], b""));
    let mut bad = der.clone();
    let at = bad.len() - 5;
    bad[at] ^= 1;
    let bad_path = path(dir.path(), "bad.crl");
    std::fs::write(&bad_path, &bad).unwrap();
    let out_path = path(dir.path(), "out.pem");
    let out = run(&["crl", "-in", &bad_path, "-CAfile", &inter, "-out", &out_path], b"");
    fails(&out, 1, "verify failure");
    assert_eq!(listing(dir.path()), ["bad.crl"]);
    // The same CRL, not verified, converts.
    ok(&run(&["crl", "-in", &bad_path, "-out", &out_path], b""));
}

#[test]
fn bad_input_fails_with_one_line() {
    let dir = tempdir();
    let der = ok(&run(&["crl", "-in", &pki("crl-inter.pem"), "-outform", "DER"], b""));
    for cut in [0, 1, 2, 10, der.len() / 2, der.len() - 1] {
        let p = path(dir.path(), "cut.crl");
        std::fs::write(&p, &der[..cut]).unwrap();
        fails(&run(&["crl", "-in", &p, "-noout"], b""), 1, "CRL");
    }
    let mut trailing = der.clone();
    trailing.push(0);
    fails(&run(&["crl", "-noout"], &trailing), 1, "could not read CRL");
    fails(&run(&["crl", "-noout"], b"junk\n"), 1, "could not read CRL");
    fails(&run(&["crl", "-in", &pki("root.pem"), "-noout"], b""), 1, "no CRL");
    fails(&run(&["crl", "-in", &path(dir.path(), "missing"), "-noout"], b""), 1, "missing");
    fails(&run(&["crl", "-outform", "XML"], &der), 1, "outform");
    fails(&run(&["crl", "-nosuchflag"], &der), 1, "nosuchflag");
}

/// A CRL of `cert::CrlBuilder`: OpenSSL verifies its signature, prints it as we do, and
/// revokes by it.
#[test]
fn openssl_reads_the_crls_we_make() {
    use cryptocard::rsa::RsaPrivateKey;
    use cryptocard_pki::cert::{self, CrlBuilder, CrlReason};
    use std::time::{Duration, SystemTime};
    let load = |name: &str| cert::cert_from_pem(&std::fs::read(pki(name)).unwrap()).unwrap();
    let key =
        RsaPrivateKey::from_pem(&std::fs::read_to_string(pki("inter.key")).unwrap(), None).unwrap();
    let now = SystemTime::now();
    let day = Duration::from_secs(86_400);
    let recipient = load("recipient.pem");
    let crl = CrlBuilder::new(now - day)
        .next_update(now + 7 * day)
        .number(42)
        .revoke(
            recipient.tbs_certificate().serial_number(),
            now - day,
            Some(CrlReason::CaCompromise),
        )
        .sign(&load("inter.pem"), &key)
        .unwrap();
    let dir = tempdir();
    let file = path(dir.path(), "ours.crl");
    std::fs::write(&file, crl.to_pem().unwrap()).unwrap();
    let text = both(&["-in", &file, "-text", "-noout"]);
    assert!(text.contains("                CA Compromise\n"), "{text}");
    assert_eq!(both(&["-in", &file, "-noout", "-crlnumber"]), "crlNumber=0x2A\n");
    if !have_openssl("openssl_reads_the_crls_we_make") {
        return;
    }
    let out = openssl_raw(&["crl", "-in", &file, "-noout", "-CAfile", &pki("inter.pem")], b"");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "verify OK\n");
    let args = [
        "verify",
        "-CAfile",
        &pki("root.pem"),
        "-untrusted",
        &pki("inter.pem"),
        "-crl_check",
        "-CRLfile",
        &file,
        &pki("recipient.pem"),
    ];
    let out = openssl_raw(&args, b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("error 23 at 0 depth lookup: certificate revoked")
    );
}
