//! Private-key operations inside OpenSSL async jobs (`ASYNC_start_job`,
//! ASYNC_start_job(3)): HAProxy's `ssl-mode-async` and `openssl speed -async_jobs N` run
//! each handshake or operation as a job that may pause. When a private-key operation
//! finds itself in one, it goes to the engine with a callback, and the job pauses
//! (`ASYNC_pause_job`) until the answer is there; the application learns that the job can
//! go on from the job's wait file descriptor (`ASYNC_WAIT_CTX_set_wait_fd`), an eventfd
//! the callback writes to (`job_wake` says how, safely). So one application thread has
//! many operations in flight, and the engine batches them.
//!
//! Nothing waits on a timer (QAT_Engine's polling interval is the slowness of its issue
//! 232): the engine takes whatever is queued when a worker is free, and the callback wakes
//! the job the moment its answer exists.
//!
//! **An operation never runs on a job's stack.** OpenSSL gives a job a small stack of its
//! own (32 KiB, `STACKSIZE` in crypto/async/arch, with no guard page): an RSA operation
//! there could overrun it into the heap unseen. So inside a job the operation always runs
//! on another thread: an engine worker (paused or waited for), or, where the engine is
//! off or refuses the request (its queue full), the thread this application thread keeps
//! for such work ([`off_stack`], `job_thread`). Public-key operations (verification,
//! encryption) and key generation run there too ([`off_job_stack`]): they use the same
//! IFMA kernels.
//!
//! The `ASYNC_*` functions are libcrypto's public API, not part of the provider
//! interface: they are looked up in the process (`dlsym(RTLD_DEFAULT, ..)`) once. Where
//! they are not found (a libcrypto linked statically and not exported), the provider
//! cannot tell that it runs in a job, and runs the operation as outside one.

#![allow(unsafe_code)]

use crate::job_wake::Waiter;
use cryptocard::engine::Engine;
use cryptocard::rsa::{PrivateRequest, RsaPrivateKey};
use cryptocard::{Error, Result};
use std::cell::Cell;
use std::ffi::{CStr, c_int, c_void};
use std::fs::File;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::{Arc, OnceLock};

type CleanupFn = unsafe extern "C" fn(*mut c_void, *const c_void, c_int, *mut c_void);

/// The libcrypto functions of the async machinery (OpenSSL 1.1.0 and later, unchanged in
/// 3.x and 4.0).
#[derive(Debug)]
struct AsyncApi {
    get_current_job: GetCurrentJob,
    pause_job: PauseJob,
    get_wait_ctx: GetWaitCtx,
    set_wait_fd: SetWaitFd,
    get_fd: GetFd,
}

type GetCurrentJob = unsafe extern "C" fn() -> *mut c_void;
type PauseJob = unsafe extern "C" fn() -> c_int;
type GetWaitCtx = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
type SetWaitFd = unsafe extern "C" fn(
    *mut c_void,
    *const c_void,
    c_int,
    *mut c_void,
    Option<CleanupFn>,
) -> c_int;
type GetFd =
    unsafe extern "C" fn(*mut c_void, *const c_void, *mut c_int, *mut *mut c_void) -> c_int;

/// Looks `name` up among the symbols the process has loaded.
fn symbol(name: &CStr) -> Option<*mut c_void> {
    // SAFETY: dlsym with RTLD_DEFAULT only reads the loaded objects' symbol tables; the name
    // is NUL-terminated.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

fn api() -> Option<&'static AsyncApi> {
    static API: OnceLock<Option<AsyncApi>> = OnceLock::new();
    API.get_or_init(|| {
        let get = |n: &CStr| symbol(n);
        // SAFETY: each pointer is the libcrypto function of that name, whose C prototype
        // (openssl/async.h) is the type it is transmuted to.
        unsafe {
            Some(AsyncApi {
                get_current_job: std::mem::transmute::<*mut c_void, GetCurrentJob>(get(
                    c"ASYNC_get_current_job",
                )?),
                pause_job: std::mem::transmute::<*mut c_void, PauseJob>(get(c"ASYNC_pause_job")?),
                get_wait_ctx: std::mem::transmute::<*mut c_void, GetWaitCtx>(get(
                    c"ASYNC_get_wait_ctx",
                )?),
                set_wait_fd: std::mem::transmute::<*mut c_void, SetWaitFd>(get(
                    c"ASYNC_WAIT_CTX_set_wait_fd",
                )?),
                get_fd: std::mem::transmute::<*mut c_void, GetFd>(get(c"ASYNC_WAIT_CTX_get_fd")?),
            })
        }
    })
    .as_ref()
}

/// The key under which our fd is registered in a job's wait context: this static's
/// address, unique to the provider.
static FD_KEY: u8 = 0;

/// Closes our eventfd when OpenSSL frees the wait context.
unsafe extern "C" fn close_fd(
    _ctx: *mut c_void,
    _key: *const c_void,
    fd: c_int,
    _custom: *mut c_void,
) {
    // SAFETY: `fd` is the eventfd this module created and registered; nothing else owns it.
    unsafe { libc::close(fd) };
}

/// The job's wait fd: the one registered before, or a new eventfd.
fn wait_fd(api: &AsyncApi, ctx: *mut c_void) -> Option<c_int> {
    let key = (&raw const FD_KEY).cast::<c_void>();
    let mut fd: c_int = -1;
    let mut custom: *mut c_void = std::ptr::null_mut();
    // SAFETY: `ctx` is the current job's live wait context; the out-pointers are valid.
    if unsafe { (api.get_fd)(ctx, key, &mut fd, &mut custom) } == 1 && fd >= 0 {
        return Some(fd);
    }
    // SAFETY: eventfd(2) with valid flags.
    let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    // SAFETY: registers our fd with the live wait context, which closes it with
    // `close_fd` when it is freed.
    if unsafe { (api.set_wait_fd)(ctx, key, fd, std::ptr::null_mut(), Some(close_fd)) } != 1 {
        // SAFETY: not registered: still ours to close.
        unsafe { libc::close(fd) };
        return None;
    }
    Some(fd)
}

thread_local! {
    /// Requests this thread has submitted from inside async jobs (its jobs share it).
    static SUBMITTED: Cell<u64> = const { Cell::new(0) };
    /// Whether this thread's last pause saw another of its jobs submit meanwhile.
    static PAUSE_HAD_COMPANY: Cell<bool> = const { Cell::new(true) };
    /// Requests since this thread last paused, while pausing does not pay.
    static SINCE_PAUSE: Cell<u32> = const { Cell::new(0) };
}

/// Every this many requests a thread whose pauses found no company pauses anyway, to see
/// whether its application has other jobs now.
const PROBE_EVERY: u32 = 16;

/// Whether a request of a lane-batched class should pause its job: only while this
/// thread's pauses pay. A pause pays when, while it lasts, the application runs other
/// jobs of this thread that submit requests too (HAProxy with many handshakes, `openssl
/// speed -async_jobs 8`): they can share a batch. With one job at a time (one client)
/// nothing comes, and the pause and the wake-up through the application's event loop
/// are pure cost; the thread then waits for the engine instead, and pauses again every
/// [`PROBE_EVERY`] requests to notice a busier application.
fn pause_pays() -> bool {
    if PAUSE_HAD_COMPANY.get() {
        return true;
    }
    let n = SINCE_PAUSE.get() + 1;
    SINCE_PAUSE.set(n % PROBE_EVERY);
    n >= PROBE_EVERY
}

/// The async job this thread is running, with its wait context.
#[derive(Debug)]
pub struct Job {
    api: &'static AsyncApi,
    /// The job's wait context (null if it has none: then it never pauses).
    ctx: *mut c_void,
}

/// The async job this thread is running in, if any (and if the async functions are
/// there to ask).
pub fn current() -> Option<Job> {
    let api = api()?;
    // SAFETY: no arguments; returns this thread's current job or NULL.
    let job = unsafe { (api.get_current_job)() };
    if job.is_null() {
        return None;
    }
    // SAFETY: `job` is the live current job.
    let ctx = unsafe { (api.get_wait_ctx)(job) };
    Some(Job { api, ctx })
}

/// A duplicate of the job's wait fd for the engine's callback, which closes it when done
/// (see `job_wake`); `None` if the process is out of descriptors.
fn duplicate(fd: c_int) -> Option<File> {
    // SAFETY: dup(2) of an fd that is open (the job's, registered in its live wait
    // context); the new descriptor is ours alone.
    let dup = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    // SAFETY: a fresh descriptor owned by nothing else, closed by the `File`.
    (dup >= 0).then(|| File::from(unsafe { OwnedFd::from_raw_fd(dup) }))
}

/// Empties the eventfd `fd` (non-blocking; an empty one is fine).
fn drain(fd: c_int) {
    let mut count: u64 = 0;
    // SAFETY: reads at most 8 bytes into `count` from the job's eventfd, open while the job
    // runs (its wait context outlives it).
    unsafe { libc::read(fd, (&raw mut count).cast(), 8) };
}

/// Runs `op` on this thread's helper (`job_thread`) and waits: the work of a job that no
/// engine worker takes, kept off the job's small stack. An error if no helper can be
/// started (never the job's stack instead).
pub fn off_stack<T, F>(op: F) -> Result<T>
where
    T: Send,
    F: FnOnce() -> Result<T> + Send,
{
    match crate::job_thread::run(op) {
        Some(Ok(answer)) => answer,
        Some(Err(_)) => Err(Error::Internal("an operation panicked")),
        None => Err(Error::Internal("no thread for an operation inside an async job")),
    }
}

/// Runs a public-key operation (verification, encryption) or a key generation: inside
/// an async job on this thread's helper ([`off_stack`]), as private ones, because the
/// kernels it runs on (AVX-512 IFMA's, whose frames hold whole numbers in registers
/// spilled to the stack) could overrun the job's small stack; outside a job, here.
pub fn off_job_stack<T, F>(op: F) -> Result<T>
where
    T: Send,
    F: FnOnce() -> Result<T> + Send,
{
    if current().is_some() { off_stack(op) } else { op() }
}

/// Runs `req` on `engine` from inside the async job `job`: pausing the job until the
/// answer is there (where the key's class runs lane batches, `lane_batched`, and this
/// thread's pauses pay, [`pause_pays`]), or blocking this thread while an engine worker
/// computes it. Either way the operation never runs on the job's own stack; a request
/// the engine refuses (its queue full) runs through [`Engine::run`] on this thread's
/// helper ([`off_stack`]).
pub fn run_in_job(
    job: &Job,
    engine: &Engine,
    key: &Arc<RsaPrivateKey>,
    req: &PrivateRequest,
    lane_batched: bool,
) -> Result<Vec<u8>> {
    let api = job.api;
    crate::stats::count_in_job();
    let pause = lane_batched && !job.ctx.is_null() && pause_pays();
    // The job's wait fd, and the callback's own duplicate of it; without either, no pause.
    let wake =
        if pause { wait_fd(api, job.ctx).and_then(|fd| Some((fd, duplicate(fd)?))) } else { None };
    let (fd, dup) = wake.unzip();
    let waiter = Waiter::new();
    if engine.submit_with(key.clone(), req.clone(), waiter.callback(dup)).is_err() {
        // Busy (or shut down): wait for room, or for the direct path, on this thread's
        // helper.
        return off_stack(|| engine.run(key.clone(), req.clone()));
    }
    let mine = SUBMITTED.get() + 1;
    SUBMITTED.set(mine);
    let Some(fd) = fd else {
        return waiter.wait(|| ());
    };
    SINCE_PAUSE.set(0);
    // Pause at least once, even when the answer is already there: an application such as
    // HAProxy registers the wait fds it learns of when a job pauses, and later removes
    // every fd of the wait context, so an fd it never saw would be removed unregistered.
    loop {
        // SAFETY: we are inside a job (`job` is the current one); control returns to the
        // application, and here again when it resumes the job.
        if unsafe { (api.pause_job)() } == 0 {
            // Pausing failed: wait for the answer on this thread instead.
            return waiter.wait(|| drain(fd));
        }
        if let Some(answer) = waiter.take_or_drain(|| drain(fd)) {
            // Company: another job of this thread submitted while this one was paused.
            PAUSE_HAD_COMPANY.set(SUBMITTED.get() > mine);
            return answer;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eventfd() -> c_int {
        // SAFETY: eventfd(2) with valid flags.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        assert!(fd >= 0);
        fd
    }

    /// The eventfd's count (0 if none), which reading resets.
    fn count(fd: c_int) -> u64 {
        let mut n: u64 = 0;
        // SAFETY: reads at most 8 bytes into `n`.
        let read = unsafe { libc::read(fd, (&raw mut n).cast(), 8) };
        if read == 8 { n } else { 0 }
    }

    fn close(fd: c_int) {
        // SAFETY: closes a descriptor this test made and no longer uses.
        unsafe { libc::close(fd) };
    }

    /// Waits up to ten seconds for `fd` to be readable, as the application does for a
    /// paused job; false if it never was (a lost wake-up).
    fn readable(fd: c_int) -> bool {
        let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd, for an fd this test owns.
        unsafe { libc::poll(&raw mut p, 1, 10_000) == 1 }
    }

    /// Operations one after another on one wait fd, each answered by a callback on
    /// another thread, racing the job. Even rounds run the job as `run_in_job` does
    /// (resumed only when the fd is readable; `take_or_drain`); odd rounds take the
    /// answer the moment it shows, without waiting for the fd, which may leave the
    /// callback's count behind for the next operation. Every operation must get its own
    /// answer, no wake-up may be lost (the poll would time out), and a stale count may
    /// cost the next operation at most one wake-up that finds nothing.
    #[test]
    fn no_wake_up_is_lost_and_a_stale_one_is_drained() {
        let fd = eventfd();
        let mut stale = 0;
        for round in 0..400u32 {
            let waiter = Waiter::new();
            let callback = waiter.callback(duplicate(fd));
            let engine = std::thread::spawn(move || callback(Ok(round.to_be_bytes().to_vec())));
            let mut empty_wakes = 0;
            let answer = loop {
                if round % 2 == 1 {
                    match waiter.take(|| drain(fd)) {
                        Some(a) => break a,
                        None => std::hint::spin_loop(),
                    }
                    continue;
                }
                assert!(readable(fd), "round {round}: the job was never woken");
                match waiter.take_or_drain(|| drain(fd)) {
                    Some(a) => break a,
                    None => empty_wakes += 1,
                }
            };
            engine.join().unwrap();
            assert_eq!(answer.unwrap(), round.to_be_bytes(), "round {round}");
            assert!(empty_wakes <= 1, "round {round}: {empty_wakes} wake-ups found nothing");
            stale += empty_wakes;
        }
        // Draining after each answer leaves no count behind when the write came first.
        let waiter = Waiter::new();
        waiter.callback(duplicate(fd))(Ok(vec![1]));
        assert!(readable(fd));
        assert!(waiter.take_or_drain(|| drain(fd)).is_some());
        assert_eq!(count(fd), 0, "a count was left after the answer was taken");
        eprintln!("{stale} of 200 operations found a stale count first");
        close(fd);
    }

    /// A callback that comes after the job's fd was closed (the job finished, OpenSSL
    /// freed its wait context) and its number reused writes to its own duplicate, never
    /// to the new file behind the number.
    #[test]
    fn a_late_callback_never_writes_to_a_reused_fd_number() {
        let mut reused = 0;
        for _ in 0..50 {
            let fd = eventfd();
            let waiter = Waiter::new();
            let callback = waiter.callback(duplicate(fd));
            close(fd);
            let other = eventfd();
            callback(Ok(vec![1]));
            assert_eq!(count(other), 0, "the callback wrote to fd {other}, no longer the job's");
            reused += usize::from(other == fd);
            assert!(waiter.take(|| ()).is_some());
            close(other);
        }
        assert!(reused > 0, "no fd number was reused: the test proved nothing");
    }

    #[test]
    fn off_stack_runs_elsewhere() {
        let here = std::thread::current().id();
        let there = off_stack(|| {
            let id = std::thread::current().id();
            Ok(vec![u8::from(id != here)])
        });
        assert_eq!(there.unwrap(), [1]);
    }
}
