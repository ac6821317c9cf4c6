//! What `openssl x509` prints of a certificate beyond its text dump: its email
//! addresses (`-email`, OpenSSL's `X509_get1_email`), its OCSP responders (`-ocsp_uri`,
//! `X509_get1_ocsp`, from the authorityInfoAccess of RFC 5280 section 4.2.2.1), the
//! hashes an OCSP request names it by (`-ocspid`, `X509_ocspid_print`; RFC 6960 section
//! 4.1.1's CertID hashes, when the certificate is the issuer), the serial after its own
//! (`-next_serial`), and its times in ISO 8601 (`-dateopt iso_8601`).

use super::crl_text::{asn1_string_hex, sign_magnitude};
use super::peer_id::EMAIL_ADDRESS;
use crate::Result;
use cryptocard::digest::{HashAlg, Hasher};
use der::{Encode, Tag, Tagged};
use x509_cert::Certificate;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{AuthorityInfoAccessSyntax, SubjectAltName};
use x509_cert::serial_number::SerialNumber;
use x509_cert::time::Time;

/// id-ad-ocsp (RFC 5280 section 4.2.2.1).
const ID_AD_OCSP: const_oid::ObjectIdentifier = const_oid::db::rfc5280::ID_AD_OCSP;

/// Adds `value` unless it is empty or already there (OpenSSL's `append_ia5`).
fn append(list: &mut Vec<String>, value: &[u8]) {
    let text = String::from_utf8_lossy(value).into_owned();
    if !text.is_empty() && !list.contains(&text) {
        list.push(text);
    }
}

/// The certificate's email addresses: the subject's emailAddress attributes that are
/// IA5Strings, then the subjectAltName's rfc822Names, each once.
pub fn emails(cert: &Certificate) -> Vec<String> {
    let tbs = cert.tbs_certificate();
    let mut out = Vec::new();
    for atv in tbs.subject().iter_rdn().flat_map(|rdn| rdn.iter()) {
        if atv.oid == EMAIL_ADDRESS && atv.value.tag() == Tag::Ia5String {
            append(&mut out, atv.value.value());
        }
    }
    if let Ok(Some((_, san))) = tbs.get_extension::<SubjectAltName>() {
        for name in &san.0 {
            if let GeneralName::Rfc822Name(email) = name {
                append(&mut out, email.as_str().as_bytes());
            }
        }
    }
    out
}

/// The URIs of the certificate's OCSP responders (its authorityInfoAccess entries of
/// method id-ad-ocsp), each once.
pub fn ocsp_uris(cert: &Certificate) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(Some((_, aia))) = cert.tbs_certificate().get_extension::<AuthorityInfoAccessSyntax>()
    {
        for access in &aia.0 {
            if let (true, GeneralName::UniformResourceIdentifier(uri)) =
                (access.access_method == ID_AD_OCSP, &access.access_location)
            {
                append(&mut out, uri.as_str().as_bytes());
            }
        }
    }
    out
}

/// `-ocspid`'s two lines: the SHA-1 of the subject name's DER and of the public key's
/// bits, in upper-case hex, as an OCSP request about a certificate this one issued
/// names its issuer.
pub fn ocspid_text(cert: &Certificate) -> Result<String> {
    let tbs = cert.tbs_certificate();
    let hex = |data: &[u8]| -> String {
        Hasher::digest(HashAlg::Sha1, data).as_bytes().iter().map(|b| format!("{b:02X}")).collect()
    };
    let name = hex(&tbs.subject().to_der()?);
    let key = hex(tbs.subject_public_key_info().subject_public_key.raw_bytes());
    Ok(format!("        Subject OCSP hash: {name}\n        Public key OCSP hash: {key}\n"))
}

/// The serial plus one, as `-next_serial` prints it (`i2a_ASN1_INTEGER`: upper-case hex
/// bytes, `-` before a negative one).
pub fn next_serial_hex(serial: &SerialNumber) -> String {
    let (negative, mut m) = sign_magnitude(serial.as_bytes());
    // -m + 1 = -(m - 1); m + 1 may carry into a new byte.
    let step = |b: &mut u8| {
        let (v, over) = if negative { b.overflowing_sub(1) } else { b.overflowing_add(1) };
        *b = v;
        over
    };
    if m.iter_mut().rev().all(step) {
        m.insert(0, 1);
    }
    let start = m.iter().position(|&b| b != 0);
    match start {
        None => "00".into(),
        Some(i) => format!("{}{}", if negative { "-" } else { "" }, asn1_string_hex(&m[i..])),
    }
}

/// A time as `-dateopt iso_8601` prints it (`ASN1_TIME_print_ex` with
/// `ASN1_DTFLGS_ISO8601`): `2026-12-03 18:40:23Z`.
pub fn time_text_iso(t: &Time) -> String {
    let d = t.to_date_time();
    format!(
        "{}-{:02}-{:02} {:02}:{:02}:{:02}Z",
        d.year(),
        d.month(),
        d.day(),
        d.hour(),
        d.minutes(),
        d.seconds()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use der::Decode;

    fn serial(bytes: &[u8]) -> SerialNumber {
        SerialNumber::from_der(&[&[2, bytes.len() as u8][..], bytes].concat()).unwrap()
    }

    #[test]
    fn next_serials_carry_and_cross_zero() {
        assert_eq!(next_serial_hex(&serial(&[0x01])), "02");
        assert_eq!(next_serial_hex(&serial(&[0x00, 0xff])), "0100");
        assert_eq!(next_serial_hex(&serial(&[0x7f, 0xff])), "8000");
        assert_eq!(next_serial_hex(&serial(&[0x00])), "01");
        // -1 + 1 = 0; -256 + 1 = -255.
        assert_eq!(next_serial_hex(&serial(&[0xff])), "00");
        assert_eq!(next_serial_hex(&serial(&[0xff, 0x00])), "-FF");
    }
}
