//! `cryptocard rsautl`: OpenSSL's older RSA command (deprecated there since 3.0, still in
//! the scripts of payment and legacy systems), as `pkeyutl` with its flags translated:
//!
//! ```text
//! cryptocard rsautl [-sign|-verify|-encrypt|-decrypt] -inkey F [-pubin|-certin]
//!                   [-pkcs|-oaep|-raw|-x931] [-keyform PEM|DER] [-passin ARG]
//!                   [-in F] [-out F] [-hexdump|-asn1parse] [-rev]
//! ```
//!
//! `-verify` (the default, as in OpenSSL) recovers the signed data (`pkeyutl
//! -verifyrecover`); `-sign` signs the input as it is, with no DigestInfo; `-pkcs` (the
//! default) is PKCS#1 v1.5, `-oaep` OAEP with SHA-1, `-raw` no padding, `-x931` ANSI
//! X9.31 (which, as in OpenSSL 3.0, fails: it needs a digest `rsautl` cannot name).
//! PKCS#1 v1.5 decryption uses implicit rejection, as `pkeyutl`'s: a bad padding
//! gives random bytes, never a padding oracle. `-asn1parse` lists the output as ASN.1
//! (a recovered DigestInfo, say), as `asn1parse -i -dump` would.

use super::Spec;
use crate::args::Flag;
use crate::fail::CmdResult;

const SPEC: Spec = Spec {
    usage: "rsautl [options]",
    flags: &[
        Flag::switch("sign").about("Sign the input with the private key"),
        Flag::switch("verify").about("Recover the data a signature signs (the default)"),
        Flag::switch("encrypt").about("Encrypt the input with the public key"),
        Flag::switch("decrypt").about("Decrypt the input with the private key"),
        Flag::value("inkey", "FILE").about("The key"),
        Flag::value("keyform", "PEM|DER").about("Key format (default: by content)"),
        Flag::switch("pubin").about("The key is a public key"),
        Flag::switch("certin").about("The key is a certificate's public key"),
        Flag::value("passin", "ARG").about("Key password source"),
        Flag::value("in", "FILE").about("Input file (default stdin)"),
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::switch("pkcs").about("PKCS#1 v1.5 padding (the default)"),
        Flag::switch("oaep").about("OAEP padding (SHA-1)"),
        Flag::switch("raw").about("No padding"),
        Flag::switch("x931").about("ANSI X9.31 padding"),
        Flag::switch("hexdump").about("Print the output as a hex dump"),
        Flag::switch("rev").about("Reverse the order of the input bytes"),
        Flag::switch("asn1parse").about("List the output as ASN.1 (asn1parse -i -dump)"),
    ],
    notes: "",
    more: None,
};

/// Runs `rsautl`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse(argv)? else { return Ok(()) };
    super::no_positional(&a)?;
    let op = match a.last_of(&["sign", "verify", "encrypt", "decrypt"]) {
        Some("sign") => "-sign",
        Some("encrypt") => "-encrypt",
        Some("decrypt") => "-decrypt",
        _ => "-verifyrecover",
    };
    let padding = match a.last_of(&["pkcs", "oaep", "raw", "x931"]) {
        Some("oaep") => "oaep",
        Some("raw") => "none",
        Some("x931") => "x931",
        _ => "pkcs1",
    };
    let mut args: Vec<String> =
        vec![op.into(), "-pkeyopt".into(), format!("rsa_padding_mode:{padding}")];
    for flag in ["inkey", "keyform", "passin", "in", "out"] {
        if let Some(v) = a.value(flag) {
            args.extend([format!("-{flag}"), v.to_string()]);
        }
    }
    for switch in ["pubin", "certin", "hexdump", "asn1parse", "rev"] {
        if a.has(switch) {
            args.push(format!("-{switch}"));
        }
    }
    super::pkeyutl::main(&args)
}
