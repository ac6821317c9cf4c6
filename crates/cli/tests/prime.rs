//! `cryptocard prime`: verdicts in OpenSSL's words on known primes and composites,
//! generated primes of the requested size (checked by `openssl prime` where installed),
//! and bad input.

mod common;
use common::*;

#[test]
fn verdicts_in_openssl_format() {
    let out = run(
        &["prime", "17", "18", "0", "1", "2", "561", "170141183460469231731687303715884105727"],
        b"",
    );
    assert_eq!(
        ok_text(&out),
        "11 (17) is prime\n12 (18) is not prime\n0 (0) is not prime\n1 (1) is not prime\n\
         2 (2) is prime\n231 (561) is not prime\n\
         7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF (170141183460469231731687303715884105727) is prime\n"
    );
    // Hex input; a Carmichael number (41041 = 7 * 11 * 13 * 41) and 2^127 - 1 again.
    let out = run(&["prime", "-hex", "a051", "7fffffffffffffffffffffffffffffff", "ff"], b"");
    assert_eq!(
        ok_text(&out),
        "A051 (a051) is not prime\n7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF (7fffffffffffffffffffffffffffffff) is prime\n\
         FF (ff) is not prime\n"
    );
    assert_eq!(
        ok_text(&run(&["prime", "-checks", "3", "--", "-7"], b"")),
        "-7 (-7) is not prime\n"
    );
}

#[test]
fn generated_primes_have_the_size_asked_for() {
    for bits in [2usize, 5, 16, 33, 64, 256] {
        let text = ok_text(&run(&["prime", "-generate", "-bits", &bits.to_string()], b""));
        let dec = text.trim();
        assert!(dec.bytes().all(|c| c.is_ascii_digit()), "{text}");
        // Our own test agrees it is prime; openssl below checks independently.
        assert!(ok_text(&run(&["prime", dec], b"")).ends_with(" is prime\n"));
        let hex = ok_text(&run(&["prime", "-generate", "-bits", &bits.to_string(), "-hex"], b""));
        let hex = hex.trim();
        assert!(hex.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_lowercase()), "{hex}");
        // Exactly `bits` bits, the top two set (as OpenSSL's BN_generate_prime_ex).
        let digits: Vec<u32> = hex.chars().map(|c| c.to_digit(16).unwrap()).collect();
        let first_bits = 32 - digits[0].leading_zeros() as usize;
        assert_eq!(4 * (digits.len() - 1) + first_bits, bits, "{hex}");
        let top_two = if first_bits >= 2 {
            digits[0] >> (first_bits - 2)
        } else {
            digits[0] << 1 | digits[1] >> 3
        };
        assert_eq!(top_two, 3, "{hex}");
    }
    let safe = ok_text(&run(&["prime", "-generate", "-bits", "64", "-safe"], b""));
    let p: u64 = safe.trim().parse().unwrap();
    assert!(p >> 63 == 1);
    let q = (p - 1) / 2;
    assert!(ok_text(&run(&["prime", &q.to_string()], b"")).ends_with(" is prime\n"), "{p}");
}

#[test]
fn openssl_agrees() {
    if !have_openssl("openssl_agrees") {
        return;
    }
    for bits in ["40", "128", "512"] {
        let p = ok_text(&run(&["prime", "-generate", "-bits", bits], b""));
        let theirs = String::from_utf8(openssl(&["prime", p.trim()], b"")).unwrap();
        assert!(theirs.ends_with(" is prime\n"), "{theirs}");
    }
    let nums = [
        "97",
        "1",
        "4294967297",
        "18446744073709551557",
        "340282366920938463463374607431768211457",
    ];
    let mut args = vec!["prime"];
    args.extend(nums);
    assert_eq!(ok_text(&run(&args, b"")), String::from_utf8(openssl(&args, b"")).unwrap());
}

#[test]
fn bad_input() {
    fails(&run(&["prime"], b""), 1, "no number given");
    fails(&run(&["prime", "abc"], b""), 1, "failed to process value (abc)");
    fails(&run(&["prime", "-hex", "xyz"], b""), 1, "failed to process value (xyz)");
    fails(&run(&["prime", "0x11"], b""), 1, "failed to process value (0x11)");
    fails(&run(&["prime", "-generate"], b""), 1, "-bits");
    fails(&run(&["prime", "-generate", "-bits", "1"], b""), 1, "1-bit");
    fails(&run(&["prime", "-generate", "-bits", "99999"], b""), 1, "99999-bit");
    fails(&run(&["prime", "-generate", "-bits", "x"], b""), 1, "-bits: invalid value 'x'");
    fails(&run(&["prime", "-safe", "7"], b""), 1, "need -generate");
    fails(&run(&["prime", "-checks", "0", "7"], b""), 1, "-checks");
    // A number too long is refused in a line of its own length, not echoed whole.
    let huge = format!("1{}1", "0".repeat(5000));
    let out = run(&["prime", "-hex", &huge], b"");
    let line = fails(&out, 1, "100000000000...000000000001, 5002 characters: more than 16384 bits");
    assert!(line.len() < 200, "{line}");
}
