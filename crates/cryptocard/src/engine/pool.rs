//! The state the engine's threads share, and the worker loop.
//!
//! Requests enter through [`Shared::enqueue_all`]. One mutex guards the queue, the permit
//! count and the shutdown flag; three condition variables wake the three kinds of waiter:
//! workers (`work`: a request arrived, a permit came back, shutdown), submitters blocked
//! on a full queue (`room`), and callers of shutdown waiting for the workers to finish
//! (`done`). The lock is held only to move jobs in and out of the queue, never while
//! computing or answering.
//!
//! Permits: at most `workers` operations run at once, counting both workers and callers
//! that [`super::Engine::run`] lets compute on their own thread, so the direct path never
//! oversubscribes the cores.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::batch;
use super::config::{EngineConfig, ShutdownMode};
use super::guard::{Live, Permit};
use super::policy::{self, Class, Decision, Policy};
use super::queue::{Job, Queue};
use super::stats::Counters;
use super::ticket::Reply;
use crate::rng::OsRng;
use crate::rsa::{PrivateRequest, RsaPrivateKey};
use crate::{Error, Result};

/// What the mutex guards.
#[derive(Debug)]
pub(crate) struct State {
    pub queue: Queue,
    /// Permits in use (operations running).
    pub busy: usize,
    /// Of those, the batches: the workers that will not be back for a batch's time.
    pub batches: usize,
    /// Set once shutdown has begun.
    pub closed: Option<ShutdownMode>,
    /// Worker and offload threads still running their loop.
    pub live: usize,
    /// Of those, the CPU workers (the offload threads run only what is deep enough for
    /// their unit, so a queue whose CPU workers are all gone is answered by nobody).
    pub cpu_live: usize,
    /// Of `live`, the engine's own threads that have called `Engine::shutdown_with`
    /// (from a callback): none can leave its loop before that call returns, so a
    /// shutdown waits for every thread but those.
    pub stopping: usize,
    /// Submitters waiting for room.
    pub room_waiters: usize,
    /// Workers waiting on `work`: a notification is sent only when there is one (a
    /// `Condvar` notification is a system call even with no waiter, and under load, with
    /// every worker busy, each submission would pay one).
    pub work_waiters: usize,
}

impl State {
    /// Whether [`super::Engine::run`] may run a request of `class` on the caller's thread:
    /// a permit is free, nothing of the class is queued, and no batch is running. A
    /// running batch means the load is where batching pays, and its answers are about to
    /// come back as new requests: a caller that took the permit its worker had just given
    /// back would run a single operation on its own thread while the batch's callers
    /// queued behind it. Without that last condition, under load (RSA-2048, two workers,
    /// 8 and 16 callers) a large share of the operations ran so and the throughput fell
    /// well below the batched rate (`cryptocard speed --engine` measures it).
    pub(crate) fn may_run_direct(&self, workers: usize, class: Class) -> bool {
        self.busy < workers && self.batches == 0 && self.queue.class_len(class) == 0
    }
}

/// Everything the engine's handle and its workers share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub config: EngineConfig,
    pub policy: Policy,
    pub state: Mutex<State>,
    pub work: Condvar,
    pub room: Condvar,
    pub done: Condvar,
    /// The offload thread's wait: a class reached its crossover, or shutdown.
    pub offload: Condvar,
    pub counters: Counters,
    /// Tells this engine's worker threads from any other thread.
    pub id: u64,
    /// The process that made the engine: a child forked from it has none of its threads.
    pub pid: u32,
    /// Panics on demand where the drop guards matter (tests only).
    #[cfg(test)]
    pub hooks: super::guard::PanicHooks,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The id of the engine whose worker this thread is; 0 on other threads.
    static WORKER_OF: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
    /// Whether this thread, one of an engine's, is counted in its `State::stopping`.
    static STOPPING: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

impl Shared {
    pub(crate) fn new(config: EngineConfig) -> Shared {
        let policy = Policy {
            max_batch: config.max_batch,
            crossover: config.crossover,
            deadline: config.deadline,
        };
        Shared {
            state: Mutex::new(State {
                queue: Queue::new(config.queue_capacity),
                busy: 0,
                batches: 0,
                closed: None,
                live: 0,
                cpu_live: 0,
                stopping: 0,
                room_waiters: 0,
                work_waiters: 0,
            }),
            config,
            policy,
            work: Condvar::new(),
            room: Condvar::new(),
            done: Condvar::new(),
            offload: Condvar::new(),
            counters: Counters::default(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            pid: std::process::id(),
            #[cfg(test)]
            hooks: Default::default(),
        }
    }

    /// Locks the state. Poisoning is ignored: no code panics while holding the lock (the
    /// computations and callbacks run outside it), and the state stays consistent.
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits on `cv` (`work`, `room` or `done`), ignoring poisoning as [`Shared::lock`].
    pub(crate) fn wait<'a>(&self, cv: &Condvar, g: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        cv.wait(g).unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the calling thread is one of this engine's workers (or offload threads).
    pub(crate) fn on_worker_thread(&self) -> bool {
        WORKER_OF.with(|w| w.get()) == self.id
    }

    /// Marks the calling thread as one of this engine's, for [`Shared::on_worker_thread`].
    pub(crate) fn enter_thread(&self) {
        WORKER_OF.with(|w| w.set(self.id));
    }

    /// Counts the calling thread, one of the engine's, in `State::stopping` (once).
    pub(crate) fn stopping_here(&self, st: &mut State) {
        if !STOPPING.replace(true) {
            st.stopping += 1;
        }
    }

    /// Takes the calling thread out of `State::stopping` as it leaves, if it was in.
    pub(crate) fn leaving(&self, st: &mut State) {
        if STOPPING.replace(false) {
            st.stopping -= 1;
        }
    }

    /// Whether this is a child forked after the engine was made. `fork()` copies only
    /// the calling thread: the workers are the parent's, the queue and the counts are a
    /// snapshot of the parent's, and the mutex may have been held by a parent thread at
    /// that instant. So a child never touches them: it runs every request on the
    /// caller's thread (`Engine`'s methods), and never waits for the workers.
    pub(crate) fn forked(&self) -> bool {
        std::process::id() != self.pid
    }

    /// Whether a request must run on the calling thread, not through the queue: from a
    /// worker (a callback calling back in, which must not wait for a worker that may be
    /// itself) or in a forked child (which has no workers).
    pub(crate) fn inline_here(&self) -> bool {
        self.on_worker_thread() || self.forked()
    }

    /// Gives a permit back and wakes a worker if work is waiting.
    pub(crate) fn release(&self, st: &mut State) {
        st.busy -= 1;
        if !st.queue.is_empty() {
            self.wake_workers(st, false);
        }
    }

    /// Wakes one waiting worker (or all), if any waits (`State::work_waiters`).
    pub(crate) fn wake_workers(&self, st: &State, all: bool) {
        match (st.work_waiters, all) {
            (0, _) => {}
            (_, false) => self.work.notify_one(),
            (_, true) => self.work.notify_all(),
        }
    }

    /// A worker's wait on `work`, counted in `State::work_waiters`, for at most `timeout`.
    fn wait_for_work<'a>(
        &self,
        mut st: MutexGuard<'a, State>,
        timeout: Option<Duration>,
    ) -> MutexGuard<'a, State> {
        st.work_waiters += 1;
        let mut st = match timeout {
            None => self.wait(&self.work, st),
            Some(d) => self.work.wait_timeout(st, d).unwrap_or_else(PoisonError::into_inner).0,
        };
        st.work_waiters -= 1;
        st
    }

    /// Puts requests in the queue in order under one lock, waiting for room between them
    /// if `wait` (never on a worker thread, where waiting could deadlock the pool). One
    /// result per request: a refused request's reply is disarmed and its error returned.
    pub(crate) fn enqueue_all(
        &self,
        items: Vec<(Arc<RsaPrivateKey>, PrivateRequest, Reply)>,
        wait: bool,
    ) -> Vec<Result<()>> {
        let s = self;
        let wait = wait && !s.on_worker_thread();
        let mut results = Vec::with_capacity(items.len());
        let mut refused = Vec::new();
        // Whether a class reached the offload unit's crossover here (the unit re-checks
        // the queue before it waits, so a class deep before this call needs no wake-up).
        let crossover = s.config.offload.as_ref().map(|o| o.crossover);
        let mut deep = false;
        let mut st = s.lock();
        for (key, req, reply) in items {
            let class = policy::class_of(&key, &req);
            let admitted = loop {
                if st.closed.is_some() {
                    break Err(Error::ShutDown);
                }
                if !st.queue.is_full() {
                    break Ok(());
                }
                if !wait {
                    s.counters.busy();
                    break Err(Error::Busy);
                }
                // Let the workers (and the offload unit) at what is queued so far, then
                // wait for room.
                s.wake_workers(&st, true);
                if deep {
                    s.offload.notify_one();
                }
                st.room_waiters += 1;
                st = s.wait(&s.room, st);
                st.room_waiters -= 1;
            };
            match admitted {
                Ok(()) => {
                    st.queue.push(Job { key, req, reply, class, enqueued: Instant::now() });
                    deep |= crossover.is_some_and(|c| st.queue.class_len(class) >= c);
                    s.counters.accepted();
                    s.counters.queue_depth(st.queue.len());
                }
                Err(_) => refused.push(reply),
            }
            results.push(admitted);
        }
        match results.iter().filter(|r| r.is_ok()).count() {
            0 => {}
            n => {
                s.wake_workers(&st, n > 1);
                if deep {
                    s.offload.notify_one();
                }
            }
        }
        drop(st);
        refused.into_iter().for_each(Reply::disarm);
        results
    }

    /// Waits for the next jobs this worker should run, takes a permit for them, and
    /// returns them; `None` when the engine has shut down and the queue is empty.
    fn next_jobs<'a>(
        &self,
        mut st: MutexGuard<'a, State>,
    ) -> (MutexGuard<'a, State>, Option<Vec<Job>>) {
        loop {
            if st.queue.is_empty() {
                if st.closed.is_some() {
                    return (st, None);
                }
                st = self.wait_for_work(st, None);
                continue;
            }
            if st.busy >= self.config.workers {
                st = self.wait_for_work(st, None);
                continue;
            }
            let views = st.queue.views(Instant::now());
            // Workers running single operations will be back long before a batch ends,
            // so for the policy they are free (see `policy`, "a batch pays").
            let free = self.config.workers - st.batches;
            match self.policy.decide(&views, free, st.closed.is_some()) {
                Decision::Run { index, count } => {
                    let jobs = st.queue.take(index, count);
                    // The permit, guarded by the caller once the lock is released.
                    st.busy += 1;
                    st.batches += usize::from(jobs.len() > 1);
                    if st.room_waiters > 0 {
                        self.room.notify_all();
                    }
                    if !st.queue.is_empty() && st.busy < self.config.workers {
                        self.wake_workers(&st, false);
                    }
                    return (st, Some(jobs));
                }
                Decision::Wait(d) => st = self.wait_for_work(st, Some(d)),
                Decision::Idle => st = self.wait_for_work(st, None),
            }
        }
    }
}

/// A worker thread's life: take jobs, run them with a permit, answer them; leave when the
/// engine has shut down and nothing is queued. The permit and the worker's place in
/// `live` are drop guards (`guard`), given back on unwinding too.
pub(crate) fn worker_loop(shared: Arc<Shared>) {
    shared.enter_thread();
    // Declared first, so dropped last: after every lock below is released.
    let _live = Live::counted(&shared, true);
    // Randomness for blinding, salts and padding: the OS source, per worker.
    let mut rng = OsRng;
    let mut st = shared.lock();
    loop {
        let (guard, jobs) = shared.next_jobs(st);
        let Some(jobs) = jobs else {
            drop(guard);
            return;
        };
        drop(guard);
        let permit = Permit::adopt(&shared, jobs.len() > 1);
        shared.counters.ran(jobs.len());
        let answered = batch::run_jobs(jobs, &mut rng);
        #[cfg(test)]
        super::guard::PanicHooks::fire(&shared.hooks.worker);
        drop(permit);
        shared.counters.send_all(answered);
        st = shared.lock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ticket::Ticket;
    use crate::rsa::KeyGenOptions;

    #[test]
    fn direct_runs_only_below_batching_load() {
        let opts = KeyGenOptions { allow_small: true, ..KeyGenOptions::new(512) };
        let key = Arc::new(RsaPrivateKey::generate_with(&opts, &mut OsRng).unwrap());
        let req = PrivateRequest::SignPkcs1v15Raw { data: vec![1] };
        let (class, other) = (policy::class_of(&key, &req), Class::for_test(&key, 4096));
        let shared = Shared::new(EngineConfig { workers: 2, ..EngineConfig::default() });
        let mut st = shared.lock();
        assert!(st.may_run_direct(2, class), "idle engine");
        st.busy = 1;
        assert!(st.may_run_direct(2, class), "one single operation running");
        st.batches = 1;
        assert!(!st.may_run_direct(2, class), "a batch running, a permit free");
        st.batches = 0;
        st.busy = 2;
        assert!(!st.may_run_direct(2, class), "no permit free");
        st.busy = 0;
        let (ticket, reply) = Ticket::new();
        drop(ticket);
        st.queue.push(Job { key, req, reply, class: other, enqueued: Instant::now() });
        assert!(st.may_run_direct(2, class), "only another class queued");
        assert!(!st.may_run_direct(2, other), "its class queued");
    }
}
