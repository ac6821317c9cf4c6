//! `cryptocard verify` beside `openssl verify`: the same arguments, the same stdout,
//! stderr and exit status, on paths that verify and on one path for each failure
//! `cert::PathFailure` names (but the chain length and the key sizes, which OpenSSL checks
//! otherwise). Where OpenSSL is not installed, the expected error line alone is checked.
//!
//! The root, intermediate and signer are crates/pki/tests/data's (made by OpenSSL, see
//! its make.sh); the faulty certificates are made here with cryptocard-pki, on the keys
//! of that directory.

mod common;

use common::paths::*;
use common::*;
use cryptocard::rsa::spki::der::Encode;
use cryptocard::rsa::spki::der::asn1::ObjectIdentifier as Oid;
use cryptocard_pki::cert::{self, CertBuilder, Certificate, Profile};
use std::time::{Duration, UNIX_EPOCH};

#[test]
fn paths_that_verify_print_ok_and_their_chain() {
    let (root, inter, signer) =
        (pki_path("root.pem"), pki_path("inter.pem"), pki_path("signer.pem"));
    let out = both(&["-CAfile", &root, "-untrusted", &inter, &signer], b"");
    assert_eq!(ok_text(&out), format!("{signer}: OK\n"));
    let out = both(&["-CAfile", &root, "-untrusted", &inter, "-show_chain", &signer], b"");
    assert_eq!(
        ok_text(&out),
        format!(
            "{signer}: OK\nChain:\ndepth=0: CN = cryptocard-test-signer (untrusted)\n\
             depth=1: CN = cryptocard-test-intermediate (untrusted)\n\
             depth=2: CN = cryptocard-test-root\n"
        )
    );
    // The intermediate from the store: trusted, and the path still goes to the root.
    let dir = tempdir();
    let store = write(dir.path(), "store.pem", &[&load("inter.pem"), &load("root.pem")]);
    let out = both(&["-CAfile", &store, "-show_chain", &signer], b"");
    assert!(ok_text(&out).ends_with(
        "depth=1: CN = cryptocard-test-intermediate\ndepth=2: CN = cryptocard-test-root\n"
    ));
    // A trust anchor verifies itself; stdin; several files.
    let out = both(&["-CAfile", &root, &root], b"");
    assert_eq!(ok_text(&out), format!("{root}: OK\n"));
    let out =
        both(&["-CAfile", &root, "-untrusted", &inter], &std::fs::read(pki("signer.pem")).unwrap());
    assert_eq!(ok_text(&out), "stdin: OK\n");
    let out = both(&["-CAfile", &root, &root, &inter], b"");
    assert_eq!(ok_text(&out), format!("{root}: OK\n{inter}: OK\n"));
    // Only the first certificate of a bundle is checked.
    let bundle = write(dir.path(), "bundle.pem", &[&load("inter.pem"), &load("other-root.pem")]);
    let out = both(&["-CAfile", &root, &bundle], b"");
    assert_eq!(ok_text(&out), format!("{bundle}: OK\n"));
}

#[test]
fn the_store_ends_paths_at_self_signed_anchors() {
    let (root, inter, signer) =
        (pki_path("root.pem"), pki_path("inter.pem"), pki_path("signer.pem"));
    let signer_name = "CN = cryptocard-test-signer";
    let inter_name = "CN = cryptocard-test-intermediate";
    fails_with(
        &["-CAfile", &root, &signer],
        signer_name,
        20,
        0,
        "unable to get local issuer certificate",
    );
    // A trusted intermediate is not an anchor without -partial_chain; OpenSSL words its
    // missing issuer apart.
    fails_with(&["-CAfile", &inter, &signer], inter_name, 2, 1, "unable to get issuer certificate");
    let out = both(&["-CAfile", &inter, "-partial_chain", &signer], b"");
    assert_eq!(ok_text(&out), format!("{signer}: OK\n"));
    // The leaf in the store is still the caller's.
    fails_with(
        &["-CAfile", &signer, &signer],
        signer_name,
        20,
        0,
        "unable to get local issuer certificate",
    );
    // Self-signed, untrusted: alone, and at the top of a path.
    let other = pki_path("other-root.pem");
    fails_with(
        &["-CAfile", &other, &root],
        "CN = cryptocard-test-root",
        18,
        0,
        "self-signed certificate",
    );
    let dir = tempdir();
    let pool = write(dir.path(), "pool.pem", &[&load("inter.pem"), &load("root.pem")]);
    fails_with(
        &["-CAfile", &other, "-untrusted", &pool, &signer],
        "CN = cryptocard-test-root",
        19,
        2,
        "self-signed certificate in certificate chain",
    );
    // No store at all.
    fails_with(
        &["-no-CAfile", &root],
        "CN = cryptocard-test-root",
        18,
        0,
        "self-signed certificate",
    );
}

#[test]
fn each_fault_is_reported_as_openssl_reports_it() {
    let dir = tempdir();
    let d = dir.path();
    let (root, root_key) = (load("root.pem"), key("root.key"));
    let (inter, inter_key) = (load("inter.pem"), key("inter.key"));
    let (signer, signer_key) = (load("signer.pem"), key("signer.key"));
    let leaf_key = key("recipient.key");
    let root_p = pki_path("root.pem");
    let leaf = |build: &dyn Fn(CertBuilder) -> CertBuilder| {
        make(
            "/CN=faulty leaf",
            &leaf_key,
            |b| build(b.profile(Profile::Leaf)),
            Some((&inter, &inter_key)),
        )
    };
    let inter_p = pki_path("inter.pem");
    let with_inter = |name: &str, c: &Certificate| {
        let p = write(d, name, &[c]);
        vec!["-CAfile".to_string(), root_p.clone(), "-untrusted".into(), inter_p.clone(), p]
    };

    // Validity: a leaf that expired in 2000, and -attime before the root was made.
    let old = UNIX_EPOCH + Duration::from_secs(946_684_800 - 10 * 86_400);
    let expired = leaf(&|b| b.not_before(old).days(5));
    let args = with_inter("expired.pem", &expired);
    fails_with(&strs(&args), "CN = faulty leaf", 10, 0, "certificate has expired");
    // ... not counted with -no_check_time.
    let mut unchecked = vec!["-no_check_time"];
    unchecked.extend(strs(&args));
    assert!(ok_text(&both(&unchecked, b"")).ends_with(": OK\n"));
    // (OpenSSL's options end at the first file.)
    let fine = with_inter("fine.pem", &leaf(&|b| b));
    let mut args = vec!["-attime", "86400"];
    args.extend(strs(&fine));
    fails_with(&args, "CN = cryptocard-test-root", 9, 2, "certificate is not yet valid");

    // OpenSSL goes on past an expired certificate: every one of the path is reported, the
    // anchor first; and past an untrusted self-signed leaf.
    let mut args = vec!["-attime", "7258118400"];
    args.extend(strs(&fine));
    let out = both(&args, b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("certificate has expired").count(), 3, "{err}");
    assert!(err.starts_with("CN = cryptocard-test-root\nerror 10 at 2 depth lookup"), "{err}");
    let lone = make("/CN=old self-signed", &leaf_key, |b| b.not_before(old).days(5), None);
    let p = write(d, "lone.pem", &[&lone]);
    let out = both(&["-CAfile", &root_p, &p], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error 18 at 0 depth lookup: self-signed certificate\n"), "{err}");
    assert!(err.contains("error 10 at 0 depth lookup: certificate has expired\n"), "{err}");

    // An unknown critical extension, and a purpose the leaf is not for.
    let critical = leaf(&|b| b.extension(ext("1.2.3.4.5", true, vec![0x05, 0x00])));
    let args = with_inter("critical.pem", &critical);
    fails_with(&strs(&args), "CN = faulty leaf", 34, 0, "unhandled critical extension");
    // ... let by with -ignore_critical.
    let mut ignored = vec!["-ignore_critical"];
    ignored.extend(strs(&args));
    assert!(ok_text(&both(&ignored, b"")).ends_with(": OK\n"));
    // extendedKeyUsage serverAuth (RFC 5280 4.2.1.12).
    let server = Oid::new_unwrap("1.3.6.1.5.5.7.3.1");
    let tls = leaf(&|b| b.extension(ext("2.5.29.37", false, vec![server].to_der().unwrap())));
    let tls = with_inter("tls.pem", &tls);
    let out = both(&strs(&tls), b"");
    assert!(ok_text(&out).ends_with(": OK\n"));
    let mut args = vec!["-purpose", "smimesign"];
    args.extend(strs(&tls));
    fails_with(&args, "CN = faulty leaf", 26, 0, "unsuitable certificate purpose");

    // TLS purposes: the serverAuth leaf is a server's, not a client's; a leaf whose
    // keyUsage allows no TLS key exchange; a CA restricted to email certifies no server.
    let mut args = vec!["-purpose", "sslserver"];
    args.extend(strs(&tls));
    assert!(ok_text(&both(&args, b"")).ends_with(": OK\n"));
    let mut args = vec!["-purpose", "sslclient"];
    args.extend(strs(&tls));
    fails_with(&args, "CN = faulty leaf", 26, 0, "unsuitable certificate purpose");
    let cert_sign_only = ext("2.5.29.15", true, vec![0x03, 0x02, 0x02, 0x04]);
    let signing = leaf(&|b| b.extension(cert_sign_only.clone()));
    let signing = with_inter("signing.pem", &signing);
    let mut args = vec!["-purpose", "sslserver"];
    args.extend(strs(&signing));
    fails_with(&args, "CN = faulty leaf", 26, 0, "unsuitable certificate purpose");
    let email = Oid::new_unwrap("1.3.6.1.5.5.7.3.4");
    let email_ca = make(
        "/CN=email CA",
        &key("ca.key.pem"),
        |b| {
            b.profile(Profile::Ca).extension(ext("2.5.29.37", false, vec![email].to_der().unwrap()))
        },
        Some((&root, &root_key)),
    );
    let server_leaf = make(
        "/CN=server leaf",
        &leaf_key,
        |b| {
            b.profile(Profile::Leaf).extension(ext(
                "2.5.29.37",
                false,
                vec![server].to_der().unwrap(),
            ))
        },
        Some((&email_ca, &key("ca.key.pem"))),
    );
    let pool = write(d, "email-ca.pem", &[&email_ca]);
    let p = write(d, "server-leaf.pem", &[&server_leaf]);
    let args = ["-purpose", "sslserver", "-CAfile", &root_p, "-untrusted", &pool, &p];
    fails_with(&args, "CN = email CA", 26, 1, "unsuitable certificate purpose");

    // An issuer that is no CA (the signer, basicConstraints CA:FALSE).
    let under_signer = make(
        "/CN=faulty leaf",
        &leaf_key,
        |b| b.profile(Profile::Leaf),
        Some((&signer, &signer_key)),
    );
    let pool = write(d, "pool.pem", &[&inter, &signer]);
    let p = write(d, "under-signer.pem", &[&under_signer]);
    fails_with(
        &["-CAfile", &root_p, "-untrusted", &pool, &p],
        "CN = cryptocard-test-signer",
        79,
        1,
        "invalid CA certificate",
    );

    // A CA with pathLenConstraint 0 above another CA: basicConstraints cA TRUE,
    // pathLenConstraint 0 (RFC 5280 4.2.1.9).
    let bc0 = ext("2.5.29.19", true, vec![0x30, 0x06, 0x01, 0x01, 0xff, 0x02, 0x01, 0x00]);
    let ca0 = make(
        "/CN=pathlen0 CA",
        &key("ca.key.pem"),
        |b| b.profile(Profile::Ca).extension(bc0),
        Some((&root, &root_key)),
    );
    let sub = make(
        "/CN=sub CA",
        &inter_key,
        |b| b.profile(Profile::Ca),
        Some((&ca0, &key("ca.key.pem"))),
    );
    let deep =
        make("/CN=faulty leaf", &leaf_key, |b| b.profile(Profile::Leaf), Some((&sub, &inter_key)));
    let pool = write(d, "pool0.pem", &[&ca0, &sub]);
    let p = write(d, "deep.pem", &[&deep]);
    fails_with(
        &["-CAfile", &root_p, "-untrusted", &pool, &p],
        "CN = pathlen0 CA",
        25,
        2,
        "path length constraint exceeded",
    );

    // A signature by another key under the root's name: v1 certificates name no key
    // identifiers, so the root is the candidate and its signature check fails.
    let impostor = make("/CN=cryptocard-test-root", &leaf_key, |b| b.profile(Profile::V1), None);
    let forged = make(
        "/CN=forged leaf",
        &signer_key,
        |b| b.profile(Profile::V1),
        Some((&impostor, &leaf_key)),
    );
    let p = write(d, "forged.pem", &[&forged]);
    fails_with(
        &["-CAfile", &root_p, &p],
        "CN = forged leaf",
        7,
        0,
        "certificate signature failure",
    );
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn bad_input_and_options_fail_cleanly() {
    let dir = tempdir();
    let root = pki_path("root.pem");
    let garbage = path(dir.path(), "garbage.pem");
    std::fs::write(&garbage, b"not a certificate\n").unwrap();
    let missing = path(dir.path(), "missing.pem");
    // A certificate that cannot be read fails that file, not the others: status 2.
    let out = both_but(&["-CAfile", &root, &root, &missing], b"", false);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{root}: OK\n"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with(&format!("Could not read certificate from {missing}: ")), "{err}");
    let out = cc().args(["verify", "-CAfile", &root, &garbage]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with(&format!("Could not read certificate from {garbage}: ")), "{err}");
    assert!(err.ends_with("\nUnable to load certificate file\n"), "{err}");
    // A store or option that cannot be used: status 1, nothing verified.
    for args in [
        vec!["-CAfile", missing.as_str(), root.as_str()],
        vec!["-CAfile", garbage.as_str(), root.as_str()],
        vec!["-CAfile", &root, "-untrusted", &missing, &root],
        vec!["-CAfile", &root, "-purpose", "codesign", &root],
        vec!["-CAfile", &root, "-attime", "soon", &root],
        vec!["-bogus"],
    ] {
        let mut full = vec!["verify"];
        full.extend(&args);
        let out = cc().args(&full).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn without_cafile_the_system_roots_are_the_store() {
    let (root, inter, signer) =
        (pki_path("root.pem"), pki_path("inter.pem"), pki_path("signer.pem"));
    let run = |extra: &[&str]| {
        cc().args(["verify", "-untrusted", &inter])
            .args(extra)
            .arg(&signer)
            .env("SSL_CERT_FILE", &root)
            .output()
            .unwrap()
    };
    assert_eq!(ok_text(&run(&[])), format!("{signer}: OK\n"));
    let out = run(&["-no-CAfile"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error 20 at 1 depth lookup"), "{err}");
}

#[test]
fn host_names_are_checked_as_openssl_checks_them() {
    let dir = tempdir();
    let d = dir.path();
    let (inter, inter_key) = (load("inter.pem"), key("inter.key"));
    let leaf_key = key("recipient.key");
    let (root_p, inter_p) = (pki_path("root.pem"), pki_path("inter.pem"));
    let issue = |name: &str, subject: &str, san: Option<&str>, old: bool| {
        let c = make(
            subject,
            &leaf_key,
            |b| {
                let b = b.profile(Profile::Leaf);
                let b = match san {
                    Some(spec) => b.extension(cert::subject_alt_name(spec).unwrap()),
                    None => b,
                };
                if old {
                    b.not_before(UNIX_EPOCH + Duration::from_secs(946_684_800)).days(5)
                } else {
                    b
                }
            },
            Some((&inter, &inter_key)),
        );
        write(d, name, &[&c])
    };
    // The names are the subjectAltName's; the commonName counts only without them.
    let san = issue(
        "san.pem",
        "/CN=cn.example.net",
        Some("DNS:*.example.com,DNS:www.example.org"),
        false,
    );
    let cn = issue("cn.pem", "/CN=cn.example.net", None, false);
    let check = |host: &str, file: &str| {
        let args = ["-CAfile", &root_p, "-untrusted", &inter_p, "-verify_hostname", host, file];
        both(&args, b"")
    };
    for (host, file) in [
        ("a.example.com", &san),
        ("A.EXAMPLE.com", &san),
        ("www.example.org", &san),
        ("cn.example.net", &cn),
        ("CN.example.NET", &cn),
    ] {
        assert_eq!(ok_text(&check(host, file)), format!("{file}: OK\n"), "{host}");
    }
    for (host, file, subject) in [
        ("b.a.example.com", &san, "CN = cn.example.net"),
        ("example.com", &san, "CN = cn.example.net"),
        ("cn.example.net", &san, "CN = cn.example.net"),
        ("www.example.net", &cn, "CN = cn.example.net"),
    ] {
        let args = ["-CAfile", &root_p, "-untrusted", &inter_p, "-verify_hostname", host, file];
        fails_with(&args, subject, 62, 0, "hostname mismatch");
    }
    // The name is checked before validity, and stops the checks.
    let old = issue("old.pem", "/CN=old.example.net", None, true);
    let args =
        ["-CAfile", &root_p, "-untrusted", &inter_p, "-verify_hostname", "x.example.net", &old];
    let out = both(&args, b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error 62 at 0") && !err.contains("expired"), "{err}");
}

#[test]
fn email_and_ip_addresses_are_checked_as_openssl_checks_them() {
    let dir = tempdir();
    let d = dir.path();
    let (inter, inter_key) = (load("inter.pem"), key("inter.key"));
    let (root_p, inter_p) = (pki_path("root.pem"), pki_path("inter.pem"));
    let issue = |name: &str, subject: &str, san: Option<&str>| {
        let build = |b: CertBuilder| match san {
            Some(spec) => b.profile(Profile::Leaf).extension(cert::subject_alt_name(spec).unwrap()),
            None => b.profile(Profile::Leaf),
        };
        let c = make(subject, &key("recipient.key"), build, Some((&inter, &inter_key)));
        write(d, name, &[&c])
    };
    // The addresses are the subjectAltName's; the subject's emailAddress counts only
    // without rfc822Name entries.
    let san = issue(
        "san.pem",
        "/CN=leaf/emailAddress=subject@example.net",
        Some("email:User@Example.com,IP:10.1.2.3,IP:2001:db8::1,DNS:www.example.com"),
    );
    let subject = issue("subject.pem", "/CN=leaf/emailAddress=subject@example.net", None);
    let check = |flag: &str, value: &str, file: &str| {
        both(&["-CAfile", &root_p, "-untrusted", &inter_p, flag, value, file], b"")
    };
    for (flag, value, file) in [
        ("-verify_email", "User@example.COM", &san),
        ("-verify_email", "subject@EXAMPLE.net", &subject),
        ("-verify_ip", "10.1.2.3", &san),
        ("-verify_ip", "2001:DB8:0::1", &san),
    ] {
        assert_eq!(ok_text(&check(flag, value, file)), format!("{file}: OK\n"), "{value}");
    }
    for (flag, value, file, code, words) in [
        ("-verify_email", "user@example.com", &san, 63, "email address mismatch"),
        ("-verify_email", "subject@example.net", &san, 63, "email address mismatch"),
        ("-verify_email", "other@example.net", &subject, 63, "email address mismatch"),
        ("-verify_ip", "10.1.2.4", &san, 64, "IP address mismatch"),
        ("-verify_ip", "::ffff:10.1.2.3", &san, 64, "IP address mismatch"),
        ("-verify_ip", "10.1.2.3", &subject, 64, "IP address mismatch"),
    ] {
        let args = ["-CAfile", &root_p, "-untrusted", &inter_p, flag, value, file];
        let subject = "CN = leaf, emailAddress = subject@example.net";
        fails_with(&args, subject, code, 0, words);
    }
    // The email address is checked before the IP address, and stops the checks.
    let args = [
        "-CAfile",
        &root_p,
        "-untrusted",
        &inter_p,
        "-verify_ip",
        "10.9.9.9",
        "-verify_email",
        "x@example.com",
        &san,
    ];
    let out = both(&args, b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error 63 at 0") && !err.contains("error 64"), "{err}");
    // An address that is none fails the options: status 1.
    let out =
        cc().args(["verify", "-CAfile", &root_p, "-verify_ip", "10.1.2", &san]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an IP address"));
}

#[test]
fn a_hashed_directory_is_a_store() {
    let dir = tempdir();
    let d = dir.path();
    let (inter, signer) = (pki_path("inter.pem"), pki_path("signer.pem"));
    let hash = |file: &str| {
        ok_text(&cc().args(["x509", "-in", file, "-noout", "-hash"]).output().unwrap())
            .trim()
            .to_string()
    };
    let root_hash = hash(&pki_path("root.pem"));
    let store = d.join("store");
    std::fs::create_dir(&store).unwrap();
    std::fs::copy(pki("root.pem"), store.join(format!("{root_hash}.0"))).unwrap();
    // Passed over: a file that is no certificate, one named for another hash, one not
    // named for a hash at all.
    std::fs::write(store.join(format!("{root_hash}.1")), b"junk").unwrap();
    std::fs::copy(pki("other-root.pem"), store.join("00000000.0")).unwrap();
    std::fs::copy(pki("other-root.pem"), store.join("other.pem")).unwrap();
    let store = store.to_str().unwrap().to_string();
    let out = both(&["-CApath", &store, "-untrusted", &inter, "-show_chain", &signer], b"");
    assert!(ok_text(&out).ends_with("depth=2: CN = cryptocard-test-root\n"));
    // The root under a name that is not its hash is not found.
    std::fs::rename(
        format!("{store}/{root_hash}.0"),
        format!("{store}/{}.0", if root_hash == "deadbeef" { "feedface" } else { "deadbeef" }),
    )
    .unwrap();
    fails_with(
        &["-CApath", &store, "-untrusted", &inter, &signer],
        "CN = cryptocard-test-intermediate",
        20,
        1,
        "unable to get local issuer certificate",
    );
    let out = cc().args(["verify", "-CApath", "/nonexistent", &signer]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// Revocation by `-CRLfile` under `-crl_check` and `-crl_check_all`, beside OpenSSL, on
/// the CRLs of crates/pki/tests/data (made by OpenSSL's `ca -gencrl`, see make-crls.sh),
/// and a tampered one.
#[test]
fn crls_are_checked_as_openssl_checks_them() {
    let (root, inter) = (pki_path("root.pem"), pki_path("inter.pem"));
    let (signer, recipient) = (pki_path("signer.pem"), pki_path("recipient.pem"));
    let crl = |name: &str| pki_path(&format!("crl-{name}.pem"));
    let args = |check: &str, crls: &[String], leaf: &str| -> Vec<String> {
        let mut v = vec!["-CAfile".into(), root.clone(), "-untrusted".into(), inter.clone()];
        v.push(format!("-{check}"));
        for c in crls {
            v.extend(["-CRLfile".to_string(), c.clone()]);
        }
        v.push(leaf.to_string());
        v
    };
    let run = |check: &str, crls: &[String], leaf: &str| both(&strs(&args(check, crls, leaf)), b"");
    // Not revoked, and every certificate covered: OK.
    let out = run("crl_check_all", &[crl("inter"), crl("root-empty")], &signer);
    assert_eq!(ok_text(&out), format!("{signer}: OK\n"));
    // -CRLfile alone checks nothing.
    let plain = ["-CAfile", &root, "-untrusted", &inter, "-CRLfile", &crl("inter"), &recipient];
    assert_eq!(ok_text(&both(&plain, b"")), format!("{recipient}: OK\n"));
    let leaf_subject = "CN = cryptocard-test-recipient";
    let inter_subject = "CN = cryptocard-test-intermediate";
    let signer_subject = "CN = cryptocard-test-signer";
    // Each fault: the check, the CRL files, the leaf; then OpenSSL's subject, number,
    // depth and words.
    let fault = |check: &str, crls: &[&str], leaf: &str, want: (&str, u32, usize, &str)| {
        let crls: Vec<String> = crls.iter().map(|c| crl(c)).collect();
        fails_with(&strs(&args(check, &crls, leaf)), want.0, want.1, want.2, want.3);
    };
    let revoked = "certificate revoked";
    let no_crl = "unable to get certificate CRL";
    let scope = "different CRL scope";
    fault("crl_check", &["inter"], &recipient, (leaf_subject, 23, 0, revoked));
    fault("crl_check_all", &["inter", "root"], &signer, (inter_subject, 23, 1, revoked));
    fault("crl_check_all", &["inter"], &signer, (inter_subject, 3, 1, no_crl));
    fault("crl_check", &[], &signer, (signer_subject, 3, 0, no_crl));
    fault("crl_check", &["inter-expired"], &signer, (signer_subject, 12, 0, "CRL has expired"));
    let not_yet = "CRL is not yet valid";
    fault("crl_check", &["inter-future"], &signer, (signer_subject, 11, 0, not_yet));
    // A CRL's unhandled critical extension is let by with -ignore_critical, as the
    // certificates' are.
    let mut a = args("crl_check", &[crl("inter-critical")], &signer);
    a.insert(0, "-ignore_critical".into());
    let out = both(&strs(&a), b"");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("error 36"));
    // CRLs' times are not checked with -no_check_time either.
    for stale in ["inter-expired", "inter-future"] {
        let mut a = args("crl_check", &[crl(stale)], &signer);
        a.insert(0, "-no_check_time".into());
        assert_eq!(ok_text(&both(&strs(&a), b"")), format!("{signer}: OK\n"), "{stale}");
    }
    let critical = "unhandled critical CRL extension";
    fault("crl_check", &["inter-critical"], &signer, (signer_subject, 36, 0, critical));
    fault("crl_check", &["inter-onlyca"], &recipient, (leaf_subject, 44, 0, scope));
    fault("crl_check", &["inter-point"], &recipient, (leaf_subject, 44, 0, scope));
    fault("crl_check", &["inter-onlyuser"], &recipient, (leaf_subject, 23, 0, revoked));
    // A delta CRL is not a complete one; a PSS-signed CRL is read as any other.
    fault("crl_check", &["inter-delta"], &signer, (signer_subject, 3, 0, no_crl));
    fault("crl_check", &["inter-pss"], &recipient, (leaf_subject, 23, 0, revoked));
    // A version 1 CRL (no extensions, so no key identifier) covers the intermediate.
    let v1 = run("crl_check_all", &[crl("inter-empty"), crl("root-v1")], &signer);
    assert_eq!(ok_text(&v1), format!("{signer}: OK\n"));
    // A CRL whose signature does not verify (a bit of it flipped), in DER.
    let dir = tempdir();
    let der = cert::read_crls(&std::fs::read(crl("inter")).unwrap()).unwrap()[0].to_der().to_vec();
    let mut bad = der.clone();
    let at = bad.len() - 5;
    bad[at] ^= 1;
    let bad_path = path(dir.path(), "bad.crl");
    std::fs::write(&bad_path, &bad).unwrap();
    fails_with(
        &strs(&args("crl_check", &[bad_path], &recipient)),
        leaf_subject,
        8,
        0,
        "CRL signature failure",
    );
    let good_path = path(dir.path(), "good.crl");
    std::fs::write(&good_path, &der).unwrap();
    fails_with(
        &strs(&args("crl_check", &[good_path], &recipient)),
        leaf_subject,
        23,
        0,
        "certificate revoked",
    );
    // A -CRLfile that is not a CRL fails the command (status 1), whatever the checks.
    let not_crl = ["-CAfile", &root, "-crl_check", "-CRLfile", &root, &signer];
    fails(&run_plain(&not_crl), 1, "no CRL in the file");
    let garbage = path(dir.path(), "garbage.crl");
    std::fs::write(&garbage, b"\x30\x03\x02\x01").unwrap();
    fails(&run_plain(&["-crl_check", "-CRLfile", &garbage, &signer]), 1, "-CRLfile");
}

/// `cryptocard verify ARGS` alone.
fn run_plain(args: &[&str]) -> std::process::Output {
    let mut all = vec!["verify"];
    all.extend_from_slice(args);
    run(&all, b"")
}

/// CRLs where OpenSSL's store also finds them: the `X509 CRL` blocks of a `-CAfile`, and
/// the `HASH.rN` files of a `-CApath` (named for the issuer's name hash, as `openssl
/// rehash` names them).
#[test]
fn crls_beside_the_trusted_certificates_count() {
    let dir = tempdir();
    let d = dir.path();
    let (inter, signer) = (pki_path("inter.pem"), pki_path("signer.pem"));
    let recipient = pki_path("recipient.pem");
    let read = |name: &str| std::fs::read(pki(name)).unwrap();
    // A bundle of the root and both CRLs: the recipient is revoked, and so is the
    // intermediate under -crl_check_all.
    let bundle = path(d, "bundle.pem");
    std::fs::write(
        &bundle,
        [read("root.pem"), read("crl-inter.pem"), read("crl-root.pem")].concat(),
    )
    .unwrap();
    let revoked = "certificate revoked";
    let args = ["-CAfile", &bundle, "-untrusted", &inter, "-crl_check", &recipient];
    fails_with(&args, "CN = cryptocard-test-recipient", 23, 0, revoked);
    let args = ["-CAfile", &bundle, "-untrusted", &inter, "-crl_check_all", &signer];
    fails_with(&args, "CN = cryptocard-test-intermediate", 23, 1, revoked);
    // Without -crl_check they are not consulted.
    let args = ["-CAfile", &bundle, "-untrusted", &inter, &recipient];
    assert_eq!(ok_text(&both(&args, b"")), format!("{recipient}: OK\n"));
    // A hashed directory: the root, the intermediate's CRL and the root's empty one.
    let store = d.join("store");
    std::fs::create_dir(&store).unwrap();
    let hash = |file: &str, what: &str| {
        let out = cc().args([what, "-in", &pki_path(file), "-noout", "-hash"]).output().unwrap();
        ok_text(&out).trim().rsplit('=').next().unwrap().to_string()
    };
    std::fs::write(store.join(format!("{}.0", hash("root.pem", "x509"))), read("root.pem"))
        .unwrap();
    let inter_crl = format!("{}.r0", hash("crl-inter.pem", "crl"));
    std::fs::write(store.join(&inter_crl), read("crl-inter.pem")).unwrap();
    let root_crl = format!("{}.r0", hash("crl-root-empty.pem", "crl"));
    std::fs::write(store.join(&root_crl), read("crl-root-empty.pem")).unwrap();
    let store = store.to_str().unwrap().to_string();
    let args = ["-CApath", &store, "-untrusted", &inter, "-crl_check_all", &signer];
    assert_eq!(ok_text(&both(&args, b"")), format!("{signer}: OK\n"));
    let args = ["-CApath", &store, "-untrusted", &inter, "-crl_check", &recipient];
    fails_with(&args, "CN = cryptocard-test-recipient", 23, 0, revoked);
    // A CRL under a name that is not its issuer's hash is not found.
    std::fs::rename(format!("{store}/{inter_crl}"), format!("{store}/00000000.r0")).unwrap();
    let args = ["-CApath", &store, "-untrusted", &inter, "-crl_check", &recipient];
    fails_with(&args, "CN = cryptocard-test-recipient", 3, 0, "unable to get certificate CRL");
}
