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
//! * **The answer shows before the wake-up is written**, and the wake-up is written
//!   after the slot's lock is released. So a job woken by the fd always finds its answer,
//!   and the write never holds the lock: on a machine whose application thread shares a
//!   core with the engine's worker, the write wakes the application, which takes the core
//!   at once; had the worker kept the lock through the write, the resumed job would block
//!   on it, the worker would run again only to release it and wake the job a second time
//!   (four switches an answer instead of two, `openssl speed -async_jobs 8` measured).
//! * **The job drains the fd after it takes the answer, and before it pauses again
//!   after a wake-up that found nothing**, then looks once more ([`Waiter::take`] and
//!   [`Waiter::take_or_drain`]). A count written after its answer was taken (the job
//!   resumed for another reason before the write) is stale: it wakes the next operation
//!   of that wait context once, which finds nothing, drains it and pauses. No wake-up is
//!   lost: a job that drained and then found the slot empty pauses before the callback
//!   has set the answer, so its write is still to come.
//!
//! The lock is held only to move the answer in or out.

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

    /// The engine's callback: leaves the answer under the lock, then (the lock released)
    /// wakes the job through `wake` (the callback's own duplicate of the job's eventfd,
    /// if the job pauses) and closes it. A callback dropped uncalled (the request was
    /// refused) closes it too.
    pub fn callback(self: &Arc<Self>, wake: Option<File>) -> impl FnOnce(Answer) + Send + 'static {
        let waiter = Arc::clone(self);
        move |answer| {
            *waiter.lock() = Some(answer);
            waiter.ready.notify_all();
            if let Some(mut fd) = wake {
                // An eventfd takes any 8-byte count; it fails only if the counter would
                // overflow, which one write per operation never reaches.
                let _ = fd.write(&1u64.to_ne_bytes());
            }
        }
    }

    /// The answer, if it is there; `drain` (which empties the job's eventfd) runs after
    /// it is taken.
    pub fn take(&self, drain: impl FnOnce()) -> Option<Answer> {
        let answer = self.lock().take()?;
        drain();
        Some(answer)
    }

    /// After a wake-up: the answer if it is there; else `drain`, and the answer if it
    /// came meanwhile. `None` means the callback has not yet left the answer, so its
    /// wake-up is still to be written and the job may pause.
    pub fn take_or_drain(&self, drain: impl Fn()) -> Option<Answer> {
        self.take(&drain).or_else(|| {
            drain();
            self.take(|| ())
        })
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
