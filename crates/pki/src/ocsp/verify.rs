//! Reading and checking OCSP responses (RFC 6960 4.2.2.2, 3.2), in the steps of
//! OpenSSL 3.0's `OCSP_basic_verify`:
//!
//! 1. the signer: the certificate the responder ID names (by subject, or by the SHA-1
//!    hash of its key), among the caller's certificates first, then the response's;
//! 2. the response's signature, by the signer's key;
//! 3. unless the signer came from the caller's certificates and those are trusted as
//!    responders (OpenSSL's `-VAfile`, `OCSP_TRUSTOTHER`): the signer's path to a trust
//!    anchor, for the purpose `ocsphelper`, through the caller's and the response's
//!    certificates;
//! 4. and the signer's authority: every answer is about certificates of one issuer, and
//!    the signer is that issuer, or is issued by it and holds id-kp-OCSPSigning (4.2.2.2's
//!    authorized responder).
//!
//! [`Relaxed`] leaves steps out as OpenSSL's `OCSP_basic_verify` flags do. A response
//! whose status is not `successful` carries no answers: [`response_status`] says which
//! it is. [`check_validity`] says whether an answer's times are current, as
//! `OCSP_check_validity` does.

use super::asn1::{
    BasicOcspResponse, CertStatus, ID_PKIX_OCSP_BASIC, ID_PKIX_OCSP_NONCE, OcspResponse,
    ResponderId, ResponseData, ResponseStatus,
};
use super::{SingleStatus, Status};
use crate::cert::{PathBudget, PathChecks, Purpose, TrustStore, key_id};
use crate::sig::{self, SigScheme};
use crate::{Error, Result};
use const_oid::db::rfc5280::ID_KP_OCSP_SIGNING;
use der::{Decode, Encode};
use std::time::{Duration, SystemTime};
use x509_cert::Certificate;
use x509_cert::ext::pkix::ExtendedKeyUsage;

/// What a response is checked against.
#[derive(Clone, Debug)]
pub struct ResponseVerify {
    /// The trust anchors (`-CAfile`).
    pub trusted: Vec<Certificate>,
    /// Any trusted certificate ends a path, not only self-signed ones (`-partial_chain`).
    pub partial_chain: bool,
    /// More certificates to find the signer and its issuers among (`-verify_other`).
    pub untrusted: Vec<Certificate>,
    /// The signer, if among `untrusted`, is trusted as it is (`-VAfile`).
    pub trust_untrusted: bool,
    /// The time at which the signer's path must be valid.
    pub at: SystemTime,
    /// Read the answers without checking anything (`-noverify`).
    pub no_verify: bool,
    /// Steps left out.
    pub relaxed: Relaxed,
}

/// Steps of the check left out, each as the `OCSP_basic_verify` flag of its name (and
/// the `openssl ocsp` option in brackets) leaves it out. The default leaves none out.
///
/// OpenSSL's `OCSP_NOEXPLICIT` has no counterpart: it skips a last chance for a signer
/// whose authority fails, a root with OpenSSL's auxiliary trust for OCSP signing, and no
/// certificate here carries auxiliary trust, so that chance never comes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Relaxed {
    /// `OCSP_NOINTERN` (`-no_intern`): the signer is not looked for among the response's
    /// certificates, only the caller's.
    pub no_intern: bool,
    /// `OCSP_NOSIGS` (`-no_signature_verify`): the signature is not checked.
    pub no_signature: bool,
    /// `OCSP_NOVERIFY` (`-no_cert_verify`): neither the signer's path nor its authority
    /// is checked.
    pub no_path: bool,
    /// `OCSP_NOCHAIN` (`-no_chain`): the path goes from the signer straight to the trust
    /// anchors, through none of the response's or the caller's other certificates.
    pub no_chain: bool,
    /// `OCSP_NOCHECKS` (`-no_cert_checks`): the signer's authority over the answers is
    /// not checked, only its path.
    pub no_authority: bool,
}

/// What a response says.
#[derive(Clone, Debug)]
pub struct VerifiedResponse {
    /// The answers, in order.
    pub statuses: Vec<SingleStatus>,
    /// The nonce extension's value, if any.
    pub nonce: Option<Vec<u8>>,
    /// When the response was signed.
    pub produced_at: SystemTime,
}

impl ResponseStatus {
    /// OpenSSL's word for the status (`OCSP_response_status_str`).
    pub fn as_str(self) -> &'static str {
        match self {
            ResponseStatus::Successful => "successful",
            ResponseStatus::MalformedRequest => "malformedrequest",
            ResponseStatus::InternalError => "internalerror",
            ResponseStatus::TryLater => "trylater",
            ResponseStatus::SigRequired => "sigrequired",
            ResponseStatus::Unauthorized => "unauthorized",
        }
    }
}

/// The status of a DER `OCSPResponse`.
pub fn response_status(der: &[u8]) -> Result<ResponseStatus> {
    Ok(OcspResponse::from_der(der)?.response_status)
}

/// Reads a successful DER `OCSPResponse` and checks it as `opts` says (see the module
/// docs); its answers.
pub fn verify_response(der: &[u8], opts: &ResponseVerify) -> Result<VerifiedResponse> {
    let response = OcspResponse::from_der(der)?;
    if response.response_status != ResponseStatus::Successful {
        return Err(Error::Verify(format!(
            "responder error: {}",
            response.response_status.as_str()
        )));
    }
    let bytes = response
        .response_bytes
        .ok_or_else(|| Error::Malformed("a successful response without its bytes".into()))?;
    if bytes.response_type != ID_PKIX_OCSP_BASIC {
        return Err(Error::Unsupported(format!("response type {}", bytes.response_type)));
    }
    let basic = BasicOcspResponse::from_der(bytes.response.as_bytes())?;
    let tbs = basic.tbs_response_data.to_der()?;
    let data = ResponseData::from_der(&tbs)?;
    let answers = answers(&data)?;
    if !opts.no_verify {
        let carried = basic.certs.clone().unwrap_or_default();
        let relaxed = opts.relaxed;
        let searched: &[Certificate] = if relaxed.no_intern { &[] } else { &carried };
        let (signer, from_caller) = find_signer(&data.responder_id, &opts.untrusted, searched)?;
        if !relaxed.no_signature {
            let scheme = SigScheme::from_algorithm_identifier(&basic.signature_algorithm)?;
            let spki = signer.tbs_certificate().subject_public_key_info();
            let key = sig::public_key_from_spki(spki)?;
            let signature = basic.signature.as_bytes().ok_or_else(|| {
                Error::Malformed("signature is not a whole number of bytes".into())
            })?;
            sig::verify(&key, &scheme, &tbs, signature)
                .map_err(|_| Error::Verify("signature failure".into()))?;
        }
        if !(relaxed.no_path || from_caller && opts.trust_untrusted) {
            let mut pool = Vec::new();
            if !relaxed.no_chain {
                pool.extend(opts.untrusted.iter().cloned());
                pool.extend(carried.iter().cloned());
            }
            let store = TrustStore::new(opts.trusted.clone(), opts.partial_chain);
            let checks = PathChecks::new(opts.at, Purpose::OcspHelper);
            let path = store
                .verify_report(signer, &pool, &checks, &mut PathBudget::new())?
                .into_result()
                .map_err(|e| Error::Verify(format!("Verify error: {e}")))?;
            if !relaxed.no_authority {
                check_authority(&answers, &path)?;
            }
        }
    }
    let nonce = data
        .response_extensions
        .iter()
        .flatten()
        .find(|e| e.extn_id == ID_PKIX_OCSP_NONCE)
        .map(|e| e.extn_value.as_bytes().to_vec());
    Ok(VerifiedResponse {
        statuses: answers,
        nonce,
        produced_at: data.produced_at.to_system_time(),
    })
}

/// The answers of the response data.
fn answers(data: &ResponseData) -> Result<Vec<SingleStatus>> {
    Ok(data
        .responses
        .iter()
        .map(|r| SingleStatus {
            id: r.cert_id.clone(),
            status: match &r.cert_status {
                CertStatus::Good(_) => Status::Good,
                CertStatus::Unknown(_) => Status::Unknown,
                CertStatus::Revoked(info) => Status::Revoked {
                    at: info.revocation_time.to_system_time(),
                    reason: info.revocation_reason,
                },
            },
            this_update: r.this_update.to_system_time(),
            next_update: r.next_update.map(|t| t.to_system_time()),
        })
        .collect())
}

/// The certificate the responder ID names, and whether it came from the caller's.
fn find_signer<'a>(
    id: &ResponderId,
    callers: &'a [Certificate],
    carried: &'a [Certificate],
) -> Result<(&'a Certificate, bool)> {
    let names = |c: &Certificate| match id {
        ResponderId::ByName(name) => c.tbs_certificate().subject() == name,
        ResponderId::ByKey(hash) => key_id(c.tbs_certificate().subject_public_key_info())
            .is_ok_and(|k| k.as_slice() == hash.as_bytes()),
    };
    if let Some(c) = callers.iter().find(|c| names(c)) {
        return Ok((c, true));
    }
    carried
        .iter()
        .find(|c| names(c))
        .map(|c| (c, false))
        .ok_or_else(|| Error::Verify("signer certificate not found".into()))
}

/// The signer (first of `path`) may answer for the certificates of `answers`: they have
/// one issuer, and the signer is it, or its issuer is (`path[1]`) and it holds
/// id-kp-OCSPSigning.
fn check_authority(answers: &[SingleStatus], path: &[Certificate]) -> Result<()> {
    let Some(first) = answers.first() else {
        return Err(Error::Verify("response contains no revocation data".into()));
    };
    let one_issuer = answers.iter().all(|a| {
        a.id.hash_algorithm == first.id.hash_algorithm
            && a.id.issuer_name_hash == first.id.issuer_name_hash
            && a.id.issuer_key_hash == first.id.issuer_key_hash
    });
    if !one_issuer {
        return Err(Error::Verify("root ca not trusted".into()));
    }
    let signer = &path[0];
    if path.get(1).is_some_and(|ca| first.id.issued_by(ca)) {
        let delegated = signer
            .tbs_certificate()
            .get_extension::<ExtendedKeyUsage>()
            .ok()
            .flatten()
            .is_some_and(|(_, eku)| eku.0.contains(&ID_KP_OCSP_SIGNING));
        return match delegated {
            true => Ok(()),
            false => Err(Error::Verify("missing ocspsigning usage".into())),
        };
    }
    if first.id.issued_by(signer) {
        return Ok(());
    }
    Err(Error::Verify("root ca not trusted".into()))
}

/// Why an answer's times are not current, as OpenSSL's `OCSP_check_validity` says it:
/// thisUpdate more than `slack` ahead of `now` ("status not yet valid") or, with
/// `max_age`, further than that behind ("status too old"); nextUpdate more than `slack`
/// behind ("status expired") or before thisUpdate ("nextupdate before thisupdate"). None
/// when the times are current. OpenSSL's slack is five minutes (`-validity_period`), its
/// `max_age` none (`-status_age`).
pub fn check_validity(
    answer: &SingleStatus,
    now: SystemTime,
    slack: Duration,
    max_age: Option<Duration>,
) -> Vec<&'static str> {
    let mut why = Vec::new();
    if now.checked_add(slack).is_some_and(|t| answer.this_update > t) {
        why.push("status not yet valid");
    }
    if max_age.is_some_and(|age| now.checked_sub(age).is_some_and(|t| answer.this_update < t)) {
        why.push("status too old");
    }
    if let Some(next) = answer.next_update {
        if now.checked_sub(slack).is_some_and(|t| next < t) {
            why.push("status expired");
        }
        if next < answer.this_update {
            why.push("nextupdate before thisupdate");
        }
    }
    why
}
