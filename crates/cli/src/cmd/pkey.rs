//! `cryptocard pkey`: read, convert, print and check RSA keys, as `openssl pkey`.
//!
//! ```text
//! cryptocard pkey [-in F] [-inform PEM|DER] [-passin ARG] [-pubin]
//!                 [-out F] [-outform PEM|DER] [-pubout] [-traditional] [-aes256 -passout ARG]
//!                 [-text] [-text_pub] [-noout] [-check] [-pubcheck]
//!                 [-max-iter N] [-recover-primes]
//! ```
//!
//! Output, in OpenSSL's order: the `-check` verdict (`Key is valid`, as OpenSSL 3.0
//! prints it), the key (PKCS#8, or PKCS#1 with `-traditional`, in PEM under legacy
//! encryption if a cipher is given too, or SubjectPublicKeyInfo with `-pubout` or
//! `-pubin`) unless `-noout`, then the `-text` dump:
//! `Private-Key: (2048 bit, 2 primes)`, `modulus:`, `publicExponent: 65537 (0x10001)`,
//! ... with numbers as colon-separated hex bytes, fifteen a line, or
//! `Public-Key: (2048 bit)`, `Modulus:`, `Exponent:` (see `keytext`).
//!
//! A file that will hold private material (the private key, or the `-text` dump of its
//! primes and exponents, `-noout` or not) is created owner-only (0600), as OpenSSL
//! creates it; public keys and public dumps as the umask allows.
//!
//! `-check` re-runs what loading already checked (n = product of the primes, e·d = 1 mod
//! lambda(n), the CRT values, the bounds on e and on the primes' sizes; `rsa::validate`)
//! and tests each prime with Miller-Rabin (`modular::prime::is_probable_prime`, constant
//! time: the primes are secret). A key that fails a check of loading is reported as
//! `Key is invalid: ` and the check's reason, as a prime that fails Miller-Rabin is.
//!
//! `-recover-primes` reads a PKCS#1 key that holds only n, e and d (its CRT fields zero)
//! by recovering p and q, once, so that `-out` writes the full key for the other commands;
//! `-max-iter N` accepts an encrypted key with more PBKDF2 iterations than the default
//! ceiling (see `keyfile`).

use super::{Spec, no_positional};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};
use crate::io::{Mode, Output};
use crate::keyfile::{self, Format, KeyOut, ReadOptions, Want};
use crate::keytext;
use cryptocard::modular::prime::{ADVERSARIAL_ROUNDS, is_probable_prime};
use cryptocard::rng::OsRng;
use cryptocard::rsa::{RsaKey, RsaPrivateKey};

const SPEC: Spec = Spec {
    usage: "pkey [options]",
    flags: &[
        Flag::value("in", "FILE").about("Input key (default stdin)"),
        Flag::value("inform", "PEM|DER").about("Input format (default: by content)"),
        Flag::value("passin", "ARG").about("Input key password source"),
        Flag::switch("pubin").about("Read a public key"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("outform", "PEM|DER").about("Output format (default PEM)"),
        Flag::switch("pubout").about("Write the public key"),
        Flag::switch("traditional").about("Write a private key as PKCS#1 (RSA PRIVATE KEY)"),
        Flag::value("passout", "ARG").about("Output key password source (with -aes256)"),
        Flag::switch("text").about("Print the key's components"),
        Flag::switch("text_pub").about("Print the public components only"),
        Flag::switch("noout").about("Do not write the key"),
        Flag::switch("check").about("Check the private key's consistency and primes"),
        Flag::switch("pubcheck").about("Check the public key"),
        keyfile::MAX_ITER_FLAG,
        keyfile::RECOVER_PRIMES_FLAG,
    ],
    notes: "-aes256 (-aes-256-cbc), -aes192, -aes128 or -des3: encrypt the written private key\n\
(PKCS#8, PBES2 with PBKDF2-HMAC-SHA256), with the password from -passout\n",
    more: None,
};

/// Runs `pkey`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse_with(argv, &keyfile::is_cipher_flag)? else { return Ok(()) };
    no_positional(&a)?;
    let inform = keyfile::format(a.value("inform"), "inform")?;
    let outform = keyfile::format(a.value("outform"), "outform")?.unwrap_or(Format::Pem);
    let encrypt = keyfile::cipher(&a.dynamic)?;
    let pubin = a.has("pubin");
    let checking = a.has("check") || a.has("pubcheck");
    let read = ReadOptions { check: checking, ..ReadOptions::from_args(&a)? };
    let want = if pubin { Want::Public } else { Want::Private };
    let key = keyfile::load(a.value("in"), inform, a.value("passin"), want, &read)?;
    let public_out = a.has("pubout") || pubin;
    let password =
        keyfile::out_password(encrypt.filter(|_| !public_out), a.value("passout"), "passout")?;
    let mut text = String::new();
    if a.has("check") || a.has("pubcheck") {
        if let (true, RsaKey::Private(k)) = (a.has("check"), &key) {
            check_primes(k, "Key is invalid")?;
        } else if a.has("check") {
            return Err(Fail::msg("-check needs a private key (use -pubcheck for public keys)"));
        }
        text.push_str("Key is valid\n");
    }
    // Owner-only whenever the file will hold private material: the private key, or the
    // `-text` dump of its primes and exponents (with `-noout` too), as OpenSSL writes it.
    let dumps_private = a.has("text") && !a.has("text_pub") && !public_out;
    let holds_private = !public_out && (!a.has("noout") || dumps_private);
    let mode = if holds_private { Mode::Private } else { Mode::Public };
    let mut out = Output::create(a.value("out"), mode)?;
    out.put(text.as_bytes())?;
    if !a.has("noout") {
        let how = KeyOut {
            format: outform,
            public: public_out,
            traditional: a.has("traditional"),
            pkcs1_public: false,
            password: password.as_ref(),
        };
        out.put(&keyfile::encode(&key, &how)?)?;
    }
    match (&key, a.has("text"), a.has("text_pub") || (a.has("text") && public_out)) {
        (_, _, true) => out.put(keytext::public_text(key.public_key()).as_bytes())?,
        (RsaKey::Private(k), true, false) => out.put(keytext::private_text(k).as_bytes())?,
        (RsaKey::Public(k), true, false) => out.put(keytext::public_text(k).as_bytes())?,
        _ => {}
    }
    out.commit()
}

/// Miller-Rabin on every prime of the key; fails with `verdict: primeN is not prime`
/// (OpenSSL's wording: `Key is invalid` for `pkey`, `RSA key not ok` for `rsa`).
pub(super) fn check_primes(k: &RsaPrivateKey, verdict: &str) -> CmdResult {
    for (i, p) in k.primes().iter().enumerate() {
        let prime = is_probable_prime(p, ADVERSARIAL_ROUNDS, &mut OsRng)
            .map_err(|e| Fail::lib("-check", e))?;
        if !prime {
            return Err(Fail::msg(format!("{verdict}: prime{} is not prime", i + 1)));
        }
    }
    Ok(())
}
