//! The extensions that steer policy processing along a path (`policy.rs`): policyMappings
//! (RFC 5280 4.2.1.5), policyConstraints (4.2.1.11) and inhibitAnyPolicy (4.2.1.14), in
//! OpenSSL's extension language and in its text form (`v3_pmaps.c`, `v3_pcons.c`,
//! `v3_int.c`):
//!
//! ```text
//! policyMappings = 1.2.3.4:1.2.3.5, ...        (or @section of ISSUER = SUBJECT lines)
//! policyConstraints = requireExplicitPolicy:0, inhibitPolicyMapping:1
//! inhibitAnyPolicy = 1
//! ```
//!
//! printed `1.2.3.4:1.2.3.5, ...`, `Require Explicit Policy:0, Inhibit Policy Mapping:1`
//! and `1`. Policies are dotted OIDs or `anyPolicy`; counts decimal or `0x` hex. As
//! OpenSSL, the language writes a mapping to or from anyPolicy, which path validation
//! then refuses.

use super::ext_conf::Entry;
use super::policy::{ANY_POLICY, INHIBIT_ANY_POLICY};
use super::policy_text::policy_name;
use crate::{Error, Result};
use const_oid::AssociatedOid;
use der::asn1::ObjectIdentifier as Oid;
use der::{Decode, Encode};
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::{PolicyConstraints, PolicyMapping, PolicyMappings};

/// `policyMappings`: `ISSUER:SUBJECT` pairs.
pub(super) fn mappings(entries: &[Entry]) -> Result<(Oid, Vec<u8>)> {
    let maps = entries
        .iter()
        .map(|e| {
            let subject = e.value.as_deref().ok_or_else(|| {
                Error::Malformed(format!("policy mapping '{}' (ISSUER:SUBJECT)", e.name))
            })?;
            Ok(PolicyMapping {
                issuer_domain_policy: policy(&e.name)?,
                subject_domain_policy: policy(subject)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    if maps.is_empty() {
        return Err(Error::Malformed("policyMappings: no mappings".into()));
    }
    Ok((PolicyMappings::OID, PolicyMappings(maps).to_der()?))
}

/// `policyConstraints`: `requireExplicitPolicy:N`, `inhibitPolicyMapping:N`, one at least.
pub(super) fn constraints(entries: &[Entry]) -> Result<(Oid, Vec<u8>)> {
    let mut pc = PolicyConstraints { require_explicit_policy: None, inhibit_policy_mapping: None };
    for e in entries {
        let value = e.value.as_deref().unwrap_or_default();
        match e.name.as_str() {
            "requireExplicitPolicy" => pc.require_explicit_policy = Some(count(value)?),
            "inhibitPolicyMapping" => pc.inhibit_policy_mapping = Some(count(value)?),
            other => return Err(Error::Malformed(format!("policyConstraints: '{other}'"))),
        }
    }
    if pc.require_explicit_policy.is_none() && pc.inhibit_policy_mapping.is_none() {
        return Err(Error::Malformed("policyConstraints: neither field given".into()));
    }
    Ok((PolicyConstraints::OID, pc.to_der()?))
}

/// `inhibitAnyPolicy`: a count.
pub(super) fn inhibit_any(value: &str) -> Result<(Oid, Vec<u8>)> {
    Ok((INHIBIT_ANY_POLICY, count(value.trim())?.to_der()?))
}

/// The name and one-line text of one of the three extensions, `None` for another
/// extension; the text `None` where the value does not parse.
pub(super) fn text(e: &Extension) -> Option<(&'static str, Option<String>)> {
    let v = e.extn_value.as_bytes();
    Some(match e.extn_id {
        PolicyMappings::OID => (
            "X509v3 Policy Mappings",
            PolicyMappings::from_der(v).ok().map(|m| {
                let pairs: Vec<String> =
                    m.0.iter()
                        .map(|p| {
                            let (i, s) = (p.issuer_domain_policy, p.subject_domain_policy);
                            format!("{}:{}", policy_name(&i), policy_name(&s))
                        })
                        .collect();
                pairs.join(", ")
            }),
        ),
        PolicyConstraints::OID => (
            "X509v3 Policy Constraints",
            PolicyConstraints::from_der(v).ok().map(|pc| {
                let fields = [
                    ("Require Explicit Policy", pc.require_explicit_policy),
                    ("Inhibit Policy Mapping", pc.inhibit_policy_mapping),
                ];
                let present: Vec<String> =
                    fields.iter().filter_map(|(n, v)| v.map(|v| format!("{n}:{v}"))).collect();
                present.join(", ")
            }),
        ),
        INHIBIT_ANY_POLICY => {
            ("X509v3 Inhibit Any Policy", u32::from_der(v).ok().map(|n| n.to_string()))
        }
        _ => return None,
    })
}

fn policy(s: &str) -> Result<Oid> {
    match s.trim() {
        "anyPolicy" => Ok(ANY_POLICY),
        other => Oid::new(other).map_err(|_| {
            Error::Malformed(format!("'{other}' is not a policy (an OID or anyPolicy)"))
        }),
    }
}

/// A SkipCerts count (RFC 5280 4.2.1.11): decimal, or hex after `0x`.
fn count(s: &str) -> Result<u32> {
    let s = s.trim();
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|_| Error::Malformed(format!("'{s}' is not a certificate count")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(list: &[(&str, Option<&str>)]) -> Vec<Entry> {
        list.iter()
            .map(|(n, v)| Entry { name: n.to_string(), value: v.map(String::from) })
            .collect()
    }

    #[test]
    fn bad_values_are_refused() {
        assert!(constraints(&entries(&[])).is_err());
        assert!(constraints(&entries(&[("requireExplicit", Some("0"))])).is_err());
        assert!(constraints(&entries(&[("requireExplicitPolicy", Some("-1"))])).is_err());
        assert!(constraints(&entries(&[("inhibitPolicyMapping", None)])).is_err());
        assert!(mappings(&entries(&[])).is_err());
        assert!(mappings(&entries(&[("1.2.3", None)])).is_err());
        assert!(mappings(&entries(&[("1.2.3", Some("policy"))])).is_err());
        assert!(inhibit_any("one").is_err());
        assert!(inhibit_any("4294967296").is_err());
    }

    #[test]
    fn values_encode_as_rfc_5280_says() {
        let (_, der) = constraints(&entries(&[("inhibitPolicyMapping", Some("0x10"))])).unwrap();
        assert_eq!(der, [0x30, 0x03, 0x81, 0x01, 0x10]);
        let (oid, der) = inhibit_any(" 0 ").unwrap();
        assert_eq!((oid, der), (INHIBIT_ANY_POLICY, vec![0x02, 0x01, 0x00]));
        let (_, der) = mappings(&entries(&[("1.2.3", Some("anyPolicy"))])).unwrap();
        let any = [0x06, 0x04, 0x55, 0x1d, 0x20, 0x00];
        assert_eq!(der, [&[0x30, 0x0c, 0x30, 0x0a, 0x06, 0x02, 0x2a, 0x03][..], &any].concat());
    }
}
