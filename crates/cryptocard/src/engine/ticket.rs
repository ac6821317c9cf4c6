//! How an answer gets back to whoever asked: a [`Ticket`] (block on it or `.await` it) or a
//! callback, behind one [`Reply`] that is answered exactly once.
//!
//! A ticket and the worker that answers it share a [`Slot`]: a mutex around the result and
//! the waker of the task that last polled the ticket, and a condition variable for threads
//! blocked in [`Ticket::wait`]. The worker stores the result and takes the waker under the
//! lock, then signals the condition variable and wakes the task after releasing it, so a
//! task never misses its answer: either `poll` sees the result, or its waker is in the slot
//! before the worker looks (the standard waker-slot handshake; no runtime needed). A thread
//! in `wait` cannot miss it either: it checks for the answer and starts waiting under the
//! lock, so the signal, sent after the answer is stored, comes after its wait began.
//!
//! A [`Reply`] that is dropped without being answered (a request cancelled by shutdown, a
//! worker unwinding from an internal error) answers [`Error::ShutDown`] from its `Drop`, so
//! no request is ever lost: every accepted request gets exactly one answer.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use crate::{Error, Result};

/// The answer to one request: the private operation's output bytes or its error.
pub type Answer = Result<Vec<u8>>;

/// A callback that receives one answer.
pub(crate) type Callback = Box<dyn FnOnce(Answer) + Send + 'static>;

#[derive(Debug, Default)]
struct SlotState {
    /// The answer, once the worker has stored it and until the ticket takes it.
    answer: Option<Answer>,
    /// True once the answer has been taken by `wait` or `poll`.
    taken: bool,
    /// The waker of the task that last polled the ticket.
    waker: Option<Waker>,
}

/// The meeting point of a ticket and the worker that answers it.
#[derive(Debug, Default)]
pub(crate) struct Slot {
    state: Mutex<SlotState>,
    ready: Condvar,
}

impl Slot {
    fn lock(&self) -> MutexGuard<'_, SlotState> {
        // A poisoned slot still holds consistent data: every critical section is a few
        // field moves that cannot panic halfway.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores the answer, then wakes whoever waits, after releasing the lock: a thread
    /// woken while the lock is still held would only block again on the mutex (an extra
    /// sleep and wake-up per answer, measured under load).
    fn fill(&self, answer: Answer) {
        let waker = {
            let mut st = self.lock();
            st.answer = Some(answer);
            st.waker.take()
        };
        self.ready.notify_all();
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// A pending answer from [`super::Engine::submit`]: block on it with [`Ticket::wait`] or
/// `.await` it (it is a [`Future`] that needs no particular async runtime).
///
/// Dropping a ticket does not cancel the request; its answer is discarded.
#[derive(Debug)]
#[must_use = "a ticket does nothing unless waited on or polled; its answer is discarded"]
pub struct Ticket {
    slot: Arc<Slot>,
}

impl Ticket {
    /// A new ticket and the reply that answers it.
    pub(crate) fn new() -> (Ticket, Reply) {
        let slot = Arc::new(Slot::default());
        let reply = Reply::new(Sink::Ticket(Arc::clone(&slot)));
        (Ticket { slot }, reply)
    }

    /// A ticket that is already answered (a submission refused with `err`).
    pub(crate) fn ready(err: Error) -> Ticket {
        let slot = Arc::new(Slot::default());
        slot.lock().answer = Some(Err(err));
        Ticket { slot }
    }

    /// Blocks the calling thread until the answer is there, and returns it.
    pub fn wait(self) -> Answer {
        let mut st = self.slot.lock();
        loop {
            if let Some(a) = st.answer.take() {
                st.taken = true;
                return a;
            }
            if st.taken {
                return Err(ALREADY_TAKEN);
            }
            st = self.slot.ready.wait(st).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// True once the answer is there (a following [`Ticket::wait`] will not block).
    pub fn is_ready(&self) -> bool {
        self.slot.lock().answer.is_some()
    }
}

/// What a ticket yields when polled again after it has already returned its answer.
const ALREADY_TAKEN: Error = Error::InvalidArgument("ticket polled after it completed");

impl Future for Ticket {
    type Output = Answer;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Answer> {
        let mut st = self.slot.lock();
        if let Some(a) = st.answer.take() {
            st.taken = true;
            st.waker = None;
            return Poll::Ready(a);
        }
        if st.taken {
            return Poll::Ready(Err(ALREADY_TAKEN));
        }
        match &mut st.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            w => *w = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

enum Sink {
    Ticket(Arc<Slot>),
    Callback(Callback),
}

/// The answering end of one request; answers exactly once, on [`Reply::send`] or, failing
/// that, with [`Error::ShutDown`] when dropped.
pub(crate) struct Reply {
    sink: Option<Sink>,
}

impl core::fmt::Debug for Reply {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let kind = match &self.sink {
            Some(Sink::Ticket(_)) => "ticket",
            Some(Sink::Callback(_)) => "callback",
            None => "answered",
        };
        f.debug_tuple("Reply").field(&kind).finish()
    }
}

impl Reply {
    fn new(sink: Sink) -> Reply {
        Reply { sink: Some(sink) }
    }

    /// A reply that calls `f` with the answer.
    pub(crate) fn callback(f: Callback) -> Reply {
        Reply::new(Sink::Callback(f))
    }

    /// Answers the request. A panicking callback is caught (it must not take the worker
    /// down with it); the return value says whether the callback panicked.
    pub(crate) fn send(mut self, answer: Answer) -> bool {
        match self.sink.take() {
            Some(sink) => deliver(sink, answer),
            None => false,
        }
    }

    /// Takes the reply back unanswered, for a submission that was refused: the caller
    /// learns of the refusal from the return value instead, and a callback is dropped
    /// without being called.
    pub(crate) fn disarm(mut self) {
        self.sink = None;
    }
}

/// Hands the answer over; true if foreign code panicked on the way: a callback, or the
/// waker of the task awaiting a ticket (`Waker::wake` runs the async runtime's code).
/// Either is caught, so that it cannot take the worker, and the answers it has still to
/// send, down with it.
fn deliver(sink: Sink, answer: Answer) -> bool {
    match sink {
        Sink::Ticket(slot) => catch_unwind(AssertUnwindSafe(move || slot.fill(answer))).is_err(),
        Sink::Callback(f) => catch_unwind(AssertUnwindSafe(move || f(answer))).is_err(),
    }
}

impl Drop for Reply {
    fn drop(&mut self) {
        if let Some(sink) = self.sink.take() {
            deliver(sink, Err(Error::ShutDown));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn wait_returns_the_sent_answer() {
        let (t, r) = Ticket::new();
        assert!(!t.is_ready());
        let h = std::thread::spawn(move || r.send(Ok(vec![1, 2, 3])));
        assert_eq!(t.wait(), Ok(vec![1, 2, 3]));
        assert!(!h.join().unwrap());
    }

    /// The answer is signalled after the slot's lock is released, so a waiter may start
    /// waiting at any point around it: race the two many times, and fail (rather than
    /// hang) if any wake-up is lost.
    #[test]
    fn no_answer_is_missed_when_answer_and_wait_race() {
        const ROUNDS: usize = 5000;
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for i in 0..ROUNDS {
                let (t, r) = Ticket::new();
                let h = std::thread::spawn(move || r.send(Ok(vec![i as u8])));
                assert_eq!(t.wait(), Ok(vec![i as u8]));
                h.join().unwrap();
            }
            done.send(()).unwrap();
        });
        let waited = finished.recv_timeout(std::time::Duration::from_secs(120));
        assert!(waited.is_ok(), "a waiter missed its answer (or a round panicked)");
    }

    #[test]
    fn dropped_reply_answers_shut_down() {
        let (t, r) = Ticket::new();
        drop(r);
        assert_eq!(t.wait(), Err(Error::ShutDown));
    }

    #[test]
    fn disarmed_callback_is_never_called() {
        let calls = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&calls);
        let r = Reply::callback(Box::new(move |_| {
            c.fetch_add(1, Ordering::SeqCst);
        }));
        r.disarm();
        assert_eq!(calls.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn panicking_callback_is_caught_and_reported() {
        let r = Reply::callback(Box::new(|_| panic!("callback panics")));
        assert!(r.send(Ok(vec![])));
    }

    /// A waker that panics (a task runtime's bug) is caught like a panicking callback,
    /// and the answer is still in the ticket.
    #[test]
    fn a_panicking_waker_is_caught_and_the_answer_kept() {
        struct Panics;
        impl std::task::Wake for Panics {
            fn wake(self: Arc<Self>) {
                panic!("waker panics");
            }
        }
        let (mut t, r) = Ticket::new();
        let waker = Waker::from(Arc::new(Panics));
        let polled = Pin::new(&mut t).poll(&mut Context::from_waker(&waker));
        assert!(polled.is_pending());
        assert!(r.send(Ok(vec![7])), "the waker's panic is reported");
        assert_eq!(t.wait(), Ok(vec![7]));
    }

    #[test]
    fn ready_ticket_holds_its_error() {
        assert_eq!(Ticket::ready(Error::Busy).wait(), Err(Error::Busy));
    }
}
