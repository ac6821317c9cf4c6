//! What the provider's tests share: the cdylib cargo built, copied into a modules
//! directory as `cryptocard.so`; the `openssl` arguments that load and prefer it; the
//! counters it prints at exit.

#![allow(dead_code)]

pub mod cli;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether `program` runs here (`version`-style probe with `arg`); says why a test skips.
pub fn have(program: &str, arg: &str, test: &str) -> bool {
    let ok = Command::new(program).arg(arg).output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("{test}: skipped: no `{program}` here");
    }
    ok
}

/// Whether the `openssl` command runs here.
pub fn have_openssl() -> bool {
    have("openssl", "version", "this test")
}

/// The cdylib cargo built for this test run: in target/<profile>/deps beside this test
/// binary (where `cargo test` leaves it), else in target/<profile>.
pub fn built_module() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("target/<profile>/deps");
    let candidates = [deps.to_path_buf(), deps.parent().expect("target/<profile>").to_path_buf()];
    candidates
        .iter()
        .map(|d| d.join("libcryptocard_provider.so"))
        .find(|so| so.exists())
        .expect("libcryptocard_provider.so: cargo builds it with the tests")
}

/// A fresh work directory `tag` with `ossl-modules/cryptocard.so`; returns (dir, modules).
pub fn workdir(tag: &str) -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{tag}-{}", std::process::id()));
    let modules = dir.join("ossl-modules");
    std::fs::create_dir_all(&modules).unwrap();
    std::fs::copy(built_module(), modules.join("cryptocard.so")).unwrap();
    (dir, modules)
}

/// The `openssl` arguments that load our provider beside the default one and prefer it.
pub fn ours(modules: &Path) -> Vec<String> {
    let m = modules.to_string_lossy().into_owned();
    ["-provider-path", &m, "-provider", "cryptocard", "-provider", "default"]
        .iter()
        .map(|x| x.to_string())
        .chain(["-propquery".into(), "?provider=cryptocard".into()])
        .collect()
}

/// The repository's root (for scripts/).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The sum of counter `name` ("signs", "in-jobs", ...) over every counter line the
/// provider printed in `text` (one per process that unloaded it).
pub fn counted(text: &str, name: &str) -> u64 {
    text.lines()
        .filter(|l| l.starts_with("cryptocard provider:"))
        .flat_map(|l| l.split_whitespace())
        .filter_map(|w| w.strip_prefix(name)?.strip_prefix('='))
        .filter_map(|n| n.parse::<u64>().ok())
        .sum()
}
