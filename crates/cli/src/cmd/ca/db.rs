//! The files of an OpenSSL CA directory, read and written as `openssl ca` does, so that
//! either tool can carry on the other's CA:
//!
//! - `index.txt`, one line per certificate issued, six tab-separated fields: status (`V`
//!   valid, `R` revoked, `E` expired), notAfter as the certificate holds it
//!   (`YYMMDDHHMMSSZ`), the revocation (`YYMMDDHHMMSSZ[,reason[,argument]]`, empty while
//!   valid), the serial in upper-case hex, the file name (`unknown`) and the subject in
//!   the one-line form (`/C=US/CN=name`); beside it `index.txt.attr` with `unique_subject
//!   = yes|no`;
//! - the serial and CRL number files: one hex number, the next to use.
//!
//! A file is replaced as OpenSSL replaces it (each written whole, `certio::write_public`): the new one is written as `NAME.new`, the old
//! one renamed to `NAME.old`, the new one renamed into place, so that a crash leaves the
//! previous state beside the new one, never a half-written file.

use crate::cmd::certio::write_public;
use crate::fail::{CmdResult, Fail};
use crate::io as cio;
use std::path::Path;

/// The largest database read (some 100,000 certificates).
const MAX_INDEX_LEN: usize = 64 << 20;

/// One line of `index.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// `V`, `R` or `E`.
    pub status: char,
    /// notAfter, `YYMMDDHHMMSSZ` or `YYYYMMDDHHMMSSZ`.
    pub expires: String,
    /// The revocation field, empty unless revoked.
    pub revoked: String,
    /// The serial number, upper-case hex.
    pub serial: String,
    /// The certificate's file name, `unknown` as OpenSSL writes.
    pub file: String,
    /// The subject, one-line form.
    pub subject: String,
}

/// The certificate database and its attributes.
#[derive(Debug)]
pub struct Index {
    path: String,
    /// The rows, in file order.
    pub rows: Vec<Row>,
    /// Whether two valid certificates may not share a subject.
    pub unique_subject: bool,
}

impl Index {
    /// Reads `path` and its `.attr` file (absent: `unique_subject = yes`); the CA
    /// section's `unique_subject`, if given, overrides the file's.
    pub fn load(path: &str, configured_unique: Option<&str>) -> CmdResult<Index> {
        let text = cio::read_capped(Some(path), "the certificate database", MAX_INDEX_LEN)?;
        let text = String::from_utf8(text)
            .map_err(|_| Fail::msg(format!("{path}: the database is not text")))?;
        let mut rows = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            let status = f[0].chars().next().filter(|_| f[0].len() == 1);
            let (Some(status), 6) = (status, f.len()) else {
                return Err(Fail::msg(format!(
                    "{path} line {}: expected 6 tab-separated fields (status, expiry, revocation, serial, file, subject)",
                    i + 1
                )));
            };
            rows.push(Row {
                status,
                expires: f[1].into(),
                revoked: f[2].into(),
                serial: f[3].into(),
                file: f[4].into(),
                subject: f[5].into(),
            });
        }
        let attr = format!("{path}.attr");
        let mut unique_subject = true;
        if Path::new(&attr).exists() {
            let text = cio::read_small(Some(&attr), "the database attributes")?;
            for line in String::from_utf8_lossy(&text).lines() {
                if let Some((name, value)) = line.split_once('=')
                    && name.trim() == "unique_subject"
                {
                    unique_subject = yes_or_no(value.trim(), true);
                }
            }
        }
        if let Some(v) = configured_unique {
            unique_subject = yes_or_no(v, true);
        }
        Ok(Index { path: path.into(), rows, unique_subject })
    }

    /// The row of a serial (upper-case hex), if any.
    pub fn by_serial(&self, serial: &str) -> Option<usize> {
        self.rows.iter().position(|r| r.serial == serial)
    }

    /// Writes the database and its attributes as `.new` files; [`Index::rotate`] puts
    /// them in place.
    pub fn save_new(&self) -> CmdResult {
        let mut text = String::new();
        for r in &self.rows {
            text.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\n",
                r.status, r.expires, r.revoked, r.serial, r.file, r.subject
            ));
        }
        write_public(Some(&format!("{}.new", self.path)), text.as_bytes())?;
        let yes = if self.unique_subject { "yes" } else { "no" };
        let attr = format!("unique_subject = {yes}\n");
        write_public(Some(&format!("{}.attr.new", self.path)), attr.as_bytes())
    }

    /// Renames the database and its attributes to `.old` and the `.new` ones into place.
    pub fn rotate(&self) -> CmdResult {
        rotate(&self.path)?;
        rotate(&format!("{}.attr", self.path))
    }
}

/// OpenSSL's `parse_yes_or_no`: y/Y/t/T/1 are yes, n/N/f/F/0 no, `on`/`off`.
pub fn yes_or_no(v: &str, default: bool) -> bool {
    match v.as_bytes() {
        [b'o' | b'O', b'n' | b'N', ..] => true,
        [b'o' | b'O', b'f' | b'F', ..] => false,
        [b'y' | b'Y' | b't' | b'T' | b'1', ..] => true,
        [b'n' | b'N' | b'f' | b'F' | b'0', ..] => false,
        _ => default,
    }
}

/// The number in a serial or CRL number file: hex digits on the first line.
pub fn read_number(path: &str) -> CmdResult<Vec<u8>> {
    let text = cio::read_small(Some(path), "a serial number file")?;
    let text = String::from_utf8_lossy(&text);
    read_hex(text.lines().next().unwrap_or("").trim())
        .map_err(|_| Fail::msg(format!("{path}: unable to load number: expected hex digits")))
}

/// A number in hex (as the database holds serials), big-endian magnitude.
pub fn read_hex(digits: &str) -> CmdResult<Vec<u8>> {
    let bad = || Fail::msg(format!("'{digits}' is not a hex number"));
    if digits.is_empty() || digits.len() > 256 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let padded = if digits.len() % 2 == 1 { format!("0{digits}") } else { digits.to_string() };
    crate::hex::decode(&padded).map_err(|_| bad())
}

/// A number (big-endian magnitude) as OpenSSL's `BN_bn2hex` writes it: upper-case, whole
/// bytes, no leading zero byte; `00` for zero.
pub fn hex(magnitude: &[u8]) -> String {
    let start = magnitude.iter().position(|&b| b != 0).unwrap_or(magnitude.len());
    if start == magnitude.len() {
        return "00".into();
    }
    crate::hex::upper(&magnitude[start..])
}

/// `n + 1`, big-endian magnitude.
pub fn increment(n: &[u8]) -> Vec<u8> {
    let mut out = n.to_vec();
    for byte in out.iter_mut().rev() {
        let (v, carry) = byte.overflowing_add(1);
        *byte = v;
        if !carry {
            return out;
        }
    }
    out.insert(0, 1);
    out
}

/// Writes `NUMBER\n` as `path.new`.
pub fn save_number_new(path: &str, magnitude: &[u8]) -> CmdResult {
    write_public(Some(&format!("{path}.new")), format!("{}\n", hex(magnitude)).as_bytes())
}

/// `path` to `path.old` (if it exists), `path.new` to `path`.
pub fn rotate(path: &str) -> CmdResult {
    let fail = |what: &str, e: std::io::Error| {
        Fail::msg(format!("unable to rename {what}: {}", cio::reason(&e)))
    };
    if Path::new(path).exists() {
        std::fs::rename(path, format!("{path}.old")).map_err(|e| fail(path, e))?;
    }
    std::fs::rename(format!("{path}.new"), path).map_err(|e| fail(&format!("{path}.new"), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_openssl_writes_them() {
        assert_eq!(hex(&[0x10, 0x00]), "1000");
        assert_eq!(hex(&[0x00, 0x01]), "01");
        assert_eq!(hex(&[]), "00");
        assert_eq!(hex(&[0, 0]), "00");
        assert_eq!(increment(&[0x10, 0xff]), [0x11, 0x00]);
        assert_eq!(increment(&[0xff, 0xff]), [0x01, 0x00, 0x00]);
        assert_eq!(increment(&[]), [0x01]);
    }

    #[test]
    fn yes_and_no() {
        for y in ["yes", "Y", "true", "1", "on"] {
            assert!(yes_or_no(y, false), "{y}");
        }
        for n in ["no", "N", "false", "0", "off"] {
            assert!(!yes_or_no(n, true), "{n}");
        }
        assert!(yes_or_no("", true) && !yes_or_no("maybe", false));
    }
}
