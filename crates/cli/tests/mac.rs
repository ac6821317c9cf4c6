//! `cryptocard mac`: HMAC and the DES MACs in `openssl mac` syntax. Known answers from
//! FIPS 113 (via Bouncy Castle's MacTest), ISO/IEC 9797-1 algorithm 3 and RFC 4231;
//! agreement with `openssl mac` (HMAC) and with CBC encryption by `openssl enc` (the
//! CBC-MAC is its last block).

mod common;
use common::*;

/// FIPS 113 / ANSI X9.9 example: "7654321 Now is the time for " under 0123456789abcdef.
const FIPS113_MSG: &[u8] = b"7654321 Now is the time for ";

#[test]
fn des_macs_known_answers() {
    let tag = ok_text(&run(&["mac", "-macopt", "hexkey:0123456789abcdef", "CBC-MAC"], FIPS113_MSG));
    assert_eq!(tag, "F1D30F6849312CA4\n");
    // FIPS 113 allows shorter tags: the leftmost bytes (the published 32-bit MAC).
    let tag = ok_text(&run(
        &["mac", "-macopt", "hexkey:0123456789abcdef", "-macopt", "size:4", "fips113"],
        FIPS113_MSG,
    ));
    assert_eq!(tag, "F1D30F68\n");
    // Bouncy Castle MacTest output6: PKCS#7 padding.
    let tag = ok_text(&run(
        &["mac", "-macopt", "hexkey:0123456789abcdef", "-macopt", "padding:pkcs7", "DES-MAC"],
        FIPS113_MSG,
    ));
    assert_eq!(tag, "7045EECDCDE48FF2\n");
    // ISO/IEC 9797-1 MAC algorithm 3 (Bouncy Castle's ISO9797Alg3Mac vector).
    let tag = ok(&run(
        &["mac", "-macopt", "hexkey:7ca110454a1a6e570131d9619dc1376e", "-binary", "RETAIL-MAC"],
        b"Hello World !!!!",
    ));
    assert_eq!(tohex(&tag), "f09b856213bab83b");
}

#[test]
fn hmac_rfc4231() {
    // RFC 4231 test case 2.
    let dir = tempdir();
    let input = path(dir.path(), "in");
    std::fs::write(&input, b"what do ya want for nothing?").unwrap();
    for (digest, want) in [
        ("SHA256", "5BDCC146BF60754E6A042426089575C75A003F089D2739839DEC58B964EC3843"),
        ("sha224", "A30E01098BC6DBBF45690F3A7E9E6D0F8BBEA2A39E6148008FD05E44"),
    ] {
        let out =
            run(&["mac", "-digest", digest, "-macopt", "key:Jefe", "-in", &input, "HMAC"], b"");
        assert_eq!(ok_text(&out), format!("{want}\n"));
        let out = run(
            &[
                "mac",
                "-macopt",
                &format!("digest:{digest}"),
                "-macopt",
                "hexkey:4a656665",
                "-in",
                &input,
                "hmac",
            ],
            b"",
        );
        assert_eq!(ok_text(&out), format!("{want}\n"));
        // In an -out file, the hex alone, as openssl mac writes it there.
        let file = path(dir.path(), "tag");
        let args = ["mac", "-digest", digest, "-macopt", "key:Jefe", "-in", &input, "-out", &file];
        ok(&run(&[&args[..], &["HMAC"]].concat(), b""));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), want);
    }
}

#[test]
fn bad_input() {
    fails(&run(&["mac"], b""), 1, "no MAC name");
    fails(&run(&["mac", "GMAC"], b""), 1, "unknown MAC 'GMAC'");
    fails(&run(&["mac", "-macopt", "key:k", "HMAC"], b""), 1, "needs a digest");
    fails(&run(&["mac", "-digest", "sha256", "HMAC"], b""), 1, "needs a key");
    fails(
        &run(&["mac", "-digest", "nope", "-macopt", "key:k", "HMAC"], b""),
        1,
        "unknown digest 'nope'",
    );
    fails(&run(&["mac", "-macopt", "hexkey:0g", "CBC-MAC"], b""), 1, "hexkey");
    fails(&run(&["mac", "-macopt", "hexkey:0011", "CBC-MAC"], b""), 1, "CBC-MAC key is 2 bytes");
    fails(&run(&["mac", "-macopt", "hexkey:0011223344556677", "RETAIL-MAC"], b""), 1, "16 bytes");
    fails(
        &run(&["mac", "-macopt", "key:12345678", "-macopt", "size:9", "CBC-MAC"], b""),
        1,
        "size:9",
    );
    fails(
        &run(&["mac", "-macopt", "key:12345678", "-macopt", "padding:4", "CBC-MAC"], b""),
        1,
        "padding:4",
    );
    fails(
        &run(&["mac", "-macopt", "key:12345678", "-macopt", "color:red", "CBC-MAC"], b""),
        1,
        "'color'",
    );
    fails(&run(&["mac", "-macopt", "nocolon", "HMAC"], b""), 1, "OPT:VALUE");
    // The key is what the named cipher takes (an 8-byte key under des-ede3-cbc would be
    // single DES), and the mode is CBC.
    let k8 = "hexkey:0123456789abcdef";
    let ede3 = ["mac", "-cipher", "des-ede3-cbc", "-macopt", k8, "CBC-MAC"];
    fails(&run(&ede3, b""), 1, "des-ede3-cbc takes 24");
    let ofb = ["mac", "-cipher", "des-ede3-ofb", "-macopt", k8, "CBC-MAC"];
    fails(&run(&ofb, b""), 1, "unknown cipher 'des-ede3-ofb'");
    fails(
        &run(&["mac", "-macopt", "key:12345678", "-in", "/nonexistent", "CBC-MAC"], b""),
        1,
        "/nonexistent",
    );
    fails(
        &run(&["mac", "-macopt", "key:12345678", "CBC-MAC", "extra"], b""),
        1,
        "unexpected argument 'extra'",
    );
}

#[test]
fn agrees_with_openssl() {
    if !have_openssl("agrees_with_openssl") {
        return;
    }
    let data = bytes(5, 777);
    for digest in ["SHA1", "SHA256", "SHA512", "MD5", "SHA512-256"] {
        let args = ["mac", "-digest", digest, "-macopt", "hexkey:000102030405", "HMAC"];
        assert_eq!(ok(&run(&args, &data)), openssl(&args, &data), "{digest}");
    }
    // CBC-MAC with padding method 2 and a triple-DES key is the last block of
    // des-ede3-cbc over the padded data with a zero IV.
    let key = "00112233445566778899aabbccddeeff0011223344556677";
    let mut padded = data.clone();
    padded.push(0x80);
    padded.resize(padded.len().div_ceil(8) * 8, 0);
    let ct =
        openssl(&["enc", "-des-ede3-cbc", "-nopad", "-K", key, "-iv", "0000000000000000"], &padded);
    let tag = ok(&run(
        &["mac", "-binary", "-macopt", &format!("hexkey:{key}"), "-macopt", "padding:2", "CBC-MAC"],
        &data,
    ));
    assert_eq!(tag, ct[ct.len() - 8..]);
    // The retail MAC: DES-CBC under K, then the last block decrypted under K' and
    // encrypted under K again (ISO/IEC 9797-1 output transformation 3).
    let (k1, k2) = ("0123456789abcdef", "fedcba9876543210");
    let mut zero_padded = data.clone();
    zero_padded.resize(zero_padded.len().div_ceil(8) * 8, 0);
    let des = |k: &str, d: bool, input: &[u8]| {
        let mut a = vec!["enc", "-des-cbc", "-nopad", "-K", k, "-iv", "0000000000000000"];
        if d {
            a.push("-d");
        }
        a.extend_from_slice(&LEGACY);
        openssl(&a, input)
    };
    let h = des(k1, false, &zero_padded);
    let g = des(k1, false, &des(k2, true, &h[h.len() - 8..]));
    let tag =
        ok(&run(&["mac", "-binary", "-macopt", &format!("hexkey:{k1}{k2}"), "RETAIL-MAC"], &data));
    assert_eq!(tag, g);
    // CMAC over every cipher OpenSSL's takes, through mac and dgst -mac, byte for byte.
    for (cipher, key) in [
        ("AES-128-CBC", "2b7e151628aed2a6abf7158809cf4f3c"),
        ("aes-256-cbc", "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"),
        ("DES-EDE3-CBC", "8aa83bf8cbda10620bc1bf19fbb6cd58bc313d4a371ca8b5"),
        ("DES-EDE-CBC", "4cf15134a2850dd58a3d10ba80570d38"),
    ] {
        let hexkey = format!("hexkey:{key}");
        for data in [&data[..], &[][..], &data[..32]] {
            let args = ["mac", "-cipher", cipher, "-macopt", &hexkey, "CMAC"];
            assert_eq!(ok(&run(&args, data)), openssl(&args, data), "{cipher}");
        }
        let mac_opts = ["-mac", "cmac", "-macopt", &format!("cipher:{cipher}"), "-macopt", &hexkey];
        for extra in [&[][..], &["-sha256"][..], &["-r"][..]] {
            let args = [&["dgst"][..], &mac_opts[..], extra].concat();
            assert_eq!(ok(&run(&args, &data)), openssl(&args, &data), "dgst {cipher} {extra:?}");
        }
    }
}

/// CMAC (NIST SP 800-38B): the example tags of the standard through `mac`, and its
/// refusals.
#[test]
fn cmac_examples_and_refusals() {
    let dir = tempdir();
    let msg = path(dir.path(), "msg");
    // SP 800-38B example 2's message (one AES block) and its AES-128 and three-key
    // triple-DES (first 8 bytes) tags.
    std::fs::write(&msg, unhex("6bc1bee22e409f96e93d7e117393172a")).unwrap();
    let aes =
        ["mac", "-cipher", "aes-128-cbc", "-macopt", "hexkey:2b7e151628aed2a6abf7158809cf4f3c"];
    let out = run(&[&aes[..], &["-in", &msg, "CMAC"]].concat(), b"");
    assert_eq!(ok_text(&out), "070A16B46B4D4144F79BDD9DD04A287C\n");
    std::fs::write(&msg, unhex("6bc1bee22e409f96")).unwrap();
    let key = "hexkey:8aa83bf8cbda10620bc1bf19fbb6cd58bc313d4a371ca8b5";
    let tdes = ["mac", "-macopt", "cipher:des-ede3-cbc", "-macopt", key, "-in", &msg, "cmac"];
    assert_eq!(ok_text(&run(&tdes, b"")), "8E8F293136283797\n");
    for (args, needle) in [
        (&["mac", "-macopt", "hexkey:00", "CMAC"][..], "needs a cipher"),
        (&["mac", "-cipher", "aes-128-ctr", "-macopt", "hexkey:00", "CMAC"][..], "unknown cipher"),
        (&["mac", "-cipher", "aes-128-cbc", "-macopt", "hexkey:0011", "CMAC"][..], "takes 16"),
        (&["mac", "-cipher", "aes-128-cbc", "CMAC"][..], "needs a key"),
        (
            &["mac", "-cipher", "aes-128-cbc", "-macopt", "hexkey:00", "-macopt", "size:4", "CMAC"]
                [..],
            "size",
        ),
        (
            &["mac", "-cipher", "aes-128-cbc", "-macopt", "hexkey:00", "CBC-MAC"][..],
            "unknown cipher",
        ),
    ] {
        fails(&run(args, b"x"), 1, needle);
    }
}
