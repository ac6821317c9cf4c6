//! OCSP responses (RFC 6960 4.2) as a responder makes them: the basic response type,
//! each certificate's status with thisUpdate and, if given, nextUpdate (and single
//! extensions such as a revocation's invalidity date), the request's nonce echoed, the
//! responder named by its subject (or by its key hash), signed with its key (PKCS#1 v1.5
//! or PSS, any digest), its certificate carried so that clients can find it; as `openssl
//! ocsp -index -rsigner -rkey` answers. The signature is made on the calling thread
//! ([`ResponseBuilder::sign`]), through the engine, which batches concurrent callers'
//! ([`ResponseBuilder::sign_on`]), or for many responses at once in one batch
//! ([`ResponseBuilder::sign_batch`]). And a response that only says why there is no
//! answer.

use super::Status;
use super::asn1::{
    BasicOcspResponse, CertId, CertStatus, ID_PKIX_OCSP_BASIC, ID_PKIX_OCSP_NONCE, OcspResponse,
    ResponderId, ResponseBytes, ResponseData, ResponseStatus, RevokedInfo, SingleResponse,
};
use crate::cert::key_id;
use crate::sig::{self, SigScheme};
use crate::{Error, Result};
use cryptocard::digest::Hasher;
use cryptocard::engine::Engine;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{PrivateRequest, RsaPrivateKey, RsaPublicKey};
use der::asn1::{Any, BitString, GeneralizedTime, Null, OctetString};
use der::{Decode, Encode};
use std::sync::Arc;
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
    answers: Vec<(CertId, Status, Vec<Extension>)>,
    nonce: Option<Vec<u8>>,
    by_key: bool,
    include_certs: bool,
    scheme: SigScheme,
    corrupt: bool,
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
            corrupt: false,
        }
    }

    /// When newer statuses will be available (`-ndays`, `-nmin`).
    pub fn next_update(mut self, at: SystemTime) -> ResponseBuilder {
        self.next_update = Some(at);
        self
    }

    /// The status of the certificate `id` names, in request order.
    pub fn answer(self, id: CertId, status: Status) -> ResponseBuilder {
        self.answer_with(id, status, Vec::new())
    }

    /// The status of the certificate `id` names with these singleExtensions (a
    /// revocation's invalidity date or hold instruction, as OpenSSL's responder adds
    /// them from its database).
    pub fn answer_with(
        mut self,
        id: CertId,
        status: Status,
        extensions: Vec<Extension>,
    ) -> ResponseBuilder {
        self.answers.push((id, status, extensions));
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

    /// Flips the last bit of the signature, so that no client accepts the response
    /// (OpenSSL's `-badsig`, for testing clients).
    pub fn corrupt_signature(mut self, yes: bool) -> ResponseBuilder {
        self.corrupt = yes;
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
        let p = self.prepare(responder, key.public_key())?;
        let signature = sig::sign(key, &p.scheme, &p.tbs)?;
        p.finish(signature, responder, extra)
    }

    /// [`ResponseBuilder::sign`] with the RSA operation run by `engine`, which batches
    /// the operations of the threads that call it at once (a responder's connections).
    pub fn sign_on(
        self,
        engine: &Engine,
        responder: &Certificate,
        key: &Arc<RsaPrivateKey>,
        extra: &[Certificate],
    ) -> Result<Vec<u8>> {
        let p = self.prepare(responder, key.public_key())?;
        let signature = sig::sign_on(engine, key, &p.scheme, &p.tbs)?;
        p.finish(signature, responder, extra)
    }

    /// [`ResponseBuilder::sign`] for each of `builders`, their RSA operations in one
    /// [`private_batch`](cryptocard::rsa::private_batch) on the calling thread (the IFMA
    /// unit's eight lanes filled where the CPU has it), as a responder draining a queue
    /// would. Each response fails alone.
    pub fn sign_batch(
        builders: Vec<ResponseBuilder>,
        responder: &Certificate,
        key: &RsaPrivateKey,
        extra: &[Certificate],
    ) -> Vec<Result<Vec<u8>>> {
        let prepared: Vec<Result<(Prepared, PrivateRequest)>> = builders
            .into_iter()
            .map(|b| {
                let p = b.prepare(responder, key.public_key())?;
                let digest = Hasher::digest(p.scheme.hash(), &p.tbs).as_bytes().to_vec();
                let request = sig::digest_request(&p.scheme, digest)?;
                Ok((p, request))
            })
            .collect();
        let pairs: Vec<_> =
            prepared.iter().filter_map(|p| p.as_ref().ok()).map(|(_, r)| (key, r)).collect();
        let mut signatures = cryptocard::rsa::private_batch(&pairs, &mut OsRng).into_iter();
        prepared
            .into_iter()
            .map(|p| {
                let (p, _) = p?;
                let missing = cryptocard::Error::Internal("fewer signatures than requests");
                let signature = signatures.next().ok_or(Error::Crypto(missing))??;
                p.finish(signature, responder, extra)
            })
            .collect()
    }

    /// The response data, encoded, and the scheme made concrete for `public` (the
    /// responder's key, which must be its certificate's).
    fn prepare(self, responder: &Certificate, public: &RsaPublicKey) -> Result<Prepared> {
        let spki = responder.tbs_certificate().subject_public_key_info();
        if &sig::spki_of(public)? != spki {
            return Err(Error::NoMatch(
                "the responder key is not the responder certificate's".into(),
            ));
        }
        let time = |t: SystemTime| {
            GeneralizedTime::from_system_time(t)
                .map_err(|_| Error::Malformed("a time GeneralizedTime cannot hold".into()))
        };
        let mut responses = Vec::with_capacity(self.answers.len());
        for (id, status, extensions) in self.answers {
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
                single_extensions: (!extensions.is_empty()).then_some(extensions),
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
        Ok(Prepared {
            tbs: data.to_der()?,
            scheme: self.scheme.for_key(public)?,
            include_certs: self.include_certs,
            corrupt: self.corrupt,
        })
    }
}

/// A response whose data waits for its signature.
struct Prepared {
    tbs: Vec<u8>,
    scheme: SigScheme,
    include_certs: bool,
    corrupt: bool,
}

impl Prepared {
    /// The DER `OCSPResponse` with `signature` over the data, the responder's certificate
    /// and `extra` carried unless left out.
    fn finish(
        self,
        mut signature: Vec<u8>,
        responder: &Certificate,
        extra: &[Certificate],
    ) -> Result<Vec<u8>> {
        if let Some(last) = signature.last_mut().filter(|_| self.corrupt) {
            *last ^= 1;
        }
        let certs = self.include_certs.then(|| {
            let mut all = vec![responder.clone()];
            all.extend(extra.iter().cloned());
            all
        });
        let basic = BasicOcspResponse {
            tbs_response_data: Any::from_der(&self.tbs)?,
            signature_algorithm: self.scheme.algorithm_identifier()?,
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
