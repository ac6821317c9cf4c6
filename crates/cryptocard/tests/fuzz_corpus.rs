//! Every cargo-fuzz target's body on the target's committed seed corpus
//! (`fuzz/corpus/<target>/`, see its README), with the targets' own keys (`fuzz/keys.rs`),
//! so that the suite runs, without nightly, exactly what a fuzzing run starts from
//! (`scripts/fuzz` runs the targets themselves). Each test also checks that its corpus
//! reaches what it is there for: keys that parse, signatures that verify, ciphertexts
//! that decrypt, and for `private_batch` every key, every request kind, successes and
//! failures.

#[path = "../fuzz/keys.rs"]
mod fuzz_keys;

use std::path::Path;

use cryptocard::digest::HashAlg;
use cryptocard::engine::fuzzing::{BatchHarness, KINDS};
use cryptocard::rng::OsRng;
use cryptocard::rsa::{Oaep, Pss, SaltLength, fuzzing, key_from_der, key_from_pem};

/// The seeds of `target`, sorted by name; fails if there are fewer than four.
fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
    let mut seeds: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .filter(|(name, _)| name != "README.md")
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 4, "{target}: {} seeds", seeds.len());
    seeds
}

#[test]
fn parse_keys_on_its_corpus() {
    for (name, seed) in corpus("parse_keys") {
        fuzzing::parse_keys(&seed);
        let parsed = match std::str::from_utf8(&seed) {
            Ok(text) => key_from_pem(text, None).is_ok() || key_from_pem(text, Some(b"x")).is_ok(),
            Err(_) => key_from_der(&seed, None).is_ok() || key_from_der(&seed, Some(b"x")).is_ok(),
        };
        assert!(parsed, "{name}: every seed is a key");
    }
}

#[test]
fn verify_on_its_corpus() {
    let keys = fuzz_keys::boringssl_public_keys();
    let mut good = 0;
    for (name, seed) in corpus("verify") {
        fuzzing::verify_any(&keys, &seed);
        let key = &keys[usize::from(seed[0]) % keys.len()];
        let (sig, msg) = seed[2..].split_at(key.size().min(seed.len() - 2));
        let hash = [HashAlg::Sha1, HashAlg::Sha256][usize::from(seed[1] == 1)];
        let pss = Pss::new(hash).with_salt(SaltLength::Auto);
        let ok = key.verify_pkcs1v15(hash, msg, sig).is_ok()
            || key.verify_pss(&pss, msg, sig).is_ok()
            || key.verify_x931(hash, msg, sig).is_ok();
        let valid = ["pkcs1-", "pss-", "x931-"].iter().any(|p| name.starts_with(p));
        assert_eq!(ok, valid, "{name}");
        good += usize::from(ok);
    }
    assert!(good >= 4, "{good} valid signatures");
}

#[test]
fn decrypt_on_its_corpus() {
    let key = fuzz_keys::rsa512();
    for (name, seed) in corpus("decrypt") {
        fuzzing::decrypt(&key, &seed);
        let ct = &seed[1..];
        let plain = match name.as_str() {
            "pkcs1.bin" => key.decrypt_pkcs1v15_explicit(ct, &mut OsRng),
            "oaep-sha1.bin" => key.decrypt_oaep(&Oaep::new(HashAlg::Sha1), ct, &mut OsRng),
            _ => continue,
        };
        assert_eq!(plain.as_deref(), Ok(&b"hello"[..]), "{name}");
    }
}

#[test]
fn private_batch_on_its_corpus() {
    let harness = BatchHarness::new(fuzz_keys::batch_keys()).unwrap();
    let outcomes: Vec<_> =
        corpus("private_batch").iter().flat_map(|(_, seed)| harness.run(seed)).collect();
    for key in 0..4 {
        assert!(outcomes.iter().any(|o| o.key == key), "key {key} unused");
    }
    for kind in 0..KINDS {
        assert!(outcomes.iter().any(|o| o.kind == kind && o.ok), "kind {kind} never succeeds");
    }
    let failed = outcomes.iter().filter(|o| !o.ok).count();
    assert!(failed >= 6, "{failed} failing requests: the invalid inputs are not reached");
}
