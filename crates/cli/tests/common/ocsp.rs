//! The OCSP tests' CA, its database, and `ocsp` run by us and by OpenSSL side by side.

use super::*;
use std::path::Path;
use std::process::Output;

/// A CA (`ca.pem`, `ca.key`), two certificates it issued (`a.pem`, `b.pem`), a
/// responder it delegated to with id-kp-OCSPSigning (`resp.pem`, `resp.key`) and one
/// without (`plain.pem`, `plain.key`), and its database `index.txt`: `a` valid, `b`
/// revoked for key compromise, a third serial never issued. Made with our own commands.
pub fn pki(dir: &Path) {
    let cmd = |args: &str| {
        let words: Vec<String> = args.split(' ').map(|w| w.replace('@', &path(dir, ""))).collect();
        ok(&run(&words.iter().map(String::as_str).collect::<Vec<_>>(), b""));
    };
    cmd(
        "req -new -x509 -newkey rsa:2048 -nodes -keyout @ca.key -subj /CN=OCSP-CA -days 2 -out @ca.pem",
    );
    for (name, ext) in [
        ("a", "basicConstraints=CA:FALSE"),
        ("b", "basicConstraints=CA:FALSE"),
        ("resp", "extendedKeyUsage=OCSPSigning"),
        ("plain", "keyUsage=digitalSignature"),
    ] {
        cmd(&format!(
            "req -new -newkey rsa:2048 -nodes -keyout @{name}.key -subj /CN={name} -addext {ext} -out @{name}.csr"
        ));
        cmd(&format!(
            "x509 -req -in @{name}.csr -CA @ca.pem -CAkey @ca.key -days 2 -copy_extensions copy -out @{name}.pem"
        ));
    }
    let serial = |name: &str| {
        let out = ok(&run(&["x509", "-in", &path(dir, name), "-noout", "-serial"], b""));
        String::from_utf8(out).unwrap().trim().strip_prefix("serial=").unwrap().to_string()
    };
    let index = format!(
        "V\t491231235959Z\t\t{}\tunknown\t/CN=a\nR\t491231235959Z\t261130120000Z,keyCompromise\t{}\tunknown\t/CN=b\n",
        serial("a.pem"),
        serial("b.pem")
    );
    std::fs::write(path(dir, "index.txt"), index).unwrap();
}

/// `ARGS` split at spaces, `@` standing for the directory.
pub fn words(dir: &Path, args: &str) -> Vec<String> {
    args.split_whitespace().map(|w| w.replace('@', &path(dir, ""))).collect()
}

/// `ocsp ARGS` by us.
pub fn ours(dir: &Path, args: &str) -> Output {
    let words = words(dir, args);
    let mut argv = vec!["ocsp"];
    argv.extend(words.iter().map(String::as_str));
    run(&argv, b"")
}

/// `ocsp ARGS` by us, and by OpenSSL where installed, which must say the same; returns
/// ours.
pub fn both(dir: &Path, args: &str) -> Output {
    let words = words(dir, args);
    let mut argv = vec!["ocsp"];
    argv.extend(words.iter().map(String::as_str));
    let ours = run(&argv, b"");
    if have_openssl("ocsp") {
        let theirs = openssl_raw(&argv, b"");
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        // Less the error queue OpenSSL writes to stdout after `WARNING: Status times
        // invalid.` (ours gives the reasons on stderr).
        let queue = |l: &&str| l.split(':').nth(1) == Some("error");
        let theirs_out: String =
            text(&theirs.stdout).split_inclusive('\n').filter(|l| !queue(l)).collect();
        assert_eq!(text(&ours.stdout), theirs_out, "stdout of {args}");
        // Less OpenSSL's error queue (`HEX:error:...` lines), which is its own.
        let first = |b: &[u8]| text(b).lines().next().unwrap_or("").to_string();
        assert_eq!(first(&ours.stderr), first(&theirs.stderr), "stderr of {args}");
        assert_eq!(ours.status.code(), theirs.status.code(), "status of {args}");
    }
    ours
}

/// A response that did not verify: said first on stderr, exit status 1, and the statuses
/// printed still.
pub fn refused(out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("Response Verify Failure\n"), "{err}");
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("a.pem: good"));
}

pub const READ_A_AND_B: &str =
    "-issuer @ca.pem -cert @a.pem -cert @b.pem -no_nonce -CAfile @ca.pem";
