//! The thread that does an application thread's async-job work, kept from one operation
//! to the next.
//!
//! No RSA operation runs on an OpenSSL async job's own small stack (`async_job` says
//! why), so work that no engine worker takes (public-key operations, key generation, a
//! request the engine refuses) runs on another thread while the job's thread waits.
//! Starting a thread for each operation (clone(2), a fresh stack mapped and unmapped,
//! the join) costs about what an RSA-2048 verification does, so each application thread
//! that runs jobs keeps one helper, started at its first such operation, and hands it
//! one operation at a time.
//!
//! The helper ends with its application thread: the thread-local that holds the sending
//! end is dropped then, and the helper's receive fails. After fork(2) only the forking
//! thread goes on in the child, so a helper belongs to the process that started it and a
//! child starts its own (the parent's is forgotten there, never used or dropped: its
//! channel's state is whatever the fork caught).

#![allow(unsafe_code)]

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{self, Sender, SyncSender};

/// One operation for a helper, its lifetime erased (see [`run`]).
type Task = Box<dyn FnOnce() + Send + 'static>;

/// An application thread's helper: the process that started it, and its inbox.
struct Helper {
    pid: u32,
    inbox: Sender<Task>,
}

thread_local! {
    static HELPER: RefCell<Option<Helper>> = const { RefCell::new(None) };
}

/// Starts a helper thread; `None` if the system has no thread to give.
fn start() -> Option<Helper> {
    let (inbox, tasks) = mpsc::channel::<Task>();
    let thread = std::thread::Builder::new().name("cryptocard-job".into());
    thread
        .spawn(move || {
            for task in tasks {
                task();
            }
        })
        .ok()?;
    Some(Helper { pid: std::process::id(), inbox })
}

/// This thread's helper's inbox, started if there is none in this process yet. `None`
/// where none can be had: no thread to start, or this thread is ending (its
/// thread-locals are gone).
fn inbox() -> Option<Sender<Task>> {
    HELPER
        .try_with(|slot| {
            let mut slot = slot.borrow_mut();
            if let Some(old) = slot.take_if(|h| h.pid != std::process::id()) {
                // A forked child: the parent's helper is not here.
                std::mem::forget(old);
            }
            if slot.is_none() {
                *slot = start();
            }
            slot.as_ref().map(|h| h.inbox.clone())
        })
        .ok()
        .flatten()
}

/// An operation and where its answer goes, in the order they are dropped: the operation
/// (and whatever it borrows) first, so that the waiting caller, woken when the answer's
/// sender goes, finds nothing of it still in use.
struct Work<F, T> {
    op: F,
    answer: SyncSender<std::thread::Result<T>>,
}

/// Runs `op` on this thread's helper and waits for it: its result, or the panic it
/// raised. `None` if no helper could take it (then `op` has not run and is dropped).
pub fn run<T, F>(op: F) -> Option<std::thread::Result<T>>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    let (answer, answered) = mpsc::sync_channel(1);
    let work = Work { op, answer };
    let task: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
        let Work { op, answer } = work;
        // Nothing borrowed is used after this send: `op` is spent, and its value moved.
        let _ = answer.send(catch_unwind(AssertUnwindSafe(op)));
    });
    // SAFETY: the task may borrow from the caller's frame, and this function returns only
    // once the task is finished with it: either the helper never got the task (the send
    // failed and hands it back, dropped here), or `answered.recv()` below returns, which
    // it does only after the task's `answer` has sent (`op` spent) or been dropped (the
    // task dropped unrun: `Work`'s fields drop in order, `op` before `answer`).
    let task = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + '_>, Task>(task) };
    inbox()?.send(task).ok()?;
    answered.recv().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_helper_runs_every_operation_of_a_thread() {
        let here = std::thread::current().id();
        let first = run(|| std::thread::current().id()).unwrap().unwrap();
        let second = run(|| std::thread::current().id()).unwrap().unwrap();
        assert_ne!(first, here);
        assert_eq!(first, second, "a thread was started for each operation");
        // Another application thread gets a helper of its own.
        let other = std::thread::spawn(|| run(|| std::thread::current().id()).unwrap().unwrap());
        assert_ne!(other.join().unwrap(), first);
    }

    #[test]
    fn borrowed_work_and_panics() {
        let mut buffer = vec![1u8, 2, 3];
        let sum = run(|| {
            buffer.push(4);
            buffer.iter().map(|&b| u32::from(b)).sum::<u32>()
        });
        assert_eq!(sum.unwrap().unwrap(), 10);
        assert_eq!(buffer, [1, 2, 3, 4]);
        // A panic comes back as an error, and the helper goes on.
        assert!(run(|| -> u8 { panic!("an operation panicked") }).unwrap().is_err());
        assert_eq!(run(|| 5).unwrap().unwrap(), 5);
    }
}
