//! Private-operation speed of the backends beside OpenSSL's libcrypto, same keys, same
//! process, interleaved: PKCS#1 v1.5 signatures (SHA-256 digest given) one at a time on
//! the scalar and IFMA backends, and in `private_batch` calls of 8 and 16 requests.
//! Ignored by default; run with
//!
//! ```text
//! cargo test --release -p cryptocard --test rsa_accel_speed -- --ignored --nocapture
//! ```
//!
//! Prints the best and the median of many short interleaved runs, in ops/s, and the
//! ratios to OpenSSL (its default code paths). Never asserts a time.

use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{Backend, PrivateRequest, RsaPrivateKey, private_batch};
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::rsa::Rsa;
use openssl::sign::Signer;
use std::time::Instant;

/// A contestant: its name, operations per call, and the call.
type Run<'a> = (&'static str, usize, Box<dyn FnMut() + 'a>);

const ROUNDS: usize = 31;
const RUN_SECONDS: f64 = 0.03;

/// ops/s of `f` (which does `ops` operations) run for about `RUN_SECONDS`.
fn rate(ops: usize, f: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    let mut n = 0usize;
    loop {
        f();
        n += ops;
        let t = start.elapsed().as_secs_f64();
        if t >= RUN_SECONDS {
            return n as f64 / t;
        }
    }
}

fn bench(bits: u32) {
    let rsa = Rsa::generate(bits).unwrap();
    let key = RsaPrivateKey::from_pkcs1_der(&rsa.private_key_to_der().unwrap()).unwrap();
    let pkey = PKey::from_rsa(rsa).unwrap();
    let scalar = key.clone().with_backend(Backend::Scalar).unwrap();
    let ifma = key.clone().with_backend(Backend::Auto).unwrap();
    let digest = [0x5au8; 32];
    let mut rng = OsRng;
    let req =
        PrivateRequest::SignPkcs1v15Prehashed { hash: HashAlg::Sha256, digest: digest.to_vec() };
    let b8: Vec<(&RsaPrivateKey, &PrivateRequest)> = (0..8).map(|_| (&ifma, &req)).collect();
    let b16: Vec<(&RsaPrivateKey, &PrivateRequest)> = (0..16).map(|_| (&ifma, &req)).collect();
    let want = scalar.sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut rng).unwrap();
    assert_eq!(ifma.sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut rng).unwrap(), want);
    assert!(private_batch(&b8, &mut rng).iter().all(|r| r.as_ref() == Ok(&want)));
    let mut openssl = || {
        let mut s = Signer::new(MessageDigest::sha256(), &pkey).unwrap();
        s.update(&digest).unwrap();
        std::hint::black_box(s.sign_to_vec().unwrap());
    };
    let mut rng2 = OsRng;
    let mut rng3 = OsRng;
    let mut rng4 = OsRng;
    let mut rng5 = OsRng;
    let mut runs: [Run<'_>; 5] = [
        ("openssl 3.0 sign", 1, Box::new(&mut openssl)),
        (
            "scalar sign",
            1,
            Box::new(|| {
                std::hint::black_box(
                    scalar.sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut rng2).unwrap(),
                );
            }),
        ),
        (
            ifma.backend_name().unwrap(),
            1,
            Box::new(|| {
                std::hint::black_box(
                    ifma.sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut rng3).unwrap(),
                );
            }),
        ),
        (
            "private_batch x8",
            8,
            Box::new(|| {
                std::hint::black_box(private_batch(&b8, &mut rng4));
            }),
        ),
        (
            "private_batch x16",
            16,
            Box::new(|| {
                std::hint::black_box(private_batch(&b16, &mut rng5));
            }),
        ),
    ];
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); runs.len()];
    for _ in 0..ROUNDS {
        for (r, (_, ops, f)) in rates.iter_mut().zip(runs.iter_mut()) {
            r.push(rate(*ops, f.as_mut()));
        }
    }
    for r in rates.iter_mut() {
        r.sort_by(|a, b| b.partial_cmp(a).unwrap());
    }
    let (best0, med0) = (rates[0][0], rates[0][ROUNDS / 2]);
    for ((name, _, _), r) in runs.iter().zip(&rates) {
        let (best, med) = (r[0], r[ROUNDS / 2]);
        println!(
            "RSA-{bits} {name:<20} best {best:>8.0}/s ({:.2}x openssl) median {med:>8.0}/s ({:.2}x)",
            best / best0,
            med / med0
        );
    }
}

#[test]
#[ignore]
fn rsa_private_backends_beside_openssl() {
    for bits in [2048, 3072, 4096] {
        bench(bits);
    }
}

/// Sizes between the IFMA classes, which run in the class above (`SPEED_BITS`, a
/// comma-separated list, picks others).
#[test]
#[ignore]
fn rsa_private_between_classes() {
    let list = std::env::var("SPEED_BITS").unwrap_or_else(|_| "1536,2560,7680".into());
    for bits in list.split(',').filter_map(|b| b.trim().parse().ok()) {
        bench(bits);
    }
}
