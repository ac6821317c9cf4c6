//! Speed of DES and triple-DES against OpenSSL's libcrypto (the `openssl` crate), in the
//! same process, interleaved, minimum of many short runs on 16 KiB buffers (the `openssl
//! speed -bytes 16384` setting). Prints MB/s:
//!
//! ```text
//! cargo bench -p cryptocard-bench --bench des
//! DES_SPEED="des-cbc des-ede3-cbc" cargo bench -p cryptocard-bench --bench des
//! ```

use cryptocard::des::Direction;
use cryptocard_bench::ciphers;

const BUF: usize = 16384;
const ROUNDS: usize = 40;
const REPS: usize = 8;

fn main() {
    cryptocard_bench::run_selected(&[("des", des_against_openssl)]);
}

fn des_against_openssl() {
    let _legacy = openssl::provider::Provider::try_load(None, "legacy", true).unwrap();
    let data = vec![0x3cu8; BUF];
    let mut out = vec![0u8; BUF + 16];
    let names = std::env::var("DES_SPEED")
        .unwrap_or_else(|_| "des-cbc des-ede3-cbc des-ecb des-ede3 des-ofb des-cfb".to_string());
    println!(
        "{:<16} {:>4} {:>10} {:>10} {:>6}",
        "cipher", "dir", "ours MB/s", "ossl MB/s", "ratio"
    );
    for name in names.split_whitespace() {
        for dir in [Direction::Encrypt, Direction::Decrypt] {
            ciphers::check_same_output(name, dir, &data);
            let (mut a, mut b) = (f64::MAX, f64::MAX);
            for _ in 0..ROUNDS {
                a = a.min(ciphers::seconds_ours(name, dir, &data, &mut out, REPS));
                b = b.min(ciphers::seconds_openssl(name, dir, &data, &mut out, REPS));
            }
            let mbs = |t: f64| (BUF * REPS) as f64 / t / 1e6;
            let d = if dir == Direction::Encrypt { "enc" } else { "dec" };
            println!("{name:<16} {d:>4} {:>10.1} {:>10.1} {:>6.2}", mbs(a), mbs(b), b / a);
        }
    }
}
