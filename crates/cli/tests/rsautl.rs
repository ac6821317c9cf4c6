//! `cryptocard rsautl` beside `openssl rsautl`: signatures equal OpenSSL's and recover
//! (`-verify`) in both directions, encryption with each padding opens on the other side,
//! `-certin` takes a certificate's key, and refusals fail with one line.

mod common;

use common::*;

const MSG: &[u8] = b"hello payment system";

fn key() -> String {
    data("rsa2048.pem").to_str().unwrap().to_string()
}

fn rsautl(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut all = vec!["rsautl"];
    all.extend_from_slice(args);
    run(&all, stdin)
}

#[test]
fn signatures_recover_and_match_openssl() {
    let dir = tempdir();
    let k = key();
    let sig = ok(&rsautl(&["-sign", "-inkey", &k], MSG));
    assert_eq!(sig.len(), 256);
    let sig_path = path(dir.path(), "sig");
    std::fs::write(&sig_path, &sig).unwrap();
    // -verify is the default and recovers the signed bytes.
    assert_eq!(ok(&rsautl(&["-inkey", &k, "-in", &sig_path], b"")), MSG);
    let pubkey = data("rsa2048.pub.pem");
    let out =
        rsautl(&["-verify", "-pubin", "-inkey", pubkey.to_str().unwrap(), "-in", &sig_path], b"");
    assert_eq!(ok(&out), MSG);
    // Raw: the input is the whole block.
    let mut block = bytes(7, 256);
    block[0] = 0;
    let raw = ok(&rsautl(&["-sign", "-raw", "-inkey", &k], &block));
    std::fs::write(&sig_path, &raw).unwrap();
    assert_eq!(ok(&rsautl(&["-verify", "-raw", "-inkey", &k, "-in", &sig_path], b"")), block);
    if have_openssl("rsautl") {
        assert_eq!(sig, openssl(&["rsautl", "-sign", "-inkey", &k], MSG));
        assert_eq!(raw, openssl(&["rsautl", "-sign", "-raw", "-inkey", &k], &block));
        let theirs = openssl(&["rsautl", "-sign", "-inkey", &k], b"from openssl");
        std::fs::write(&sig_path, &theirs).unwrap();
        assert_eq!(ok(&rsautl(&["-verify", "-inkey", &k, "-in", &sig_path], b"")), b"from openssl");
    }
}

#[test]
fn encryption_opens_on_either_side() {
    let dir = tempdir();
    let k = key();
    let pubkey = data("rsa2048.pub.pem");
    let p = pubkey.to_str().unwrap();
    // A certificate of the key, for -certin.
    let cert = path(dir.path(), "cert.pem");
    ok(&run(&["req", "-new", "-x509", "-key", &k, "-subj", "/CN=rsautl", "-out", &cert], b""));
    let have = have_openssl("rsautl");
    for pad in ["-pkcs", "-oaep"] {
        for (flag, keyfile) in [("-pubin", p), ("-certin", cert.as_str())] {
            let ct = ok(&rsautl(&["-encrypt", pad, flag, "-inkey", keyfile], MSG));
            let ct_path = path(dir.path(), "ct");
            std::fs::write(&ct_path, &ct).unwrap();
            assert_eq!(ok(&rsautl(&["-decrypt", pad, "-inkey", &k, "-in", &ct_path], b"")), MSG);
            if have {
                assert_eq!(
                    openssl(&["rsautl", "-decrypt", pad, "-inkey", &k, "-in", &ct_path], b""),
                    MSG
                );
                let theirs =
                    openssl(&["rsautl", "-encrypt", pad, flag, "-inkey", keyfile], b"theirs");
                std::fs::write(&ct_path, &theirs).unwrap();
                let back = ok(&rsautl(&["-decrypt", pad, "-inkey", &k, "-in", &ct_path], b""));
                assert_eq!(back, b"theirs", "{pad} {flag}");
            }
        }
    }
    let hex = String::from_utf8(ok(&rsautl(&["-encrypt", "-pubin", "-inkey", p, "-hexdump"], MSG)))
        .unwrap();
    assert!(hex.starts_with("0000 - "), "{hex}");
}

#[test]
fn refusals_say_why() {
    let k = key();
    let pubkey = data("rsa2048.pub.pem");
    let p = pubkey.to_str().unwrap();
    fails(&rsautl(&["-sign", "-pubin", "-inkey", p], MSG), 1, "a private key is needed");
    fails(&rsautl(&["-decrypt", "-certin", "-inkey", p], MSG), 1, "-certin");
    fails(&rsautl(&["-sign", "-x931", "-inkey", &k], MSG), 1, "x931 needs a SHA-1 or SHA-2 digest");
    fails(&rsautl(&["-sign", "-inkey", &k], &[1u8; 300]), 1, "data too large for the key size");
    fails(&rsautl(&["-sign"], MSG), 1, "-inkey");
}
