//! The engine after `fork()`: a child has none of its parent's worker threads (fork
//! copies only the calling thread), so an engine made before the fork must run the
//! child's requests on the child's own thread, and dropping it must return, rather than
//! queue them for workers that do not exist and wait forever. A pre-fork server that
//! made its engine (or `cryptocard_rustls::provider()`) in the parent is the case.
//!
//! Alone in its test binary, so that no other test thread runs while the process forks.

mod fork_common;

use cryptocard::digest::HashAlg;
use cryptocard::engine::Engine;
use cryptocard::rsa::{PrivateRequest, RsaPrivateKey};
use std::sync::Arc;
use std::sync::mpsc::channel;

fn key() -> Arc<RsaPrivateKey> {
    let der = hex::decode(include_str!("data/rsa/rsa2048_pkcs1.hex").trim()).unwrap();
    Arc::new(RsaPrivateKey::from_pkcs1_der(&der).unwrap())
}

fn request(i: u8) -> PrivateRequest {
    PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg: vec![i; 3] }
}

/// The child's part: every way in answers, with the right signature, and the engine
/// drops. Returns the exit code (0: all well; a hang is caught by the parent's deadline).
fn child(engine: Engine, key: &Arc<RsaPrivateKey>) -> i32 {
    let public = key.public_key();
    let good = |i: u8, sig: &[u8]| public.verify_pkcs1v15(HashAlg::Sha256, &[i; 3], sig).is_ok();
    let Ok(sig) = engine.run(key.clone(), request(1)) else { return 2 };
    if !good(1, &sig) {
        return 3;
    }
    let Ok(sig) = engine.submit(key.clone(), request(2)).wait() else { return 4 };
    if !good(2, &sig) {
        return 5;
    }
    let (tx, rx) = channel();
    if engine.submit_with(key.clone(), request(3), move |a| tx.send(a).unwrap()).is_err() {
        return 6;
    }
    match rx.try_recv() {
        Ok(Ok(sig)) if good(3, &sig) => {}
        _ => return 7,
    }
    let batch: Vec<_> = (4..12).map(|i| (key.clone(), request(i))).collect();
    for (i, a) in (4..12).zip(engine.sign_batch(&batch)) {
        match a {
            Ok(sig) if good(i, &sig) => {}
            _ => return 8,
        }
    }
    drop(engine);
    0
}

#[test]
fn an_engine_made_before_fork_serves_the_child() {
    let key = key();
    let engine = Engine::builder().workers(2).build().unwrap();
    // The parent's workers are busy with a burst as it forks: the child's copy of the
    // queue and counts is a snapshot of a working engine.
    let burst: Vec<_> = (0..32).map(|i| engine.submit(key.clone(), request(100 + i))).collect();
    // The child takes the engine (its drop is part of the check); the parent keeps it.
    let mut slot = Some(engine);
    let code = fork_common::in_child("its requests waited for its parent's workers", || {
        child(slot.take().unwrap(), &key)
    });
    let engine = slot.unwrap();
    assert_eq!(code, 0, "the child's engine answered wrongly");
    // The parent's engine is untouched by the child.
    let public = key.public_key();
    for (i, t) in (100..).zip(burst) {
        public.verify_pkcs1v15(HashAlg::Sha256, &[i; 3], &t.wait().unwrap()).unwrap();
    }
    let sig = engine.submit(key.clone(), request(200)).wait().unwrap();
    public.verify_pkcs1v15(HashAlg::Sha256, &[200; 3], &sig).unwrap();
}
