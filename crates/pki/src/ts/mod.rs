//! Time-stamping (RFC 3161): a trusted third party's signed statement that some data (by
//! its hash) existed at a time, for documents and code signatures that must outlive their
//! signers' certificates. The time-stamping authority's token is a SignedData whose
//! content is a TSTInfo; `openssl ts` makes and checks them, and so does this module:
//!
//! - [`query`] makes a request (section 2.4.1) and [`Request`] reads one.
//! - [`Tsa`] answers requests as OpenSSL's TSA does (section 2.4.2), from the settings of
//!   an `openssl.cnf` TSA section; a request it will not serve gets a rejection with a
//!   failure bit, not an error.
//! - [`Response`] reads a response or a bare token; [`request_text`] and
//!   [`Response::text`] print them as `openssl ts -text` does.
//! - [`verify`] checks a response or token as OpenSSL's `TS_RESP_verify_response` does:
//!   the status granted, one signer whose path to a trust anchor is for time stamping
//!   (section 2.3) and whose certificate the ESS signing-certificate attribute names,
//!   the signature, and the imprint, nonce and policy against the request or data.
//!
//! The structures are in `asn1.rs`; the signature is cryptocard's CMS (`crate::cms`).

mod asn1;
mod ess;
mod reply;
mod request;
mod response;
mod text;
mod verify;

pub use reply::{Accuracy, MAX_CLOCK_PRECISION_DIGITS, Reply, Tsa};
pub use request::{QueryOptions, Request, query};
pub use response::Response;
pub use text::request_text;
pub use verify::{Expect, verify};

use const_oid::ObjectIdentifier;

/// id-ct-TSTInfo (RFC 3161 section 2.4.2): the content type of a token's SignedData.
pub const ID_CT_TST_INFO: ObjectIdentifier = const_oid::db::rfc3161::ID_CT_TST_INFO;

/// Why a request was refused: the bits of PKIFailureInfo (RFC 3161 section 2.4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// An unrecognized or unsupported algorithm identifier.
    BadAlg = 0,
    /// A transaction not permitted or supported.
    BadRequest = 2,
    /// The data submitted has the wrong format.
    BadDataFormat = 5,
    /// The TSA's time source is not available.
    TimeNotAvailable = 14,
    /// The requested policy is not supported.
    UnacceptedPolicy = 15,
    /// The requested extension is not supported.
    UnacceptedExtension = 16,
    /// The additional information requested is not available.
    AddInfoNotAvailable = 17,
    /// The request cannot be handled due to system failure.
    SystemFailure = 25,
}

impl Failure {
    /// All of them, in bit order.
    pub const ALL: [Failure; 8] = [
        Failure::BadAlg,
        Failure::BadRequest,
        Failure::BadDataFormat,
        Failure::TimeNotAvailable,
        Failure::UnacceptedPolicy,
        Failure::UnacceptedExtension,
        Failure::AddInfoNotAvailable,
        Failure::SystemFailure,
    ];

    /// OpenSSL's text for it in `ts -text` (`TS_STATUS_INFO_print_bio`).
    pub fn text(self) -> &'static str {
        match self {
            Failure::BadAlg => "unrecognized or unsupported algorithm identifier",
            Failure::BadRequest => "transaction not permitted or supported",
            Failure::BadDataFormat => "the data submitted has the wrong format",
            Failure::TimeNotAvailable => "the TSA's time source is not available",
            Failure::UnacceptedPolicy => "the requested TSA policy is not supported by the TSA",
            Failure::UnacceptedExtension => "the requested extension is not supported by the TSA",
            Failure::AddInfoNotAvailable => {
                "the additional information requested could not be understood or is not available"
            }
            Failure::SystemFailure => "the request cannot be handled due to system failure",
        }
    }

    /// Its ASN.1 name, as OpenSSL's verifier reports it.
    pub fn name(self) -> &'static str {
        match self {
            Failure::BadAlg => "badAlg",
            Failure::BadRequest => "badRequest",
            Failure::BadDataFormat => "badDataFormat",
            Failure::TimeNotAvailable => "timeNotAvailable",
            Failure::UnacceptedPolicy => "unacceptedPolicy",
            Failure::UnacceptedExtension => "unacceptedExtension",
            Failure::AddInfoNotAvailable => "addInfoNotAvailable",
            Failure::SystemFailure => "systemFailure",
        }
    }
}
