//! `cryptocard`: an OpenSSL-compatible command line (`dgst`, `enc`, `mac`, `prime`, ...),
//! and `speed`, which measures cryptocard side by side with OpenSSL and GMP.
//!
//! Commands take OpenSSL-style flags, parsed by [`args`]; each lives in its own module
//! under [`cmd`] and uses only the library's public API. What they share: [`io`] (input
//! files, and outputs written to a temporary file and renamed into place only on
//! success), [`pass`] (password arguments), [`keyfile`] and [`keytext`] (key files and
//! their `-text` dumps), [`hex`], [`base64`], [`fail`] (one line on stderr and an exit
//! status).
//!
//! No input should make the program panic. As a last resort, a panic is caught here,
//! reported as one line, and the exit status is 2: never a backtrace.

#![forbid(unsafe_code)]

mod args;
mod base64;
mod cmd;
mod fail;
mod hex;
mod http;
#[cfg(feature = "tls")]
mod https;
mod interrupt;
mod io;
mod keyfile;
mod keytext;
mod pass;
mod rsaopt;
mod secret_read;
mod spec;
mod speed;

use std::sync::Mutex;

/// The message of the last panic, for the one-line report.
static PANIC_MESSAGE: Mutex<Option<String>> = Mutex::new(None);

fn main() {
    // Keep the default hook's backtrace off the terminal: record the message, and let
    // whoever catches the unwind decide (`speed` turns a panicking peer into a cell
    // error; `main` reports anything else as an internal error).
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let at =
            info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        if let Ok(mut slot) = PANIC_MESSAGE.lock() {
            *slot = Some(format!("{msg}{at}"));
        }
    }));
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string().unwrap_or_else(|a| a.to_string_lossy().into_owned()))
        .collect();
    let status = std::panic::catch_unwind(|| cmd::run(&argv)).unwrap_or_else(|_| {
        let msg = PANIC_MESSAGE.lock().ok().and_then(|m| m.clone()).unwrap_or_default();
        eprintln!("cryptocard: internal error (please report): {msg}");
        2
    });
    std::process::exit(status);
}
