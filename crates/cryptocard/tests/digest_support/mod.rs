//! Shared helpers of the digest tests: the vector-file parser and test-data paths.

#![allow(dead_code)]

use cryptocard::digest::{HashAlg, Hasher};
use std::collections::HashMap;
use std::path::PathBuf;

/// The path of a file in tests/data/digests.
pub fn data_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/digests").join(name)
}

/// One case: its `Key = value` lines.
pub type Record = HashMap<String, String>;

/// Parses the NIST `.rsp` / cryptography-vectors `.txt` format: `Key = value` lines,
/// cases separated by blank lines; `#` comments and `[section]` lines are skipped.
pub fn parse_records(name: &str) -> Vec<Record> {
    let text = std::fs::read_to_string(data_path(name)).expect("read vector file");
    let mut out = Vec::new();
    let mut cur = Record::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if line.starts_with('#') || line.starts_with('[') {
            continue;
        }
        let (k, v) = line.split_once('=').expect("key = value line");
        cur.insert(k.trim().to_string(), v.trim().to_string());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The message of a SHAVS-style record: `Len` bits of the hex `Msg`.
pub fn msg_bytes(r: &Record) -> Vec<u8> {
    let bits: usize = r["Len"].parse().unwrap();
    assert_eq!(bits % 8, 0, "byte-oriented vectors only");
    let mut m = hex::decode(&r["Msg"]).unwrap();
    m.truncate(bits / 8);
    m
}

/// Deterministic pseudo-random bytes (xorshift64), independent of the code under test.
pub fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
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
