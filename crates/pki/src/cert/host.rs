//! Whether a certificate is for a DNS name: RFC 6125 section 6.4 as OpenSSL's
//! `X509_check_host` reads it with its default flags (`crypto/x509/v3_utl.c`), so that
//! `verify -verify_hostname` agrees with `openssl verify`.
//!
//! - The subjectAltName's dNSName entries are the names; only where there are none, the
//!   subject's commonName values are (RFC 6125 6.4.4).
//! - Names compare without regard to ASCII case.
//! - A name may hold one wildcard `*`, in its first label, at the start or the end of
//!   that label (`*.example.com`, `www*.example.com`, not `w*w.example.com`), with at
//!   least two dots after it, and not in an internationalised (`xn--`) label. It stands
//!   for letters, digits or hyphens of one label, never a dot: one or more where it is
//!   the whole label, any number where it is part of one. A partial wildcard does not
//!   match an `xn--` label of the host.
//! - A host that starts with a dot, `.example.com`, stands for any name under it: a name
//!   matches if it ends so (`*.example.com`, `www.example.com`).

use der::{Tag, Tagged};
use x509_cert::Certificate;
use x509_cert::ext::pkix::SubjectAltName;
use x509_cert::ext::pkix::name::GeneralName;

/// The commonName attribute (X.520, 2.5.4.3).
pub(super) const COMMON_NAME: const_oid::ObjectIdentifier =
    const_oid::ObjectIdentifier::new_unwrap("2.5.4.3");

/// Whether `cert` is for the DNS name `host`.
pub fn host_matches(cert: &Certificate, host: &str) -> bool {
    let tbs = cert.tbs_certificate();
    let host = host.as_bytes();
    if let Ok(Some((_, san))) = tbs.get_extension::<SubjectAltName>() {
        let mut dns = san
            .0
            .iter()
            .filter_map(|g| match g {
                GeneralName::DnsName(name) => Some(name.as_bytes()),
                _ => None,
            })
            .peekable();
        if dns.peek().is_some() {
            return dns.any(|pattern| name_matches(pattern, host));
        }
    }
    tbs.subject()
        .iter_rdn()
        .flat_map(|rdn| rdn.iter())
        .filter(|atv| atv.oid == COMMON_NAME && is_string(atv.value.tag()))
        .any(|atv| name_matches(atv.value.value(), host))
}

/// The string types a commonName is held in, whose bytes compare as they are.
pub(super) fn is_string(tag: Tag) -> bool {
    matches!(tag, Tag::Utf8String | Tag::PrintableString | Tag::Ia5String | Tag::TeletexString)
}

/// OpenSSL's `equal_wildcard`: `pattern` (from the certificate) against `subject` (the
/// host asked for).
fn name_matches(pattern: &[u8], subject: &[u8]) -> bool {
    if pattern.contains(&0) || subject.contains(&0) {
        return false;
    }
    // A host `.example.com` asks for any name under example.com: the name's last
    // characters compare with it (OpenSSL's `skip_prefix`), wildcard or not.
    let subdomains = subject.len() > 1 && subject[0] == b'.';
    if subdomains {
        let tail = &pattern[pattern.len().saturating_sub(subject.len())..];
        return tail.eq_ignore_ascii_case(subject);
    }
    match valid_star(pattern) {
        None => pattern.eq_ignore_ascii_case(subject),
        Some(i) => wildcard_match(&pattern[..i], &pattern[i + 1..], subject),
    }
}

/// The position of the one wildcard `pattern` may use, if it uses one (OpenSSL's
/// `valid_star`); `None` also for a pattern that is no valid wildcard name, which then
/// compares literally.
fn valid_star(p: &[u8]) -> Option<usize> {
    let (mut star, mut dots) = (None, 0);
    let (mut at_start, mut hyphen, mut idna) = (true, false, false);
    for (i, &c) in p.iter().enumerate() {
        match c {
            b'*' => {
                let at_end = i + 1 == p.len() || p[i + 1] == b'.';
                if star.is_some() || idna || dots > 0 || (!at_start && !at_end) {
                    return None;
                }
                star = Some(i);
                at_start = false;
            }
            c if c.is_ascii_alphanumeric() => {
                if at_start && p[i..].len() >= 4 && p[i..i + 4].eq_ignore_ascii_case(b"xn--") {
                    idna = true;
                }
                at_start = false;
                hyphen = false;
            }
            b'.' => {
                if at_start || hyphen {
                    return None;
                }
                (at_start, hyphen, idna) = (true, false, false);
                dots += 1;
            }
            b'-' => {
                if at_start {
                    return None;
                }
                hyphen = true;
            }
            _ => return None,
        }
    }
    if at_start || hyphen || dots < 2 {
        return None;
    }
    star
}

/// OpenSSL's `wildcard_match`: `subject` is `prefix`, label characters (one at least
/// where the wildcard is the whole first label), then `suffix`.
fn wildcard_match(prefix: &[u8], suffix: &[u8], subject: &[u8]) -> bool {
    if subject.len() < prefix.len() + suffix.len() {
        return false;
    }
    let (head, rest) = subject.split_at(prefix.len());
    let (middle, tail) = rest.split_at(rest.len() - suffix.len());
    if !head.eq_ignore_ascii_case(prefix) || !tail.eq_ignore_ascii_case(suffix) {
        return false;
    }
    let whole_label = prefix.is_empty() && suffix.first() == Some(&b'.');
    if whole_label && middle.is_empty() {
        return false;
    }
    if !whole_label && subject.len() >= 4 && subject[..4].eq_ignore_ascii_case(b"xn--") {
        return false;
    }
    if middle == b"*" {
        return true;
    }
    middle.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-')
}

#[cfg(test)]
mod tests {
    use super::name_matches;

    #[test]
    fn names_match_as_openssl_matches_them() {
        let yes = [
            ("example.com", "EXAMPLE.com"),
            ("*.example.com", "www.example.com"),
            ("*.example.com", "WWW.Example.COM"),
            ("www*.example.com", "www1.example.com"),
            ("*w.example.com", "www.example.com"),
            ("*.example.com", "xn--bcher-kva.example.com"),
            // A partial wildcard may stand for nothing.
            ("www*.example.com", "www.example.com"),
            // A leading dot asks for a subdomain.
            ("*.example.com", ".example.com"),
            ("www.Example.com", ".example.COM"),
        ];
        let no = [
            ("*.example.com", "example.com"),
            ("*.example.com", "a.b.example.com"),
            ("*.com", "example.com"),
            ("w*w.example.com", "www.example.com"),
            ("*.*.example.com", "a.b.example.com"),
            ("a.*.example.com", "a.b.example.com"),
            ("xn--*.example.com", "xn--a.example.com"),
            ("x*.example.com", "xn--bcher-kva.example.com"),
            ("example.com", ".example.com"),
            ("wwwexample.com", ".example.com"),
            ("example.com", "example.org"),
        ];
        for (pattern, host) in yes {
            assert!(name_matches(pattern.as_bytes(), host.as_bytes()), "{pattern} {host}");
        }
        for (pattern, host) in no {
            assert!(!name_matches(pattern.as_bytes(), host.as_bytes()), "{pattern} {host}");
        }
    }
}
