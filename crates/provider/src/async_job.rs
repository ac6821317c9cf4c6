//! Batching inside OpenSSL async jobs (`ASYNC_start_job`, ASYNC_start_job(3)): HAProxy's
//! `ssl-mode-async` and `openssl speed -async_jobs N` run each handshake or operation as a
//! job that may pause. When a private-key operation finds itself in one, it goes to the
//! engine with a callback, and the job pauses (`ASYNC_pause_job`) until the answer is
//! there; the application learns that the job can go on from the job's wait file
//! descriptor (`ASYNC_WAIT_CTX_set_wait_fd`), an eventfd the callback writes to. So one
//! application thread has many operations in flight, and the engine batches them.
//!
//! Nothing waits on a timer (QAT_Engine's polling interval is the slowness of its issue
//! 232): the engine takes whatever is queued when a worker is free, and the callback wakes
//! the job the moment its answer exists.
//!
//! The `ASYNC_*` functions are libcrypto's public API, not part of the provider
//! interface: they are looked up in the process (`dlsym(RTLD_DEFAULT, ..)`) once. Where
//! they are not found (a libcrypto linked statically and not exported), or outside a
//! job, [`run_in_job`] says so and the caller blocks on the engine as usual.

#![allow(unsafe_code)]

use cryptocard::engine::Engine;
use cryptocard::rsa::{PrivateRequest, RsaPrivateKey};
use cryptocard::{Error, Result};
use std::cell::Cell;
use std::ffi::{CStr, c_int, c_void};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

type CleanupFn = unsafe extern "C" fn(*mut c_void, *const c_void, c_int, *mut c_void);

/// The libcrypto functions of the async machinery (OpenSSL 1.1.0 and later, unchanged in
/// 3.x and 4.0).
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

/// Runs `req` on `engine` from inside the current async job: pausing the job until the
/// answer is there (where the key's class runs lane batches, `lane_batched`, and this
/// thread's pauses pay, [`pause_pays`]), or blocking this thread while an engine worker
/// computes it.
/// Either way the operation never runs on the job's own stack, which OpenSSL makes small
/// (32 KiB). `None` when the thread is not in a job (or the async functions are not
/// available, or no wait fd could be made): the caller then runs the request as usual.
pub fn run_in_job(
    engine: &Engine,
    key: &Arc<RsaPrivateKey>,
    req: &PrivateRequest,
    lane_batched: bool,
) -> Option<Result<Vec<u8>>> {
    let api = api()?;
    // SAFETY: no arguments; returns this thread's current job or NULL.
    let job = unsafe { (api.get_current_job)() };
    if job.is_null() {
        return None;
    }
    // SAFETY: `job` is the live current job.
    let ctx = unsafe { (api.get_wait_ctx)(job) };
    if ctx.is_null() {
        return None;
    }
    let pause = lane_batched && pause_pays();
    let fd = if pause { wait_fd(api, ctx)? } else { -1 };
    let slot: Arc<Slot> = Arc::new((Mutex::new(None), Condvar::new()));
    let answer = slot.clone();
    let submitted = engine.submit_with(key.clone(), req.clone(), move |result| {
        *answer.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
        answer.1.notify_all();
        if fd >= 0 {
            let one: u64 = 1;
            // SAFETY: writes 8 bytes to the job's eventfd, which stays open while the job
            // waits for this answer (the job cannot finish before it reads the slot).
            unsafe { libc::write(fd, (&raw const one).cast(), 8) };
        }
    });
    if submitted.is_err() {
        return None; // Busy: the caller blocks instead.
    }
    crate::stats::count_in_job();
    let mine = SUBMITTED.get() + 1;
    SUBMITTED.set(mine);
    if !pause {
        return Some(wait_here(&slot));
    }
    SINCE_PAUSE.set(0);
    // Pause at least once, even when the answer is already there: an application such as
    // HAProxy registers the wait fds it learns of when a job pauses, and later removes
    // every fd of the wait context, so an fd it never saw would be removed unregistered.
    loop {
        // SAFETY: we are inside a job (checked above); control returns to the
        // application, and here again when it resumes the job.
        if unsafe { (api.pause_job)() } == 0 {
            // Pausing failed: wait for the answer on this thread instead.
            return Some(wait_here(&slot));
        }
        if let Some(result) = slot.0.lock().unwrap_or_else(|e| e.into_inner()).take() {
            // Company: another job of this thread submitted while this one was paused.
            PAUSE_HAD_COMPANY.set(SUBMITTED.get() > mine);
            let mut count: u64 = 0;
            // SAFETY: drains the eventfd (non-blocking; an empty one is fine).
            unsafe { libc::read(fd, (&raw mut count).cast(), 8) };
            return Some(result);
        }
    }
}

/// Where the engine's callback leaves the answer, and the signal that it did.
type Slot = (Mutex<Option<Result<Vec<u8>>>>, Condvar);

/// Waits for the callback on this thread, without the async machinery. The engine
/// answers every request it accepted (a panic in a worker is an error answer), so the
/// limit only guards against a bug.
fn wait_here(slot: &Slot) -> Result<Vec<u8>> {
    let mut answer = slot.0.lock().unwrap_or_else(|e| e.into_inner());
    let deadline = std::time::Instant::now() + Duration::from_secs(600);
    loop {
        if let Some(r) = answer.take() {
            return r;
        }
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(Error::Internal("an async operation never answered"));
        }
        answer = slot.1.wait_timeout(answer, left).unwrap_or_else(|e| e.into_inner()).0;
    }
}
