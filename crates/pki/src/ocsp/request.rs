//! OCSP requests (RFC 6960 4.1): certificate IDs, and a request for them, as `openssl
//! ocsp -issuer -cert -reqout` makes one (with a 16-byte nonce unless asked for none),
//! unsigned or signed by a requestor (4.1.2, `-signer`); and a request read back, as a
//! responder reads it.

use super::asn1::{CertId, ID_PKIX_OCSP_NONCE, OcspRequest, Request, Signature, TbsRequest};
use crate::sig::{self, SigScheme, hash_from_id, hash_id};
use crate::{Error, Result};
use cryptocard::digest::{HashAlg, Hasher};
use cryptocard::rsa::RsaPrivateKey;
use der::asn1::{Any, BitString, OctetString};
use der::{Decode, Encode};
use x509_cert::Certificate;
use x509_cert::Version;
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::name::GeneralName;
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
    let tbs_request = tbs_request(ids, nonce)?;
    Ok(OcspRequest { tbs_request, optional_signature: None }.to_der()?)
}

/// Who signs a request and how (RFC 6960 4.1.2), as `openssl ocsp -signer -signkey
/// -sign_other [-no_certs]` signs one.
#[derive(Clone, Copy, Debug)]
pub struct RequestSigner<'a> {
    /// The requestor's certificate: its subject is the request's requestorName.
    pub cert: &'a Certificate,
    /// The certificate's private key.
    pub key: &'a RsaPrivateKey,
    /// The signature scheme (OpenSSL's is PKCS#1 v1.5 with SHA-256, [`SigScheme::DEFAULT`]).
    pub scheme: SigScheme,
    /// More certificates to carry after the signer's (`-sign_other`).
    pub other: &'a [Certificate],
    /// Whether the request carries certificates at all (`-no_certs` says not).
    pub include_certs: bool,
}

/// The DER `OCSPRequest` `der` (as [`request`] makes one, or any other) signed by
/// `signer`, as `OCSP_request_sign` signs it: the requestorName becomes the signer's
/// subject, the signature is over the `TBSRequest` (any earlier signature is replaced),
/// and the signer's certificate and the others go with it unless `include_certs` is false.
pub fn sign_request(der: &[u8], signer: &RequestSigner<'_>) -> Result<Vec<u8>> {
    let spki = signer.cert.tbs_certificate().subject_public_key_info();
    if &sig::spki_of(signer.key.public_key())? != spki {
        return Err(Error::NoMatch("the signer key is not the signer certificate's".into()));
    }
    let mut tbs_request = OcspRequest::from_der(der)?.tbs_request;
    let name = signer.cert.tbs_certificate().subject().clone();
    tbs_request.requestor_name = Some(GeneralName::DirectoryName(name));
    let scheme = signer.scheme.for_key(signer.key.public_key())?;
    let value = sig::sign(signer.key, &scheme, &tbs_request.to_der()?)?;
    let certs = signer.include_certs.then(|| {
        let mut all = vec![signer.cert.clone()];
        all.extend(signer.other.iter().cloned());
        all
    });
    let signature = Signature {
        signature_algorithm: scheme.algorithm_identifier()?,
        signature: BitString::from_bytes(&value)?,
        certs,
    };
    let optional_signature = Some(Any::from_der(&signature.to_der()?)?);
    Ok(OcspRequest { tbs_request, optional_signature }.to_der()?)
}

/// The `TBSRequest` for `ids` with the nonce.
fn tbs_request(ids: &[CertId], nonce: Option<&[u8]>) -> Result<TbsRequest> {
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
    Ok(TbsRequest {
        version: Version::V1,
        requestor_name: None,
        request_list: ids
            .iter()
            .map(|id| Request { req_cert: id.clone(), single_request_extensions: None })
            .collect(),
        request_extensions,
    })
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
