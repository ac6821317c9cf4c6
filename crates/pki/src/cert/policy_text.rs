//! The text of a certificatePolicies extension (RFC 5280 section 4.2.1.4) as OpenSSL's
//! `i2r_certpol` prints it (`crypto/x509/v3_cpols.c`, 3.0), for `x509 -text` and `-ext`:
//!
//! ```text
//! Policy: X509v3 Any Policy
//!   CPS: http://example.com/cps
//!   User Notice:
//!     Organization: Example
//!     Number: 1
//!     Explicit Text: Use only as the policy says.
//! ```
//!
//! OpenSSL prints the notice strings' bytes as they are, up to the first zero byte
//! (`%.*s`), so a BMPString of ASCII text prints empty; so do we.

use der::asn1::{AnyRef, Ia5StringRef, ObjectIdentifier as Oid, UintRef};
use der::{Decode, Sequence};
use std::fmt::Write as _;
use x509_cert::ext::pkix::CertificatePolicies;
use x509_cert::ext::pkix::certpolicy::PolicyQualifierInfo;

use super::policy::ANY_POLICY;
/// The CPS pointer and user notice qualifiers (RFC 5280 4.2.1.4).
const CPS: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.2.1");
const USER_NOTICE: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.2.2");

/// RFC 5280's `UserNotice`, with its strings read raw.
#[derive(Sequence)]
struct Notice<'a> {
    notice_ref: Option<NoticeRef<'a>>,
    explicit_text: Option<AnyRef<'a>>,
}

/// RFC 5280's `NoticeReference`.
#[derive(Sequence)]
struct NoticeRef<'a> {
    organization: AnyRef<'a>,
    notice_numbers: Vec<UintRef<'a>>,
}

/// The extension's text, one line each, or `None` if it does not parse.
pub(super) fn policies_text(der: &[u8]) -> Option<String> {
    let policies = CertificatePolicies::from_der(der).ok()?;
    let mut t = String::new();
    for p in &policies.0 {
        let _ = writeln!(t, "Policy: {}", policy_name(&p.policy_identifier));
        for q in p.policy_qualifiers.iter().flatten() {
            let value = q.qualifier.as_ref()?;
            if q.policy_qualifier_id == CPS {
                let uri = value.decode_as::<Ia5StringRef<'_>>().ok()?;
                let _ = writeln!(t, "  CPS: {}", uri.as_str());
            } else if q.policy_qualifier_id == USER_NOTICE {
                let notice: Notice<'_> = value.decode_as().ok()?;
                t.push_str("  User Notice:\n");
                notice_lines(&mut t, "    ", &notice);
            } else {
                let _ = writeln!(t, "    Unknown Qualifier: {}", q.policy_qualifier_id);
            }
        }
    }
    Some(t)
}

/// A policy as OpenSSL's `i2a_ASN1_OBJECT` names it: anyPolicy by its long name, the
/// others dotted.
pub(super) fn policy_name(policy: &Oid) -> String {
    if *policy == ANY_POLICY { "X509v3 Any Policy".to_string() } else { policy.to_string() }
}

/// A policy's qualifiers as OpenSSL's `print_qualifiers` prints them at `indent`: each
/// CPS pointer on a line, each user notice on its lines, unknown qualifiers by their
/// identifier, separated by newlines (so that a CPS pointer last has none after it).
pub(super) fn qualifiers_text(qualifiers: &[PolicyQualifierInfo], indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut t = String::new();
    for (i, q) in qualifiers.iter().enumerate() {
        if i > 0 {
            t.push('\n');
        }
        let value = q.qualifier.as_ref();
        if q.policy_qualifier_id == CPS {
            let uri = value.and_then(|v| v.decode_as::<Ia5StringRef<'_>>().ok());
            let _ =
                write!(t, "{pad}CPS: {}", uri.map(|u| u.as_str().to_string()).unwrap_or_default());
        } else if q.policy_qualifier_id == USER_NOTICE {
            let _ = writeln!(t, "{pad}User Notice:");
            if let Some(notice) = value.and_then(|v| v.decode_as::<Notice<'_>>().ok()) {
                notice_lines(&mut t, &format!("{pad}  "), &notice);
            }
        } else {
            let _ = write!(t, "{pad}  Unknown Qualifier: {}", q.policy_qualifier_id);
        }
    }
    t
}

/// A user notice's lines at `pad` (OpenSSL's `print_notice`).
fn notice_lines(t: &mut String, pad: &str, notice: &Notice<'_>) {
    if let Some(r) = &notice.notice_ref {
        let _ = writeln!(t, "{pad}Organization: {}", c_string(r.organization.value()));
        let plural = if r.notice_numbers.len() > 1 { "s" } else { "" };
        let numbers: Vec<String> = r.notice_numbers.iter().map(|n| decimal(n.as_bytes())).collect();
        let _ = writeln!(t, "{pad}Number{plural}: {}", numbers.join(", "));
    }
    if let Some(text) = &notice.explicit_text {
        let _ = writeln!(t, "{pad}Explicit Text: {}", c_string(text.value()));
    }
}

/// `bytes` as `%.*s` prints them: up to the first zero byte.
fn c_string(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// A small non-negative integer in decimal (notice numbers), or its hex past 64 bits.
fn decimal(magnitude: &[u8]) -> String {
    if magnitude.len() <= 8 {
        magnitude.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b)).to_string()
    } else {
        magnitude.iter().map(|b| format!("{b:02X}")).collect()
    }
}
