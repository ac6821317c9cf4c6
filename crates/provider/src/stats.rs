//! Proof of use: counters of the operations this provider performed in this process,
//! because a wrong property query silently falls back to the default provider. They are
//! the provider parameter `cryptocard-ops` (`OSSL_PROVIDER_get_params`; listed by
//! `openssl list -providers -verbose`) and, with `CRYPTOCARD_PROVIDER_STATS=1`, a line on
//! standard error when the provider is unloaded (at exit for the `openssl` command).

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

/// The environment variable that asks for the line at unload.
pub const STATS_VAR: &str = "CRYPTOCARD_PROVIDER_STATS";

/// Counts one `op`.
pub fn count(op: Op) {
    COUNTS[op as usize].fetch_add(1, Relaxed);
}

/// "signs=1 verifies=0 encrypts=0 decrypts=0 keygens=0".
pub fn summary() -> String {
    let c = |op: Op| COUNTS[op as usize].load(Relaxed);
    format!(
        "signs={} verifies={} encrypts={} decrypts={} keygens={}",
        c(Op::Sign),
        c(Op::Verify),
        c(Op::Encrypt),
        c(Op::Decrypt),
        c(Op::Keygen)
    )
}

/// Writes the summary to standard error if [`STATS_VAR`] is `1`.
pub fn report_if_asked() {
    if std::env::var(STATS_VAR).is_ok_and(|v| v == "1") {
        eprintln!("cryptocard provider: {}", summary());
    }
}
