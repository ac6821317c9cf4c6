//! What a key parser may do and spend on a file: [`KeyParseOptions`].
//!
//! A key file is input like any other, and two of its fields set how much work reading
//! it costs: the PBKDF2 iteration count of an encrypted PKCS#8 key, and, for a PKCS#1
//! key whose CRT fields are zero, the recovery of p and q from (n, e, d). Both are
//! bounded by default and raised only by the caller:
//!
//! * **PBKDF2 iterations: at most [`DEFAULT_MAX_ITERATIONS`] = 1,000,000.** OpenSSL 3
//!   writes 2048 (`PKCS5_DEFAULT_ITER`), Java's keytool 10,000, and tools that follow
//!   OWASP's 2023 password storage advice 600,000 for PBKDF2-HMAC-SHA256 (210,000 for
//!   SHA-512); a million leaves a margin over all of them and is a tenth of the former
//!   ceiling of 10,000,000, which a hostile file could ask for with SHA-512 on every
//!   read. [`KeyParseOptions::max_iterations`] raises or lowers it.
//! * **Recovery of p and q: off.** A plain parse of such a key fails with
//!   [`RECOVERY_NOT_ENABLED`]; [`KeyParseOptions::recover_primes`] or
//!   [`crate::rsa::RsaPrivateKey::from_n_e_d`] asks for it, with the bounds of that
//!   recovery.

use crate::Error;

pub use crate::pbe::DEFAULT_MAX_ITERATIONS;

/// The error of a PKCS#1 key with only n, e and d (zero CRT fields) when the recovery of
/// its primes was not asked for.
pub const RECOVERY_NOT_ENABLED: Error = Error::Unsupported(
    "the key holds only n, e and d (zero CRT fields); recovering p and q must be asked for (KeyParseOptions::recover_primes)",
);

pub use crate::pbe::TOO_MANY_ITERATIONS;

/// How keys are read: the `_with` parsers ([`crate::rsa::key_from_pem_with`],
/// [`crate::rsa::RsaPrivateKey::from_pkcs1_der_with`], ...) take it; the others use
/// [`KeyParseOptions::default`].
///
/// ```
/// use cryptocard::rsa::KeyParseOptions;
///
/// let opts = KeyParseOptions { recover_primes: true, ..KeyParseOptions::default() };
/// assert_eq!(opts.max_iterations, 1_000_000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyParseOptions {
    /// Recover p and q of a PKCS#1 key that holds only n, e and d (default false: such a
    /// key fails with [`RECOVERY_NOT_ENABLED`]).
    pub recover_primes: bool,
    /// The most PBKDF2 iterations an encrypted PKCS#8 key may ask for (default
    /// [`DEFAULT_MAX_ITERATIONS`]); more fail with [`TOO_MANY_ITERATIONS`] before any.
    pub max_iterations: u32,
}

impl Default for KeyParseOptions {
    fn default() -> KeyParseOptions {
        KeyParseOptions { recover_primes: false, max_iterations: DEFAULT_MAX_ITERATIONS }
    }
}
