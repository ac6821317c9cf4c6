//! `private_batch` against the single operations: mixed key sizes and keys in one call,
//! duplicate requests, partial lane batches of 1 to 7 operations, and invalid requests
//! (input >= n, wrong lengths, messages too long) that must fail alone. The results must
//! be exactly those of `PrivateRequest::run` (PSS signatures, whose salt is random, must
//! verify), and exactly those of the scalar backend. Runs on any CPU: the default backend
//! batches in IFMA lanes where the CPU has them, in AVX2 lanes otherwise (scalar on a
//! CPU with neither), and the AVX2 backend is also tested on its own wherever the CPU has
//! AVX2.

use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{Backend, Oaep, PrivateRequest, Pss, RsaPrivateKey, private_batch};
use openssl::rsa::Rsa;

fn key(bits: u32) -> RsaPrivateKey {
    let rsa = Rsa::generate(bits).unwrap();
    RsaPrivateKey::from_pkcs1_der(&rsa.private_key_to_der().unwrap()).unwrap()
}

fn random_input(k: usize) -> Vec<u8> {
    let mut x = vec![0u8; k];
    openssl::rand::rand_bytes(&mut x).unwrap();
    x[0] &= 0x7f;
    x
}

/// A mix of every request kind for `key`, `i` varying the inputs.
fn requests_for(key: &RsaPrivateKey, i: usize) -> Vec<PrivateRequest> {
    let k = key.size();
    let msg = format!("message {i}").into_bytes();
    let oaep = Oaep::new(HashAlg::Sha256);
    let mut rng = OsRng;
    let ct_oaep = key.public_key().encrypt_oaep(&oaep, &msg, &mut rng).unwrap();
    let ct_v15 = key.public_key().encrypt_pkcs1v15(&msg, &mut rng).unwrap();
    vec![
        PrivateRequest::RawPrivate { input: random_input(k) },
        PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg: msg.clone() },
        PrivateRequest::SignPkcs1v15Raw { data: msg.clone() },
        PrivateRequest::DecryptOaep { params: oaep, ciphertext: ct_oaep },
        PrivateRequest::DecryptPkcs1v15 { ciphertext: ct_v15.clone() },
        PrivateRequest::DecryptPkcs1v15 { ciphertext: random_input(k) },
        PrivateRequest::DecryptPkcs1v15Explicit { ciphertext: ct_v15 },
        PrivateRequest::SignPss { params: Pss::new(HashAlg::Sha256), msg },
    ]
}

/// Invalid requests: each must fail alone, with the single operation's error.
fn invalid_for(key: &RsaPrivateKey) -> Vec<PrivateRequest> {
    let k = key.size();
    let n = key.public_key().n().to_be_bytes_padded(k).unwrap();
    vec![
        PrivateRequest::RawPrivate { input: n.clone() },
        PrivateRequest::RawPrivate { input: vec![0xff; k] },
        PrivateRequest::RawPrivate { input: vec![1; k - 1] },
        PrivateRequest::DecryptOaep { params: Oaep::new(HashAlg::Sha256), ciphertext: n.clone() },
        PrivateRequest::DecryptPkcs1v15 { ciphertext: n },
        PrivateRequest::SignPkcs1v15Raw { data: vec![7; k] },
        PrivateRequest::DecryptPkcs1v15Explicit { ciphertext: random_input(k) },
    ]
}

/// Runs `batch` and checks every result against the single operation on the same key
/// and on its scalar twin.
fn check(batch: &[(&RsaPrivateKey, &PrivateRequest)]) {
    let mut rng = OsRng;
    let got = private_batch(batch, &mut rng);
    assert_eq!(got.len(), batch.len());
    for (i, ((key, req), got)) in batch.iter().zip(&got).enumerate() {
        let scalar = (*key).clone().with_backend(Backend::Scalar).unwrap();
        let single = req.run(key, &mut rng);
        let on_scalar = req.run(&scalar, &mut rng);
        match req {
            PrivateRequest::SignPss { params, msg } => {
                let sig = got.as_ref().unwrap();
                key.public_key().verify_pss(params, msg, sig).unwrap();
                assert!(single.is_ok() && on_scalar.is_ok());
            }
            _ => {
                assert_eq!(got, &single, "request {i} ({} bits): batch vs single", key.bits());
                assert_eq!(got, &on_scalar, "request {i}: batch vs scalar single");
            }
        }
    }
}

/// The backend the default choice resolves to here, for the expectations on lanes.
fn default_lanes() -> Option<(usize, Backend)> {
    if Backend::Ifma.is_available() {
        Some((4, Backend::Ifma))
    } else if Backend::Avx2.is_available() {
        Some((2, Backend::Avx2))
    } else {
        None
    }
}

#[test]
fn mixed_sizes_keys_and_invalid_requests() {
    if default_lanes().is_none() {
        println!(
            "note: neither AVX-512 IFMA nor AVX2 on this CPU; the batch runs on the scalar backend"
        );
    }
    mixed_sizes_on(|k| k);
}

/// The same on the AVX2 backend, whatever else the CPU has.
#[test]
fn mixed_sizes_keys_and_invalid_requests_on_avx2() {
    if !Backend::Avx2.is_available() {
        println!("skipped: no AVX2 on this CPU");
        return;
    }
    mixed_sizes_on(|k| k.with_backend(Backend::Avx2).unwrap());
}

fn mixed_sizes_on(backend: impl Fn(RsaPrivateKey) -> RsaPrivateKey) {
    let keys = [key(1024), key(1024), key(2048), key(2048), key(3072), key(4096)].map(backend);
    let mut reqs: Vec<(usize, PrivateRequest)> = Vec::new();
    for (j, key) in keys.iter().enumerate() {
        let n = if key.bits() >= 3072 { 1 } else { 2 };
        for i in 0..n {
            reqs.extend(requests_for(key, i).into_iter().map(|r| (j, r)));
        }
        reqs.extend(invalid_for(key).into_iter().map(|r| (j, r)));
    }
    // Duplicates: the same requests again, interleaved.
    let dup: Vec<(usize, PrivateRequest)> = reqs.iter().step_by(3).cloned().collect();
    reqs.extend(dup);
    // Interleave keys so that batches mix them.
    reqs.sort_by_key(|(j, r)| (format!("{r:?}").len() % 7, *j));
    let batch: Vec<(&RsaPrivateKey, &PrivateRequest)> =
        reqs.iter().map(|(j, r)| (&keys[*j], r)).collect();
    check(&batch);
    // Invalid requests failed, valid ones did not.
    let results = private_batch(&batch, &mut OsRng);
    let invalid = invalid_for(&keys[0]).len();
    assert!(results.iter().filter(|r| r.is_err()).count() >= invalid * keys.len());
}

#[test]
fn partial_batches_of_one_to_seven() {
    let keys = [key(2048), key(2048)];
    let class = keys[0].batch_class();
    assert_eq!(class.is_lane_batched(), default_lanes().is_some());
    if let Some((per_call, _)) = default_lanes() {
        assert_eq!(class.ops_per_batch(), per_call);
        assert!((1..=per_call).contains(&class.min_batch_ops()));
    }
    partial_batches_on(keys);
}

/// The same on the AVX2 backend: two operations to a call, so a batch of seven is three
/// calls and one operation alone, and a bad lane falls in a call or alone.
#[test]
fn partial_batches_of_one_to_seven_on_avx2() {
    if !Backend::Avx2.is_available() {
        println!("skipped: no AVX2 on this CPU");
        return;
    }
    let keys = [key(2048), key(2048)].map(|k| k.with_backend(Backend::Avx2).unwrap());
    let class = keys[0].batch_class();
    assert!(class.is_lane_batched());
    assert_eq!((class.ops_per_batch(), class.min_batch_ops()), (2, 2));
    partial_batches_on(keys);
}

fn partial_batches_on(keys: [RsaPrivateKey; 2]) {
    assert_eq!(keys[0].batch_class(), keys[1].batch_class());
    for size in 1..=7usize {
        let reqs: Vec<(usize, PrivateRequest)> = (0..size)
            .map(|i| (i % 2, PrivateRequest::RawPrivate { input: random_input(256) }))
            .collect();
        let batch: Vec<(&RsaPrivateKey, &PrivateRequest)> =
            reqs.iter().map(|(j, r)| (&keys[*j], r)).collect();
        check(&batch);
        // One invalid lane in the middle fails alone.
        let mut with_bad = reqs.clone();
        let n = keys[0].public_key().n().to_be_bytes_padded(256).unwrap();
        with_bad.insert(size / 2, (0, PrivateRequest::RawPrivate { input: n }));
        let batch: Vec<(&RsaPrivateKey, &PrivateRequest)> =
            with_bad.iter().map(|(j, r)| (&keys[*j], r)).collect();
        let results = private_batch(&batch, &mut OsRng);
        for (i, r) in results.iter().enumerate() {
            assert_eq!(r.is_err(), i == size / 2, "batch of {size}, request {i}");
        }
        check(&batch);
    }
}

#[test]
fn scalar_keys_batch_alone() {
    let k = key(1024).with_backend(Backend::Scalar).unwrap();
    assert!(!k.batch_class().is_lane_batched());
    let reqs = requests_for(&k, 0);
    let batch: Vec<(&RsaPrivateKey, &PrivateRequest)> = reqs.iter().map(|r| (&k, r)).collect();
    check(&batch);
    assert!(private_batch(&[], &mut OsRng).is_empty());
}

/// RSA-6144 (60-digit primes, the largest class with mb8 batches): a batch of three
/// operations runs in one mb8 batch on IFMA and must match the single operations.
#[test]
fn rsa_6144_batch() {
    let keys = [key(6144)];
    let reqs: Vec<PrivateRequest> =
        (0..3).map(|_| PrivateRequest::RawPrivate { input: random_input(768) }).collect();
    let batch: Vec<(&RsaPrivateKey, &PrivateRequest)> =
        reqs.iter().map(|r| (&keys[0], r)).collect();
    if Backend::Ifma.is_available() {
        assert!(keys[0].batch_class().is_lane_batched());
    }
    check(&batch);
}

/// Keys between the size classes run in the class above and share its batches: RSA-2560
/// (1280-bit primes) beside RSA-3072 in the 30-digit class, RSA-1536 beside RSA-2048 in
/// the 20-digit one, lanes of different limb lengths in one mb8 batch.
#[test]
fn keys_between_classes_share_batches() {
    let keys = [key(2560), key(3072), key(1536), key(2048)];
    keys_between_classes_on(keys);
    // On AVX2 too: RSA-2560 and RSA-3072 in the 56-digit class, RSA-1536 and RSA-2048
    // in the 38-digit one.
    if Backend::Avx2.is_available() {
        let keys = [key(2560), key(3072), key(1536), key(2048)]
            .map(|k| k.with_backend(Backend::Avx2).unwrap());
        keys_between_classes_on(keys);
    }
}

fn keys_between_classes_on(keys: [RsaPrivateKey; 4]) {
    if keys[0].batch_class().is_lane_batched() {
        assert_eq!(keys[0].batch_class(), keys[1].batch_class());
        assert_eq!(keys[2].batch_class(), keys[3].batch_class());
        assert_ne!(keys[0].batch_class(), keys[2].batch_class());
        assert!(keys.iter().all(|k| k.batch_class().is_lane_batched()));
    }
    let reqs: Vec<(usize, PrivateRequest)> = (0..12)
        .map(|i| (i % 4, PrivateRequest::RawPrivate { input: random_input(keys[i % 4].size()) }))
        .collect();
    let batch: Vec<(&RsaPrivateKey, &PrivateRequest)> =
        reqs.iter().map(|(j, r)| (&keys[*j], r)).collect();
    check(&batch);
}
