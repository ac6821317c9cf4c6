//! `cms -verify -crl_check` and `-crl_check_all` beside `openssl cms`: the CRLs of a
//! `-CAfile` bundle and those a message carries (RFC 5652 section 10.2.1, which
//! `cryptocard_pki::cms::SignOptions::crls` writes) revoke a signer or its intermediate;
//! exit statuses and the failure's words agree with OpenSSL's where it is installed.

mod common;

use common::*;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::cert::{self, Certificate};
use cryptocard_pki::cms::{self, SignOptions, Signer};
use cryptocard_pki::sig::SigScheme;
use std::path::PathBuf;
use std::sync::Arc;

fn pki(name: &str) -> String {
    let p: PathBuf =
        [env!("CARGO_MANIFEST_DIR"), "..", "pki", "tests", "data", name].iter().collect();
    p.to_str().unwrap().to_string()
}

fn load(name: &str) -> Certificate {
    cert::cert_from_pem(&std::fs::read(pki(name)).unwrap()).unwrap()
}

/// A message signed by `who` (`signer` or `recipient`), the intermediate included, with
/// the CRLs of `crl_files`.
fn signed(who: &str, crl_files: &[&str]) -> Vec<u8> {
    let key = std::fs::read_to_string(pki(&format!("{who}.key"))).unwrap();
    let signer = Signer {
        key: Arc::new(RsaPrivateKey::from_pem(&key, None).unwrap()),
        cert: load(&format!("{who}.pem")),
        scheme: SigScheme::DEFAULT,
        by_key_id: false,
    };
    let crls = crl_files
        .iter()
        .flat_map(|f| cert::read_crls(&std::fs::read(pki(f)).unwrap()).unwrap())
        .collect();
    let opts = SignOptions {
        detached: false,
        extra_certs: vec![load("inter.pem")],
        crls,
        ..Default::default()
    };
    cms::sign(b"hello\n", &[signer], &opts).unwrap()
}

/// `cms -verify -inform DER ARGS` here and, where installed, by OpenSSL: the same exit
/// status, and `words` in both stderrs; returns our stderr.
fn both(msg: &str, args: &[&str], status: i32, words: &str) -> String {
    let mut all = vec!["cms", "-verify", "-inform", "DER", "-in", msg, "-out", "/dev/null"];
    all.extend_from_slice(args);
    let ours = run(&all, b"");
    let err = String::from_utf8_lossy(&ours.stderr).into_owned();
    assert_eq!(ours.status.code(), Some(status), "{all:?}: {err}");
    assert!(err.contains(words), "{all:?}: {err}");
    if have_openssl("cms -crl_check") {
        let theirs = openssl_raw(&all, b"");
        let their_err = String::from_utf8_lossy(&theirs.stderr);
        assert_eq!(theirs.status.code(), Some(status), "openssl {all:?}: {their_err}");
        assert!(their_err.contains(words), "openssl {all:?}: {their_err}");
    }
    err
}

#[test]
fn crls_of_the_cafile_and_of_the_message_revoke() {
    let dir = tempdir();
    let write = |name: &str, bytes: &[u8]| {
        let p = path(dir.path(), name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let read = |name: &str| std::fs::read(pki(name)).unwrap();
    let root = pki("root.pem");
    let bundle = write(
        "bundle.pem",
        &[read("root.pem"), read("crl-inter.pem"), read("crl-root.pem")].concat(),
    );
    let ok_words = "Verification successful";
    let revoked = "certificate revoked";
    // CRLs in the -CAfile bundle.
    let by_recipient = write("recipient.der", &signed("recipient", &[]));
    both(&by_recipient, &["-CAfile", &bundle], 0, ok_words);
    let err = both(&by_recipient, &["-CAfile", &bundle, "-crl_check"], 4, revoked);
    assert!(err.contains("depth 0: CN = cryptocard-test-recipient"), "{err}");
    both(&by_recipient, &["-CAfile", &root, "-crl_check"], 4, "unable to get certificate CRL");
    let by_signer = write("signer.der", &signed("signer", &[]));
    both(&by_signer, &["-CAfile", &bundle, "-crl_check"], 0, ok_words);
    let err = both(&by_signer, &["-CAfile", &bundle, "-crl_check_all"], 4, revoked);
    assert!(err.contains("depth 1: CN = cryptocard-test-intermediate"), "{err}");
    // CRLs in the message (a version 1 CRL among them): OpenSSL reads ours as we read
    // them.
    let carrying =
        write("carrying.der", &signed("recipient", &["crl-inter.pem", "crl-root-empty.pem"]));
    both(&carrying, &["-CAfile", &root], 0, ok_words);
    both(&carrying, &["-CAfile", &root, "-crl_check"], 4, revoked);
    let signer_carrying =
        write("s-carrying.der", &signed("signer", &["crl-inter-empty.pem", "crl-root-v1.pem"]));
    both(&signer_carrying, &["-CAfile", &root, "-crl_check_all"], 0, ok_words);
    // smime takes them too.
    let out = run(
        &["smime", "-verify", "-inform", "DER", "-in", &carrying, "-CAfile", &root, "-crl_check"],
        b"",
    );
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains(revoked));
}
