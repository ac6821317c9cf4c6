//! Peers for side-by-side measurement: OpenSSL's libcrypto (the newest release that builds
//! from crates.io, and the system's where present) and GMP, reached through FFI.
//!
//! The `speed` command runs each peer in the same process as cryptocard, interleaved with
//! it, and reports ratios; nothing here is used by the library itself.
