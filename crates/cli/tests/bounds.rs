//! What a hostile key file, signature or parameter may cost a command (issue 18, section
//! 3): each run answers with one clear line within a time limit, and is killed, failing
//! the test, if it does not. The hostile files are made by tests/data/hostile-keys.py
//! (see tests/data/README.md).

mod common;
use common::*;

/// Seconds a command may run: far above what the bounded code needs, far below what
/// the unbounded code took on these files.
const LIMIT: u64 = 5;

fn key(name: &str) -> String {
    data(name).to_str().unwrap().to_string()
}

/// A PKCS#1 key with only n, e and d is read with -recover-primes only; a plain read
/// names the flag. Recovery is bounded: n = p^8 is refused at once.
#[test]
fn keys_with_only_n_e_d_need_recover_primes() {
    let ned = key("rsa2048.ned.der");
    let line = fails(&run_within(LIMIT, &["pkey", "-in", &ned, "-noout"]), 1, "-recover-primes");
    assert!(line.contains("rsa2048.ned.der") && line.contains("only n, e and d"), "{line}");
    let full = ok(&run_within(LIMIT, &["pkey", "-in", &ned, "-recover-primes"]));
    assert_eq!(full, std::fs::read(data("rsa2048.pem")).unwrap());
    let p8 = key("hostile-p8.ned.der");
    fails(&run_within(LIMIT, &["pkey", "-in", &p8, "-noout"]), 1, "-recover-primes");
    fails(
        &run_within(LIMIT, &["pkey", "-in", &p8, "-recover-primes", "-noout"]),
        1,
        "the modulus is a perfect power",
    );
    let dir = tempdir();
    let file = path(dir.path(), "data");
    std::fs::write(&file, b"signed").unwrap();
    fails(&run_within(LIMIT, &["dgst", "-sha256", "-sign", &ned, &file]), 1, "-recover-primes");
    ok(&run_within(LIMIT, &["dgst", "-sha256", "-sign", &ned, "-recover-primes", &file]));
}

/// Keys that fail a bound of the import: -check (and -pubcheck) say "Key is invalid" and
/// why, where they used to say "Key is valid".
#[test]
fn check_says_why_a_key_is_invalid() {
    let cases = [
        ("hostile-small-q.der", "a prime factor is shorter than 64 bits"),
        ("hostile-big-e.der", "public exponent longer than 64 bits"),
    ];
    for (file, why) in cases {
        let k = key(file);
        let line = fails(&run_within(LIMIT, &["pkey", "-in", &k, "-check", "-noout"]), 1, why);
        assert!(line.ends_with(&format!("Key is invalid: {why}")), "{line}");
        let line = fails(&run_within(LIMIT, &["pkey", "-in", &k, "-noout"]), 1, why);
        assert!(line.contains("could not read key") && line.contains(file), "{line}");
    }
    let public = key("hostile-big-e.pub.der");
    let args = ["pkey", "-pubin", "-in", &public, "-pubcheck", "-noout"];
    fails(&run_within(LIMIT, &args), 1, "Key is invalid: public exponent longer than 64 bits");
}

/// PBKDF2: 10,000,000 iterations are refused before any (the ceiling is 1,000,000 unless
/// -max-iter raises it), and a ciphertext of 15 bytes before the key derivation.
#[test]
fn pbkdf2_ceiling_and_max_iter() {
    let pw = ["-passin", "pass:x"];
    let hostile = key("hostile-iter.der");
    let line = fails(
        &run_within(LIMIT, &["pkey", "-in", &hostile, pw[0], pw[1], "-noout"]),
        1,
        "-max-iter",
    );
    assert!(line.contains("more than 1000000 PBKDF2 iterations"), "{line}");
    let short = key("hostile-short.der");
    fails(
        &run_within(LIMIT, &["pkey", "-in", &short, pw[0], pw[1], "-noout"]),
        1,
        "not a whole number of cipher blocks",
    );
    // OpenSSL's 2048 iterations: refused under -max-iter 2047, read under 2048.
    let enc = key("rsa2048.enc.pem");
    let args = |max: &'static str| {
        vec!["pkey", "-in", enc.as_str(), "-passin", "pass:cryptocard", "-max-iter", max]
    };
    let line = fails(&run_within(LIMIT, &args("2047")), 1, "give -max-iter N");
    assert!(line.contains("more than 2047 PBKDF2 iterations"), "{line}");
    assert_eq!(ok(&run_within(LIMIT, &args("2048"))), std::fs::read(data("rsa2048.pem")).unwrap());
    fails(&run_within(LIMIT, &args("0")), 1, "-max-iter: at least 1");
    fails(&run_within(LIMIT, &args("many")), 1, "-max-iter: invalid value");
}

/// Keys, signatures and RSA inputs are read up to 1 MiB: /dev/zero is refused, where it
/// used to be read until memory ran out.
#[cfg(unix)]
#[test]
fn key_and_signature_inputs_are_capped() {
    let zero = "/dev/zero";
    let public = key("rsa2048.pub.pem");
    let dir = tempdir();
    let file = path(dir.path(), "data");
    std::fs::write(&file, b"signed").unwrap();
    let sig = path(dir.path(), "sig");
    std::fs::write(&sig, [1u8; 256]).unwrap();
    let runs: [(&[&str], &str); 5] = [
        (&["pkey", "-in", zero], "a key"),
        (&["pkey", "-pubin", "-in", zero], "a key"),
        (&["dgst", "-sha256", "-verify", &public, "-signature", zero, &file], "a signature"),
        (
            &["pkeyutl", "-verify", "-pubin", "-inkey", &public, "-in", zero, "-sigfile", &sig],
            "an RSA input",
        ),
        (
            &["pkeyutl", "-verify", "-pubin", "-inkey", &public, "-in", &file, "-sigfile", zero],
            "a signature",
        ),
    ];
    for (args, what) in runs {
        let line = fails(&run_within(LIMIT, args), 1, "/dev/zero: more than 1 MiB");
        assert!(line.ends_with(&format!("too large for {what}")), "{args:?}: {line}");
    }
}
