//! rustls's [`SigningKey`] and [`Signer`] on a cryptocard RSA key: RSASSA-PSS (RFC 8017
//! section 8.1, salt as long as the hash, as RFC 8446 section 4.2.3 requires) and
//! RSASSA-PKCS1-v1_5 (section 8.2), with SHA-256, SHA-384 or SHA-512.

use crate::dispatch::{self, Wait};
use crate::keys::general;
use cryptocard::digest::HashAlg;
use cryptocard::engine::Engine;
use cryptocard::rsa::{PrivateRequest, Pss, RsaPrivateKey};
use rustls::pki_types::SubjectPublicKeyInfoDer;
use rustls::sign::{Signer, SigningKey};
use rustls::{Error, SignatureAlgorithm, SignatureScheme};
use std::fmt;
use std::sync::Arc;

/// The padding of a scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Padding {
    Pss,
    Pkcs1,
}

/// The schemes, in rustls's own order of preference (its aws-lc-rs and ring RSA keys
/// take the first one the peer offers): PSS before PKCS#1 v1.5, longer hashes first.
const SCHEMES: [(SignatureScheme, Padding, HashAlg); 6] = [
    (SignatureScheme::RSA_PSS_SHA512, Padding::Pss, HashAlg::Sha512),
    (SignatureScheme::RSA_PSS_SHA384, Padding::Pss, HashAlg::Sha384),
    (SignatureScheme::RSA_PSS_SHA256, Padding::Pss, HashAlg::Sha256),
    (SignatureScheme::RSA_PKCS1_SHA512, Padding::Pkcs1, HashAlg::Sha512),
    (SignatureScheme::RSA_PKCS1_SHA384, Padding::Pkcs1, HashAlg::Sha384),
    (SignatureScheme::RSA_PKCS1_SHA256, Padding::Pkcs1, HashAlg::Sha256),
];

/// The key, its engine and its public key, shared by the key and its signers.
struct Held {
    key: Arc<RsaPrivateKey>,
    engine: Arc<Engine>,
    wait: Wait,
    /// Whether the key's backend runs lane batches (IFMA, GPU): only then does a
    /// signature go through the engine.
    batches: bool,
    spki: Vec<u8>,
}

/// An RSA private key that signs TLS handshakes on a cryptocard [`Engine`].
#[derive(Clone)]
pub struct RsaSigningKey {
    held: Arc<Held>,
}

impl RsaSigningKey {
    /// `key`, signing on `engine`; `wait` says how a signature waits for its batch.
    pub fn new(key: Arc<RsaPrivateKey>, engine: Arc<Engine>, wait: Wait) -> Result<Self, Error> {
        let spki = key
            .public_key()
            .to_public_key_der()
            .map_err(|e| general(&format!("the RSA public key: {e}")))?;
        let batches = key.batch_class().is_lane_batched();
        Ok(RsaSigningKey { held: Arc::new(Held { key, engine, wait, batches, spki }) })
    }

    /// The key.
    pub fn key(&self) -> &Arc<RsaPrivateKey> {
        &self.held.key
    }
}

impl SigningKey for RsaSigningKey {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        let &(scheme, padding, hash) = SCHEMES.iter().find(|(s, _, _)| offered.contains(s))?;
        Some(Box::new(RsaSigner { held: self.held.clone(), scheme, padding, hash }))
    }

    fn public_key(&self) -> Option<SubjectPublicKeyInfoDer<'_>> {
        Some(SubjectPublicKeyInfoDer::from(self.held.spki.as_slice()))
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        SignatureAlgorithm::RSA
    }
}

/// One handshake's signer: the key and the scheme chosen for this peer.
struct RsaSigner {
    held: Arc<Held>,
    scheme: SignatureScheme,
    padding: Padding,
    hash: HashAlg,
}

impl Signer for RsaSigner {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        let msg = message.to_vec();
        let req = match self.padding {
            Padding::Pss => PrivateRequest::SignPss { params: Pss::new(self.hash), msg },
            Padding::Pkcs1 => PrivateRequest::SignPkcs1v15 { hash: self.hash, msg },
        };
        let held = &*self.held;
        dispatch::sign(&held.engine, &held.key, req, held.wait, held.batches)
            .map_err(|e| general(&format!("signing failed: {e}")))
    }

    fn scheme(&self) -> SignatureScheme {
        self.scheme
    }
}

impl fmt::Debug for RsaSigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaSigningKey").field("bits", &self.held.key.bits()).finish_non_exhaustive()
    }
}

impl fmt::Debug for RsaSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaSigner")
            .field("bits", &self.held.key.bits())
            .field("scheme", &self.scheme)
            .finish_non_exhaustive()
    }
}
