//! `cryptocard genpkey`: a new RSA key, as `openssl genpkey -algorithm RSA`.
//!
//! ```text
//! cryptocard genpkey -algorithm RSA [-pkeyopt rsa_keygen_bits:N] [-pkeyopt rsa_keygen_pubexp:E]
//!                    [-pkeyopt rsa_keygen_primes:K] [-out F] [-outform PEM|DER]
//!                    [-aes-256-cbc -pass ARG] [-text]
//! ```
//!
//! Defaults as OpenSSL's: 2048 bits, e = 65537, two primes; the key is written as PKCS#8
//! ("PRIVATE KEY"), encrypted PKCS#8 with a cipher flag, owner-readable only. Key
//! generation is the library's (`rsa::keygen`: FIPS 186-5 A.1.3 probable primes, RFC 8017
//! multi-prime keys with OpenSSL's prime-count limits). Keys of 512 to 1023 bits are made
//! as OpenSSL makes them, with a warning: they are too small to be secure.

use super::{Spec, no_positional};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};
use crate::keyfile::{self, Format};
use cryptocard::rsa::{KeyGenOptions, RsaPrivateKey};

const SPEC: Spec = Spec {
    usage: "genpkey -algorithm RSA [options]",
    flags: &[
        Flag::value("algorithm", "ALG").about("Key algorithm (RSA)"),
        Flag::value("pkeyopt", "OPT:VALUE")
            .about("rsa_keygen_bits:N, rsa_keygen_pubexp:E, rsa_keygen_primes:K"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("outform", "PEM|DER").about("Output format (default PEM)"),
        Flag::value("pass", "ARG").about("Output key password source (with -aes-256-cbc)"),
        Flag::switch("text").about("Also print the key's components"),
        Flag::switch("quiet").about("Print no progress (there is none)"),
    ],
    notes: "-aes256 (-aes-256-cbc), -aes192, -aes128 or -des3: encrypt the key (PKCS#8, PBES2,\n\
            PBKDF2-HMAC-SHA256)\n",
    more: None,
};

/// The default key size, as OpenSSL's.
pub const DEFAULT_BITS: usize = 2048;

/// Runs `genpkey`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse_with(argv, &keyfile::is_cipher_flag)? else { return Ok(()) };
    no_positional(&a)?;
    match a.value("algorithm") {
        Some(alg) if alg.eq_ignore_ascii_case("rsa") => {}
        Some(alg) => return Err(Fail::msg(format!("algorithm {alg} is not supported (RSA is)"))),
        None => return Err(Fail::msg("no algorithm: give -algorithm RSA")),
    }
    let mut opts = KeyGenOptions::new(DEFAULT_BITS);
    for opt in a.values("pkeyopt") {
        let (k, v) = opt
            .split_once(':')
            .ok_or_else(|| Fail::msg(format!("-pkeyopt '{opt}': expected OPT:VALUE")))?;
        let bad = || Fail::msg(format!("-pkeyopt {k}: invalid value '{v}'"));
        match k {
            "rsa_keygen_bits" => opts.bits = v.parse().map_err(|_| bad())?,
            "rsa_keygen_primes" => opts.primes = v.parse().map_err(|_| bad())?,
            "rsa_keygen_pubexp" => opts.public_exponent = parse_u64(v).ok_or_else(bad)?,
            _ => {
                return Err(Fail::msg(format!(
                    "-pkeyopt: unknown RSA key generation option '{k}'"
                )));
            }
        }
    }
    let encrypt = keyfile::cipher(&a.dynamic)?;
    let password = keyfile::out_password(encrypt, a.value("pass"), "pass")?;
    let format = keyfile::format(a.value("outform"), "outform")?.unwrap_or(Format::Pem);
    let key = generate(opts)?;
    write_key(&key, a.value("out"), format, false, password.as_ref(), a.has("text"))
}

/// A decimal or `0x` hexadecimal 64-bit number (OpenSSL's `rsa_keygen_pubexp`).
fn parse_u64(v: &str) -> Option<u64> {
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// Generates a key as `opts` says, allowing OpenSSL's small sizes with a warning.
pub fn generate(mut opts: KeyGenOptions) -> CmdResult<RsaPrivateKey> {
    if (512..1024).contains(&opts.bits) {
        eprintln!("warning: a {}-bit RSA key is too small to be secure", opts.bits);
        opts.allow_small = true;
    }
    RsaPrivateKey::generate_with(&opts, &mut cryptocard::rng::OsRng)
        .map_err(|e| Fail::lib(&format!("generating a {}-bit key", opts.bits), e))
}

/// Writes a new private key (owner-only file), then its `-text` dump if asked.
pub fn write_key(
    key: &RsaPrivateKey,
    path: Option<&str>,
    format: Format,
    traditional: bool,
    password: Option<&keyfile::KeyPassword>,
    text: bool,
) -> CmdResult {
    let bytes = keyfile::encode_private(key, format, traditional, password)?;
    let mut out = crate::io::Output::create(path, crate::io::Mode::Private)?;
    out.put(&bytes)?;
    if text {
        out.put(crate::keytext::private_text(key).as_bytes())?;
    }
    out.commit()
}
