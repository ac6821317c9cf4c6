//! The name constraints extension (RFC 5280 4.2.1.10) in OpenSSL's extension language and
//! in its text form.
//!
//! `nameConstraints = [critical,] permitted;DNS:.example.com, excluded;IP:10.0.0.0/255.0.0.0,
//! ...` (or `@section` of `permitted;DNS.1 = ...` lines): each subtree a general name, an
//! IP address with its mask (8 or 32 bytes). Printed as `openssl x509 -text` prints them:
//! `Permitted:` and `Excluded:` lists, IP subtrees as `address/mask`, directory names in
//! the one-line-with-spaces form.
//!
//! Path validation enforces them in `name_check.rs`.

use crate::{Error, Result};
use der::asn1::OctetString;
use std::fmt::Write as _;
use x509_cert::ext::pkix::NameConstraints;
use x509_cert::ext::pkix::constraints::name::GeneralSubtree;
use x509_cert::ext::pkix::name::GeneralName;

/// The subtrees of `entries`: (`permitted` or `excluded`, the name) pairs, the IP ones as
/// `address/mask`, the others already read by the caller's general-name reader.
pub(super) fn name_constraints(entries: Vec<(bool, GeneralName)>) -> Result<NameConstraints> {
    let (mut permitted, mut excluded) = (Vec::new(), Vec::new());
    for (is_permitted, base) in entries {
        let subtree = GeneralSubtree { base, minimum: 0, maximum: None };
        if is_permitted { permitted.push(subtree) } else { excluded.push(subtree) }
    }
    if permitted.is_empty() && excluded.is_empty() {
        return Err(Error::Malformed("no subtrees".into()));
    }
    Ok(NameConstraints {
        permitted_subtrees: (!permitted.is_empty()).then_some(permitted),
        excluded_subtrees: (!excluded.is_empty()).then_some(excluded),
    })
}

/// An IP subtree, `address/mask` (both IPv4 or both IPv6).
pub(super) fn ip_subtree(value: &str) -> Result<GeneralName> {
    let bad = || Error::Malformed(format!("IP subtree '{value}': expected address/mask"));
    let (addr, mask) = value.split_once('/').ok_or_else(bad)?;
    let bytes = |s: &str| super::ext_conf::ip_octets(s.trim()).ok_or_else(bad);
    let (mut addr, mask) = (bytes(addr)?, bytes(mask)?);
    if addr.len() != mask.len() {
        return Err(bad());
    }
    addr.extend(mask);
    Ok(GeneralName::IpAddress(OctetString::new(addr)?))
}

/// The text of the extension's value: `Permitted:` and `Excluded:` lists.
pub(super) fn name_constraints_text(nc: &NameConstraints) -> String {
    let mut t = String::new();
    for (label, subtrees) in
        [("Permitted", &nc.permitted_subtrees), ("Excluded", &nc.excluded_subtrees)]
    {
        let Some(subtrees) = subtrees else { continue };
        let _ = writeln!(t, "{label}:");
        for s in subtrees {
            let _ = writeln!(t, "  {}", subtree_name(&s.base));
        }
    }
    t
}

/// A subtree's base as OpenSSL's `GENERAL_NAME_print` and `print_nc_ipadd` print it.
fn subtree_name(n: &GeneralName) -> String {
    match n {
        GeneralName::IpAddress(ip) => {
            // OpenSSL's `print_nc_ipadd`: the first half as long as an address can be.
            let b = ip.as_bytes();
            let first = if b.len() >= 16 { 16 } else { b.len().min(4) };
            let address = |a: &[u8]| {
                super::text::ip_text(a).unwrap_or_else(|| format!("<invalid length={}>", a.len()))
            };
            format!("IP:{}/{}", address(&b[..first]), address(&b[first..]))
        }
        other => super::text::general_name_print(other),
    }
}
