//! `pkcs7` and `crl2pkcs7` beside OpenSSL's: certs-only bundles (`.p7b`) made byte for
//! byte as `openssl crl2pkcs7` makes them, and printed (`-print_certs`, with `-text` and
//! `-noout`) as `openssl pkcs7` prints them, from our bundles, OpenSSL's and signed
//! messages; bad input fails with one line.

mod common;

use common::*;
use std::path::PathBuf;

fn pki(name: &str) -> String {
    let p: PathBuf =
        [env!("CARGO_MANIFEST_DIR"), "..", "pki", "tests", "data", name].iter().collect();
    p.to_str().unwrap().to_string()
}

/// `ARGS` here and, where installed, by OpenSSL, with the same stdout; returns ours.
fn both(args: &[&str]) -> Vec<u8> {
    let ours = ok(&run(args, b""));
    if have_openssl("pkcs7") {
        assert_eq!(ours, openssl(args, b""), "{args:?}");
    }
    ours
}

#[test]
fn bundles_are_made_and_printed_as_openssl_does() {
    let dir = tempdir();
    let (inter, root, crl) = (pki("inter.pem"), pki("root.pem"), pki("crl-inter.pem"));
    let p7b = both(&["crl2pkcs7", "-in", &crl, "-certfile", &inter, "-certfile", &root]);
    assert!(p7b.starts_with(b"-----BEGIN PKCS7-----\n"));
    let file = path(dir.path(), "bundle.p7b");
    std::fs::write(&file, &p7b).unwrap();
    let listed =
        String::from_utf8(both(&["pkcs7", "-in", &file, "-print_certs", "-noout"])).unwrap();
    let want = "subject=CN = cryptocard-test-intermediate\nissuer=CN = cryptocard-test-root\n\n\
                subject=CN = cryptocard-test-root\nissuer=CN = cryptocard-test-root\n\n\
                Certificate Revocation List (CRL):\n";
    assert!(listed.starts_with(want), "{listed}");
    assert!(listed.ends_with("\n\n") && !listed.contains("No Revoked"));
    // With the PEM of each, and in full (names in OpenSSL's older form there).
    let with_pem = String::from_utf8(both(&["pkcs7", "-in", &file, "-print_certs"])).unwrap();
    assert_eq!(with_pem.matches("-----BEGIN CERTIFICATE-----").count(), 2);
    assert_eq!(with_pem.matches("-----BEGIN X509 CRL-----").count(), 1);
    let full = String::from_utf8(both(&["pkcs7", "-in", &file, "-print_certs", "-text"])).unwrap();
    assert!(full.contains("        Issuer: CN=cryptocard-test-root\n"), "{full}");
    // DER both ways, the bytes kept; certificates only.
    let der = both(&["pkcs7", "-in", &file, "-outform", "DER"]);
    let der_file = path(dir.path(), "bundle.der");
    std::fs::write(&der_file, &der).unwrap();
    assert_eq!(both(&["pkcs7", "-in", &der_file, "-inform", "DER"]), p7b);
    let certs_only =
        both(&["crl2pkcs7", "-nocrl", "-certfile", &pki("signer.pem"), "-outform", "DER"]);
    let only = path(dir.path(), "only.der");
    std::fs::write(&only, &certs_only).unwrap();
    let listed = both(&["pkcs7", "-in", &only, "-inform", "DER", "-print_certs", "-noout"]);
    assert_eq!(
        listed,
        b"subject=CN = cryptocard-test-signer\nissuer=CN = cryptocard-test-intermediate\n\n"
    );
}

#[test]
fn signed_messages_give_their_certificates() {
    let dir = tempdir();
    let msg = ok(&run(
        &[
            "cms",
            "-sign",
            "-signer",
            &pki("signer.pem"),
            "-inkey",
            &pki("signer.key"),
            "-certfile",
            &pki("inter.pem"),
            "-outform",
            "DER",
            "-nodetach",
        ],
        b"hello\n",
    ));
    let file = path(dir.path(), "signed.der");
    std::fs::write(&file, &msg).unwrap();
    let listed = String::from_utf8(both(&[
        "pkcs7",
        "-inform",
        "DER",
        "-in",
        &file,
        "-print_certs",
        "-noout",
    ]))
    .unwrap();
    assert!(listed.contains("subject=CN = cryptocard-test-signer\n"), "{listed}");
    assert!(listed.contains("subject=CN = cryptocard-test-intermediate\n"), "{listed}");
}

#[test]
fn bad_input_fails_with_one_line() {
    let dir = tempdir();
    fails(&run(&["pkcs7", "-noout"], b"junk\n"), 1, "could not read PKCS7");
    fails(&run(&["pkcs7", "-inform", "DER", "-noout"], b"\x30\x03\x02\x01\x01"), 1, "PKCS7");
    // An enveloped message is no SignedData.
    let env = ok(&run(&["cms", "-encrypt", "-outform", "DER", &pki("recipient.pem")], b"x"));
    fails(&run(&["pkcs7", "-inform", "DER", "-print_certs"], &env), 1, "SignedData");
    let der =
        ok(&run(&["crl2pkcs7", "-nocrl", "-certfile", &pki("root.pem"), "-outform", "DER"], b""));
    for cut in [1, 10, der.len() / 2, der.len() - 1] {
        fails(&run(&["pkcs7", "-inform", "DER", "-print_certs"], &der[..cut]), 1, "PKCS7");
    }
    fails(
        &run(&["crl2pkcs7", "-nocrl", "-certfile", &path(dir.path(), "missing")], b""),
        1,
        "missing",
    );
    fails(&run(&["crl2pkcs7", "-certfile", &pki("root.pem")], b"junk"), 1, "CRL");
}
