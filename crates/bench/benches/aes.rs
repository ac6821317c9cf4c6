//! Per-call speed of the AES modes against OpenSSL's libcrypto (the `openssl` crate) on
//! short messages, where the work of one call (its dispatch, buffering and kernel set-up)
//! weighs as much as the blocks: a 16-byte CBC update is one block, about ten AES round
//! instructions of latency. In the same process, interleaved, the minimum of many short
//! runs (a shared machine's other tenants only ever add time). Prints nanoseconds a call:
//!
//! ```text
//! cargo bench -p cryptocard-bench --bench aes
//! AES_SPEED="aes-128-cbc" AES_BYTES="16 64" cargo bench -p cryptocard-bench --bench aes
//! AES_IMPL=aes-ni cargo bench -p cryptocard-bench --bench aes   # ours without VAES
//! ```

use cryptocard::des::Direction;
use cryptocard_bench::ciphers;

/// Calls a timed run makes, and runs a figure takes the minimum of.
const CALLS: usize = 20_000;
const ROUNDS: usize = 60;

fn main() {
    cryptocard_bench::run_selected(&[("aes", aes_against_openssl)]);
}

fn aes_against_openssl() {
    let var = |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.into());
    let names = var("AES_SPEED", "aes-128-cbc aes-256-cbc aes-256-ctr");
    let sizes: Vec<usize> =
        var("AES_BYTES", "16 64 256 1024").split_whitespace().map(|s| s.parse().unwrap()).collect();
    println!(
        "{:<12} {:>4} {:>6} {:>10} {:>10} {:>6}",
        "cipher", "dir", "bytes", "ours ns", "ossl ns", "ratio"
    );
    for name in names.split_whitespace() {
        for &bytes in &sizes {
            let data = vec![0x3cu8; bytes];
            let mut out = vec![0u8; bytes + 16];
            for dir in [Direction::Encrypt, Direction::Decrypt] {
                ciphers::check_same_output(name, dir, &data);
                let (mut a, mut b) = (f64::MAX, f64::MAX);
                for _ in 0..ROUNDS {
                    a = a.min(ciphers::seconds_ours(name, dir, &data, &mut out, CALLS));
                    b = b.min(ciphers::seconds_openssl(name, dir, &data, &mut out, CALLS));
                }
                let ns = |t: f64| t / CALLS as f64 * 1e9;
                let d = if dir == Direction::Encrypt { "enc" } else { "dec" };
                println!(
                    "{name:<12} {d:>4} {bytes:>6} {:>10.1} {:>10.1} {:>6.2}",
                    ns(a),
                    ns(b),
                    b / a
                );
            }
        }
    }
}
