//! The ASN.1 of OCSP (RFC 6960 section 4 and appendix B.1, an EXPLICIT-tagged module):
//! requests, responses, and the basic response type that carries the statuses.

use der::asn1::{Any, BitString, GeneralizedTime, Null, ObjectIdentifier, OctetString};
use der::{Choice, Enumerated, Sequence};
use spki::AlgorithmIdentifierOwned;
use x509_cert::Certificate;
use x509_cert::Version;
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::CrlReason;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;

/// id-pkix-ocsp-basic (RFC 6960 4.2.1): the response type every responder sends.
pub const ID_PKIX_OCSP_BASIC: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.48.1.1");

/// id-pkix-ocsp-nonce (RFC 6960 4.4.1).
pub const ID_PKIX_OCSP_NONCE: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.48.1.2");

/// A certificate named by its issuer and serial (RFC 6960 4.1.1): hashes of the issuer's
/// name and of its public key (the BIT STRING's value), and the serial number.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub struct CertId {
    /// The hash of both hashes.
    pub hash_algorithm: AlgorithmIdentifierOwned,
    /// The hash of the issuer's distinguished name (DER).
    pub issuer_name_hash: OctetString,
    /// The hash of the issuer's public key.
    pub issuer_key_hash: OctetString,
    /// The certificate's serial number.
    pub serial_number: SerialNumber,
}

/// `OCSPRequest`.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct OcspRequest {
    pub tbs_request: TbsRequest,
    #[asn1(context_specific = "0", optional = "true")]
    pub optional_signature: Option<Any>,
}

/// `TBSRequest`.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct TbsRequest {
    #[asn1(context_specific = "0", default = "Default::default")]
    pub version: Version,
    #[asn1(context_specific = "1", optional = "true")]
    pub requestor_name: Option<GeneralName>,
    pub request_list: Vec<Request>,
    #[asn1(context_specific = "2", optional = "true")]
    pub request_extensions: Option<Vec<Extension>>,
}

/// `Signature`: a signed request's signature over its `TBSRequest`, and certificates that
/// help to check it (RFC 6960 4.1.1).
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct Signature {
    pub signature_algorithm: AlgorithmIdentifierOwned,
    pub signature: BitString,
    #[asn1(context_specific = "0", optional = "true")]
    pub certs: Option<Vec<Certificate>>,
}

/// `Request`: one certificate asked about.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct Request {
    pub req_cert: CertId,
    #[asn1(context_specific = "0", optional = "true")]
    pub single_request_extensions: Option<Vec<Extension>>,
}

/// `OCSPResponseStatus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Enumerated)]
#[repr(u32)]
pub enum ResponseStatus {
    /// The response has valid confirmations.
    Successful = 0,
    /// The request was not understood.
    MalformedRequest = 1,
    /// The responder failed.
    InternalError = 2,
    /// Try again later.
    TryLater = 3,
    /// The request must be signed.
    SigRequired = 5,
    /// The responder will not answer this client about these certificates.
    Unauthorized = 6,
}

/// `OCSPResponse`.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct OcspResponse {
    pub response_status: ResponseStatus,
    #[asn1(context_specific = "0", optional = "true")]
    pub response_bytes: Option<ResponseBytes>,
}

/// `ResponseBytes`.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct ResponseBytes {
    pub response_type: ObjectIdentifier,
    pub response: OctetString,
}

/// `BasicOCSPResponse`, its signed part kept as received (its signature is over those
/// bytes).
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct BasicOcspResponse {
    pub tbs_response_data: Any,
    pub signature_algorithm: AlgorithmIdentifierOwned,
    pub signature: BitString,
    #[asn1(context_specific = "0", optional = "true")]
    pub certs: Option<Vec<Certificate>>,
}

/// `ResponseData`.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct ResponseData {
    #[asn1(context_specific = "0", default = "Default::default")]
    pub version: Version,
    pub responder_id: ResponderId,
    pub produced_at: GeneralizedTime,
    pub responses: Vec<SingleResponse>,
    #[asn1(context_specific = "1", optional = "true")]
    pub response_extensions: Option<Vec<Extension>>,
}

/// `ResponderID`: the responder's name, or the SHA-1 hash of its public key.
#[derive(Clone, Debug, PartialEq, Eq, Choice)]
pub(crate) enum ResponderId {
    #[asn1(context_specific = "1", tag_mode = "EXPLICIT", constructed = "true")]
    ByName(Name),
    #[asn1(context_specific = "2", tag_mode = "EXPLICIT", constructed = "true")]
    ByKey(OctetString),
}

/// `SingleResponse`: one certificate's status.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct SingleResponse {
    pub cert_id: CertId,
    pub cert_status: CertStatus,
    pub this_update: GeneralizedTime,
    #[asn1(context_specific = "0", optional = "true")]
    pub next_update: Option<GeneralizedTime>,
    #[asn1(context_specific = "1", optional = "true")]
    pub single_extensions: Option<Vec<Extension>>,
}

/// `CertStatus`.
#[derive(Clone, Debug, PartialEq, Eq, Choice)]
pub(crate) enum CertStatus {
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT")]
    Good(Null),
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", constructed = "true")]
    Revoked(RevokedInfo),
    #[asn1(context_specific = "2", tag_mode = "IMPLICIT")]
    Unknown(Null),
}

/// `RevokedInfo`.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct RevokedInfo {
    pub revocation_time: GeneralizedTime,
    #[asn1(context_specific = "0", optional = "true")]
    pub revocation_reason: Option<CrlReason>,
}
