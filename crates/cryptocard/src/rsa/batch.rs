//! Batches of private-key operations: the interface between the RSA schemes and whatever
//! runs many private operations at once (the 8-lane AVX-512 IFMA kernels, the engine).
//!
//! A [`PrivateRequest`] names one whole operation as a caller sees it (sign this message
//! with PKCS#1 v1.5, decrypt this OAEP ciphertext, ...). [`private_batch`] runs a slice of
//! them, possibly with different keys, and returns one result per request, in order.
//! Each result is exactly what the single-operation method would return for the same
//! request: the same bytes for deterministic schemes (PKCS#1 v1.5 signatures, every
//! decryption), a signature that verifies for PSS (whose salt is random). A request that
//! fails (a message too long, a bad ciphertext, a fault) fails alone.
//!
//! Requests own their data, so they can be queued and moved between threads.

use super::{Oaep, Pss, RsaPrivateKey};
use crate::Result;
use crate::digest::HashAlg;
use crate::rng::RandomSource;

/// One private-key operation, with its scheme and its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrivateRequest {
    /// [`RsaPrivateKey::sign_pkcs1v15`]: hash `msg` and sign it (RSASSA-PKCS1-v1_5).
    SignPkcs1v15 {
        /// The digest to hash the message with.
        hash: HashAlg,
        /// The message.
        msg: Vec<u8>,
    },
    /// [`RsaPrivateKey::sign_pkcs1v15_prehashed`]: sign a digest computed by the caller.
    SignPkcs1v15Prehashed {
        /// The digest algorithm that produced `digest`.
        hash: HashAlg,
        /// The digest.
        digest: Vec<u8>,
    },
    /// [`RsaPrivateKey::sign_pkcs1v15_raw`]: PKCS#1 v1.5 type-1 padding of `data`, no
    /// DigestInfo.
    SignPkcs1v15Raw {
        /// The bytes to pad and sign.
        data: Vec<u8>,
    },
    /// [`RsaPrivateKey::sign_pss`]: hash `msg` and sign it (RSASSA-PSS).
    SignPss {
        /// The PSS parameters.
        params: Pss,
        /// The message.
        msg: Vec<u8>,
    },
    /// [`RsaPrivateKey::sign_pss_prehashed`]: sign a digest computed by the caller.
    SignPssPrehashed {
        /// The PSS parameters.
        params: Pss,
        /// The digest.
        digest: Vec<u8>,
    },
    /// [`RsaPrivateKey::decrypt_oaep`] (RSAES-OAEP).
    DecryptOaep {
        /// The OAEP parameters.
        params: Oaep,
        /// The ciphertext.
        ciphertext: Vec<u8>,
    },
    /// [`RsaPrivateKey::decrypt_pkcs1v15`]: RSAES-PKCS1-v1_5 with implicit rejection.
    DecryptPkcs1v15 {
        /// The ciphertext.
        ciphertext: Vec<u8>,
    },
    /// [`RsaPrivateKey::decrypt_pkcs1v15_explicit`]: RSAES-PKCS1-v1_5 reporting bad
    /// padding as [`crate::Error::Decryption`].
    DecryptPkcs1v15Explicit {
        /// The ciphertext.
        ciphertext: Vec<u8>,
    },
    /// [`RsaPrivateKey::raw_private`]: RSADP/RSASP1 on exactly k bytes, no padding.
    RawPrivate {
        /// The k-byte input.
        input: Vec<u8>,
    },
}

impl PrivateRequest {
    /// Runs the request alone, with the single-operation method it names.
    pub fn run(&self, key: &RsaPrivateKey, rng: &mut dyn RandomSource) -> Result<Vec<u8>> {
        match self {
            PrivateRequest::SignPkcs1v15 { hash, msg } => key.sign_pkcs1v15(*hash, msg, rng),
            PrivateRequest::SignPkcs1v15Prehashed { hash, digest } => {
                key.sign_pkcs1v15_prehashed(*hash, digest, rng)
            }
            PrivateRequest::SignPkcs1v15Raw { data } => key.sign_pkcs1v15_raw(data, rng),
            PrivateRequest::SignPss { params, msg } => key.sign_pss(params, msg, rng),
            PrivateRequest::SignPssPrehashed { params, digest } => {
                key.sign_pss_prehashed(params, digest, rng)
            }
            PrivateRequest::DecryptOaep { params, ciphertext } => {
                key.decrypt_oaep(params, ciphertext, rng)
            }
            PrivateRequest::DecryptPkcs1v15 { ciphertext } => key.decrypt_pkcs1v15(ciphertext, rng),
            PrivateRequest::DecryptPkcs1v15Explicit { ciphertext } => {
                key.decrypt_pkcs1v15_explicit(ciphertext, rng)
            }
            PrivateRequest::RawPrivate { input } => key.raw_private(input, rng),
        }
    }
}

/// Runs every request with its key and returns one result per request, in order; each
/// equals what [`PrivateRequest::run`] would return alone (see the module docs).
///
/// This first implementation runs the requests one after another; the IFMA batch path
/// replaces it without changing the contract.
pub fn private_batch(
    requests: &[(&RsaPrivateKey, &PrivateRequest)],
    rng: &mut dyn RandomSource,
) -> Vec<Result<Vec<u8>>> {
    requests.iter().map(|(key, req)| req.run(key, rng)).collect()
}
