//! The everyday commands around the keys: `rand`, `base64` and `rsa`, with OpenSSL's
//! flags and outputs (the key files in tests/data are OpenSSL's, see its README).

mod common;
use common::*;

fn key(name: &str) -> String {
    data(name).to_str().unwrap().to_string()
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(data(name)).unwrap()
}

#[test]
fn rand_writes_the_count_asked_in_each_encoding() {
    let raw = ok(&run(&["rand", "1000"], b""));
    assert_eq!(raw.len(), 1000);
    // Not a constant: two draws differ (a 2^-8000 chance of a false failure).
    assert_ne!(raw, ok(&run(&["rand", "1000"], b"")));
    let hex = ok_text(&run(&["rand", "-hex", "16"], b""));
    assert_eq!(hex.len(), 33, "{hex:?}");
    assert!(hex.ends_with('\n') && hex[..32].bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(hex[..32], hex[..32].to_ascii_lowercase());
    assert_eq!(ok(&run(&["rand", "-hex", "2k"], b"")).len(), 4097);
    // Base64 in lines of 64 that decode to the count; across a 64 KiB chunk boundary.
    let b64 = ok(&run(&["rand", "-base64", "70000"], b""));
    let text = String::from_utf8(b64.clone()).unwrap();
    assert!(text.lines().all(|l| l.len() <= 64) && text.lines().count() > 1);
    assert_eq!(ok(&run(&["base64", "-d"], &b64)).len(), 70000);
}

#[test]
fn rand_to_a_file_and_its_errors() {
    let dir = tempdir();
    let out = path(dir.path(), "r.bin");
    ok(&run(&["rand", "-out", &out, "65537"], b""));
    assert_eq!(std::fs::read(&out).unwrap().len(), 65537);
    fails(&run(&["rand"], b""), 1, "number of bytes is missing");
    for bad in ["0", "-5", "x", "1.5", "99999999999999999999"] {
        fails(&run(&["rand", "--", bad], b""), 1, "not a positive number");
    }
    fails(&run(&["rand", "12q"], b""), 1, "not a positive number");
    fails(&run(&["rand", "-hex", "-base64", "4"], b""), 1, "choose one");
    fails(&run(&["rand", "4", "5"], b""), 1, "unexpected argument");
}

#[test]
fn base64_encodes_and_decodes_as_openssl() {
    let data = bytes(7, 1000);
    let wrapped = ok(&run(&["base64"], &data));
    let text = String::from_utf8(wrapped.clone()).unwrap();
    assert!(text.lines().all(|l| l.len() <= 64));
    assert_eq!(ok(&run(&["base64", "-d"], &wrapped)), data);
    let one_line = ok_text(&run(&["base64", "-A"], &data));
    assert_eq!(one_line.trim_end().lines().count(), 1);
    assert_eq!(ok(&run(&["base64", "-d", "-A"], one_line.as_bytes())), data);
    // Invalid base64 ends the data without an error, as OpenSSL 3.0's `base64 -d` exits 0.
    let garbage = run(&["base64", "-d"], b"@@@@\n");
    assert_eq!(ok(&garbage), b"");
    assert!(garbage.stderr.is_empty());
    if have_openssl("base64_encodes_and_decodes_as_openssl") {
        assert_eq!(wrapped, openssl(&["base64"], &data));
        assert_eq!(ok(&run(&["base64", "-d"], &openssl(&["base64"], &data))), data);
    }
}

#[test]
fn rsa_writes_each_form_as_openssl_wrote_it() {
    let k = key("rsa2048.pkcs1.pem");
    let cases: [(&[&str], &str); 5] = [
        (&[], "rsa2048.pem"),
        (&["-traditional"], "rsa2048.pkcs1.pem"),
        (&["-pubout"], "rsa2048.pub.pem"),
        (&["-RSAPublicKey_out"], "rsa2048.rsapub.pem"),
        (&["-outform", "DER", "-pubout"], "rsa2048.pub.der"),
    ];
    for (flags, want) in cases {
        let mut args = vec!["rsa", "-in", &k];
        args.extend_from_slice(flags);
        let out = run(&args, b"");
        assert_eq!(ok(&out), read(want), "rsa {flags:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "writing RSA key\n");
    }
    // Public keys in, either form, the same SubjectPublicKeyInfo out.
    for (file, flag) in [("rsa2048.pub.pem", "-pubin"), ("rsa2048.rsapub.pem", "-RSAPublicKey_in")]
    {
        assert_eq!(ok(&run(&["rsa", flag, "-in", &key(file)], b"")), read("rsa2048.pub.pem"));
    }
}

#[test]
fn rsa_text_modulus_and_check() {
    let k = key("rsa2048.pem");
    let out = ok_text(&run(&["rsa", "-in", &k, "-text", "-modulus", "-check", "-noout"], b""));
    assert!(out.starts_with("Private-Key: (2048 bit, 2 primes)\nmodulus:\n"), "{out}");
    let modulus = out.lines().find(|l| l.starts_with("Modulus=")).unwrap();
    let hex = &modulus["Modulus=".len()..];
    assert_eq!(hex.len(), 512);
    assert!(hex.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_lowercase()));
    assert!(out.ends_with("RSA key ok\n"));
    let public = ok_text(&run(&["rsa", "-pubin", "-in", &key("rsa2048.pub.pem"), "-text"], b""));
    assert!(public.starts_with("Public-Key: (2048 bit)\nModulus:\n"), "{public}");
    assert!(public.contains("-----BEGIN PUBLIC KEY-----"));
    fails(
        &run(&["rsa", "-pubin", "-in", &key("rsa2048.pub.pem"), "-check"], b""),
        1,
        "Only private",
    );
    fails(&run(&["rsa", "-in", &key("rsa2048.pub.pem")], b""), 1, "");
    fails(&run(&["rsa", "-in", &key("hostile-small-q.der"), "-check"], b""), 1, "invalid");
    if have_openssl("rsa_text_modulus_and_check") {
        let theirs = openssl(&["rsa", "-in", &k, "-modulus", "-noout"], b"");
        assert_eq!(modulus, String::from_utf8(theirs).unwrap().trim_end());
    }
}

#[test]
fn rsa_encrypts_the_key_it_writes_and_owns_the_file() {
    let dir = tempdir();
    let out = path(dir.path(), "k.enc.pem");
    let k = key("rsa2048.pem");
    ok(&run(&["rsa", "-in", &k, "-aes256", "-passout", "pass:pw", "-out", &out], b""));
    let pem = std::fs::read_to_string(&out).unwrap();
    assert!(pem.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    let back = ok(&run(&["rsa", "-in", &out, "-passin", "pass:pw"], b""));
    assert_eq!(back, read("rsa2048.pem"));
    fails(&run(&["rsa", "-in", &out, "-passin", "pass:wrong"], b""), 1, "");
    if have_openssl("rsa_encrypts_the_key_it_writes") {
        let theirs = openssl(&["rsa", "-in", &out, "-passin", "pass:pw"], b"");
        assert_eq!(theirs, read("rsa2048.pem"));
    }
}
