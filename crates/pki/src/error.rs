//! The crate's error: what failed, in words an operator can act on.
//!
//! Verification and decryption failures say which object failed (a signer, a certificate
//! in the chain), never why a padding was rejected: `Crypto(Decryption)` carries no detail,
//! as in the library below.

use core::fmt;

/// Why a certificate or CMS operation failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The input does not parse as the structure named (DER, PEM, S/MIME).
    Malformed(String),
    /// A signature or digest did not verify; the text says which.
    Verify(String),
    /// A certificate path did not verify: why, and at which certificate.
    Path(crate::cert::PathError),
    /// No recipient or signer matches the given certificate or key.
    NoMatch(String),
    /// An algorithm or option this crate does not implement.
    Unsupported(String),
    /// An RSA, digest or cipher operation failed.
    Crypto(cryptocard::Error),
}

/// The crate's result.
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Malformed(what) => write!(f, "malformed input: {what}"),
            Error::Verify(what) => write!(f, "verification failure: {what}"),
            Error::Path(e) => write!(f, "verification failure: {e}"),
            Error::NoMatch(what) => write!(f, "{what}"),
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
            Error::Crypto(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<cryptocard::Error> for Error {
    fn from(e: cryptocard::Error) -> Error {
        Error::Crypto(e)
    }
}

impl From<der::Error> for Error {
    fn from(e: der::Error) -> Error {
        Error::Malformed(e.to_string())
    }
}
