//! RSA speed beside OpenSSL's libcrypto on the same keys, in the same process, interleaved:
//! sign (PKCS#1 v1.5, SHA-256 digest given), verify, OAEP/PKCS#1 decrypt and key
//! generation. Ignored by default; run with
//!
//! ```text
//! OPENSSL_ia32cap=:~0x200000 cargo test --release -p cryptocard --test rsa_speed -- --ignored --nocapture
//! ```
//!
//! (the variable turns OpenSSL's AVX-512 IFMA code off, for the scalar comparison; it
//! must be set before the process starts). Prints ops/s and ratios (ours / OpenSSL, > 1
//! is faster) of the best of many short interleaved batches, and the ratio of the
//! medians. Never asserts a time.

use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::RsaPrivateKey;
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::rsa::{Padding, Rsa};
use openssl::sign::{Signer, Verifier};
use std::time::Instant;

/// Rounds of the interleaved comparison, and the length of one batch.
const ROUNDS: usize = 41;
const BATCH_SECONDS: f64 = 0.02;

/// ops/s of one batch of `f` lasting about `BATCH_SECONDS`.
fn batch_rate(f: &mut impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut n = 0u64;
    loop {
        f();
        n += 1;
        let t = start.elapsed().as_secs_f64();
        if t >= BATCH_SECONDS {
            return n as f64 / t;
        }
    }
}

/// Ours and theirs in alternating batches; the best batch of each (the one least
/// disturbed by the other jobs on this shared machine) and the median.
fn compare(what: &str, mut ours: impl FnMut(), mut theirs: impl FnMut()) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        a.push(batch_rate(&mut ours));
        b.push(batch_rate(&mut theirs));
    }
    a.sort_by(|x, y| y.partial_cmp(x).unwrap());
    b.sort_by(|x, y| y.partial_cmp(x).unwrap());
    let (best_a, best_b, med_a, med_b) = (a[0], b[0], a[ROUNDS / 2], b[ROUNDS / 2]);
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
    let _ = Signer::new(MessageDigest::sha256(), &pkey).unwrap();
}

#[test]
#[ignore]
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
#[test]
#[ignore]
fn rsa_keygen_beside_openssl() {
    const KEYS: usize = 24;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..KEYS {
        let t = Instant::now();
        RsaPrivateKey::generate(2048, &mut OsRng).unwrap();
        ours.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        Rsa::generate(2048).unwrap();
        theirs.push(t.elapsed().as_secs_f64() * 1e3);
    }
    for (who, v) in [("ours", ours), ("openssl", theirs)] {
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt();
        let mut s = v.clone();
        s.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "keygen 2048 {who:<8} {KEYS} keys: mean {mean:.1} ms, median {:.1} ms, sd {sd:.1} ms, min {:.1}, max {:.1}",
            s[s.len() / 2],
            s[0],
            s[s.len() - 1]
        );
    }
}

/// Our 2048-bit signing alone, 2000 times on a fixed key (the BoringSSL test file's
/// RSA-2048), for a profiler or `perf stat -e cycles:u`.
#[test]
#[ignore]
fn rsa_sign_loop_for_profiling() {
    let der = hex::decode(include_str!("data/rsa/rsa2048_pkcs1.hex").trim()).unwrap();
    let key = RsaPrivateKey::from_pkcs1_der(&der).unwrap();
    let digest = [0x5au8; 32];
    for _ in 0..2000 {
        key.sign_pkcs1v15_prehashed(HashAlg::Sha256, &digest, &mut OsRng).unwrap();
    }
}
