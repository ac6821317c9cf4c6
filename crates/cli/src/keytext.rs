//! The `-text` dumps of RSA keys (`pkey -text`, `genpkey -text`), as OpenSSL 3 prints them:
//! `Private-Key: (2048 bit, 2 primes)`, `modulus:`, `publicExponent: 65537 (0x10001)`, ...
//! or `Public-Key: (2048 bit)`, `Modulus:`, `Exponent:`, each number as OpenSSL's
//! `ossl_bio_print_labeled_bignum` writes it.
//!
//! A private key's dump holds its primes and exponents, so it is built in one
//! [`Zeroizing`] string, wiped when dropped, whose capacity is reserved up front
//! ([`private_capacity`]): a `String` that outgrows its allocation copies its bytes to a
//! new one and frees the old one unwiped. Each number's bytes pass through a wiped buffer
//! too, and the hex digits are written straight into the dump (no per-line strings).

use cryptocard::bignum::Nat;
use cryptocard::rsa::{RsaPrivateKey, RsaPublicKey};
use std::fmt::Write as _;
use zeroize::Zeroizing;

/// Room for a number's label and its short forms: `coefficient10: 18446744073709551615
/// (0xffffffffffffffff)` and its line ending fit.
const LABEL_ROOM: usize = 64;

/// The most bytes the dump of a number of `bytes` bytes takes: the label, then per byte
/// (one more for a leading zero) two hex digits and a colon, and per line of fifteen
/// bytes an indent of four and a line ending.
fn number_room(bytes: usize) -> usize {
    let b = bytes + 1;
    LABEL_ROOM + 3 * b + 5 * b.div_ceil(15)
}

/// The capacity [`private_text`] reserves for `k`: the header and `3 + 3 * primes`
/// numbers (n, e, d, and each prime's value, exponent and coefficient), none longer than
/// the modulus.
pub fn private_capacity(k: &RsaPrivateKey) -> usize {
    LABEL_ROOM + (3 + 3 * k.primes().len()) * number_room(k.size())
}

/// The `-text` dump of a private key, wiped when dropped.
pub fn private_text(k: &RsaPrivateKey) -> Zeroizing<String> {
    let primes = k.primes();
    let mut s = Zeroizing::new(String::with_capacity(private_capacity(k)));
    let _ = writeln!(s, "Private-Key: ({} bit, {} primes)", k.bits(), primes.len());
    let (exps, coeffs) = (k.crt_exponents(), k.crt_coefficients());
    let public = k.public_key();
    number(&mut s, "modulus:", &public.n());
    number(&mut s, "publicExponent:", public.e());
    number(&mut s, "privateExponent:", k.d());
    let items: [(&str, Option<&Nat>); 5] = [
        ("prime1:", primes.first()),
        ("prime2:", primes.get(1)),
        ("exponent1:", exps.first()),
        ("exponent2:", exps.get(1)),
        ("coefficient:", coeffs.first()),
    ];
    for (label, n) in items {
        if let Some(n) = n {
            number(&mut s, label, n);
        }
    }
    for (i, prime) in primes.iter().enumerate().skip(2) {
        number(&mut s, &format!("prime{}:", i + 1), prime);
        if let Some(e) = exps.get(i) {
            number(&mut s, &format!("exponent{}:", i + 1), e);
        }
        if let Some(c) = coeffs.get(i - 1) {
            number(&mut s, &format!("coefficient{}:", i + 1), c);
        }
    }
    debug_assert!(s.len() <= private_capacity(k), "internal error: -text outgrew its room");
    s
}

/// The `-text` dump of a public key.
pub fn public_text(k: &RsaPublicKey) -> String {
    let mut s = format!("Public-Key: ({} bit)\n", k.bits());
    number(&mut s, "Modulus:", &k.n());
    number(&mut s, "Exponent:", k.e());
    s
}

/// One labelled number as OpenSSL's `ossl_bio_print_labeled_bignum`: up to eight bytes as
/// `label 65537 (0x10001)`, longer ones as lines of fifteen colon-separated hex bytes
/// indented by four, with a leading 00 byte when the top bit is set.
fn number(s: &mut String, label: &str, n: &Nat) {
    if n.is_zero() {
        let _ = writeln!(s, "{label} 0");
        return;
    }
    if let Some(v) = n.to_u64() {
        let _ = writeln!(s, "{label} {v} (0x{v:x})");
        return;
    }
    let bytes = Zeroizing::new(n.to_be_bytes());
    let lead = (bytes[0] >= 0x80).then_some(&0u8);
    let _ = writeln!(s, "{label}");
    for (i, b) in lead.into_iter().chain(bytes.iter()).enumerate() {
        match i % 15 {
            0 if i > 0 => s.push_str(":\n    "),
            0 => s.push_str("    "),
            _ => s.push(':'),
        }
        let _ = write!(s, "{b:02x}");
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_openssl_does() {
        let mut s = String::new();
        number(&mut s, "publicExponent:", &Nat::from_u64(65537));
        number(&mut s, "x:", &Nat::from_u64(0));
        assert_eq!(s, "publicExponent: 65537 (0x10001)\nx: 0\n");
        let mut s = String::new();
        let big = Nat::from_be_bytes(&[0xff; 16]);
        number(&mut s, "modulus:", &big);
        assert_eq!(s, "modulus:\n    00:ff:ff:ff:ff:ff:ff:ff:ff:ff:ff:ff:ff:ff:ff:\n    ff:ff\n");
        let mut s = String::new();
        number(&mut s, "n:", &Nat::from_be_bytes(&[0x7f; 15]));
        assert_eq!(s, format!("n:\n    {}\n", ["7f"; 15].join(":")));
    }

    /// The private dump never outgrows the capacity reserved for it, so no unwiped copy
    /// of its digits is left behind by a reallocation: the string still has exactly that
    /// capacity (a grown one would have more).
    #[test]
    fn private_dump_is_built_in_one_allocation() {
        for pem in [
            include_str!("../tests/data/rsa2048.pem"),
            include_str!("../tests/data/rsa1024-3primes.pem"),
        ] {
            let k = RsaPrivateKey::from_pem(pem, None).unwrap();
            let text = private_text(&k);
            assert!(text.starts_with("Private-Key: ("), "{}", &text[..40]);
            assert_eq!(text.capacity(), private_capacity(&k));
            assert!(text.len() > private_capacity(&k) / 4, "the bound is not absurdly loose");
        }
    }
}
