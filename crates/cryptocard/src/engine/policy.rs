//! The batching policy: which requests may share a batch, and what a free worker runs next.
//!
//! # Classes
//!
//! Requests share a batch only if [`private_batch`](crate::rsa::private_batch) can run them
//! in one kernel call: [`class_of`] takes the RSA layer's own
//! [`crate::rsa::BatchClass`] of the key (which says whether its operations
//! run in lane calls, IFMA's 8-lane mb8 or the AVX2 unit's four lanes, how many to a
//! call, and how few are worth one) and adds the
//! modulus length, so that one class is one stream of equal-cost requests for the arrival
//! estimate (two lengths with one lane class, a 2047- and a 2048-bit key, then batch
//! apart; that costs lanes only in that rare case).
//!
//! # What a batch costs
//!
//! One mb8 call, the CRT halves of four operations, costs less than four single
//! operations on the "x2" kernel: under two at 1024 bits, between two and three above
//! (`rsa/accel/ifma_key.rs`, from `crates/bench`'s `ifma` benchmark). A lane-batched class
//! therefore counts in whole mb8 calls of [`Lanes::ops_per_batch`] (4) operations, and a
//! call pays from [`Lanes::min_batch_ops`] operations on (2 at 1024 bits, 3 above): fewer
//! run faster one by one, and `private_batch` would run them so anyway. The AVX2 unit
//! of a CPU without IFMA takes two operations to a call, which pays from two (a call,
//! four lanes, costs about three of the scalar core's exponentiations, one and a half
//! single operations); the rules below are the same with its numbers.
//!
//! A class that is not lane-batched (the scalar backend, multi-prime keys, a CPU with
//! neither IFMA nor AVX2) runs single operations only: `private_batch` would run a batch one request
//! after another, so a batch saves no compute, holds every answer back until the last
//! one of the batch is done, and keeps the other workers from sharing the queue; single
//! operations spread over the free workers by themselves, one each per decision.
//!
//! # The decision
//!
//! With `free` workers not running a batch (this one included; one running a single
//! operation is back long before a batch would end), `len` queued requests of a
//! lane-batched class are this worker's share of ⌈len / free⌉. A batch *pays* when the
//! share reaches the class's `min_batch_ops` (or the configured crossover, if that is
//! higher; see below): with a 2048-bit call costing between two and three singles, eight
//! requests and two free workers run as one 4-operation mb8 call each rather than four
//! singles each, and four run as two singles each rather than one call on one worker.
//! The worker then takes its share in whole mb8 calls: rounded up to a multiple of
//! `ops_per_batch` when the remainder would reach `min_batch_ops` (its call costs the
//! same with the lanes filled), rounded down when it would not (the remainder would run
//! one by one on x2 anyway, so it is left to the next free worker), and at most
//! `max_batch` and `len`. So two free workers split eight requests into two 4-operation
//! calls, and nine into 4 + 4 + 1 rather than 8 + 1.
//!
//! The configured crossover ([`super::EngineConfig::crossover`], default
//! [`super::DEFAULT_CROSSOVER`] = 1) is a floor on the share, above the class's own: the
//! class's `min_batch_ops` always applies, because below it a batch gains nothing; a
//! higher crossover asks for more requests per worker before batching; a crossover (or a
//! `min_batch_ops`) above `max_batch` turns batching off, as does `max_batch(1)`.
//!
//! A free worker looks at the classes, oldest head first, and for each:
//!
//! 1. a request past its deadline (or an engine shutting down): run now: the share if a
//!    batch pays, else one single operation;
//! 2. a class that is not lane-batched: a single operation, now;
//! 3. a share of whole mb8 calls (or of `max_batch`): run it now; a fuller queue would
//!    only make the next batch;
//! 4. otherwise estimate how many more requests of the class will arrive before the
//!    oldest one's deadline (remaining time / mean inter-arrival gap, in whole
//!    requests: a fraction of one is none). If a batch does not pay yet, wait only if
//!    those arrivals would make it pay; if it does (a partial call), wait only if at
//!    least one more is expected to fill a lane. Else run now: a single operation or
//!    the partial batch.
//!
//! If no class runs, the worker sleeps until the next arrival, the earliest deadline, or
//! one expected inter-arrival gap, whichever is first, and decides again.
//!
//! Rule 4 is what makes low load fast, where a fixed timer (OpenSSL's QAT engine polls
//! every 10-200 ms and waits for fixed 8-request batches) makes it slow: a lone request,
//! or a trickle, is run at once because nothing is expected to join it, while a burst (the
//! answers of a finished batch coming back as new requests) is held the few microseconds
//! it takes to fill the next batch. Shand, Bertin and Vuillemin's lesson from their PAM
//! boards (section 5: "use pipelining in the host/PAM interface") is the reason for the
//! queue: keep every unit busy with the next command ready.

use std::time::Duration;

use crate::rsa::{BatchClass, PrivateRequest, RsaPrivateKey};

/// How a lane-batched class fills its kernel calls (from its [`BatchClass`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lanes {
    /// Operations in one full mb8 call ([`BatchClass::ops_per_batch`]).
    pub ops_per_batch: usize,
    /// The fewest operations worth a call ([`BatchClass::min_batch_ops`]).
    pub min_batch_ops: usize,
}

/// Which requests may share a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Class {
    /// How `private_batch` groups the requests.
    batch: BatchClass,
    /// The modulus length in bits.
    bits: usize,
}

impl Class {
    /// How the class fills kernel calls; `None` when it is not lane-batched (it then runs
    /// single operations only).
    pub(crate) fn lanes(self) -> Option<Lanes> {
        self.batch.is_lane_batched().then(|| Lanes {
            ops_per_batch: self.batch.ops_per_batch().max(1),
            min_batch_ops: self.batch.min_batch_ops().max(1),
        })
    }

    /// A class made up for the queue's tests: `key`'s batch class with another length.
    #[cfg(test)]
    pub(crate) fn for_test(key: &RsaPrivateKey, bits: usize) -> Class {
        Class { batch: key.batch_class(), bits }
    }
}

/// The batch class of a request: its key's [`BatchClass`] on the key's backend, and its
/// modulus length in bits.
pub(crate) fn class_of(key: &RsaPrivateKey, req: &PrivateRequest) -> Class {
    Class { batch: req.batch_class(key), bits: key.bits() }
}

/// Mean gap between arrivals in one class, as an exponentially weighted moving average
/// with weight 1/8 (TCP's smoothed round-trip time has the same form, RFC 6298).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Arrivals {
    /// The smoothed gap in nanoseconds; 0 until two arrivals have been seen.
    gap_ns: u64,
    /// Time of the last arrival, as nanoseconds since the engine started.
    last_ns: Option<u64>,
}

impl Arrivals {
    /// Records an arrival at `now_ns` (nanoseconds since the engine started).
    pub(crate) fn record(&mut self, now_ns: u64) {
        if let Some(last) = self.last_ns {
            let sample = now_ns.saturating_sub(last);
            self.gap_ns = if self.gap_ns == 0 {
                sample.max(1)
            } else {
                (self.gap_ns - self.gap_ns / 8 + sample / 8).max(1)
            };
        }
        self.last_ns = Some(now_ns);
    }

    /// The expected gap to the next arrival seen from `now_ns`: the smoothed gap, or the
    /// time since the last arrival if that is longer already. `None` with no estimate.
    pub(crate) fn gap(&self, now_ns: u64) -> Option<Duration> {
        let last = self.last_ns?;
        if self.gap_ns == 0 {
            return None;
        }
        Some(Duration::from_nanos(self.gap_ns.max(now_ns.saturating_sub(last))))
    }
}

/// What the policy needs to know about one class's queue.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClassView {
    /// Requests queued.
    pub len: usize,
    /// How long the oldest has waited.
    pub head_age: Duration,
    /// How the class fills kernel calls; `None`: single operations only.
    pub lanes: Option<Lanes>,
    /// The expected gap to the next arrival, if known.
    pub gap: Option<Duration>,
}

/// What a free worker does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Take `count` requests from the class at `index` (a single operation when 1).
    Run { index: usize, count: usize },
    /// Nothing to run before this much time has passed (or a request arrives).
    Wait(Duration),
    /// Nothing queued.
    Idle,
}

/// The tuned numbers the decision depends on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policy {
    pub max_batch: usize,
    pub crossover: usize,
    pub deadline: Duration,
}

impl Policy {
    /// The share of the queue per free worker from which a class batches: its
    /// `min_batch_ops`, or the configured crossover if higher; `None` when no batch
    /// within `max_batch` reaches it.
    fn need(&self, lanes: Lanes) -> Option<usize> {
        Some(self.crossover.max(lanes.min_batch_ops)).filter(|&n| n <= self.max_batch)
    }

    /// Whether `len` requests are better run in batches than as single operations spread
    /// over `free` workers: ⌈len / free⌉ ≥ need, that is len > (need - 1) · free.
    fn pays(&self, len: usize, lanes: Lanes, free: usize) -> bool {
        self.need(lanes).is_some_and(|need| len > (need - 1) * free)
    }

    /// This worker's share of `len` requests (when a batch pays) in whole kernel calls:
    /// ⌈len / free⌉ rounded up to a multiple of `ops_per_batch` when the remainder fills
    /// a call worth running, else down; at most `max_batch` and `len` (see the module
    /// docs).
    fn share(&self, len: usize, lanes: Lanes, free: usize) -> usize {
        let (ops, share) = (lanes.ops_per_batch, len.div_ceil(free));
        let rem = share % ops;
        let calls =
            if rem == 0 || rem >= lanes.min_batch_ops { share.div_ceil(ops) } else { share / ops };
        (calls * ops).min(self.max_batch).min(len)
    }

    /// The decision for one class: run this many now (`Ok`) or wait this long (`Err`).
    fn decide_class(&self, c: &ClassView, free: usize, closing: bool) -> Result<usize, Duration> {
        let Some(lanes) = c.lanes else {
            return Ok(1);
        };
        let pays = self.pays(c.len, lanes, free);
        let count = if pays { self.share(c.len, lanes, free) } else { 1 };
        let whole = pays && (count % lanes.ops_per_batch == 0 || count == self.max_batch);
        if closing || c.head_age >= self.deadline || whole {
            return Ok(count);
        }
        let remaining = self.deadline - c.head_age;
        let Some(gap) = c.gap else {
            return Ok(count);
        };
        // Requests come whole: a fraction of one expected is none to wait for (a lone
        // request of a class that pays from two, with a tenth of an arrival expected
        // before the deadline, would otherwise wait the whole deadline every time).
        let expected = (remaining.as_secs_f64() / gap.as_secs_f64()) as usize;
        let worth_waiting = if pays {
            expected >= 1
        } else {
            self.pays(c.len.saturating_add(expected), lanes, free)
        };
        if worth_waiting {
            // Look again after one expected gap: if nothing came, the silence has
            // stretched the estimate and the partial batch may run before the deadline.
            Err(remaining.min(gap))
        } else {
            Ok(count)
        }
    }

    /// The decision over all classes (`views[i]` describes class `i`) for a worker that
    /// sees `free` workers idle, itself included (at least 1).
    pub(crate) fn decide(&self, views: &[ClassView], free: usize, closing: bool) -> Decision {
        let free = free.max(1);
        let mut order: Vec<usize> = (0..views.len()).filter(|&i| views[i].len > 0).collect();
        if order.is_empty() {
            return Decision::Idle;
        }
        order.sort_by(|&a, &b| views[b].head_age.cmp(&views[a].head_age));
        let mut wait = Duration::MAX;
        for index in order {
            match self.decide_class(&views[index], free, closing) {
                Ok(count) => return Decision::Run { index, count },
                Err(d) => wait = wait.min(d),
            }
        }
        Decision::Wait(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classes of two-prime IFMA keys: 2048 bits (a call pays from 3 operations) and
    /// 1024 bits (from 2), as `BatchClass` reports them.
    const L2048: Lanes = Lanes { ops_per_batch: 4, min_batch_ops: 3 };
    const L1024: Lanes = Lanes { ops_per_batch: 4, min_batch_ops: 2 };

    const P: Policy = Policy { max_batch: 8, crossover: 1, deadline: Duration::from_micros(100) };

    fn view_of(lanes: Option<Lanes>, len: usize, age_us: u64, gap_us: Option<u64>) -> ClassView {
        ClassView {
            len,
            head_age: Duration::from_micros(age_us),
            lanes,
            gap: gap_us.map(Duration::from_micros),
        }
    }

    /// A 2048-bit lane-batched class.
    fn view(len: usize, age_us: u64, gap_us: Option<u64>) -> ClassView {
        view_of(Some(L2048), len, age_us, gap_us)
    }

    fn run(count: usize) -> Decision {
        Decision::Run { index: 0, count }
    }

    #[test]
    fn idle_when_nothing_is_queued() {
        assert_eq!(P.decide(&[view(0, 0, None)], 1, false), Decision::Idle);
    }

    #[test]
    fn lone_request_runs_at_once() {
        // One request, arrivals every 1 ms: nothing will join it within 100 us.
        assert_eq!(P.decide(&[view(1, 0, Some(1000))], 1, false), run(1));
        assert_eq!(P.decide(&[view(1, 0, None)], 1, false), run(1));
        // Also in a class that pays from two (1024-bit IFMA keys, the AVX2 unit): a tenth
        // of an arrival expected is no reason to wait.
        assert_eq!(P.decide(&[view_of(Some(L1024), 1, 0, Some(1000))], 1, false), run(1));
        // A whole one expected is.
        assert!(matches!(
            P.decide(&[view_of(Some(L1024), 1, 0, Some(90))], 1, false),
            Decision::Wait(_)
        ));
    }

    #[test]
    fn burst_waits_to_fill() {
        // Two queued, one every 10 us: a call does not pay yet, eight more are expected.
        assert_eq!(
            P.decide(&[view(2, 20, Some(10))], 1, false),
            Decision::Wait(Duration::from_micros(10))
        );
        // Near the deadline, 2.5 more expected: look again after one gap.
        assert_eq!(
            P.decide(&[view(2, 90, Some(4))], 1, false),
            Decision::Wait(Duration::from_micros(4))
        );
        // Three with two free workers, 0.5 more expected: the share cannot reach 3.
        assert_eq!(P.decide(&[view(3, 98, Some(4))], 2, false), run(1));
        // A partial call (three of four lanes pairs) waits for its last operation...
        assert!(matches!(P.decide(&[view(3, 20, Some(10))], 1, false), Decision::Wait(_)));
        // ...but a whole call runs at once rather than wait for a second one.
        assert_eq!(P.decide(&[view(4, 20, Some(10))], 1, false), run(4));
        // Five: one whole call now; the fifth alone would run on x2 anyway.
        assert_eq!(P.decide(&[view(5, 20, Some(10))], 1, false), run(4));
    }

    #[test]
    fn full_batch_and_deadline_flush() {
        assert_eq!(P.decide(&[view(12, 0, Some(1))], 1, false), run(8));
        assert_eq!(P.decide(&[view(3, 100, Some(1))], 1, false), run(3));
        // Past the deadline below the class's minimum: single operations.
        assert_eq!(P.decide(&[view(2, 150, Some(1))], 1, false), run(1));
        assert_eq!(P.decide(&[view_of(Some(L1024), 2, 150, Some(1))], 1, false), run(2));
        // Shutting down: no waiting.
        assert_eq!(P.decide(&[view(3, 0, Some(1))], 1, true), run(3));
    }

    #[test]
    fn free_workers_split_the_queue_into_whole_calls() {
        // Eight 2048-bit requests, two free workers: one 4-operation call each (under
        // three singles) beats four singles each and one call of eight on one worker.
        assert_eq!(P.decide(&[view(8, 0, Some(1))], 2, false), run(4));
        // Four: two singles each beat one call (over two singles); the burst may grow.
        assert!(matches!(P.decide(&[view(4, 0, Some(1))], 2, false), Decision::Wait(_)));
        assert_eq!(P.decide(&[view(4, 100, Some(1))], 2, false), run(1));
        // Six: a share of 3 fills a call's lanes to 4.
        assert_eq!(P.decide(&[view(6, 100, Some(1))], 2, false), run(4));
        // Nine: a share of 5 is one call; the ninth is left to the next free worker.
        assert_eq!(P.decide(&[view(9, 0, Some(1))], 2, false), run(4));
        assert_eq!(P.decide(&[view(16, 0, Some(1))], 2, false), run(8));
        // At 1024 bits a call pays from 2: a share of 2 or 3 is one call, of 5 too.
        let small = |len| [view_of(Some(L1024), len, 100, Some(1))];
        assert_eq!(P.decide(&small(4), 2, false), run(4));
        assert_eq!(P.decide(&small(5), 2, false), run(4));
        assert_eq!(P.decide(&small(10), 2, false), run(4));
        assert_eq!(P.decide(&small(12), 2, false), run(8));
        // A worker that sees no free permit counts itself.
        assert_eq!(P.decide(&[view(3, 100, Some(1))], 0, false), run(3));
    }

    #[test]
    fn crossover_is_a_floor_above_the_class_minimum() {
        // Crossover 5: eight with two free workers run as singles, nine as calls.
        let five = Policy { crossover: 5, ..P };
        assert_eq!(five.decide(&[view(8, 0, None)], 2, false), run(1));
        assert_eq!(five.decide(&[view(9, 0, None)], 2, false), run(4));
        // Crossover 2 does not lower a 2048-bit class's minimum of 3.
        let two = Policy { crossover: 2, ..P };
        assert_eq!(two.decide(&[view(2, 100, None)], 1, false), run(1));
        assert_eq!(two.decide(&[view(3, 100, None)], 1, false), run(3));
        // Above the batch size: never a batch, however deep the queue.
        let off = Policy { crossover: 9, ..P };
        assert_eq!(off.decide(&[view(20, 0, Some(1))], 1, false), run(1));
        for max_batch in [1, 2] {
            let capped = Policy { max_batch, ..P };
            assert_eq!(capped.decide(&[view(20, 0, Some(1))], 1, false), run(1));
        }
        // A cap the class's minimum fits under takes the cap.
        let capped = Policy { max_batch: 2, ..P };
        assert_eq!(capped.decide(&[view_of(Some(L1024), 20, 0, Some(1))], 1, false), run(2));
    }

    #[test]
    fn partial_batch_runs_when_nothing_more_is_coming() {
        assert_eq!(P.decide(&[view(3, 10, Some(500))], 1, false), run(3));
    }

    #[test]
    fn classes_without_lanes_run_single_operations_at_once() {
        let d = P.decide(&[view_of(None, 20, 0, Some(1))], 1, false);
        assert_eq!(d, run(1));
        let other = view_of(None, 2, 5, None);
        let d = P.decide(&[view(2, 20, Some(10)), other, view(8, 1, Some(1))], 1, false);
        // Class 0 waits; class 1 (next oldest) has no lanes and runs alone.
        assert_eq!(d, Decision::Run { index: 1, count: 1 });
    }

    #[test]
    fn arrivals_track_the_gap() {
        let mut a = Arrivals::default();
        assert_eq!(a.gap(0), None);
        a.record(1_000);
        a.record(2_000);
        assert_eq!(a.gap(2_000), Some(Duration::from_nanos(1_000)));
        // Silence since the last arrival stretches the estimate.
        assert_eq!(a.gap(12_000), Some(Duration::from_nanos(10_000)));
        for t in 1..=64u64 {
            a.record(2_000 + t * 100);
        }
        let g = a.gap(2_000 + 64 * 100).unwrap();
        assert!(g < Duration::from_nanos(120), "{g:?}");
    }
}
