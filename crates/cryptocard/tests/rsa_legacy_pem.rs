//! Legacy encrypted PEM ("RSA PRIVATE KEY" with `Proc-Type: 4,ENCRYPTED` and `DEK-Info`,
//! RFC 1421 section 4.6.1): keys OpenSSL 3.0.19 wrote under each cipher (tests/data/rsa,
//! see its README) decrypt to the key they hold, ours read back, and every fault in a
//! header or body is an error, not a panic. OpenSSL reading ours is in `rsa_openssl.rs`.

use cryptocard::Error;
use cryptocard::cipher::Algorithm;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{RsaKey, RsaPrivateKey, key_from_pem};

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/rsa/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn plain_key() -> RsaPrivateKey {
    RsaPrivateKey::from_pem(&data("rsa1024.pem"), None).unwrap()
}

/// The files' cipher flags, the block ciphers, and their `DEK-Info` names.
const CIPHERS: [(&str, Algorithm, &str); 6] = [
    ("des3", Algorithm::DesEde3, "DES-EDE3-CBC"),
    ("aes128", Algorithm::Aes128, "AES-128-CBC"),
    ("aes192", Algorithm::Aes192, "AES-192-CBC"),
    ("aes256", Algorithm::Aes256, "AES-256-CBC"),
    ("des-ede-cbc", Algorithm::DesEde, "DES-EDE-CBC"),
    ("des", Algorithm::Des, "DES-CBC"),
];

#[test]
fn openssl_keys_decrypt_under_every_cipher() {
    let want = plain_key();
    for (file, _, dek) in CIPHERS {
        let pem = data(&format!("rsa1024_traditional_{file}.pem"));
        assert!(pem.contains(&format!("DEK-Info: {dek},")), "{file}");
        assert_eq!(RsaPrivateKey::from_pem(&pem, Some(b"cryptocard")).unwrap(), want, "{file}");
        assert_eq!(RsaPrivateKey::from_pkcs1_encrypted_pem(&pem, b"cryptocard").unwrap(), want);
        // A wrong password is bad padding or, rarely, a plaintext that is not a key.
        assert_eq!(
            RsaPrivateKey::from_pem(&pem, Some(b"Cryptocard")),
            Err(Error::InvalidEncoding("wrong password or corrupt key")),
            "{file}"
        );
        assert!(
            matches!(key_from_pem(&pem, None), Err(Error::InvalidArgument(why)) if why.contains("password"))
        );
        assert!(RsaPrivateKey::from_pkcs1_pem(&pem).is_err(), "{file}");
    }
}

#[test]
fn ours_read_back_with_crlf_and_around_other_text() {
    let key = plain_key();
    for (_, cipher, dek) in CIPHERS {
        let pem = key.to_pkcs1_encrypted_pem(b"pw", cipher, &mut OsRng).unwrap();
        let lines: Vec<&str> = pem.lines().collect();
        assert_eq!(lines[0], "-----BEGIN RSA PRIVATE KEY-----");
        assert_eq!(lines[1], "Proc-Type: 4,ENCRYPTED");
        assert!(lines[2].starts_with(&format!("DEK-Info: {dek},")), "{}", lines[2]);
        assert_eq!(lines[3], "");
        match key_from_pem(&pem, Some(b"pw")).unwrap() {
            RsaKey::Private(k) => assert_eq!(k, key),
            RsaKey::Public(_) => panic!("a public key"),
        }
        let crlf = format!("Bag Attributes\r\n{}trailer\r\n", pem.replace('\n', "\r\n"));
        assert_eq!(RsaPrivateKey::from_pem(&crlf, Some(b"pw")).unwrap(), key);
    }
    // A fresh IV each time.
    let a = key.to_pkcs1_encrypted_pem(b"pw", Algorithm::Aes256, &mut OsRng).unwrap();
    let b = key.to_pkcs1_encrypted_pem(b"pw", Algorithm::Aes256, &mut OsRng).unwrap();
    assert_ne!(a, b);
}

#[test]
fn faulty_headers_and_bodies_are_errors() {
    let pem = data("rsa1024_traditional_des3.pem");
    let dek = pem.lines().nth(2).unwrap().to_string();
    let cases: Vec<(String, &str)> = vec![
        (pem.replace("Proc-Type: 4,ENCRYPTED", "Proc-Type: 4,MIC-ONLY"), "MIC-ONLY"),
        (pem.replace("Proc-Type: 4,ENCRYPTED\n", ""), "no Proc-Type"),
        (pem.replace(&format!("{dek}\n"), ""), "no DEK-Info"),
        (pem.replace(&format!("{dek}\n"), &format!("{dek}\n{dek}\n")), "two DEK-Info"),
        (pem.replace("\n\n", "\n"), "no blank line"),
        (pem.replace("DEK-Info: DES-EDE3-CBC", "DEK-Info: IDEA-CBC"), "IDEA"),
        (pem.replace("DEK-Info: DES-EDE3-CBC", "DEK-Info: AES-128-CBC"), "short IV"),
        (pem.replace("DEK-Info: DES-EDE3-CBC,", "DEK-Info: DES-EDE3-CBC;"), "no comma"),
        (pem.replace("Proc-Type", "Comment: x\nProc-Type"), "other header"),
        (pem.replace("RSA PRIVATE KEY", "PRIVATE KEY"), "PKCS#8 label"),
    ];
    for (text, what) in cases {
        assert!(key_from_pem(&text, Some(b"cryptocard")).is_err(), "{what}");
    }
    // A body cut to a part block, or to nothing.
    let body_start = pem.find("\n\n").unwrap() + 2;
    let first_line_end = body_start + pem[body_start..].find('\n').unwrap();
    let cut = format!("{}{}", &pem[..body_start], &pem[first_line_end + 1..]);
    let short = format!("{}Zm9v\n-----END RSA PRIVATE KEY-----\n", &pem[..body_start]);
    assert!(matches!(key_from_pem(&short, Some(b"cryptocard")), Err(Error::InvalidEncoding(_))));
    let empty = format!("{}-----END RSA PRIVATE KEY-----\n", &pem[..body_start]);
    assert!(key_from_pem(&empty, Some(b"cryptocard")).is_err());
    // A block whose lines were cut decrypts to garbage: the wrong-password error.
    assert!(key_from_pem(&cut, Some(b"cryptocard")).is_err());
}
