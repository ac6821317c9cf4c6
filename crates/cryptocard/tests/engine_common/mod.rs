//! Keys, requests and checks shared by the engine tests.
//!
//! Every answer is checked two ways: against the single-operation method on the same key
//! (PKCS#1 v1.5 signatures and decryptions are deterministic, so the bytes must be equal)
//! and by the public key (the signature verifies, the plaintext is the one encrypted).

#![allow(dead_code)] // each test binary uses its own part

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

use cryptocard::digest::HashAlg;
use cryptocard::engine::{Answer, Engine};
use cryptocard::rng::OsRng;
use cryptocard::rsa::{Backend, KeyGenOptions, Oaep, PrivateRequest, Pss, RsaPrivateKey};

/// The backend of the engine tests' keys: IFMA where the CPU has it (lane-batched, four
/// operations to a call), else scalar (never lane-batched). The expected batch counts are
/// written for these two; the AVX2 unit's calls of two are tested on their own.
pub fn lanes_backend() -> Backend {
    if Backend::Ifma.is_available() { Backend::Ifma } else { Backend::Scalar }
}

/// The RSA-2048 key of BoringSSL's `rsa_tests.txt` (see `tests/data/rsa/README.md`).
pub fn key2048() -> Arc<RsaPrivateKey> {
    static KEY: OnceLock<Arc<RsaPrivateKey>> = OnceLock::new();
    KEY.get_or_init(|| {
        let der = hex::decode(include_str!("../data/rsa/rsa2048_pkcs1.hex").trim()).unwrap();
        let key = RsaPrivateKey::from_pkcs1_der(&der).unwrap();
        Arc::new(key.with_backend(lanes_backend()).unwrap())
    })
    .clone()
}

/// The RSA-2048 key on the scalar backend: a class that is never lane-batched, whatever
/// the CPU.
pub fn key2048_scalar() -> Arc<RsaPrivateKey> {
    static KEY: OnceLock<Arc<RsaPrivateKey>> = OnceLock::new();
    KEY.get_or_init(|| Arc::new((*key2048()).clone().with_backend(Backend::Scalar).unwrap()))
        .clone()
}

/// Whether `key`'s operations run in mb8 lane batches on this machine (IFMA CPU, a class
/// with lanes). Tests derive their expected batch counts from it, so that they hold with
/// and without IFMA; where lane-batched, they check the layout they assume: 4 operations
/// to a call, a call worth it from at most 3 (`rsa/accel/ifma_key.rs`).
pub fn lane_batched(key: &RsaPrivateKey) -> bool {
    let c = key.batch_class();
    if c.is_lane_batched() {
        assert_eq!(c.ops_per_batch(), 4, "{c:?}");
        assert!((2..=3).contains(&c.min_batch_ops()), "{c:?}");
    }
    c.is_lane_batched()
}

/// Two generated two-prime 1024-bit keys (one batch class, different moduli).
pub fn keys1024() -> [Arc<RsaPrivateKey>; 2] {
    static KEYS: OnceLock<[Arc<RsaPrivateKey>; 2]> = OnceLock::new();
    KEYS.get_or_init(|| {
        let k = || {
            let key = RsaPrivateKey::generate(1024, &mut OsRng).unwrap();
            Arc::new(key.with_backend(lanes_backend()).unwrap())
        };
        [k(), k()]
    })
    .clone()
}

/// A generated three-prime 1536-bit key (a class the batch kernel does not take).
pub fn key3prime() -> Arc<RsaPrivateKey> {
    static KEY: OnceLock<Arc<RsaPrivateKey>> = OnceLock::new();
    KEY.get_or_init(|| {
        let opts = KeyGenOptions { primes: 3, ..KeyGenOptions::new(1536) };
        Arc::new(RsaPrivateKey::generate_with(&opts, &mut OsRng).unwrap())
    })
    .clone()
}

/// Every test key: two 1024-bit, one 2048-bit, one three-prime 1536-bit.
pub fn all_keys() -> Vec<Arc<RsaPrivateKey>> {
    let [a, b] = keys1024();
    vec![a, b, key2048(), key3prime()]
}

/// A PKCS#1 v1.5 SHA-256 signing request for a message made from `id`.
pub fn sign_req(id: u64) -> PrivateRequest {
    PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg: msg(id) }
}

pub fn msg(id: u64) -> Vec<u8> {
    format!("engine test message {id}").into_bytes()
}

/// A request of one of three schemes, chosen by `id`, and what its answer must satisfy.
pub fn mixed_req(key: &RsaPrivateKey, id: u64) -> PrivateRequest {
    match id % 3 {
        0 => sign_req(id),
        1 => PrivateRequest::SignPss { params: Pss::new(HashAlg::Sha256), msg: msg(id) },
        _ => {
            let ct = key
                .public_key()
                .encrypt_oaep(&Oaep::new(HashAlg::Sha256), &msg(id), &mut OsRng)
                .unwrap();
            PrivateRequest::DecryptOaep { params: Oaep::new(HashAlg::Sha256), ciphertext: ct }
        }
    }
}

/// Panics unless `answer` is the right answer to `sign_req(id)` with `key`.
pub fn check(key: &RsaPrivateKey, id: u64, answer: &Answer) {
    let out = answer.as_ref().unwrap_or_else(|e| panic!("request {id}: {e}"));
    key.public_key().verify_pkcs1v15(HashAlg::Sha256, &msg(id), out).unwrap();
    let single = key.sign_pkcs1v15(HashAlg::Sha256, &msg(id), &mut OsRng).unwrap();
    assert_eq!(out, &single, "request {id}: differs from the single operation");
}

/// Panics unless `answer` is the right answer to `mixed_req(key, id)`.
pub fn check_mixed(key: &RsaPrivateKey, id: u64, answer: &Answer) {
    let out = answer.as_ref().unwrap_or_else(|e| panic!("request {id}: {e}"));
    match id % 3 {
        0 => check(key, id, answer),
        1 => key.public_key().verify_pss(&Pss::new(HashAlg::Sha256), &msg(id), out).unwrap(),
        _ => assert_eq!(out, &msg(id), "request {id}: wrong plaintext"),
    }
}

/// Runs a future to completion on this thread: poll, park until woken, poll again. The
/// waker counts its wakes.
pub fn block_on<F: std::future::Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let wake = Arc::new(ThreadWaker::new());
    let waker = Waker::from(Arc::clone(&wake));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        wake.park();
    }
}

/// A waker that unparks the thread that made it and remembers that it was woken.
pub struct ThreadWaker {
    thread: Thread,
    woken: Mutex<usize>,
}

impl ThreadWaker {
    pub fn new() -> ThreadWaker {
        ThreadWaker { thread: std::thread::current(), woken: Mutex::new(0) }
    }

    /// Wakes so far.
    pub fn wakes(&self) -> usize {
        *self.woken.lock().unwrap()
    }

    /// Parks until woken (or a spurious unpark: `block_on` polls again either way).
    fn park(&self) {
        std::thread::park();
    }
}

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        *self.woken.lock().unwrap() += 1;
        self.thread.unpark();
    }
}

/// Occupies the engine's only worker: submits a request whose callback reports that it
/// runs and then waits until the returned sender sends (or is dropped). While it waits,
/// nothing queued can run.
pub fn occupy_worker(engine: &Engine) -> Sender<()> {
    let (started_tx, started_rx) = channel();
    let (release_tx, release_rx): (Sender<()>, Receiver<()>) = channel();
    let key = keys1024()[0].clone();
    let k = key.clone();
    engine
        .submit_with(key, sign_req(0), move |answer| {
            check(&k, 0, &answer);
            started_tx.send(()).unwrap();
            let _ = release_rx.recv();
        })
        .unwrap();
    started_rx.recv().unwrap();
    release_tx
}
