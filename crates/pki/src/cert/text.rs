//! The text dumps `openssl x509 -text -noout` and `openssl req -text -noout` print, line
//! for line in OpenSSL 3's layout (`X509_print_ex`, `X509_REQ_print_ex`): version,
//! serial, signature algorithm (with the RSASSA-PSS parameters spelled out), names in the
//! one-line form (or as `-nameopt` asks), validity as `Mon DD HH:MM:SS YYYY GMT`, the RSA key as modulus and
//! exponent, the extensions we know by name (key identifiers, basic constraints, key
//! usage, extended key usage, subject alternative names; others as hex), and the
//! signature in lines of 18 hex bytes; `-certopt`'s parts left out and its forms for the
//! extensions not decoded ([`CertOpt`]).

use super::ext_conf::{ACCESS_METHODS, TLS_FEATURE, TLS_FEATURES};
use super::name::oneline_name;
use super::name_print::{NameOpt, apply_options, name_text};
use crate::sig::{self, SigScheme, oid_name};
use crate::{Error, Result};
use cryptocard::digest::HashAlg;
use cryptocard::rsa::{Mgf, PssHash, SaltLength};
use der::asn1::{BitString, ObjectIdentifier as Oid};
use der::{Decode, Tag, Tagged};
use spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};
use std::fmt::Write as _;
use x509_cert::Certificate;
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::name::{DistributionPointName, GeneralName, OtherName};
use x509_cert::ext::pkix::{
    AccessDescription, AuthorityInfoAccessSyntax, AuthorityKeyIdentifier, BasicConstraints,
    CertificatePolicies, CrlDistributionPoints, ExtendedKeyUsage, IssuerAltName, KeyUsage,
    KeyUsages, NameConstraints, PrivateKeyUsagePeriod, SubjectAltName, SubjectInfoAccessSyntax,
    SubjectKeyIdentifier,
};
use x509_cert::name::Name;
use x509_cert::request::CertReq;
use x509_cert::serial_number::SerialNumber;
use x509_cert::time::Time;

/// The months as OpenSSL abbreviates them in times.
pub(crate) const MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// The `extensionRequest` attribute of PKCS#9 (RFC 2985 5.4.2).
const EXTENSION_REQUEST: Oid = Oid::new_unwrap("1.2.840.113549.1.9.14");

/// `openssl x509 -text -noout`.
pub fn cert_text(cert: &Certificate) -> Result<String> {
    cert_text_with(cert, NameOpt::ONELINE)
}

/// [`cert_text`] with the names in OpenSSL's older form (`C=US, O=Org, CN=name`), as
/// `openssl pkcs7 -print_certs -text` prints them (`X509_print`, `XN_FLAG_COMPAT`).
pub fn cert_text_compat(cert: &Certificate) -> Result<String> {
    cert_text_with(cert, NameOpt::COMPAT)
}

/// [`cert_text`] with the names printed as `names` says (`x509 -text -nameopt`,
/// `X509_print_ex`).
pub fn cert_text_with(cert: &Certificate, names: NameOpt) -> Result<String> {
    cert_text_opts(cert, names, CertOpt::default())
}

/// [`cert_text_with`], the parts `opts` leaves out left out (`x509 -text -certopt`).
pub fn cert_text_opts(cert: &Certificate, names: NameOpt, opts: CertOpt) -> Result<String> {
    let tbs = cert.tbs_certificate();
    let mut s = String::new();
    if !opts.omits(CertOpt::NO_HEADER) {
        s.push_str("Certificate:\n    Data:\n");
    }
    if !opts.omits(CertOpt::NO_VERSION) {
        let v = tbs.version() as u8;
        let _ = writeln!(s, "        Version: {} (0x{v:x})", v + 1);
    }
    if !opts.omits(CertOpt::NO_SERIAL) {
        serial_lines(&mut s, tbs.serial_number());
    }
    if !opts.omits(CertOpt::NO_SIGNAME) {
        sig_alg_lines(&mut s, "        ", tbs.signature());
    }
    if !opts.omits(CertOpt::NO_ISSUER) {
        name_line(&mut s, "        Issuer:", tbs.issuer(), names);
    }
    if !opts.omits(CertOpt::NO_VALIDITY) {
        let _ = writeln!(s, "        Validity");
        let _ = writeln!(s, "            Not Before: {}", time_text(&tbs.validity().not_before));
        let _ = writeln!(s, "            Not After : {}", time_text(&tbs.validity().not_after));
    }
    if !opts.omits(CertOpt::NO_SUBJECT) {
        name_line(&mut s, "        Subject:", tbs.subject(), names);
    }
    if !opts.omits(CertOpt::NO_PUBKEY) {
        spki_lines(&mut s, tbs.subject_public_key_info())?;
    }
    if let Some(exts) =
        tbs.extensions().filter(|e| !e.is_empty() && !opts.omits(CertOpt::NO_EXTENSIONS))
    {
        s.push_str("        X509v3 extensions:\n");
        for e in exts {
            let crit = if e.critical { "critical" } else { "" };
            let (name, value) = extension_text(e);
            let _ = writeln!(s, "            {name}: {crit}");
            match (value, opts.unknown_extensions()) {
                (value @ Some(_), _) | (value @ None, UnknownExt::Default) => {
                    value_lines(&mut s, "            ", e, value)
                }
                (None, UnknownExt::Error) => {
                    let decoded =
                        EXTENSION_NAMES.iter().any(|(_, oid)| Oid::new_unwrap(oid) == e.extn_id);
                    let why = if decoded { "<Parse Error>" } else { "<Not Supported>" };
                    let _ = writeln!(s, "                {why}");
                }
                (None, UnknownExt::Parse) => {
                    let listing =
                        crate::asn1::list(e.extn_value.as_bytes(), true, crate::asn1::Dump::All);
                    s.push_str(&String::from_utf8_lossy(&listing.text));
                    s.push('\n');
                }
                (None, UnknownExt::Dump) => {
                    s.push_str(&crate::asn1::hex_dump(e.extn_value.as_bytes(), 16));
                    s.push('\n');
                }
            }
        }
    }
    if !opts.omits(CertOpt::NO_SIGDUMP) {
        signature_lines(&mut s, cert.signature_algorithm(), cert.signature());
    }
    Ok(s)
}

/// How `-certopt` has extensions we do not decode printed (OpenSSL's `X509V3_EXT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum UnknownExt {
    /// Their bytes, the unprintable ones as dots (`ext_default`).
    Default,
    /// `<Not Supported>`, or `<Parse Error>` for a kind we decode (`ext_error`).
    Error,
    /// Listed as `asn1parse -i` lists them (`ext_parse`).
    Parse,
    /// In hex dump rows (`ext_dump`).
    Dump,
}

/// What a certificate's text dump leaves out (`x509 -certopt`: OpenSSL's `X509_FLAG_*`
/// bits, and its `X509V3_EXT_*` choice for extensions it cannot decode).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CertOpt(u32);

impl CertOpt {
    const NO_HEADER: u32 = 1;
    const NO_VERSION: u32 = 1 << 1;
    const NO_SERIAL: u32 = 1 << 2;
    const NO_SIGNAME: u32 = 1 << 3;
    const NO_ISSUER: u32 = 1 << 4;
    const NO_VALIDITY: u32 = 1 << 5;
    const NO_SUBJECT: u32 = 1 << 6;
    const NO_PUBKEY: u32 = 1 << 7;
    const NO_EXTENSIONS: u32 = 1 << 8;
    const NO_SIGDUMP: u32 = 1 << 9;
    const NO_AUX: u32 = 1 << 10;
    const NO_ATTRIBUTES: u32 = 1 << 11;
    const EXT_MASK: u32 = 0xf << 16;

    /// The `-certopt` arguments `args` applied in turn from nothing, as OpenSSL's
    /// `set_cert_ex` applies them: comma-separated names (any case), each set or, after a
    /// `-`, cleared.
    pub fn from_args(args: &[&str]) -> Result<CertOpt> {
        const ALL: u32 = u32::MAX;
        let table: [(&str, u32, u32); 18] = [
            ("compatible", 0, ALL),
            (
                "ca_default",
                CertOpt::NO_ISSUER | CertOpt::NO_PUBKEY | CertOpt::NO_HEADER | CertOpt::NO_VERSION,
                ALL,
            ),
            ("no_header", CertOpt::NO_HEADER, 0),
            ("no_version", CertOpt::NO_VERSION, 0),
            ("no_serial", CertOpt::NO_SERIAL, 0),
            ("no_signame", CertOpt::NO_SIGNAME, 0),
            ("no_validity", CertOpt::NO_VALIDITY, 0),
            ("no_subject", CertOpt::NO_SUBJECT, 0),
            ("no_issuer", CertOpt::NO_ISSUER, 0),
            ("no_pubkey", CertOpt::NO_PUBKEY, 0),
            ("no_extensions", CertOpt::NO_EXTENSIONS, 0),
            ("no_sigdump", CertOpt::NO_SIGDUMP, 0),
            ("no_aux", CertOpt::NO_AUX, 0),
            ("no_attributes", CertOpt::NO_ATTRIBUTES, 0),
            ("ext_default", 0, CertOpt::EXT_MASK),
            ("ext_error", 1 << 16, CertOpt::EXT_MASK),
            ("ext_parse", 2 << 16, CertOpt::EXT_MASK),
            ("ext_dump", 3 << 16, CertOpt::EXT_MASK),
        ];
        let mut flags = 0u32;
        for arg in args {
            apply_options(&mut flags, arg, &table, "certificate option")?;
        }
        Ok(CertOpt(flags))
    }

    fn omits(self, part: u32) -> bool {
        self.0 & part != 0
    }

    fn unknown_extensions(self) -> UnknownExt {
        match (self.0 & CertOpt::EXT_MASK) >> 16 {
            1 => UnknownExt::Error,
            2 => UnknownExt::Parse,
            3 => UnknownExt::Dump,
            _ => UnknownExt::Default,
        }
    }
}

/// `label` and a name as `X509_print_ex` puts them on a text dump's line: after a space,
/// or for one entry a line on the lines below, 12 columns in.
fn name_line(s: &mut String, label: &str, name: &Name, names: NameOpt) {
    s.push_str(label);
    if names.is_multiline() {
        s.push('\n');
        s.push_str(&name_text(name, 12, names));
    } else {
        s.push(' ');
        s.push_str(&name_text(name, 0, names));
    }
    s.push('\n');
}

/// The extensions of OpenSSL's short names (`basicConstraints`, `keyUsage`, ...) that the
/// certificate has, in its order, as `openssl x509 -ext NAMES` prints them; `None` if it
/// has none of them. Names OpenSSL would not know are passed over, as it passes them.
pub fn extensions_text(cert: &Certificate, names: &[&str]) -> Option<String> {
    let wanted: Vec<Oid> = names
        .iter()
        .filter_map(|n| EXTENSION_NAMES.iter().find(|(sn, _)| sn == n))
        .map(|(_, oid)| Oid::new_unwrap(oid))
        .collect();
    let mut s = String::new();
    for e in cert.tbs_certificate().extensions().map(|e| e.as_slice()).unwrap_or(&[]) {
        if wanted.contains(&e.extn_id) {
            extension_lines(&mut s, "", e);
        }
    }
    (!s.is_empty()).then_some(s)
}

/// OpenSSL's short names of the certificate extensions of RFC 5280 section 4.2 (and
/// RFC 7633's TLS feature).
const EXTENSION_NAMES: &[(&str, &str)] = &[
    ("authorityKeyIdentifier", "2.5.29.35"),
    ("subjectKeyIdentifier", "2.5.29.14"),
    ("keyUsage", "2.5.29.15"),
    ("certificatePolicies", "2.5.29.32"),
    ("policyMappings", "2.5.29.33"),
    ("subjectAltName", "2.5.29.17"),
    ("issuerAltName", "2.5.29.18"),
    ("subjectDirectoryAttributes", "2.5.29.9"),
    ("basicConstraints", "2.5.29.19"),
    ("nameConstraints", "2.5.29.30"),
    ("policyConstraints", "2.5.29.36"),
    ("extendedKeyUsage", "2.5.29.37"),
    ("crlDistributionPoints", "2.5.29.31"),
    ("inhibitAnyPolicy", "2.5.29.54"),
    ("freshestCRL", "2.5.29.46"),
    ("authorityInfoAccess", "1.3.6.1.5.5.7.1.1"),
    ("subjectInfoAccess", "1.3.6.1.5.5.7.1.11"),
    ("tlsfeature", "1.3.6.1.5.5.7.1.24"),
];

/// `openssl req -text -noout`.
pub fn csr_text(csr: &CertReq) -> Result<String> {
    csr_text_with(csr, NameOpt::ONELINE)
}

/// [`csr_text`] with the subject printed as `names` says (`req -text -nameopt`).
pub fn csr_text_with(csr: &CertReq, names: NameOpt) -> Result<String> {
    let mut s = String::from("Certificate Request:\n    Data:\n");
    let v = csr.info.version as u8;
    let _ = writeln!(s, "        Version: {} (0x{v:x})", v + 1);
    name_line(&mut s, "        Subject:", &csr.info.subject, names);
    spki_lines(&mut s, &csr.info.public_key)?;
    s.push_str("        Attributes:\n");
    let mut requested = Vec::new();
    let mut others = 0;
    for attr in csr.info.attributes.iter() {
        if attr.oid == EXTENSION_REQUEST {
            for v in attr.values.iter() {
                let exts = v
                    .decode_as::<Vec<Extension>>()
                    .map_err(|e| Error::Malformed(format!("extension request: {e}")))?;
                requested.extend(exts);
            }
        } else {
            others += 1;
            let _ = writeln!(s, "            {}:<unsupported>", oid_name(&attr.oid));
        }
    }
    if others == 0 && requested.is_empty() {
        s.push_str("            (none)\n");
    }
    s.push_str("            Requested Extensions:\n");
    for e in &requested {
        extension_lines(&mut s, "                ", e);
    }
    signature_lines(&mut s, &csr.algorithm, &csr.signature);
    Ok(s)
}

/// A time as OpenSSL prints it: `Nov 27 10:53:54 2026 GMT`.
pub fn time_text(t: &Time) -> String {
    let d = t.to_date_time();
    let month = MONTHS.get(usize::from(d.month()).wrapping_sub(1)).unwrap_or(&"???");
    format!(
        "{month} {:2} {:02}:{:02}:{:02} {} GMT",
        d.day(),
        d.hour(),
        d.minutes(),
        d.seconds(),
        d.year()
    )
}

/// The serial as `openssl x509 -serial` prints it (`i2a_ASN1_INTEGER`, as
/// [`super::integer_hex`]): upper-case hex bytes, at least `00`.
pub fn serial_hex(serial: &SerialNumber) -> String {
    super::integer_hex(serial.as_bytes())
}

/// `Serial Number:` as `X509_print_ex` prints it: in decimal and hex where OpenSSL's
/// `ASN1_INTEGER_get` reads it into a long (and does not return -1, its error value),
/// else its magnitude's bytes on the next line, after ` (Negative)` for a negative one.
fn serial_lines(s: &mut String, serial: &SerialNumber) {
    let (negative, magnitude) = super::sign_magnitude(serial.as_bytes());
    let v = magnitude.iter().fold(0u128, |a, &b| (a << 8) | u128::from(b));
    let fits = magnitude.len() <= 8
        && if negative { (2..=1u128 << 63).contains(&v) } else { v <= i64::MAX as u128 };
    if fits {
        let sign = if negative { "-" } else { "" };
        let _ = writeln!(s, "        Serial Number: {sign}{v} ({sign}0x{v:x})");
        return;
    }
    let neg = if negative { " (Negative)" } else { "" };
    let hex: Vec<String> = magnitude.iter().map(|b| format!("{b:02x}")).collect();
    let _ = writeln!(s, "        Serial Number:\n            {neg}{}", hex.join(":"));
}

/// An INTEGER's content without its leading zero bytes (the last byte kept): the
/// magnitude OpenSSL's `ASN1_INTEGER` holds and prints.
fn magnitude(content: &[u8]) -> &[u8] {
    let zeros = content.iter().take_while(|&&b| b == 0).count();
    &content[zeros.min(content.len().saturating_sub(1))..]
}

/// `Signature Algorithm: NAME` in the signed part; for RSASSA-PSS OpenSSL pads the name
/// with eight spaces and lists the parameters below it.
pub(super) fn sig_alg_lines(s: &mut String, indent: &str, alg: &AlgorithmIdentifierOwned) {
    if alg.oid != sig::ID_RSASSA_PSS {
        let _ = writeln!(s, "{indent}Signature Algorithm: {}", oid_name(&alg.oid));
        return;
    }
    let _ = writeln!(s, "{indent}Signature Algorithm: rsassaPss        ");
    pss_param_lines(s, alg);
}

/// The RSASSA-PSS parameters as OpenSSL's `rsa_pss_param_print` lays them out, at an
/// indent of eight.
fn pss_param_lines(s: &mut String, alg: &AlgorithmIdentifierOwned) {
    let Ok(SigScheme::Pss(p)) = SigScheme::from_algorithm_identifier(alg) else {
        s.push_str("        (INVALID PSS PARAMETERS)\n");
        return;
    };
    let (PssHash::Hash(h), Mgf::Mgf1(m)) = (p.hash, p.mgf) else { return };
    let name = |h: HashAlg| h.name().replace("SHA2-", "sha").to_lowercase();
    let dflt = |d: bool| if d { " (default)" } else { "" };
    let _ = writeln!(s, "        Hash Algorithm: {}{}", name(h), dflt(h == HashAlg::Sha1));
    let _ =
        writeln!(s, "        Mask Algorithm: mgf1 with {}{}", name(m), dflt(m == HashAlg::Sha1));
    if let SaltLength::Exact(n) = p.salt {
        let _ = writeln!(s, "         Salt Length: 0x{n:X}{}", dflt(n == 20));
    }
    s.push_str("        Trailer Field: 0x01 (default)\n");
}

fn spki_lines(s: &mut String, spki: &SubjectPublicKeyInfoOwned) -> Result<()> {
    s.push_str("        Subject Public Key Info:\n");
    let _ =
        writeln!(s, "            Public Key Algorithm: {}", alg_short_name(&spki.algorithm.oid));
    if let Some((bits, curve, nist)) = named_curve(spki) {
        let _ = writeln!(s, "                Public-Key: ({bits} bit)");
        s.push_str("                pub:\n");
        hex_block(s, "                    ", spki.subject_public_key.raw_bytes(), 15);
        let _ = writeln!(s, "                ASN1 OID: {curve}");
        if let Some(nist) = nist {
            let _ = writeln!(s, "                NIST CURVE: {nist}");
        }
        return Ok(());
    }
    let key = match sig::public_key_from_spki(spki) {
        Ok(k) => k,
        Err(_) => {
            s.push_str("                Unable to load Public Key\n");
            return Ok(());
        }
    };
    let _ = writeln!(s, "                Public-Key: ({} bit)", key.bits());
    s.push_str("                Modulus:\n");
    let n = key.n().to_be_bytes();
    let lead = (n.first().is_some_and(|b| b & 0x80 != 0)).then_some(0u8);
    let bytes: Vec<u8> = lead.into_iter().chain(n.iter().copied()).collect();
    hex_block(s, "                    ", &bytes, 15);
    let e = key.e().to_be_bytes();
    if e.len() <= 8 {
        let v = e.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b));
        let _ = writeln!(s, "                Exponent: {v} (0x{v:x})");
    } else {
        s.push_str("                Exponent:\n");
        hex_block(s, "                    ", &e, 15);
    }
    Ok(())
}

/// An elliptic-curve key on a named curve (RFC 5480 section 2.1.1): its size, OpenSSL's
/// name for the curve and the NIST name, for the curves OpenSSL names so. cryptocard
/// does not use such keys; it prints them, as certificates carry them.
fn named_curve(spki: &SubjectPublicKeyInfoOwned) -> Option<(u32, &'static str, Option<&str>)> {
    const EC_PUBLIC_KEY: Oid = Oid::new_unwrap("1.2.840.10045.2.1");
    const CURVES: &[(&str, u32, &str, Option<&str>)] = &[
        ("1.2.840.10045.3.1.7", 256, "prime256v1", Some("P-256")),
        ("1.3.132.0.34", 384, "secp384r1", Some("P-384")),
        ("1.3.132.0.35", 521, "secp521r1", Some("P-521")),
        ("1.3.132.0.10", 256, "secp256k1", None),
    ];
    if spki.algorithm.oid != EC_PUBLIC_KEY {
        return None;
    }
    let curve: Oid = spki.algorithm.parameters.as_ref()?.decode_as().ok()?;
    CURVES
        .iter()
        .find(|(oid, ..)| Oid::new_unwrap(oid) == curve)
        .map(|&(_, bits, name, nist)| (bits, name, nist))
}

fn alg_short_name(oid: &Oid) -> String {
    match *oid {
        sig::RSA_ENCRYPTION => "rsaEncryption".into(),
        sig::ID_RSASSA_PSS => "rsassaPss".into(),
        _ => oid_name(oid),
    }
}

pub(crate) fn signature_lines(s: &mut String, alg: &AlgorithmIdentifierOwned, sig: &BitString) {
    let _ = writeln!(s, "    Signature Algorithm: {}", alg_short_name(&alg.oid));
    if alg.oid == sig::ID_RSASSA_PSS {
        s.push_str("    Signature Value:        \n");
        pss_param_lines(s, alg);
    } else {
        s.push_str("    Signature Value:\n");
    }
    hex_block(s, "        ", sig.raw_bytes(), 18);
}

/// Lines of `per_line` colon-separated lower-case hex bytes, each line but the last
/// ending in a colon.
fn hex_block(s: &mut String, indent: &str, bytes: &[u8], per_line: usize) {
    let lines: Vec<String> = bytes
        .chunks(per_line)
        .map(|c| c.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":"))
        .collect();
    for (i, line) in lines.iter().enumerate() {
        let more = if i + 1 < lines.len() { ":" } else { "" };
        let _ = writeln!(s, "{indent}{line}{more}");
    }
}

fn colon_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(":")
}

/// One extension: its name line, then its value indented by four more spaces; a value
/// we do not decode (or that does not parse) as OpenSSL's fallback `ASN1_STRING_print`
/// writes it: the bytes on one line, printable ASCII, line feeds and carriage returns as
/// they are, the rest as dots.
pub(crate) fn extension_lines(s: &mut String, indent: &str, e: &Extension) {
    let crit = if e.critical { "critical" } else { "" };
    let (name, value) = extension_text(e);
    let _ = writeln!(s, "{indent}{name}: {crit}");
    value_lines(s, indent, e, value);
}

/// The value part of [`extension_lines`]: OpenSSL's `X509V3_EXT_print` at `indent` plus
/// four, or its fallback, and the line feed after it.
pub(crate) fn extension_value_lines(s: &mut String, indent: &str, e: &Extension) {
    value_lines(s, indent, e, extension_text(e).1);
}

/// [`extension_value_lines`] for the value text `extension_text` gave.
fn value_lines(s: &mut String, indent: &str, e: &Extension, value: Option<String>) {
    match value {
        Some(value) => {
            for line in value.lines() {
                if line.is_empty() {
                    // A blank line, as OpenSSL ends an `<EMPTY>` value.
                    s.push('\n');
                } else {
                    let _ = writeln!(s, "{indent}    {line}");
                }
            }
        }
        None => {
            let raw: String =
                e.extn_value.as_bytes().iter().map(|&b| printable_or_dot(b)).collect();
            let _ = writeln!(s, "{indent}    {raw}");
        }
    }
}

/// An extension's name and its value's text, `None` for the value where it is one we
/// do not decode or it does not parse.
fn extension_text(e: &Extension) -> (String, Option<String>) {
    use const_oid::AssociatedOid;
    if let Some(text) = super::crl_text::crl_extension_text(e) {
        return text;
    }
    if let Some((name, text)) = super::policy_limits::text(e) {
        return (name.to_string(), text);
    }
    let v = e.extn_value.as_bytes();
    let named = |name: &str, text: Option<String>| (name.to_string(), text);
    match e.extn_id {
        SubjectKeyIdentifier::OID => named(
            "X509v3 Subject Key Identifier",
            SubjectKeyIdentifier::from_der(v).ok().map(|k| colon_hex(k.0.as_bytes())),
        ),
        AuthorityKeyIdentifier::OID => named(
            "X509v3 Authority Key Identifier",
            // OpenSSL's `i2v_AUTHORITY_KEYID`: the key identifier bare when it is alone,
            // else a `keyid:` line, the issuer's names and the serial's magnitude.
            AuthorityKeyIdentifier::from_der(v).ok().map(|a| {
                let mut t = String::new();
                let more =
                    a.authority_cert_issuer.is_some() || a.authority_cert_serial_number.is_some();
                if let Some(k) = &a.key_identifier {
                    let label = if more { "keyid:" } else { "" };
                    let _ = writeln!(t, "{label}{}", colon_hex(k.as_bytes()));
                }
                for name in a.authority_cert_issuer.iter().flatten() {
                    let _ = writeln!(t, "{}", general_name(name));
                }
                if let Some(sn) = &a.authority_cert_serial_number {
                    let _ = writeln!(t, "serial:{}", colon_hex(magnitude(sn.as_bytes())));
                }
                t
            }),
        ),
        BasicConstraints::OID => named(
            "X509v3 Basic Constraints",
            BasicConstraints::from_der(v).ok().map(|b| {
                let ca = if b.ca { "TRUE" } else { "FALSE" };
                match b.path_len_constraint {
                    Some(n) => format!("CA:{ca}, pathlen:{n}"),
                    None => format!("CA:{ca}"),
                }
            }),
        ),
        KeyUsage::OID => named(
            "X509v3 Key Usage",
            KeyUsage::from_der(v).ok().map(|k| {
                let names = [
                    (KeyUsages::DigitalSignature, "Digital Signature"),
                    (KeyUsages::NonRepudiation, "Non Repudiation"),
                    (KeyUsages::KeyEncipherment, "Key Encipherment"),
                    (KeyUsages::DataEncipherment, "Data Encipherment"),
                    (KeyUsages::KeyAgreement, "Key Agreement"),
                    (KeyUsages::KeyCertSign, "Certificate Sign"),
                    (KeyUsages::CRLSign, "CRL Sign"),
                    (KeyUsages::EncipherOnly, "Encipher Only"),
                    (KeyUsages::DecipherOnly, "Decipher Only"),
                ];
                names
                    .iter()
                    .filter(|(f, _)| k.0.contains(*f))
                    .map(|(_, n)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            }),
        ),
        ExtendedKeyUsage::OID => named(
            "X509v3 Extended Key Usage",
            ExtendedKeyUsage::from_der(v)
                .ok()
                .map(|u| u.0.iter().map(eku_name).collect::<Vec<_>>().join(", ")),
        ),
        SubjectAltName::OID => named(
            "X509v3 Subject Alternative Name",
            SubjectAltName::from_der(v).ok().map(|n| general_names_line(&n.0)),
        ),
        IssuerAltName::OID => named(
            "X509v3 Issuer Alternative Name",
            IssuerAltName::from_der(v).ok().map(|n| general_names_line(&n.0)),
        ),
        NETSCAPE_COMMENT => named(
            "Netscape Comment",
            der::asn1::Ia5StringRef::from_der(v).ok().map(|s| s.as_str().to_string()),
        ),
        PrivateKeyUsagePeriod::OID => named(
            "X509v3 Private Key Usage Period",
            // OpenSSL's `i2r_PKEY_USAGE_PERIOD`: both on one line.
            PrivateKeyUsagePeriod::from_der(v).ok().map(|p| {
                let at = |t: der::asn1::GeneralizedTime| time_text(&Time::GeneralTime(t));
                let before = p.not_before.map(|t| format!("Not Before: {}", at(t)));
                let after = p.not_after.map(|t| format!("Not After: {}", at(t)));
                [before, after].into_iter().flatten().collect::<Vec<_>>().join(", ")
            }),
        ),
        AuthorityInfoAccessSyntax::OID => named(
            "Authority Information Access",
            AuthorityInfoAccessSyntax::from_der(v).ok().map(|aia| access_text(&aia.0)),
        ),
        SubjectInfoAccessSyntax::OID => named(
            "Subject Information Access",
            SubjectInfoAccessSyntax::from_der(v).ok().map(|sia| access_text(&sia.0)),
        ),
        TLS_FEATURE => named(
            "TLS Feature",
            // OpenSSL's `i2v_TLS_FEATURE`: names where it has them, else numbers.
            Vec::<u32>::from_der(v).ok().map(|features| {
                let names: Vec<String> = features
                    .iter()
                    .map(|f| match TLS_FEATURES.iter().find(|(_, n)| n == f) {
                        Some((name, _)) => (*name).to_string(),
                        None => f.to_string(),
                    })
                    .collect();
                names.join(", ")
            }),
        ),
        CrlDistributionPoints::OID => {
            let text = full_name_points(v).unwrap_or_else(|| colon_hex(v));
            ("X509v3 CRL Distribution Points".to_string(), Some(text))
        }
        NameConstraints::OID => named(
            "X509v3 Name Constraints",
            NameConstraints::from_der(v)
                .ok()
                .map(|nc| super::name_constraints::name_constraints_text(&nc)),
        ),
        CertificatePolicies::OID => {
            named("X509v3 Certificate Policies", super::policy_text::policies_text(v))
        }
        NETSCAPE_CERT_TYPE => named(
            "Netscape Cert Type",
            BitString::from_der(v).ok().map(|b| {
                let names = [
                    "SSL Client",
                    "SSL Server",
                    "S/MIME",
                    "Object Signing",
                    "Unused",
                    "SSL CA",
                    "S/MIME CA",
                    "Object Signing CA",
                ];
                let bits = b.raw_bytes().first().copied().unwrap_or(0);
                let on = names.iter().enumerate().filter(|(i, _)| bits & (0x80 >> i) != 0);
                on.map(|(_, n)| *n).collect::<Vec<_>>().join(", ")
            }),
        ),
        other => (extension_name(&other), None),
    }
}

/// CRL distribution points as OpenSSL's `print_distpoint` prints them, where each holds
/// a full name alone; `None` for others (which keep the hex).
fn full_name_points(v: &[u8]) -> Option<String> {
    let mut t = String::new();
    for d in CrlDistributionPoints::from_der(v).ok()?.0 {
        let (Some(DistributionPointName::FullName(names)), None, None) =
            (d.distribution_point, d.reasons, d.crl_issuer)
        else {
            return None;
        };
        t.push_str("Full Name:\n");
        for n in &names {
            let _ = writeln!(t, "  {}", general_name(n));
        }
    }
    Some(t)
}

/// A byte as `ASN1_STRING_print` shows it.
fn printable_or_dot(b: u8) -> char {
    if (b' '..=b'~').contains(&b) || b == b'\n' || b == b'\r' { char::from(b) } else { '.' }
}

/// The name OpenSSL gives an extension it does not decode: its long name where its
/// object table has one (SET's, which a public root still carries), else the OID.
fn extension_name(oid: &Oid) -> String {
    let names = [("2.23.42.7.0", "setCext-hashedRoot")];
    names
        .iter()
        .find(|(o, _)| Oid::new_unwrap(o) == *oid)
        .map_or_else(|| oid_name(oid), |(_, n)| (*n).to_string())
}

/// Names on one line, comma separated; an empty list as OpenSSL's `X509V3_EXT_val_prn`
/// prints one, `<EMPTY>` and a blank line.
fn general_names_line(names: &[GeneralName]) -> String {
    if names.is_empty() {
        return "<EMPTY>\n\n".into();
    }
    let text = |n: &GeneralName| match n {
        GeneralName::OtherName(o) => other_name(o),
        n => general_name(n),
    };
    names.iter().map(text).collect::<Vec<_>>().join(", ")
}

/// An otherName as OpenSSL 3.0's `i2v_GENERAL_NAME` writes it: the known types with
/// their labels (`othername: UPN::user@example.com`), others by their OID and their
/// IA5String or UTF8String value, or `<unsupported>`.
fn other_name(o: &OtherName) -> String {
    const KNOWN: [(&str, &str, Tag); 5] = [
        ("1.3.6.1.5.5.7.8.9", "SmtpUTF8Mailbox", Tag::Utf8String),
        ("1.3.6.1.5.5.7.8.5", "XmppAddr", Tag::Utf8String),
        ("1.3.6.1.5.5.7.8.7", "SRVName", Tag::Ia5String),
        ("1.3.6.1.4.1.311.20.2.3", "UPN", Tag::Utf8String),
        ("1.3.6.1.5.5.7.8.8", "NAIRealm", Tag::Utf8String),
    ];
    let value = || String::from_utf8_lossy(o.value.value()).into_owned();
    let tag = o.value.tag();
    if let Some((_, label, want)) = KNOWN.iter().find(|(oid, ..)| Oid::new_unwrap(oid) == o.type_id)
    {
        return match tag == *want {
            true => format!("othername: {label}::{}", value()),
            false => "othername:<unsupported>".into(),
        };
    }
    let label = format!("othername: {}:", oid_name(&o.type_id));
    match tag {
        Tag::Ia5String | Tag::Utf8String => format!("{label}:{}", value()),
        _ => format!("{label}:<unsupported>"),
    }
}

/// Netscape's comment extension (2.16.840.1.113730.1.13).
const NETSCAPE_COMMENT: Oid = Oid::new_unwrap("2.16.840.1.113730.1.13");

/// Netscape's certificate type extension (2.16.840.1.113730.1.1).
const NETSCAPE_CERT_TYPE: Oid = Oid::new_unwrap("2.16.840.1.113730.1.1");

/// Access descriptions, one a line, as OpenSSL's `i2v_AUTHORITY_INFO_ACCESS` prints them.
fn access_text(descriptions: &[AccessDescription]) -> String {
    let mut t = String::new();
    for d in descriptions {
        let method = match ACCESS_METHODS.iter().find(|(.., oid)| *oid == d.access_method) {
            Some((_, long, _)) => (*long).to_string(),
            None => oid_name(&d.access_method),
        };
        let _ = writeln!(t, "{method} - {}", general_name(&d.access_location));
    }
    t
}

fn eku_name(oid: &Oid) -> String {
    let names = [
        ("1.3.6.1.5.5.7.3.1", "TLS Web Server Authentication"),
        ("1.3.6.1.5.5.7.3.2", "TLS Web Client Authentication"),
        ("1.3.6.1.5.5.7.3.3", "Code Signing"),
        ("1.3.6.1.5.5.7.3.4", "E-mail Protection"),
        ("1.3.6.1.5.5.7.3.8", "Time Stamping"),
        ("1.3.6.1.5.5.7.3.9", "OCSP Signing"),
    ];
    names
        .iter()
        .find(|(o, _)| Oid::new_unwrap(o) == *oid)
        .map_or_else(|| oid_name(oid), |(_, n)| (*n).to_string())
}

/// An address as OpenSSL's `ossl_ipaddr_to_asc` writes one: dotted IPv4, or IPv6 as eight
/// upper-case hex groups with no zeros cut; `None` for other lengths.
pub(super) fn ip_text(b: &[u8]) -> Option<String> {
    match b.len() {
        4 => Some(format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3])),
        16 => {
            let groups: Vec<String> =
                b.chunks(2).map(|g| format!("{:X}", u16::from_be_bytes([g[0], g[1]]))).collect();
            Some(groups.join(":"))
        }
        _ => None,
    }
}

/// A name as OpenSSL's `GENERAL_NAME_print` writes it: [`general_name`]'s form but for a
/// directory name, on one line as `X509_NAME_print_ex` with `XN_FLAG_ONELINE` writes it
/// (`DirName:CN = resp`, where the `i2v` form is `DirName:/CN=resp`).
pub(crate) fn general_name_print(n: &GeneralName) -> String {
    match n {
        GeneralName::DirectoryName(name) => format!("DirName:{}", super::display_name(name)),
        n => general_name(n),
    }
}

/// A name as OpenSSL's `i2v_GENERAL_NAME` writes it (extensions' text).
pub(crate) fn general_name(n: &GeneralName) -> String {
    match n {
        GeneralName::DnsName(d) => format!("DNS:{}", d.as_str()),
        GeneralName::Rfc822Name(m) => format!("email:{}", m.as_str()),
        GeneralName::UniformResourceIdentifier(u) => format!("URI:{}", u.as_str()),
        GeneralName::IpAddress(ip) => {
            let b = ip.as_bytes();
            format!("IP Address:{}", ip_text(b).unwrap_or_else(|| colon_hex(b)))
        }
        // OpenSSL's `i2v_GENERAL_NAME`: the one-line form, in a 256-byte buffer.
        GeneralName::DirectoryName(name) => format!("DirName:{}", oneline_name(name, 255)),
        GeneralName::RegisteredId(oid) => format!("Registered ID:{}", oid_name(oid)),
        _ => "othername:<unsupported>".into(),
    }
}
