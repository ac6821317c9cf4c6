//! The one error type at the library's boundary.
//!
//! Variants name what went wrong in words a caller can act on, and carry a short static
//! reason where that helps. Errors that an attacker could use as an oracle carry no detail
//! at all: [`Error::Decryption`] and [`Error::Verification`] say only that the operation
//! failed, never why (Go's `ErrDecryption`, RFC 8017 section 7.2.2 note).
//!
//! Library code never panics on input. A `panic!` is reserved for a broken internal
//! invariant, and its message starts with "internal error:".

use core::fmt;

/// Why an operation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// An argument is outside the operation's domain (an even modulus, a zero divisor, a
    /// size out of range, ...). The reason says which.
    InvalidArgument(&'static str),
    /// A key failed validation on import or generation. The reason says which check.
    InvalidKey(&'static str),
    /// Input bytes do not parse (DER, PEM, hex, decimal, a malformed header, ...).
    InvalidEncoding(&'static str),
    /// The message is too long for the key and padding scheme.
    MessageTooLong,
    /// Decryption failed. Deliberately without detail: no padding oracle.
    Decryption,
    /// A signature or MAC did not verify. Deliberately without detail.
    Verification,
    /// A private-key result failed its check against the public key (a fault, as in the
    /// Bellcore attack of Boneh, DeMillo and Lipton); the result was withheld.
    FaultDetected,
    /// The requested algorithm, parameter or size is not supported.
    Unsupported(&'static str),
    /// A broken internal invariant, caught before it could give a wrong answer: a panic
    /// inside the engine's worker, or the RSA layer handing a kernel operands it does not
    /// take. Never caused by input; a bug to report. The reason says where.
    Internal(&'static str),
    /// The operating system's entropy source failed.
    Rng,
    /// The engine's queue is full; try again later (backpressure).
    Busy,
    /// The engine has shut down and takes no more work.
    ShutDown,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidArgument(why) => write!(f, "invalid argument: {why}"),
            Error::InvalidKey(why) => write!(f, "invalid key: {why}"),
            Error::InvalidEncoding(why) => write!(f, "invalid encoding: {why}"),
            Error::MessageTooLong => f.write_str("message too long for the key"),
            Error::Decryption => f.write_str("decryption error"),
            Error::Verification => f.write_str("verification failure"),
            Error::FaultDetected => {
                f.write_str("private-key result failed its public-key check; withheld")
            }
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
            Error::Internal(what) => write!(f, "internal error: {what}"),
            Error::Rng => f.write_str("the operating system's entropy source failed"),
            Error::Busy => f.write_str("engine queue is full"),
            Error::ShutDown => f.write_str("engine has shut down"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::Error;

    #[test]
    fn internal_is_not_unsupported() {
        let e = Error::Internal("the private-key operation panicked");
        assert_eq!(e.to_string(), "internal error: the private-key operation panicked");
        assert!(!matches!(e, Error::Unsupported(_)));
        assert_eq!(crate::engine::OPERATION_PANICKED, e);
    }
}
