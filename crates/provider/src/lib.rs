//! cryptocard's RSA as an OpenSSL 3 provider: every program linked to libcrypto (nginx,
//! HAProxy, curl, the `openssl` command) gets the library's RSA (IFMA kernels, the
//! batching engine) by configuration, without a code change (provider(7)).
//!
//! It offers three algorithms, all named "RSA:rsaEncryption:1.2.840.113549.1.1.1" with
//! the property "provider=cryptocard" (and the key management of RSA-PSS keys,
//! "RSA-PSS:RSASSA-PSS:1.2.840.113549.1.1.10", whose signatures are RSA's, under the
//! key's restrictions): key management, signature (PKCS#1 v1.5, PSS, ANSI X9.31, no
//! padding; sign, verify, verify-recover, digest-sign, digest-verify) and asymmetric cipher (PKCS#1 v1.5
//! with implicit rejection, OAEP, no padding). Everything else (digests, ciphers, key
//! exchange, encoders and decoders) stays with the default provider: keys decoded there
//! move to ours by export and import of the standard RSA parameters.
//!
//! ```text
//! openssl pkeyutl -provider-path target/release/ossl-modules -provider cryptocard \
//!     -provider default -propquery '?provider=cryptocard' -sign -inkey key.pem ...
//! ```
//!
//! # Layout
//!
//! * `ossl`: the public provider ABI this uses (structures, numbers, names), nothing
//!   private of OpenSSL's;
//! * `provider`: `OSSL_provider_init`, the provider's own functions, error reporting;
//! * `keymgmt`, `signature`, `asym_cipher`: the C side of each algorithm, thin wrappers
//!   inside `catch_unwind`;
//! * `key`, `pss_key`, `sig_ctx`, `sig_digest`, `cipher_ctx`, `padding`: the same in plain Rust (no
//!   `unsafe`);
//! * `params`, `buffers`: `OSSL_PARAM` arrays and C buffers;
//! * `dispatch`: the per-process engine every private operation goes through (fork
//!   safety); `async_job`: inside an OpenSSL async job, the engine with a callback and a
//!   paused job instead of a blocked thread, and never the job's small stack;
//!   `job_wake`: how the callback's answer and wake-up reach the paused job;
//! * `stats`: counters proving the provider did the work (`CRYPTOCARD_PROVIDER_STATS=1`).
//!
//! `unsafe` is confined to the modules that touch C (`provider`, `params`, `buffers`,
//! `keymgmt`, `signature`, `asym_cipher`, `async_job`, and the `Sync` of `ossl::Table`), each block
//! with a `// SAFETY:` line; no panic crosses into C ([`errors::guard`]).

#![deny(unsafe_code)]

mod asym_cipher;
mod async_job;
mod buffers;
pub mod cipher_ctx;
pub mod digest_policy;
pub mod dispatch;
pub mod errors;
pub mod job_thread;
mod job_wake;
pub mod key;
mod keymgmt;
pub mod ossl;
pub mod padding;
pub mod params;
pub mod provider;
pub mod pss_key;
pub mod sig_ctx;
pub mod sig_digest;
mod signature;
pub mod stats;
mod tls_premaster;
