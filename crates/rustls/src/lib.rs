//! cryptocard's RSA for [rustls]: the private-key operation of every TLS handshake with
//! an RSA certificate (the TLS 1.3 CertificateVerify, RFC 8446 section 4.4.3; the TLS 1.2
//! ServerKeyExchange, RFC 5246 section 7.4.3) runs on cryptocard, through one shared
//! [`Engine`], so that the signatures of concurrent handshakes batch into the
//! accelerator's lanes.
//!
//! This is the host-and-card split of the seed papers brought to a server: Shand, Bertin
//! and Vuillemin's PAM host kept the protocol and fed the boards RSA commands, pipelined
//! so that a board never waited; here rustls keeps the protocol (and aws-lc-rs its cipher
//! suites, key exchange and non-RSA keys), and the engine is the card.
//!
//! * [`provider`] is rustls's default provider (aws-lc-rs) with cryptocard's key provider
//!   and RSA verification; [`with_cryptocard`] puts them into any [`CryptoProvider`].
//! * [`CryptocardKeys`] (`keys`): RSA keys in PKCS#1 or PKCS#8 become cryptocard keys;
//!   any other key (ECDSA, Ed25519) goes to the base provider, so one server holds both.
//! * `sign`: the [`SigningKey`](rustls::sign::SigningKey) and
//!   [`Signer`](rustls::sign::Signer), RSA-PSS and PKCS#1 v1.5 with SHA-256/384/512,
//!   chosen from what the peer offers in rustls's own order of preference.
//! * `dispatch`: where a signature runs, given the thread it is asked on ([`Wait`]).
//! * `verify`: RSA signature verification for certificate chains and handshakes.
//! * [`cert`]: certificates signed with cryptocard keys (rcgen), for tests, the example
//!   server and `cryptocard speed --tls`.
//! * [`server`] (feature `server`): the HTTPS server that the example and the CLI run.
//!
//! # When signatures batch
//!
//! rustls asks for a signature synchronously ([`Signer::sign`](rustls::sign::Signer)
//! "is blocking rather than asynchronous"), on whatever thread drives the connection.
//! Batching pays only where the key's backend runs lane batches (AVX-512 IFMA, AVX2 lanes
//! on a CPU without IFMA, a GPU); a key on the scalar backend (`CRYPTOCARD_BACKEND=scalar`,
//! a CPU without AVX2, a multi-prime key) signs at once on the asking thread, as stock
//! rustls does. Otherwise
//! the signature goes to the engine, which runs it at once on the caller's thread when
//! it is idle ([`Engine::run`]: a lone handshake never waits for company) and batches
//! it with others when more signatures arrive than it has workers to run them. Where
//! the asking thread may wait for a batch:
//!
//! * on a worker of a multi-thread tokio runtime, by default the worker simply waits
//!   ([`Wait::Block`]). Batches form when more workers sign at once than the engine has
//!   workers, so a server that wants them gives its runtime more worker threads than
//!   cores. [`Wait::BlockInPlace`] waits inside [`tokio::task::block_in_place`] instead,
//!   which hands the worker's other tasks to a new thread first, so handshakes keep
//!   arriving while a batch fills; measured on one- and two-core servers its thread
//!   hand-offs cost more than the lanes saved, so it is opt-in;
//! * on a plain thread (no runtime: a thread-per-connection server), the thread waits;
//! * on a current-thread runtime, waiting would stop the only thread that could bring the
//!   batch's other members, so the signature runs alone, at once, on that thread.
//!
//! tokio forbids blocking inside a `LocalSet` that a multi-thread runtime's `block_on`
//! drives (`block_in_place` panics there): a server built that way keeps the default or
//! sets [`Wait::Direct`] on its [`CryptocardKeys`].
//!
//! ```no_run
//! use std::sync::Arc;
//! use rustls::ServerConfig;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let (chain, key) = (vec![], rustls::pki_types::PrivateKeyDer::Pkcs1(vec![].into()));
//! let config = ServerConfig::builder_with_provider(Arc::new(cryptocard_rustls::provider()))
//!     .with_safe_default_protocol_versions()?
//!     .with_no_client_auth()
//!     .with_single_cert(chain, key)?;
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]

pub mod cert;
mod dispatch;
mod keys;
#[cfg(feature = "server")]
pub mod server;
mod sign;
mod verify;

pub use dispatch::Wait;
pub use keys::CryptocardKeys;
/// The rustls this crate is built on, for naming its types at the same version.
pub use rustls;
pub use sign::RsaSigningKey;
pub use verify::{RSA_ALGORITHMS, rsa_verification};

use cryptocard::engine::Engine;
use rustls::crypto::CryptoProvider;
use std::sync::{Arc, OnceLock};

/// The process's shared engine, built on first use with the default settings (one worker
/// per core). Every key that [`provider`] loads signs through it.
pub fn shared_engine() -> Arc<Engine> {
    static ENGINE: OnceLock<Arc<Engine>> = OnceLock::new();
    ENGINE
        .get_or_init(|| {
            // The default configuration is valid by construction; an error here is a bug
            // in the engine's own defaults.
            Arc::new(Engine::new().expect("the engine's default configuration is valid"))
        })
        .clone()
}

/// rustls's default provider (aws-lc-rs) with cryptocard's RSA keys, on
/// [`shared_engine`], and cryptocard's RSA verification.
pub fn provider() -> CryptoProvider {
    static PROVIDER: OnceLock<CryptoProvider> = OnceLock::new();
    PROVIDER
        .get_or_init(|| {
            let base = rustls::crypto::aws_lc_rs::default_provider();
            let keys = CryptocardKeys::new(shared_engine(), base.key_provider);
            with_cryptocard(base, keys)
        })
        .clone()
}

/// `base` with RSA private keys loaded by `keys` (other keys still go to `base`'s key
/// provider, if `keys` was made with it) and RSA signatures verified by cryptocard.
///
/// rustls holds a provider's key provider as `&'static`: `keys` is leaked, as are the
/// verification tables (a few hundred bytes). Build providers once, at start-up.
pub fn with_cryptocard(base: CryptoProvider, keys: CryptocardKeys) -> CryptoProvider {
    CryptoProvider {
        signature_verification_algorithms: rsa_verification(
            &base.signature_verification_algorithms,
        ),
        key_provider: Box::leak(Box::new(keys)),
        ..base
    }
}
