//! Peers for side-by-side measurement: the implementations that `cryptocard speed
//! --compare` runs in the same process as cryptocard, interleaved with it.
//!
//! | peer | where it comes from | reached through |
//! |---|---|---|
//! | [`openssl::Openssl::vendored`] | OpenSSL 4.0.3, built from the `openssl-src` crate (static libcrypto, legacy provider and MD2 built in) | static linking |
//! | [`openssl::Openssl::system`] | the system's `libcrypto.so.3` (OpenSSL 3.0 on Debian 12), where present | `dlopen` |
//! | [`gmp::Gmp::bundled`] | GMP 6.3.0, built from `vendor/` by the build script with `--enable-fat`, where the machine has `m4` | static linking |
//! | [`gmp::Gmp::system`] | the system's `libgmp.so.10` (GMP 6.2.1), where present | `dlopen` |
//! | [`nettle::Nettle::system`] | the system's `libnettle.so.8`, where present (MD2 and friends, DES) | `dlopen` |
//! | [`rustcrypto`] | the RustCrypto `md2` crate | Rust |
//! | [`aws_lc`] | `aws-lc-rs`, AWS-LC built by `aws-lc-sys` (RSA PKCS#1 v1.5 SHA-256, SHA digests) | Rust API over static, symbol-prefixed C |
//! | [`ring`] | the `ring` crate (RSA PKCS#1 v1.5 SHA-256, SHA digests) | Rust |
//!
//! Static and shared copies of the same library never see each other's symbols (see
//! [`ffi`]); each library's functions are declared once, in one table filled either way, so
//! the code that drives a library is written once for both copies.
//!
//! One rule follows: never link `openssl-sys` (the `openssl` crate) into a binary that
//! links this crate. Its shared libcrypto would be bound to the static 4.0.3 symbols this
//! binary defines, and each copy would run on the other's data structures.
//!
//! Every peer reports its exact version and origin ([`PeerInfo`]). A system library that is
//! not installed is an absent peer (`Ok(None)`), never an error; anything a library rejects
//! comes back as a [`PeerError`], never a panic. Nothing here is used by the cryptocard
//! library itself.
//!
//! Everything but the types above sits behind the default feature `ffi`; without it the
//! crate builds no C and links nothing (the CLI's `speed` in a build without peers).

use std::fmt;

#[cfg(feature = "ffi")]
pub mod aws_lc;
#[cfg(feature = "ffi")]
pub mod ffi;
#[cfg(feature = "ffi")]
pub mod gmp;
#[cfg(feature = "ffi")]
pub mod nettle;
#[cfg(feature = "ffi")]
pub mod openssl;
#[cfg(feature = "ffi")]
pub mod ring;
#[cfg(feature = "ffi")]
pub mod rustcrypto;

/// How a peer library got into the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Built from source by this workspace's build script (OpenSSL from `openssl-src`).
    Vendored,
    /// Built from source shipped in this crate (GMP from `vendor/`).
    Bundled,
    /// The system's shared library, opened at run time.
    System,
    /// A Rust crate (pure Rust, or one that builds and wraps its own C: aws-lc-rs, ring).
    Crate,
}

impl Origin {
    /// The lower-case word used in tables and JSON: "vendored", "bundled", "system", "crate".
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Vendored => "vendored",
            Origin::Bundled => "bundled",
            Origin::System => "system",
            Origin::Crate => "crate",
        }
    }
}

/// Identity of one peer: which library, which exact version, and where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PeerInfo {
    /// Short lower-case identifier, as in `--compare` and the JSON `impl` field:
    /// "openssl", "gmp", "nettle", "rustcrypto", "aws-lc-rs", "ring".
    pub id: &'static str,
    /// Display name: "OpenSSL", "GMP", "nettle", "RustCrypto md2".
    pub name: &'static str,
    /// The version the library reports about itself at run time (e.g. "4.0.3", "6.2.1").
    pub version: String,
    /// Where this copy comes from.
    pub origin: Origin,
}

impl fmt::Display for PeerInfo {
    /// "OpenSSL 4.0.3 (vendored)", "GMP 6.2.1 (system)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} ({})", self.name, self.version, self.origin.as_str())
    }
}

/// Why a peer could not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerError {
    /// The library, or this algorithm in it, is not available here (not built in, a
    /// provider that would not load, a library lacking a symbol).
    Unavailable(String),
    /// The library reported a failure: the call that failed and the library's own message.
    Failed {
        /// The C function that failed.
        call: &'static str,
        /// The library's error text, if it gave one.
        detail: String,
    },
    /// The inputs were rejected before they reached the library (wrong key length, a
    /// modulus the function cannot take, a buffer too small...).
    InvalidInput(&'static str),
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerError::Unavailable(what) => write!(f, "not available: {what}"),
            PeerError::Failed { call, detail } if detail.is_empty() => write!(f, "{call} failed"),
            PeerError::Failed { call, detail } => write!(f, "{call} failed: {detail}"),
            PeerError::InvalidInput(why) => write!(f, "invalid input: {why}"),
        }
    }
}

impl std::error::Error for PeerError {}

/// The result type of every peer operation.
pub type Result<T, E = PeerError> = std::result::Result<T, E>;
