//! Paths of certificates for the `verify` tests: the test PKI of crates/pki/tests/data,
//! certificates made on its keys, and `cryptocard verify` run beside `openssl verify`.

use super::{have_openssl, path};
use cryptocard::rsa::RsaPrivateKey;
use cryptocard::rsa::spki::der::asn1::{ObjectIdentifier as Oid, OctetString};
use cryptocard_pki::cert::{self, CertBuilder, Certificate, Extension};
use std::path::{Path, PathBuf};

pub fn pki(name: &str) -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "..", "pki", "tests", "data", name].iter().collect()
}

pub fn pki_path(name: &str) -> String {
    pki(name).to_str().unwrap().to_string()
}

pub fn key(name: &str) -> RsaPrivateKey {
    RsaPrivateKey::from_pem(&std::fs::read_to_string(pki(name)).unwrap(), None).unwrap()
}

pub fn load(name: &str) -> Certificate {
    cert::cert_from_pem(&std::fs::read(pki(name)).unwrap()).unwrap()
}

/// An extension `id` holding the DER `value`.
pub fn ext(id: &str, critical: bool, value: Vec<u8>) -> Extension {
    Extension {
        extn_id: Oid::new_unwrap(id),
        critical,
        extn_value: OctetString::new(value).unwrap(),
    }
}

/// A certificate for `subject` on `key`'s public key, shaped by `build`, issued by
/// `issuer` (self-signed if `None`).
pub fn make(
    subject: &str,
    key: &RsaPrivateKey,
    build: impl FnOnce(CertBuilder) -> CertBuilder,
    issuer: Option<(&Certificate, &RsaPrivateKey)>,
) -> Certificate {
    let b = CertBuilder::new(cert::parse_subject(subject).unwrap(), key.public_key()).unwrap();
    let b = build(b);
    match issuer {
        Some((cert, issuer_key)) => b.signed_by(cert, issuer_key).unwrap(),
        None => b.self_signed(key).unwrap(),
    }
}

pub fn write(dir: &Path, name: &str, certs: &[&Certificate]) -> String {
    let pem: String = certs.iter().map(|c| cert::to_pem(c).unwrap()).collect();
    let p = path(dir, name);
    std::fs::write(&p, pem).unwrap();
    p
}

/// Runs `verify ARGS` here and, where installed, `openssl verify ARGS` (both with
/// `SSL_CERT_FILE` pointing nowhere, so no system roots creep in), and asserts that they
/// agree on stdout, stderr and exit status; returns ours.
pub fn both(args: &[&str], stdin: &[u8]) -> std::process::Output {
    both_but(args, stdin, true)
}

/// [`both`], comparing stderr only if `stderr` (OpenSSL words read errors its own way).
pub fn both_but(args: &[&str], stdin: &[u8], stderr: bool) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let run = |mut cmd: Command| {
        let mut child = cmd
            .args(args)
            .env("SSL_CERT_FILE", "/nonexistent")
            .env("SSL_CERT_DIR", "/nonexistent")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    };
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cryptocard"));
    cmd.arg("verify");
    let ours = run(cmd);
    if have_openssl("verify") {
        let mut cmd = Command::new("openssl");
        cmd.arg("verify");
        let theirs = run(cmd);
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        assert_eq!(text(&ours.stdout), text(&theirs.stdout), "stdout of verify {args:?}");
        if stderr {
            // Less OpenSSL's error queue (`HEX:error:...` lines), which is its own.
            let queue = |l: &&str| l.split_once(":error:").is_some_and(|(t, _)| is_hex(t));
            let theirs: String = text(&theirs.stderr)
                .lines()
                .filter(|l| !queue(l))
                .map(|l| format!("{l}\n"))
                .collect();
            assert_eq!(text(&ours.stderr), theirs, "stderr of verify {args:?}");
        }
        assert_eq!(ours.status.code(), theirs.status.code(), "status of verify {args:?}");
    }
    ours
}

/// The `(code, depth)` of each failure `verify ARGS` reports (its `error N at D depth
/// lookup` lines), run through both tools ([`both`]); none exactly when it succeeds.
pub fn verify_failures(args: &[&str]) -> Vec<(u32, usize)> {
    let out = both(args, b"");
    let err = String::from_utf8_lossy(&out.stderr);
    let found: Vec<(u32, usize)> = err
        .lines()
        .filter_map(|l| {
            let (code, rest) = l.strip_prefix("error ")?.split_once(" at ")?;
            Some((code.parse().ok()?, rest.split_once(' ')?.0.parse().ok()?))
        })
        .collect();
    assert_eq!(out.status.success(), found.is_empty(), "{args:?}: {err}");
    found
}

/// Asserts that `verify ARGS` fails (status 2) with `error CODE at DEPTH` for `subject`.
pub fn fails_with(args: &[&str], subject: &str, code: u32, depth: usize, words: &str) {
    let out = both(args, b"");
    assert_eq!(out.status.code(), Some(2), "verify {args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    let want = format!("{subject}\nerror {code} at {depth} depth lookup: {words}\n");
    assert!(err.starts_with(&want), "verify {args:?}: {err}");
    assert!(err.trim_end().ends_with("verification failed"), "verify {args:?}: {err}");
    assert!(out.stdout.is_empty(), "verify {args:?}");
}

pub fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A DER TLV: `tag`, the definite length (up to 65,535), `content`.
pub fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let len = content.len();
    let mut out = vec![tag];
    match len {
        0..=0x7f => out.push(len as u8),
        0x80..=0xff => out.extend([0x81, len as u8]),
        _ => out.extend([0x82, (len >> 8) as u8, len as u8]),
    }
    out.extend_from_slice(content);
    out
}

/// A root on root.key and a CA on ca.key.pem it issued (both of the CA profile), named
/// `ROOT` and `CA` under `/CN=`.
pub fn root_and_ca(root: &str, ca: &str) -> (Certificate, Certificate) {
    let root_key = key("root.key");
    let root = make(&format!("/CN={root}"), &root_key, |b| b.profile(cert::Profile::Ca), None);
    let ca = make(
        &format!("/CN={ca}"),
        &key("ca.key.pem"),
        |b| b.profile(cert::Profile::Ca),
        Some((&root, &root_key)),
    );
    (root, ca)
}
