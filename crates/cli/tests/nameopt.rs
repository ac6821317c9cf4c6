//! `-nameopt` in `x509`, `req`, `crl` and `verify`: names printed as OpenSSL 3.0 prints them under
//! each of its forms (one-line, RFC 2253, multi-line, the old compat form, UTF-8, field
//! names short, long or as OIDs, values dumped), in `-subject`/`-issuer` and in `-text`;
//! against fixed expectations (what openssl 3.0.19 printed) and, where `openssl` is
//! installed, byte for byte beside it.

mod common;
use common::*;
use std::path::Path;

/// A subject with what each form escapes differently: UTF-8 beyond ASCII, a comma and
/// quotes, a leading space, a backslash and semicolon, a leading `#`, a multi-valued RDN.
const SUBJECT: &str = "/C=DE/O=Grüße, \"Ltd\"/OU= lead/CN=a\\\\b;c+OU=1/CN=#hash/emailAddress=x@y";

/// A self-signed certificate, its request and a CRL of `SUBJECT` in `dir`.
fn files(dir: &Path) {
    let d = |n: &str| path(dir, n);
    let key = data("rsa2048.pem");
    let key = key.to_str().unwrap();
    let req = ["req", "-new", "-key", key, "-subj", SUBJECT];
    ok(&run(&[&req[..], &["-x509", "-days", "30", "-out", &d("c.pem")]].concat(), b""));
    ok(&run(&[&req[..], &["-out", &d("r.pem")]].concat(), b""));
    std::fs::write(d("index.txt"), b"").unwrap();
    std::fs::write(d("crlnumber"), b"01\n").unwrap();
    let conf = format!(
        "[ca]\ndefault_ca = c\n[c]\ndatabase = {}\ncrlnumber = {}\ndefault_md = sha256\n\
         default_crl_days = 30\n",
        d("index.txt"),
        d("crlnumber")
    );
    std::fs::write(d("ca.cnf"), conf).unwrap();
    let gencrl = ["ca", "-config", &d("ca.cnf"), "-gencrl", "-cert", &d("c.pem")];
    ok(&run(&[&gencrl[..], &["-keyfile", key, "-out", &d("crl.pem")]].concat(), b""));
}

fn subject(dir: &Path, nameopt: &[&str]) -> Vec<u8> {
    let c = path(dir, "c.pem");
    let mut args = vec!["x509", "-in", &c, "-noout", "-subject"];
    for o in nameopt {
        args.extend(["-nameopt", o]);
    }
    ok(&run(&args, b""))
}

#[test]
fn subjects_in_each_form() {
    let dir = tempdir();
    files(dir.path());
    // What openssl 3.0.19 printed for this certificate.
    let cases: &[(&[&str], &[u8])] = &[
        (&[], b"subject=C = DE, O = \"Gr\\C3\\BC\\C3\\9Fe, \\\"Ltd\\\"\", OU = \" lead\", OU = 1 + CN = \"a\\\\b;c\", CN = \"#hash\", emailAddress = x@y\n"),
        (&["RFC2253"], b"subject=emailAddress=x@y,CN=\\#hash,CN=a\\\\b\\;c+OU=1,OU=\\ lead,O=Gr\\C3\\BC\\C3\\9Fe\\, \\\"Ltd\\\",C=DE\n"),
        (&["compat"], b"subject=/C=DE/O=Gr\\xC3\\xBC\\xC3\\x9Fe, \"Ltd\"/OU= lead/OU=1+CN=a\\b;c/CN=#hash/emailAddress=x@y\n"),
        // Clearing the only flag leaves none: the compat form.
        (&["-esc_msb"], b"subject=/C=DE/O=Gr\\xC3\\xBC\\xC3\\x9Fe, \"Ltd\"/OU= lead/OU=1+CN=a\\b;c/CN=#hash/emailAddress=x@y\n"),
        (&["utf8"], b"subject=C=DE, O=Gr\xC3\xBC\xC3\x9Fe, \"Ltd\", OU= lead, OU=1 + CN=a\\b;c, CN=#hash, emailAddress=x@y\n"),
        // Options accumulate over repeated -nameopt, as OpenSSL's do.
        (&["sep_semi_plus_space", "lname,align"], b"subject=countryName              =DE; organizationName         =Gr\xFC\xDFe, \"Ltd\"; organizationalUnitName   = lead; organizationalUnitName   =1 + commonName               =a\\b;c; commonName               =#hash; emailAddress             =x@y\n"),
        (&["oid,dump_all"], b"subject=2.5.4.6=#4445, 2.5.4.10=#4772C3BCC39F652C20224C746422, 2.5.4.11=#206C656164, 2.5.4.11=#31 + 2.5.4.3=#615C623B63, 2.5.4.3=#2368617368, 1.2.840.113549.1.9.1=#784079\n"),
        (&["RFC2253,show_type"], b"subject=emailAddress=IA5STRING:x@y,CN=UTF8STRING:\\#hash,CN=UTF8STRING:a\\\\b\\;c+OU=UTF8STRING:1,OU=UTF8STRING:\\ lead,O=UTF8STRING:Gr\\C3\\BC\\C3\\9Fe\\, \\\"Ltd\\\",C=PRINTABLESTRING:DE\n"),
        (&["multiline"], b"subject=\n    countryName               = DE\n    organizationName          = Gr\\FC\\DFe, \"Ltd\"\n    organizationalUnitName    =  lead\n    organizationalUnitName    = 1 + commonName                = a\\\\b;c\n    commonName                = #hash\n    emailAddress              = x@y\n"),
    ];
    for (opts, want) in cases {
        let got = subject(dir.path(), opts);
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(want),
            "-nameopt {opts:?}"
        );
        assert_eq!(&got, want, "-nameopt {opts:?}");
    }
    let c = path(dir.path(), "c.pem");
    let out = run(&["x509", "-in", &c, "-noout", "-subject", "-nameopt", "oneline,bogus"], b"");
    fails(&out, 1, "name option 'bogus'");
    // verify names the certificate at fault in the same form.
    let out = run(&["verify", "-no-CAfile", "-nameopt", "RFC2253", &c], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("emailAddress=x@y,CN=\\#hash,"), "{err}");
    assert!(err.contains("\nerror 18 at 0 depth lookup"), "{err}");
}

/// Every form in every command that prints names, byte for byte beside openssl.
#[test]
fn beside_openssl() {
    if !have_openssl("beside_openssl") {
        return;
    }
    let dir = tempdir();
    files(dir.path());
    let d = |n: &str| path(dir.path(), n);
    let forms = [
        "",
        "oneline",
        "RFC2253",
        "multiline",
        "compat",
        "utf8",
        "oneline,-esc_msb",
        "multiline,utf8,-esc_msb",
        "RFC2253,show_type",
        "sep_comma_plus_space,lname,align",
        "oid,dump_all,dump_der",
        "esc_2254,esc_ctrl,use_quote,space_eq",
        "nofname,dn_rev,sep_comma_plus",
        "dump_der,dump_nostr,ignore_type",
        "ca_default",
        "dump_unknown,RFC2253",
    ];
    let (c, r, crl) = (d("c.pem"), d("r.pem"), d("crl.pem"));
    let commands: [&[&str]; 6] = [
        &["verify", "-CAfile", &c, "-show_chain", &c],
        &["x509", "-in", &c, "-noout", "-subject", "-issuer"],
        &["x509", "-in", &c, "-noout", "-text"],
        &["req", "-in", &r, "-noout", "-text", "-subject"],
        &["crl", "-in", &crl, "-noout", "-issuer"],
        &["crl", "-in", &crl, "-noout", "-text"],
    ];
    for form in forms {
        for command in commands {
            // Options before verify's certificate: openssl reads none after it.
            let (mut args, last) = match command.split_last() {
                Some((file, rest)) if command[0] == "verify" => (rest.to_vec(), vec![*file]),
                _ => (command.to_vec(), vec![]),
            };
            if !form.is_empty() {
                args.extend(["-nameopt", form]);
            }
            args.extend(last);
            let ours = ok(&run(&args, b""));
            let theirs = openssl(&args, b"");
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs),
                "{args:?}"
            );
        }
    }
}
