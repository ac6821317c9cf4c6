//! Whether a certificate is for an email address or an IP address: `verify
//! -verify_email` and `-verify_ip`, as OpenSSL's `X509_check_email` and `X509_check_ip`
//! decide (`do_x509_check` in `crypto/x509/v3_utl.c`, default flags). The DNS name check
//! is `host.rs`.
//!
//! - An email address: the subjectAltName's rfc822Name entries are the addresses; only
//!   where there are none, the subject's emailAddress attributes are (RFC 5280 4.1.2.6
//!   keeps those for legacy). Addresses compare exactly in their local part, without
//!   regard to ASCII case after the last `@`. A SmtpUTF8Mailbox entry (RFC 8398) matches
//!   an address of the same bytes.
//! - An IP address: the subjectAltName's iPAddress entries, byte for byte; the subject
//!   does not count.

use super::host::is_string;
use const_oid::ObjectIdentifier as Oid;
use der::Tag;
use der::Tagged;
use x509_cert::Certificate;
use x509_cert::ext::pkix::SubjectAltName;
use x509_cert::ext::pkix::name::GeneralName;

/// The emailAddress attribute (PKCS #9, RFC 2985).
pub(super) const EMAIL_ADDRESS: Oid = Oid::new_unwrap("1.2.840.113549.1.9.1");
/// id-on-SmtpUTF8Mailbox (RFC 8398 section 3).
pub(super) const SMTP_UTF8_MAILBOX: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.8.9");

fn alt_names(cert: &Certificate) -> Vec<GeneralName> {
    match cert.tbs_certificate().get_extension::<SubjectAltName>() {
        Ok(Some((_, san))) => san.0,
        _ => Vec::new(),
    }
}

/// Whether `cert` is for the email address `email`.
pub fn email_matches(cert: &Certificate, email: &str) -> bool {
    let email = email.as_bytes();
    let names = alt_names(cert);
    let mut addresses = names
        .iter()
        .filter_map(|n| match n {
            GeneralName::Rfc822Name(s) => Some(s.as_bytes()),
            _ => None,
        })
        .peekable();
    let listed = addresses.peek().is_some();
    if addresses.any(|a| equal_email(a, email)) {
        return true;
    }
    if !listed {
        let subject = cert.tbs_certificate().subject();
        let mut attrs = subject.iter_rdn().flat_map(|rdn| rdn.iter());
        if attrs.any(|atv| {
            atv.oid == EMAIL_ADDRESS
                && is_string(atv.value.tag())
                && equal_email(atv.value.value(), email)
        }) {
            return true;
        }
    }
    names.iter().any(|n| match n {
        GeneralName::OtherName(o) if o.type_id == SMTP_UTF8_MAILBOX => {
            o.value.tag() == Tag::Utf8String && !email.is_empty() && o.value.value() == email
        }
        _ => false,
    })
}

/// Whether `cert` is for the IP address `ip` (4 or 16 bytes).
pub fn ip_matches(cert: &Certificate, ip: &[u8]) -> bool {
    alt_names(cert).iter().any(|n| matches!(n, GeneralName::IpAddress(a) if a.as_bytes() == ip))
}

/// OpenSSL's `equal_email`: `a` (from the certificate) and `b` of one length, equal
/// after the last `@` without regard to ASCII case (and `a` without NUL there), and
/// equal before it exactly.
fn equal_email(a: &[u8], b: &[u8]) -> bool {
    if a.is_empty() || a.len() != b.len() {
        return false;
    }
    let at = (0..a.len()).rev().find(|&i| a[i] == b'@' || b[i] == b'@');
    let local = match at {
        Some(i) => {
            let (x, y) = (&a[i..], &b[i..]);
            if x.contains(&0) || !x.eq_ignore_ascii_case(y) {
                return false;
            }
            if i == 0 { a.len() } else { i }
        }
        None => a.len(),
    };
    a[..local] == b[..local]
}

#[cfg(test)]
mod tests {
    use super::equal_email;

    #[test]
    fn addresses_compare_as_openssl_compares_them() {
        let yes = [("user@example.com", "user@EXAMPLE.com"), ("a@b", "a@b")];
        let no = [
            ("User@example.com", "user@example.com"),
            ("user@example.com", "user@example.org"),
            ("user@example.com", "user@example.comm"),
            ("", ""),
        ];
        for (a, b) in yes {
            assert!(equal_email(a.as_bytes(), b.as_bytes()), "{a} {b}");
        }
        for (a, b) in no {
            assert!(!equal_email(a.as_bytes(), b.as_bytes()), "{a} {b}");
        }
    }
}
