//! Where a private-key operation runs: the one seam between the OpenSSL-facing code and
//! the library's engine.
//!
//! Every signature and decryption of the provider is a [`PrivateRequest`] handed to
//! [`run_private`], which gives it to this process's [`Engine`] with [`Engine::run`]: a
//! lone caller runs on its own thread at once (the single-operation path, no timer,
//! unlike QAT_Engine's 10 ms poll, its issue 232), and callers on several threads at once
//! are batched into the IFMA lanes. Inside an OpenSSL async job (HAProxy's
//! `ssl-mode-async`, `openssl speed -async_jobs`) the request goes to the same engine with
//! a callback instead, and the job pauses until the callback wakes its wait fd
//! (`async_job`), so one thread has many requests in flight. Inside a job nothing runs on
//! the caller's thread, whose stack there is the job's small one: with the engine off
//! the request runs on the helper thread the caller's thread keeps (`job_thread`).
//!
//! # fork()
//!
//! nginx's master loads its configuration (and this provider) and then forks workers.
//! The engine's threads do not survive a fork, so the engine is made lazily, on first
//! use, and belongs to the process id that made it: a child that finds its parent's
//! engine makes its own and leaks the inherited one (dropping it would join threads
//! that do not exist in the child). Keys carry the same guard for their blinding
//! factors (`key.rs`).

use crate::async_job;
use cryptocard::Result;
use cryptocard::engine::Engine;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{PrivateRequest, RsaPrivateKey};
use std::sync::{Arc, Mutex};

/// This process's engine and the pid that made it.
static ENGINE: Mutex<Option<(u32, Arc<Engine>)>> = Mutex::new(None);

/// The environment variable that turns the engine off (`0`): every operation then runs
/// directly on its caller's thread.
pub const ENGINE_VAR: &str = "CRYPTOCARD_PROVIDER_ENGINE";

/// This process's engine, made on first use (`None` if it cannot be made or is off).
fn engine() -> Option<Arc<Engine>> {
    if std::env::var(ENGINE_VAR).is_ok_and(|v| v == "0") {
        return None;
    }
    let pid = std::process::id();
    let mut slot = ENGINE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((owner, engine)) = slot.as_ref()
        && *owner == pid
    {
        return Some(engine.clone());
    }
    if let Some((_, inherited)) = slot.take() {
        // A parent's engine, inherited by fork: its threads are not ours. Never drop it.
        std::mem::forget(inherited);
    }
    let engine = Arc::new(Engine::new().ok()?);
    *slot = Some((pid, engine.clone()));
    Some(engine)
}

/// The counters of this process's engine, if it has made one (never makes one). `None`
/// too while another thread holds the slot (this never waits: it runs at unload and from
/// the counters' writer thread, and after a fork the slot may be held by a thread the
/// child does not have).
pub fn engine_stats() -> Option<cryptocard::engine::Stats> {
    let slot = match ENGINE.try_lock() {
        Ok(slot) => slot,
        Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return None,
    };
    let (owner, engine) = slot.as_ref()?;
    (*owner == std::process::id()).then(|| engine.stats())
}

/// Runs one private-key request for `key`: on the engine, or directly without one;
/// inside an async job always off the job's stack.
pub fn run_private(key: &Arc<RsaPrivateKey>, req: PrivateRequest) -> Result<Vec<u8>> {
    match (engine(), async_job::current()) {
        // Outside jobs: the engine's direct path or a worker, or this thread.
        (Some(engine), None) => engine.run(key.clone(), req),
        (None, None) => req.run(key, &mut OsRng),
        // In an async job the job pauses only where a batch may form: the key's class
        // runs lane batches, and this thread's pauses have found other jobs of its
        // application submitting meanwhile (`async_job::run_in_job`). Otherwise (a key
        // size the kernels do not take, a CPU without vector lanes, one handshake at a
        // time) the pause and the wake-up through the application's event loop cost more
        // than they gain, and the thread waits for an engine worker instead.
        (Some(engine), Some(job)) => {
            let lanes = key.batch_class().is_lane_batched();
            async_job::run_in_job(&job, &engine, key, &req, lanes)
        }
        (None, Some(_)) => {
            crate::stats::count_in_job();
            async_job::off_stack(|| req.run(key, &mut OsRng))
        }
    }
}
