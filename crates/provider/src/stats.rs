//! Proof of use: counters of the operations this provider performed in this process,
//! because a wrong property query silently falls back to the default provider. They are
//! the provider parameter `cryptocard-ops` (`OSSL_PROVIDER_get_params`; listed by
//! `openssl list -providers -verbose`) and, with `CRYPTOCARD_PROVIDER_STATS=1`, a line on
//! standard error when the provider is unloaded (at exit for the `openssl` command).
//!
//! Servers often end without unloading it (HAProxy and nginx stop without OpenSSL's exit
//! cleanup), so `CRYPTOCARD_PROVIDER_STATS=/some/prefix` names a file instead:
//! `/some/prefix.PID` holds the line of that process, rewritten every 100 ms while the
//! counters change (by a thread of its own) and at unload.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The counted operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// A signature made (any padding).
    Sign,
    /// A signature checked (whatever the answer).
    Verify,
    /// A public-key encryption.
    Encrypt,
    /// A private-key decryption (whatever the answer).
    Decrypt,
    /// A key generated.
    Keygen,
}

static COUNTS: [AtomicU64; 5] = [const { AtomicU64::new(0) }; 5];

/// Private-key operations asked for inside an OpenSSL async job, each run off the job's
/// stack (on an engine worker, the job paused or waiting, or on the thread's helper).
static IN_JOBS: AtomicU64 = AtomicU64::new(0);

/// Counts one private-key operation asked for inside an async job.
pub fn count_in_job() {
    IN_JOBS.fetch_add(1, Relaxed);
}

/// The environment variable that asks for the line at unload.
pub const STATS_VAR: &str = "CRYPTOCARD_PROVIDER_STATS";

/// Counts one `op`.
pub fn count(op: Op) {
    COUNTS[op as usize].fetch_add(1, Relaxed);
    if let Some(prefix) = file_prefix() {
        write_file_now_and_then(prefix);
    }
}

/// The file prefix of [`STATS_VAR`], if it names one (anything but "1").
fn file_prefix() -> Option<&'static str> {
    static PREFIX: OnceLock<Option<String>> = OnceLock::new();
    PREFIX
        .get_or_init(|| std::env::var(STATS_VAR).ok().filter(|v| v != "1" && !v.is_empty()))
        .as_deref()
}

/// The process whose writer thread runs (0: none yet).
static WRITER_PID: AtomicU64 = AtomicU64::new(0);

/// Makes sure this process has its writer thread: one per process, started on the first
/// operation (a child forked after that starts its own), which rewrites the file every
/// 100 ms while the counters change.
fn write_file_now_and_then(prefix: &'static str) {
    let pid = u64::from(std::process::id());
    let owner = WRITER_PID.load(Relaxed);
    if owner == pid || WRITER_PID.compare_exchange(owner, pid, Relaxed, Relaxed).is_err() {
        return;
    }
    let spawned = std::thread::Builder::new().name("cryptocard-stats".into()).spawn(move || {
        let mut last = String::new();
        loop {
            let now = summary();
            if now != last {
                write_file(prefix);
                last = now;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    });
    if spawned.is_err() {
        write_file(prefix);
    }
}

/// Writes the summary line to `prefix.PID` (through a temporary file and a rename, so a
/// reader never sees half a line). Failures are ignored: counters must never break work.
fn write_file(prefix: &str) {
    let path = format!("{prefix}.{}", std::process::id());
    let temp = format!("{path}.tmp");
    if std::fs::write(&temp, format!("cryptocard provider: {}\n", summary())).is_ok() {
        let _ = std::fs::rename(&temp, &path);
    }
}

/// "signs=1 verifies=0 encrypts=0 decrypts=0 keygens=0 in-jobs=0", and once the engine
/// exists how it ran the private-key operations: "direct=0 singles=1 batched=7
/// mean-batch=3.5 batches=3:1,4:1" (on the caller's thread, alone on a worker, in lane
/// batches, and how many batches of each size: how full the kernel calls were).
pub fn summary() -> String {
    let c = |op: Op| COUNTS[op as usize].load(Relaxed);
    let mut line = format!(
        "signs={} verifies={} encrypts={} decrypts={} keygens={} in-jobs={}",
        c(Op::Sign),
        c(Op::Verify),
        c(Op::Encrypt),
        c(Op::Decrypt),
        c(Op::Keygen),
        IN_JOBS.load(Relaxed)
    );
    if let Some(s) = crate::dispatch::engine_stats() {
        line += &format!(
            " direct={} singles={} batched={} mean-batch={:.1}",
            s.direct,
            s.singles,
            s.batched(),
            s.mean_batch()
        );
        let sizes: Vec<String> = (s.batches.iter().enumerate())
            .filter(|&(_, &count)| count > 0)
            .map(|(n, count)| format!("{n}:{count}"))
            .collect();
        line += &format!(" batches={}", sizes.join(","));
    }
    line
}

/// At unload: the summary to standard error if [`STATS_VAR`] is `1`, or to its file.
pub fn report_if_asked() {
    if std::env::var(STATS_VAR).is_ok_and(|v| v == "1") {
        eprintln!("cryptocard provider: {}", summary());
    } else if let Some(prefix) = file_prefix() {
        write_file(prefix);
    }
}
