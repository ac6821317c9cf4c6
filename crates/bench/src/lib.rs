//! Benchmarks of cryptocard's kernels and operations (not published).
//!
//! The benchmarks are the `benches/` targets, each a `main` that runs the measurements
//! named on its command line, or all of them:
//!
//! ```text
//! cargo bench -p cryptocard-bench --bench adx -- kernels chain
//! cargo bench -p cryptocard-bench --bench ifma            # prints a skip line without IFMA
//! ```
//!
//! They reach the library's kernels through its `hazmat` feature, and the peers (OpenSSL,
//! GMP) through the `compare` crate or the `openssl` crate. This library is what they
//! share: [`timing`], the one timing kit, [`workload`], seeded operands, and [`ciphers`],
//! the contexts of the cipher benches.
//! Nothing here asserts a time; the figures are printed for people to read.

#![deny(unsafe_code)]

pub mod adx_powm;
pub mod ciphers;
pub mod timing;
pub mod workload;

/// Runs the benchmarks named on the command line (arguments starting with `-`, such as
/// the `--bench` that `cargo bench` passes, are skipped), or all of `benches` when none is
/// named. An unknown name prints the list and runs nothing.
pub fn run_selected(benches: &[(&str, fn())]) {
    let names: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    if let Some(bad) = names.iter().find(|n| !benches.iter().any(|(b, _)| b == n)) {
        let all: Vec<&str> = benches.iter().map(|(b, _)| *b).collect();
        println!("unknown benchmark {bad:?}; this target has: {}", all.join(", "));
        return;
    }
    for (name, f) in benches {
        if names.is_empty() || names.iter().any(|n| n == name) {
            println!("== {name}");
            f();
        }
    }
}
