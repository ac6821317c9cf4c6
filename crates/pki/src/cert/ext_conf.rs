//! X.509 v3 extensions written in OpenSSL's configuration language (x509v3_config(5)), as
//! `openssl ca`, `x509 -extfile` and `req -addext` read them: `name = [critical,]value`.
//!
//! The extensions of RFC 5280 section 4.2 a CA sets:
//! - `basicConstraints = CA:TRUE|FALSE[,pathlen:N]` (4.2.1.9);
//! - `keyUsage = digitalSignature, keyCertSign, ...` (4.2.1.3);
//! - `extendedKeyUsage = serverAuth, clientAuth, ... | OID` (4.2.1.12);
//! - `subjectKeyIdentifier = hash | none | hex` (4.2.1.2, method 1);
//! - `authorityKeyIdentifier = keyid[:always], issuer[:always] | none` (4.2.1.1);
//! - `subjectAltName`, `issuerAltName = DNS:.., IP:.., email:.., URI:.., RID:..` or
//!   `@section` of `DNS.1 = ..` lines, `dirName:section` a name of that section's lines;
//!   `email:copy` takes the subject's emailAddress,
//!   `issuer:copy` the issuer's alternative names (4.2.1.6, 4.2.1.7);
//! - `crlDistributionPoints = URI:..` (one point per name, 4.2.1.13);
//! - `nameConstraints = permitted;DNS:.., excluded;IP:addr/mask, ..` (4.2.1.10,
//!   `name_constraints`);
//! - `authorityInfoAccess = OCSP;URI:.., caIssuers;URI:..` (4.2.2.1);
//! - `certificatePolicies = OID, @section, ...` (4.2.1.4, with CPS pointers and user
//!   notices: `policy_conf`);
//! - `nsComment = text` (Netscape's comment), and any extension as `OID = DER:hex` or
//!   `OID = ASN1:generator string` (`asn1::generate`; SEQUENCE and SET sections from the
//!   configuration).
//!
//! The key identifiers follow OpenSSL 3.0's `v2i_AUTHORITY_KEYID`: `keyid` is the issuer's
//! subjectKeyIdentifier (a self-signed certificate's own, or the hash of its key); `issuer`
//! adds the issuer's issuer name and serial when asked `always` or when no key identifier
//! was found. Anything else is refused by name, never dropped.

use super::key_id;
use crate::conf::Conf;
use crate::{Error, Result};
use const_oid::AssociatedOid;
use const_oid::db::rfc5280;
use der::asn1::{Ia5String, ObjectIdentifier as Oid, OctetString};
use der::{Decode, Encode};
use spki::SubjectPublicKeyInfoOwned;
use std::net::IpAddr;
use x509_cert::Certificate;
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::crl::dp::DistributionPoint;
use x509_cert::ext::pkix::name::{DistributionPointName, GeneralName, OtherName};
use x509_cert::ext::pkix::{
    AccessDescription, AuthorityInfoAccessSyntax, AuthorityKeyIdentifier, BasicConstraints,
    CertificatePolicies, CrlDistributionPoints, ExtendedKeyUsage, IssuerAltName, KeyUsage,
    KeyUsages, NameConstraints, PolicyConstraints, PolicyMappings, SubjectAltName,
    SubjectInfoAccessSyntax, SubjectKeyIdentifier,
};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;

/// The PKCS#9 emailAddress attribute of names (`email:copy` copies it).
const EMAIL_ADDRESS: Oid = Oid::new_unwrap("1.2.840.113549.1.9.1");
/// Netscape's comment extension.
const NS_COMMENT: Oid = Oid::new_unwrap("2.16.840.1.113730.1.13");

/// What an extension may refer to: the configuration (for `@section` values), the
/// certificate being made, and its issuer.
#[derive(Clone, Copy, Debug)]
pub struct ExtContext<'a> {
    /// The file the values come from (`None`: `@section` values are refused).
    pub conf: Option<&'a Conf>,
    /// The subject's name (`email:copy`); `None` for a CRL.
    pub subject_name: Option<&'a Name>,
    /// The subject's key (`subjectKeyIdentifier = hash`); `None` for a CRL.
    pub subject_key: Option<&'a SubjectPublicKeyInfoOwned>,
    /// The issuer's certificate; `None` when the certificate is its own issuer.
    pub issuer: Option<&'a Certificate>,
    /// The certificate's own serial, which names a self-signed certificate's issuer
    /// (`authorityKeyIdentifier = issuer:always`).
    pub serial: Option<&'a SerialNumber>,
}

impl ExtContext<'_> {
    /// No configuration, subject or issuer: values that stand alone.
    pub const NONE: ExtContext<'static> = ExtContext {
        conf: None,
        subject_name: None,
        subject_key: None,
        issuer: None,
        serial: None,
    };
}

/// The extensions of a configuration section, in its order; a later one of the same type
/// replaces an earlier (OpenSSL's `X509V3_CTX_REPLACE`).
pub fn section_extensions(
    conf: &Conf,
    section: &str,
    ctx: &ExtContext<'_>,
) -> Result<Vec<Extension>> {
    let mut exts = Vec::new();
    add_section(conf, section, ctx, &mut exts)?;
    Ok(exts)
}

/// Adds a section's extensions to `exts`, each replacing any of its type (`x509 -extfile`
/// adds them after the requested ones it copied).
pub fn add_section(
    conf: &Conf,
    section: &str,
    ctx: &ExtContext<'_>,
    exts: &mut Vec<Extension>,
) -> Result<()> {
    let values = conf
        .section(section)
        .ok_or_else(|| Error::Malformed(format!("no extension section '{section}'")))?;
    for (name, value) in values {
        if let Some(ext) = conf_extension(name, value, ctx, exts)? {
            add_replacing(exts, ext);
        }
    }
    Ok(())
}

/// Appends `ext`, removing any earlier of its type.
pub fn add_replacing(exts: &mut Vec<Extension>, ext: Extension) {
    exts.retain(|e| e.extn_id != ext.extn_id);
    exts.push(ext);
}

/// What OpenSSL 3.0 does to a certificate's extensions as it signs (`do_X509_sign`): with
/// no extensions the certificate stays version 1; otherwise a subjectKeyIdentifier
/// (`hash`) is added where none was given, then an authorityKeyIdentifier (`keyid,
/// issuer`) unless the certificate signs itself, and those set to `none` are dropped.
pub fn key_id_defaults(
    exts: &mut Vec<Extension>,
    ctx: &ExtContext<'_>,
    self_signed: bool,
) -> Result<()> {
    if exts.is_empty() {
        return Ok(());
    }
    let defaults = [
        ("subjectKeyIdentifier", "hash", SubjectKeyIdentifier::OID, true),
        ("authorityKeyIdentifier", "keyid, issuer", AuthorityKeyIdentifier::OID, !self_signed),
    ];
    for (name, value, oid, add) in defaults {
        match exts.iter().position(|e| e.extn_id == oid) {
            Some(i) if is_disabled(&exts[i]) => {
                exts.remove(i);
            }
            Some(_) => {}
            None if add => {
                if let Some(ext) = conf_extension(name, value, ctx, exts)? {
                    exts.push(ext);
                }
            }
            None => {}
        }
    }
    Ok(())
}

/// Drops the extensions set to `none` (where no defaults follow: CRLs, requests).
pub fn drop_disabled(exts: &mut Vec<Extension>) {
    exts.retain(|e| !is_disabled(e));
}

/// Whether `ext` is the mark a key identifier set to `none` leaves until signing (OpenSSL
/// tells it by a value of two bytes or fewer; a real one is longer).
fn is_disabled(ext: &Extension) -> bool {
    ext.extn_value.as_bytes().len() <= 2
}

/// The mark of an extension set to `none`.
fn disabled(extn_id: Oid) -> Result<Option<(Oid, Vec<u8>)>> {
    Ok(Some((extn_id, Vec::new())))
}

/// One extension, `name = value`; `so_far` are the certificate's extensions made before it
/// (a self-signed certificate's authority key identifier is its subject key identifier).
/// A key identifier set to `none` comes back as a mark that [`key_id_defaults`] or
/// [`drop_disabled`] removes.
pub fn conf_extension(
    name: &str,
    value: &str,
    ctx: &ExtContext<'_>,
    so_far: &[Extension],
) -> Result<Option<Extension>> {
    let fail = |e: Error| Error::Malformed(format!("extension {name} = {value}: {}", plain(e)));
    let (critical, value) = match value.strip_prefix("critical,") {
        Some(rest) => (true, rest.trim_start()),
        None => (false, value.trim()),
    };
    let made = if let Some(hex) = value.strip_prefix("DER:") {
        let oid = extension_oid(name).map_err(fail)?;
        Some((oid, hex_bytes(hex).map_err(fail)?))
    } else if let Some(spec) = value.strip_prefix("ASN1:") {
        let oid = extension_oid(name).map_err(fail)?;
        Some((oid, crate::asn1::generate(spec, ctx.conf).map_err(fail)?))
    } else {
        typed_value(name, value, ctx, so_far).map_err(fail)?
    };
    Ok(match made {
        Some((extn_id, der)) => {
            Some(Extension { extn_id, critical, extn_value: OctetString::new(der)? })
        }
        None => None,
    })
}

/// The OID and DER value of a named extension.
fn typed_value(
    name: &str,
    value: &str,
    ctx: &ExtContext<'_>,
    so_far: &[Extension],
) -> Result<Option<(Oid, Vec<u8>)>> {
    let list = || list(value, ctx);
    let ext = match name {
        "basicConstraints" => basic_constraints(&list()?)?.map(encoded).transpose()?,
        "keyUsage" => Some(encoded(KeyUsage(key_usage(&list()?)?))?),
        "extendedKeyUsage" => Some(encoded(ExtendedKeyUsage(key_purposes(&list()?)?))?),
        "subjectKeyIdentifier" => match subject_key_id(value, ctx)? {
            Some(ski) => Some(encoded(ski)?),
            None => return disabled(SubjectKeyIdentifier::OID),
        },
        "authorityKeyIdentifier" => match auth_key_id(&list()?, ctx, so_far)? {
            Some(aki) => Some(encoded(aki)?),
            None => return disabled(AuthorityKeyIdentifier::OID),
        },
        "subjectAltName" => Some(encoded(SubjectAltName(general_names(&list()?, ctx)?))?),
        "issuerAltName" => Some(encoded(IssuerAltName(general_names(&list()?, ctx)?))?),
        "crlDistributionPoints" => {
            let points = list()?
                .iter()
                .map(|entry| {
                    let name = general_name(entry, ctx)?;
                    Ok(DistributionPoint {
                        distribution_point: Some(DistributionPointName::FullName(vec![name])),
                        reasons: None,
                        crl_issuer: None,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Some(encoded(CrlDistributionPoints(points))?)
        }
        "nameConstraints" => {
            let entries = list()?.iter().map(|e| subtree(e, ctx)).collect::<Result<Vec<_>>>()?;
            Some(encoded(super::name_constraints::name_constraints(entries)?)?)
        }
        "authorityInfoAccess" => Some(encoded(AuthorityInfoAccessSyntax(access(&list()?, ctx)?))?),
        "subjectInfoAccess" => Some(encoded(SubjectInfoAccessSyntax(access(&list()?, ctx)?))?),
        "tlsfeature" => Some((TLS_FEATURE, tls_features(&list()?)?.to_der()?)),
        "certificatePolicies" => {
            Some(encoded(CertificatePolicies(super::policy_conf::policies(value, ctx.conf)?))?)
        }
        "policyMappings" => Some(super::policy_limits::mappings(&list()?)?),
        "policyConstraints" => Some(super::policy_limits::constraints(&list()?)?),
        "inhibitAnyPolicy" => Some(super::policy_limits::inhibit_any(value)?),
        "nsComment" => Some((NS_COMMENT, ia5(value)?.to_der()?)),
        other => {
            return Err(Error::Unsupported(format!(
                "extension '{other}' (give it as OID = DER:hex or OID = ASN1:...)"
            )));
        }
    };
    Ok(ext)
}

/// A value's OID and DER.
fn encoded<T: Encode + AssociatedOid>(value: T) -> Result<(Oid, Vec<u8>)> {
    Ok((T::OID, value.to_der()?))
}

/// The OID an extension name stands for (a dotted OID, or a name we make).
fn extension_oid(name: &str) -> Result<Oid> {
    let known = [
        ("basicConstraints", BasicConstraints::OID),
        ("keyUsage", KeyUsage::OID),
        ("extendedKeyUsage", ExtendedKeyUsage::OID),
        ("subjectKeyIdentifier", SubjectKeyIdentifier::OID),
        ("authorityKeyIdentifier", AuthorityKeyIdentifier::OID),
        ("subjectAltName", SubjectAltName::OID),
        ("issuerAltName", IssuerAltName::OID),
        ("crlDistributionPoints", CrlDistributionPoints::OID),
        ("authorityInfoAccess", AuthorityInfoAccessSyntax::OID),
        ("subjectInfoAccess", SubjectInfoAccessSyntax::OID),
        ("tlsfeature", TLS_FEATURE),
        ("nameConstraints", NameConstraints::OID),
        ("certificatePolicies", CertificatePolicies::OID),
        ("policyMappings", PolicyMappings::OID),
        ("policyConstraints", PolicyConstraints::OID),
        ("inhibitAnyPolicy", super::policy::INHIBIT_ANY_POLICY),
        ("nsComment", NS_COMMENT),
    ];
    match known.iter().find(|(n, _)| *n == name) {
        Some((_, oid)) => Ok(*oid),
        None => dotted(name),
    }
}

/// One `name[:value]` of a comma-separated list (X509V3_parse_list).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) name: String,
    pub(super) value: Option<String>,
}

/// A value's list: `a:b, c` or the lines of `@section` (`c` with no value stands alone).
fn list(value: &str, ctx: &ExtContext<'_>) -> Result<Vec<Entry>> {
    if let Some(section) = value.strip_prefix('@') {
        let conf = ctx.conf.ok_or_else(|| {
            Error::Unsupported(format!("'@{section}' outside a configuration file"))
        })?;
        let lines = conf
            .section(section.trim())
            .ok_or_else(|| Error::Malformed(format!("no section '{}'", section.trim())))?;
        return Ok(lines
            .iter()
            .map(|(n, v)| Entry { name: n.clone(), value: Some(v.clone()) })
            .collect());
    }
    let entries: Vec<Entry> = value
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| match e.split_once(':') {
            Some((n, v)) => Entry { name: n.trim().into(), value: Some(v.trim().into()) },
            None => Entry { name: e.into(), value: None },
        })
        .collect();
    if entries.is_empty() {
        return Err(Error::Malformed("an empty value".into()));
    }
    Ok(entries)
}

/// An entry's name up to a `.N` suffix (`DNS.1` in a section is `DNS`).
fn kind(entry: &Entry) -> &str {
    entry.name.split('.').next().unwrap_or("")
}

fn basic_constraints(entries: &[Entry]) -> Result<Option<BasicConstraints>> {
    let mut bc = BasicConstraints { ca: false, path_len_constraint: None };
    for e in entries {
        match (e.name.as_str(), e.value.as_deref()) {
            ("CA", Some(v)) => bc.ca = boolean(v)?,
            ("pathlen", Some(v)) => {
                bc.path_len_constraint =
                    Some(v.parse().map_err(|_| Error::Malformed(format!("pathlen '{v}'")))?);
            }
            _ => return Err(Error::Malformed(format!("'{}' (CA:TRUE|FALSE, pathlen:N)", e.name))),
        }
    }
    Ok(Some(bc))
}

/// OpenSSL's truth values (X509V3_get_value_bool).
fn boolean(v: &str) -> Result<bool> {
    match v {
        "TRUE" | "true" | "Y" | "y" | "YES" | "yes" => Ok(true),
        "FALSE" | "false" | "N" | "n" | "NO" | "no" => Ok(false),
        _ => Err(Error::Malformed(format!("'{v}' is not TRUE or FALSE"))),
    }
}

fn key_usage(entries: &[Entry]) -> Result<der::flagset::FlagSet<KeyUsages>> {
    let names = [
        ("digitalSignature", "Digital Signature", KeyUsages::DigitalSignature),
        ("nonRepudiation", "Non Repudiation", KeyUsages::NonRepudiation),
        ("keyEncipherment", "Key Encipherment", KeyUsages::KeyEncipherment),
        ("dataEncipherment", "Data Encipherment", KeyUsages::DataEncipherment),
        ("keyAgreement", "Key Agreement", KeyUsages::KeyAgreement),
        ("keyCertSign", "Certificate Sign", KeyUsages::KeyCertSign),
        ("cRLSign", "CRL Sign", KeyUsages::CRLSign),
        ("encipherOnly", "Encipher Only", KeyUsages::EncipherOnly),
        ("decipherOnly", "Decipher Only", KeyUsages::DecipherOnly),
    ];
    let mut bits = der::flagset::FlagSet::default();
    for e in entries {
        let found =
            names.iter().find(|(s, l, _)| e.value.is_none() && (e.name == *s || e.name == *l));
        match found {
            Some((_, _, bit)) => bits |= *bit,
            None => return Err(Error::Malformed(format!("unknown key usage '{}'", e.name))),
        }
    }
    Ok(bits)
}

fn key_purposes(entries: &[Entry]) -> Result<Vec<Oid>> {
    let names = [
        ("serverAuth", "TLS Web Server Authentication", rfc5280::ID_KP_SERVER_AUTH),
        ("clientAuth", "TLS Web Client Authentication", rfc5280::ID_KP_CLIENT_AUTH),
        ("codeSigning", "Code Signing", rfc5280::ID_KP_CODE_SIGNING),
        ("emailProtection", "E-mail Protection", rfc5280::ID_KP_EMAIL_PROTECTION),
        ("timeStamping", "Time Stamping", rfc5280::ID_KP_TIME_STAMPING),
        ("OCSPSigning", "OCSP Signing", rfc5280::ID_KP_OCSP_SIGNING),
        ("anyExtendedKeyUsage", "Any Extended Key Usage", rfc5280::ANY_EXTENDED_KEY_USAGE),
    ];
    entries
        .iter()
        .map(|e| {
            if e.value.is_some() {
                return Err(Error::Malformed(format!("key purpose '{}:...'", e.name)));
            }
            match names.iter().find(|(s, l, _)| e.name == *s || e.name == *l) {
                Some((_, _, oid)) => Ok(*oid),
                None => dotted(&e.name),
            }
        })
        .collect()
}

fn subject_key_id(value: &str, ctx: &ExtContext<'_>) -> Result<Option<SubjectKeyIdentifier>> {
    let id = match value {
        "none" => return Ok(None),
        "hash" => {
            let key =
                ctx.subject_key.ok_or_else(|| Error::Malformed("no subject key to hash".into()))?;
            key_id(key)?
        }
        hex => hex_bytes(hex)?,
    };
    Ok(Some(SubjectKeyIdentifier(OctetString::new(id)?)))
}

/// `keyid[:always]`, `issuer[:always]` (OpenSSL 3.0's `v2i_AUTHORITY_KEYID`).
fn auth_key_id(
    entries: &[Entry],
    ctx: &ExtContext<'_>,
    so_far: &[Extension],
) -> Result<Option<AuthorityKeyIdentifier>> {
    let (mut keyid, mut issuer) = (0, 0);
    for e in entries {
        let level = match e.value.as_deref() {
            None => 1,
            Some("always") => 2,
            Some(v) => return Err(Error::Malformed(format!("'{}:{v}' (only 'always')", e.name))),
        };
        match e.name.as_str() {
            "keyid" => keyid = level,
            "issuer" => issuer = level,
            "none" => return Ok(None),
            other => return Err(Error::Malformed(format!("'{other}' (keyid, issuer)"))),
        }
    }
    let mut id = None;
    if keyid > 0 {
        id = match ctx.issuer {
            Some(cert) => super::subject_key_id(cert)?,
            None => match so_far
                .iter()
                .find(|e| e.extn_id == SubjectKeyIdentifier::OID && !is_disabled(e))
            {
                Some(e) => Some(
                    SubjectKeyIdentifier::from_der(e.extn_value.as_bytes())?.0.as_bytes().to_vec(),
                ),
                None => ctx.subject_key.map(key_id).transpose()?,
            },
        };
        if (keyid == 2 || issuer == 0) && id.is_none() {
            return Err(Error::Malformed("unable to get issuer keyid".into()));
        }
    }
    let (mut names, mut serial) = (None, None);
    if issuer == 2 || (issuer == 1 && ctx.issuer.is_some() && id.is_none()) {
        let (issuer_name, issuer_serial) = match ctx.issuer {
            Some(cert) => {
                let tbs = cert.tbs_certificate();
                (tbs.issuer().clone(), tbs.serial_number().clone())
            }
            // Self-signed: its issuer is its subject, its serial its own.
            None => match (ctx.subject_name, ctx.serial) {
                (Some(name), Some(serial)) => (name.clone(), serial.clone()),
                _ => return Err(Error::Malformed("unable to get issuer details".into())),
            },
        };
        names = Some(vec![GeneralName::DirectoryName(issuer_name)]);
        serial = Some(issuer_serial);
    }
    Ok(Some(AuthorityKeyIdentifier {
        key_identifier: id.map(OctetString::new).transpose()?,
        authority_cert_issuer: names,
        authority_cert_serial_number: serial,
    }))
}

fn general_names(entries: &[Entry], ctx: &ExtContext<'_>) -> Result<Vec<GeneralName>> {
    let mut names = Vec::new();
    for e in entries {
        match (kind(e), e.value.as_deref()) {
            ("email", Some("copy")) => {
                let subject = ctx
                    .subject_name
                    .ok_or_else(|| Error::Malformed("email:copy without a subject".into()))?;
                for atv in subject.iter().filter(|a| a.oid == EMAIL_ADDRESS) {
                    names.push(GeneralName::Rfc822Name(ia5(&text_of(atv.value.value())?)?));
                }
            }
            ("issuer", Some("copy")) => {
                if let Some(cert) = ctx.issuer
                    && let Some((_, alt)) =
                        cert.tbs_certificate().get_extension::<SubjectAltName>()?
                {
                    names.extend(alt.0);
                }
            }
            _ => names.push(general_name(e, ctx)?),
        }
    }
    // `email:copy` of a subject without one, `issuer:copy` of an issuer without names:
    // an empty list, as OpenSSL writes it.
    Ok(names)
}

fn general_name(e: &Entry, ctx: &ExtContext<'_>) -> Result<GeneralName> {
    let value = e
        .value
        .as_deref()
        .ok_or_else(|| Error::Malformed(format!("'{}' without ':value'", e.name)))?;
    Ok(match kind(e) {
        "DNS" => GeneralName::DnsName(ia5(value)?),
        "email" => GeneralName::Rfc822Name(ia5(value)?),
        "URI" => GeneralName::UniformResourceIdentifier(ia5(value)?),
        "RID" => GeneralName::RegisteredId(dotted(value)?),
        "dirName" => {
            let conf = ctx.conf.ok_or_else(|| {
                Error::Unsupported(format!("dirName:{value} outside a configuration file"))
            })?;
            let lines = conf
                .section(value)
                .ok_or_else(|| Error::Malformed(format!("no section '{value}'")))?;
            GeneralName::DirectoryName(super::name_from_section(lines)?)
        }
        "IP" => {
            let bytes = ip_octets(value)
                .ok_or_else(|| Error::Malformed(format!("'{value}' is not an IP address")))?;
            GeneralName::IpAddress(OctetString::new(bytes)?)
        }
        // `otherName:OID;generator string` (OpenSSL's `do_othername`).
        "otherName" => {
            let (oid, spec) = value.split_once(';').ok_or_else(|| {
                Error::Malformed(format!("otherName:{value}: expected OID;TYPE:value"))
            })?;
            let type_id = crate::asn1::ObjectNames::default()
                .parse(oid)
                .ok_or_else(|| Error::Malformed(format!("otherName: '{oid}' is no object")))?;
            let der = crate::asn1::generate(spec, ctx.conf)?;
            GeneralName::OtherName(OtherName { type_id, value: der::Any::from_der(&der)? })
        }
        other => {
            return Err(Error::Unsupported(format!(
                "name type '{other}' (DNS, IP, email, URI, RID, dirName, otherName)"
            )));
        }
    })
}

/// One `permitted;TYPE:value` or `excluded;TYPE:value` of a name constraint.
fn subtree(e: &Entry, ctx: &ExtContext<'_>) -> Result<(bool, GeneralName)> {
    let (which, base_type) = e.name.split_once(';').ok_or_else(|| {
        Error::Malformed(format!("'{}' (permitted;TYPE:value or excluded;TYPE:value)", e.name))
    })?;
    let permitted = match which.trim() {
        "permitted" => true,
        "excluded" => false,
        other => return Err(Error::Malformed(format!("'{other}' (permitted or excluded)"))),
    };
    let base = Entry { name: base_type.trim().into(), value: e.value.clone() };
    let name = match (kind(&base), &base.value) {
        ("IP", Some(v)) => super::name_constraints::ip_subtree(v)?,
        _ => general_name(&base, ctx)?,
    };
    Ok((permitted, name))
}

/// An IPv4 or IPv6 address's bytes (4 or 16), if `s` is one.
pub fn ip_octets(s: &str) -> Option<Vec<u8>> {
    Some(match s.parse::<IpAddr>().ok()? {
        IpAddr::V4(v4) => v4.octets().to_vec(),
        IpAddr::V6(v6) => v6.octets().to_vec(),
    })
}

/// The access methods of authorityInfoAccess and subjectInfoAccess (RFC 5280 4.2.2) by
/// OpenSSL's short and long names. `timeStamping` is OpenSSL's name of the extended key
/// usage, which its configuration reads there too.
pub(super) const ACCESS_METHODS: [(&str, &str, Oid); 5] = [
    ("OCSP", "OCSP", rfc5280::ID_AD_OCSP),
    ("caIssuers", "CA Issuers", rfc5280::ID_AD_CA_ISSUERS),
    ("caRepository", "CA Repository", rfc5280::ID_AD_CA_REPOSITORY),
    ("ad_timestamping", "AD Time Stamping", rfc5280::ID_AD_TIME_STAMPING),
    ("timeStamping", "Time Stamping", rfc5280::ID_KP_TIME_STAMPING),
];

/// The TLS features (RFC 7633) by name: status_request (OCSP must-staple) and
/// status_request_v2.
pub(super) const TLS_FEATURES: [(&str, u32); 2] =
    [("status_request", 5), ("status_request_v2", 17)];

/// id-pe-tlsfeature (RFC 7633 section 6).
pub(super) const TLS_FEATURE: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.1.24");

fn tls_features(entries: &[Entry]) -> Result<Vec<u32>> {
    entries
        .iter()
        .map(|e| match TLS_FEATURES.iter().find(|(n, _)| *n == e.name) {
            Some((_, v)) => Ok(*v),
            None => e.name.parse().map_err(|_| {
                Error::Malformed(format!(
                    "TLS feature '{}' (status_request, status_request_v2 or a number)",
                    e.name
                ))
            }),
        })
        .collect()
}

fn access(entries: &[Entry], ctx: &ExtContext<'_>) -> Result<Vec<AccessDescription>> {
    entries
        .iter()
        .map(|e| {
            let (method, kind) = e
                .name
                .split_once(';')
                .ok_or_else(|| Error::Malformed(format!("'{}' (METHOD;TYPE:value)", e.name)))?;
            let method = method.trim();
            let access_method = match ACCESS_METHODS.iter().find(|(short, ..)| *short == method) {
                Some((_, _, oid)) => *oid,
                None => dotted(method)?,
            };
            let location = Entry { name: kind.trim().into(), value: e.value.clone() };
            Ok(AccessDescription { access_method, access_location: general_name(&location, ctx)? })
        })
        .collect()
}

fn dotted(s: &str) -> Result<Oid> {
    Oid::new(s).map_err(|_| Error::Malformed(format!("'{s}' is not a known name or an OID")))
}

fn ia5(v: &str) -> Result<Ia5String> {
    Ia5String::new(v).map_err(|_| Error::Malformed(format!("'{v}' is not IA5 text")))
}

fn text_of(bytes: &[u8]) -> Result<String> {
    String::from_utf8(bytes.to_vec())
        .map_err(|_| Error::Malformed("a name that is not text".into()))
}

/// Hex digits, with or without `:` between bytes.
fn hex_bytes(s: &str) -> Result<Vec<u8>> {
    let digits: String = s.chars().filter(|c| *c != ':').collect();
    let hex = digits.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex || digits.is_empty() || !digits.len().is_multiple_of(2) {
        return Err(Error::Malformed(format!("'{s}' is not hex bytes")));
    }
    (0..digits.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&digits[i..i + 2], 16)
                .map_err(|_| Error::Malformed(format!("'{s}' is not hex bytes")))
        })
        .collect()
}

/// An error's words without the "malformed input: " its Display adds.
fn plain(e: Error) -> String {
    match e {
        Error::Malformed(s) => s,
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(name: &str, value: &str) -> Result<Option<Extension>> {
        conf_extension(name, value, &ExtContext::NONE, &[])
    }

    #[test]
    fn values_and_criticality() {
        let bc = one("basicConstraints", "critical, CA:TRUE, pathlen:2").unwrap().unwrap();
        assert!(bc.critical);
        let v = BasicConstraints::from_der(bc.extn_value.as_bytes()).unwrap();
        assert_eq!((v.ca, v.path_len_constraint), (true, Some(2)));
        let ku = one("keyUsage", "Digital Signature, keyCertSign").unwrap().unwrap();
        let v = KeyUsage::from_der(ku.extn_value.as_bytes()).unwrap();
        assert!(v.digital_signature() && v.key_cert_sign() && !v.crl_sign());
        let eku = one("extendedKeyUsage", "serverAuth, 1.2.3.4").unwrap().unwrap();
        let v = ExtendedKeyUsage::from_der(eku.extn_value.as_bytes()).unwrap();
        assert_eq!(v.0, [rfc5280::ID_KP_SERVER_AUTH, Oid::new_unwrap("1.2.3.4")]);
        let raw = one("1.2.3.9", "critical,DER:01:01:FF").unwrap().unwrap();
        assert_eq!((raw.critical, raw.extn_value.as_bytes()), (true, &[1u8, 1, 0xff][..]));
        let ski = one("subjectKeyIdentifier", "0A0B0C").unwrap().unwrap();
        assert_eq!(ski.extn_value.as_bytes(), [4, 3, 10, 11, 12]);
        // `none` leaves a mark that the defaults step drops.
        let mut exts = vec![one("subjectKeyIdentifier", "none").unwrap().unwrap()];
        drop_disabled(&mut exts);
        assert!(exts.is_empty());
    }

    #[test]
    fn refusals_name_the_extension() {
        for (name, value, needle) in [
            ("basicConstraints", "CA:maybe", "is not TRUE or FALSE"),
            ("basicConstraints", "pathlen:-1", "pathlen '-1'"),
            ("keyUsage", "everything", "unknown key usage 'everything'"),
            ("extendedKeyUsage", "notAPurpose", "not a known name or an OID"),
            ("subjectAltName", "otherName:1.2", "expected OID;TYPE:value"),
            ("subjectAltName", "otherName:1.2;BOOL:maybe", "illegal boolean"),
            ("subjectAltName", "ediPartyName:x", "name type 'ediPartyName'"),
            ("subjectAltName", "DNS:caf\u{e9}.example", "is not IA5 text"),
            ("subjectAltName", "IP:1.2.3", "is not an IP address"),
            ("subjectAltName", "@alt", "outside a configuration file"),
            ("subjectAltName", "", "an empty value"),
            ("subjectKeyIdentifier", "hash", "no subject key to hash"),
            ("subjectKeyIdentifier", "XYZ", "is not hex bytes"),
            // Found by fuzzing: a character of several bytes among the digits.
            ("subjectKeyIdentifier", "0\u{e9}", "is not hex bytes"),
            ("1.2.3", "DER:\u{e9}0", "is not hex bytes"),
            ("authorityKeyIdentifier", "keyid:always", "unable to get issuer keyid"),
            ("authorityKeyIdentifier", "keyid:sometimes", "only 'always'"),
            ("authorityInfoAccess", "URI:http://x", "METHOD;TYPE:value"),
            ("certificatePolicies", "@polsect", "outside a configuration file"),
            ("nameConstraints", "allowed;DNS:x", "'allowed' (permitted or excluded)"),
            ("nameConstraints", "permitted;IP:10.0.0.0", "expected address/mask"),
            ("nameConstraints", "permitted;IP:10.0.0.0/ffff::", "expected address/mask"),
            ("tlsfeature", "must_staple", "TLS feature 'must_staple'"),
            ("subjectDirectoryAttributes", "x", "extension 'subjectDirectoryAttributes'"),
            ("policyConstraints", "requireExplicit:0", "policyConstraints: 'requireExplicit'"),
            ("inhibitAnyPolicy", "-1", "is not a certificate count"),
            ("1.2.3", "not der", "extension '1.2.3' (give it as OID = DER:hex or OID = ASN1:...)"),
        ] {
            let err = one(name, value).unwrap_err().to_string();
            assert!(err.contains(needle), "{name} = {value}: {err}");
        }
    }

    #[test]
    fn sections_replace_and_resolve() {
        let conf = Conf::parse(
            "[ext]\nsubjectAltName = @alt\nbasicConstraints = CA:TRUE\nbasicConstraints = CA:FALSE\n\
             [alt]\nDNS.1 = a.example\nIP.2 = ::1\n",
        )
        .unwrap();
        let ctx = ExtContext { conf: Some(&conf), ..ExtContext::NONE };
        let exts = section_extensions(&conf, "ext", &ctx).unwrap();
        assert_eq!(exts.len(), 2);
        assert_eq!(exts[1].extn_id, BasicConstraints::OID);
        assert!(!BasicConstraints::from_der(exts[1].extn_value.as_bytes()).unwrap().ca);
        let san = SubjectAltName::from_der(exts[0].extn_value.as_bytes()).unwrap();
        assert_eq!(san.0.len(), 2);
        assert!(section_extensions(&conf, "nothere", &ctx).is_err());
    }

    #[test]
    fn policy_sections_refuse_what_they_cannot_write() {
        let conf = Conf::parse(
            "[p]\npolicyIdentifier = 1.2.3\nuserNotice.1 = @n\n\
             [n]\norganization = org\n\
             [q]\nCPS.1 = http://x.example/\n\
             [r]\npolicyIdentifier = 1.2.3\nuserNotice.1 = @m\n\
             [m]\nexplicitText = caf\u{e9}\n",
        )
        .unwrap();
        let ctx = ExtContext { conf: Some(&conf), ..ExtContext::NONE };
        for (value, needle) in [
            ("@p", "organization and noticeNumbers go together"),
            ("@q", "no policyIdentifier"),
            ("@r", "is not visible text"),
            ("@none", "no section 'none'"),
            ("1.2.3, notAnOid", "is not a policy OID"),
        ] {
            let err =
                conf_extension("certificatePolicies", value, &ctx, &[]).unwrap_err().to_string();
            assert!(err.contains(needle), "{value}: {err}");
        }
    }
}
