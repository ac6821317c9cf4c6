//! Shared helpers of the digest tests: test-data paths, SHAVS messages, and the check of
//! one digest through every interface. The generic parts (the vector parser, the byte
//! generator) are `common`'s; a test file that takes this module takes `common` too.

#![allow(dead_code)]

use cryptocard::digest::{HashAlg, Hasher};
use std::path::PathBuf;

/// The path of a file in tests/data/digests.
pub fn data_path(name: &str) -> PathBuf {
    crate::common::data_path(&format!("digests/{name}"))
}

pub use crate::common::Record;

/// The cases of a file of tests/data/digests (see `common::parse_records`).
pub fn parse_records(name: &str) -> Vec<Record> {
    crate::common::parse_records(&crate::common::read_data(&format!("digests/{name}")))
}

/// The message of a SHAVS-style record: `Len` bits of the hex `Msg`.
pub fn msg_bytes(r: &Record) -> Vec<u8> {
    let bits: usize = r["Len"].parse().unwrap();
    assert_eq!(bits % 8, 0, "byte-oriented vectors only");
    let mut m = hex::decode(&r["Msg"]).unwrap();
    m.truncate(bits / 8);
    m
}

/// Deterministic pseudo-random bytes (`common::xorshift_bytes`).
pub fn bytes(n: usize, seed: u64) -> Vec<u8> {
    crate::common::xorshift_bytes(n, seed)
}

/// Hashes `msg` through the run-time interface, whole and in 7-byte pieces.
pub fn check_dyn(alg: HashAlg, msg: &[u8], want: &str) {
    assert_eq!(
        hex::encode(alg.digest(msg).as_bytes()),
        want,
        "{alg} one-shot, {} bytes",
        msg.len()
    );
    let mut h = Hasher::new(alg);
    for piece in msg.chunks(7) {
        h.update(piece);
    }
    assert_eq!(hex::encode(h.finalize_reset().as_bytes()), want, "{alg} streamed");
    // After finalize_reset the hasher is fresh.
    h.update(msg);
    assert_eq!(hex::encode(h.finalize().as_bytes()), want, "{alg} after reset");
}
