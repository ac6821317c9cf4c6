//! The batching policy: which requests may share a batch, and what a free worker runs next.
//!
//! # Classes
//!
//! Requests share a batch only if the 8-lane kernel can run them together: same modulus
//! length in bits, two primes (the CRT halves of each lane then have one length). [`class_of`] is
//! the one place that decides; it switches to the RSA layer's own batch classes when
//! that layer grows them.
//!
//! # The decision
//!
//! A batch of up to 8 costs about as much as 5 single operations (see
//! [`super::DEFAULT_CROSSOVER`]), so batching wins only when requests are waiting anyway,
//! and holding a request back to fill a batch costs it latency. With `free` workers not
//! running a batch (this one included; one running a single operation is back long before
//! a batch would end), `len` queued requests run as single operations take about
//! ⌈len / free⌉ single-operation times, so a batch *pays* when ⌈len / free⌉ reaches the
//! crossover: eight requests and two idle cores run faster as four singles each than as
//! one batch on one core, sixteen run faster as two batches. A free worker looks at the
//! classes, oldest first, and for each:
//!
//! 1. a request past its deadline (or an engine shutting down): run now: a batch of
//!    up to 8 if a batch pays, else one single operation;
//! 2. a class that is not batchable: a single operation, now;
//! 3. a full batch: run it (as a batch if that pays);
//! 4. otherwise estimate how many more requests of the class will arrive before the
//!    oldest one's deadline (remaining time / mean inter-arrival gap). If a batch does
//!    not pay yet, wait only if those arrivals would make it pay; if it does, wait only
//!    if at least one more is expected. Else run now: a single operation or the partial
//!    batch.
//!
//! If no class runs, the worker sleeps until the next arrival, the earliest deadline, or
//! one expected inter-arrival gap, whichever is first, and decides again.
//!
//! [`private_batch`](crate::rsa::private_batch) runs lane-batched classes (two-prime
//! keys of 1024 to 3072 bits on the IFMA backend) four operations to an mb8 call; other
//! classes it runs one by one, so there a batch only keeps one worker busy with several
//! requests, which costs nothing in throughput once every worker is busy anyway.
//!
//! Rule 4 is what makes low load fast, where a fixed timer (OpenSSL's QAT engine polls
//! every 10-200 ms and waits for fixed 8-request batches) makes it slow: a lone request,
//! or a trickle, is run at once because nothing is expected to join it, while a burst (the
//! answers of a finished batch coming back as new requests) is held the few microseconds
//! it takes to fill the next batch. Shand, Bertin and Vuillemin's lesson from their PAM
//! boards (section 5: "use pipelining in the host/PAM interface") is the reason for the
//! queue: keep every unit busy with the next command ready.

use std::time::Duration;

use crate::rsa::{PrivateRequest, RsaPrivateKey};

/// Which requests may share a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Class {
    /// The modulus length in bits.
    bits: usize,
    /// Whether the batch kernel takes this kind of key at all.
    batchable: bool,
}

impl Class {
    pub(crate) fn batchable(self) -> bool {
        self.batchable
    }

    /// A class made up for the queue's tests.
    #[cfg(test)]
    pub(crate) fn for_test(bits: usize, batchable: bool) -> Class {
        Class { bits, batchable }
    }
}

/// The batch class of a request: its key's modulus length in bits and whether it has two
/// primes.
///
/// The request is not looked at yet: every scheme ends in the same private exponentiation.
pub(crate) fn class_of(key: &RsaPrivateKey, _req: &PrivateRequest) -> Class {
    Class { bits: key.bits(), batchable: key.primes().len() == 2 }
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
    /// Whether the class may run as a batch.
    pub batchable: bool,
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
    /// Whether `len` requests (of a batchable class) are better run in batches than as
    /// single operations spread over `free` workers: ⌈len / free⌉ ≥ crossover, that is
    /// len > (crossover - 1) · free, for a crossover a batch can reach at all.
    fn pays(&self, len: f64, free: usize) -> bool {
        self.crossover <= self.max_batch && len > ((self.crossover - 1) * free) as f64
    }

    /// How many of `len` queued requests to take when they must run now.
    fn flush_count(&self, len: usize, batchable: bool, free: usize) -> usize {
        if batchable && self.pays(len as f64, free) { len.min(self.max_batch) } else { 1 }
    }

    /// The decision for one class: run now (`Ok`) or wait this long (`Err`).
    fn decide_class(&self, c: &ClassView, free: usize, closing: bool) -> Result<usize, Duration> {
        let flush = Ok(self.flush_count(c.len, c.batchable, free));
        if closing || c.head_age >= self.deadline || !c.batchable || c.len >= self.max_batch {
            return flush;
        }
        let remaining = self.deadline - c.head_age;
        let Some(gap) = c.gap else {
            return flush;
        };
        let expected = remaining.as_secs_f64() / gap.as_secs_f64();
        let worth_waiting = if self.pays(c.len as f64, free) {
            expected >= 1.0
        } else {
            self.pays(c.len as f64 + expected, free)
        };
        if worth_waiting {
            // Look again after one expected gap: if nothing came, the silence has
            // stretched the estimate and the partial batch may run before the deadline.
            Err(remaining.min(gap))
        } else {
            flush
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

    const P: Policy = Policy { max_batch: 8, crossover: 5, deadline: Duration::from_micros(100) };

    fn view(len: usize, age_us: u64, gap_us: Option<u64>) -> ClassView {
        ClassView {
            len,
            head_age: Duration::from_micros(age_us),
            batchable: true,
            gap: gap_us.map(Duration::from_micros),
        }
    }

    #[test]
    fn idle_when_nothing_is_queued() {
        assert_eq!(P.decide(&[view(0, 0, None)], 1, false), Decision::Idle);
    }

    #[test]
    fn lone_request_runs_at_once() {
        // One request, arrivals every 1 ms: nothing will join it within 100 us.
        let d = P.decide(&[view(1, 0, Some(1000))], 1, false);
        assert_eq!(d, Decision::Run { index: 0, count: 1 });
        let d = P.decide(&[view(1, 0, None)], 1, false);
        assert_eq!(d, Decision::Run { index: 0, count: 1 });
    }

    #[test]
    fn burst_waits_to_fill() {
        // Three queued, one every 10 us: 10 more expected before the deadline.
        assert_eq!(
            P.decide(&[view(3, 20, Some(10))], 1, false),
            Decision::Wait(Duration::from_micros(10))
        );
        // Near the deadline, 2.5 more expected: look again after one gap.
        assert_eq!(
            P.decide(&[view(3, 90, Some(4))], 1, false),
            Decision::Wait(Duration::from_micros(4))
        );
        // At 2 us to go, 0.5 more expected: three cannot reach the crossover, run one.
        assert_eq!(
            P.decide(&[view(3, 98, Some(4))], 1, false),
            Decision::Run { index: 0, count: 1 }
        );
        // Six queued, same rate: wait for the last two lanes.
        assert!(matches!(P.decide(&[view(6, 20, Some(10))], 1, false), Decision::Wait(_)));
    }

    #[test]
    fn full_batch_and_deadline_flush() {
        assert_eq!(
            P.decide(&[view(12, 0, Some(1))], 1, false),
            Decision::Run { index: 0, count: 8 }
        );
        assert_eq!(
            P.decide(&[view(6, 100, Some(1))], 1, false),
            Decision::Run { index: 0, count: 6 }
        );
        // Past the deadline below the crossover: single operations.
        assert_eq!(
            P.decide(&[view(3, 150, Some(1))], 1, false),
            Decision::Run { index: 0, count: 1 }
        );
        // Shutting down: no waiting.
        assert_eq!(P.decide(&[view(6, 0, Some(1))], 1, true), Decision::Run { index: 0, count: 6 });
    }

    #[test]
    fn idle_workers_take_singles_until_a_batch_pays() {
        // Eight queued, two idle workers: four singles each beat one batch of eight.
        assert_eq!(
            P.decide(&[view(8, 0, Some(1))], 2, false),
            Decision::Run { index: 0, count: 1 }
        );
        // Nine: ceil(9 / 2) = 5 reaches the crossover.
        assert_eq!(
            P.decide(&[view(9, 0, Some(1))], 2, false),
            Decision::Run { index: 0, count: 8 }
        );
        // Six at the deadline with two idle: singles; with one idle: the batch.
        assert_eq!(
            P.decide(&[view(6, 100, Some(1))], 2, false),
            Decision::Run { index: 0, count: 1 }
        );
        assert_eq!(
            P.decide(&[view(6, 100, Some(1))], 1, false),
            Decision::Run { index: 0, count: 6 }
        );
        // Six in a fast burst with two idle: wait, more arrivals will make a batch pay.
        assert!(matches!(P.decide(&[view(6, 20, Some(10))], 2, false), Decision::Wait(_)));
        // A crossover above the batch size: never a batch, however deep the queue.
        let off = Policy { crossover: 9, ..P };
        assert_eq!(
            off.decide(&[view(20, 0, Some(1))], 1, false),
            Decision::Run { index: 0, count: 1 }
        );
        // A worker that sees no free permit counts itself.
        assert_eq!(
            P.decide(&[view(6, 100, Some(1))], 0, false),
            Decision::Run { index: 0, count: 6 }
        );
    }

    #[test]
    fn partial_batch_runs_when_nothing_more_is_coming() {
        assert_eq!(
            P.decide(&[view(6, 10, Some(500))], 1, false),
            Decision::Run { index: 0, count: 6 }
        );
    }

    #[test]
    fn oldest_class_first_and_unbatchable_alone() {
        let mut other = view(2, 5, None);
        other.batchable = false;
        let d = P.decide(&[view(3, 20, Some(10)), other, view(8, 1, Some(1))], 1, false);
        // Class 0 waits; class 1 (next oldest) is not batchable and runs alone.
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
