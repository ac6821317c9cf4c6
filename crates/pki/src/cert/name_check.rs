//! Name constraints in path validation (RFC 5280 sections 4.2.1.10, 6.1.3 (b) and (c),
//! 6.1.4 (g)), as OpenSSL 3.0's `check_name_constraints` and `NAME_CONSTRAINTS_check`
//! apply them:
//!
//! - every certificate of the path is checked against the constraints of each
//!   certificate above it, the trust anchor's included, from the top down; a
//!   self-issued certificate other than the end entity is not checked (6.1.3 (b));
//! - a certificate's names are its subject (a directory name, when not empty), the
//!   emailAddress attributes of its subject (as email addresses; they must be
//!   IA5Strings), and its subjectAltName entries; for the end entity without a DNS name
//!   among its alternative names, also each commonName that looks like a DNS name (two
//!   labels or more of letters, digits, `-` and `_`), as RFC 6125 clients read it;
//! - a name must lie in one of the permitted subtrees of its form, if there are any of
//!   its form, and in none of the excluded subtrees of its form (`subtree.rs` compares);
//!   names of other forms than the subtrees' are not constrained;
//! - a subtree with a minimum other than 0 or with a maximum is refused, as RFC 5280
//!   forbids them; a subtree of a form that cannot be compared (otherName other than
//!   SmtpUTF8Mailbox, ediPartyName, registeredID), and a name that cannot be read, fail
//!   the path rather than pass unchecked.
//!
//! Work is bounded as OpenSSL bounds it: a certificate whose names times the subtrees it
//! is checked against pass 2^20 fails (`X509_V_ERR_UNSPECIFIED`), and each name and
//! directory-name base is put in canonical form once. A nameConstraints extension that
//! cannot be read makes its certificate unusable in a path (`verify.rs`), as OpenSSL
//! marks such a certificate invalid.

use super::failure::PathFailure;
use super::host::COMMON_NAME;
use super::name_hash::canonical_name;
use super::peer_id::{EMAIL_ADDRESS, SMTP_UTF8_MAILBOX};
use super::subtree::{
    Within, dn_within, dns_within, email_within, ip_within, mailbox_within, uri_within,
};
use der::asn1::Any;
use der::{Tag, Tagged};
use x509_cert::Certificate;
use x509_cert::ext::pkix::constraints::name::GeneralSubtree;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{NameConstraints, SubjectAltName};
use x509_cert::name::Name;

/// The most (name, subtree) pairs one certificate is compared in, against one
/// certificate's constraints (OpenSSL's `NAME_CHECK_MAX`).
pub const MAX_NAME_CHECKS: usize = 1 << 20;

/// One certificate's name constraints, its directory-name bases in canonical form.
pub(super) struct Constraints {
    permitted: Vec<Subtree>,
    excluded: Vec<Subtree>,
}

struct Subtree {
    subtree: GeneralSubtree,
    /// The canonical encoding of a directory-name base.
    canonical: Option<Vec<u8>>,
}

impl Constraints {
    /// The constraints `cert` carries: `Ok(None)` if none, `Err` if its extension cannot
    /// be read.
    pub(super) fn of(cert: &Certificate) -> Result<Option<Constraints>, ()> {
        let Some((_, nc)) =
            cert.tbs_certificate().get_extension::<NameConstraints>().map_err(|_| ())?
        else {
            return Ok(None);
        };
        let subtrees = |list: Option<Vec<GeneralSubtree>>| -> Result<Vec<Subtree>, ()> {
            let list = list.unwrap_or_default().into_iter().map(|subtree| {
                let canonical = match &subtree.base {
                    GeneralName::DirectoryName(name) => Some(canonical_name(name).map_err(|_| ())?),
                    _ => None,
                };
                Ok(Subtree { subtree, canonical })
            });
            list.collect()
        };
        Ok(Some(Constraints {
            permitted: subtrees(nc.permitted_subtrees)?,
            excluded: subtrees(nc.excluded_subtrees)?,
        }))
    }

    fn len(&self) -> usize {
        self.permitted.len() + self.excluded.len()
    }
}

/// Whether `cert` has a nameConstraints extension that does not decode (what OpenSSL
/// marks invalid); decoding alone, as path building asks this of every candidate.
pub(super) fn unreadable(cert: &Certificate) -> bool {
    cert.tbs_certificate().get_extension::<NameConstraints>().is_err()
}

/// Whether `cert` is self-issued: its subject and issuer the same name (compared as
/// OpenSSL's `X509_NAME_cmp` compares them, in canonical form).
pub(super) fn self_issued(cert: &Certificate) -> bool {
    let tbs = cert.tbs_certificate();
    match (canonical_name(tbs.subject()), canonical_name(tbs.issuer())) {
        (Ok(s), Ok(i)) => s == i,
        _ => false,
    }
}

/// A name to check, in the forms subtrees constrain.
enum Form<'a> {
    /// A directory name, in canonical form.
    Dir(Vec<u8>),
    Email(&'a [u8]),
    /// A SmtpUTF8Mailbox: its UTF8String's bytes, `None` for another type.
    Mailbox(Option<&'a [u8]>),
    Dns(&'a [u8]),
    Uri(&'a [u8]),
    Ip(&'a [u8]),
    /// A name of a form no subtree can be compared with.
    Other(&'a GeneralName),
}

impl<'a> Form<'a> {
    fn of(name: &'a GeneralName) -> Result<Form<'a>, PathFailure> {
        Ok(match name {
            GeneralName::DirectoryName(n) => Form::Dir(canonical(n)?),
            GeneralName::Rfc822Name(s) => Form::Email(s.as_bytes()),
            GeneralName::DnsName(s) => Form::Dns(s.as_bytes()),
            GeneralName::UniformResourceIdentifier(s) => Form::Uri(s.as_bytes()),
            GeneralName::IpAddress(ip) => Form::Ip(ip.as_bytes()),
            GeneralName::OtherName(o) if o.type_id == SMTP_UTF8_MAILBOX => {
                Form::Mailbox((o.value.tag() == Tag::Utf8String).then(|| o.value.value()))
            }
            other => Form::Other(other),
        })
    }

    /// Whether a subtree of `base`'s form constrains this name (OpenSSL's "effective
    /// type": a SmtpUTF8Mailbox is constrained by rfc822Name subtrees).
    fn same_form(&self, base: &GeneralName) -> bool {
        match (self, base) {
            (Form::Dir(_), GeneralName::DirectoryName(_))
            | (Form::Email(_) | Form::Mailbox(_), GeneralName::Rfc822Name(_))
            | (Form::Dns(_), GeneralName::DnsName(_))
            | (Form::Uri(_), GeneralName::UniformResourceIdentifier(_))
            | (Form::Ip(_), GeneralName::IpAddress(_)) => true,
            (Form::Other(GeneralName::OtherName(a)), GeneralName::OtherName(b)) => {
                a.type_id == b.type_id
            }
            (Form::Other(a), b) => core::mem::discriminant(*a) == core::mem::discriminant(b),
            _ => false,
        }
    }

    /// Whether the name lies in `sub`, of the same form.
    fn within(&self, sub: &Subtree) -> Within {
        match (self, &sub.subtree.base, &sub.canonical) {
            (Form::Dir(name), _, Some(base)) => Ok(dn_within(name, base)),
            (Form::Email(e), GeneralName::Rfc822Name(base), _) => email_within(e, base.as_bytes()),
            (Form::Mailbox(m), GeneralName::Rfc822Name(base), _) => {
                mailbox_within(*m, base.as_bytes())
            }
            (Form::Dns(d), GeneralName::DnsName(base), _) => Ok(dns_within(d, base.as_bytes())),
            (Form::Uri(u), GeneralName::UniformResourceIdentifier(base), _) => {
                uri_within(u, base.as_bytes())
            }
            (Form::Ip(ip), GeneralName::IpAddress(base), _) => ip_within(ip, base.as_bytes()),
            _ => Err(PathFailure::UnsupportedConstraintType),
        }
    }

    /// OpenSSL's `nc_match`: in a permitted subtree of its form if there are any, in no
    /// excluded one.
    fn check(&self, nc: &Constraints) -> Result<(), PathFailure> {
        let (mut constrained, mut permitted) = (false, false);
        for sub in nc.permitted.iter().filter(|s| self.same_form(&s.subtree.base)) {
            min_max(&sub.subtree)?;
            if !permitted {
                constrained = true;
                permitted = self.within(sub)?;
            }
        }
        if constrained && !permitted {
            return Err(PathFailure::PermittedViolation);
        }
        for sub in nc.excluded.iter().filter(|s| self.same_form(&s.subtree.base)) {
            min_max(&sub.subtree)?;
            if self.within(sub)? {
                return Err(PathFailure::ExcludedViolation);
            }
        }
        Ok(())
    }
}

/// RFC 5280 4.2.1.10: "the minimum MUST be zero, and maximum MUST be absent".
fn min_max(sub: &GeneralSubtree) -> Result<(), PathFailure> {
    if sub.minimum != 0 || sub.maximum.is_some() {
        return Err(PathFailure::SubtreeMinMax);
    }
    Ok(())
}

fn canonical(name: &Name) -> Result<Vec<u8>, PathFailure> {
    canonical_name(name).map_err(|_| PathFailure::UnsupportedNameSyntax)
}

/// Whether `cert`'s names lie within the name constraints of `constraining`, a
/// certificate above it in a path, as path validation checks them (see the module
/// docs); `end_entity` if `cert` ends the path, whose commonName may then count as a DNS
/// name. A `constraining` certificate without constraints constrains nothing; one whose
/// constraints cannot be read fails ([`PathFailure::Unspecified`]).
pub fn check_name_constraints(
    cert: &Certificate,
    constraining: &Certificate,
    end_entity: bool,
) -> Result<(), PathFailure> {
    match Constraints::of(constraining) {
        Ok(None) => Ok(()),
        Ok(Some(nc)) => check(cert, end_entity, &nc),
        Err(()) => Err(PathFailure::Unspecified),
    }
}

/// Checks `cert`'s names against `nc` (OpenSSL's `NAME_CONSTRAINTS_check`, then, for
/// the end entity (`leaf`) without a DNS alternative name, `NAME_CONSTRAINTS_check_CN`).
pub(super) fn check(cert: &Certificate, leaf: bool, nc: &Constraints) -> Result<(), PathFailure> {
    let tbs = cert.tbs_certificate();
    let subject = tbs.subject();
    // An alternative name that cannot be read is refused, not passed over.
    let alt_names = match tbs.get_extension::<SubjectAltName>() {
        Ok(san) => san.map(|(_, san)| san.0).unwrap_or_default(),
        Err(_) => return Err(PathFailure::UnsupportedNameSyntax),
    };
    let attributes = || subject.iter_rdn().flat_map(|rdn| rdn.iter());
    let names = attributes().count() + alt_names.len();
    if names > 0 && nc.len() > MAX_NAME_CHECKS / names {
        return Err(PathFailure::Unspecified);
    }
    if names > alt_names.len() {
        Form::Dir(canonical(subject)?).check(nc)?;
        for atv in attributes().filter(|atv| atv.oid == EMAIL_ADDRESS) {
            if atv.value.tag() != Tag::Ia5String {
                return Err(PathFailure::UnsupportedNameSyntax);
            }
            Form::Email(atv.value.value()).check(nc)?;
        }
    }
    for name in &alt_names {
        Form::of(name)?.check(nc)?;
    }
    if leaf && !alt_names.iter().any(|n| matches!(n, GeneralName::DnsName(_))) {
        for atv in attributes().filter(|atv| atv.oid == COMMON_NAME) {
            if let Some(dns) = dns_id(&atv.value)? {
                Form::Dns(&dns).check(nc)?;
            }
        }
    }
    Ok(())
}

/// A commonName as a DNS name, if it looks like one (OpenSSL's `cn2dnsid`): `None` if it
/// does not; `Err` if it holds a NUL before its end or cannot be read as text.
fn dns_id(value: &Any) -> Result<Option<Vec<u8>>, PathFailure> {
    let mut text =
        text_points(value.tag(), value.value()).ok_or(PathFailure::UnsupportedNameSyntax)?;
    while text.last() == Some(&0) {
        text.pop();
    }
    if text.contains(&0) {
        return Err(PathFailure::UnsupportedNameSyntax);
    }
    // Letters, digits, `_`; `-` and `.` inside only, a `.` between neither `-` nor `.`;
    // one `.` at least. Non-ASCII text is no DNS name.
    let n = text.len();
    let ascii = |i: usize| u8::try_from(text[i]).ok().filter(u8::is_ascii);
    let mut dotted = false;
    for i in 0..n {
        let Some(c) = ascii(i) else { return Ok(None) };
        if c.is_ascii_alphanumeric() || c == b'_' {
            continue;
        }
        let inner = i > 0 && i + 1 < n;
        if inner && c == b'-' {
            continue;
        }
        if inner
            && c == b'.'
            && ![Some(b'.'), Some(b'-')].contains(&ascii(i + 1))
            && ascii(i - 1) != Some(b'-')
        {
            dotted = true;
            continue;
        }
        return Ok(None);
    }
    Ok(dotted.then(|| text.iter().map(|&c| c as u8).collect()))
}

/// The code points of a value of a string type, as OpenSSL's `ASN1_STRING_to_UTF8`
/// reads them: one byte a character (Latin-1) for the 8-bit types, UCS-2 for BMPString,
/// UTF-8 (valid) for UTF8String; `None` for other types. (A UniversalString does not
/// parse in a certificate here.)
fn text_points(tag: Tag, content: &[u8]) -> Option<Vec<u32>> {
    match tag {
        Tag::Utf8String => {
            Some(core::str::from_utf8(content).ok()?.chars().map(u32::from).collect())
        }
        Tag::NumericString
        | Tag::PrintableString
        | Tag::TeletexString
        | Tag::Ia5String
        | Tag::VisibleString
        | Tag::GeneralString => Some(content.iter().map(|&b| u32::from(b)).collect()),
        Tag::BmpString if content.len().is_multiple_of(2) => Some(
            content.chunks_exact(2).map(|c| u32::from(u16::from_be_bytes([c[0], c[1]]))).collect(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::dns_id;
    use der::Tag;
    use der::asn1::Any;

    #[test]
    fn common_names_that_look_like_dns_names() {
        let id = |tag, s: &[u8]| dns_id(&Any::new(tag, s).unwrap());
        let dns = |s: &str| id(Tag::Utf8String, s.as_bytes());
        assert_eq!(dns("www.example.com"), Ok(Some(b"www.example.com".to_vec())));
        assert_eq!(dns("my_host.example-1.com"), Ok(Some(b"my_host.example-1.com".to_vec())));
        for not in [
            "localhost",
            "John Smith",
            ".example.com",
            "example.com.",
            "a..b",
            "a-.b",
            "a.-b",
            "-a.b",
            "b\u{FC}cher.example",
        ] {
            assert_eq!(dns(not), Ok(None), "{not}");
        }
        // Trailing NULs are dropped; one inside is refused.
        assert_eq!(dns("a.example\0\0"), Ok(Some(b"a.example".to_vec())));
        assert!(dns("a\0.example").is_err());
        // A BMPString reads as UCS-2; a value of another type cannot be read.
        let bmp: Vec<u8> = "a.example".encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(id(Tag::BmpString, &bmp), Ok(Some(b"a.example".to_vec())));
        assert!(id(Tag::OctetString, b"a.example").is_err());
    }
}
