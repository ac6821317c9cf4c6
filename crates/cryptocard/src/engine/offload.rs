//! The offload unit: a faster unit beside the workers (the GPU, issue 19) that takes a
//! deep queue in large batches, while the workers keep serving small loads and the first
//! requests of a burst.
//!
//! This is the seeds' crossover in the engine: Dusse and Kaliski's card paid only above
//! a crossover (EUROCRYPT '90, sections 5-6), and so does a GPU, whose batch costs a
//! launch and two transfers and whose rate comes from many operations at once. An
//! offload thread (`cryptocard-engine-offload-N`) waits until a class has at least
//! [`Offload::crossover`] requests queued, takes up to [`Offload::max_batch`] of them in
//! one go and runs them on the unit, answering each as the workers do. There are
//! [`THREADS`] of them, so that one batch's host work (hashing, padding, the planes)
//! runs while the other's is on the device (one launch at a time, or two with
//! `CRYPTOCARD_GPU_STREAMS=2`); the
//! workers keep deciding as before (`policy`), so below the crossover the engine is exactly the engine
//! without the unit, and above it the workers take their usual shares while the unit
//! takes the bulk. With no offload configured there is no thread and nothing changes.
//!
//! The unit runs [`private_batch`](crate::rsa::private_batch) with every key the GPU
//! kernel takes on the GPU, whatever the key's own backend (`rsa::batch`'s
//! `private_batch_on_gpu`); keys it does not take run on the offload thread's CPU. The
//! crossover and the batch size are the caller's, from a measurement: `cryptocard speed
//! -backend gpu` prints the batch size from which the GPU beats all the cores.

use std::sync::Arc;
use std::time::Instant;

use super::guard::Live;
use super::pool::{Shared, State};
use super::queue::Job;
use super::ticket::Answer;
use crate::rng::{OsRng, RandomSource};
use crate::rsa::{PrivateRequest, RsaPrivateKey};
use crate::{Error, Result};

/// Offload threads: two batches on their way at once, one on the unit while the other's
/// host work runs (as many as a key's pool of blinding pairs keeps room for).
pub(crate) const THREADS: usize = crate::rsa::BATCHES_IN_FLIGHT;

/// What runs an offloaded batch: one answer per request, in order.
pub(crate) type Runner = dyn Fn(&[(&RsaPrivateKey, &PrivateRequest)], &mut dyn RandomSource) -> Vec<Answer>
    + Send
    + Sync;

/// A unit that takes deep queues in large batches (see the module docs).
#[derive(Clone)]
pub struct Offload {
    /// Requests of one class queued from which the unit takes them.
    pub crossover: usize,
    /// The most it takes in one batch.
    pub max_batch: usize,
    /// What it is, for `Debug`.
    name: &'static str,
    runner: Arc<Runner>,
}

impl core::fmt::Debug for Offload {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Offload")
            .field("unit", &self.name)
            .field("crossover", &self.crossover)
            .field("max_batch", &self.max_batch)
            .finish()
    }
}

impl PartialEq for Offload {
    fn eq(&self, other: &Offload) -> bool {
        self.crossover == other.crossover
            && self.max_batch == other.max_batch
            && Arc::ptr_eq(&self.runner, &other.runner)
    }
}

impl Eq for Offload {}

impl Offload {
    /// The GPU backend as the offload unit: queues of `crossover` requests or more go to
    /// the GPU in batches of up to `max_batch`. [`Error::Unsupported`] with the reason
    /// where there is no usable GPU (or no `gpu` feature).
    pub fn gpu(crossover: usize, max_batch: usize) -> Result<Offload> {
        crate::rsa::Backend::Gpu.resolve()?;
        #[cfg(feature = "gpu")]
        return Ok(Offload::with_runner(
            "gpu",
            crossover,
            max_batch,
            Arc::new(|pairs: &[(&RsaPrivateKey, &PrivateRequest)], rng: &mut dyn RandomSource| {
                crate::rsa::batch::private_batch_on_gpu(pairs, rng)
            }),
        ));
        #[cfg(not(feature = "gpu"))]
        {
            let _ = (crossover, max_batch);
            Err(Error::Unsupported("this build has no GPU backend (cargo feature `gpu`)"))
        }
    }

    /// A unit that runs batches with `runner` (the tests' stand-in for a GPU).
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub(crate) fn with_runner(
        name: &'static str,
        crossover: usize,
        max_batch: usize,
        runner: Arc<Runner>,
    ) -> Offload {
        Offload { crossover, max_batch, name, runner }
    }

    /// Whether the settings can work with a queue of `queue_capacity`.
    pub(crate) fn validate(&self, queue_capacity: usize) -> Result<()> {
        if self.crossover < 2 || self.max_batch < self.crossover {
            return Err(Error::InvalidArgument(
                "engine: the offload's crossover must be at least 2 and at most its max batch",
            ));
        }
        if queue_capacity < self.crossover {
            return Err(Error::InvalidArgument(
                "engine: the queue must hold at least the offload's crossover",
            ));
        }
        Ok(())
    }
}

/// The class the unit should take now and how many: the deepest at or above the
/// crossover.
fn decide(st: &State, o: &Offload) -> Option<(usize, usize)> {
    st.queue
        .views(Instant::now())
        .iter()
        .enumerate()
        .filter(|(_, v)| v.len >= o.crossover)
        .max_by_key(|(_, v)| v.len)
        .map(|(i, v)| (i, v.len.min(o.max_batch)))
}

/// Whether the unit itself failed this answer (a lost device, a CUDA error in the launch
/// that carried it), not the request: the answer names the GPU backend, as
/// `rsa::batch::private_batch_on_gpu` reports it.
fn unit_failed(answer: &Answer) -> bool {
    matches!(answer, Err(Error::Unsupported(m)) if m.starts_with("GPU backend"))
}

/// The unit's answers, with every one the unit itself failed (or all, if it panicked or
/// lost count) answered by the CPU on this thread instead: a unit that failed must not
/// fail the requests. A batch runs as several launches (chunks), so one launch can fail
/// while the others answer.
fn answer_all(
    pairs: &[(&RsaPrivateKey, &PrivateRequest)],
    unit: std::thread::Result<Vec<Answer>>,
    rng: &mut dyn RandomSource,
) -> Vec<Answer> {
    let mut answers = match unit {
        Ok(a) if a.len() == pairs.len() => a,
        _ => return super::batch::run_requests(pairs, rng),
    };
    let failed: Vec<usize> = (0..answers.len()).filter(|&i| unit_failed(&answers[i])).collect();
    if !failed.is_empty() {
        let again: Vec<_> = failed.iter().map(|&i| pairs[i]).collect();
        let cpu = super::batch::run_requests(&again, rng);
        for (i, a) in failed.into_iter().zip(cpu) {
            answers[i] = a;
        }
    }
    answers
}

/// The offload thread's life: wait for a class deep enough, take a batch of it, run it
/// on the unit, answer; leave when the engine has shut down and nothing is queued.
pub(crate) fn offload_loop(shared: Arc<Shared>, o: Offload) {
    // One of the engine's threads: a callback answered here that calls back in computes
    // inline, as on a worker.
    shared.enter_thread();
    let _live = Live::counted(&shared, false);
    let mut rng = OsRng;
    let mut st = shared.lock();
    loop {
        if st.queue.is_empty() && st.closed.is_some() {
            return;
        }
        let Some((index, count)) = decide(&st, &o) else {
            st = shared.offload.wait(st).unwrap_or_else(std::sync::PoisonError::into_inner);
            continue;
        };
        let jobs: Vec<Job> = st.queue.take(index, count);
        if st.room_waiters > 0 {
            shared.room.notify_all();
        }
        // What is still deep enough goes to another offload thread meanwhile.
        if decide(&st, &o).is_some() {
            shared.offload.notify_one();
        }
        drop(st);
        shared.counters.offloaded(jobs.len());
        let started = Instant::now();
        let pairs: Vec<(&RsaPrivateKey, &PrivateRequest)> =
            jobs.iter().map(|j| (&*j.key, &j.req)).collect();
        let unit =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (o.runner)(&pairs, &mut rng)));
        let answers = answer_all(&pairs, unit, &mut rng);
        drop(pairs);
        let answered: Vec<_> = jobs.into_iter().map(|j| j.reply).zip(answers).collect();
        shared.counters.send_all(answered);
        shared.counters.offload_time(started.elapsed());
        st = shared.lock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::HashAlg;
    use crate::engine::Engine;
    use std::sync::{Mutex, mpsc};

    fn key() -> Arc<RsaPrivateKey> {
        Arc::new(RsaPrivateKey::generate(1024, &mut OsRng).unwrap())
    }

    fn request(i: usize) -> PrivateRequest {
        PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg: i.to_be_bytes().to_vec() }
    }

    /// Which of a batch's requests the stand-in unit fails.
    type Fails = fn(usize) -> bool;
    const NONE: Fails = |_| false;
    const ALL: Fails = |_| true;

    /// A stand-in for the GPU: the CPU's batch, each batch's size recorded, except that
    /// the requests `fail` picks (by their place in the batch) fail as the unit's own
    /// failure (a lost device, a failed launch) would.
    fn unit(sizes: Arc<Mutex<Vec<usize>>>, fail: Fails, crossover: usize, max: usize) -> Offload {
        let runner = move |pairs: &[(&RsaPrivateKey, &PrivateRequest)],
                           rng: &mut dyn RandomSource| {
            sizes.lock().unwrap().push(pairs.len());
            let mut answers = crate::rsa::private_batch(pairs, rng);
            for (_, a) in answers.iter_mut().enumerate().filter(|(i, _)| fail(*i)) {
                *a = Err(Error::Unsupported("GPU backend: a CUDA call failed"));
            }
            answers
        };
        Offload::with_runner("test", crossover, max, Arc::new(runner))
    }

    /// An engine of `workers` with [`unit`] as its offload unit.
    fn engine(
        workers: usize,
        sizes: &Arc<Mutex<Vec<usize>>>,
        fail: Fails,
        crossover: usize,
        max: usize,
    ) -> Engine {
        let unit = unit(sizes.clone(), fail, crossover, max);
        Engine::builder().workers(workers).offload(unit).build().unwrap()
    }

    /// Holds `n` workers in callbacks until the returned sender is dropped, so that the
    /// unit is the only consumer of the queue meanwhile and the tests do not depend on
    /// who is faster.
    fn hold_workers(engine: &Engine, key: &Arc<RsaPrivateKey>, n: usize) -> mpsc::Sender<()> {
        let (release, held) = mpsc::channel::<()>();
        let held = Arc::new(Mutex::new(held));
        let (started, workers_in) = mpsc::channel::<()>();
        for i in 0..n {
            let (held, started) = (held.clone(), started.clone());
            engine
                .submit_with(key.clone(), request(10_000 + i), move |_| {
                    started.send(()).unwrap();
                    // Each held worker waits for the release (the sender's drop).
                    let _ = held.lock().unwrap().recv();
                })
                .unwrap();
            workers_in.recv().unwrap();
        }
        release
    }

    /// Waits until the unit has been given at least `ops` requests (at most ten seconds).
    fn until_taken(sizes: &Mutex<Vec<usize>>, ops: usize) {
        let t0 = Instant::now();
        while sizes.lock().unwrap().iter().sum::<usize>() < ops {
            assert!(t0.elapsed().as_secs() < 10, "the unit was given too little: {sizes:?}");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// A burst deeper than the crossover, with the workers held: the unit takes it in
    /// batches between the crossover and its max batch, the workers (released) the rest,
    /// and every answer is the single operation's.
    #[test]
    fn a_deep_queue_goes_to_the_unit_in_large_batches() {
        let key = key();
        let sizes = Arc::new(Mutex::new(Vec::new()));
        let engine = engine(2, &sizes, NONE, 16, 64);
        assert_eq!(engine.config().queue_capacity, 128, "room for two of the unit's batches");
        let release = hold_workers(&engine, &key, 2);
        let tickets: Vec<_> = (0..100).map(|i| engine.submit(key.clone(), request(i))).collect();
        // The unit, alone, takes everything but a remainder below its crossover.
        until_taken(&sizes, 100 - 15);
        drop(release);
        for (i, t) in tickets.into_iter().enumerate() {
            assert_eq!(t.wait().unwrap(), request(i).run(&key, &mut OsRng).unwrap(), "request {i}");
        }
        let stats = engine.stats();
        let sizes = sizes.lock().unwrap().clone();
        assert!(sizes.iter().all(|&n| (16..=64).contains(&n)), "{sizes:?}");
        assert_eq!(stats.offloaded, sizes.iter().sum::<usize>() as u64);
        assert_eq!(stats.offload_batches, sizes.len() as u64);
        // Each batch is RSA operations on the CPU: tens of microseconds at the least.
        let (busy, longest) = (stats.offload_micros, stats.offload_longest_micros);
        assert!(longest > 0 && longest <= busy, "busy {busy} us, longest {longest} us");
        engine.shutdown();
        assert_eq!(engine.stats().answered, 102);
    }

    /// Below the crossover the engine is the engine without the unit: a caller at a time
    /// never reaches it.
    #[test]
    fn a_trickle_never_reaches_the_unit() {
        let key = key();
        let sizes = Arc::new(Mutex::new(Vec::new()));
        let engine = engine(2, &sizes, NONE, 16, 64);
        for i in 0..20 {
            let want = request(i).run(&key, &mut OsRng).unwrap();
            assert_eq!(engine.run(key.clone(), request(i)).unwrap(), want);
            assert_eq!(engine.submit(key.clone(), request(i)).wait().unwrap(), want);
        }
        assert!(sizes.lock().unwrap().is_empty());
        assert_eq!(engine.stats().offloaded, 0);
    }

    /// A unit that fails (a lost device) fails no request: the CPU answers them. So does
    /// a unit that fails some of a batch (one launch of several failing): the CPU answers
    /// those, the unit's answers stand, and a bad request keeps its own error.
    #[test]
    fn a_failing_unit_loses_no_request() {
        let key = key();
        let some: Fails = |i| i % 3 == 1;
        for fail in [ALL, some] {
            let sizes = Arc::new(Mutex::new(Vec::new()));
            let engine = engine(1, &sizes, fail, 8, 32);
            let release = hold_workers(&engine, &key, 1);
            // Every seventh request asks to sign more than the key can hold.
            let bad = |i: usize| i % 7 == 3;
            let req = |i| match bad(i) {
                true => PrivateRequest::SignPkcs1v15Raw { data: vec![1; 200] },
                false => request(i),
            };
            let tickets: Vec<_> = (0..60).map(|i| engine.submit(key.clone(), req(i))).collect();
            until_taken(&sizes, 1);
            drop(release);
            for (i, t) in tickets.into_iter().enumerate() {
                let want = req(i).run(&key, &mut OsRng);
                assert_eq!(want.is_err(), bad(i), "request {i}");
                assert_eq!(t.wait(), want, "request {i}");
            }
            assert!(engine.stats().offloaded > 0);
        }
    }

    /// A callback answered on an offload thread may shut the engine down: it is one of
    /// the engine's threads, which the shutdown does not wait for (it used to wait for
    /// itself forever).
    #[test]
    fn a_callback_on_the_unit_may_shut_the_engine_down() {
        let key = key();
        let sizes = Arc::new(Mutex::new(Vec::new()));
        let engine = Arc::new(engine(1, &sizes, NONE, 8, 32));
        let release = hold_workers(&engine, &key, 1);
        let (done, finished) = mpsc::channel();
        for i in 0..8 {
            let (e, done) = (Arc::clone(&engine), done.clone());
            let call = move |a: Answer| {
                if i == 0 {
                    e.shutdown();
                }
                let thread = std::thread::current().name().map(String::from);
                done.send((a, thread)).unwrap();
            };
            engine.submit_with(key.clone(), request(i), call).unwrap();
        }
        until_taken(&sizes, 8);
        drop(release);
        for i in 0..8 {
            let got = finished.recv_timeout(std::time::Duration::from_secs(60));
            let Ok((answer, thread)) = got else { panic!("callback {i}: the shutdown hung") };
            assert!(answer.is_ok());
            assert!(thread.is_some_and(|t| t.starts_with("cryptocard-engine-offload")));
        }
        assert_eq!(engine.submit(key.clone(), request(9)).wait(), Err(Error::ShutDown));
    }

    #[test]
    fn settings_are_checked() {
        let sizes = Arc::new(Mutex::new(Vec::new()));
        for (crossover, max, capacity) in [(1, 64, 256), (32, 16, 256), (64, 128, 32)] {
            let b = Engine::builder().workers(1).queue_capacity(capacity).offload(unit(
                sizes.clone(),
                NONE,
                crossover,
                max,
            ));
            assert!(
                matches!(b.build(), Err(Error::InvalidArgument(_))),
                "{crossover} {max} {capacity}"
            );
        }
        if !crate::rsa::Backend::Gpu.is_available() {
            assert!(matches!(Offload::gpu(1024, 65536), Err(Error::Unsupported(_))));
        }
    }
}
