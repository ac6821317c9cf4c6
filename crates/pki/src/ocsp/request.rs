//! OCSP requests (RFC 6960 4.1): certificate IDs, and a request for them, unsigned, as
//! `openssl ocsp -issuer -cert -reqout` makes one (with a 16-byte nonce unless asked for
//! none); and a request read back, as a responder reads it.

use super::asn1::{CertId, ID_PKIX_OCSP_NONCE, OcspRequest, Request, TbsRequest};
use crate::sig::{hash_from_id, hash_id};
use crate::{Error, Result};
use cryptocard::digest::{HashAlg, Hasher};
use der::asn1::OctetString;
use der::{Decode, Encode};
use x509_cert::Certificate;
use x509_cert::Version;
use x509_cert::ext::Extension;
use x509_cert::serial_number::SerialNumber;

/// The most certificates one request may ask about (a responder's bound on its work).
pub const MAX_REQUESTS: usize = 1024;

impl CertId {
    /// The ID of the certificate with `serial` issued by `issuer`, hashed with `hash`
    /// (OpenSSL's default is SHA-1, as RFC 6960 4.3 asks clients to accept).
    pub fn new(issuer: &Certificate, serial: &SerialNumber, hash: HashAlg) -> Result<CertId> {
        let tbs = issuer.tbs_certificate();
        let name = tbs.subject().to_der()?;
        let key = tbs.subject_public_key_info().subject_public_key.raw_bytes();
        let digest = |bytes: &[u8]| OctetString::new(Hasher::digest(hash, bytes).as_bytes());
        Ok(CertId {
            hash_algorithm: hash_id(hash)?,
            issuer_name_hash: digest(&name)?,
            issuer_key_hash: digest(key)?,
            serial_number: serial.clone(),
        })
    }

    /// The ID of `cert`, issued by `issuer`.
    pub fn of(cert: &Certificate, issuer: &Certificate, hash: HashAlg) -> Result<CertId> {
        CertId::new(issuer, cert.tbs_certificate().serial_number(), hash)
    }

    /// Whether this ID names a certificate `issuer` issued: its name and key hashes are
    /// `issuer`'s, under this ID's hash.
    pub fn issued_by(&self, issuer: &Certificate) -> bool {
        let Ok(hash) = hash_from_id(&self.hash_algorithm) else { return false };
        CertId::new(issuer, &self.serial_number, hash).is_ok_and(|id| {
            id.issuer_name_hash == self.issuer_name_hash
                && id.issuer_key_hash == self.issuer_key_hash
        })
    }

    /// Whether this ID and `other` name the same certificate: the same serial, and the
    /// same issuer under the same hash.
    pub fn same_certificate(&self, other: &CertId) -> bool {
        self.hash_algorithm.oid == other.hash_algorithm.oid
            && self.issuer_name_hash == other.issuer_name_hash
            && self.issuer_key_hash == other.issuer_key_hash
            && self.serial_number == other.serial_number
    }
}

/// A DER `OCSPRequest` for `ids`, unsigned, with the nonce extension holding `nonce` (an
/// OCTET STRING inside the extension's value, as OpenSSL writes it) if given.
pub fn request(ids: &[CertId], nonce: Option<&[u8]>) -> Result<Vec<u8>> {
    if ids.is_empty() || ids.len() > MAX_REQUESTS {
        return Err(Error::Unsupported(format!("a request for 1 to {MAX_REQUESTS} certificates")));
    }
    let request_extensions = match nonce {
        Some(n) => Some(vec![Extension {
            extn_id: ID_PKIX_OCSP_NONCE,
            critical: false,
            extn_value: OctetString::new(OctetString::new(n)?.to_der()?)?,
        }]),
        None => None,
    };
    let tbs_request = TbsRequest {
        version: Version::V1,
        requestor_name: None,
        request_list: ids
            .iter()
            .map(|id| Request { req_cert: id.clone(), single_request_extensions: None })
            .collect(),
        request_extensions,
    };
    Ok(OcspRequest { tbs_request, optional_signature: None }.to_der()?)
}

/// What a responder reads of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedRequest {
    /// The certificates asked about, in order.
    pub ids: Vec<CertId>,
    /// The nonce extension's value as sent (echoed in the response), if any.
    pub nonce: Option<Vec<u8>>,
}

/// Reads a DER `OCSPRequest`. A signed request is read, its signature not checked (a
/// responder that answers everyone has no use for it).
pub fn parse_request(der: &[u8]) -> Result<ParsedRequest> {
    let req = OcspRequest::from_der(der)?;
    let tbs = req.tbs_request;
    if tbs.request_list.is_empty() || tbs.request_list.len() > MAX_REQUESTS {
        return Err(Error::Unsupported(format!("a request for 1 to {MAX_REQUESTS} certificates")));
    }
    let nonce = tbs
        .request_extensions
        .iter()
        .flatten()
        .find(|e| e.extn_id == ID_PKIX_OCSP_NONCE)
        .map(|e| e.extn_value.as_bytes().to_vec());
    Ok(ParsedRequest { ids: tbs.request_list.into_iter().map(|r| r.req_cert).collect(), nonce })
}
