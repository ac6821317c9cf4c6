//! `cryptocard pkcs8` beside `openssl pkcs8`, and the key ciphers of `pkey`, `genpkey`,
//! `genrsa` and `rsa`: keys OpenSSL encrypted under OpenSSL 1.0's default
//! (pbeWithSHA1And3-KeyTripleDES-CBC) and under PBES1 (MD5 and DES) read by every key
//! command; keys we encrypt under each scheme read back by us and, where OpenSSL is
//! installed, by it; OpenSSL 3.0's output forms (DER decrypted to PKCS#1).

mod common;

use common::*;

const PLAIN: &str = "rsa2048.pem";

fn file(name: &str) -> String {
    data(name).to_str().unwrap().to_string()
}

/// The DER of des-ede3-cbc's, aes-128-cbc's and pbeWithSHA1And3-KeyTripleDES-CBC's OIDs.
const DES_EDE3_CBC: &[u8] = &[0x06, 0x08, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x03, 0x07];
const AES_128_CBC: &[u8] = &[0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x02];
const PBE_SHA1_3DES: &[u8] =
    &[0x06, 0x0a, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c, 0x01, 0x03];

fn has(der: &[u8], oid: &[u8]) -> bool {
    der.windows(oid.len()).any(|w| w == oid)
}

/// OpenSSL's old schemes, read by pkcs8 and pkey alike.
#[test]
fn reads_openssls_legacy_encrypted_keys() {
    let plain = std::fs::read(data(PLAIN)).unwrap();
    for f in ["rsa2048.pbe-sha1-3des.pem", "rsa2048.pbe-md5-des.der"] {
        let pw = ["-passin", "pass:cryptocard"];
        assert_eq!(ok(&run(&["pkcs8", "-in", &file(f), pw[0], pw[1]], b"")), plain, "{f}");
        assert_eq!(ok(&run(&["pkey", "-in", &file(f), pw[0], pw[1]], b"")), plain, "{f}");
        fails(&run(&["pkey", "-in", &file(f), "-passin", "pass:wrong"], b""), 1, "wrong password");
    }
    // Decrypted to DER: PKCS#1, as OpenSSL 3.0 writes it; -traditional for PEM.
    let der = ok(&run(
        &[
            "pkcs8",
            "-in",
            &file("rsa2048.pbe-sha1-3des.pem"),
            "-passin",
            "pass:cryptocard",
            "-outform",
            "DER",
        ],
        b"",
    ));
    assert_eq!(der, std::fs::read(data("rsa2048.pkcs1.der")).unwrap());
    let pem = ok(&run(
        &[
            "pkcs8",
            "-in",
            &file("rsa2048.pbe-sha1-3des.pem"),
            "-passin",
            "pass:cryptocard",
            "-traditional",
        ],
        b"",
    ));
    assert_eq!(pem, std::fs::read(data("rsa2048.pkcs1.pem")).unwrap());
}

const SCHEMES: &[(&[&str], &[u8])] = &[
    (&[], &[0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2a]),
    (&["-v1", "PBE-SHA1-3DES"], PBE_SHA1_3DES),
    (&["-v2", "des3", "-v2prf", "hmacWithSHA512", "-iter", "3000"], DES_EDE3_CBC),
    (&["-v2", "aes128", "-noiter"], AES_128_CBC),
    (
        &["-v1", "PBE-SHA1-RC2-40"],
        &[0x06, 0x0a, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c, 0x01, 0x06],
    ),
    (&["-v1", "PBE-MD5-DES"], &[0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x03]),
];

/// -topk8 under each scheme: the scheme's OID in the file, read back by us and by
/// OpenSSL (with its legacy provider for DES and RC2).
#[test]
fn topk8_under_every_scheme() {
    let plain = std::fs::read(data(PLAIN)).unwrap();
    let openssl_here = have_openssl("topk8_under_every_scheme");
    let input = file(PLAIN);
    for (args, oid) in SCHEMES {
        let mut cmd =
            vec!["pkcs8", "-topk8", "-in", &input, "-passout", "pass:pw", "-outform", "DER"];
        cmd.extend(*args);
        let der = ok(&run(&cmd, b""));
        assert!(has(&der, oid), "{args:?}");
        let back = ok(&run(&["pkcs8", "-inform", "DER", "-passin", "pass:pw"], &der));
        assert_eq!(back, plain, "{args:?}");
        if openssl_here {
            let mut theirs = vec!["pkcs8", "-inform", "DER", "-passin", "pass:pw"];
            theirs.extend(LEGACY);
            assert_eq!(openssl(&theirs, &der), plain, "OpenSSL reads our {args:?}");
        }
    }
    let nocrypt =
        ok(&run(&["pkcs8", "-topk8", "-nocrypt", "-in", &file("rsa2048.pkcs1.pem")], b""));
    assert_eq!(nocrypt, plain);
}

/// The key-writing commands take -des3, -aes128 and -aes192 beside -aes256.
#[test]
fn key_commands_take_the_other_ciphers() {
    let plain = std::fs::read(data(PLAIN)).unwrap();
    for (flag, oid) in [("-des3", DES_EDE3_CBC), ("-aes128", AES_128_CBC)] {
        let der = ok(&run(
            &["pkey", "-in", &file(PLAIN), flag, "-passout", "pass:pw", "-outform", "DER"],
            b"",
        ));
        assert!(has(&der, oid), "pkey {flag}");
        assert_eq!(ok(&run(&["pkey", "-inform", "DER", "-passin", "pass:pw"], &der)), plain);
        let pem = ok_text(&run(&["genrsa", flag, "-passout", "pass:pw", "1024"], b""));
        assert!(pem.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"), "genrsa {flag}");
        ok(&run(&["pkey", "-passin", "pass:pw", "-check", "-noout"], pem.as_bytes()));
    }
    fails(
        &run(&["pkey", "-in", &file(PLAIN), "-des", "-passout", "pass:pw"], b""),
        1,
        "unknown option",
    );
    fails(
        &run(&["pkey", "-in", &file(PLAIN), "-camellia128", "-passout", "pass:pw"], b""),
        1,
        "-des3",
    );
}

#[test]
fn bad_options_say_which() {
    let k = file(PLAIN);
    fails(&run(&["pkcs8", "-topk8", "-in", &k], b""), 1, "-passout");
    fails(
        &run(&["pkcs8", "-topk8", "-in", &k, "-v1", "aes-256-cbc", "-passout", "pass:x"], b""),
        1,
        "-v1",
    );
    fails(
        &run(&["pkcs8", "-topk8", "-in", &k, "-v2", "PBE-SHA1-3DES", "-passout", "pass:x"], b""),
        1,
        "-v2",
    );
    fails(
        &run(
            &[
                "pkcs8",
                "-topk8",
                "-in",
                &k,
                "-v1",
                "PBE-SHA1-3DES",
                "-v2prf",
                "hmacWithSHA256",
                "-passout",
                "pass:x",
            ],
            b"",
        ),
        1,
        "-v2prf",
    );
    fails(
        &run(&["pkcs8", "-topk8", "-in", &k, "-v2prf", "hmacWithMD5", "-passout", "pass:x"], b""),
        1,
        "-v2prf",
    );
    fails(
        &run(&["pkcs8", "-topk8", "-in", &k, "-iter", "0", "-passout", "pass:x"], b""),
        1,
        "-iter",
    );
}
