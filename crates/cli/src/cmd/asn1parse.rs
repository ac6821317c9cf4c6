//! `cryptocard asn1parse`: any DER or BER listed element by element, as `openssl
//! asn1parse` lists it (the library's `asn1::list`).
//!
//! ```text
//! cryptocard asn1parse [-in F] [-inform PEM|DER|B64] [-i] [-offset N] [-length N]
//!                      [-strparse N ...] [-dump | -dlimit N] [-out F] [-noout]
//! cryptocard asn1parse (-genstr STR | -genconf FILE [-genstr STR]) [listing options]
//! ```
//!
//! The input is the first PEM block of the file (any label; headers skipped), as OpenSSL
//! 4.0 reads it (3.0 runs the whole file through a base64 filter, which can stop early on
//! text before the block), DER, or base64 without PEM lines (`-inform B64`, which 3.0
//! lacks). Each `-strparse` moves into the contents of the element at
//! that offset of what was selected before (`asn1::dig`: an OCTET STRING's or BIT
//! STRING's octets, a SEQUENCE whole); `-offset` and `-length` then select the octets to
//! list, which `-out` writes as they are. Numbers are C's: decimal, `0x` hex or `0`
//! octal, and positive. A listing that meets a bad encoding is printed up to it, with
//! OpenSSL's line saying so, and the command exits 1. `-genstr` lists (and `-out` writes)
//! the DER of an OpenSSL generator string (`asn1::generate`, `ASN1_generate_nconf(3)`)
//! instead of reading input; `-genconf FILE` gives the configuration whose sections
//! `SEQUENCE:` and `SET:` name, and without `-genstr` its `asn1` value is the string.
//! `-oid` and `-item` are not supported.

use super::{Spec, no_positional};
use crate::args::Flag;
use crate::base64::Decoder;
use crate::fail::{CmdResult, Fail};
use crate::io::{self, Mode, Output};
use cryptocard_pki::asn1::{self, DigError, Dump};
use std::io::Read;

const SPEC: Spec = Spec {
    usage: "asn1parse [options]",
    flags: &[
        Flag::value("in", "FILE").about("Input file (default stdin)"),
        Flag::value("inform", "PEM|DER|B64").about("Input format (default PEM)"),
        Flag::switch("strictpem").about("Same as -inform PEM"),
        Flag::value("out", "FILE").about("Write the selected octets (DER) to FILE"),
        Flag::switch("noout").about("Do not list"),
        Flag::value("offset", "N").about("Start listing at octet N"),
        Flag::value("length", "N").about("List N octets"),
        Flag::value("strparse", "N").about("Move into the element at N (repeat to dig)"),
        Flag::switch("i").about("Indent the tags by depth"),
        Flag::switch("dump").about("Dump contents without a value in hex"),
        Flag::value("dlimit", "N").about("Dump the first N octets of such contents"),
        Flag::value("genstr", "STR").about("List the DER of this generator string"),
        Flag::value("genconf", "FILE").about("Sections for -genstr (its 'asn1' without one)"),
    ],
    notes: "-oid and -item are not supported.",
    more: None,
};

/// The DER of `-genstr` (with `-genconf`'s sections), or of `-genconf`'s `asn1` value;
/// `None` without either.
fn generated(a: &crate::args::Parsed) -> CmdResult<Option<Vec<u8>>> {
    let conf = match a.value("genconf") {
        Some(path) => Some(super::certio::load_conf(path)?),
        None => None,
    };
    let spec = match (a.value("genstr"), &conf) {
        (Some(s), _) => s.to_string(),
        (None, Some(c)) => match c.get("default", "asn1") {
            Some(s) => s.to_string(),
            None => {
                let path = a.value("genconf").unwrap_or_default();
                return Err(Fail::msg(format!("Can't find 'asn1' in '{path}'")));
            }
        },
        (None, None) => return Ok(None),
    };
    asn1::generate(&spec, conf.as_ref())
        .map(Some)
        .map_err(|e| Fail::msg(format!("Error generating structure: {e}")))
}

/// The input (`-in`, else stdin) in `inform`.
fn read_input(a: &crate::args::Parsed, inform: Inform) -> CmdResult<Vec<u8>> {
    let name = io::input_name(a.value("in")).to_string();
    let raw = io::read_capped(a.value("in"), "an ASN.1 input", io::MAX_CERT_INPUT)?;
    Ok(match inform {
        Inform::Der => raw,
        Inform::Pem => {
            pem_body(&raw).ok_or_else(|| Fail::msg(format!("{name}: Error reading PEM file")))?
        }
        Inform::Base64 => {
            base64(&raw).ok_or_else(|| Fail::msg(format!("{name}: invalid base64")))?
        }
    })
}

/// Input formats: OpenSSL's `OPT_FMT_ASN1` set.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inform {
    Pem,
    Der,
    Base64,
}

/// Runs `asn1parse`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse(argv)? else { return Ok(()) };
    no_positional(&a)?;
    let inform = match a.value("inform").map(str::to_ascii_uppercase).as_deref() {
        _ if a.last_of(&["inform", "strictpem"]) == Some("strictpem") => Inform::Pem,
        None | Some("PEM") => Inform::Pem,
        Some("DER") => Inform::Der,
        Some("B64") => Inform::Base64,
        Some(_) => {
            return Err(Fail::msg(format!(
                "-inform: PEM, DER or B64, not '{}'",
                a.value("inform").unwrap_or("")
            )));
        }
    };
    let offset = positive(&a, "offset")?.unwrap_or(0);
    let length = positive(&a, "length")?;
    let dlimit = positive(&a, "dlimit")?;
    let dump = match (a.last_of(&["dump", "dlimit"]), dlimit) {
        (Some("dlimit"), Some(n)) => Dump::Limit(n),
        (Some(_), _) => Dump::All,
        (None, _) => Dump::Off,
    };
    let (mut data, name) = match generated(&a)? {
        Some(der) => (der, "the generated structure".to_string()),
        None => (read_input(&a, inform)?, io::input_name(a.value("in")).to_string()),
    };
    for arg in a.values("strparse") {
        let at = number(arg, "strparse")?;
        match asn1::dig(&data, at) {
            Ok(inner) => data = inner,
            // OpenSSL goes on without this step.
            Err(DigError::OutOfRange) => eprintln!("'{arg}' is out of range"),
            Err(e) => return Err(Fail::msg(format!("-strparse {arg}: {e}"))),
        }
    }
    if offset >= data.len() {
        return Err(Fail::msg("Error: offset out of range"));
    }
    let rest = &data[offset..];
    let selected = &rest[..length.unwrap_or(rest.len()).min(rest.len())];
    if let Some(path) = a.value("out") {
        let mut out = Output::create(Some(path), Mode::Public)?;
        out.put(selected)?;
        out.commit()?;
    }
    if a.has("noout") {
        return Ok(());
    }
    let listing = asn1::list(selected, a.has("i"), dump);
    let mut out = Output::create(None, Mode::Public)?;
    out.put(&listing.text)?;
    out.commit()?;
    if listing.complete {
        Ok(())
    } else {
        Err(Fail::msg(format!("{name}: the listing stopped at a bad encoding")))
    }
}

/// The positive number a flag gives, if any.
fn positive(a: &crate::args::Parsed, flag: &str) -> CmdResult<Option<usize>> {
    a.value(flag).map(|v| number(v, flag)).transpose()
}

/// A positive number in C's notation (`strtol` base 0: decimal, `0x` hex, `0` octal), as
/// OpenSSL's options take them.
fn number(v: &str, flag: &str) -> CmdResult<usize> {
    let (digits, radix) = if let Some(h) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        (h, 16)
    } else if v.len() > 1 && v.starts_with('0') {
        (&v[1..], 8)
    } else {
        (v, 10)
    };
    match usize::from_str_radix(digits, radix) {
        Ok(n) if n > 0 && !digits.starts_with('+') => Ok(n),
        _ => Err(Fail::msg(format!("-{flag}: a positive number, not '{v}'"))),
    }
}

/// The octets of the first PEM block of `text`, whatever its label, as OpenSSL's
/// `PEM_read_bio` reads them: text around the block ignored, RFC 1421 headers (up to the
/// blank line after them) skipped, the base64 between decoded.
fn pem_body(text: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(text).ok()?;
    let mut lines = text.lines().map(|l| l.trim_end_matches('\r'));
    let label = lines
        .by_ref()
        .find_map(|l| l.strip_prefix("-----BEGIN ").and_then(|r| r.strip_suffix("-----")))?;
    let end = format!("-----END {label}-----");
    let mut body = Vec::new();
    let mut first = true;
    let mut in_headers = false;
    for line in lines {
        if line == end {
            return base64(&body);
        }
        if first && line.contains(':') {
            in_headers = true;
        }
        first = false;
        if in_headers {
            in_headers = !line.trim().is_empty();
            continue;
        }
        if line.starts_with("-----") {
            return None;
        }
        body.extend_from_slice(line.as_bytes());
        body.push(b'\n');
    }
    None
}

/// Base64 text decoded (line breaks and blanks ignored); `None` if it is not base64.
fn base64(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    Decoder::new(text).read_to_end(&mut out).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_strtol_reads_them() {
        assert_eq!(number("10", "x").unwrap(), 10);
        assert_eq!(number("0x10", "x").unwrap(), 16);
        assert_eq!(number("010", "x").unwrap(), 8);
        for bad in ["0", "-1", "+5", "", "1a", "0x", "09"] {
            assert!(number(bad, "x").is_err(), "{bad}");
        }
    }

    #[test]
    fn pem_blocks_of_any_label() {
        let pem = b"junk\n-----BEGIN THING-----\nMAMCAQU=\n-----END THING-----\nmore\n";
        assert_eq!(pem_body(pem).unwrap(), [0x30, 0x03, 2, 1, 5]);
        let enc = b"-----BEGIN X-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: A,B\n\nMAMCAQU=\n-----END X-----\n";
        assert_eq!(pem_body(enc).unwrap(), [0x30, 0x03, 2, 1, 5]);
        assert_eq!(pem_body(b"-----BEGIN X-----\nMAMCAQU=\n-----END Y-----\n"), None);
        assert_eq!(pem_body(b"MAMCAQU=\n"), None);
    }
}
