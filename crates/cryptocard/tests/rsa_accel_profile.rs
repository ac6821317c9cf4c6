//! Profiling loops for perf, each on a fresh RSA key (`PROFILE_BITS`, 2048 by default) and
//! PKCS#1 v1.5 SHA-256 prehashed signatures (decryptions with `PROFILE_OP=decrypt`), for
//! `PROFILE_SECONDS`: `private_batch` of 8,
//! single operations, and the engine under `PROFILE_CALLERS` callers. Ignored; run one at
//! a time (the harness would run them side by side), e.g.
//!
//! ```text
//! cargo test --release -p cryptocard --test rsa_accel_profile -- --ignored --nocapture profile_engine
//! ```
//!
//! (under `perf record -g` on the test binary to see where the time goes).

use cryptocard::digest::HashAlg;
use cryptocard::engine::Engine;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{Backend, PrivateRequest, RsaPrivateKey, private_batch};
use openssl::rsa::Rsa;
use std::sync::Arc;
use std::time::Instant;

/// The key size: `PROFILE_BITS`, 2048 by default.
fn bits() -> u32 {
    std::env::var("PROFILE_BITS").ok().and_then(|s| s.parse().ok()).unwrap_or(2048)
}

/// How long to run: `PROFILE_SECONDS`, 3 by default.
fn seconds() -> f64 {
    std::env::var("PROFILE_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0)
}

/// A fresh key, the request every loop runs with it, and that request's answer. The
/// request signs, or with `PROFILE_OP=decrypt` decrypts (PKCS#1 v1.5, implicit rejection).
fn fixture() -> (RsaPrivateKey, PrivateRequest, Vec<u8>) {
    let rsa = Rsa::generate(bits()).unwrap();
    let key = RsaPrivateKey::from_pkcs1_der(&rsa.private_key_to_der().unwrap()).unwrap();
    let key = key.with_backend(Backend::Auto).unwrap();
    let req = match std::env::var("PROFILE_OP").as_deref() {
        Ok("decrypt") => PrivateRequest::DecryptPkcs1v15 {
            ciphertext: key.public_key().encrypt_pkcs1v15(&[7; 32], &mut OsRng).unwrap(),
        },
        _ => PrivateRequest::SignPkcs1v15Prehashed { hash: HashAlg::Sha256, digest: vec![7; 32] },
    };
    let want = req.run(&key, &mut OsRng).unwrap();
    (key, req, want)
}

/// Runs `step` (which does `ops` signatures with `key`, each expected to be `want`) for
/// `PROFILE_SECONDS` on a fresh key, and prints the rate.
fn profile(ops: usize, step: impl Fn(&RsaPrivateKey, &PrivateRequest, &[u8])) {
    let (key, req, want) = fixture();
    let seconds = seconds();
    let start = Instant::now();
    let mut done = 0usize;
    while start.elapsed().as_secs_f64() < seconds {
        step(&key, &req, &want);
        done += ops;
    }
    println!("{:.0} ops/s", done as f64 / start.elapsed().as_secs_f64());
}

#[test]
#[ignore]
fn profile_private_batch_8() {
    profile(8, |key, req, want| {
        let batch: Vec<(&RsaPrivateKey, &PrivateRequest)> = (0..8).map(|_| (key, req)).collect();
        let out = private_batch(&batch, &mut OsRng);
        assert!(out.iter().all(|r| r.as_deref() == Ok(want)));
    });
}

/// The same for one operation at a time (`PrivateRequest::run`): where the time outside
/// the x2 kernel goes.
#[test]
#[ignore]
fn profile_single() {
    profile(1, |key, req, want| assert_eq!(req.run(key, &mut OsRng).unwrap(), want));
}

/// The engine under load: `PROFILE_CALLERS` threads (64 by default) each calling
/// [`Engine::run`] in a loop for `PROFILE_SECONDS`, as `cryptocard speed --engine` does at
/// its top level; prints the rate and how the requests ran.
#[test]
#[ignore]
fn profile_engine() {
    let callers: usize =
        std::env::var("PROFILE_CALLERS").ok().and_then(|s| s.parse().ok()).unwrap_or(64);
    let seconds = seconds();
    let (key, req, want) = fixture();
    let key = Arc::new(key);
    let engine = Engine::new().unwrap();
    let before = engine.stats();
    let start = Instant::now();
    let done: usize = std::thread::scope(|s| {
        let threads: Vec<_> = (0..callers)
            .map(|_| {
                s.spawn(|| {
                    let mut n = 0;
                    while start.elapsed().as_secs_f64() < seconds {
                        assert_eq!(engine.run(Arc::clone(&key), req.clone()).unwrap(), want);
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).sum()
    });
    println!("{:.0} ops/s", done as f64 / start.elapsed().as_secs_f64());
    println!("{:?}", engine.stats().since(&before));
}
