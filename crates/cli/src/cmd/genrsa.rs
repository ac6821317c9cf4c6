//! `cryptocard genrsa`: a new RSA key, as OpenSSL 3's `openssl genrsa`, which writes
//! PKCS#8 ("PRIVATE KEY") unless `-traditional` asks for PKCS#1 ("RSA PRIVATE KEY",
//! under legacy PEM encryption, `Proc-Type: 4,ENCRYPTED`, with a cipher).
//!
//! ```text
//! cryptocard genrsa [-out F] [-aes256 -passout ARG] [-primes K] [-F4|-f4|-3] [-traditional]
//!                   [NUMBITS]
//! ```
//!
//! NUMBITS defaults to 2048; e to 65537 (F4), or 3 with `-3`.

use super::Spec;
use super::genpkey::{DEFAULT_BITS, generate, write_key};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};
use crate::keyfile::{self, Format};
use cryptocard::rsa::KeyGenOptions;

const SPEC: Spec = Spec {
    usage: "genrsa [options] [NUMBITS]",
    flags: &[
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("passout", "ARG").about("Output key password source (with -aes256)"),
        Flag::value("primes", "K").about("Number of primes (default 2)"),
        Flag::switch("F4").about("Use 65537 as the public exponent (the default)"),
        Flag::switch("f4").about("Same as -F4"),
        Flag::switch("3").about("Use 3 as the public exponent"),
        Flag::switch("traditional").about("Write PKCS#1 (RSA PRIVATE KEY) instead of PKCS#8"),
        Flag::switch("verbose").about("Print no progress (there is none)"),
    ],
    notes: "-aes256 (-aes-256-cbc), -aes192, -aes128 or -des3: encrypt the key (PKCS#8, PBES2,\n\
            PBKDF2-HMAC-SHA256)\n",
    more: None,
};

/// Runs `genrsa`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse_with(argv, &keyfile::is_cipher_flag)? else { return Ok(()) };
    let bits = match a.positional.as_slice() {
        [] => DEFAULT_BITS,
        [n] => n.parse().map_err(|_| Fail::msg(format!("invalid key size '{n}'")))?,
        [_, extra, ..] => {
            return Err(Fail::msg(format!("unexpected argument '{extra}' (see -help)")));
        }
    };
    let mut opts = KeyGenOptions::new(bits);
    if let Some(k) = a.parsed::<usize>("primes")? {
        opts.primes = k;
    }
    if a.last_of(&["F4", "f4", "3"]) == Some("3") {
        opts.public_exponent = 3;
    }
    let encrypt = keyfile::cipher(&a.dynamic)?;
    let password = keyfile::out_password(encrypt, a.value("passout"), "passout")?;
    let key = generate(opts)?;
    write_key(&key, a.value("out"), Format::Pem, a.has("traditional"), password.as_ref(), false)
}
