//! `cryptocard rsa`: OpenSSL's RSA-specific key command, on the same key files as
//! [`pkey`](super::pkey).
//!
//! ```text
//! cryptocard rsa [-in F] [-inform PEM|DER] [-passin ARG] [-pubin | -RSAPublicKey_in]
//!                [-out F] [-outform PEM|DER] [-pubout | -RSAPublicKey_out] [-traditional]
//!                [-aes256 -passout ARG] [-text] [-modulus] [-check] [-noout]
//!                [-max-iter N] [-recover-primes]
//! ```
//!
//! As OpenSSL 3.0's `apps/rsa.c`, in its order: the `-text` dump, `Modulus=` and the
//! modulus in upper-case hex, the `-check` verdict (`RSA key ok`; a key that fails is
//! `RSA key not ok` and the reason, exit 1), then, unless `-noout`, `writing RSA key` on
//! stderr and the key: a private key as PKCS#8 (PKCS#1 `RSA PRIVATE KEY` with
//! `-traditional`, encrypted PKCS#8 with `-aes256`, PKCS#1 PEM under legacy encryption,
//! `Proc-Type: 4,ENCRYPTED`, with both), a public one (`-pubin`, `-pubout`)
//! as SubjectPublicKeyInfo, or as PKCS#1 `RSA PUBLIC KEY` with `-RSAPublicKey_out`.
//! Files that hold private material are created owner-only, as `pkey` creates them.

use super::{Spec, no_positional};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};
use crate::hex;
use crate::io::{Mode, Output};
use crate::keyfile::{self, Format, KeyOut, ReadOptions, Want};
use crate::keytext;
use cryptocard::rsa::{RsaKey, RsaPublicKey};

const SPEC: Spec = Spec {
    usage: "rsa [options]",
    flags: &[
        Flag::value("in", "FILE").about("Input key (default stdin)"),
        Flag::value("inform", "PEM|DER").about("Input format (default: by content)"),
        Flag::value("passin", "ARG").about("Input key password source"),
        Flag::switch("pubin").about("Read a public key"),
        Flag::switch("RSAPublicKey_in").about("Read a public key (PKCS#1 RSAPublicKey too)"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("outform", "PEM|DER").about("Output format (default PEM)"),
        Flag::switch("pubout").about("Write the public key (SubjectPublicKeyInfo)"),
        Flag::switch("RSAPublicKey_out").about("Write the public key as PKCS#1 RSAPublicKey"),
        Flag::switch("traditional").about("Write a private key as PKCS#1 (RSA PRIVATE KEY)"),
        Flag::value("passout", "ARG").about("Output key password source (with -aes256)"),
        Flag::switch("text").about("Print the key's components"),
        Flag::switch("modulus").about("Print the modulus"),
        Flag::switch("check").about("Check the private key's consistency and primes"),
        Flag::switch("noout").about("Do not write the key"),
        keyfile::MAX_ITER_FLAG,
        keyfile::RECOVER_PRIMES_FLAG,
    ],
    notes: "-aes256 (-aes-256-cbc), -aes192, -aes128 or -des3: encrypt the written private key\n\
(PKCS#8, PBES2 with PBKDF2-HMAC-SHA256), with the password from -passout\n",
    more: None,
};

/// Runs `rsa`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse_with(argv, &keyfile::is_cipher_flag)? else { return Ok(()) };
    no_positional(&a)?;
    let inform = keyfile::format(a.value("inform"), "inform")?;
    let outform = keyfile::format(a.value("outform"), "outform")?.unwrap_or(Format::Pem);
    let encrypt = keyfile::cipher(&a.dynamic)?;
    let pubin = a.has("pubin") || a.has("RSAPublicKey_in");
    let pkcs1_out = a.has("RSAPublicKey_out");
    let public_out = pubin || a.has("pubout") || pkcs1_out;
    if a.has("check") && pubin {
        return Err(Fail::msg("Only private keys can be checked"));
    }
    let read = ReadOptions { check: a.has("check"), ..ReadOptions::from_args(&a)? };
    let want = if pubin { Want::Public } else { Want::Private };
    let key = keyfile::load(a.value("in"), inform, a.value("passin"), want, &read)?;
    let password =
        keyfile::out_password(encrypt.filter(|_| !public_out), a.value("passout"), "passout")?;
    let dumps_private = a.has("text") && !pubin;
    let holds_private = (!public_out && !a.has("noout")) || dumps_private;
    let mode = if holds_private { Mode::Private } else { Mode::Public };
    let mut out = Output::create(a.value("out"), mode)?;
    if a.has("text") {
        match &key {
            RsaKey::Private(k) => out.put(keytext::private_text(k).as_bytes())?,
            RsaKey::Public(k) => out.put(keytext::public_text(k).as_bytes())?,
        }
    }
    if a.has("modulus") {
        out.put(modulus_line(key.public_key()).as_bytes())?;
    }
    if let (true, RsaKey::Private(k)) = (a.has("check"), &key) {
        // Loading validated the key's consistency (`rsa::validate`); the primes remain.
        super::pkey::check_primes(k, "RSA key not ok")?;
        out.put(b"RSA key ok\n")?;
    }
    if !a.has("noout") {
        eprintln!("writing RSA key");
        let how = KeyOut {
            format: outform,
            public: public_out,
            traditional: a.has("traditional"),
            pkcs1_public: pkcs1_out,
            password: password.as_ref(),
        };
        out.put(&keyfile::encode(&key, &how)?)?;
    }
    out.commit()
}

/// `Modulus=` and n in upper-case hex without leading zeros, as OpenSSL's `BN_print`.
pub(crate) fn modulus_line(k: &RsaPublicKey) -> String {
    let digits = hex::upper(&k.n().to_be_bytes());
    format!("Modulus={}\n", digits.trim_start_matches('0'))
}
