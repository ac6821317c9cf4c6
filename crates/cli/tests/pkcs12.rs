//! `cryptocard pkcs12` beside `openssl pkcs12`: OpenSSL's files read and printed byte for
//! byte as OpenSSL 3.0.19 prints them (its output is test data, so this holds without
//! OpenSSL installed); ours read back by ourselves and, where OpenSSL is installed, by it,
//! with the output it gives for its own file made with the same options; and the
//! failures: a wrong password, a key without its certificate, junk, a file above the
//! iteration limit, none of which leaves an output file behind.

mod common;

use common::*;
use std::path::PathBuf;

fn pki(name: &str) -> String {
    let p: PathBuf =
        [env!("CARGO_MANIFEST_DIR"), "..", "pki", "tests", "data", name].iter().collect();
    p.to_str().unwrap().to_string()
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap()
}

/// OpenSSL's files (crates/pki/tests/data), printed with `-nodes -info` as OpenSSL 3.0.19
/// printed them (tests/data/pkcs12-*.out and .err).
#[test]
fn prints_openssls_files_as_openssl_does() {
    for (file, stem) in [("openssl-aes.p12", "pkcs12-aes"), ("openssl-legacy.p12", "pkcs12-legacy")]
    {
        let out = run(
            &["pkcs12", "-in", &pki(file), "-passin", "pass:cryptocard", "-nodes", "-info"],
            b"",
        );
        assert_eq!(ok_text(&out), expected(&format!("{stem}.out")), "{file}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            expected(&format!("{stem}.err")),
            "{file}"
        );
    }
}

/// The empty password, and a friendly name outside ASCII printed as UTF-8.
#[test]
fn the_empty_password_and_a_utf8_name() {
    let file = pki("openssl-empty-password.p12");
    let out = ok_text(&run(&["pkcs12", "-in", &file, "-passin", "pass:", "-nokeys"], b""));
    assert!(
        out.starts_with("Bag Attributes\n    friendlyName: Grüße\n    localKeyID: EF 4D "),
        "{out}"
    );
    fails(
        &run(&["pkcs12", "-in", &file, "-passin", "pass:x", "-nokeys"], b""),
        1,
        "Mac verify error",
    );
}

/// Every selection of bags, compared with the command line OpenSSL where it is installed.
#[test]
fn selections_match_openssl() {
    if !have_openssl("selections_match_openssl") {
        return;
    }
    for file in
        ["openssl-aes.p12", "openssl-legacy.p12", "openssl-plain.p12", "openssl-empty-password.p12"]
    {
        let pass = if file.contains("empty") { "pass:" } else { "pass:cryptocard" };
        for opts in [
            &["-nodes"][..],
            &["-nokeys", "-clcerts"],
            &["-nokeys", "-cacerts"],
            &["-nocerts", "-noenc"],
            &["-noout", "-info"],
        ] {
            if file.contains("empty") && opts != ["-noout", "-info"] {
                // OpenSSL 3.0 prints this file's friendly name, Grüße, as Latin-1 bytes;
                // we print UTF-8, as OpenSSL 3.2 does (checked below).
                continue;
            }
            let input = pki(file);
            let mut args = vec!["pkcs12", "-in", &input, "-passin", pass];
            args.extend(opts);
            let ours = run(&args, b"");
            args.push("-legacy");
            let theirs = openssl_raw(&args[..], b"");
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            assert_eq!(text(&ours.stdout), text(&theirs.stdout), "{file} {opts:?}");
            assert_eq!(text(&ours.stderr), text(&theirs.stderr), "{file} {opts:?}");
            assert_eq!(ours.status.code(), theirs.status.code(), "{file} {opts:?}");
        }
    }
}

const SCHEMES: &[&[&str]] = &[
    &[],
    &["-legacy"],
    &["-legacy", "-keypbe", "PBE-SHA1-2DES", "-certpbe", "PBE-SHA1-RC2-128", "-macalg", "sha512"],
    &["-keypbe", "NONE", "-certpbe", "NONE", "-nomac"],
    &["-descert", "-iter", "5000", "-nomaciter"],
    &["-keypbe", "AES-128-CBC", "-certpbe", "NONE", "-macalg", "sha384"],
    &["-nokeys"],
];

fn export_args(out: &str, extra: &[&str]) -> Vec<String> {
    let mut owned: Vec<String> = ["pkcs12", "-export", "-in"].map(String::from).to_vec();
    let (signer, key, inter) = (pki("signer.pem"), pki("signer.key"), pki("inter.pem"));
    owned.extend([signer, "-inkey".into(), key, "-certfile".into(), inter]);
    owned.extend(
        ["-name", "signer", "-caname", "intermediate", "-passout", "pass:pw", "-out", out]
            .map(String::from),
    );
    owned.extend(extra.iter().map(|s| s.to_string()));
    owned
}

/// Ours, under each scheme, read back by us: the same bags and key.
#[test]
fn exports_what_it_reads() {
    let dir = tempdir();
    let p12 = path(dir.path(), "out.p12");
    for extra in SCHEMES {
        let args = export_args(&p12, extra);
        ok(&run(&args.iter().map(String::as_str).collect::<Vec<_>>(), b""));
        let printed = ok_text(&run(&["pkcs12", "-in", &p12, "-passin", "pass:pw", "-nodes"], b""));
        assert_eq!(printed.matches("BEGIN CERTIFICATE").count(), 2, "{extra:?}");
        // Without the key no certificate is the key's: OpenSSL then names none -name.
        let named = if extra.contains(&"-nokeys") { 0 } else { 2 };
        assert_eq!(printed.matches("friendlyName: signer").count(), named, "{extra:?}");
        assert!(printed.contains("friendlyName: intermediate"), "{extra:?}");
        assert_eq!(printed.contains("BEGIN PRIVATE KEY"), !extra.contains(&"-nokeys"), "{extra:?}");
    }
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&p12).unwrap().permissions().mode() & 0o777, 0o600);
}

/// -nomacver reads a file whose MAC no longer verifies (a byte of its MAC data changed)
/// as it reads the intact one, as openssl pkcs12 -nomacver does; without it the MAC
/// fails, and a wrong password still fails where the key does not decrypt.
#[test]
fn nomacver_skips_only_the_mac() {
    let dir = tempdir();
    let p12 = path(dir.path(), "out.p12");
    let args = export_args(&p12, &[]);
    ok(&run(&args.iter().map(String::as_str).collect::<Vec<_>>(), b""));
    let read = ["pkcs12", "-in", &p12, "-passin", "pass:pw", "-nodes"];
    let intact = ok(&run(&read, b""));
    let mut der = std::fs::read(&p12).unwrap();
    // The MAC data ends the file: its digest and salt, then a short iteration count.
    let at = der.len() - 20;
    der[at] ^= 0x01;
    let broken = path(dir.path(), "broken.p12");
    std::fs::write(&broken, &der).unwrap();
    let read_broken = ["pkcs12", "-in", &broken, "-passin", "pass:pw", "-nodes"];
    fails(&run(&read_broken, b""), 1, "Mac verify error");
    assert_eq!(ok(&run(&[&read_broken[..], &["-nomacver"]].concat(), b"")), intact);
    let wrong = ["pkcs12", "-in", &broken, "-passin", "pass:nope", "-nodes", "-nomacver"];
    fails(&run(&wrong, b""), 1, "wrong password");
    if have_openssl("nomacver_skips_only_the_mac") {
        assert_eq!(openssl(&[&read_broken[..], &["-nomacver"]].concat(), b""), intact);
    }
}

/// OpenSSL reads ours and prints what it prints of its own file made with the same
/// options.
#[test]
fn openssl_reads_ours_as_its_own() {
    if !have_openssl("openssl_reads_ours_as_its_own") {
        return;
    }
    let dir = tempdir();
    let (ours, theirs) = (path(dir.path(), "ours.p12"), path(dir.path(), "theirs.p12"));
    for extra in SCHEMES {
        let args = export_args(&ours, extra);
        ok(&run(&args.iter().map(String::as_str).collect::<Vec<_>>(), b""));
        let args = export_args(&theirs, extra);
        openssl(&args.iter().map(String::as_str).collect::<Vec<_>>(), b"");
        let read = |file: &str| {
            openssl(&["pkcs12", "-in", file, "-passin", "pass:pw", "-nodes", "-legacy"], b"")
        };
        assert_eq!(read(&ours), read(&theirs), "{extra:?}");
    }
}

/// One PEM file with the certificate and key (no -inkey), and the key written out
/// encrypted under -passout, which pkey then reads.
#[test]
fn one_file_in_and_an_encrypted_key_out() {
    let dir = tempdir();
    let both = path(dir.path(), "both.pem");
    let mut pem = std::fs::read(pki("signer.pem")).unwrap();
    pem.extend(std::fs::read(pki("signer.key")).unwrap());
    std::fs::write(&both, pem).unwrap();
    let p12 = path(dir.path(), "b.p12");
    ok(&run(&["pkcs12", "-export", "-in", &both, "-passout", "pass:x", "-out", &p12], b""));
    let key = ok_text(&run(
        &["pkcs12", "-in", &p12, "-passin", "pass:x", "-nocerts", "-passout", "pass:k"],
        b"",
    ));
    assert!(key.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----"), "{key}");
    let check = ok_text(&run(&["pkey", "-passin", "pass:k", "-check", "-noout"], key.as_bytes()));
    assert!(check.contains("Key is valid"), "{check}");
    let plain = ok_text(&run(&["pkey", "-in", &pki("signer.key")], b""));
    let back = ok_text(&run(&["pkey", "-passin", "pass:k"], key.as_bytes()));
    assert_eq!(back, plain);
}

#[test]
fn failures_say_why_and_leave_nothing_behind() {
    let dir = tempdir();
    let out = path(dir.path(), "out.pem");
    let aes = pki("openssl-aes.p12");
    let wrong = run(&["pkcs12", "-in", &aes, "-passin", "pass:wrong", "-nodes", "-out", &out], b"");
    assert_eq!(fails(&wrong, 1, "Mac verify error"), "Mac verify error: invalid password?");
    fails(&run(&["pkcs12", "-in", &aes, "-nodes"], b""), 1, "-passin");
    fails(
        &run(&["pkcs12", "-in", &aes, "-passin", "pass:cryptocard"], b""),
        1,
        "-passout, or -nodes",
    );
    fails(
        &run(&["pkcs12", "-passin", "pass:x"], &[0x30, 0x82, 0x01]),
        1,
        "could not read the PKCS#12 file",
    );
    fails(
        &run(&["pkcs12", "-in", &pki("signer.pem"), "-passin", "pass:x"], b""),
        1,
        "could not read",
    );
    let p12 = path(dir.path(), "m.p12");
    let mismatch =
        ["pkcs12", "-export", "-in", &pki("recipient.pem"), "-inkey", &pki("signer.key")];
    let mut args = mismatch.to_vec();
    args.extend(["-passout", "pass:x", "-out", &p12]);
    fails(&run(&args, b""), 1, "No certificate matches private key");
    fails(&run(&mismatch, b""), 1, "-passout");
    fails(
        &run(
            &[
                "pkcs12",
                "-export",
                "-in",
                &pki("signer.pem"),
                "-nokeys",
                "-passout",
                "pass:x",
                "-keypbe",
                "RC4",
            ],
            b"",
        ),
        1,
        "-keypbe",
    );
    // 3000 iterations under a limit of 2000: refused before the work, with the way out.
    let many = path(dir.path(), "many.p12");
    let args = export_args(&many, &["-iter", "3000"]);
    ok(&run(&args.iter().map(String::as_str).collect::<Vec<_>>(), b""));
    let limited =
        run(&["pkcs12", "-in", &many, "-passin", "pass:pw", "-nodes", "-max-iter", "2000"], b"");
    fails(&limited, 1, "-max-iter");
    assert_eq!(listing(dir.path()), ["many.p12"]);
}

/// `-chain`: the signer's path through `-untrusted` to `-CAfile`'s root follows the other
/// certificates of `-in`, without repeats, before `-certfile`'s, as OpenSSL orders them
/// (and, where it is installed, OpenSSL's file for the same options reads the same); a
/// path that does not verify fails in OpenSSL's words and writes nothing.
#[test]
fn chain_adds_the_verified_path() {
    let dir = tempdir();
    let p12 = path(dir.path(), "chain.p12");
    let (signer, key, inter, root) =
        (pki("signer.pem"), pki("signer.key"), pki("inter.pem"), pki("root.pem"));
    let base = ["pkcs12", "-export", "-in", &signer, "-inkey", &key, "-passout", "pass:pw"];
    let with = |extra: &[&str], out: &str| {
        let mut args = base.to_vec();
        args.extend(extra);
        args.extend(["-out", out]);
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let chain = ["-chain", "-CAfile", &root, "-untrusted", &inter, "-certfile", &inter];
    let names = ["-caname", "first", "-caname", "second", "-caname", "third"];
    let args = with(&[&chain[..], &names].concat(), &p12);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&run(&args, b""));
    let printed = ok_text(&run(&["pkcs12", "-in", &p12, "-passin", "pass:pw", "-nokeys"], b""));
    let order: Vec<&str> =
        printed.lines().filter_map(|l| l.strip_prefix("subject=CN = cryptocard-test-")).collect();
    assert_eq!(order, ["signer", "intermediate", "root", "intermediate"], "{printed}");
    for name in ["first", "second", "third"] {
        assert!(printed.contains(&format!("friendlyName: {name}")), "{printed}");
    }
    if have_openssl("chain_adds_the_verified_path") {
        let theirs = path(dir.path(), "theirs.p12");
        let args = with(&[&chain[..], &names].concat(), &theirs);
        openssl(&args.iter().map(String::as_str).collect::<Vec<_>>(), b"");
        let read =
            |file: &str| openssl(&["pkcs12", "-in", file, "-passin", "pass:pw", "-nodes"], b"");
        assert_eq!(read(&p12), read(&theirs));
    }
    std::fs::remove_file(&p12).unwrap();
    let other = pki("other-root.pem");
    for extra in
        [&["-chain", "-CAfile", &root][..], &["-chain", "-CAfile", &other, "-untrusted", &inter]]
    {
        let args = with(extra, &p12);
        let out = run(&args.iter().map(String::as_str).collect::<Vec<_>>(), b"");
        let line = fails(&out, 1, "Error getting chain");
        assert_eq!(
            line, "Error getting chain: unable to get local issuer certificate",
            "{extra:?}"
        );
    }
    assert!(listing(dir.path()).iter().all(|f| f != "chain.p12"));
    let args = with(&["-nocerts", "-chain", "-CAfile", &root], &p12);
    let out = run(&args.iter().map(String::as_str).collect::<Vec<_>>(), b"");
    ok(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Warning: -chain option ignored with -nocerts\n"
    );
}
