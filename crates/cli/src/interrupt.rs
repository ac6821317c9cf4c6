//! Temporary output files removed when a signal ends the command.
//!
//! An output to a path is written to a temporary file beside it and renamed over it on
//! success; a failed command removes it (`io.rs`). A signal that ends the process (Ctrl-C's
//! SIGINT, SIGTERM, SIGHUP) runs no destructor, so the temporary file would stay behind.
//! The first temporary file therefore starts a thread that waits for those signals
//! (signal-hook's self-pipe: the handler itself only writes a byte); on one, the thread
//! removes every temporary file still registered here and ends the process as the
//! signal's default action would, so that a shell sees "killed by SIGINT" as before.
//!
//! A signal the process started out ignoring stays ignored (`nohup` ignores SIGHUP; a
//! shell without job control starts background commands ignoring SIGINT): the set of
//! ignored signals is read from `/proc/self/status` (`SigIgn`) and those are left alone.
//! Where it cannot be read, no signal is watched, and an interrupted command leaves its
//! temporary file as it did before.
//!
//! One lock covers the registry and every creation, rename and removal of a registered
//! file, so the thread never removes a file that is being renamed into place and never
//! misses one that has just been created.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};

/// The signals that end a command and are worth a clean-up.
const WATCHED: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// The temporary files being written.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `create` (which makes a new temporary file and returns it with its path) and
/// registers the file, so that a signal removes it.
pub fn create(create: impl FnOnce() -> io::Result<(File, PathBuf)>) -> io::Result<(File, PathBuf)> {
    watch();
    let mut pending = pending();
    let (file, path) = create()?;
    pending.push(path.clone());
    Ok((file, path))
}

/// Renames the registered `temp` over `target` and forgets it.
pub fn rename(temp: &Path, target: &Path) -> io::Result<()> {
    let mut pending = pending();
    fs::rename(temp, target)?;
    pending.retain(|p| p != temp);
    Ok(())
}

/// Removes the registered `temp` (a failed command's) and forgets it.
pub fn remove(temp: &Path) {
    let mut pending = pending();
    let _ = fs::remove_file(temp);
    pending.retain(|p| p != temp);
}

/// Starts the thread that waits for the watched signals, once.
fn watch() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        let Some(ignored) = ignored_signals() else { return };
        let signals: Vec<i32> =
            WATCHED.into_iter().filter(|s| ignored & (1 << (s - 1)) == 0).collect();
        let Ok(mut signals) = Signals::new(signals) else { return };
        let _ = std::thread::Builder::new().name("signals".into()).spawn(move || {
            if let Some(signal) = signals.forever().next() {
                // Held to the end: no file is created or renamed after this.
                let pending = pending();
                for path in pending.iter() {
                    let _ = fs::remove_file(path);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
    });
}

/// The mask of signals this process ignores (bit s - 1 for signal s), from
/// `/proc/self/status`; `None` where it cannot be read.
fn ignored_signals() -> Option<u64> {
    sig_ign(&fs::read_to_string("/proc/self/status").ok()?)
}

/// The `SigIgn` mask of a `/proc/PID/status` text (proc(5)).
fn sig_ign(status: &str) -> Option<u64> {
    let line = status.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
    u64::from_str_radix(line.trim(), 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_ignored_signals() {
        let status = "Name:\tcryptocard\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000003\n";
        let mask = sig_ign(status).unwrap();
        // SIGHUP (1) and SIGINT (2) ignored, SIGTERM (15) not.
        let ignored: Vec<i32> =
            WATCHED.into_iter().filter(|s| mask & (1 << (s - 1)) != 0).collect();
        assert_eq!(ignored, [SIGINT, SIGHUP]);
        assert_eq!(sig_ign("SigIgn:\tzz\n"), None);
        assert_eq!(sig_ign("Name:\tx\n"), None);
        #[cfg(target_os = "linux")]
        assert!(ignored_signals().is_some());
    }
}
