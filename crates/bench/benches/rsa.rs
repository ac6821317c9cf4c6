//! RSA beside OpenSSL's libcrypto (the `openssl` crate) on the same keys, in the same
//! process, interleaved, and loops for a profiler:
//!
//! ```text
//! cargo bench -p cryptocard-bench --bench rsa -- speed keygen backends between products
//! OPENSSL_ia32cap=:~0x200000 cargo bench ... -- speed    # OpenSSL without its IFMA code
//! PROFILE_BITS=2048 PROFILE_SECONDS=3 cargo bench ... -- profile_batch8 profile_single profile_engine sign_loop
//! ```
//!
//! * `speed`: sign (PKCS#1 v1.5, SHA-256 digest given), verify, decrypt, encrypt at 2048,
//!   3072 and 4096 bits; the best of many short interleaved runs and the ratio of the
//!   medians (ours / OpenSSL, above 1 is faster).
//! * `keygen`: 2048-bit keys one at a time, ours and OpenSSL's interleaved.
//! * `backends`: private operations one at a time on the scalar and the detected
//!   backend, and in `private_batch` calls of 8 and 16; `between` the same at sizes
//!   between the IFMA classes (`SPEED_BITS`, comma-separated, picks them).
//! * `products`: eight 2048-bit products modulo n (blinding) on the core and in one
//!   batched call (`rsa/accel/ifma.rs`).
//! * `profile_*`: a fresh key (`PROFILE_BITS`), PKCS#1 v1.5 signatures (decryptions with
//!   `PROFILE_OP=decrypt`) for `PROFILE_SECONDS`: `private_batch` of 8, single
//!   operations, the engine under `PROFILE_CALLERS` callers; `sign_loop`: 2000 signatures
//!   on a fixed key (for `perf stat`). Not run unless named.

use cryptocard::digest::HashAlg;
use cryptocard::engine::Engine;
use cryptocard::hazmat::ProductJobs;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{Backend, PrivateRequest, RsaPrivateKey, private_batch};
use cryptocard_bench::timing::{race_ns, race_rates, run_rate, seconds};
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::rsa::{Padding, Rsa};
use openssl::sign::{Signer, Verifier};
use std::sync::Arc;

fn main() {
    let profiles = ["profile_batch8", "profile_single", "profile_engine", "sign_loop"];
    let named = std::env::args().skip(1).any(|a| profiles.contains(&a.as_str()));
    let mut all: Vec<(&str, fn())> = vec![
        ("speed", rsa_speed_beside_openssl),
        ("keygen", rsa_keygen_beside_openssl),
        ("backends", rsa_private_backends_beside_openssl),
        ("between", rsa_private_between_classes),
        ("products", products_2048),
    ];
    if named {
        all = vec![
            ("profile_batch8", profile_private_batch_8),
            ("profile_single", profile_single),
            ("profile_engine", profile_engine),
            ("sign_loop", rsa_sign_loop_for_profiling),
        ];
    }
    cryptocard_bench::run_selected(&all);
}

/// Ours and theirs in alternating runs of 20 ms, 41 rounds; the best run of each (the one
/// least disturbed by the other jobs on a shared machine) and the median.
fn compare(what: &str, mut ours: impl FnMut(), mut theirs: impl FnMut()) {
    const ROUNDS: usize = 41;
    let r = race_rates(ROUNDS, 0.02, &mut [(1, &mut ours), (1, &mut theirs)]);
    let (best_a, best_b, med_a, med_b) = (r[0][0], r[1][0], r[0][ROUNDS / 2], r[1][ROUNDS / 2]);
    println!(
        "{what:<30} best: ours {best_a:>8.0}/s openssl {best_b:>8.0}/s ratio {:.2} | median ratio {:.2}",
        best_a / best_b,
        med_a / med_b
    );
}

fn bench_size(bits: usize) {
    let ossl = Rsa::generate(bits as u32).unwrap();
    let der = ossl.private_key_to_der().unwrap();
    let ours = RsaPrivateKey::from_pkcs1_der(&der).unwrap();
    let pkey = PKey::from_rsa(ossl.clone()).unwrap();
    let digest = [0x5au8; 32];
    let msg = b"abc";
    let sig = ours.sign_pkcs1v15(HashAlg::Sha256, msg, &mut OsRng).unwrap();
    let ct = ours.public_key().encrypt_pkcs1v15(&[7u8; 32], &mut OsRng).unwrap();
    let mut out = vec![0u8; ossl.size() as usize];
    println!("RSA-{bits}:");
    compare(
        "sign (PKCS#1 v1.5, digest)",
        || {
            ours.sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut OsRng).unwrap();
        },
        || {
            let mut t = vec![0u8; 19 + 32];
            t[..19].copy_from_slice(HashAlg::Sha256.digest_info_prefix());
            t[19..].copy_from_slice(&digest);
            ossl.private_encrypt(&t, &mut out, Padding::PKCS1).unwrap();
        },
    );
    compare(
        "verify (PKCS#1 v1.5, SHA-256)",
        || ours.public_key().verify_pkcs1v15(HashAlg::Sha256, msg, &sig).unwrap(),
        || {
            let mut v = Verifier::new(MessageDigest::sha256(), &pkey).unwrap();
            assert!(v.verify_oneshot(&sig, msg).unwrap());
        },
    );
    let mut out2 = vec![0u8; ossl.size() as usize];
    compare(
        "decrypt (PKCS#1 v1.5)",
        || {
            ours.decrypt_pkcs1v15(&ct, &mut OsRng).unwrap();
        },
        || {
            ossl.private_decrypt(&ct, &mut out2, Padding::PKCS1).unwrap();
        },
    );
    compare(
        "encrypt (PKCS#1 v1.5)",
        || {
            ours.public_key().encrypt_pkcs1v15(&[7u8; 32], &mut OsRng).unwrap();
        },
        || {
            ossl.public_encrypt(&[7u8; 32], &mut out2, Padding::PKCS1).unwrap();
        },
    );
}

fn rsa_speed_beside_openssl() {
    println!(
        "OPENSSL_ia32cap = {:?} (\":~0x200000\" turns OpenSSL's IFMA code off)",
        std::env::var("OPENSSL_ia32cap").ok()
    );
    for bits in [2048, 3072, 4096] {
        bench_size(bits);
    }
}

/// Key generation: 2048-bit keys, ours and OpenSSL's interleaved, one at a time; mean,
/// median and spread of the wall time per key.
fn rsa_keygen_beside_openssl() {
    const KEYS: usize = 24;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..KEYS {
        ours.push(1e3 * seconds(1, || _ = RsaPrivateKey::generate(2048, &mut OsRng).unwrap()));
        theirs.push(1e3 * seconds(1, || _ = Rsa::generate(2048).unwrap()));
    }
    for (who, v) in [("ours", ours), ("openssl", theirs)] {
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt();
        let mut s = v.clone();
        s.sort_by(f64::total_cmp);
        println!(
            "keygen 2048 {who:<8} {KEYS} keys: mean {mean:.1} ms, median {:.1} ms, sd {sd:.1} ms, min {:.1}, max {:.1}",
            s[s.len() / 2],
            s[0],
            s[s.len() - 1]
        );
    }
}

/// Private operations of `bits`: OpenSSL, the scalar backend, the detected one, and
/// `private_batch` of 8 and 16, in interleaved runs of 30 ms, 31 rounds.
fn backends(bits: u32) {
    const ROUNDS: usize = 31;
    let rsa = Rsa::generate(bits).unwrap();
    let key = RsaPrivateKey::from_pkcs1_der(&rsa.private_key_to_der().unwrap()).unwrap();
    let pkey = PKey::from_rsa(rsa).unwrap();
    let scalar = key.clone().with_backend(Backend::Scalar).unwrap();
    let fast = key.clone().with_backend(Backend::Auto).unwrap();
    let digest = [0x5au8; 32];
    let mut rng = OsRng;
    let req =
        PrivateRequest::SignPkcs1v15Prehashed { hash: HashAlg::Sha256, digest: digest.to_vec() };
    let b8: Vec<(&RsaPrivateKey, &PrivateRequest)> = (0..8).map(|_| (&fast, &req)).collect();
    let b16: Vec<(&RsaPrivateKey, &PrivateRequest)> = (0..16).map(|_| (&fast, &req)).collect();
    let want = scalar.sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut rng).unwrap();
    assert_eq!(fast.sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut rng).unwrap(), want);
    assert!(private_batch(&b8, &mut rng).iter().all(|r| r.as_ref() == Ok(&want)));
    let mut openssl = || {
        let mut s = Signer::new(MessageDigest::sha256(), &pkey).unwrap();
        s.update(&digest).unwrap();
        std::hint::black_box(s.sign_to_vec().unwrap());
    };
    let one = |k: &RsaPrivateKey| {
        std::hint::black_box(
            k.sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut OsRng).unwrap(),
        );
    };
    let mut on_scalar = || one(&scalar);
    let mut on_fast = || {
        std::hint::black_box(
            fast.sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut OsRng).unwrap(),
        );
    };
    let mut batch8 = || _ = std::hint::black_box(private_batch(&b8, &mut OsRng));
    let mut batch16 = || _ = std::hint::black_box(private_batch(&b16, &mut OsRng));
    let names = [
        "openssl sign",
        "scalar sign",
        fast.backend_name().unwrap(),
        "private_batch x8",
        "private_batch x16",
    ];
    let rates = race_rates(
        ROUNDS,
        0.03,
        &mut [
            (1, &mut openssl),
            (1, &mut on_scalar),
            (1, &mut on_fast),
            (8, &mut batch8),
            (16, &mut batch16),
        ],
    );
    let (best0, med0) = (rates[0][0], rates[0][ROUNDS / 2]);
    for (name, r) in names.iter().zip(&rates) {
        let (best, med) = (r[0], r[ROUNDS / 2]);
        println!(
            "RSA-{bits} {name:<20} best {best:>8.0}/s ({:.2}x openssl) median {med:>8.0}/s ({:.2}x)",
            best / best0,
            med / med0
        );
    }
}

fn rsa_private_backends_beside_openssl() {
    for bits in [2048, 3072, 4096] {
        backends(bits);
    }
}

/// Sizes between the IFMA classes, which run in the class above (`SPEED_BITS`, a
/// comma-separated list, picks others).
fn rsa_private_between_classes() {
    let list = std::env::var("SPEED_BITS").unwrap_or_else(|_| "1536,2560,7680".into());
    for bits in list.split(',').filter_map(|b| b.trim().parse().ok()) {
        backends(bits);
    }
}

/// Eight 2048-bit products modulo n: one by one on the core, and in one batched call
/// (in lanes where the key's backend has them); minimum of interleaved batches.
fn products_2048() {
    let key = RsaPrivateKey::generate(2048, &mut OsRng).unwrap();
    let jobs = ProductJobs::random(&key, 8, &mut OsRng).unwrap();
    let t = race_ns(200, &mut [&mut || jobs.run_on_core(), &mut || jobs.run_batched().unwrap()]);
    println!(
        "8 products of 2048 bits ({} backend): core {:.0} ns, batched {:.0} ns",
        key.backend_name().unwrap_or("?"),
        t[0],
        t[1]
    );
}

/// The key size: `PROFILE_BITS`, 2048 by default.
fn profile_bits() -> u32 {
    std::env::var("PROFILE_BITS").ok().and_then(|s| s.parse().ok()).unwrap_or(2048)
}

/// How long to run: `PROFILE_SECONDS`, 3 by default.
fn profile_seconds() -> f64 {
    std::env::var("PROFILE_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0)
}

/// A fresh key, the request every loop runs with it, and that request's answer. The
/// request signs, or with `PROFILE_OP=decrypt` decrypts (PKCS#1 v1.5, implicit rejection).
fn fixture() -> (RsaPrivateKey, PrivateRequest, Vec<u8>) {
    let rsa = Rsa::generate(profile_bits()).unwrap();
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

/// Runs `step` (which does `ops` operations with `key`, each expected to be `want`) for
/// `PROFILE_SECONDS` on a fresh key, and prints the rate.
fn profile(ops: usize, step: impl Fn(&RsaPrivateKey, &PrivateRequest, &[u8])) {
    let (key, req, want) = fixture();
    let rate = run_rate(ops, profile_seconds(), &mut || step(&key, &req, &want));
    println!("{rate:.0} ops/s");
}

fn profile_private_batch_8() {
    profile(8, |key, req, want| {
        let batch: Vec<(&RsaPrivateKey, &PrivateRequest)> = (0..8).map(|_| (key, req)).collect();
        let out = private_batch(&batch, &mut OsRng);
        assert!(out.iter().all(|r| r.as_deref() == Ok(want)));
    });
}

/// One operation at a time (`PrivateRequest::run`): where the time outside the kernel goes.
fn profile_single() {
    profile(1, |key, req, want| assert_eq!(req.run(key, &mut OsRng).unwrap(), want));
}

/// The engine under load: `PROFILE_CALLERS` threads (64 by default) each calling
/// [`Engine::run`] in a loop for `PROFILE_SECONDS`, as `cryptocard speed --engine` does at
/// its top level; prints the rate and how the requests ran.
fn profile_engine() {
    let callers: usize =
        std::env::var("PROFILE_CALLERS").ok().and_then(|s| s.parse().ok()).unwrap_or(64);
    let secs = profile_seconds();
    let (key, req, want) = fixture();
    let key = Arc::new(key);
    let engine = Engine::new().unwrap();
    let before = engine.stats();
    let start = std::time::Instant::now();
    let mut done = 0usize;
    let elapsed = seconds(1, || {
        done = std::thread::scope(|s| {
            let threads: Vec<_> = (0..callers)
                .map(|_| {
                    s.spawn(|| {
                        let mut n = 0;
                        // The deadline each caller checks (not a timing).
                        while start.elapsed().as_secs_f64() < secs {
                            assert_eq!(engine.run(Arc::clone(&key), req.clone()).unwrap(), want);
                            n += 1;
                        }
                        n
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).sum()
        });
    });
    println!("{:.0} ops/s", done as f64 / elapsed);
    println!("{:?}", engine.stats().since(&before));
}

/// Our 2048-bit signing alone, 2000 times on a fixed key (the BoringSSL test file's
/// RSA-2048), for a profiler or `perf stat -e cycles:u`.
fn rsa_sign_loop_for_profiling() {
    let hex = include_str!("../../cryptocard/tests/data/rsa/rsa2048_pkcs1.hex").trim();
    let der: Vec<u8> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    let key = RsaPrivateKey::from_pkcs1_der(&der).unwrap();
    let digest = [0x5au8; 32];
    for _ in 0..2000 {
        key.sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut OsRng).unwrap();
    }
}
