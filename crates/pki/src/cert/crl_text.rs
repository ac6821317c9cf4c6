//! The text dump `openssl crl -text -noout` prints, line for line in OpenSSL 3.0's
//! layout (`X509_CRL_print_ex`): version, signature algorithm, issuer, the update times,
//! the CRL's extensions, each revoked serial with its date and entry extensions, and the
//! signature; and the CRL extensions of RFC 5280 sections 5.2 and 5.3 as OpenSSL's
//! `v3_crld.c`, `v3_enum.c` and `v3_int.c` word them (CRL number, delta indicator,
//! issuing distribution point, reason code, invalidity date, hold instruction,
//! certificate issuer).

use super::crl::Crl;
use super::text::{extension_lines, general_name, sig_alg_lines, signature_lines, time_text};
use const_oid::db::rfc5280::{
    ID_CE_CERTIFICATE_ISSUER, ID_CE_CRL_NUMBER, ID_CE_CRL_REASONS, ID_CE_DELTA_CRL_INDICATOR,
    ID_CE_HOLD_INSTRUCTION_CODE, ID_CE_INVALIDITY_DATE, ID_CE_ISSUING_DISTRIBUTION_POINT,
};
use der::asn1::{AnyRef, GeneralizedTime, Int, ObjectIdentifier as Oid};
use der::{Decode, Encode, Tag, Tagged};
use std::fmt::Write as _;
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::crl::dp::IssuingDistributionPoint;
use x509_cert::ext::pkix::name::{DistributionPointName, GeneralNames};
use x509_cert::name::Name;
use x509_cert::time::Time;

/// `openssl crl -text -noout`.
pub fn crl_text(crl: &Crl) -> String {
    crl_text_with(crl, super::NameOpt::ONELINE)
}

/// [`crl_text`] with the issuer printed as `names` says (`crl -text -nameopt`; OpenSSL
/// 3.0's `X509_CRL_print_ex` starts even one entry a line after `Issuer: `).
pub fn crl_text_with(crl: &Crl, names: super::NameOpt) -> String {
    let list = &crl.list;
    let tbs = &list.tbs;
    let mut s = String::from("Certificate Revocation List (CRL):\n");
    let v = tbs.version.map_or(0, |v| v as u8);
    if v <= 1 {
        let _ = writeln!(s, "        Version {} (0x{v:x})", v + 1);
    } else {
        let _ = writeln!(s, "        Version unknown ({v})");
    }
    sig_alg_lines(&mut s, "        ", &list.signature_algorithm);
    let _ = writeln!(s, "        Issuer: {}", super::name_text(&tbs.issuer, 0, names));
    let _ = writeln!(s, "        Last Update: {}", time_text(&tbs.this_update));
    let next = tbs.next_update.as_ref().map_or_else(|| "NONE".to_string(), time_text);
    let _ = writeln!(s, "        Next Update: {next}");
    extensions_lines(&mut s, "CRL extensions", tbs.extensions.as_deref());
    let revoked = tbs.revoked.as_deref().unwrap_or(&[]);
    s.push_str(if revoked.is_empty() {
        "No Revoked Certificates.\n"
    } else {
        "Revoked Certificates:\n"
    });
    for r in revoked {
        let _ = writeln!(s, "    Serial Number: {}", integer_hex(r.serial.as_bytes()));
        let _ = writeln!(s, "        Revocation Date: {}", time_text(&r.date));
        extensions_lines(&mut s, "CRL entry extensions", r.extensions.as_deref());
    }
    signature_lines(&mut s, &list.signature_algorithm, &list.signature);
    s
}

/// OpenSSL's `X509V3_extensions_print` at an indent of eight: a title, then each
/// extension four further in.
fn extensions_lines(s: &mut String, title: &str, exts: Option<&[Extension]>) {
    let Some(exts) = exts.filter(|e| !e.is_empty()) else { return };
    let _ = writeln!(s, "        {title}:");
    for e in exts {
        if e.extn_id == ID_CE_ISSUING_DISTRIBUTION_POINT
            && let Ok(idp) = IssuingDistributionPoint::from_der(e.extn_value.as_bytes())
        {
            let crit = if e.critical { "critical" } else { "" };
            let _ = writeln!(s, "            X509v3 Issuing Distribution Point: {crit}");
            idp_text(s, &idp, 16);
            s.push('\n');
        } else {
            extension_lines(s, "            ", e);
        }
    }
}

/// The name and value text of a CRL or CRL entry extension (the value `None` if it does
/// not parse), `None` for others (and for the issuing distribution point, whose layout
/// [`idp_text`] writes).
pub(super) fn crl_extension_text(e: &Extension) -> Option<(String, Option<String>)> {
    let v = e.extn_value.as_bytes();
    let named = |name: &str, text: Option<String>| Some((name.to_string(), text));
    match e.extn_id {
        // Reached only when it does not parse (`extensions_lines` writes it otherwise).
        ID_CE_ISSUING_DISTRIBUTION_POINT => named("X509v3 Issuing Distribution Point", None),
        ID_CE_CRL_NUMBER => named("X509v3 CRL Number", integer_value(v)),
        ID_CE_DELTA_CRL_INDICATOR => named("X509v3 Delta CRL Indicator", integer_value(v)),
        ID_CE_CRL_REASONS => named("X509v3 CRL Reason Code", reason_text(v)),
        ID_CE_INVALIDITY_DATE => named(
            "Invalidity Date",
            GeneralizedTime::from_der(v).ok().map(|t| time_text(&Time::GeneralTime(t))),
        ),
        ID_CE_HOLD_INSTRUCTION_CODE => {
            named("Hold Instruction Code", Oid::from_der(v).ok().map(|o| hold_name(&o)))
        }
        ID_CE_CERTIFICATE_ISSUER => named(
            "X509v3 Certificate Issuer",
            GeneralNames::from_der(v)
                .ok()
                .map(|n| n.iter().map(general_name).collect::<Vec<_>>().join(", ")),
        ),
        _ => None,
    }
}

/// OpenSSL 3.0's `i2r_idp` at `indent`. Its full names end without a line break (3.0's
/// `print_distpoint` writes none), so what follows them joins their last line; the
/// layout is kept, as `openssl crl -text` shows it.
fn idp_text(s: &mut String, idp: &IssuingDistributionPoint, indent: usize) {
    let pad = " ".repeat(indent);
    match &idp.distribution_point {
        Some(DistributionPointName::FullName(names)) => {
            let _ = writeln!(s, "{pad}Full Name:");
            let lines: Vec<String> =
                names.iter().map(|n| format!("{pad}  {}", general_name(n))).collect();
            s.push_str(&lines.join("\n"));
        }
        Some(DistributionPointName::NameRelativeToCRLIssuer(rdn)) => {
            // A one-RDN name (the SEQUENCE OF that RDN), as `XN_FLAG_ONELINE` prints it.
            let name = vec![rdn.clone()].to_der().and_then(|der| Name::from_der(&der));
            let text = name.map_or_else(|_| "<malformed>".into(), |n| super::display_name(&n));
            let _ = writeln!(s, "{pad}Relative Name:\n{pad}  {text}");
        }
        None => {}
    }
    if idp.only_contains_user_certs {
        let _ = writeln!(s, "{pad}Only User Certificates");
    }
    if idp.only_contains_ca_certs {
        let _ = writeln!(s, "{pad}Only CA Certificates");
    }
    if idp.indirect_crl {
        let _ = writeln!(s, "{pad}Indirect CRL");
    }
    if let Some(reasons) = &idp.only_some_reasons {
        let bits = reasons.bits();
        let on: Vec<&str> = (0..9).filter(|&i| bits & (1 << i) != 0).map(reason_flag).collect();
        let list = if on.is_empty() { "<EMPTY>".to_string() } else { on.join(", ") };
        let _ = writeln!(s, "{pad}Only Some Reasons:\n{pad}  {list}");
    }
    if idp.only_contains_attribute_certs {
        let _ = writeln!(s, "{pad}Only Attribute Certificates");
    }
    if idp.distribution_point.is_none()
        && !idp.only_contains_user_certs
        && !idp.only_contains_ca_certs
        && !idp.indirect_crl
        && idp.only_some_reasons.is_none()
        && !idp.only_contains_attribute_certs
    {
        let _ = writeln!(s, "{pad}<EMPTY>");
    }
}

/// The reason codes of RFC 5280 5.3.1 in OpenSSL's words (7 is not used).
const REASONS: [&str; 11] = [
    "Unspecified",
    "Key Compromise",
    "CA Compromise",
    "Affiliation Changed",
    "Superseded",
    "Cessation Of Operation",
    "Certificate Hold",
    "",
    "Remove From CRL",
    "Privilege Withdrawn",
    "AA Compromise",
];

/// The name of a bit of ReasonFlags (RFC 5280 4.2.1.13): bit 0 is unused, bits 1 to 6
/// are the codes 1 to 6, bits 7 and 8 the codes 9 and 10 (privilegeWithdrawn,
/// aACompromise).
fn reason_flag(bit: usize) -> &'static str {
    match bit {
        0 => "Unused",
        1..=6 => REASONS[bit],
        _ => REASONS[bit + 2],
    }
}

/// An INTEGER's content as a sign and its magnitude without leading zero bytes (at
/// least one byte): what OpenSSL's `ASN1_INTEGER` holds.
pub(crate) fn sign_magnitude(content: &[u8]) -> (bool, Vec<u8>) {
    let negative = content.first().is_some_and(|b| b & 0x80 != 0);
    let mut m = content.to_vec();
    if negative {
        // Two's complement: invert and add one.
        let mut carry = true;
        for b in m.iter_mut().rev() {
            let (x, c) = (!*b).overflowing_add(u8::from(carry));
            *b = x;
            carry = c;
        }
    }
    let zeros = m.iter().take_while(|&&b| b == 0).count().min(m.len().saturating_sub(1));
    m.drain(..zeros);
    (negative, m)
}

/// An INTEGER's DER content as OpenSSL's `i2a_ASN1_INTEGER` prints it (revoked serial
/// numbers, `-crlnumber`): upper-case hex bytes without leading zeros (`00` for zero), a
/// minus sign if negative, a backslash and a line break every 35 bytes.
pub fn integer_hex(content: &[u8]) -> String {
    let (negative, m) = sign_magnitude(content);
    let sign = if negative { "-" } else { "" };
    match m.is_empty() {
        true => format!("{sign}00"),
        false => format!("{sign}{}", asn1_string_hex(&m)),
    }
}

/// Bytes as OpenSSL's `i2a_ASN1_STRING` prints them (the hashes of an OCSP certificate ID,
/// its nonce): upper-case hex, a backslash and a line break every 35 bytes, `0` for none.
pub(crate) fn asn1_string_hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "0".into();
    }
    let mut t = String::new();
    for (i, b) in bytes.iter().enumerate() {
        if i != 0 && i % 35 == 0 {
            t.push_str("\\\n");
        }
        let _ = write!(t, "{b:02X}");
    }
    t
}

/// OpenSSL's `i2s_ASN1_INTEGER`: decimal below 128 bits, else `0x` and upper-case hex.
fn integer_text(content: &[u8]) -> String {
    let (negative, m) = sign_magnitude(content);
    let sign = if negative { "-" } else { "" };
    let bits = m
        .iter()
        .position(|&b| b != 0)
        .map_or(0, |i| (m.len() - i) * 8 - m[i].leading_zeros() as usize);
    if bits < 128 {
        let v = m.iter().fold(0u128, |a, &b| (a << 8) | u128::from(b));
        return format!("{sign}{v}");
    }
    let hex: String = m.iter().map(|b| format!("{b:02X}")).collect();
    format!("{sign}0x{hex}")
}

/// An extension value that is an INTEGER, as [`integer_text`].
fn integer_value(v: &[u8]) -> Option<String> {
    Int::from_der(v).ok().map(|n| integer_text(n.as_bytes()))
}

/// The reason code (RFC 5280 5.3.1) in OpenSSL's words; a value it has no words for as
/// the number.
fn reason_text(v: &[u8]) -> Option<String> {
    let any = AnyRef::from_der(v).ok()?;
    if any.tag() != Tag::Enumerated {
        return None;
    }
    let content = any.value();
    let text = integer_text(content);
    let words = text.parse::<usize>().ok().and_then(|i| REASONS.get(i)).filter(|w| !w.is_empty());
    Some(words.map_or(text, |w| (*w).to_string()))
}

/// The hold instructions of RFC 5280 5.3.2 by OpenSSL's long names; others dotted.
fn hold_name(oid: &Oid) -> String {
    let names = [
        ("1.2.840.10040.2.1", "Hold Instruction None"),
        ("1.2.840.10040.2.2", "Hold Instruction Call Issuer"),
        ("1.2.840.10040.2.3", "Hold Instruction Reject"),
    ];
    names
        .iter()
        .find(|(o, _)| Oid::new_unwrap(o) == *oid)
        .map_or_else(|| oid.to_string(), |(_, n)| (*n).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_as_openssl_prints_them() {
        assert_eq!(integer_hex(&[0]), "00");
        assert_eq!(integer_hex(&[0, 0xf5, 1]), "F501");
        assert_eq!(integer_hex(&[0xff]), "-01");
        assert_eq!(integer_hex(&[0x80, 0]), "-8000");
        assert_eq!(integer_hex(&[1; 36]), format!("{}\\\n01", "01".repeat(35)));
        assert_eq!(integer_text(&[5]), "5");
        assert_eq!(integer_text(&[0xfb]), "-5");
        assert_eq!(integer_text(&[0x7f; 16]), (u128::from_be_bytes([0x7f; 16])).to_string());
        let big = [[1u8].as_slice(), &[0; 16]].concat();
        assert_eq!(integer_text(&big), format!("0x01{}", "00".repeat(16)));
    }

    #[test]
    fn reasons_by_name_and_number() {
        assert_eq!(reason_text(&[0x0a, 1, 1]).unwrap(), "Key Compromise");
        assert_eq!(reason_text(&[0x0a, 1, 8]).unwrap(), "Remove From CRL");
        assert_eq!(reason_text(&[0x0a, 1, 7]).unwrap(), "7");
        assert_eq!(reason_text(&[0x0a, 1, 42]).unwrap(), "42");
        assert_eq!(reason_text(&[0x02, 1, 1]), None);
        let flags: Vec<&str> = (0..9).map(reason_flag).collect();
        assert_eq!(flags[..2], ["Unused", "Key Compromise"]);
        assert_eq!(flags[6..], ["Certificate Hold", "Privilege Withdrawn", "AA Compromise"]);
    }
}
