//! OCSP requests and responses as text, line for line as OpenSSL 3.0's
//! `OCSP_REQUEST_print` and `OCSP_RESPONSE_print` write them (`openssl ocsp -req_text`,
//! `-resp_text`): the certificate IDs, statuses, times and extensions (the nonce as
//! OpenSSL prints it, others as `x509 -text` does), the signature, and each certificate
//! carried, as `x509 -text` prints it followed by its PEM.

use super::asn1::{
    BasicOcspResponse, CertId, CertStatus, ID_PKIX_OCSP_BASIC, ID_PKIX_OCSP_NONCE, OcspRequest,
    OcspResponse, ResponderId, ResponseData, Signature,
};
use super::reason_str;
use crate::Result;
use crate::cert::{
    asn1_string_hex, cert_text_compat, display_name, extension_lines, general_name_print,
    integer_hex, signature_lines, time_text, to_pem,
};
use crate::sig::oid_name;
use cryptocard::digest::HashAlg;
use der::asn1::GeneralizedTime;
use der::{Decode, Encode};
use std::fmt::Write as _;
use x509_cert::Certificate;
use x509_cert::ext::Extension;
use x509_cert::time::Time;

/// The DER `OCSPRequest` as `OCSP_REQUEST_print` writes it.
pub fn request_text(der: &[u8]) -> Result<String> {
    let req = OcspRequest::from_der(der)?;
    let tbs = &req.tbs_request;
    let mut s = String::from("OCSP Request Data:\n");
    let v = tbs.version as u8;
    let _ = write!(s, "    Version: {} (0x{v:x})", u32::from(v) + 1);
    if let Some(name) = &tbs.requestor_name {
        let _ = write!(s, "\n    Requestor Name: {}", general_name_print(name));
    }
    s.push_str("\n    Requestor List:\n");
    for one in &tbs.request_list {
        cert_id_lines(&mut s, &one.req_cert, 8);
        extensions(&mut s, "Request Single Extensions", &one.single_request_extensions, 8);
    }
    extensions(&mut s, "Request Extensions", &tbs.request_extensions, 4);
    if let Some(sig) = &req.optional_signature {
        let sig =
            Signature::from_der(&sig.to_der()?).or_else(|_| Signature::from_der(sig.value()))?;
        signature_lines(&mut s, &sig.signature_algorithm, &sig.signature);
        certificates(&mut s, sig.certs.as_deref().unwrap_or_default())?;
    }
    Ok(s)
}

/// The DER `OCSPResponse` as `OCSP_RESPONSE_print` writes it.
pub fn response_text(der: &[u8]) -> Result<String> {
    let resp = OcspResponse::from_der(der)?;
    let status = resp.response_status;
    let mut s = String::from("OCSP Response Data:\n");
    let _ = writeln!(s, "    OCSP Response Status: {} (0x{:x})", status.as_str(), status as u32);
    let Some(bytes) = resp.response_bytes else { return Ok(s) };
    s.push_str("    Response Type: ");
    if bytes.response_type != ID_PKIX_OCSP_BASIC {
        let _ = writeln!(s, "{} (unknown response type)", oid_name(&bytes.response_type));
        return Ok(s);
    }
    s.push_str("Basic OCSP Response");
    let basic = BasicOcspResponse::from_der(bytes.response.as_bytes())?;
    let data = ResponseData::from_der(&basic.tbs_response_data.to_der()?)?;
    let v = data.version as u8;
    let _ = writeln!(s, "\n    Version: {} (0x{v:x})", u32::from(v) + 1);
    s.push_str("    Responder Id: ");
    match &data.responder_id {
        ResponderId::ByName(name) => s.push_str(&display_name(name)),
        ResponderId::ByKey(hash) => s.push_str(&asn1_string_hex(hash.as_bytes())),
    }
    let _ = write!(s, "\n    Produced At: {}\n    Responses:\n", when(&data.produced_at));
    for single in &data.responses {
        cert_id_lines(&mut s, &single.cert_id, 4);
        let _ = write!(s, "    Cert Status: ");
        match &single.cert_status {
            CertStatus::Good(_) => s.push_str("good"),
            CertStatus::Unknown(_) => s.push_str("unknown"),
            CertStatus::Revoked(info) => {
                let _ = write!(s, "revoked\n    Revocation Time: {}", when(&info.revocation_time));
                if let Some(reason) = info.revocation_reason {
                    let _ = write!(
                        s,
                        "\n    Revocation Reason: {} (0x{:x})",
                        reason_str(reason),
                        reason as u32
                    );
                }
            }
        }
        let _ = write!(s, "\n    This Update: {}", when(&single.this_update));
        if let Some(next) = &single.next_update {
            let _ = write!(s, "\n    Next Update: {}", when(next));
        }
        s.push('\n');
        extensions(&mut s, "Response Single Extensions", &single.single_extensions, 8);
        s.push('\n');
    }
    extensions(&mut s, "Response Extensions", &data.response_extensions, 4);
    signature_lines(&mut s, &basic.signature_algorithm, &basic.signature);
    certificates(&mut s, basic.certs.as_deref().unwrap_or_default())?;
    Ok(s)
}

/// `ocsp_certid_print`: the ID's four fields at `indent`, under its title.
fn cert_id_lines(s: &mut String, id: &CertId, indent: usize) {
    let pad = " ".repeat(indent);
    let hash = match HashAlg::from_oid(&id.hash_algorithm.oid.to_string()) {
        Ok(h) => h.long_name().to_string(),
        Err(_) => oid_name(&id.hash_algorithm.oid),
    };
    let _ = writeln!(s, "{pad}Certificate ID:");
    let _ = writeln!(s, "{pad}  Hash Algorithm: {hash}");
    let _ =
        writeln!(s, "{pad}  Issuer Name Hash: {}", asn1_string_hex(id.issuer_name_hash.as_bytes()));
    let _ =
        writeln!(s, "{pad}  Issuer Key Hash: {}", asn1_string_hex(id.issuer_key_hash.as_bytes()));
    let _ = writeln!(s, "{pad}  Serial Number: {}", integer_hex(id.serial_number.as_bytes()));
}

/// `X509V3_extensions_print`: nothing for none, else the title and each extension four
/// spaces further in; the nonce's value as its hex (OpenSSL's `i2r_ocsp_nonce`).
fn extensions(s: &mut String, title: &str, exts: &Option<Vec<Extension>>, indent: usize) {
    let Some(exts) = exts.as_deref().filter(|e| !e.is_empty()) else { return };
    let pad = " ".repeat(indent);
    let _ = writeln!(s, "{pad}{title}:");
    for e in exts {
        if e.extn_id == ID_PKIX_OCSP_NONCE {
            let crit = if e.critical { "critical" } else { "" };
            let _ = writeln!(s, "{pad}    OCSP Nonce: {crit}");
            let _ = writeln!(s, "{pad}        {}", asn1_string_hex(e.extn_value.as_bytes()));
        } else {
            extension_lines(s, &format!("{pad}    "), e);
        }
    }
}

/// Each certificate as `X509_print` and then `PEM_write_bio_X509` write it.
fn certificates(s: &mut String, certs: &[Certificate]) -> Result<()> {
    for cert in certs {
        s.push_str(&cert_text_compat(cert)?);
        s.push_str(&to_pem(cert)?);
    }
    Ok(())
}

fn when(t: &GeneralizedTime) -> String {
    time_text(&Time::GeneralTime(*t))
}
