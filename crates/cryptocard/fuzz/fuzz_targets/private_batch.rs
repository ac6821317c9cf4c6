//! `private_batch` and the engine against the single operation on the scalar backend,
//! with mixed 1024-, 2048- and 3072-bit keys, every request kind and invalid inputs
//! (wrong lengths, c >= n, the other padding): `cryptocard::engine::fuzzing`.
#![no_main]

#[path = "../keys.rs"]
mod keys;

use cryptocard::engine::fuzzing::BatchHarness;
use std::sync::OnceLock;

fn harness() -> &'static BatchHarness {
    static HARNESS: OnceLock<BatchHarness> = OnceLock::new();
    HARNESS.get_or_init(|| BatchHarness::new(keys::batch_keys()).unwrap())
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness().run(data);
});
