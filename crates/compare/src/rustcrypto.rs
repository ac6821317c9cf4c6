//! RustCrypto's pure-Rust `md2` crate as a peer for MD2 (RFC 1319), which OpenSSL builds
//! leave out by default: with nettle, "the fastest other implementation that builds here".

use crate::{Origin, PeerInfo};
use md2::Digest as _;
use std::sync::OnceLock;

/// Identity of the `md2` crate this binary was built with (version read from Cargo.lock
/// by the build script).
pub fn md2_info() -> &'static PeerInfo {
    static INFO: OnceLock<PeerInfo> = OnceLock::new();
    INFO.get_or_init(|| PeerInfo {
        id: "rustcrypto",
        name: "RustCrypto md2",
        version: env!("COMPARE_MD2_VERSION").to_string(),
        origin: Origin::Crate,
    })
}

/// MD2 of `data`.
pub fn md2(data: &[u8]) -> [u8; 16] {
    md2::Md2::digest(data).into()
}
