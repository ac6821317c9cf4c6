//! `cryptocard dgst` (and the `cryptocard sha256` shortcuts): output formats as OpenSSL 3
//! prints them, known answers from the RFCs and FIPS 180, bad input, and agreement with
//! `openssl dgst`.

mod common;
use common::*;

/// RFC 1319/1320/1321 appendix A.5, FIPS 180-2 appendix B and the FIPS 202 examples
/// ("abc") digests.
const ABC: &[(&str, &str, &str)] = &[
    ("md2", "MD2", "da853b0d3f88d99b30283a69e6ded6bb"),
    ("md4", "MD4", "a448017aaf21d8525fc10ae87aa6729d"),
    ("md5", "MD5", "900150983cd24fb0d6963f7d28e17f72"),
    ("sha1", "SHA1", "a9993e364706816aba3e25717850c26c9cd0d89d"),
    ("sha224", "SHA2-224", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"),
    ("sha256", "SHA2-256", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
        "sha384",
        "SHA2-384",
        "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
    ),
    (
        "sha512",
        "SHA2-512",
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
    ),
    ("sha512-224", "SHA2-512/224", "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa"),
    (
        "sha512-256",
        "SHA2-512/256",
        "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23",
    ),
    ("sha3-256", "SHA3-256", "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"),
    ("shake128", "SHAKE-128", "5881092dd818bf5cf8a3ddb793fbcba7"),
    ("shake256", "SHAKE-256", "483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739"),
];

#[test]
fn xof_lengths() {
    // SHAKE128("") (FIPS 202 example values), 32 bytes.
    let out = run(&["dgst", "-shake128", "-xoflen", "32", "-r"], b"");
    assert_eq!(
        ok_text(&out),
        "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26 *stdin\n"
    );
    fails(&run(&["dgst", "-sha256", "-xoflen", "8"], b""), 1, "-xoflen");
    fails(&run(&["dgst", "-shake256", "-xoflen", "0"], b""), 1, "-xoflen");
    fails(&run(&["dgst", "-shake256", "-hmac", "k"], b""), 1, "MAC");
}

#[test]
fn known_answers_in_openssl_format() {
    let dir = tempdir();
    std::fs::write(dir.path().join("abc.txt"), b"abc").unwrap();
    for (flag, name, hex) in ABC {
        let out = run_in(dir.path(), &["dgst", &format!("-{flag}"), "abc.txt"]);
        assert_eq!(ok_text(&out), format!("{name}(abc.txt)= {hex}\n"), "{flag}");
        // The shortcut, from stdin.
        let out = run(&[flag], b"abc");
        assert_eq!(ok_text(&out), format!("{name}(stdin)= {hex}\n"), "{flag}");
    }
}

#[test]
fn formats_r_c_binary_and_default_digest() {
    let sha256 = ABC[5].2;
    // No digest flag: SHA-256 under OpenSSL 3.0's legacy name.
    assert_eq!(ok_text(&run(&["dgst"], b"abc")), format!("SHA256(stdin)= {sha256}\n"));
    assert_eq!(ok_text(&run(&["dgst", "-sha256", "-r"], b"abc")), format!("{sha256} *stdin\n"));
    let colons: Vec<String> = (0..32).map(|i| sha256[2 * i..2 * i + 2].to_string()).collect();
    assert_eq!(
        ok_text(&run(&["dgst", "-sha256", "-c"], b"abc")),
        format!("SHA2-256(stdin)= {}\n", colons.join(":"))
    );
    // Of -r and -c, and of -hex and -binary, the last given wins (as in OpenSSL).
    assert_eq!(
        ok_text(&run(&["dgst", "-sha256", "-c", "-r"], b"abc")),
        format!("{sha256} *stdin\n")
    );
    assert_eq!(ok(&run(&["dgst", "-sha256", "-hex", "-binary"], b"abc")), unhex(sha256));
    assert!(ok_text(&run(&["dgst", "-sha256", "-binary", "-hex"], b"abc")).starts_with("SHA2-256"));
    // The last digest flag wins as well.
    assert!(ok_text(&run(&["dgst", "-md5", "-sha1"], b"abc")).starts_with("SHA1(stdin)"));
}

#[test]
fn hmac_rfc4231_and_rfc2202() {
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    let data = b"what do ya want for nothing?";
    let want = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    // From stdin OpenSSL 3.0 labels the line with the digest alone (a file's names the
    // MAC too: HMAC-SHA2-256(f)), and the default digest by its legacy name.
    for (args, label) in [
        (&["dgst", "-sha256", "-hmac", "Jefe"][..], "SHA2-256(stdin)"),
        (&["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:4a656665"][..], "SHA2-256(stdin)"),
        (&["dgst", "-hmac", "Jefe"][..], "SHA256(stdin)"),
    ] {
        assert_eq!(ok_text(&run(args, data)), format!("{label}= {want}\n"), "{args:?}");
    }
    let dir = tempdir();
    let file = path(dir.path(), "f");
    std::fs::write(&file, data).unwrap();
    assert_eq!(
        ok_text(&run(&["dgst", "-sha256", "-hmac", "Jefe", &file], b"")),
        format!("HMAC-SHA2-256({file})= {want}\n")
    );
    assert_eq!(
        ok_text(&run(&["dgst", "-hmac", "Jefe", &file], b"")),
        format!("HMAC-SHA256({file})= {want}\n")
    );
    // RFC 2202 test case 2 (HMAC-MD5).
    assert_eq!(
        ok_text(&run(&["dgst", "-md5", "-hmac", "Jefe", "-r"], data)),
        "750c783e6ab0b503eaa86e310a5db738 *stdin\n"
    );
}

#[test]
fn several_files_and_a_missing_one() {
    let dir = tempdir();
    std::fs::write(dir.path().join("a"), b"abc").unwrap();
    let out = run_in(dir.path(), &["dgst", "-md5", "a", "missing", "a"]);
    let line = format!("MD5(a)= {}\n", ABC[2].2);
    assert_eq!(String::from_utf8(out.stdout.clone()).unwrap(), format!("{line}{line}"));
    fails(&out, 1, "missing: No such file or directory");
}

#[test]
fn out_file_and_bad_input() {
    let dir = tempdir();
    let out_path = path(dir.path(), "d.txt");
    ok(&run(&["dgst", "-sha1", "-out", &out_path], b"abc"));
    assert_eq!(std::fs::read_to_string(&out_path).unwrap(), format!("SHA1(stdin)= {}\n", ABC[3].2));
    fails(&run(&["dgst", "-sha3-999"], b""), 1, "unknown option '-sha3-999'");
    fails(&run(&["dgst", "-in"], b""), 1, "unknown option");
    fails(&run(&["dgst", "-hmac"], b""), 1, "-hmac needs a value");
    fails(&run(&["dgst", "-mac", "NOPE", "-macopt", "key:k"], b""), 1, "unknown MAC 'NOPE'");
    fails(&run(&["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:zz"], b""), 1, "hexkey");
    fails(&run(&["dgst", "-sha256", "-mac", "HMAC"], b""), 1, "needs a key");
    fails(&run(&["dgst", "-macopt", "key:k"], b""), 1, "-macopt needs -mac");
    fails(&run_in(dir.path(), &["dgst", "."]), 1, ".: Is a directory");
    fails(&run(&["dgst", "-out", "/nonexistent/dir/x"], b""), 1, "/nonexistent/dir/x");
}

#[test]
fn agrees_with_openssl_dgst() {
    if !have_openssl("agrees_with_openssl_dgst") {
        return;
    }
    let dir = tempdir();
    let file = path(dir.path(), "data.bin");
    std::fs::write(&file, bytes(1, 100_000)).unwrap();
    for flag in [
        "-md4",
        "-md5",
        "-sha1",
        "-sha224",
        "-sha256",
        "-sha384",
        "-sha512",
        "-sha512-224",
        "-sha512-256",
        "-ripemd160",
    ] {
        for extra in [&[][..], &["-r"], &["-c"], &["-hmac", "k3y"]] {
            let mut args = vec!["dgst", flag];
            args.extend_from_slice(extra);
            args.push(&file);
            let ours = ok_text(&run(&args, b""));
            let mut theirs_args: Vec<&str> = args.clone();
            if flag == "-md4" {
                theirs_args.splice(1..1, LEGACY);
            }
            let theirs = String::from_utf8(openssl(&theirs_args, b"")).unwrap();
            assert_eq!(ours, theirs, "{args:?}");
        }
    }
    // Binary output.
    assert_eq!(
        ok(&run(&["dgst", "-sha384", "-binary", &file], b"")),
        openssl(&["dgst", "-sha384", "-binary", &file], b"")
    );
    // (The default digest's legacy name "SHA256" is OpenSSL 3.0's; not compared here, so
    // that a newer openssl on the path does not fail the test.)
    for x in
        [&["-shake128"][..], &["-shake256", "-xoflen", "100"], &["-shake128", "-c", "-xoflen", "3"]]
    {
        let mut args = vec!["dgst"];
        args.extend_from_slice(x);
        args.push(&file);
        assert_eq!(ok(&run(&args, b"")), openssl(&args, b""), "{args:?}");
    }
}

fn key(name: &str) -> String {
    data(name).to_str().unwrap().to_string()
}

#[test]
fn signatures_sign_verify_and_fail() {
    let dir = tempdir();
    let file = path(dir.path(), "msg.txt");
    std::fs::write(&file, b"message to sign\n").unwrap();
    let sig = path(dir.path(), "sig.bin");
    let (k, p) = (key("rsa2048.pem"), key("rsa2048.pub.pem"));
    for (digest, opts) in [
        ("-sha256", &[][..]),
        ("-sha1", &[]),
        ("-sha512", &["-sigopt", "rsa_padding_mode:pss"]),
        ("-sha384", &["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:digest"]),
        ("-sha3-256", &[]),
    ] {
        let mut s = vec!["dgst", digest, "-sign", k.as_str(), "-out", sig.as_str()];
        s.extend_from_slice(opts);
        s.push(&file);
        assert!(ok(&run(&s, b"")).is_empty());
        assert_eq!(std::fs::read(&sig).unwrap().len(), 256, "binary signature");
        for (flag, keyfile) in [("-verify", &p), ("-prverify", &k)] {
            let mut v = vec!["dgst", digest, flag, keyfile.as_str(), "-signature", sig.as_str()];
            v.extend_from_slice(opts);
            v.push(&file);
            assert_eq!(ok_text(&run(&v, b"")), "Verified OK\n", "{digest} {opts:?}");
            // Another file: the signature does not verify.
            let mut other = v.clone();
            *other.last_mut().unwrap() = p.as_str();
            let out = run(&other, b"");
            assert_eq!(out.status.code(), Some(1));
            assert_eq!(String::from_utf8_lossy(&out.stdout), "Verification failure\n");
        }
    }
    // A PKCS#1 "RSA PUBLIC KEY" verifies too.
    let s = ["dgst", "-sign", k.as_str(), "-out", sig.as_str(), file.as_str()];
    ok(&run(&s, b""));
    let rsapub = key("rsa2048.rsapub.pem");
    let v = ["dgst", "-verify", rsapub.as_str(), "-signature", sig.as_str(), file.as_str()];
    assert_eq!(ok_text(&run(&v, b"")), "Verified OK\n");
    // -hex: the OpenSSL line, with the signature scheme's name.
    let line = ok_text(&run(&["dgst", "-sha256", "-sign", &k, "-hex", &file], b""));
    assert!(line.starts_with(&format!("RSA-SHA2-256({file})= ")) && line.len() > 512, "{line}");
    // PKCS#1 v1.5 signatures are deterministic: stdin gives the same.
    let a = ok(&run(&["dgst", "-sign", &k], b"message to sign\n"));
    assert_eq!(
        a,
        ok(&run(
            &[
                "dgst",
                "-sha256",
                "-sign",
                &key("rsa2048.enc.pem"),
                "-passin",
                "pass:cryptocard",
                &file
            ],
            b""
        ))
    );
}

#[test]
fn signature_errors_leave_outputs_alone() {
    let dir = tempdir();
    let file = path(dir.path(), "msg.txt");
    std::fs::write(&file, b"data").unwrap();
    let out = path(dir.path(), "sig.bin");
    std::fs::write(&out, b"old signature").unwrap();
    let before = listing(dir.path());
    let (k, p) = (key("rsa2048.pem"), key("rsa2048.pub.pem"));
    let enc = key("rsa2048.enc.pem");
    for (args, needle) in [
        (vec!["-sign", enc.as_str(), "-passin", "pass:nope"], "wrong password"),
        (vec!["-sign", p.as_str()], "holds a public key"),
        (vec!["-sign", "/nonexistent/key.pem"], "No such file"),
        (vec!["-sign", k.as_str(), "-sigopt", "rsa_padding_mode:oaep"], "pkcs1, pss or x931"),
        (vec!["-sign", k.as_str(), "-sigopt", "rsa_pss_saltlen:5"], "not valid"),
        (vec!["-sign", k.as_str(), file.as_str()], "can only sign or verify one file"),
        (vec!["-verify", p.as_str()], "-signature"),
        (vec!["-verify", k.as_str(), "-signature", out.as_str()], "holds a private key"),
        (vec!["-sign", k.as_str(), "-verify", p.as_str()], "exclude each other"),
        (vec!["-sign", k.as_str(), "-hmac", "key"], "exclude each other"),
        (vec!["-signature", out.as_str()], "need -sign"),
    ] {
        let mut a = vec!["dgst", "-sha256", "-out", out.as_str()];
        a.extend_from_slice(&args);
        a.push(&file);
        fails(&run(&a, b""), 1, needle);
        assert_eq!(std::fs::read(&out).unwrap(), b"old signature", "{args:?}");
        assert_eq!(listing(dir.path()), before, "{args:?}");
    }
}

#[test]
fn signatures_interoperate_with_openssl_dgst() {
    if !have_openssl("signatures_interoperate_with_openssl_dgst") {
        return;
    }
    let dir = tempdir();
    let file = path(dir.path(), "msg.bin");
    std::fs::write(&file, bytes(6, 5000)).unwrap();
    let sig = path(dir.path(), "sig");
    for (key_file, pub_file, extra) in [
        ("rsa2048.pem", "rsa2048.pub.pem", &[][..]),
        ("rsa2048.pkcs1.der", "rsa2048.pub.der", &["-keyform", "DER"][..]),
        ("rsa2048.enc.pem", "rsa2048.pub.pem", &["-passin", "pass:cryptocard"][..]),
        ("rsa1024-3primes.pem", "rsa1024-3primes.pem", &[][..]),
    ] {
        let (k, p) = (key(key_file), key(pub_file));
        let verify_flag = if key_file == pub_file { "-prverify" } else { "-verify" };
        for opts in [
            &["-sha256"][..],
            &["-sha1"],
            &["-sha512", "-sigopt", "rsa_padding_mode:pss"],
            &[
                "-sha224",
                "-sigopt",
                "rsa_padding_mode:pss",
                "-sigopt",
                "rsa_pss_saltlen:max",
                "-sigopt",
                "rsa_mgf1_md:sha1",
            ],
            &["-sha384", "-sigopt", "rsa_padding_mode:x931"],
            &["-ripemd160"],
        ] {
            let mut s = vec!["dgst", "-sign", k.as_str(), "-out", sig.as_str()];
            s.extend_from_slice(opts);
            s.extend_from_slice(extra);
            s.push(&file);
            let mut v = vec!["dgst", verify_flag, p.as_str(), "-signature", sig.as_str()];
            v.extend_from_slice(opts);
            if verify_flag == "-prverify" || pub_file.ends_with(".der") {
                v.extend_from_slice(extra);
            }
            v.push(&file);
            ok(&run(&s, b""));
            assert_eq!(openssl(&v, b""), b"Verified OK\n", "ours signs: {key_file} {opts:?}");
            openssl(&s, b"");
            assert_eq!(ok(&run(&v, b"")), b"Verified OK\n", "openssl signs: {key_file} {opts:?}");
        }
    }
}

/// `-list` prints the digests in OpenSSL's layout (`-%-25s`, then a space, or a line
/// feed after every third; a last short line ends in its space and a line feed), the rule checked on openssl's own list where installed; each name listed
/// hashes.
#[test]
fn list_in_openssls_layout() {
    // The text OpenSSL's `show_digests` prints for `names`.
    let layout = |names: &[&str]| {
        let mut t = String::from("Supported digests:\n");
        for (i, n) in names.iter().enumerate() {
            t.push_str(&format!("{n:<26}{}", if i % 3 == 2 { "\n" } else { " " }));
        }
        if !names.len().is_multiple_of(3) {
            t.push('\n');
        }
        t
    };
    let text = ok_text(&run(&["dgst", "-list"], b""));
    let names: Vec<&str> = text.split_whitespace().skip(2).collect();
    assert_eq!(text, layout(&names));
    for name in ["-md5", "-ripemd", "-rmd160", "-sha256", "-sha3-256", "-sha512-256", "-shake256"] {
        assert!(names.contains(&name), "{name}: {text}");
    }
    for name in &names {
        ok(&run(&["dgst", name], b"abc"));
    }
    if have_openssl("list_in_openssls_layout") {
        let theirs = String::from_utf8(openssl(&["dgst", "-list"], b"")).unwrap();
        let their_names: Vec<&str> = theirs.split_whitespace().skip(2).collect();
        assert_eq!(theirs, layout(&their_names), "the rule, on openssl's list");
    }
}
