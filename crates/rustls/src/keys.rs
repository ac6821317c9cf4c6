//! The key provider: an RSA private key (PKCS#1 `RSAPrivateKey`, RFC 8017 appendix A.1.2,
//! or PKCS#8 `PrivateKeyInfo` with `rsaEncryption`, RFC 5208) becomes a cryptocard
//! [`RsaSigningKey`] that signs on the provider's engine; every other key (SEC 1 and
//! PKCS#8 EC keys, Ed25519) goes to the base provider's key provider.

use crate::dispatch::Wait;
use crate::sign::RsaSigningKey;
use cryptocard::engine::Engine;
use cryptocard::rsa::pkcs8;
use cryptocard::rsa::{Backend, RsaPrivateKey};
use pkcs8::der::Decode;
use rustls::Error;
use rustls::crypto::KeyProvider;
use rustls::pki_types::PrivateKeyDer;
use rustls::sign::SigningKey;
use std::fmt;
use std::sync::Arc;

/// rsaEncryption (RFC 8017 appendix A.1).
const RSA_ENCRYPTION: pkcs8::ObjectIdentifier =
    pkcs8::ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");

/// The RSA key sizes served, as rustls's own providers and the WebPKI verifiers accept
/// them (a client rejects a shorter key's certificate anyway).
pub const MIN_BITS: usize = 2048;
/// See [`MIN_BITS`].
pub const MAX_BITS: usize = 8192;

/// cryptocard's [`KeyProvider`]: RSA keys sign on `engine`, other keys are `base`'s.
pub struct CryptocardKeys {
    engine: Arc<Engine>,
    base: Option<&'static dyn KeyProvider>,
    backend: Option<Backend>,
    wait: Wait,
}

impl CryptocardKeys {
    /// RSA keys on `engine`; any other key is loaded by `base` (for a server that holds
    /// an ECDSA certificate beside its RSA one).
    pub fn new(engine: Arc<Engine>, base: &'static dyn KeyProvider) -> CryptocardKeys {
        CryptocardKeys { engine, base: Some(base), backend: None, wait: Wait::default() }
    }

    /// RSA keys only: any other key is refused with an error that says so.
    pub fn rsa_only(engine: Arc<Engine>) -> CryptocardKeys {
        CryptocardKeys { engine, base: None, backend: None, wait: Wait::default() }
    }

    /// Keys loaded from now on run their private operation on `backend` (the process
    /// default, `CRYPTOCARD_BACKEND`, when never set).
    pub fn with_backend(mut self, backend: Backend) -> CryptocardKeys {
        self.backend = Some(backend);
        self
    }

    /// How a signature asked on a multi-thread runtime's worker waits for its batch.
    pub fn with_wait(mut self, wait: Wait) -> CryptocardKeys {
        self.wait = wait;
        self
    }

    /// Loads an RSA key (PKCS#1, or PKCS#8 with `rsaEncryption`) as a cryptocard signing
    /// key, whatever the base provider would do with it.
    pub fn load_rsa(&self, der: &PrivateKeyDer<'_>) -> Result<RsaSigningKey, Error> {
        let parsed = match der {
            PrivateKeyDer::Pkcs1(k) => RsaPrivateKey::from_pkcs1_der(k.secret_pkcs1_der()),
            PrivateKeyDer::Pkcs8(k) => RsaPrivateKey::from_pkcs8_der(k.secret_pkcs8_der()),
            _ => return Err(general("the key is not an RSA key (PKCS#1 or PKCS#8)")),
        };
        let mut key = parsed.map_err(|e| general(&format!("the RSA private key: {e}")))?;
        let bits = key.bits();
        if !(MIN_BITS..=MAX_BITS).contains(&bits) {
            return Err(general(&format!(
                "RSA keys of {MIN_BITS} to {MAX_BITS} bits are served; this one has {bits}"
            )));
        }
        if let Some(backend) = self.backend {
            key = key.with_backend(backend).map_err(|e| general(&format!("backend: {e}")))?;
        }
        RsaSigningKey::new(Arc::new(key), self.engine.clone(), self.wait)
    }
}

/// Whether `der` holds an RSA key: PKCS#1 always, PKCS#8 when its algorithm is
/// `rsaEncryption`. A PKCS#8 envelope that does not parse is an error of its own.
fn is_rsa(der: &PrivateKeyDer<'_>) -> Result<bool, Error> {
    match der {
        PrivateKeyDer::Pkcs1(_) => Ok(true),
        PrivateKeyDer::Pkcs8(k) => pkcs8::PrivateKeyInfoRef::from_der(k.secret_pkcs8_der())
            .map(|info| info.algorithm.oid == RSA_ENCRYPTION)
            .map_err(|_| general("the PKCS#8 private key does not parse (DER)")),
        _ => Ok(false),
    }
}

/// A rustls error with our prefix, so that a server's log says whose message it is.
pub(crate) fn general(why: &str) -> Error {
    Error::General(format!("cryptocard: {why}"))
}

impl KeyProvider for CryptocardKeys {
    fn load_private_key(
        &self,
        key_der: PrivateKeyDer<'static>,
    ) -> Result<Arc<dyn SigningKey>, Error> {
        if is_rsa(&key_der)? {
            return Ok(Arc::new(self.load_rsa(&key_der)?));
        }
        match self.base {
            Some(base) => base.load_private_key(key_der),
            None => Err(general("only RSA keys are loaded by this provider")),
        }
    }

    fn fips(&self) -> bool {
        false
    }
}

impl fmt::Debug for CryptocardKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CryptocardKeys")
            .field("backend", &self.backend)
            .field("wait", &self.wait)
            .field("other keys", &self.base.map(|_| "base provider"))
            .finish_non_exhaustive()
    }
}
