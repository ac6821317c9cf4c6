//! Time-stamp requests (RFC 3161 section 2.4.1): the hash of the data, the policy asked
//! for, a nonce to match the answer by, and whether the TSA's certificate should come
//! with it.

use super::asn1::{MessageImprint, TimeStampReq, positive, small};
use crate::sig::hash_id;
use crate::{Error, Result};
use const_oid::ObjectIdentifier;
use cryptocard::digest::HashAlg;
use cryptocard::rng::{OsRng, RandomSource};
use der::asn1::{Int, OctetString};
use der::{Decode, Encode};
use x509_cert::ext::Extension;

/// The nonce's length: 64 bits, as OpenSSL's `ts -query` makes it.
const NONCE_BYTES: usize = 8;

/// What a request asks for besides the hash.
#[derive(Clone, Debug)]
pub struct QueryOptions {
    /// The policy under which the token is asked for (`-tspolicy`), if any.
    pub policy: Option<ObjectIdentifier>,
    /// A random nonce (`-no_nonce` clears it), which the token must echo.
    pub nonce: bool,
    /// Ask for the TSA's certificate in the token (`-cert`).
    pub cert_req: bool,
}

impl Default for QueryOptions {
    fn default() -> QueryOptions {
        QueryOptions { policy: None, nonce: true, cert_req: false }
    }
}

/// A request (DER) to time-stamp the data whose `hash` is `digest`.
pub fn query(hash: HashAlg, digest: &[u8], opts: &QueryOptions) -> Result<Vec<u8>> {
    if digest.len() != hash.output_len() {
        return Err(Error::Malformed(format!(
            "bad digest, {} bytes must be specified",
            hash.output_len()
        )));
    }
    let nonce = match opts.nonce {
        false => None,
        true => Some(random_nonce()?),
    };
    let req = TimeStampReq {
        version: Int::new(&[1])?,
        message_imprint: MessageImprint {
            hash_algorithm: hash_id(hash)?,
            hashed_message: OctetString::new(digest)?,
        },
        req_policy: opts.policy,
        nonce,
        cert_req: opts.cert_req,
        extensions: None,
    };
    Ok(req.to_der()?)
}

/// 64 random bits with a non-zero first byte, as an INTEGER.
fn random_nonce() -> Result<Int> {
    let mut n = [0u8; NONCE_BYTES];
    while n[0] == 0 {
        OsRng.fill_bytes(&mut n).map_err(Error::Crypto)?;
    }
    Ok(positive(&n)?)
}

/// A request, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub(crate) req: TimeStampReq,
}

impl Request {
    /// Reads a request (DER).
    pub fn parse(der: &[u8]) -> Result<Request> {
        Ok(Request { req: TimeStampReq::from_der(der)? })
    }

    /// Its version (1 for RFC 3161), `None` where it does not fit.
    pub fn version(&self) -> Option<i64> {
        small(&self.req.version)
    }

    /// The hash algorithm's OID.
    pub fn hash_oid(&self) -> ObjectIdentifier {
        self.req.message_imprint.hash_algorithm.oid
    }

    /// The hash of the data.
    pub fn digest(&self) -> &[u8] {
        self.req.message_imprint.hashed_message.as_bytes()
    }

    /// The policy asked for, if any.
    pub fn policy(&self) -> Option<ObjectIdentifier> {
        self.req.req_policy
    }

    /// The nonce's INTEGER contents, if any.
    pub fn nonce(&self) -> Option<&[u8]> {
        self.req.nonce.as_ref().map(|n| n.as_bytes())
    }

    /// Whether the TSA's certificate is asked for.
    pub fn cert_req(&self) -> bool {
        self.req.cert_req
    }

    /// The request's extensions.
    pub fn extensions(&self) -> &[Extension] {
        self.req.extensions.as_deref().unwrap_or_default()
    }
}
