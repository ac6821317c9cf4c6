//! Reading and writing certificates and requests: DER, PEM (RFC 7468 `CERTIFICATE`,
//! `CERTIFICATE REQUEST`, and OpenSSL's older `NEW CERTIFICATE REQUEST`), and PEM
//! bundles of several certificates, told apart by content.
//!
//! Hostile input meets `der`'s decoder, which checks every length against the input and
//! allocates no more than the input holds; a bundle is read block by block, each block
//! at most as long as the input, so the work is linear in the input's length.

use crate::{Error, Result};
use der::pem::LineEnding;
use der::{Decode, Encode, EncodePem};
use x509_cert::Certificate;
use x509_cert::request::CertReq;

/// The most certificates a bundle may hold (a bound on work, not a limit users meet).
pub const MAX_BUNDLE: usize = 1000;

/// Whether `data` looks like PEM text (it has an encapsulation boundary).
pub(crate) fn is_pem(data: &[u8]) -> bool {
    data.windows(11).any(|w| w == b"-----BEGIN ")
}

/// One DER certificate; trailing bytes are an error.
pub fn cert_from_der(der: &[u8]) -> Result<Certificate> {
    Certificate::from_der(der).map_err(|e| Error::Malformed(format!("certificate: {e}")))
}

/// The first `CERTIFICATE` block of PEM text.
pub fn cert_from_pem(pem: &[u8]) -> Result<Certificate> {
    certs_from_pem(pem)?
        .into_iter()
        .next()
        .ok_or_else(|| Error::Malformed("no CERTIFICATE in the PEM input".into()))
}

/// Every `CERTIFICATE` block of PEM text, in order; other blocks (keys, parameters) are
/// skipped, as OpenSSL's bundle readers skip them.
pub fn certs_from_pem(pem: &[u8]) -> Result<Vec<Certificate>> {
    let mut out = Vec::new();
    for (label, block) in pem_blocks(pem)? {
        if label == "CERTIFICATE" || label == "X509 CERTIFICATE" || label == "TRUSTED CERTIFICATE" {
            if out.len() == MAX_BUNDLE {
                return Err(Error::Malformed(format!("more than {MAX_BUNDLE} certificates")));
            }
            let der = pem_body(block)?;
            out.push(cert_from_der(&der)?);
        }
    }
    Ok(out)
}

/// Certificates from PEM (every block) or DER (one), told apart by content.
pub fn read_certs(data: &[u8]) -> Result<Vec<Certificate>> {
    if is_pem(data) { certs_from_pem(data) } else { Ok(vec![cert_from_der(data)?]) }
}

/// A certificate as PEM, as issued (`encode.rs`).
pub fn to_pem(cert: &Certificate) -> Result<String> {
    der::pem::encode_string("CERTIFICATE", LineEnding::LF, &to_der(cert)?)
        .map_err(|e| Error::Malformed(format!("PEM: {e}")))
}

/// A certificate as DER, as issued (`encode.rs`).
pub fn to_der(cert: &Certificate) -> Result<Vec<u8>> {
    super::encode::cert_der(cert)
}

/// A DER request.
pub fn csr_from_der(der: &[u8]) -> Result<CertReq> {
    CertReq::from_der(der).map_err(|e| Error::Malformed(format!("certificate request: {e}")))
}

/// The first `CERTIFICATE REQUEST` (or `NEW CERTIFICATE REQUEST`) block of PEM text.
pub fn csr_from_pem(pem: &[u8]) -> Result<CertReq> {
    for (label, block) in pem_blocks(pem)? {
        if label == "CERTIFICATE REQUEST" || label == "NEW CERTIFICATE REQUEST" {
            return csr_from_der(&pem_body(block)?);
        }
    }
    Err(Error::Malformed("no CERTIFICATE REQUEST in the PEM input".into()))
}

/// A request from PEM or DER, told apart by content.
pub fn read_csr(data: &[u8]) -> Result<CertReq> {
    if is_pem(data) { csr_from_pem(data) } else { csr_from_der(data) }
}

/// A request as DER.
pub fn csr_to_der(csr: &CertReq) -> Result<Vec<u8>> {
    Ok(csr.to_der()?)
}

/// A request as PEM.
pub fn csr_to_pem(csr: &CertReq) -> Result<String> {
    Ok(csr.to_pem(LineEnding::LF)?)
}

/// The PEM blocks of `text`: each label and the whole block, boundaries included.
pub(crate) fn pem_blocks(text: &[u8]) -> Result<Vec<(String, &[u8])>> {
    let text = std::str::from_utf8(text).map_err(|_| Error::Malformed("PEM is not text".into()))?;
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN ") {
        let after = &rest[start + 11..];
        let label_end =
            after.find("-----").ok_or_else(|| Error::Malformed("unterminated PEM label".into()))?;
        let label = &after[..label_end];
        let end_marker = format!("-----END {label}-----");
        let end = after
            .find(&end_marker)
            .ok_or_else(|| Error::Malformed(format!("PEM block {label} has no END line")))?;
        let block_end = start + 11 + end + end_marker.len();
        blocks.push((label.to_string(), &rest.as_bytes()[start..block_end]));
        rest = &rest[block_end..];
    }
    Ok(blocks)
}

/// The DER inside one PEM block.
pub(crate) fn pem_body(block: &[u8]) -> Result<Vec<u8>> {
    let (_, der) =
        der::pem::decode_vec(block).map_err(|e| Error::Malformed(format!("PEM: {e}")))?;
    Ok(der)
}
