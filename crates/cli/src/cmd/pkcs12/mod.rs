//! `cryptocard pkcs12`: PKCS#12 files (`.p12`, `.pfx`) made and read as `openssl pkcs12`
//! makes and reads them.
//!
//! ```text
//! cryptocard pkcs12 -export [-in CERTS] [-inkey KEY] [-certfile F ...] [-name N]
//!                   [-chain [-untrusted F ...] [-CAfile F ...] [-CApath DIR ...]]
//!                   [-caname N ...] [-passin ARG] -passout ARG [-legacy]
//!                   [-keypbe ALG] [-certpbe ALG] [-iter N] [-macalg D] [-nomac] [-out F]
//! cryptocard pkcs12 [-in FILE] -passin ARG [-nodes | -aes256 ... -passout ARG]
//!                   [-nokeys] [-nocerts] [-clcerts] [-cacerts] [-info] [-noout] [-out F]
//! ```
//!
//! Export ([`export`]) writes the key (from `-inkey`, or from `-in`) and the certificate
//! of `-in` that matches it, then the other certificates of `-in`, with `-chain` those of
//! its verified path (through `-untrusted` to a trusted root, as `verify` finds it), and
//! those of `-certfile`,
//! under OpenSSL 3's choices (PBES2 with AES-256-CBC, a SHA-256 MAC) or, with `-legacy`,
//! OpenSSL 1.x's (3DES, 40-bit RC2, SHA-1), which old Windows, Java and macOS need.
//! Reading ([`dump`]) checks the MAC and writes the certificates and the key as PEM with
//! their bag attributes, byte for byte as OpenSSL 3 does (friendly names outside ASCII
//! print as UTF-8, as OpenSSL 3.2 and later print them), the key encrypted under
//! `-passout` unless `-nodes`; `-info` says on stderr how the file is protected. The old
//! schemes are read without OpenSSL's `-legacy` (accepted, and unneeded).
//!
//! A file may name its own iteration counts, so reading one is bounded as key files are
//! (`-max-iter`, default 1,000,000 for each derivation, four times that for all of them).
//! Errors are one line and exit status 1: "Mac verify error: invalid password?" as
//! OpenSSL says it for a wrong password.

mod dump;
mod export;

use super::Spec;
use crate::args::Flag;
use crate::fail::CmdResult;
use crate::keyfile::{self, MAX_ITER_FLAG};

const SPEC: Spec = Spec {
    usage: "pkcs12 [options]",
    flags: &[
        Flag::value("in", "FILE")
            .about("Input: the PKCS#12 file, or with -export certificates (and key)"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::value("passin", "ARG").about("Input password: the file's, or with -export the key's"),
        Flag::value("passout", "ARG")
            .about("Output password: the file's with -export, else the key's"),
        Flag::value("password", "ARG")
            .about("The file's password (-passin, or -passout with -export)"),
        Flag::switch("export").about("Write a PKCS#12 file"),
        Flag::value("inkey", "FILE").about("The private key (default: the one in -in)"),
        Flag::value("certfile", "FILE").about("More certificates to add (repeat)"),
        Flag::switch("chain").about("Add the key's certificate's path to -CAfile/-CApath"),
        Flag::value("untrusted", "FILE").about("Intermediates for -chain (repeat)"),
        Flag::value("CAfile", "FILE")
            .about("Trusted certificates for -chain (repeat; default: the system's)"),
        Flag::value("CApath", "DIR").about("A hashed directory of trusted certificates"),
        Flag::switch("no-CAfile").about("Do not load the system's trusted certificates"),
        Flag::switch("no-CApath").about("Accepted for OpenSSL compatibility"),
        Flag::switch("no-CAstore").about("Accepted for OpenSSL compatibility"),
        Flag::value("name", "NAME").about("Friendly name of the key and its certificate"),
        Flag::value("caname", "NAME")
            .about("Friendly name of the next further certificate (repeat)"),
        Flag::switch("legacy")
            .about("OpenSSL 1.x's schemes: 3DES key, RC2-40 certificates, SHA-1 MAC"),
        Flag::value("keypbe", "ALG")
            .about("The key's scheme (AES-256-CBC, PBE-SHA1-3DES, NONE, ...)"),
        Flag::value("certpbe", "ALG")
            .about("The certificates' scheme (AES-256-CBC, PBE-SHA1-RC2-40, NONE, ...)"),
        Flag::switch("descert").about("Certificates under PBE-SHA1-3DES"),
        Flag::value("iter", "N")
            .about("Iterations of the key and certificate schemes (default 2048)"),
        Flag::switch("noiter").about("One iteration (weak)"),
        Flag::value("macalg", "DIGEST").about("The MAC's digest (default sha256)"),
        Flag::switch("maciter").about("Accepted for OpenSSL compatibility (the default)"),
        Flag::switch("nomaciter").about("One MAC iteration (weak)"),
        Flag::switch("nomac").about("No MAC"),
        Flag::switch("nomacver").about("Do not check the MAC (a broken one, another password's)"),
        Flag::switch("nodes").about("Write the key unencrypted"),
        Flag::switch("noenc").about("Write the key unencrypted"),
        Flag::switch("nokeys").about("No private keys"),
        Flag::switch("nocerts").about("No certificates"),
        Flag::switch("clcerts").about("Only the key's certificates (those with a local key ID)"),
        Flag::switch("cacerts").about("Only the other certificates"),
        Flag::switch("info").about("Say on stderr how the file is protected"),
        Flag::switch("noout").about("Write no keys or certificates"),
        MAX_ITER_FLAG,
    ],
    notes: "Key ciphers when reading: -aes256 (default), -aes128, -aes192, -des3.\n\
            Schemes: AES-128-CBC, AES-192-CBC, AES-256-CBC, DES-EDE3-CBC, PBE-SHA1-3DES,\n\
            PBE-SHA1-2DES, PBE-SHA1-RC2-40, PBE-SHA1-RC2-128, NONE.\n",
    more: None,
};

/// Runs `pkcs12`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse_with(argv, &keyfile::is_cipher_flag)? else { return Ok(()) };
    super::no_positional(&a)?;
    if a.has("export") { export::run(&a) } else { dump::run(&a) }
}
