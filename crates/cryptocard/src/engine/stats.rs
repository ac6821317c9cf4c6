//! Counters for benchmarks and monitoring: requests, how they ran, how full the batches
//! were, and how deep the queue got.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::config::DEFAULT_MAX_BATCH;
use super::ticket::{Answer, Reply};

/// A snapshot of the engine's counters since it started.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Requests accepted (queued or run directly).
    pub requests: u64,
    /// Requests answered (by a worker, directly, or cancelled by shutdown).
    pub answered: u64,
    /// Requests run on the caller's thread by [`super::Engine::run`].
    pub direct: u64,
    /// Requests a worker ran as single operations.
    pub singles: u64,
    /// `batches[n]`: batches of n requests (n = 2..=8) a worker ran; 0 and 1 stay 0.
    pub batches: [u64; DEFAULT_MAX_BATCH + 1],
    /// Submissions refused with [`crate::Error::Busy`].
    pub busy: u64,
    /// The deepest the queue has been.
    pub queue_high_water: u64,
    /// Callbacks that panicked (caught; the worker lived on).
    pub callback_panics: u64,
    /// Requests the offload unit ran ([`super::Offload`]).
    pub offloaded: u64,
    /// Batches it ran them in.
    pub offload_batches: u64,
    /// Microseconds the unit took over those batches (each from its start to its last
    /// answer, summed over the offload threads).
    pub offload_micros: u64,
    /// The longest of them, in microseconds (since the engine started, as
    /// `queue_high_water`).
    pub offload_longest_micros: u64,
}

impl Stats {
    /// Requests that ran inside batches.
    pub fn batched(&self) -> u64 {
        self.batches.iter().enumerate().map(|(n, &b)| n as u64 * b).sum()
    }

    /// The mean number of requests per batch a worker ran; 0 if none.
    pub fn mean_batch(&self) -> f64 {
        let batches: u64 = self.batches.iter().sum();
        if batches == 0 { 0.0 } else { self.batched() as f64 / batches as f64 }
    }

    /// The counts from `earlier` (a snapshot of the same engine) to this snapshot, for a
    /// benchmark that measures one phase of a run; `queue_high_water` stays this
    /// snapshot's (the deepest since the engine started).
    pub fn since(&self, earlier: &Stats) -> Stats {
        let mut batches = self.batches;
        for (b, e) in batches.iter_mut().zip(&earlier.batches) {
            *b = b.saturating_sub(*e);
        }
        Stats {
            requests: self.requests.saturating_sub(earlier.requests),
            answered: self.answered.saturating_sub(earlier.answered),
            direct: self.direct.saturating_sub(earlier.direct),
            singles: self.singles.saturating_sub(earlier.singles),
            batches,
            busy: self.busy.saturating_sub(earlier.busy),
            queue_high_water: self.queue_high_water,
            callback_panics: self.callback_panics.saturating_sub(earlier.callback_panics),
            offloaded: self.offloaded.saturating_sub(earlier.offloaded),
            offload_batches: self.offload_batches.saturating_sub(earlier.offload_batches),
            offload_micros: self.offload_micros.saturating_sub(earlier.offload_micros),
            offload_longest_micros: self.offload_longest_micros,
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Counters {
    requests: AtomicU64,
    answered: AtomicU64,
    direct: AtomicU64,
    singles: AtomicU64,
    batches: [AtomicU64; DEFAULT_MAX_BATCH + 1],
    busy: AtomicU64,
    queue_high_water: AtomicU64,
    callback_panics: AtomicU64,
    offloaded: AtomicU64,
    offload_batches: AtomicU64,
    offload_micros: AtomicU64,
    offload_longest_micros: AtomicU64,
}

impl Counters {
    pub(crate) fn accepted(&self) {
        self.requests.fetch_add(1, Relaxed);
    }

    /// Counts every answer and sends it (counting first, so that a caller holding its
    /// answer sees it counted), then counts the callbacks that panicked.
    pub(crate) fn send_all(&self, answered: Vec<(Reply, Answer)>) {
        self.answered.fetch_add(answered.len() as u64, Relaxed);
        let panics = answered
            .into_iter()
            .map(|(reply, answer)| reply.send(answer))
            .filter(|&panicked| panicked)
            .count() as u64;
        if panics > 0 {
            self.callback_panics.fetch_add(panics, Relaxed);
        }
    }

    pub(crate) fn answered_direct(&self) {
        self.answered.fetch_add(1, Relaxed);
    }

    pub(crate) fn direct(&self) {
        self.direct.fetch_add(1, Relaxed);
    }

    /// A worker took `n` requests to run together (1: a single operation).
    pub(crate) fn ran(&self, n: usize) {
        if n == 1 {
            self.singles.fetch_add(1, Relaxed);
        } else if let Some(b) = self.batches.get(n) {
            b.fetch_add(1, Relaxed);
        }
    }

    pub(crate) fn offloaded(&self, n: usize) {
        self.offloaded.fetch_add(n as u64, Relaxed);
        self.offload_batches.fetch_add(1, Relaxed);
    }

    /// The unit took `took` over one batch.
    pub(crate) fn offload_time(&self, took: core::time::Duration) {
        let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.offload_micros.fetch_add(us, Relaxed);
        self.offload_longest_micros.fetch_max(us, Relaxed);
    }

    pub(crate) fn busy(&self) {
        self.busy.fetch_add(1, Relaxed);
    }

    pub(crate) fn queue_depth(&self, len: usize) {
        self.queue_high_water.fetch_max(len as u64, Relaxed);
    }

    pub(crate) fn snapshot(&self) -> Stats {
        let mut batches = [0; DEFAULT_MAX_BATCH + 1];
        for (b, c) in batches.iter_mut().zip(&self.batches) {
            *b = c.load(Relaxed);
        }
        Stats {
            requests: self.requests.load(Relaxed),
            answered: self.answered.load(Relaxed),
            direct: self.direct.load(Relaxed),
            singles: self.singles.load(Relaxed),
            batches,
            busy: self.busy.load(Relaxed),
            queue_high_water: self.queue_high_water.load(Relaxed),
            callback_panics: self.callback_panics.load(Relaxed),
            offloaded: self.offloaded.load(Relaxed),
            offload_batches: self.offload_batches.load(Relaxed),
            offload_micros: self.offload_micros.load(Relaxed),
            offload_longest_micros: self.offload_longest_micros.load(Relaxed),
        }
    }
}
