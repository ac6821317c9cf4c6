//! The two sides of the cipher benches (`benches/des.rs`, `benches/aes.rs`): our context
//! and OpenSSL's EVP context for one OpenSSL cipher name, with the same fixed key and IV
//! and padding off, so that every update of either is whole blocks through the mode.

use cryptocard::aes::{Aes, AesCtx, Implementation};
use cryptocard::cipher::{Algorithm, AnyCipherCtx, CipherSpec, lookup};
use cryptocard::des::{Direction, Padding};
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;
use std::hint::black_box;

use crate::timing::seconds;

/// The registry's entry for cipher `name` (one of `cryptocard::cipher::lookup`'s names),
/// with the key and IV both sides use.
fn cipher(name: &str) -> (CipherSpec, Vec<u8>, Vec<u8>) {
    let spec = lookup(name).expect("a cipher name of the registry");
    let (key, iv) = (vec![0x5a; spec.key_len], vec![0xa5; spec.iv_len]);
    (spec, key, iv)
}

/// Our context for `name` in direction `dir`: AES on the implementation `AES_IMPL` names
/// (`portable`, `aes-ni` or `vaes`, to time one a CPU would not choose), else on the
/// fastest.
pub fn ours(name: &str, dir: Direction) -> AnyCipherCtx {
    let (spec, key, iv) = cipher(name);
    let aes = matches!(spec.algorithm, Algorithm::Aes128 | Algorithm::Aes192 | Algorithm::Aes256);
    match std::env::var("AES_IMPL") {
        Ok(want) if aes => {
            let implementation =
                [Implementation::Portable, Implementation::AesNi, Implementation::Vaes]
                    .into_iter()
                    .find(|i| i.name() == want)
                    .expect("AES_IMPL: portable, aes-ni or vaes");
            let cipher = Aes::with_implementation(&key, implementation).expect("this CPU runs it");
            AnyCipherCtx::Aes(
                AesCtx::new(cipher, spec.mode, dir, &iv, Padding::None).expect("a context"),
            )
        }
        _ => spec.new_ctx(&key, &iv, dir, Padding::None).expect("a context"),
    }
}

/// OpenSSL's context for `name` in direction `dir` (single DES needs the legacy provider
/// loaded first).
pub fn openssl(name: &str, dir: Direction) -> CipherCtx {
    let (_, key, iv) = cipher(name);
    let cipher = Cipher::fetch(None, name, None).expect("OpenSSL has the cipher");
    let mut ctx = CipherCtx::new().expect("an OpenSSL context");
    let iv = if iv.is_empty() { None } else { Some(&iv[..]) };
    match dir {
        Direction::Encrypt => ctx.encrypt_init(Some(&cipher), Some(&key), iv),
        Direction::Decrypt => ctx.decrypt_init(Some(&cipher), Some(&key), iv),
    }
    .expect("OpenSSL takes the key and IV");
    ctx.set_padding(false);
    ctx
}

/// Seconds of `calls` updates over `data` into `out` with our context for `name`.
pub fn seconds_ours(name: &str, dir: Direction, data: &[u8], out: &mut [u8], calls: usize) -> f64 {
    let mut ctx = ours(name, dir);
    seconds(1, || {
        for _ in 0..calls {
            ctx.update(black_box(data), out).expect("an update");
        }
    })
}

/// The same with OpenSSL's context.
pub fn seconds_openssl(
    name: &str,
    dir: Direction,
    data: &[u8],
    out: &mut [u8],
    calls: usize,
) -> f64 {
    let mut ctx = openssl(name, dir);
    seconds(1, || {
        for _ in 0..calls {
            ctx.cipher_update(black_box(data), Some(out)).expect("an update");
        }
    })
}

/// Panics unless one update over `data` gives the same bytes from both contexts: a
/// figure for a side that computes something else would mean nothing.
pub fn check_same_output(name: &str, dir: Direction, data: &[u8]) {
    let (mut a, mut b) = (vec![0u8; data.len() + 16], vec![0u8; data.len() + 16]);
    let n = ours(name, dir).update(data, &mut a).expect("an update");
    let m = openssl(name, dir).cipher_update(data, Some(&mut b)).expect("an update");
    assert_eq!(a[..n], b[..m], "{name} {dir:?}: ours and OpenSSL's differ on {} bytes", data.len());
}
