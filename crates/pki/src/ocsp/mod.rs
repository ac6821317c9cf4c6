//! OCSP, the Online Certificate Status Protocol (RFC 6960): what a TLS server staples and
//! a relying party asks a CA's responder instead of fetching its CRL.
//!
//! - [`CertId`] names a certificate by hashes of its issuer's name and key and its serial
//!   number (4.1.1); [`request`] makes a request for some of them, with a nonce (4.4.1),
//!   [`sign_request`] signs one as its requestor (4.1.2), and [`parse_request`] reads
//!   one.
//! - [`ResponseBuilder`] answers them as a responder: each certificate's status, signed
//!   with the responder's key (4.2.1, the basic response type), as `openssl ocsp -index`
//!   answers from a CA's database; [`error_response`] refuses a request.
//! - [`verify_response`] checks a response as OpenSSL's `OCSP_basic_verify` does: its
//!   signer found by the responder ID, its signature, the signer's path to a trust anchor
//!   for the purpose `ocsphelper`, and the signer's authority (4.2.2.2): the CA that
//!   issued the certificates asked about, or a certificate that CA issued for OCSP
//!   signing (id-kp-OCSPSigning); and returns the statuses. [`check_validity`] says
//!   whether a status is current (4.2.2.1).
//! - [`request_text`] and [`response_text`] print them as `openssl ocsp -req_text` and
//!   `-resp_text` do.
//!
//! The structures are those of RFC 6960's appendix B.1 (`asn1.rs`); every hash and
//! signature is cryptocard's.

mod asn1;
mod request;
mod response;
mod text;
mod verify;

pub use asn1::{CertId, ResponseStatus};
pub use request::{ParsedRequest, RequestSigner, parse_request, request, sign_request};
pub use response::{ResponseBuilder, error_response};
pub use text::{request_text, response_text};
pub use verify::{
    Relaxed, ResponseVerify, VerifiedResponse, check_validity, response_status, verify_response,
};

use std::time::SystemTime;
use x509_cert::ext::pkix::CrlReason;

/// A certificate's status as a responder gives it (RFC 6960 4.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Not revoked (as far as the responder knows).
    Good,
    /// Revoked at this time, for this reason if given.
    Revoked {
        /// When.
        at: SystemTime,
        /// Why, if said.
        reason: Option<CrlReason>,
    },
    /// The responder does not know the certificate.
    Unknown,
}

impl Status {
    /// OpenSSL's word for the status (`OCSP_cert_status_str`).
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Good => "good",
            Status::Revoked { .. } => "revoked",
            Status::Unknown => "unknown",
        }
    }
}

/// One certificate's answer in a response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SingleStatus {
    /// The certificate.
    pub id: CertId,
    /// Its status.
    pub status: Status,
    /// When the status was known to be right.
    pub this_update: SystemTime,
    /// When newer information will be available, if said.
    pub next_update: Option<SystemTime>,
}

/// OpenSSL's word for a revocation reason (`OCSP_crl_reason_str`).
pub fn reason_str(reason: CrlReason) -> &'static str {
    match reason {
        CrlReason::Unspecified => "unspecified",
        CrlReason::KeyCompromise => "keyCompromise",
        CrlReason::CaCompromise => "cACompromise",
        CrlReason::AffiliationChanged => "affiliationChanged",
        CrlReason::Superseded => "superseded",
        CrlReason::CessationOfOperation => "cessationOfOperation",
        CrlReason::CertificateHold => "certificateHold",
        CrlReason::RemoveFromCRL => "removeFromCRL",
        CrlReason::PrivilegeWithdrawn => "privilegeWithdrawn",
        CrlReason::AaCompromise => "aACompromise",
    }
}
