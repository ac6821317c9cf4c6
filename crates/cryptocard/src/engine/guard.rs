//! Drop guards on the counts that `shutdown` and the permits wait on, so that a panic
//! outside the per-batch catch (`batch`) cannot leave them counting a thread that is gone.
//!
//! `Engine::shutdown_with` waits until `State::live` reaches zero, and every worker waits
//! for a permit while `State::busy` is at `workers`. Both used to be given back by plain
//! statements after the work, which an unwinding thread skips: a worker that panicked
//! while running (an allocation failure, a bug between the catch and the answers) left
//! `live` one too high, so `shutdown` and `Drop` waited forever, and its permit taken, so
//! the pool ran one worker short for good (with one worker, nothing ran again). The same
//! held for the caller's permit on the direct path of `Engine::run`. The guards below
//! give each back in `Drop`, which runs on unwinding as on return.
//!
//! A worker that dies this way answers the jobs it held with [`Error::ShutDown`] (their
//! `Reply`s answer from their own `Drop`). If it was the last CPU worker, nobody would
//! ever run what is queued (an offload thread takes only a queue deep enough for its
//! unit), so its guard closes the engine and answers the queue the same way:
//! every accepted request is still answered exactly once, and later submissions are
//! refused with `ShutDown` instead of waiting forever.

use super::config::ShutdownMode;
use super::pool::Shared;
use crate::Error;

/// One permit (`State::busy`), and whether it runs a batch (`State::batches`), given
/// back when dropped.
pub(crate) struct Permit<'a> {
    shared: &'a Shared,
    batch: bool,
}

impl<'a> Permit<'a> {
    /// Guards a permit the caller took under the lock (`busy` and, for a batch, `batches`
    /// incremented), made right after that lock is released: the guard locks again to
    /// give the permit back, so it must not outlive a lock its own thread holds.
    pub(crate) fn adopt(shared: &'a Shared, batch: bool) -> Permit<'a> {
        Permit { shared, batch }
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut st = self.shared.lock();
        st.batches -= usize::from(self.batch);
        self.shared.release(&mut st);
    }
}

/// A thread's place in `State::live` (and, for a CPU worker, `State::cpu_live`), given
/// up when the thread leaves its loop, by returning or by unwinding.
pub(crate) struct Live<'a> {
    shared: &'a Shared,
    cpu: bool,
}

impl<'a> Live<'a> {
    /// Guards the place the spawner counted for this thread, a CPU worker if `cpu`
    /// (`Engine::with_config` increments the counts before the thread starts, so a
    /// shutdown right after the start still waits for it).
    pub(crate) fn counted(shared: &'a Shared, cpu: bool) -> Live<'a> {
        Live { shared, cpu }
    }
}

impl Drop for Live<'_> {
    fn drop(&mut self) {
        let s = self.shared;
        let orphans = {
            let mut st = s.lock();
            st.live -= 1;
            st.cpu_live -= usize::from(self.cpu);
            s.leaving(&mut st);
            // The last CPU worker died: close the engine and take what nobody will run.
            let last = self.cpu && st.cpu_live == 0;
            if std::thread::panicking() && last && st.closed != Some(ShutdownMode::Cancel) {
                st.closed = Some(ShutdownMode::Cancel);
                s.room.notify_all();
                st.queue.take_all()
            } else {
                Vec::new()
            }
        };
        s.done.notify_all();
        s.counters.send_all(orphans.into_iter().map(|j| (j.reply, Err(Error::ShutDown))).collect());
    }
}

/// Test hooks: panics at the points the guards cover, outside every catch.
#[cfg(test)]
#[derive(Debug, Default)]
pub(crate) struct PanicHooks {
    /// A worker panics after running its jobs, before it answers them.
    pub(crate) worker: std::sync::atomic::AtomicBool,
    /// `Engine::run` panics on the direct path, holding its permit.
    pub(crate) direct: std::sync::atomic::AtomicBool,
}

#[cfg(test)]
impl PanicHooks {
    /// Panics once if `hook` is set (and clears it).
    pub(crate) fn fire(hook: &std::sync::atomic::AtomicBool) {
        if hook.swap(false, std::sync::atomic::Ordering::SeqCst) {
            panic!("engine test hook: a panic outside the per-batch catch");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering::SeqCst;
    use std::sync::mpsc::channel;
    use std::sync::{Arc, OnceLock};
    use std::time::{Duration, Instant};

    use crate::Error;
    use crate::engine::pool::State;
    use crate::engine::{Engine, EngineConfig, Offload};
    use crate::rng::{OsRng, RandomSource};
    use crate::rsa::{KeyGenOptions, PrivateRequest, RsaPrivateKey};

    /// Far longer than any step below takes; a hang fails the test instead of blocking it.
    const PATIENCE: Duration = Duration::from_secs(60);

    fn key() -> Arc<RsaPrivateKey> {
        static KEY: OnceLock<Arc<RsaPrivateKey>> = OnceLock::new();
        KEY.get_or_init(|| {
            let opts = KeyGenOptions { allow_small: true, ..KeyGenOptions::new(512) };
            Arc::new(RsaPrivateKey::generate_with(&opts, &mut OsRng).unwrap())
        })
        .clone()
    }

    fn req() -> PrivateRequest {
        PrivateRequest::SignPkcs1v15Raw { data: vec![1, 2, 3] }
    }

    /// Runs `f` on another thread and returns its result, or fails after [`PATIENCE`].
    fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(PATIENCE).unwrap_or_else(|_| panic!("{what} did not finish: it hangs"))
    }

    /// [`within`], with a handle on the engine `e` and the test key.
    fn with_engine<T: Send + 'static>(
        what: &str,
        e: &Arc<Engine>,
        f: impl FnOnce(&Engine, Arc<RsaPrivateKey>) -> T + Send + 'static,
    ) -> T {
        let e = Arc::clone(e);
        within(what, move || f(&e, key()))
    }

    /// Waits until `cond` holds of the engine's state, or fails after [`PATIENCE`].
    fn eventually(what: &str, e: &Engine, cond: impl Fn(&State) -> bool) {
        let start = Instant::now();
        while !cond(&e.shared.lock()) {
            assert!(start.elapsed() < PATIENCE, "{what}: never happened");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    fn engine(workers: usize) -> Arc<Engine> {
        engine_with(EngineConfig { workers, ..EngineConfig::default() })
    }

    fn engine_with(config: EngineConfig) -> Arc<Engine> {
        Arc::new(Engine::with_config(config).unwrap())
    }

    /// An engine of `workers` workers, one of which has panicked after running a job
    /// (outside the per-batch catch); the job was answered `ShutDown`.
    fn engine_with_a_dead_worker(workers: usize) -> Arc<Engine> {
        a_worker_dies(engine(workers))
    }

    /// `e` after one of its workers has panicked so.
    fn a_worker_dies(e: Arc<Engine>) -> Arc<Engine> {
        e.shared.hooks.worker.store(true, SeqCst);
        let ticket = e.submit(key(), req());
        assert_eq!(within("the dead worker's ticket", move || ticket.wait()), Err(Error::ShutDown));
        e
    }

    /// A worker that panics after running a job gives back its permit and its place in
    /// `live`: its job is answered `ShutDown`, the other worker goes on, and shutdown
    /// returns.
    #[test]
    fn a_worker_panic_leaves_shutdown_and_permits_working() {
        let e = engine_with_a_dead_worker(2);
        // The ticket is answered early in the unwinding; the guards run after it.
        eventually("the permit and the live count are given back", &e, |st| {
            (st.busy, st.batches, st.live) == (0, 0, 1)
        });
        assert!(e.shared.lock().closed.is_none(), "one worker is left: the engine stays open");
        let sig = with_engine("a request after the panic", &e, |e, k| e.submit(k, req()).wait());
        assert_eq!(sig, req().run(&key(), &mut OsRng));
        with_engine("shutdown", &e, |e, _| e.shutdown());
        assert_eq!(e.shared.lock().live, 0);
    }

    /// When the last worker dies, the engine closes and answers what is queued, so no
    /// ticket waits forever and shutdown and drop return.
    #[test]
    fn the_last_worker_dying_closes_the_engine() {
        let e = engine_with_a_dead_worker(1);
        let later =
            with_engine("a submission after the panic", &e, |e, k| e.submit(k, req()).wait());
        assert_eq!(later, Err(Error::ShutDown));
        within("dropping the engine", move || drop(e));
    }

    /// The same beside an offload unit, whose threads run only queues deep enough for it:
    /// the last CPU worker's death still closes the engine, so a shallow queue is not
    /// left waiting for a worker that is gone.
    #[test]
    fn the_last_cpu_worker_dying_closes_the_engine_beside_an_offload_unit() {
        let runner = |pairs: &[(&RsaPrivateKey, &PrivateRequest)], rng: &mut dyn RandomSource| {
            crate::rsa::private_batch(pairs, rng)
        };
        let unit = Offload::with_runner("test", 64, 64, Arc::new(runner));
        let config = EngineConfig { workers: 1, offload: Some(unit), ..EngineConfig::default() };
        let e = a_worker_dies(engine_with(config));
        let later =
            with_engine("a submission after the panic", &e, |e, k| e.submit(k, req()).wait());
        assert_eq!(later, Err(Error::ShutDown));
        within("dropping the engine", move || drop(e));
    }

    /// A panic on `Engine::run`'s direct path, with the caller holding a permit, gives the
    /// permit back: with one worker, the next request runs and shutdown returns.
    #[test]
    fn a_direct_path_panic_gives_its_permit_back() {
        let e = engine(1);
        e.shared.hooks.direct.store(true, SeqCst);
        let unwound = with_engine("the panicking call", &e, |e, k| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| e.run(k, req())))
        });
        assert!(unwound.is_err(), "the hook panics");
        assert_eq!(e.shared.lock().busy, 0, "the permit is back");
        let queued = with_engine("a queued request", &e, |e, k| e.submit(k, req()).wait());
        assert_eq!(queued, req().run(&key(), &mut OsRng));
        assert_eq!(with_engine("a direct request", &e, |e, k| e.run(k, req())), queued);
        with_engine("shutdown", &e, |e, _| e.shutdown());
    }
}
