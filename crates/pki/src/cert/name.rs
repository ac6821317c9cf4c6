//! Distinguished names (RFC 5280 4.1.2.4) in OpenSSL's two spellings: the `-subj`
//! argument `/C=US/O=Org/CN=name` (`+` joining attributes of one RDN, `\` escaping), and
//! the one-line form OpenSSL 3 prints by default (`C = US, O = Org, CN = name`, printed
//! by `name_print` with the other forms of `-nameopt`).
//!
//! Strings are encoded as OpenSSL's default `utf8only` mask does: UTF8String, but
//! PrintableString for countryName and serialNumber and IA5String for emailAddress and
//! domainComponent, as their definitions require (RFC 5280 appendix A.1).

use crate::{Error, Result};
use der::asn1::{Any, ObjectIdentifier as Oid, SetOfVec};
use der::{Decode, Encode, Tag};
use x509_cert::attr::AttributeTypeAndValue;
use x509_cert::name::{Name, RdnSequence, RelativeDistinguishedName};

/// OpenSSL's short names of the attributes users type, with the string type each takes.
const ATTRS: &[(&str, &str, Tag)] = &[
    ("CN", "2.5.4.3", Tag::Utf8String),
    ("C", "2.5.4.6", Tag::PrintableString),
    ("L", "2.5.4.7", Tag::Utf8String),
    ("ST", "2.5.4.8", Tag::Utf8String),
    ("street", "2.5.4.9", Tag::Utf8String),
    ("O", "2.5.4.10", Tag::Utf8String),
    ("OU", "2.5.4.11", Tag::Utf8String),
    ("title", "2.5.4.12", Tag::Utf8String),
    ("SN", "2.5.4.4", Tag::Utf8String),
    ("serialNumber", "2.5.4.5", Tag::PrintableString),
    ("GN", "2.5.4.42", Tag::Utf8String),
    ("initials", "2.5.4.43", Tag::Utf8String),
    ("dnQualifier", "2.5.4.46", Tag::PrintableString),
    ("pseudonym", "2.5.4.65", Tag::Utf8String),
    ("emailAddress", "1.2.840.113549.1.9.1", Tag::Ia5String),
    ("DC", "0.9.2342.19200300.100.1.25", Tag::Ia5String),
    ("UID", "0.9.2342.19200300.100.1.1", Tag::Utf8String),
    ("organizationIdentifier", "2.5.4.97", Tag::Utf8String),
    ("businessCategory", "2.5.4.15", Tag::Utf8String),
    ("postalCode", "2.5.4.17", Tag::Utf8String),
    ("jurisdictionC", "1.3.6.1.4.1.311.60.2.1.3", Tag::PrintableString),
    ("jurisdictionST", "1.3.6.1.4.1.311.60.2.1.2", Tag::Utf8String),
    ("jurisdictionL", "1.3.6.1.4.1.311.60.2.1.1", Tag::Utf8String),
];

/// OpenSSL's long names, accepted in `-subj` too.
const LONG_NAMES: &[(&str, &str)] = &[
    ("commonName", "CN"),
    ("countryName", "C"),
    ("localityName", "L"),
    ("stateOrProvinceName", "ST"),
    ("organizationName", "O"),
    ("organizationalUnitName", "OU"),
    ("surname", "SN"),
    ("givenName", "GN"),
    ("domainComponent", "DC"),
    ("userId", "UID"),
];

/// The most attributes a `-subj` may name (a bound on work, far above real names).
const MAX_ATTRS: usize = 64;

/// Parses OpenSSL's `-subj` form: `/type=value/type=value+type=value...`. Attributes
/// with empty values are left out, as OpenSSL leaves them out.
pub fn parse_subject(s: &str) -> Result<Name> {
    let bad = |why: &str| Error::Malformed(format!("subject '{s}': {why}"));
    let body = s.strip_prefix('/').ok_or_else(|| bad("must start with '/'"))?;
    let mut rdns = RdnSequence::default();
    let mut count = 0;
    for rdn_text in split_unescaped(body, '/') {
        let mut set = SetOfVec::new();
        for atv in split_unescaped(&rdn_text, '+') {
            let (key, value) = atv.split_once('=').ok_or_else(|| bad("expected type=value"))?;
            let value = unescape(value);
            if value.is_empty() {
                continue;
            }
            count += 1;
            if count > MAX_ATTRS {
                return Err(bad("too many attributes"));
            }
            let (oid, tag) = attr_type(key).ok_or_else(|| bad(&format!("unknown type '{key}'")))?;
            if tag == Tag::PrintableString && !value.bytes().all(printable) {
                return Err(bad(&format!("{key} must be a PrintableString")));
            }
            if tag == Tag::Ia5String && !value.is_ascii() {
                return Err(bad(&format!("{key} must be ASCII")));
            }
            let value = Any::new(tag, value.as_bytes())?;
            set.insert(AttributeTypeAndValue { oid, value })?;
        }
        if !set.is_empty() {
            rdns.push(RelativeDistinguishedName::from(set));
        }
    }
    // `Name` is built only by decoding (its constructor is x509-cert's hazmat).
    Ok(Name::from_der(&rdns.to_der()?)?)
}

/// The type of a name's attribute by OpenSSL's short or long name (`C`, `countryName`),
/// as a `ca` policy names them.
pub fn attribute_oid(key: &str) -> Option<Oid> {
    attr_type(key).map(|(oid, _)| oid)
}

/// A name of these entries, each its own RDN, in this order (as `ca` builds a subject).
pub fn name_of(entries: &[AttributeTypeAndValue]) -> Result<Name> {
    let mut rdns = RdnSequence::default();
    for atv in entries {
        let mut set = SetOfVec::new();
        set.insert(atv.clone())?;
        rdns.push(RelativeDistinguishedName::from(set));
    }
    Ok(Name::from_der(&rdns.to_der()?)?)
}

/// A name from a configuration section's `type = value` lines, as OpenSSL's
/// `X509V3_NAME_from_section` reads them (`req`'s `prompt = no` subject, a `dirName`):
/// each line one RDN, in order; a prefix up to `.`, `,` or `:` is dropped (`0.OU`,
/// `1.OU` name two OUs); `+` before the type joins the previous RDN.
pub fn name_from_section(lines: &[(String, String)]) -> Result<Name> {
    let mut text = String::new();
    for (name, value) in lines {
        let kind = match name.find([':', ',', '.']) {
            Some(i) if i + 1 < name.len() => &name[i + 1..],
            _ => name.as_str(),
        };
        let (join, kind) = match kind.strip_prefix('+') {
            Some(rest) => (true, rest),
            None => (false, kind),
        };
        text.push(if join && !text.is_empty() { '+' } else { '/' });
        text.push_str(kind);
        text.push('=');
        for c in value.chars() {
            if matches!(c, '/' | '+' | '\\') {
                text.push('\\');
            }
            text.push(c);
        }
    }
    if text.is_empty() {
        return Err(Error::Malformed("a name with no entries".into()));
    }
    // As OpenSSL's `-subj` form, which `parse_subject` reads.
    parse_subject(&text)
}

/// The name in OpenSSL's one-line form, whole (`X509_NAME_oneline` into a buffer of its
/// own, as `ca` writes its database).
pub fn oneline(name: &Name) -> String {
    oneline_name(name, usize::MAX)
}

fn attr_type(key: &str) -> Option<(Oid, Tag)> {
    let short = LONG_NAMES.iter().find(|(l, _)| *l == key).map_or(key, |(_, s)| *s);
    if let Some((_, oid, tag)) = ATTRS.iter().find(|(n, _, _)| *n == short) {
        return Some((Oid::new_unwrap(oid), *tag));
    }
    Oid::new(key).ok().map(|o| (o, Tag::Utf8String))
}

fn printable(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b" '()+,-./:=?".contains(&b)
}

/// Splits at `sep` not preceded by a backslash (the backslashes stay for [`unescape`]).
fn split_unescaped(s: &str, sep: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        let last = parts.last_mut().expect("internal error: parts is never empty");
        match c {
            '\\' => {
                last.push('\\');
                if let Some(n) = chars.next() {
                    last.push(n);
                }
            }
            c if c == sep => parts.push(String::new()),
            c => last.push(c),
        }
    }
    parts.retain(|p| !p.is_empty());
    parts
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// The name as OpenSSL 3 prints it by default: `C = US, O = Org, CN = name`
/// ([`super::NameOpt::ONELINE`]).
pub fn display_name(name: &Name) -> String {
    super::name_text(name, 0, super::NameOpt::ONELINE)
}

/// The name in OpenSSL's one-line form (`X509_NAME_oneline`), as it prints a directory
/// name inside an extension: `/C=US/O=Org/CN=name` (`+` between the entries of one
/// multi-valued RDN), `/` and `+` in values escaped with a
/// backslash, bytes outside printable ASCII as `\xHH`, and no entry that would take the
/// line past `max` characters.
pub(crate) fn oneline_name(name: &Name, max: usize) -> String {
    let mut out = String::new();
    let entries = name.iter_rdn().flat_map(|rdn| rdn.iter().enumerate());
    for (i, atv) in entries {
        // Entries of one RDN are joined by `+`, as OpenSSL's `prev_set` test joins them.
        let sep = if i == 0 { '/' } else { '+' };
        let mut entry = format!("{sep}{}=", attr_name(&atv.oid));
        for &b in atv.value.value() {
            if b == b'/' || b == b'+' {
                // OpenSSL 3 escapes them, so that the entries stay apart.
                entry.push('\\');
                entry.push(char::from(b));
            } else if (b' '..=b'~').contains(&b) {
                entry.push(char::from(b));
            } else {
                entry.push_str(&format!("\\x{b:02X}"));
            }
        }
        if out.len() + entry.len() > max {
            break;
        }
        out.push_str(&entry);
    }
    out
}

/// The name as OpenSSL's `X509_NAME_print` prints it (its older, "compat" form): the
/// one-line form's entries joined by `, ` where a slash begins a new one (`/` then one or
/// two capitals and `=`).
pub(crate) fn compat_name(name: &Name) -> String {
    let line = oneline_name(name, usize::MAX);
    let b = line.as_bytes();
    let mut out = String::new();
    let mut start = 1.min(b.len());
    for i in 1..=b.len() {
        let upper = |j: usize| b.get(j).is_some_and(u8::is_ascii_uppercase);
        let eq = |j: usize| b.get(j) == Some(&b'=');
        let boundary = i == b.len()
            || (b[i] == b'/' && upper(i + 1) && (eq(i + 2) || (upper(i + 2) && eq(i + 3))));
        if boundary {
            out.push_str(&line[start..i]);
            if i < b.len() {
                out.push_str(", ");
            }
            start = i + 1;
        }
    }
    out
}

fn attr_name(oid: &Oid) -> String {
    if let Some((n, _, _)) = ATTRS.iter().find(|(_, o, _)| Oid::new_unwrap(o) == *oid) {
        return (*n).to_string();
    }
    // OpenSSL prints short names here, which its long-name table does not hold.
    const_oid::db::DB.by_oid(oid).map(str::to_string).unwrap_or_else(|| oid.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subj_round_trips_to_openssl_text() {
        let n = parse_subject("/C=US/O=Test Org/CN=Test CA").unwrap();
        assert_eq!(display_name(&n), "C = US, O = Test Org, CN = Test CA");
        let n = parse_subject("/CN=a\\/b/O=x, y/OU=1+OU=2/L=").unwrap();
        assert_eq!(display_name(&n), "CN = a/b, O = \"x, y\", OU = 1 + OU = 2");
        let n = parse_subject("/commonName=x/emailAddress=a@b").unwrap();
        assert_eq!(display_name(&n), "CN = x, emailAddress = a@b");
    }

    #[test]
    fn bad_subjects_are_errors() {
        for s in ["CN=x", "/CN", "/Bogus=x", "/C=U$", "/emailAddress=é"] {
            assert!(parse_subject(s).is_err(), "{s}");
        }
    }

    #[test]
    fn names_from_sections_and_multi_valued_one_lines() {
        let lines: Vec<(String, String)> = [
            ("C", "UK"),
            ("0.OU", "First"),
            ("+CN", "joined"),
            ("1.OU", "Second/Unit"),
            ("emailAddress", "a@b.example"),
        ]
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
        let name = name_from_section(&lines).unwrap();
        assert_eq!(name.iter_rdn().count(), 4, "the + line joins the OU before it");
        // In DER order within the set: the shorter encoding first.
        assert_eq!(
            oneline(&name),
            "/C=UK/OU=First+CN=joined/OU=Second\\/Unit/emailAddress=a@b.example"
        );
        assert!(name_from_section(&[]).is_err());
        let bad = [("nosuchtype".to_string(), "x".to_string())];
        assert!(name_from_section(&bad).is_err());
    }
}
