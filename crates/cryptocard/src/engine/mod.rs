//! The accelerator engine: a bounded queue, a batcher that fills AVX-512 IFMA lanes, and a
//! worker pool, for RSA private-key operations submitted by many callers.
//!
//! # The idea, from the seed papers
//!
//! Dusse and Kaliski put RSA on a DSP56000 card beside the PC (EUROCRYPT '90, sections
//! 5-6) and found the card paid off only above a crossover: below about 600 bytes of DES
//! the PC was faster doing the work itself than talking to the card. Shand, Bertin and
//! Vuillemin drove three PAM boards from one host (1990, sections 3-5): the host kept the
//! CRT split and recombination, the boards ran exponentiations, and the winning interface
//! was pipelined, so that every board always had its next command. Today the faster unit
//! is the eight 64-bit lanes of an AVX-512 register (eight half-size exponentiations, the
//! CRT halves of four RSA-2048 operations, in one "mb8" kernel call, in well under four
//! single operations' time: `crates/bench`, `ifma`) and the cores of the machine; the
//! host's share (padding, hashing, blinding, CRT, the fault check) stays in the RSA
//! layer, which [`private_batch`](crate::rsa::private_batch) runs around the kernel.
//!
//! # Structure
//!
//! ```text
//!  run ── permit free, no batch running, none of its class queued ─► caller's thread
//!   │                                                                (single operation)
//!  submit / submit_with / try_submit / sign_batch
//!   └─► bounded queue, one FIFO per batch class ─► policy ─► worker (one per core)
//!        (Busy or wait when full)                   │         ├ 1 request: single op
//!                                                   │         └ 2..8: private_batch
//!                                                   └ full batch, deadline, or nothing
//!                                                     more expected soon
//! ```
//!
//! * [`config`](EngineConfig): settings and their defaults, and what those rest on;
//! * `policy`: batch classes and the decision a free worker makes;
//! * `queue`: the per-class FIFOs; `pool`: shared state and the worker loop;
//! * `batch`: running jobs, panics caught; `guard`: the permit and live-count guards that
//!   keep a panic outside that catch from hanging shutdown; `ticket`: [`Ticket`] and
//!   callbacks;
//! * `offload`: [`Offload`], a unit beside the workers (the GPU) that takes a class's
//!   queue in large batches once it is deeper than the unit's crossover, on a thread of
//!   its own; without one configured (the default) there is no such thread;
//! * `stats`: [`Stats`];
//! * `fuzzing` (feature `fuzzing`): the body of the `private_batch` fuzz target, which
//!   checks `private_batch` and the engine against the scalar single operation;
//! * `signer` (feature `rustcrypto-traits`): [`AsyncSigningKey`] and
//!   [`AsyncPssSigningKey`], the RustCrypto `AsyncSigner` on an engine.
//!
//! ```
//! use std::sync::Arc;
//! use cryptocard::digest::HashAlg;
//! use cryptocard::engine::Engine;
//! use cryptocard::rsa::{PrivateRequest, RsaPrivateKey};
//!
//! let engine = Engine::builder().workers(2).build()?;
//! let key = Arc::new(RsaPrivateKey::generate(1024, &mut cryptocard::rng::OsRng)?);
//! let tickets: Vec<_> = (0..4u8)
//!     .map(|i| {
//!         let req = PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg: vec![i] };
//!         engine.submit(key.clone(), req)
//!     })
//!     .collect();
//! for (i, t) in tickets.into_iter().enumerate() {
//!     key.public_key().verify_pkcs1v15(HashAlg::Sha256, &[i as u8], &t.wait()?)?;
//! }
//! # Ok::<(), cryptocard::Error>(())
//! ```
//!
//! # Guarantees
//!
//! * Every accepted request is answered exactly once: by its result, or by
//!   [`Error::ShutDown`] when a [`ShutdownMode::Cancel`] shutdown drops it. A refused
//!   submission ([`Error::Busy`], [`Error::ShutDown`]) is reported to the submitter and
//!   never answered later.
//! * Answers are exactly the single-operation answers: the engine only decides where and
//!   with whom a request runs.
//! * At most [`EngineConfig::workers`] operations run at once, workers and direct callers
//!   together (calls made from callbacks, which compute inline on their worker's thread,
//!   aside).
//! * A panicking callback is caught; the worker lives on ([`Stats::callback_panics`]).
//!   A worker that panics anywhere else (a bug) answers its jobs with
//!   [`Error::ShutDown`] and gives back its permit; `shutdown` and `Drop` still return,
//!   and if no worker is left the engine closes and answers its queue the same way.
//! * Callbacks run on worker threads and should be short. From a callback (or anything
//!   else on a worker or offload thread), [`Engine::run`] and [`Engine::sign_batch`]
//!   compute inline and submissions never wait for room, so a callback cannot deadlock
//!   the pool; callbacks may shut the engine down, several at once too.
//! * `fork()` copies only the calling thread. In a child forked after the engine was
//!   made, every call runs its request on the calling thread (a callback is called
//!   before `submit_with` returns), nothing waits for the parent's workers, and dropping
//!   the engine returns at once. A child that wants batching makes an engine of its own
//!   (the OpenSSL provider does, `crates/provider`). Blinding pairs are never shared
//!   across a fork either (`rsa::blinding`).
//!
//! # Cost
//!
//! The engine adds hand-offs, not arithmetic: [`Engine::run`] takes the direct path when it
//! can, so a lone caller pays one lock round trip over a plain call and gets the plain
//! call's latency; a submission pays two thread hand-offs, which shows most on small
//! keys. Under load the batches pay: `cryptocard speed --engine` measures throughput and
//! latency for 1 to 64 callers beside OpenSSL and its reference points, a plain call and
//! `private_batch` without a queue (its table and plot are in `docs/performance.md`).

mod batch;
mod config;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod guard;
mod offload;
mod policy;
mod pool;
mod queue;
#[cfg(feature = "rustcrypto-traits")]
mod signer;
mod stats;
mod ticket;

use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

pub use batch::OPERATION_PANICKED;
pub use config::{
    Backpressure, DEFAULT_CROSSOVER, DEFAULT_DEADLINE_US, DEFAULT_MAX_BATCH,
    DEFAULT_QUEUE_PER_WORKER, EngineBuilder, EngineConfig, ShutdownMode,
};
pub use offload::Offload;
#[cfg(feature = "rustcrypto-traits")]
pub use signer::{AsyncPssSigningKey, AsyncSigningKey};
pub use stats::Stats;
pub use ticket::{Answer, Ticket};

use guard::Permit;
use pool::Shared;
use ticket::Reply;

use crate::rng::OsRng;
use crate::rsa::{PrivateRequest, RsaPrivateKey};
use crate::{Error, Result};

/// A pool of workers that runs RSA private-key operations for many threads and tasks,
/// batching requests of one size into 8-lane kernel calls when that pays.
///
/// `Engine` is `Send + Sync`: share it by reference or in an [`Arc`]. Dropping it shuts it
/// down, draining the queue.
///
/// ```
/// use std::sync::Arc;
/// use cryptocard::digest::HashAlg;
/// use cryptocard::engine::Engine;
/// use cryptocard::rng::OsRng;
/// use cryptocard::rsa::{PrivateRequest, RsaPrivateKey};
///
/// let key = Arc::new(RsaPrivateKey::generate(1024, &mut OsRng)?);
/// let engine = Engine::new()?;
/// let req = PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg: b"hi".to_vec() };
/// let sig = engine.run(key.clone(), req.clone())?;
/// assert_eq!(engine.submit(key, req).wait()?, sig); // PKCS#1 v1.5 is deterministic
/// # Ok::<(), cryptocard::Error>(())
/// ```
#[derive(Debug)]
pub struct Engine {
    shared: Arc<Shared>,
    handles: Mutex<Vec<JoinHandle<()>>>,
}

impl Engine {
    /// An engine with the default settings ([`EngineConfig::default`]).
    pub fn new() -> Result<Engine> {
        Engine::with_config(EngineConfig::default())
    }

    /// A builder for an engine with other settings.
    pub fn builder() -> EngineBuilder {
        EngineBuilder::default()
    }

    /// An engine with these settings; fails if they are inconsistent or the threads
    /// cannot be started.
    pub fn with_config(config: EngineConfig) -> Result<Engine> {
        config.validate()?;
        let workers = config.workers;
        let shared = Arc::new(Shared::new(config));
        let engine = Engine {
            shared: Arc::clone(&shared),
            handles: Mutex::new(Vec::with_capacity(workers)),
        };
        for i in 0..workers {
            let s = Arc::clone(&shared);
            {
                let mut st = shared.lock();
                st.live += 1;
                st.cpu_live += 1;
            }
            let spawned = std::thread::Builder::new()
                .name(format!("cryptocard-engine-{i}"))
                .spawn(move || pool::worker_loop(s));
            match spawned {
                Ok(h) => engine.handles().push(h),
                Err(_) => {
                    let mut st = shared.lock();
                    st.live -= 1;
                    st.cpu_live -= 1;
                    drop(st);
                    // `engine` drops here and stops the workers already started.
                    return Err(Error::Unsupported("engine: cannot start worker threads"));
                }
            }
        }
        if let Some(o) = shared.config.offload.clone() {
            for i in 0..offload::THREADS {
                let (s, o) = (Arc::clone(&shared), o.clone());
                shared.lock().live += 1;
                let spawned = std::thread::Builder::new()
                    .name(format!("cryptocard-engine-offload-{i}"))
                    .spawn(move || offload::offload_loop(s, o));
                match spawned {
                    Ok(h) => engine.handles().push(h),
                    Err(_) => {
                        shared.lock().live -= 1;
                        return Err(Error::Unsupported("engine: cannot start the offload threads"));
                    }
                }
            }
        }
        Ok(engine)
    }

    fn handles(&self) -> std::sync::MutexGuard<'_, Vec<JoinHandle<()>>> {
        self.handles.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The settings the engine runs with.
    pub fn config(&self) -> &EngineConfig {
        &self.shared.config
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> Stats {
        self.shared.counters.snapshot()
    }

    /// Runs one request and blocks until it is done.
    ///
    /// If a permit is free, no batch is running and nothing of the request's batch class
    /// is queued (the engine is below the load where batching pays), the request runs on
    /// the calling thread: the single-operation path, with no hand-off at all. Otherwise
    /// it is queued like [`Engine::submit`] and this waits for the answer.
    pub fn run(&self, key: Arc<RsaPrivateKey>, req: PrivateRequest) -> Answer {
        let s = &*self.shared;
        if s.inline_here() {
            // A callback calling back in: compute inline rather than wait for a worker,
            // which could be this very thread. (It runs without a permit; the worker
            // thread it runs on is one of the `workers` threads anyway.) Or a forked
            // child, which has no workers.
            return batch::run_single(&key, &req, &mut OsRng);
        }
        if s.config.direct {
            let class = policy::class_of(&key, &req);
            let mut st = s.lock();
            if st.closed.is_some() {
                return Err(Error::ShutDown);
            }
            if st.may_run_direct(s.config.workers, class) {
                st.busy += 1;
                drop(st);
                // Given back when dropped, also if anything below unwinds.
                let permit = Permit::adopt(s, false);
                #[cfg(test)]
                guard::PanicHooks::fire(&s.hooks.direct);
                s.counters.accepted();
                s.counters.direct();
                let answer = batch::run_single(&key, &req, &mut OsRng);
                drop(permit);
                s.counters.answered_direct();
                return answer;
            }
        }
        self.submit(key, req).wait()
    }

    /// Queues one request and returns a [`Ticket`] for its answer. A full queue waits for
    /// room or refuses with [`Error::Busy`], as [`EngineConfig::backpressure`] says; a
    /// refusal (or [`Error::ShutDown`]) is the ticket's answer.
    pub fn submit(&self, key: Arc<RsaPrivateKey>, req: PrivateRequest) -> Ticket {
        let (ticket, reply) = Ticket::new();
        match self.enqueue(key, req, reply, self.blocks()) {
            Ok(()) => ticket,
            Err(e) => Ticket::ready(e),
        }
    }

    /// Queues one request if there is room now: [`Error::Busy`] if the queue is full,
    /// [`Error::ShutDown`] after shutdown.
    pub fn try_submit(&self, key: Arc<RsaPrivateKey>, req: PrivateRequest) -> Result<Ticket> {
        let (ticket, reply) = Ticket::new();
        self.enqueue(key, req, reply, false)?;
        Ok(ticket)
    }

    /// Queues one request whose answer is passed to `f`, on a worker thread. On `Ok`, `f`
    /// will be called exactly once; on `Err` (a refusal, as for [`Engine::submit`]) it is
    /// dropped uncalled. A panic in `f` is caught and counted.
    pub fn submit_with<F>(&self, key: Arc<RsaPrivateKey>, req: PrivateRequest, f: F) -> Result<()>
    where
        F: FnOnce(Answer) + Send + 'static,
    {
        self.enqueue(key, req, Reply::callback(Box::new(f)), self.blocks())
    }

    /// Runs every request, spread over the workers and batched, and returns one answer
    /// per request in order. Waits for room whatever the backpressure setting (it is a
    /// blocking call); on a worker thread it runs the requests inline.
    ///
    /// The requests enter the queue together (as many at a time as there is room for),
    /// so a free worker sees them as one group and can batch them at once.
    pub fn sign_batch(&self, requests: &[(Arc<RsaPrivateKey>, PrivateRequest)]) -> Vec<Answer> {
        if self.shared.inline_here() {
            let pairs: Vec<_> = requests.iter().map(|(k, r)| (&**k, r)).collect();
            return batch::run_requests(&pairs, &mut OsRng);
        }
        let mut tickets = Vec::with_capacity(requests.len());
        let items = requests
            .iter()
            .map(|(k, r)| {
                let (ticket, reply) = Ticket::new();
                tickets.push(ticket);
                (Arc::clone(k), r.clone(), reply)
            })
            .collect();
        let accepted = self.shared.enqueue_all(items, true);
        tickets.into_iter().zip(accepted).map(|(t, ok)| ok.and_then(|()| t.wait())).collect()
    }

    fn blocks(&self) -> bool {
        self.shared.config.backpressure == Backpressure::Block
    }

    /// Puts one request in the queue, as `Shared::enqueue_all`; in a forked child (no
    /// workers), answers it on the calling thread instead.
    fn enqueue(
        &self,
        key: Arc<RsaPrivateKey>,
        req: PrivateRequest,
        reply: Reply,
        wait: bool,
    ) -> Result<()> {
        if self.shared.forked() {
            let answer = batch::run_single(&key, &req, &mut OsRng);
            self.shared.counters.accepted();
            self.shared.counters.send_all(vec![(reply, answer)]);
            return Ok(());
        }
        let mut r = self.shared.enqueue_all(vec![(key, req, reply)], wait);
        r.pop().unwrap_or(Err(Error::Internal("enqueue lost its result")))
    }

    /// Shuts down, draining the queue: every queued request runs and is answered, then
    /// the workers stop. Later submissions get [`Error::ShutDown`].
    pub fn shutdown(&self) {
        self.shutdown_with(ShutdownMode::Drain);
    }

    /// Shuts down as `mode` says and waits for the workers to finish. Calling it again
    /// (or with [`ShutdownMode::Cancel`] after a drain has begun) is allowed. From a
    /// callback, it does not wait for the calling worker's own remaining work.
    pub fn shutdown_with(&self, mode: ShutdownMode) {
        let s = &*self.shared;
        if s.forked() {
            // The workers and the queue are the parent's (see `Shared::forked`).
            return;
        }
        let on_worker = s.on_worker_thread();
        let cancelled = {
            let mut st = s.lock();
            // A thread of the engine calling here cannot leave its loop before it
            // returns: the wait below does not count on it (nor on any other so).
            if on_worker {
                s.stopping_here(&mut st);
            }
            if st.closed != Some(ShutdownMode::Cancel) {
                st.closed = Some(mode);
            }
            let cancelled =
                if mode == ShutdownMode::Cancel { st.queue.take_all() } else { Vec::new() };
            s.work.notify_all();
            s.room.notify_all();
            s.offload.notify_all();
            cancelled
        };
        s.counters
            .send_all(cancelled.into_iter().map(|j| (j.reply, Err(Error::ShutDown))).collect());
        let mut st = s.lock();
        if on_worker {
            s.done.notify_all();
        }
        while st.live > st.stopping {
            st = s.wait(&s.done, st);
        }
        drop(st);
        let me = std::thread::current().id();
        let handles: Vec<_> = self.handles().drain(..).collect();
        for h in handles {
            if h.thread().id() != me {
                // Jobs and callbacks are caught; a worker that panicked elsewhere has
                // already answered its jobs and left `live` (`guard`), so its result
                // carries nothing more to report.
                let _ = h.join();
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if self.shared.forked() {
            // The handles name the parent's threads, which this process does not have:
            // neither join nor detach them.
            let handles = self.handles.get_mut().unwrap_or_else(PoisonError::into_inner);
            std::mem::forget(std::mem::take(handles));
            return;
        }
        self.shutdown_with(ShutdownMode::Drain);
    }
}
