//! Helpers shared by the integration tests: paths into tests/data, the `key = value`
//! vector-file parser, hex decoding, the seeded generators (SplitMix64 as a
//! [`RandomSource`], xorshift64 for bytes and mutations) and a time limit on a call
//! ([`within`]). Each test file takes it with
//! `mod common;`; the topic helpers (`digest_support`, `modular_common`, `engine_common`)
//! stay beside it and build on it.
//!
//! The generators are for reproducible variety in tests, never for keys that matter.

#![allow(dead_code)]

use cryptocard::rng::RandomSource;
use std::collections::HashMap;
use std::path::PathBuf;

/// The path of `rel` under tests/data, or under `CRYPTOCARD_TEST_DATA` where set (a test
/// binary run away from its source tree: `scripts/gpu-check` on a GPU machine).
pub fn data_path(rel: &str) -> PathBuf {
    std::env::var_os("CRYPTOCARD_TEST_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data"))
        .join(rel)
}

/// The text of `rel` under tests/data.
pub fn read_data(rel: &str) -> String {
    std::fs::read_to_string(data_path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// One case of a vector file: its `key = value` lines.
pub type Record = HashMap<String, String>;

/// Parses the `key = value` vector format (BoringSSL's bn tests, NIST `.rsp`,
/// cryptography-vectors `.txt`): cases separated by blank lines, key and value split at
/// the first `=` and trimmed (some values carry extra spaces); `#` comments and
/// `[section]` lines are skipped. Cases come in file order.
pub fn parse_records(text: &str) -> Vec<Record> {
    let mut out = Vec::new();
    let mut cur = Record::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else if !line.starts_with('#') && !line.starts_with('[') {
            let (k, v) = line.split_once('=').unwrap_or_else(|| panic!("not key = value: {line}"));
            cur.insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The bytes of a hex string (surrounding whitespace ignored); panics, naming the
/// string, on bad hex.
pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.trim()).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}"))
}

/// SplitMix64 (Steele, Lea and Flood): a deterministic [`RandomSource`] for tests.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl RandomSource for SplitMix64 {
    /// Little-endian words, the last one cut to the length left.
    fn fill_bytes(&mut self, dest: &mut [u8]) -> cryptocard::Result<()> {
        for chunk in dest.chunks_mut(8) {
            let z = self.next_u64();
            chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
        }
        Ok(())
    }
}

/// xorshift64 (Marsaglia; shifts 13, 7, 17); the state must not be zero.
#[derive(Clone, Debug)]
pub struct XorShift64(pub u64);

impl XorShift64 {
    /// The next state, which is the output.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (below 1 when `n` is 0), by remainder.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// `len` bytes, the low byte of each output.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

/// `n` deterministic bytes from xorshift64 seeded with `seed * golden | 1`, bits 24..32
/// of each output.
pub fn xorshift_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = XorShift64(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    (0..n).map(|_| (x.next_u64() >> 24) as u8).collect()
}

/// Runs `f` on a thread of its own and returns its result, failing the test if none
/// comes within `secs` seconds (or if `f` panics): for calls on hostile input that must
/// answer rather than hang. A guard against a hang, not a measurement.
pub fn within<T: Send + 'static>(
    secs: u64,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    use std::sync::mpsc::{RecvTimeoutError, channel};
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(value) => value,
        Err(RecvTimeoutError::Timeout) => panic!("{what}: no answer within {secs} s"),
        Err(RecvTimeoutError::Disconnected) => panic!("{what}: the call panicked"),
    }
}
