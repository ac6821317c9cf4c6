//! The fault check against one bit flipped in each phase of the private operation
//! (`cryptocard::rsa::fault`), on every path: one operation (the scalar core, or x2 on
//! IFMA), `private_batch` (one by one on the scalar core, in AVX2 or mb8 lanes) and the
//! engine, on each backend this CPU has. Every answer is either the right one or
//! `FaultDetected`; the struck operation's is `FaultDetected`; and the key works again
//! afterwards.
//!
//! The plan of `fault::arm` is process-wide (the engine's workers are other threads), so
//! the tests here run one at a time ([`serial`]): an armed fault strikes the operations
//! of the test that armed it only.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use cryptocard::Error;
use cryptocard::digest::HashAlg;
use cryptocard::engine::Engine;
use cryptocard::rng::OsRng;
use cryptocard::rsa::fault::{Phase, arm};
use cryptocard::rsa::{Backend, Oaep, PrivateRequest, RsaPrivateKey, private_batch};

/// Held for the whole of each test.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// The RSA-2048 key of BoringSSL's `rsa_tests.txt` (see `tests/data/rsa/README.md`).
fn der2048() -> &'static [u8] {
    static DER: OnceLock<Vec<u8>> = OnceLock::new();
    DER.get_or_init(|| hex::decode(include_str!("data/rsa/rsa2048_pkcs1.hex").trim()).unwrap())
}

/// A new copy of the key on `backend`, with its own empty pool of blinding pairs.
fn fresh_key(backend: Backend) -> Arc<RsaPrivateKey> {
    let key = RsaPrivateKey::from_pkcs1_der(der2048()).unwrap();
    Arc::new(key.with_backend(backend).unwrap())
}

/// The backends to run on: the scalar core, and AVX2 and IFMA where this CPU has them.
fn backends() -> Vec<Backend> {
    let mut out = vec![Backend::Scalar];
    match Backend::Avx2.is_available() {
        true => out.push(Backend::Avx2),
        false => eprintln!("AVX2 half skipped: this CPU has no AVX2"),
    }
    match Backend::Ifma.is_available() {
        true => out.push(Backend::Ifma),
        false => eprintln!("IFMA half skipped: this CPU has no AVX-512 IFMA"),
    }
    out
}

/// Request `id` of a mix of schemes: PKCS#1 v1.5 signatures, PKCS#1 v1.5 decryption with
/// implicit rejection, OAEP decryption (all deterministic, so answers compare as bytes).
fn request(key: &RsaPrivateKey, id: usize) -> PrivateRequest {
    let msg = format!("message {id}").into_bytes();
    let public = key.public_key();
    match id % 3 {
        0 => PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg },
        1 => PrivateRequest::DecryptPkcs1v15 {
            ciphertext: public.encrypt_pkcs1v15(&msg, &mut OsRng).unwrap(),
        },
        _ => PrivateRequest::DecryptOaep {
            params: Oaep::new(HashAlg::Sha256),
            ciphertext: public.encrypt_oaep(&Oaep::new(HashAlg::Sha256), &msg, &mut OsRng).unwrap(),
        },
    }
}

/// `count` requests and their right answers (from the scalar core, before any fault).
fn requests(count: usize) -> Vec<(PrivateRequest, Vec<u8>)> {
    let reference = fresh_key(Backend::Scalar);
    (0..count)
        .map(|id| {
            let req = request(&reference, id);
            let want = req.run(&reference, &mut OsRng).unwrap();
            (req, want)
        })
        .collect()
}

/// One path: runs the requests on a key, all together where the path batches.
type Path = fn(&Arc<RsaPrivateKey>, &[(PrivateRequest, Vec<u8>)]) -> Vec<Result<Vec<u8>, Error>>;

fn one_by_one(
    key: &Arc<RsaPrivateKey>,
    reqs: &[(PrivateRequest, Vec<u8>)],
) -> Vec<Result<Vec<u8>, Error>> {
    reqs.iter().map(|(r, _)| r.run(key, &mut OsRng)).collect()
}

fn batch(
    key: &Arc<RsaPrivateKey>,
    reqs: &[(PrivateRequest, Vec<u8>)],
) -> Vec<Result<Vec<u8>, Error>> {
    let pairs: Vec<(&RsaPrivateKey, &PrivateRequest)> =
        reqs.iter().map(|(r, _)| (&**key, r)).collect();
    private_batch(&pairs, &mut OsRng)
}

fn engine(
    key: &Arc<RsaPrivateKey>,
    reqs: &[(PrivateRequest, Vec<u8>)],
) -> Vec<Result<Vec<u8>, Error>> {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    let engine = ENGINE.get_or_init(|| Engine::builder().workers(1).build().unwrap());
    let jobs: Vec<_> = reqs.iter().map(|(r, _)| (key.clone(), r.clone())).collect();
    engine.sign_batch(&jobs)
}

/// The paths, and whether each runs its operations' phases in request order (the engine
/// need not: a fault armed for the n-th occurrence may strike another request).
const PATHS: [(&str, Path, bool); 3] =
    [("one by one", one_by_one, true), ("private_batch", batch, true), ("engine", engine, false)];

/// Every answer is the right one or `FaultDetected`; returns the indices of the faulted.
fn faulted(
    got: &[Result<Vec<u8>, Error>],
    reqs: &[(PrivateRequest, Vec<u8>)],
    what: &str,
) -> Vec<usize> {
    assert_eq!(got.len(), reqs.len(), "{what}");
    let mut out = Vec::new();
    for (i, (got, (_, want))) in got.iter().zip(reqs).enumerate() {
        match got {
            Ok(answer) => assert_eq!(answer, want, "{what}: a wrong answer released for {i}"),
            Err(Error::FaultDetected) => out.push(i),
            Err(e) => panic!("{what}: request {i} failed with {e:?}"),
        }
    }
    out
}

/// A fault in a phase of one operation's own work (blinding product, reductions, each
/// exponentiation, Garner, unblinding) fails that operation and no other, for every
/// operation of a batch of eight (on IFMA: both lanes of each operation in two mb8
/// calls), on every path and backend.
#[test]
fn a_fault_in_an_operation_fails_it_alone() {
    let _serial = serial();
    let reqs = requests(8);
    // Every phase but those of the pairs' life (the tests below).
    let own = Phase::ALL.into_iter().filter(|p| !matches!(p, Phase::FreshSet | Phase::Renew));
    for backend in backends() {
        for (name, path, ordered) in PATHS {
            let key = fresh_key(backend);
            for phase in own.clone() {
                for target in 0..reqs.len() {
                    let what = format!("{backend:?}, {name}, {phase:?} in request {target}");
                    let armed = arm(phase, target, 7 + 61 * target);
                    let got = path(&key, &reqs);
                    assert!(armed.fired(), "{what}: the fault never struck");
                    drop(armed);
                    let hit = faulted(&got, &reqs, &what);
                    assert_eq!(hit.len(), 1, "{what}: {hit:?}");
                    assert!(!ordered || hit == [target], "{what}: {hit:?}");
                }
            }
            let what = format!("{backend:?}, {name}, afterwards");
            assert!(faulted(&path(&key, &reqs), &reqs, &what).is_empty(), "{what}");
        }
    }
}

/// A fault in the making of a set of blinding pairs (every pair of the set wrong) fails
/// the operations that take a pair of it (all of a batch, the first of a run one by one,
/// whose failure drops the set), releases no wrong answer, and the key's next
/// operations, on a new set, succeed.
#[test]
fn a_fault_in_a_set_of_pairs_is_caught_and_the_set_dropped() {
    let _serial = serial();
    let reqs = requests(8);
    for backend in backends() {
        for (name, path, ordered) in PATHS {
            let what = format!("{backend:?}, {name}, a fresh set");
            let key = fresh_key(backend);
            let armed = arm(Phase::FreshSet, 0, 1234);
            let got = path(&key, &reqs);
            assert!(armed.fired(), "{what}: the fault never struck");
            drop(armed);
            let hit = faulted(&got, &reqs, &what);
            assert!(!hit.is_empty(), "{what}");
            match (ordered, name) {
                (true, "one by one") => assert_eq!(hit, [0], "{what}"),
                (true, _) => assert_eq!(hit.len(), reqs.len(), "{what}"),
                _ => {}
            }
            assert!(faulted(&path(&key, &reqs), &reqs, &what).is_empty(), "{what}: afterwards");
        }
    }
}

/// A fault in the renewal of a used pair (A^2) leaves the operation that used it right,
/// and fails the one operation that takes the renewed pair next (in the same run one by
/// one, in the next run in a batch), and no other.
#[test]
fn a_fault_in_a_renewed_pair_fails_its_next_use_only() {
    let _serial = serial();
    let reqs = requests(8);
    for backend in backends() {
        for (name, path, _) in PATHS {
            for target in [0, 5, 7] {
                let what = format!("{backend:?}, {name}, renewal of request {target}'s pair");
                let key = fresh_key(backend);
                let armed = arm(Phase::Renew, target, 99 * target + 3);
                let first = faulted(&path(&key, &reqs), &reqs, &what);
                assert!(armed.fired(), "{what}: the fault never struck");
                drop(armed);
                let next = faulted(&path(&key, &reqs), &reqs, &what);
                assert_eq!(first.len() + next.len(), 1, "{what}: {first:?} then {next:?}");
                assert!(!first.contains(&target), "{what}: its own use failed");
                assert!(faulted(&path(&key, &reqs), &reqs, &what).is_empty(), "{what}: afterwards");
            }
        }
    }
}
