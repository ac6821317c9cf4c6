//! Builds the C peers that are linked statically: OpenSSL 4.0.3 (always, from the
//! `openssl-src` crate; it needs only a C compiler, perl and make) and GMP 6.3.0 (from the
//! source in `vendor/`, when the machine can build it: GMP's build needs `m4`).
//!
//! Both builds take minutes on a small machine, so their installed results are cached
//! outside `OUT_DIR`, the way `gmp-mpfr-sys` caches its GMP: in `$CRYPTOCARD_PEER_CACHE` if
//! set (an empty value turns the cache off and builds inside `OUT_DIR`), else in
//! `$XDG_CACHE_HOME/cryptocard-compare` or `~/.cache/cryptocard-compare`. A cache entry's
//! name is a hash of everything that changes the result (library version, configuration,
//! target, C compiler and flags), so the dev, test and release profiles of every checkout
//! share one build. An entry appears by an atomic rename of a finished install, under an
//! exclusive file lock, so concurrent builds never see a half-built library.
//!
//! A GMP that cannot be built is not an error: the crate is then compiled without the
//! `bundled_gmp` cfg, `compare::gmp::Gmp::bundled` reports why it is absent, and `speed`
//! measures the system's GMP (opened at run time) instead. Cargo reruns this script only
//! when it or one of the variables named below changes; with the cache warm a rerun costs
//! milliseconds.

// Without the `ffi` feature only `main` is used.
#![cfg_attr(not(feature = "ffi"), allow(dead_code, unused_imports))]

use std::env;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

#[cfg(feature = "ffi")]
#[path = "build/gmp.rs"]
mod gmp;
#[cfg(feature = "ffi")]
#[path = "build/openssl.rs"]
mod openssl;

/// Without the `ffi` feature the crate has no C peers: nothing to build.
#[cfg(not(feature = "ffi"))]
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
}

#[cfg(feature = "ffi")]
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    for var in ["CRYPTOCARD_PEER_CACHE", "XDG_CACHE_HOME", "CC", "CFLAGS", "AR", "PATH"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo::rustc-check-cfg=cfg(bundled_gmp)");

    let target = env::var("TARGET").expect("cargo sets TARGET");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let cache = cache_dir();

    let install = openssl::install(cache.as_deref(), &out_dir, &target);
    link_static(&install, "crypto");
    println!("cargo:rustc-env=COMPARE_OPENSSL_SRC={}", openssl_src::version());

    match gmp::install(cache.as_deref(), &out_dir, &target) {
        Ok(install) => {
            link_static(&install, "gmp");
            println!("cargo:rustc-cfg=bundled_gmp");
            println!("cargo:rustc-env=COMPARE_GMP_ABSENT=");
        }
        Err(why) => {
            println!(
                "cargo:warning=the bundled GMP peer is not built ({why}); speed uses the system GMP where present"
            );
            println!("cargo:rustc-env=COMPARE_GMP_ABSENT={why}");
        }
    }

    // The RustCrypto peer reports the exact `md2` release Cargo resolved.
    let lock = Path::new(&env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"))
        .join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let lock = fs::read_to_string(&lock).unwrap_or_default();
    // So do the Rust peers, `aws-lc-rs` and `ring`.
    for (name, var, fallback) in [
        ("md2", "COMPARE_MD2_VERSION", "0.11"),
        ("aws-lc-rs", "COMPARE_AWS_LC_RS_VERSION", "1.19"),
        ("ring", "COMPARE_RING_VERSION", "0.17"),
    ] {
        let version = locked_version(&lock, name);
        println!("cargo:rustc-env={var}={}", version.as_deref().unwrap_or(fallback));
    }
    println!("cargo:rustc-env=COMPARE_AWS_LC_NO_AVX512={}", aws_lc_without_avx512(&target));
}

/// Why aws-lc-sys builds AWS-LC without its AVX-512 assembly (the IFMA RSA among it), or
/// "" when it keeps it. aws-lc-sys drops it for a size-optimized build
/// (`AWS_LC_SYS_SMALL`, or opt-level "s"/"z", which defines `OPENSSL_SMALL`) and has no
/// assembly at all under `AWS_LC_SYS_NO_ASM`; the code only exists for x86-64. The
/// opt-level read here is this crate's, the same as aws-lc-sys's unless a profile sets
/// one for it alone.
fn aws_lc_without_avx512(target: &str) -> &'static str {
    let suffix = target.replace(['-', '.'], "_");
    let flag = |name: &str| {
        [format!("AWS_LC_SYS_{name}_{suffix}"), format!("AWS_LC_SYS_{name}")].iter().find_map(
            |var| {
                println!("cargo:rerun-if-env-changed={var}");
                let value = env::var(var).ok()?.to_lowercase();
                Some(
                    !(value.starts_with('0')
                        || value.starts_with('n')
                        || value.starts_with("off")
                        || value.starts_with('f')),
                )
            },
        )
    };
    let opt = env::var("OPT_LEVEL").unwrap_or_default();
    if !target.starts_with("x86_64") {
        "not x86-64"
    } else if flag("NO_ASM") == Some(true) {
        "AWS_LC_SYS_NO_ASM"
    } else if flag("SMALL").unwrap_or(opt == "s" || opt == "z") {
        "a size-optimized build"
    } else {
        ""
    }
}

/// Links `lib<name>.a` from an install tree, and reruns the script (rebuilding the entry)
/// if the cached file disappears instead of failing to link.
fn link_static(install: &Path, name: &str) {
    let lib = install.join("lib");
    println!("cargo:rerun-if-changed={}", lib.join(format!("lib{name}.a")).display());
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=static={name}");
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

/// The install directory of a library built by `build(scratch, dest)`: the cache entry
/// `key` (built first if it is missing) or, with the cache off, `out_dir/name`. `build`
/// installs into `dest` (a lib/ and include/ tree) using `scratch` for everything else.
fn install_cached(
    cache: Option<&Path>,
    out_dir: &Path,
    key: &str,
    build: impl FnOnce(&Path, &Path) -> Result<(), String>,
) -> Result<PathBuf, String> {
    let Some(cache) = cache else {
        let dest = out_dir.join(format!("{key}-install"));
        build(&out_dir.join(format!("{key}-build")), &dest)?;
        return Ok(dest);
    };
    fs::create_dir_all(cache).map_err(|e| format!("creating {}: {e}", cache.display()))?;
    let entry = cache.join(key);
    let lock_path = cache.join(format!("{key}.lock"));
    let lock = File::create(&lock_path).map_err(|e| format!("{}: {e}", lock_path.display()))?;
    lock.lock().map_err(|e| format!("locking {}: {e}", lock_path.display()))?;
    if entry.join("lib").is_dir() {
        return Ok(entry);
    }
    let scratch = cache.join(format!("{key}.tmp-{}", std::process::id()));
    let _ = fs::remove_dir_all(&scratch);
    let dest = scratch.join("install-done");
    let built = build(&scratch, &dest);
    if built.is_ok() {
        let _ = fs::remove_dir_all(&entry);
        fs::rename(&dest, &entry)
            .map_err(|e| format!("moving {} into the cache: {e}", dest.display()))?;
    }
    let _ = fs::remove_dir_all(&scratch);
    built.map(|()| entry)
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

/// A cache key: `name-version-` and a hash of what else changes the build.
fn cache_key(name: &str, version: &str, schema: u32, config: &str, target: &str) -> String {
    let hash = fnv1a(&[
        &schema.to_string(),
        config,
        target,
        &env::var("CC").unwrap_or_default(),
        &env::var("CFLAGS").unwrap_or_default(),
        &compiler_identity(),
    ]);
    format!("{name}-{version}-{hash:016x}")
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
