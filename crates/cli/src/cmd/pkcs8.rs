//! `cryptocard pkcs8`: PKCS#8 keys, plain and encrypted, as `openssl pkcs8` converts them.
//!
//! ```text
//! cryptocard pkcs8 -topk8 [-in F] [-inform PEM|DER] [-passin ARG] [-nocrypt |
//!                  [-v2 CIPHER] [-v2prf PRF] [-v1 SCHEME] [-iter N | -noiter] -passout ARG]
//!                  [-out F] [-outform PEM|DER]
//! cryptocard pkcs8 [-in F] [-inform PEM|DER] [-passin ARG] [-nocrypt] [-traditional]
//!                  [-out F] [-outform PEM|DER]
//! ```
//!
//! With `-topk8` a private key in any form becomes PKCS#8: plain with `-nocrypt`, else an
//! `EncryptedPrivateKeyInfo` under `-v2`'s cipher in PBES2 (AES-256-CBC by default, with
//! PBKDF2 over `-v2prf`, hmacWithSHA256 by default) or under `-v1`'s older scheme
//! (`PBE-SHA1-3DES`, the default of OpenSSL 1.0, and the others of `cryptocard::pbe`),
//! over `-iter` iterations (2048 by default). Without it an encrypted key is decrypted:
//! PEM output is PKCS#8 (`-traditional`: PKCS#1), and DER output PKCS#1, as OpenSSL 3.0
//! writes them. Keys are RSA keys; reading is bounded as for the other key commands
//! (`-max-iter`).

use super::{Spec, no_positional};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};
use crate::io::{Mode, Output};
use crate::keyfile::{self, Format, KeyPassword, ReadOptions};
use crate::pass;
use cryptocard::pbe::{PBKDF2_ITERATIONS, PbeScheme};

const SPEC: Spec = Spec {
    usage: "pkcs8 [options]",
    flags: &[
        Flag::value("in", "FILE").about("Input key (default stdin)"),
        Flag::value("inform", "PEM|DER").about("Input format (default: by content)"),
        Flag::value("passin", "ARG").about("Input key password source"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("outform", "PEM|DER").about("Output format (default PEM)"),
        Flag::value("passout", "ARG").about("Output key password source"),
        Flag::switch("topk8").about("Write PKCS#8 (encrypted unless -nocrypt)"),
        Flag::switch("nocrypt").about("Plain PKCS#8, no encryption"),
        Flag::switch("traditional").about("Without -topk8: write PEM as PKCS#1"),
        Flag::value("v2", "CIPHER").about("PBES2 cipher (default aes-256-cbc; des3, aes128, ...)"),
        Flag::value("v2prf", "PRF").about("PBKDF2's PRF (default hmacWithSHA256)"),
        Flag::value("v1", "SCHEME").about("An older scheme (PBE-SHA1-3DES, PBE-MD5-DES, ...)"),
        Flag::value("iter", "N").about("Iterations (default 2048)"),
        Flag::switch("noiter").about("One iteration (weak)"),
        keyfile::MAX_ITER_FLAG,
    ],
    notes: "-v1 schemes: PBE-SHA1-3DES, PBE-SHA1-2DES, PBE-SHA1-RC2-40, PBE-SHA1-RC2-128,\n\
            PBE-MD2-DES, PBE-MD5-DES, PBE-SHA1-DES, PBE-MD2-RC2-64, PBE-MD5-RC2-64, PBE-SHA1-RC2-64\n\
            (weak: for consumers that know nothing newer).\n",
    more: None,
};

/// The scheme `-v1`, `-v2`, `-v2prf` and `-iter` name.
fn scheme(a: &crate::args::Parsed) -> CmdResult<PbeScheme> {
    let unknown = |flag: &str, v: &str| {
        Fail::msg(format!("-{flag}: unknown or unsupported '{v}' (see -help)"))
    };
    let mut s = match (a.value("v1"), a.value("v2")) {
        (Some(_), Some(_)) => return Err(Fail::msg("-v1 and -v2: give one")),
        (Some(v1), None) => {
            PbeScheme::from_name(v1).filter(|s| !s.is_pbes2()).ok_or_else(|| unknown("v1", v1))?
        }
        (None, Some(v2)) => {
            PbeScheme::from_name(v2).filter(PbeScheme::is_pbes2).ok_or_else(|| unknown("v2", v2))?
        }
        (None, None) => PbeScheme::DEFAULT,
    };
    if let Some(prf) = a.value("v2prf") {
        let hash = PbeScheme::prf_from_name(prf).ok_or_else(|| unknown("v2prf", prf))?;
        s = s.with_prf(hash).map_err(|_| Fail::msg("-v2prf: only with a PBES2 (-v2) cipher"))?;
    }
    let iterations = match (a.has("noiter"), a.parsed::<u32>("iter")?) {
        (true, _) => 1,
        (false, Some(0)) => return Err(Fail::msg("-iter: at least 1")),
        (false, Some(n)) => n,
        (false, None) => PBKDF2_ITERATIONS,
    };
    s.with_iterations(iterations).map_err(|e| Fail::lib("-iter", e))
}

/// Runs `pkcs8`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse(argv)? else { return Ok(()) };
    no_positional(&a)?;
    let inform = keyfile::format(a.value("inform"), "inform")?;
    let outform = keyfile::format(a.value("outform"), "outform")?.unwrap_or(Format::Pem);
    let topk8 = a.has("topk8");
    let encrypt = topk8 && !a.has("nocrypt");
    let scheme = if encrypt { Some(scheme(&a)?) } else { None };
    let read = ReadOptions::from_args(&a)?;
    let key = keyfile::load_private(a.value("in"), inform, a.value("passin"), &read)?;
    let password = match (scheme, a.value("passout")) {
        (Some(scheme), Some(arg)) => Some(KeyPassword { password: pass::resolve(arg)?, scheme }),
        (Some(_), None) => {
            return Err(Fail::msg(
                "encrypting the key needs a password: give -passout (or -nocrypt for none)",
            ));
        }
        (None, _) => None,
    };
    // OpenSSL 3.0 writes a decrypted key in DER as PKCS#1 (i2d_PrivateKey), in PEM as
    // PKCS#8 unless -traditional.
    let traditional = !topk8 && (a.has("traditional") || outform == Format::Der);
    let bytes = keyfile::encode_private(&key, outform, traditional, password.as_ref())?;
    let mut out = Output::create(a.value("out"), Mode::Private)?;
    out.put(&bytes)?;
    out.commit()
}
