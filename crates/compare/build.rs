//! Builds the vendored OpenSSL (openssl-src 400.x, OpenSSL 4.0.3) once and links its static
//! libcrypto.
//!
//! The build takes minutes on a small machine, so the installed result is cached outside
//! `OUT_DIR`, the way `gmp-mpfr-sys` caches GMP: in `$CRYPTOCARD_PEER_CACHE` if set (an empty
//! value turns the cache off and builds inside `OUT_DIR`), else in
//! `$XDG_CACHE_HOME/cryptocard-compare` or `~/.cache/cryptocard-compare`. The cache entry's
//! name is a hash of everything that changes the result (openssl-src version, the features
//! we enable, target, C compiler and flags), so the dev, test and release profiles of every
//! checkout share one build, and a new openssl-src release builds afresh. An entry appears
//! by an atomic rename of a finished install, under an exclusive file lock, so concurrent
//! builds never see a half-built library.
//!
//! Cargo itself reruns this script only when it or one of the variables named below
//! changes; with the cache warm a rerun costs milliseconds.

use std::env;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Bump when the way the library is configured here changes.
const CACHE_SCHEMA: u32 = 1;
/// The openssl-src features this crate enables (see Cargo.toml): they change the library.
const FEATURES: &str = "legacy,weak-crypto";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for var in ["CRYPTOCARD_PEER_CACHE", "XDG_CACHE_HOME", "CC", "CFLAGS", "AR"] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let target = env::var("TARGET").expect("cargo sets TARGET");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let install = match cache_dir() {
        Some(cache) => cached_build(&cache, &target),
        None => build_into(&out_dir.join("openssl"), &out_dir.join("openssl-install")),
    };

    // If the cache entry is deleted, run again (and rebuild) instead of failing to link.
    println!("cargo:rerun-if-changed={}", install.join("lib").join("libcrypto.a").display());
    println!("cargo:rustc-link-search=native={}", install.join("lib").display());
    println!("cargo:rustc-link-lib=static=crypto");
    println!("cargo:rustc-env=COMPARE_OPENSSL_SRC={}", openssl_src::version());

    // The RustCrypto peer reports the exact `md2` release Cargo resolved.
    let lock = Path::new(&env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"))
        .join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let md2 = fs::read_to_string(&lock).ok().and_then(|l| locked_version(&l, "md2"));
    println!("cargo:rustc-env=COMPARE_MD2_VERSION={}", md2.as_deref().unwrap_or("0.11"));
}

/// The version of package `name` in a Cargo.lock text.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{name}\"") {
            let version = lines.next()?.trim().strip_prefix("version = \"")?.strip_suffix('"')?;
            return Some(version.to_string());
        }
    }
    None
}

/// Where cached builds live, or `None` when caching is off.
fn cache_dir() -> Option<PathBuf> {
    match env::var_os("CRYPTOCARD_PEER_CACHE") {
        Some(dir) if dir.is_empty() => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => env::var_os("XDG_CACHE_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                env::var_os("HOME").filter(|h| !h.is_empty()).map(|h| Path::new(&h).join(".cache"))
            })
            .map(|d| d.join("cryptocard-compare")),
    }
}

/// Returns the install directory of the cache entry for this configuration, building it
/// first if it is not there.
fn cached_build(cache: &Path, target: &str) -> PathBuf {
    fs::create_dir_all(cache).unwrap_or_else(|e| panic!("creating {}: {e}", cache.display()));
    let key = format!(
        "openssl-{}-{:016x}",
        openssl_src::version(),
        fnv1a(&[
            &CACHE_SCHEMA.to_string(),
            FEATURES,
            target,
            &env::var("CC").unwrap_or_default(),
            &env::var("CFLAGS").unwrap_or_default(),
            &compiler_identity(),
        ])
    );
    let entry = cache.join(&key);
    let lock_path = cache.join(format!("{key}.lock"));
    let lock = File::create(&lock_path).unwrap_or_else(|e| panic!("{}: {e}", lock_path.display()));
    lock.lock().unwrap_or_else(|e| panic!("locking {}: {e}", lock_path.display()));
    if entry.join("lib").join("libcrypto.a").is_file() {
        return entry;
    }
    let scratch = cache.join(format!("{key}.tmp-{}", std::process::id()));
    let _ = fs::remove_dir_all(&scratch);
    let built = build_into(&scratch, &scratch.join("install-done"));
    let _ = fs::remove_dir_all(&entry);
    fs::rename(&built, &entry)
        .unwrap_or_else(|e| panic!("moving {} into the cache: {e}", built.display()));
    let _ = fs::remove_dir_all(&scratch);
    entry
}

/// Builds OpenSSL with `work` as scratch space and moves the installed tree to `dest`.
fn build_into(work: &Path, dest: &Path) -> PathBuf {
    let start = Instant::now();
    let artifacts = openssl_src::Build::new().out_dir(work).build();
    let installed = artifacts.lib_dir().parent().expect("install dir has a parent").to_path_buf();
    let _ = fs::remove_dir_all(dest);
    fs::rename(&installed, dest).unwrap_or_else(|e| panic!("moving {}: {e}", installed.display()));
    let secs = start.elapsed().as_secs_f64();
    let _ = fs::write(dest.join("build-seconds"), format!("{secs:.0}\n"));
    let version = openssl_src::version();
    let openssl = version.split_once('+').map_or(version, |(_, v)| v);
    println!(
        "cargo:warning=built OpenSSL {openssl} from openssl-src in {secs:.0} s (static libcrypto, {FEATURES})"
    );
    dest.to_path_buf()
}

/// The C compiler's `--version` banner, so that a compiler upgrade invalidates the cache.
fn compiler_identity() -> String {
    let cc = env::var("CC").unwrap_or_else(|_| "cc".to_string());
    std::process::Command::new(cc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// 64-bit FNV-1a over the parts, separated so that ("ab","c") and ("a","bc") differ.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.as_bytes().iter().chain(&[0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
