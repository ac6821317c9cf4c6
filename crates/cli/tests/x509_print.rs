//! `x509`'s printing options beyond the text dump, and `req -modulus`: email addresses,
//! OCSP responders, the OCSP hashes, the purposes, `-certopt`, the next serial, ISO 8601 dates, the host, email
//! and IP checks, `-nocert`, and the order OpenSSL prints them in (an option given twice
//! prints once, where it was last given). Against fixed expectations and, where
//! `openssl` is installed, beside it.

mod common;
use common::*;
use std::path::Path;

/// A certificate with emails in its subject and subjectAltName (one of them in both),
/// two OCSP responders among its authorityInfoAccess, a DNS name and an IP address.
fn cert_with_contacts(dir: &Path, serial: &str) -> String {
    let out = path(dir, &format!("c{serial}.pem"));
    let key = data("rsa2048.pem");
    let args = [
        "req",
        "-new",
        "-x509",
        "-key",
        key.to_str().unwrap(),
        "-subj",
        "/CN=t/emailAddress=a@b.example",
        "-addext",
        "subjectAltName=email:c@d.example,email:a@b.example,DNS:t.example,IP:10.0.0.1",
        "-addext",
        "authorityInfoAccess=OCSP;URI:http://ocsp.example/,caIssuers;URI:http://ca.example/c,\
         OCSP;URI:http://ocsp2.example/",
        "-set_serial",
        serial,
        "-out",
        &out,
    ];
    ok(&run(&args, b""));
    out
}

fn x509(cert: &str, args: &[&str]) -> String {
    ok_text(&run(&[&["x509", "-in", cert][..], args].concat(), b""))
}

#[test]
fn contacts_serials_and_checks() {
    let dir = tempdir();
    let c = cert_with_contacts(dir.path(), "0xff");
    assert_eq!(x509(&c, &["-noout", "-email"]), "a@b.example\nc@d.example\n");
    assert_eq!(x509(&c, &["-noout", "-ocsp_uri"]), "http://ocsp.example/\nhttp://ocsp2.example/\n");
    assert_eq!(x509(&c, &["-noout", "-serial", "-next_serial"]), "serial=FF\n0100\n");
    // (Negative serials, which RFC 5280 forbids and `req` refuses to make, are the
    // library's unit tests' and, from openssl's `req`, the test beside openssl's.)
    for (serial, next) in [("0", "01\n"), ("0x7fff", "8000\n"), ("0xffff", "010000\n")] {
        let c = cert_with_contacts(dir.path(), serial);
        assert_eq!(x509(&c, &["-noout", "-next_serial"]), next, "serial {serial}");
    }
    // The checks follow what is printed and leave the exit status alone.
    let checks = [
        "-noout",
        "-subject",
        "-checkhost",
        "t.example",
        "-checkemail",
        "x@y.example",
        "-checkip",
        "10.0.0.1",
    ];
    assert_eq!(
        x509(&c, &checks),
        "subject=CN = t, emailAddress = a@b.example\nHostname t.example does match certificate\n\
         Email x@y.example does NOT match certificate\nIP 10.0.0.1 does match certificate\n"
    );
    fails(&run(&["x509", "-in", &c, "-noout", "-checkip", "10.0.0"], b""), 1, "-checkip");
    // -nocert: what is asked, without the certificate.
    assert_eq!(x509(&c, &["-nocert", "-serial"]), "serial=FF\n");
}

#[test]
fn ocspid_dates_and_order() {
    let certum = data("root-certum.pem");
    let certum = certum.to_str().unwrap();
    // As openssl 3.0.19 printed them for this root.
    assert_eq!(
        x509(certum, &["-noout", "-ocspid"]),
        "        Subject OCSP hash: 481F557AE1206403ECC941543A54504072F2C1DF\n        \
         Public key OCSP hash: B6A1543902C3A03F8E8ABCFAD4F81CA6D13A0EFD\n"
    );
    let iso = x509(certum, &["-noout", "-dates", "-dateopt", "iso_8601"]);
    let lines: Vec<&str> = iso.lines().collect();
    assert_eq!(lines.len(), 2, "{iso}");
    for (line, label) in lines.iter().zip(["notBefore=", "notAfter="]) {
        let t = line.strip_prefix(label).unwrap_or_else(|| panic!("{iso}"));
        // 2008-10-22 12:07:37Z
        let shape: String =
            t.chars().map(|ch| if ch.is_ascii_digit() { '9' } else { ch }).collect();
        assert_eq!(shape, "9999-99-99 99:99:99Z", "{iso}");
    }
    fails(&run(&["x509", "-in", certum, "-noout", "-dates", "-dateopt", "x"], b""), 1, "dateopt");
    // Each option prints once, where it was last given: -dates then -startdate puts
    // notAfter first; -hash is -subject_hash.
    let order = x509(certum, &["-noout", "-dates", "-startdate"]);
    assert!(order.starts_with("notAfter=") && order.lines().count() == 2, "{order}");
    let hashes = x509(certum, &["-noout", "-hash", "-serial", "-subject_hash"]);
    assert_eq!(hashes.lines().count(), 2, "{hashes}");
    assert!(hashes.starts_with("serial="), "{hashes}");
}

/// The same options beside openssl, byte for byte.
#[test]
fn beside_openssl() {
    if !have_openssl("beside_openssl") {
        return;
    }
    let dir = tempdir();
    let c = cert_with_contacts(dir.path(), "0x0100");
    let key = data("rsa2048.pem");
    let key = key.to_str().unwrap();
    let negative = path(dir.path(), "n.pem");
    let req = ["req", "-new", "-x509", "-key", key, "-subj", "/CN=n", "-set_serial", "-256"];
    openssl(&[&req[..], &["-out", &negative]].concat(), b"");
    let certum = data("root-certum.pem");
    let certum = certum.to_str().unwrap();
    let cases: [&[&str]; 9] = [
        &["-noout", "-email", "-ocsp_uri", "-ocspid", "-serial", "-next_serial"],
        &["-noout", "-dates", "-dateopt", "iso_8601", "-startdate"],
        &["-noout", "-serial", "-hash", "-subject_hash", "-serial", "-issuer_hash"],
        &["-noout", "-subject", "-issuer", "-subject", "-checkhost", "t.example"],
        &["-noout", "-checkemail", "c@d.example", "-checkip", "::1", "-checkhost", "x"],
        &["-nocert", "-text", "-modulus", "-fingerprint", "-sha256"],
        &["-noout", "-pubkey", "-enddate", "-ext", "subjectAltName"],
        &["-nocert", "-checkend", "0", "-checkhost", "t.example"],
        &["-noout", "-text"],
    ];
    for cert in [c.as_str(), negative.as_str(), certum] {
        for args in cases {
            let all = [&["x509", "-in", cert][..], args].concat();
            let ours = run(&all, b"");
            let theirs = openssl_raw(&all, b"");
            assert_eq!(ours.stdout, theirs.stdout, "{all:?}");
            assert_eq!(ours.status.code(), theirs.status.code(), "{all:?}");
        }
    }
    let csr = path(dir.path(), "r.pem");
    ok(&run(&["req", "-new", "-key", key, "-subj", "/CN=m", "-out", &csr], b""));
    let args = ["req", "-in", &csr, "-noout", "-pubkey", "-subject", "-modulus"];
    assert_eq!(ok(&run(&args, b"")), openssl(&args, b""));
}

#[test]
fn purposes() {
    let certum = data("root-certum.pem");
    // As openssl 3.0.19 printed them for this root (a CA by basicConstraints).
    let want = "Certificate purposes:\nSSL client : No\nSSL client CA : Yes\nSSL server : No\n\
                SSL server CA : Yes\nNetscape SSL server : No\nNetscape SSL server CA : Yes\n\
                S/MIME signing : No\nS/MIME signing CA : Yes\nS/MIME encryption : No\n\
                S/MIME encryption CA : Yes\nCRL signing : Yes\nCRL signing CA : Yes\n\
                Any Purpose : Yes\nAny Purpose CA : Yes\nOCSP helper : Yes\n\
                OCSP helper CA : Yes\nTime Stamp signing : No\nTime Stamp signing CA : Yes\n";
    assert_eq!(x509(certum.to_str().unwrap(), &["-noout", "-purpose"]), want);
    if !have_openssl("purposes") {
        return;
    }
    // Certificates openssl makes: a version 1 root (a CA by OpenSSL's warning code 3), a
    // CA by keyUsage alone (code 4), and end entities and CAs limited by keyUsage and
    // extendedKeyUsage.
    let dir = tempdir();
    let d = |n: &str| path(dir.path(), n);
    let key = data("rsa2048.pem");
    let key = key.to_str().unwrap();
    let csr = d("p.csr");
    openssl(&["req", "-new", "-key", key, "-subj", "/CN=p", "-out", &csr], b"");
    let extensions = [
        "",
        "keyUsage=keyCertSign,cRLSign",
        "keyUsage=digitalSignature",
        "basicConstraints=critical,CA:TRUE\nextendedKeyUsage=serverAuth",
        "extendedKeyUsage=clientAuth\nkeyUsage=keyAgreement",
        "extendedKeyUsage=critical,timeStamping\nkeyUsage=nonRepudiation",
        "extendedKeyUsage=emailProtection\nkeyUsage=keyEncipherment",
        "basicConstraints=CA:FALSE\nkeyUsage=cRLSign,keyCertSign",
        "keyUsage=keyCertSign\nextendedKeyUsage=OCSPSigning",
    ];
    for (i, ext) in extensions.iter().enumerate() {
        let cert = d(&format!("p{i}.pem"));
        let mut args = vec!["x509", "-req", "-in", &csr, "-signkey", key, "-out", &cert];
        let conf = d(&format!("p{i}.cnf"));
        if !ext.is_empty() {
            std::fs::write(&conf, format!("{ext}\n")).unwrap();
            args.extend(["-extfile", &conf]);
        }
        openssl(&args, b"");
        let print = ["x509", "-in", &cert, "-noout", "-purpose"];
        assert_eq!(
            ok_text(&run(&print, b"")),
            String::from_utf8_lossy(&openssl(&print, b"")),
            "{ext}"
        );
    }
}

/// `-certopt`: the parts of `-text` each option leaves out, and the extensions we do not
/// decode shown as OpenSSL shows those it does not know, beside openssl.
#[test]
fn certopt_beside_openssl() {
    if !have_openssl("certopt_beside_openssl") {
        return;
    }
    let dir = tempdir();
    let cert = path(dir.path(), "u.pem");
    let key = data("rsa2048.pem");
    let args = [
        "req",
        "-new",
        "-x509",
        "-key",
        key.to_str().unwrap(),
        "-subj",
        "/CN=u",
        "-addext",
        "1.2.3.4.5=DER:3006020101040141",
        "-addext",
        "1.2.3.4.6=critical,DER:0403414243",
        "-addext",
        "keyUsage=digitalSignature",
        "-out",
        &cert,
    ];
    ok(&run(&args, b""));
    for opts in [
        "no_pubkey,no_sigdump",
        "ca_default",
        "no_header,no_version,no_serial,no_signame,no_validity,no_subject",
        "no_extensions,no_issuer",
        "ext_default",
        "ext_error",
        "ext_parse",
        "ext_dump",
        "no_pubkey,-no_pubkey,NO_SIGDUMP",
        "compatible",
    ] {
        let args = ["x509", "-in", &cert, "-noout", "-text", "-certopt", opts];
        assert_eq!(
            ok_text(&run(&args, b"")),
            String::from_utf8_lossy(&openssl(&args, b"")),
            "{opts}"
        );
    }
    let bad = ["x509", "-in", &cert, "-noout", "-text", "-certopt", "no_such"];
    fails(&run(&bad, b""), 1, "certificate option 'no_such'");
}
