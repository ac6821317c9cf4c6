//! How an engine answer reaches a paused OpenSSL async job (`async_job`): the slot the
//! engine's callback fills, and the order of the callback's steps against the job's.
//!
//! The job's wait fd is an eventfd the application polls; the job itself checks the slot
//! each time it is resumed. Two rules make the hand-over safe:
//!
//! * **The callback writes to its own duplicate of the fd** (`dup`, closed when the
//!   callback ends), never to the job's fd number: once the answer is out, the job may
//!   finish and OpenSSL close its wait context's fd, and the number may be reused by an
//!   unrelated file (a socket) before a late write. A duplicate keeps the eventfd itself
//!   alive, so a late write lands there, harmlessly.
//! * **The wake-up is written before the answer shows, under the slot's lock**, and the
//!   job drains the fd under the same lock when it takes the answer. So when the job sees
//!   the answer the count is already there and it removes it: no stale count is left to
//!   wake the next operation of that wait context at once (an application resuming a
//!   job that finds nothing and pauses again, in a loop, until its own answer). And no
//!   wake-up is lost: a job that found the slot empty and pauses gets the write later
//!   (or has it already); the job never drains before it has the answer.
//!
//! The job side never blocks on the lock for longer than the callback's write.

use cryptocard::Error;
use cryptocard::engine::Answer;
use std::fs::File;
use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Where the engine's callback leaves the answer, and the signal that it did.
#[derive(Debug, Default)]
pub struct Waiter {
    answer: Mutex<Option<Answer>>,
    ready: Condvar,
}

impl Waiter {
    /// An empty slot, shared by the job and the callback.
    pub fn new() -> Arc<Waiter> {
        Arc::new(Waiter::default())
    }

    fn lock(&self) -> MutexGuard<'_, Option<Answer>> {
        self.answer.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The engine's callback: wakes the job through `wake` (the callback's own duplicate
    /// of the job's eventfd, if the job pauses), then leaves the answer, both under the
    /// lock; closes `wake` last. A callback dropped uncalled (the request was refused)
    /// closes it too.
    pub fn callback(self: &Arc<Self>, wake: Option<File>) -> impl FnOnce(Answer) + Send + 'static {
        let waiter = Arc::clone(self);
        move |answer| {
            let mut slot = waiter.lock();
            if let Some(mut fd) = wake.as_ref() {
                // An eventfd takes any 8-byte count; it fails only if the counter would
                // overflow, which one write per operation never reaches.
                let _ = fd.write(&1u64.to_ne_bytes());
            }
            *slot = Some(answer);
            waiter.ready.notify_all();
            drop(slot);
            drop(wake);
        }
    }

    /// The answer, if it is there, after `drain` (which empties the job's eventfd) has
    /// run under the lock.
    pub fn take(&self, drain: impl FnOnce()) -> Option<Answer> {
        let mut slot = self.lock();
        let answer = slot.take()?;
        drain();
        Some(answer)
    }

    /// Waits for the answer on this thread (without the async machinery), then `drain`s
    /// as [`Waiter::take`]. The engine answers every request it accepted (a panic in a
    /// worker is an error answer), so the limit only guards against a bug.
    pub fn wait(&self, drain: impl FnOnce()) -> Answer {
        let mut slot = self.lock();
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            if let Some(answer) = slot.take() {
                drain();
                return answer;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::Internal("an async operation never answered"));
            }
            slot = self.ready.wait_timeout(slot, left).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
}
