//! Speed of DES and triple-DES against OpenSSL's libcrypto (the `openssl` crate), in the
//! same process, interleaved, minimum of many short runs on 16 KiB buffers (the `openssl
//! speed -bytes 16384` setting). Prints MB/s:
//!
//! ```text
//! cargo bench -p cryptocard-bench --bench des
//! DES_SPEED="des-cbc des-ede3-cbc" cargo bench -p cryptocard-bench --bench des
//! ```

use cryptocard::cipher::lookup;
use cryptocard::des::{Direction, Padding};
use cryptocard_bench::timing::seconds;
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx as OsslCtx;

const BUF: usize = 16384;
const ROUNDS: usize = 40;
const REPS: usize = 8;

fn main() {
    cryptocard_bench::run_selected(&[("des", des_against_openssl)]);
}

/// Seconds of `REPS` updates over `data` with our context for `name`.
fn ours(name: &str, dir: Direction, data: &[u8], out: &mut [u8]) -> f64 {
    let spec = lookup(name).unwrap();
    let key = vec![0x5au8; spec.key_len];
    let iv = vec![0xa5u8; spec.iv_len];
    let mut ctx = spec.new_ctx(&key, &iv, dir, Padding::None).unwrap();
    seconds(1, || {
        for _ in 0..REPS {
            ctx.update(data, out).unwrap();
        }
    })
}

/// The same with OpenSSL's.
fn theirs(name: &str, dir: Direction, data: &[u8], out: &mut [u8]) -> f64 {
    let spec = lookup(name).unwrap();
    let key = vec![0x5au8; spec.key_len];
    let iv = vec![0xa5u8; spec.iv_len];
    let cipher = Cipher::fetch(None, name, None).unwrap();
    let mut ctx = OsslCtx::new().unwrap();
    let iv = if iv.is_empty() { None } else { Some(&iv[..]) };
    match dir {
        Direction::Encrypt => ctx.encrypt_init(Some(&cipher), Some(&key), iv).unwrap(),
        Direction::Decrypt => ctx.decrypt_init(Some(&cipher), Some(&key), iv).unwrap(),
    }
    ctx.set_padding(false);
    seconds(1, || {
        for _ in 0..REPS {
            ctx.cipher_update(data, Some(out)).unwrap();
        }
    })
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
            let (mut a, mut b) = (f64::MAX, f64::MAX);
            for _ in 0..ROUNDS {
                a = a.min(ours(name, dir, &data, &mut out));
                b = b.min(theirs(name, dir, &data, &mut out));
            }
            let mbs = |t: f64| (BUF * REPS) as f64 / t / 1e6;
            let d = if dir == Direction::Encrypt { "enc" } else { "dec" };
            println!("{name:<16} {d:>4} {:>10.1} {:>10.1} {:>6.2}", mbs(a), mbs(b), b / a);
        }
    }
}
