//! `cryptocard enc`: FIPS 81 and FIPS 197 known answers, password-based files with OpenSSL's
//! `Salted__` header, bad input (wrong password, bad hex, unknown cipher, truncated or
//! garbage input) with no output file left behind, and files exchanged with
//! `openssl enc` in both directions.

mod common;
use common::*;

/// FIPS 81 appendices B and C: "Now is the time for all " under 0123456789abcdef.
const KEY: &str = "0123456789abcdef";
const FIPS81_IV: &str = "1234567890abcdef";
const FIPS81_PT: &[u8] = b"Now is the time for all ";
const FIPS81_ECB: &str = "3fa40e8a984d48156a271787ab8883f9893d51ec4b563b53";
const FIPS81_CBC: &str = "e5c7cdde872bf27c43e934008c389c0f683788499a7c05f6";

#[test]
fn fips81_known_answers() {
    let ecb = ok(&run(&["enc", "-des-ecb", "-K", KEY, "-nopad"], FIPS81_PT));
    assert_eq!(tohex(&ecb), FIPS81_ECB);
    let cbc = ok(&run(&["enc", "-des-cbc", "-K", KEY, "-iv", FIPS81_IV, "-nopad"], FIPS81_PT));
    assert_eq!(tohex(&cbc), FIPS81_CBC);
    // Decryption, through the `cryptocard des-cbc` shortcut.
    let pt = ok(&run(&["des-cbc", "-d", "-K", KEY, "-iv", FIPS81_IV, "-nopad"], &cbc));
    assert_eq!(pt, FIPS81_PT);
    // PKCS#7 padding adds one whole block to aligned input; -nopad takes it off.
    let padded = ok(&run(&["enc", "-des-ecb", "-K", KEY], FIPS81_PT));
    assert_eq!(padded.len(), 32);
    assert_eq!(tohex(&padded[..24]), FIPS81_ECB);
}

#[test]
fn every_cipher_round_trips_with_a_password() {
    let data = bytes(2, 1001);
    let list = ok_text(&run(&["enc", "-list"], b""));
    let names: Vec<&str> = list.split_whitespace().filter(|w| w.starts_with('-')).collect();
    assert!(names.len() >= 17, "{list}");
    for name in names {
        for extra in
            [&["-pbkdf2"][..], &["-iter", "3", "-md", "sha1", "-a"], &["-nosalt", "-pbkdf2"]]
        {
            let mut args = vec!["enc", name, "-pass", "pass:pw"];
            args.extend_from_slice(extra);
            let ct = ok(&run(&args, &data));
            assert_ne!(ct, data);
            if !extra.contains(&"-nosalt") && !extra.contains(&"-a") {
                assert_eq!(&ct[..8], b"Salted__", "{name}");
            }
            args.push("-d");
            assert_eq!(ok(&run(&args, &ct)), data, "{name} {extra:?}");
        }
    }
}

#[test]
fn print_key_and_derivations() {
    // -P prints and stops; the same password and salt give the same key and IV.
    let args =
        ["enc", "-des-ede3-cbc", "-pass", "pass:x", "-S", "0102030405060708", "-pbkdf2", "-P"];
    let text = ok_text(&run(&args, b""));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0], "salt=0102030405060708");
    assert!(lines[1].starts_with("key=") && lines[1].len() == 4 + 48, "{text}");
    assert!(lines[2].starts_with("iv =") && lines[2].len() == 4 + 16, "{text}");
    assert_eq!(ok_text(&run(&args, b"")), text);
    // PBKDF2-HMAC-SHA256, 10000 iterations: key || IV is the first 32 bytes of
    // PBKDF2(P="x", S=0102030405060708, c=10000). Cross-check against -iter 10000.
    let mut explicit = args.to_vec();
    explicit.extend(["-iter", "10000"]);
    assert_eq!(ok_text(&run(&explicit, b"")), text);
    // The legacy derivation warns as OpenSSL does.
    let out = run(&["enc", "-des-cbc", "-pass", "pass:x", "-P"], b"");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "*** WARNING : deprecated key derivation used.\nUsing -iter or -pbkdf2 would be better.\n"
    );
}

#[test]
fn wrong_password_leaves_existing_output_untouched() {
    for cipher in ["-des-ede3-cbc", "-aes-256-cbc", "-aes-128-ecb"] {
        wrong_password_case(cipher);
    }
}

/// A wrong password gives `bad decrypt`, exit 1, no new output file and an existing one
/// untouched; the right one decrypts.
fn wrong_password_case(cipher: &str) {
    let dir = tempdir();
    let (ct, out) = (path(dir.path(), "ct.bin"), path(dir.path(), "out.bin"));
    let data = bytes(3, 5000);
    std::fs::write(path(dir.path(), "pt.bin"), &data).unwrap();
    // A fixed salt (`-S`, no header then) makes the keys fixed, so that each wrong password
    // below is known to fail the padding check (a random salt would let one of them
    // through about once in 255 runs).
    let salt = ["-S", "5e1f0c2a9b7d4e36"];
    let enc = ["enc", cipher, "-pbkdf2", "-pass", "pass:right", "-in", "pt.bin", "-out", &ct];
    ok(&run_in(dir.path(), &[&enc[..], &salt[..]].concat()));
    for (i, pw) in ["pass:wrong", "pass:Right", "pass:right ", "pass:"].into_iter().enumerate() {
        // Odd rounds: an existing output file; even rounds: none.
        if i % 2 == 1 {
            std::fs::write(&out, b"precious").unwrap();
        }
        let before = listing(dir.path());
        let dec = ["enc", "-d", cipher, "-pbkdf2", "-pass", pw, "-in", &ct, "-out", &out];
        let r = run(&[&dec[..], &salt[..]].concat(), b"");
        assert_eq!(fails(&r, 1, "bad decrypt"), "bad decrypt", "{cipher} {pw}");
        assert_eq!(listing(dir.path()), before, "{cipher}: no new or temporary file");
        if i % 2 == 1 {
            assert_eq!(std::fs::read(&out).unwrap(), b"precious", "{cipher}");
            std::fs::remove_file(&out).unwrap();
        }
    }
    let dec = ["enc", "-d", cipher, "-pbkdf2", "-pass", "pass:right", "-in", &ct, "-out", &out];
    ok(&run(&[&dec[..], &salt[..]].concat(), b""));
    assert_eq!(std::fs::read(&out).unwrap(), data, "{cipher}");
}

#[test]
fn bad_input_is_one_line_and_no_file() {
    let dir = tempdir();
    let out = path(dir.path(), "out");
    let key = ["-K", KEY, "-iv", FIPS81_IV];
    let e = |args: &[&str], stdin: &[u8], needle: &str| {
        let mut a = vec!["enc"];
        a.extend_from_slice(args);
        a.extend(["-out", &out]);
        fails(&run(&a, stdin), 1, needle);
        assert!(listing(dir.path()).is_empty(), "{args:?} left a file");
    };
    e(&["-des-cbc", "-d", key[0], key[1], key[2], key[3]], &[0u8; 12], "bad decrypt");
    e(&["-des-cbc", "-d", key[0], key[1], key[2], key[3]], &[0u8; 16], "bad decrypt");
    e(&["-des-cbc", "-K", "zz", "-iv", FIPS81_IV], b"x", "invalid hex key value");
    e(&["-des-cbc", "-K", KEY, "-iv", "xyz"], b"x", "invalid hex iv value");
    e(&["-des-cbc", "-K", KEY], b"x", "iv undefined");
    e(&["-des-cbc"], b"x", "no key");
    e(&["-des-cbc", "-pass", "bogus"], b"x", "invalid password argument");
    e(&["-des-cbc", "-pass", "file:/nonexistent/pw"], b"x", "invalid password argument");
    e(&["-des-cbc", "-pass", "env:CRYPTOCARD_TEST_UNSET_VARIABLE"], b"x", "is not set");
    e(&["-aes-128-gcm", "-K", KEY], b"x", "unknown option '-aes-128-gcm'");
    e(&["-aes-128-ecb", "-nopad", "-K", &AES_KEY[..32]], &[7u8; 17], "not a multiple of 16");
    e(&["-des-cbc", "-iter", "0", "-pass", "pass:x"], b"x", "-iter");
    e(&["-des-cbc", "-iter", "many", "-pass", "pass:x"], b"x", "-iter: invalid value");
    e(&["-des-cbc", "-md", "whirlpool", "-pass", "pass:x"], b"x", "unknown digest 'whirlpool'");
    e(
        &["-des-cbc", "-in", "/nonexistent/in", "-K", KEY, "-iv", FIPS81_IV],
        b"",
        "/nonexistent/in: No such file",
    );
    e(&["-des-cbc", "-d", "-pass", "pass:x", "-pbkdf2"], b"Salted_", "error reading input file");
    e(
        &["-des-cbc", "-d", "-pass", "pass:x", "-pbkdf2"],
        b"NotSalted_______xxxxxxxx",
        "bad magic number",
    );
    e(&["-des-cbc", "-d", "-a", "-pass", "pass:x", "-pbkdf2"], b"U2FsdGVk*X1", "invalid base64");
    e(&["-des-ecb", "-nopad", "-K", KEY], b"12345", "not a multiple of 8");
    e(&["-des-cbc", "stray"], b"", "unexpected argument 'stray'");
}

#[test]
fn openssl_reads_ours_and_we_read_theirs() {
    if !have_openssl("openssl_reads_ours_and_we_read_theirs") {
        return;
    }
    let data = bytes(4, 3333);
    // Triple-DES is in OpenSSL's default provider; single DES needs the legacy one.
    let ciphers = [
        "des-ede3-cbc",
        "des-ede3",
        "des-ede3-cfb",
        "des-ede3-ofb",
        "des-ede-cbc",
        "des-ede",
        "des-cbc",
        "des-ecb",
        "des-cfb",
        "des-ofb",
        "des-cfb8",
        "des-ede3-cfb8",
    ];
    // A salt given with -S: no header either way, and the same bytes from both.
    let given_salt: &[&str] = &["-pbkdf2", "-S", "a1b2c3d4e5f60718"];
    let kdfs: [&[&str]; 5] = [
        &["-pbkdf2"],
        &["-iter", "1000", "-md", "sha512"],
        &["-md", "md5"],
        &["-pbkdf2", "-nosalt", "-a"],
        given_salt,
    ];
    for cipher in ciphers {
        let flag = format!("-{cipher}");
        let legacy: &[&str] = if cipher.starts_with("des-ede") { &[] } else { &LEGACY };
        for kdf in kdfs {
            let mut ours = vec!["enc", flag.as_str(), "-pass", "pass:s3cret"];
            ours.extend_from_slice(kdf);
            let mut theirs = ours.clone();
            theirs.extend_from_slice(legacy);
            // Ours encrypts, OpenSSL decrypts.
            let ct = ok(&run(&ours, &data));
            let mut d = theirs.clone();
            d.push("-d");
            assert_eq!(openssl(&d, &ct), data, "openssl -d {cipher} {kdf:?}");
            // OpenSSL encrypts, ours decrypts.
            let theirs_ct = openssl(&theirs, &data);
            let mut d = ours.clone();
            d.push("-d");
            assert_eq!(ok(&run(&d, &theirs_ct)), data, "ours -d {cipher} {kdf:?}");
            if kdf == given_salt {
                assert_eq!(ct, theirs_ct, "{cipher} -S");
            }
        }
        // Raw keys: the same bytes both ways.
        let key = &"00112233445566778899aabbccddeeff0123456789abcdef"[..2 * key_len(cipher)];
        let mut ours = vec!["enc", flag.as_str(), "-K", key];
        if !matches!(cipher, "des-ecb" | "des-ede" | "des-ede3") {
            ours.extend(["-iv", "0f1e2d3c4b5a6978"]);
        }
        let mut theirs = ours.clone();
        theirs.extend_from_slice(legacy);
        assert_eq!(ok(&run(&ours, &data)), openssl(&theirs, &data), "{cipher} -K");
    }
    // -P agrees, for both derivations.
    for kdf in [&["-pbkdf2", "-iter", "7"][..], &["-md", "sha1"]] {
        let mut args =
            vec!["enc", "-des-ede3-cbc", "-pass", "pass:pw", "-S", "a1b2c3d4e5f60718", "-P"];
        args.extend_from_slice(kdf);
        assert_eq!(ok(&run(&args, b"")), openssl(&args, b""), "{kdf:?}");
    }
}

fn key_len(cipher: &str) -> usize {
    if let Some(bits) = cipher.strip_prefix("aes-").and_then(|c| c.get(..3)) {
        bits.parse::<usize>().unwrap() / 8
    } else if cipher.starts_with("des-ede3") {
        24
    } else if cipher.starts_with("des-ede") {
        16
    } else {
        8
    }
}

/// FIPS 197 Appendix C's key bytes 00 01 02 ... (the first 16, 24 or 32 are used).
const AES_KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

/// Every AES cipher name `-list` shows.
const AES_CIPHERS: [&str; 18] = [
    "aes-128-ecb",
    "aes-128-cbc",
    "aes-128-cfb",
    "aes-128-cfb8",
    "aes-128-ofb",
    "aes-128-ctr",
    "aes-192-ecb",
    "aes-192-cbc",
    "aes-192-cfb",
    "aes-192-cfb8",
    "aes-192-ofb",
    "aes-192-ctr",
    "aes-256-ecb",
    "aes-256-cbc",
    "aes-256-cfb",
    "aes-256-cfb8",
    "aes-256-ofb",
    "aes-256-ctr",
];

#[test]
fn fips197_known_answers_and_aes_names() {
    // FIPS 197 Appendix C.1 to C.3, through enc and through the shortcut.
    let pt = unhex("00112233445566778899aabbccddeeff");
    for (bits, ct) in [
        (128, "69c4e0d86a7b0430d8cdb78070b4c55a"),
        (192, "dda97ca4864cdfe06eaf70a0ec0d7191"),
        (256, "8ea2b7ca516745bfeafc49904b496089"),
    ] {
        let key = &AES_KEY[..bits / 4];
        let flag = format!("-aes-{bits}-ecb");
        assert_eq!(tohex(&ok(&run(&["enc", &flag, "-K", key, "-nopad"], &pt))), ct);
        let name = format!("aes-{bits}-ecb");
        assert_eq!(ok(&run(&[&name, "-d", "-K", key, "-nopad"], &unhex(ct))), pt);
    }
    // -list shows every AES cipher.
    let list = ok_text(&run(&["enc", "-list"], b""));
    for c in AES_CIPHERS {
        assert!(list.split_whitespace().any(|w| w == format!("-{c}")), "{c} missing: {list}");
    }
    // The aliases aes128/192/256 are CBC, and aes-*-cfb128 is aes-*-cfb.
    let data = bytes(5, 100);
    let iv = "0f0e0d0c0b0a09080706050403020100";
    for bits in [128, 192, 256] {
        let key = &AES_KEY[..bits / 4];
        let cbc = ok(&run(&["enc", &format!("-aes-{bits}-cbc"), "-K", key, "-iv", iv], &data));
        assert_eq!(cbc.len(), 112);
        assert_eq!(ok(&run(&["enc", &format!("-aes{bits}"), "-K", key, "-iv", iv], &data)), cbc);
        assert_eq!(ok(&run(&[&format!("aes{bits}"), "-K", key, "-iv", iv], &data)), cbc);
        let cfb = ok(&run(&["enc", &format!("-aes-{bits}-cfb"), "-K", key, "-iv", iv], &data));
        let cfb128 =
            ok(&run(&["enc", &format!("-aes-{bits}-cfb128"), "-K", key, "-iv", iv], &data));
        assert_eq!(cfb, cfb128);
        assert_eq!(cfb.len(), 100);
    }
    // `cryptocard aes-128-ctr` is `enc -aes-128-ctr`.
    let args = ["-K", &AES_KEY[..32], "-iv", iv];
    let a = ok(&run(&[&["aes-128-ctr"][..], &args].concat(), &data));
    let b = ok(&run(&[&["enc", "-aes-128-ctr"][..], &args].concat(), &data));
    assert_eq!(a, b);
    assert_ne!(a, data);
    // -P shows a 32-byte key and a 16-byte IV.
    let text = ok_text(&run(
        &["enc", "-aes-256-cbc", "-pass", "pass:x", "-pbkdf2", "-S", "0102030405060708", "-P"],
        b"",
    ));
    let key_line = text.lines().find(|l| l.starts_with("key=")).unwrap();
    let iv_line = text.lines().find(|l| l.starts_with("iv =")).unwrap();
    assert_eq!(key_line.len(), 4 + 64, "{text}");
    assert_eq!(iv_line.len(), 4 + 32, "{text}");
}

#[test]
fn aes_openssl_reads_ours_and_we_read_theirs() {
    if !have_openssl("aes_openssl_reads_ours_and_we_read_theirs") {
        return;
    }
    // 3333 bytes: not whole blocks, so the padding and the stream modes' partial
    // keystream block are both exercised.
    let data = bytes(7, 3333);
    let kdfs: [&[&str]; 3] =
        [&["-pbkdf2"], &["-iter", "1000", "-md", "sha512", "-a"], &["-md", "md5"]];
    for cipher in AES_CIPHERS {
        let flag = format!("-{cipher}");
        for kdf in kdfs {
            let mut args = vec!["enc", flag.as_str(), "-pass", "pass:s3cret"];
            args.extend_from_slice(kdf);
            let ct = ok(&run(&args, &data));
            let mut d = args.clone();
            d.push("-d");
            assert_eq!(openssl(&d, &ct), data, "openssl -d {cipher} {kdf:?}");
            let ct = openssl(&args, &data);
            assert_eq!(ok(&run(&d, &ct)), data, "ours -d {cipher} {kdf:?}");
        }
        // Raw keys: the same bytes both ways, and each decrypts the other's.
        let mut args = vec!["enc", flag.as_str(), "-K", &AES_KEY[..2 * key_len(cipher)]];
        if !cipher.ends_with("-ecb") {
            args.extend(["-iv", "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"]);
        }
        let ours = ok(&run(&args, &data));
        assert_eq!(ours, openssl(&args, &data), "{cipher} -K");
        let mut d = args.clone();
        d.push("-d");
        assert_eq!(openssl(&d, &ours), data, "openssl -d {cipher} -K");
        // Whole blocks with -nopad, where the mode pads.
        if cipher.ends_with("-cbc") || cipher.ends_with("-ecb") {
            args.push("-nopad");
            let ours = ok(&run(&args, &data[..3328]));
            assert_eq!(ours.len(), 3328);
            assert_eq!(ours, openssl(&args, &data[..3328]), "{cipher} -nopad");
        }
    }
}

/// `-list` (and `-ciphers`) names every cipher and alias in OpenSSL's layout (`-%-25s`,
/// three to a line, as `dgst -list`), and each name listed derives a key (`-P`).
#[test]
fn list_in_openssls_layout() {
    let text = ok_text(&run(&["enc", "-list"], b""));
    assert_eq!(text, ok_text(&run(&["enc", "-ciphers"], b"")));
    let names: Vec<&str> = text.split_whitespace().skip(2).collect();
    for name in ["-aes-256-cbc", "-des-ede3-cbc", "-des3", "-aes128", "-des"] {
        assert!(names.contains(&name), "{name}: {text}");
    }
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("Supported ciphers:"));
    for line in lines {
        let cells = line.split_whitespace().count();
        assert!((1..=3).contains(&cells) && line.len() == 27 * cells - usize::from(cells == 3));
    }
    for name in names {
        let out = run(&["enc", name, "-pbkdf2", "-k", "pw", "-S", "0011223344556677", "-P"], b"");
        assert!(ok_text(&out).contains("key="), "{name}");
    }
}

/// `-none`: no cipher, the data copied, or with `-a` base64 only, as `openssl enc -none`;
/// with a cipher too it is refused rather than guessed at.
#[test]
fn none_copies() {
    let data = b"hello\n";
    assert_eq!(ok(&run(&["enc", "-none"], data)), data);
    assert_eq!(ok_text(&run(&["enc", "-none", "-a"], data)), "aGVsbG8K\n");
    assert_eq!(ok(&run(&["enc", "-none", "-d", "-a"], b"aGVsbG8K\n")), data);
    fails(&run(&["enc", "-none", "-aes-128-cbc", "-k", "pw"], data), 1, "-none");
    if have_openssl("none_copies") {
        assert_eq!(ok(&run(&["enc", "-none", "-a"], data)), openssl(&["enc", "-none", "-a"], data));
    }
}
