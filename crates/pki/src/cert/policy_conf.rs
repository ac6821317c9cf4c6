//! `certificatePolicies` in OpenSSL's extension language (x509v3_config(5), "Certificate
//! Policies"; RFC 5280 4.2.1.4): a comma-separated list of policy OIDs (`anyPolicy` by
//! name), `@section`s and the `ia5org` flag. A section holds `policyIdentifier`, CPS
//! pointers (`CPS.1 = URI`, IA5String) and user notices (`userNotice.1 = @section` with
//! `explicitText`, `organization` and `noticeNumbers`). As OpenSSL 3.0 writes them, the
//! texts are VisibleStrings unless prefixed `UTF8:` (UTF8String) or `VISIBLE:`, and the
//! organization an IA5String once `ia5org` has appeared earlier in the list.

use crate::conf::Conf;
use crate::{Error, Result};
use const_oid::db::rfc5280;
use der::asn1::{Any, ObjectIdentifier as Oid, Uint};
use der::{Sequence, Tag};
use x509_cert::ext::pkix::certpolicy::{PolicyInformation, PolicyQualifierInfo};

/// The CPS pointer and user notice qualifiers (RFC 5280 4.2.1.4).
const CPS: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.2.1");
const USER_NOTICE: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.2.2");

/// The most notice numbers one notice may hold (a bound on work).
const MAX_NUMBERS: usize = 64;

/// RFC 5280's UserNotice (`x509-cert`'s type misdeclares its noticeRef).
#[derive(Sequence)]
struct UserNotice {
    notice_ref: Option<NoticeReference>,
    explicit_text: Option<Any>,
}

#[derive(Sequence)]
struct NoticeReference {
    organization: Any,
    notice_numbers: Vec<Uint>,
}

/// The policies of `value`; `conf` resolves its `@section`s.
pub(super) fn policies(value: &str, conf: Option<&Conf>) -> Result<Vec<PolicyInformation>> {
    let mut ia5org = false;
    let mut out = Vec::new();
    for item in value.split(',').map(str::trim).filter(|v| !v.is_empty()) {
        if item == "ia5org" {
            ia5org = true;
        } else if let Some(name) = item.strip_prefix('@') {
            let conf = conf.ok_or_else(|| {
                Error::Unsupported(format!("'@{name}' outside a configuration file"))
            })?;
            out.push(policy_section(conf, name.trim(), ia5org)?);
        } else {
            out.push(PolicyInformation {
                policy_identifier: policy_oid(item)?,
                policy_qualifiers: None,
            });
        }
    }
    if out.is_empty() {
        return Err(Error::Malformed("no policies".into()));
    }
    Ok(out)
}

fn policy_oid(s: &str) -> Result<Oid> {
    if s == "anyPolicy" {
        return Ok(rfc5280::ANY_POLICY);
    }
    Oid::new(s).map_err(|_| Error::Malformed(format!("'{s}' is not a policy OID")))
}

fn section<'c>(conf: &'c Conf, name: &str) -> Result<&'c [(String, String)]> {
    conf.section(name).ok_or_else(|| Error::Malformed(format!("no section '{name}'")))
}

/// One `@section`: its identifier and qualifiers, in the section's order.
fn policy_section(conf: &Conf, name: &str, ia5org: bool) -> Result<PolicyInformation> {
    let mut id = None;
    let mut qualifiers = Vec::new();
    for (key, value) in section(conf, name)? {
        let kind = key.split('.').next().unwrap_or("");
        match kind {
            "policyIdentifier" => id = Some(policy_oid(value)?),
            "CPS" => qualifiers.push(PolicyQualifierInfo {
                policy_qualifier_id: CPS,
                qualifier: Some(Any::new(Tag::Ia5String, ia5_bytes(value)?)?),
            }),
            "userNotice" => {
                let notice = value.strip_prefix('@').ok_or_else(|| {
                    Error::Malformed(format!("{key} = {value}: expected @section"))
                })?;
                qualifiers.push(PolicyQualifierInfo {
                    policy_qualifier_id: USER_NOTICE,
                    qualifier: Some(Any::encode_from(&user_notice(conf, notice.trim(), ia5org)?)?),
                });
            }
            _ => return Err(Error::Malformed(format!("policy section '{name}': unknown '{key}'"))),
        }
    }
    let policy_identifier = id
        .ok_or_else(|| Error::Malformed(format!("policy section '{name}': no policyIdentifier")))?;
    Ok(PolicyInformation {
        policy_identifier,
        policy_qualifiers: (!qualifiers.is_empty()).then_some(qualifiers),
    })
}

fn user_notice(conf: &Conf, name: &str, ia5org: bool) -> Result<UserNotice> {
    let (mut text, mut organization, mut numbers) = (None, None, None);
    for (key, value) in section(conf, name)? {
        match key.as_str() {
            "explicitText" => text = Some(display_text(value)?),
            "organization" => {
                organization = Some(if ia5org {
                    Any::new(Tag::Ia5String, ia5_bytes(value)?)?
                } else {
                    Any::new(Tag::VisibleString, visible_bytes(value)?)?
                });
            }
            "noticeNumbers" => {
                let list: Vec<&str> =
                    value.split(',').map(str::trim).filter(|n| !n.is_empty()).collect();
                if list.is_empty() || list.len() > MAX_NUMBERS {
                    return Err(Error::Malformed(format!("noticeNumbers '{value}'")));
                }
                numbers = Some(
                    list.iter()
                        .map(|n| {
                            let v: u64 = n
                                .parse()
                                .map_err(|_| Error::Malformed(format!("notice number '{n}'")))?;
                            Ok(Uint::new(&v.to_be_bytes())?)
                        })
                        .collect::<Result<Vec<_>>>()?,
                );
            }
            other => {
                return Err(Error::Malformed(format!("user notice '{name}': unknown '{other}'")));
            }
        }
    }
    let notice_ref = match (organization, numbers) {
        (Some(organization), Some(notice_numbers)) => {
            Some(NoticeReference { organization, notice_numbers })
        }
        (None, None) => None,
        _ => {
            return Err(Error::Malformed(format!(
                "user notice '{name}': organization and noticeNumbers go together"
            )));
        }
    };
    Ok(UserNotice { notice_ref, explicit_text: text })
}

/// An explicit text: VisibleString, or UTF8String after `UTF8:`.
fn display_text(v: &str) -> Result<Any> {
    if let Some(utf8) = v.strip_prefix("UTF8:") {
        return Ok(Any::new(Tag::Utf8String, utf8.as_bytes())?);
    }
    let v = v.strip_prefix("VISIBLE:").unwrap_or(v);
    Ok(Any::new(Tag::VisibleString, visible_bytes(v)?)?)
}

fn ia5_bytes(v: &str) -> Result<&[u8]> {
    if v.is_ascii() {
        Ok(v.as_bytes())
    } else {
        Err(Error::Malformed(format!("'{v}' is not IA5 text")))
    }
}

fn visible_bytes(v: &str) -> Result<&[u8]> {
    if v.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        Ok(v.as_bytes())
    } else {
        Err(Error::Malformed(format!("'{v}' is not visible text (give UTF8:...)")))
    }
}
