//! The bounded request queue, one FIFO per batch class.
//!
//! The queue is plain data: the engine keeps it under its one mutex, and the policy reads
//! it through [`Queue::views`]. Requests of one class leave in arrival order; across
//! classes the policy serves the oldest head first.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::policy::{Arrivals, Class, ClassView};
use super::ticket::Reply;
use crate::rsa::{PrivateRequest, RsaPrivateKey};

/// One accepted request on its way to a worker.
#[derive(Debug)]
pub(crate) struct Job {
    pub key: Arc<RsaPrivateKey>,
    pub req: PrivateRequest,
    pub reply: Reply,
    pub class: Class,
    /// When it entered the queue.
    pub enqueued: Instant,
}

#[derive(Debug)]
struct ClassQueue {
    class: Class,
    jobs: VecDeque<Job>,
    arrivals: Arrivals,
}

/// Empty classes are forgotten (with their arrival statistics) once there are more than
/// this many, so a stream of odd key sizes cannot grow the queue without bound.
const MAX_IDLE_CLASSES: usize = 16;

/// Requests waiting for a worker.
#[derive(Debug)]
pub(crate) struct Queue {
    classes: Vec<ClassQueue>,
    len: usize,
    capacity: usize,
    /// The time origin for arrival statistics.
    origin: Instant,
}

impl Queue {
    pub(crate) fn new(capacity: usize) -> Queue {
        Queue { classes: Vec::new(), len: 0, capacity, origin: Instant::now() }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn is_full(&self) -> bool {
        self.len >= self.capacity
    }

    /// Requests of `class` queued.
    pub(crate) fn class_len(&self, class: Class) -> usize {
        self.classes.iter().find(|c| c.class == class).map_or(0, |c| c.jobs.len())
    }

    fn nanos(&self, t: Instant) -> u64 {
        u64::try_from(t.saturating_duration_since(self.origin).as_nanos()).unwrap_or(u64::MAX)
    }

    /// Appends a job (the caller has checked [`Queue::is_full`]).
    pub(crate) fn push(&mut self, job: Job) {
        let now = self.nanos(job.enqueued);
        let i = match self.classes.iter().position(|c| c.class == job.class) {
            Some(i) => i,
            None => {
                if self.classes.len() >= MAX_IDLE_CLASSES {
                    self.classes.retain(|c| !c.jobs.is_empty());
                }
                self.classes.push(ClassQueue {
                    class: job.class,
                    jobs: VecDeque::new(),
                    arrivals: Arrivals::default(),
                });
                self.classes.len() - 1
            }
        };
        let c = &mut self.classes[i];
        c.arrivals.record(now);
        c.jobs.push_back(job);
        self.len += 1;
    }

    /// What the policy sees, one view per class, in the order [`Queue::take`] indexes.
    pub(crate) fn views(&self, now: Instant) -> Vec<ClassView> {
        let now_ns = self.nanos(now);
        self.classes
            .iter()
            .map(|c| ClassView {
                len: c.jobs.len(),
                head_age: c
                    .jobs
                    .front()
                    .map_or(Duration::ZERO, |j| now.saturating_duration_since(j.enqueued)),
                lanes: c.class.lanes(),
                gap: c.arrivals.gap(now_ns),
            })
            .collect()
    }

    /// Removes up to `count` of the oldest jobs of class `index`.
    pub(crate) fn take(&mut self, index: usize, count: usize) -> Vec<Job> {
        let Some(c) = self.classes.get_mut(index) else {
            return Vec::new();
        };
        let n = count.min(c.jobs.len());
        self.len -= n;
        c.jobs.drain(..n).collect()
    }

    /// Removes every job.
    pub(crate) fn take_all(&mut self) -> Vec<Job> {
        self.len = 0;
        self.classes.iter_mut().flat_map(|c| c.jobs.drain(..)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ticket::Ticket;
    use crate::rng::OsRng;
    use crate::rsa::KeyGenOptions;

    /// Jobs whose request records `id` (as the message) and whose class is made up.
    fn job(key: &Arc<RsaPrivateKey>, id: u8, class: Class) -> Job {
        let (ticket, reply) = Ticket::new();
        drop(ticket);
        Job {
            key: Arc::clone(key),
            req: PrivateRequest::SignPkcs1v15Raw { data: vec![id] },
            reply,
            class,
            enqueued: Instant::now(),
        }
    }

    fn ids(jobs: Vec<Job>) -> Vec<u8> {
        jobs.into_iter()
            .map(|j| match &j.req {
                PrivateRequest::SignPkcs1v15Raw { data } => data[0],
                _ => unreachable!(),
            })
            .collect()
    }

    #[test]
    fn classes_keep_arrival_order_and_capacity() {
        let opts = KeyGenOptions { allow_small: true, ..KeyGenOptions::new(512) };
        let key = Arc::new(RsaPrivateKey::generate_with(&opts, &mut OsRng).unwrap());
        let (a, b) = (Class::for_test(&key, 1024), Class::for_test(&key, 2048));
        let mut q = Queue::new(5);
        for (id, c) in [(1, a), (2, b), (3, a), (4, a), (5, b)] {
            assert!(!q.is_full());
            q.push(job(&key, id, c));
        }
        assert!(q.is_full());
        assert_eq!((q.len(), q.class_len(a), q.class_len(b)), (5, 3, 2));
        let views = q.views(Instant::now());
        assert_eq!(views.iter().map(|v| v.len).collect::<Vec<_>>(), [3, 2]);
        assert_eq!(ids(q.take(0, 2)), [1, 3]);
        assert_eq!(ids(q.take(1, 8)), [2, 5]);
        assert_eq!(ids(q.take(7, 1)), [] as [u8; 0]);
        assert_eq!(q.len(), 1);
        assert_eq!(ids(q.take_all()), [4]);
        assert!(q.is_empty());
    }

    #[test]
    fn idle_classes_are_forgotten() {
        let opts = KeyGenOptions { allow_small: true, ..KeyGenOptions::new(512) };
        let key = Arc::new(RsaPrivateKey::generate_with(&opts, &mut OsRng).unwrap());
        let mut q = Queue::new(100);
        let busy = Class::for_test(&key, 1);
        q.push(job(&key, 0, busy));
        for bits in 2..40 {
            q.push(job(&key, 1, Class::for_test(&key, bits)));
            assert_eq!(q.take(q.classes.len() - 1, 1).len(), 1);
            assert!(q.classes.len() <= MAX_IDLE_CLASSES + 1);
        }
        // The class with a queued job survived every pruning.
        assert_eq!(q.class_len(busy), 1);
        assert_eq!(ids(q.take_all()), [0]);
    }
}
