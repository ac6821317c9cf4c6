//! OCSP responses (RFC 6960 4.2) as a responder makes them: the basic response type,
//! each certificate's status with thisUpdate and, if given, nextUpdate, the request's
//! nonce echoed, the responder named by its subject (or by its key hash), signed with its
//! key, its certificate carried so that clients can find it; as `openssl ocsp -index
//! -rsigner -rkey` answers. And a response that only says why there is no answer.

use super::Status;
use super::asn1::{
    BasicOcspResponse, CertId, CertStatus, ID_PKIX_OCSP_BASIC, ID_PKIX_OCSP_NONCE, OcspResponse,
    ResponderId, ResponseBytes, ResponseData, ResponseStatus, RevokedInfo, SingleResponse,
};
use crate::cert::key_id;
use crate::sig::{self, SigScheme};
use crate::{Error, Result};
use cryptocard::rsa::RsaPrivateKey;
use der::asn1::{Any, BitString, GeneralizedTime, Null, OctetString};
use der::{Decode, Encode};
use std::time::SystemTime;
use x509_cert::Certificate;
use x509_cert::Version;
use x509_cert::ext::Extension;

/// The answers of a response to be made.
#[derive(Clone, Debug)]
pub struct ResponseBuilder {
    produced_at: SystemTime,
    this_update: SystemTime,
    next_update: Option<SystemTime>,
    answers: Vec<(CertId, Status)>,
    nonce: Option<Vec<u8>>,
    by_key: bool,
    include_certs: bool,
    scheme: SigScheme,
}

impl ResponseBuilder {
    /// A response produced at `now`, each status as of `now` with no nextUpdate, the
    /// responder named by subject, its certificate included, signed with PKCS#1 v1.5 and
    /// SHA-256 (OpenSSL's defaults).
    pub fn new(now: SystemTime) -> ResponseBuilder {
        ResponseBuilder {
            produced_at: now,
            this_update: now,
            next_update: None,
            answers: Vec::new(),
            nonce: None,
            by_key: false,
            include_certs: true,
            scheme: SigScheme::DEFAULT,
        }
    }

    /// When newer statuses will be available (`-ndays`, `-nmin`).
    pub fn next_update(mut self, at: SystemTime) -> ResponseBuilder {
        self.next_update = Some(at);
        self
    }

    /// The status of the certificate `id` names, in request order.
    pub fn answer(mut self, id: CertId, status: Status) -> ResponseBuilder {
        self.answers.push((id, status));
        self
    }

    /// The request's nonce extension value, echoed (RFC 6960 4.4.1).
    pub fn nonce(mut self, value: Option<Vec<u8>>) -> ResponseBuilder {
        self.nonce = value;
        self
    }

    /// Names the responder by the SHA-1 hash of its key (`-resp_key_id`).
    pub fn by_key(mut self, yes: bool) -> ResponseBuilder {
        self.by_key = yes;
        self
    }

    /// Whether the responder's certificate travels in the response (`-resp_no_certs`
    /// leaves it out).
    pub fn include_certs(mut self, yes: bool) -> ResponseBuilder {
        self.include_certs = yes;
        self
    }

    /// The signature scheme.
    pub fn scheme(mut self, scheme: SigScheme) -> ResponseBuilder {
        self.scheme = scheme;
        self
    }

    /// The DER `OCSPResponse`, successful, signed by `responder` (whose private key is
    /// `key`), with `extra` certificates after the responder's.
    pub fn sign(
        self,
        responder: &Certificate,
        key: &RsaPrivateKey,
        extra: &[Certificate],
    ) -> Result<Vec<u8>> {
        let spki = responder.tbs_certificate().subject_public_key_info();
        if &sig::spki_of(key.public_key())? != spki {
            return Err(Error::NoMatch(
                "the responder key is not the responder certificate's".into(),
            ));
        }
        let time = |t: SystemTime| {
            GeneralizedTime::from_system_time(t)
                .map_err(|_| Error::Malformed("a time GeneralizedTime cannot hold".into()))
        };
        let mut responses = Vec::with_capacity(self.answers.len());
        for (id, status) in self.answers {
            let cert_status = match status {
                Status::Good => CertStatus::Good(Null),
                Status::Unknown => CertStatus::Unknown(Null),
                Status::Revoked { at, reason } => CertStatus::Revoked(RevokedInfo {
                    revocation_time: time(at)?,
                    revocation_reason: reason,
                }),
            };
            responses.push(SingleResponse {
                cert_id: id,
                cert_status,
                this_update: time(self.this_update)?,
                next_update: self.next_update.map(time).transpose()?,
                single_extensions: None,
            });
        }
        let responder_id = if self.by_key {
            ResponderId::ByKey(OctetString::new(key_id(spki)?)?)
        } else {
            ResponderId::ByName(responder.tbs_certificate().subject().clone())
        };
        let response_extensions = match self.nonce {
            Some(value) => Some(vec![Extension {
                extn_id: ID_PKIX_OCSP_NONCE,
                critical: false,
                extn_value: OctetString::new(value)?,
            }]),
            None => None,
        };
        let data = ResponseData {
            version: Version::V1,
            responder_id,
            produced_at: time(self.produced_at)?,
            responses,
            response_extensions,
        };
        let tbs = data.to_der()?;
        let scheme = self.scheme.for_key(key.public_key())?;
        let signature = sig::sign(key, &scheme, &tbs)?;
        let certs = self.include_certs.then(|| {
            let mut all = vec![responder.clone()];
            all.extend(extra.iter().cloned());
            all
        });
        let basic = BasicOcspResponse {
            tbs_response_data: Any::from_der(&tbs)?,
            signature_algorithm: scheme.algorithm_identifier()?,
            signature: BitString::from_bytes(&signature)?,
            certs,
        };
        let response_bytes = ResponseBytes {
            response_type: ID_PKIX_OCSP_BASIC,
            response: OctetString::new(basic.to_der()?)?,
        };
        Ok(OcspResponse {
            response_status: ResponseStatus::Successful,
            response_bytes: Some(response_bytes),
        }
        .to_der()?)
    }
}

/// A DER `OCSPResponse` that carries only `status` (not `Successful`: a successful
/// response has statuses, see [`ResponseBuilder`]).
pub fn error_response(status: ResponseStatus) -> Result<Vec<u8>> {
    if status == ResponseStatus::Successful {
        return Err(Error::Unsupported("a successful response without statuses".into()));
    }
    Ok(OcspResponse { response_status: status, response_bytes: None }.to_der()?)
}
