//! Helpers shared by the command tests: running the binary, temporary directories,
//! checking failures, and the `openssl` command line for interoperability (tests that
//! need it say they are skipped and pass where it is not installed; CI installs it).

#![allow(dead_code)]

pub mod ocsp;
pub mod paths;

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The `cryptocard` binary.
pub fn cc() -> Command {
    Command::cargo_bin("cryptocard").unwrap()
}

/// Runs `cryptocard ARGS` with `stdin`.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    cc().args(args).write_stdin(stdin.to_vec()).output().unwrap()
}

/// Runs `cryptocard ARGS` with empty stdin, killed after `secs` seconds: for hostile
/// input that must be answered, not hung on. A killed run has no exit status, so `ok` and
/// `fails` then fail the test.
pub fn run_within(secs: u64, args: &[&str]) -> Output {
    let limit = std::time::Duration::from_secs(secs);
    cc().args(args).timeout(limit).write_stdin(Vec::new()).output().unwrap()
}

/// Runs `cryptocard ARGS` in `dir` with empty stdin.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    cc().current_dir(dir).args(args).write_stdin(Vec::new()).output().unwrap()
}

/// Asserts success and returns stdout.
pub fn ok(out: &Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout.clone()
}

/// Asserts success and returns stdout as text.
pub fn ok_text(out: &Output) -> String {
    String::from_utf8(ok(out)).unwrap()
}

/// Asserts a failure with exit status `code` and exactly one line on stderr containing
/// `needle` (and no panic or backtrace); returns that line.
pub fn fails(out: &Output, code: i32, needle: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err}");
    assert!(err.contains(needle), "'{needle}' not in: {err}");
    assert!(!err.contains("panicked") && !err.contains("internal error"), "{err}");
    err.trim_end().to_string()
}

/// A temporary directory, removed when dropped.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// `dir/name` as a string.
pub fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

/// The files in `dir`, sorted: to check that no temporary file was left behind.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Whether the `openssl` command line runs here; prints why a test is skipped if not.
pub fn have_openssl(test: &str) -> bool {
    let ok = std::process::Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("{test}: skipped: the openssl command line is not installed");
    }
    ok
}

/// Runs `openssl ARGS` with `stdin`; asserts success and returns stdout.
pub fn openssl(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = openssl_raw(args, stdin);
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// Runs `openssl ARGS` with `stdin`, whatever the outcome.
pub fn openssl_raw(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = std::process::Command::new("openssl")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// OpenSSL 3 keeps single DES and MD4 in its legacy provider.
pub const LEGACY: [&str; 4] = ["-provider", "legacy", "-provider", "default"];

/// The test fixtures directory.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// Hex to bytes (test vectors).
pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// Bytes to lower-case hex.
pub fn tohex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Reproducible test bytes.
pub fn bytes(seed: u8, len: usize) -> Vec<u8> {
    let mut x = u32::from(seed).wrapping_mul(2_654_435_761) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}

/// `cryptocard ARGS` started as a server on `-port 0`, and the port it took, read from its
/// `ACCEPT` line (OpenSSL's). Its stderr is kept for `wait_with_output` where
/// `keep_stderr`, else dropped.
pub fn spawn_server(args: &[String], keep_stderr: bool) -> (std::process::Child, u16) {
    use std::io::BufRead;
    let stderr =
        if keep_stderr { std::process::Stdio::piped() } else { std::process::Stdio::null() };
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("cryptocard"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let port = line
        .strip_prefix("ACCEPT ")
        .and_then(|l| l.split(" PID=").next())
        .and_then(|a| a.rsplit(':').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no ACCEPT line: {line:?}"));
    (child, port)
}
