//! Errors as the provider reports them: a reason code with a fixed string (which
//! OpenSSL prints, from `OSSL_FUNC_PROVIDER_GET_REASON_STRINGS`), and a detail line.
//! The detail never says more than the library's error does: a failed decryption is
//! "decryption failed", with no hint of why (no padding oracle, RFC 8017 section 7.2.2).
//!
//! Also [`guard`], the `catch_unwind` wrapped around every `extern "C"` entry point: a
//! panic (a bug; the library does not panic on input) becomes a failure return, never an
//! unwind into C.

use cryptocard::Error;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A reason code, `ERR_GET_REASON` of the errors this provider raises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Reason {
    /// A parameter has an unknown value or the wrong type.
    InvalidParameter = 1,
    /// The key is missing, of the wrong kind, or invalid.
    InvalidKey = 2,
    /// The input is too long or of the wrong length.
    InvalidLength = 3,
    /// The caller's output buffer is too small.
    BufferTooSmall = 4,
    /// Decryption failed (no detail, by design).
    DecryptionFailed = 5,
    /// The signature did not verify.
    VerificationFailed = 6,
    /// Not supported by this provider (a padding the operation does not have, ...).
    Unsupported = 7,
    /// The operation failed for another reason (the detail says which).
    OperationFailed = 8,
}

impl Reason {
    /// Every reason with its string, for the reason-string table.
    pub const ALL: [(Reason, &'static core::ffi::CStr); 8] = [
        (Reason::InvalidParameter, c"invalid parameter"),
        (Reason::InvalidKey, c"invalid key"),
        (Reason::InvalidLength, c"invalid input length"),
        (Reason::BufferTooSmall, c"output buffer too small"),
        (Reason::DecryptionFailed, c"decryption failed"),
        (Reason::VerificationFailed, c"verification failed"),
        (Reason::Unsupported, c"unsupported"),
        (Reason::OperationFailed, c"operation failed"),
    ];
}

/// A failure with its reason and a detail line for the error queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The reason code.
    pub reason: Reason,
    /// The detail, printed after the reason.
    pub detail: String,
}

impl Failure {
    /// A failure for `reason` with `detail`.
    pub fn new(reason: Reason, detail: impl Into<String>) -> Failure {
        Failure { reason, detail: detail.into() }
    }

    /// An unknown or ill-typed parameter value.
    pub fn param(detail: impl Into<String>) -> Failure {
        Failure::new(Reason::InvalidParameter, detail)
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let reason = match e {
            Error::InvalidKey(_) => Reason::InvalidKey,
            Error::MessageTooLong => Reason::InvalidLength,
            Error::Decryption => Reason::DecryptionFailed,
            Error::Verification => Reason::VerificationFailed,
            Error::Unsupported(_) => Reason::Unsupported,
            Error::InvalidArgument(_) => Reason::InvalidParameter,
            _ => Reason::OperationFailed,
        };
        Failure::new(reason, e.to_string())
    }
}

/// Result of the provider's pure-Rust operations.
pub type Outcome<T> = Result<T, Failure>;

/// Runs `f`, turning a panic into `fallback`: every `extern "C"` function's body runs
/// inside this, so no unwind crosses into OpenSSL.
pub fn guard<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}
