//! The engine's settings, their defaults, and what the defaults rest on.
//!
//! Every default is a named constant with its reason, as GMP keeps its thresholds in
//! `gmp-mparam.h`. The kernel costs they rest on are measured by `crates/bench`'s `ifma`
//! benchmark on a CPU with AVX-512 IFMA (AMD Zen 4 when they were set), and the RSA layer
//! turns them into each key's [`BatchClass`](crate::rsa::BatchClass)
//! (`rsa/accel/ifma_key.rs`); the engine as a whole is measured under load with
//! `cryptocard speed --engine` (`docs/performance.md`).

use std::num::NonZeroUsize;
use std::time::Duration;

use super::Engine;
use super::offload::Offload;
use crate::{Error, Result};

/// Lanes in one batch: the 8 64-bit lanes of an AVX-512 register, one request each (the
/// "mb8" kernels). Fixed by the hardware, not tuned.
pub const DEFAULT_MAX_BATCH: usize = 8;

/// The fewest queued requests per free worker that the engine runs as a batch, on top of
/// each class's own [`BatchClass::min_batch_ops`](crate::rsa::BatchClass::min_batch_ops),
/// which always applies: 1, no bar beyond the class's own.
///
/// The class's figure comes from the kernels' costs (`rsa/accel/ifma_key.rs`): one mb8
/// call, four RSA-2048 operations (eight CRT halves), costs between two and three single
/// operations on the "x2" kernel, so from 3 operations a call beats running them one by
/// one (from 2 at 1024 bits, where a call costs less than two). With `free` workers
/// idle, `len` queued requests of a lane-batched class batch when ⌈len / free⌉ reaches
/// the larger of the two (the rule is in `policy`); below it the engine runs single
/// operations (Dusse and Kaliski's crossover: below about 600 bytes their PC did DES
/// faster itself than through the card). A higher crossover asks for deeper queues
/// before batching; one above [`DEFAULT_MAX_BATCH`] (or the configured `max_batch`) turns
/// batching off. Classes that are not lane-batched (scalar backend, multi-prime keys, a
/// CPU with neither IFMA nor AVX2) never batch.
pub const DEFAULT_CROSSOVER: usize = 1;

/// How long a queued request may wait for company before it is run with whatever is
/// queued, in microseconds. The wait happens only while arrivals are expected to fill the
/// batch in time (see `policy`), so a lone request does not pay it.
pub const DEFAULT_DEADLINE_US: u64 = 100;

/// Queue capacity per worker: enough for several full batches per core, so that under a
/// closed loop the workers never starve while a submitter waits for room.
pub const DEFAULT_QUEUE_PER_WORKER: usize = 64;

/// What a submission does when the queue is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backpressure {
    /// Wait for room (the default): nothing is refused while the engine runs.
    Block,
    /// Refuse at once with [`Error::Busy`].
    Reject,
}

/// What [`Engine::shutdown_with`] does with requests still queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShutdownMode {
    /// Run every queued request to completion, then stop (the default, and `Drop`'s).
    Drain,
    /// Answer every queued request with [`Error::ShutDown`]; batches already running
    /// complete normally.
    Cancel,
}

/// The engine's settings. Build one with [`Engine::builder`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// Worker threads, and the number of operations that run at once (workers and
    /// callers running directly share this many permits). Default: one per core,
    /// [`std::thread::available_parallelism`].
    pub workers: usize,
    /// The most requests queued at once. Default: [`DEFAULT_QUEUE_PER_WORKER`] per worker.
    pub queue_capacity: usize,
    /// The most requests in one batch. Default: [`DEFAULT_MAX_BATCH`].
    pub max_batch: usize,
    /// The fewest requests per free worker run as a batch, on top of each class's own
    /// minimum (above `max_batch`: never). Default: [`DEFAULT_CROSSOVER`].
    pub crossover: usize,
    /// The longest a request waits for its batch to fill. Default: [`DEFAULT_DEADLINE_US`].
    pub deadline: Duration,
    /// What a full queue does to a submission. Default: [`Backpressure::Block`].
    pub backpressure: Backpressure,
    /// Whether [`Engine::run`] may run a request on the caller's thread when a permit is
    /// free, no batch runs and nothing of its size is queued (saves two thread hand-offs).
    /// Default: true.
    pub direct: bool,
    /// A unit beside the workers that takes deep queues in large batches (the GPU;
    /// [`Offload`]), or `None` (the default): then the engine is as it always was.
    pub offload: Option<Offload>,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        let workers = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
        EngineConfig {
            workers,
            queue_capacity: DEFAULT_QUEUE_PER_WORKER * workers,
            max_batch: DEFAULT_MAX_BATCH,
            crossover: DEFAULT_CROSSOVER,
            deadline: Duration::from_micros(DEFAULT_DEADLINE_US),
            backpressure: Backpressure::Block,
            direct: true,
            offload: None,
        }
    }
}

impl EngineConfig {
    /// Checks that the settings make sense together.
    pub fn validate(&self) -> Result<()> {
        if self.workers == 0 {
            return Err(Error::InvalidArgument("engine: workers must be at least 1"));
        }
        if self.queue_capacity == 0 {
            return Err(Error::InvalidArgument("engine: queue capacity must be at least 1"));
        }
        if self.max_batch == 0 || self.max_batch > DEFAULT_MAX_BATCH {
            return Err(Error::InvalidArgument("engine: max batch must be 1 to 8"));
        }
        if self.crossover == 0 {
            return Err(Error::InvalidArgument("engine: crossover must be at least 1"));
        }
        if let Some(o) = &self.offload {
            o.validate(self.queue_capacity)?;
        }
        Ok(())
    }
}

/// Builds an [`Engine`]; every setting left alone keeps its documented default.
///
/// ```
/// use cryptocard::engine::Engine;
/// let engine = Engine::builder().workers(2).deadline_us(50).build()?;
/// # Ok::<(), cryptocard::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct EngineBuilder {
    config: EngineConfig,
    capacity_set: bool,
}

impl EngineBuilder {
    /// Worker threads (and permits). The queue capacity follows unless set explicitly.
    pub fn workers(mut self, n: usize) -> Self {
        self.config.workers = n;
        self
    }

    /// The most requests queued at once.
    pub fn queue_capacity(mut self, n: usize) -> Self {
        self.config.queue_capacity = n;
        self.capacity_set = true;
        self
    }

    /// The most requests in one batch (1 to 8; 1 turns batching off).
    pub fn max_batch(mut self, n: usize) -> Self {
        self.config.max_batch = n;
        self
    }

    /// The fewest requests per free worker run as a batch, on top of each class's own
    /// minimum (above 8: never batch).
    pub fn crossover(mut self, n: usize) -> Self {
        self.config.crossover = n;
        self
    }

    /// The batch deadline in microseconds.
    pub fn deadline_us(mut self, us: u64) -> Self {
        self.config.deadline = Duration::from_micros(us);
        self
    }

    /// What a full queue does to a submission.
    pub fn backpressure(mut self, b: Backpressure) -> Self {
        self.config.backpressure = b;
        self
    }

    /// Whether [`Engine::run`] may run on the caller's thread.
    pub fn direct(mut self, on: bool) -> Self {
        self.config.direct = on;
        self
    }

    /// The settings as they stand.
    pub fn config(&self) -> EngineConfig {
        let mut c = self.config.clone();
        if !self.capacity_set {
            c.queue_capacity = DEFAULT_QUEUE_PER_WORKER.saturating_mul(c.workers);
            // Room for the offload unit's next batch while it runs one.
            if let Some(o) = &c.offload {
                c.queue_capacity = c.queue_capacity.max(o.max_batch.saturating_mul(2));
            }
        }
        c
    }

    /// A unit that takes deep queues in large batches ([`Offload`], for example
    /// [`Offload::gpu`]). Unless the queue capacity is set, the queue then holds at least
    /// two of its batches.
    pub fn offload(mut self, o: Offload) -> Self {
        self.config.offload = Some(o);
        self
    }

    /// Starts the engine's workers.
    pub fn build(self) -> Result<Engine> {
        Engine::with_config(self.config())
    }
}
