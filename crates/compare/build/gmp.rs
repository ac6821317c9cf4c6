//! GMP 6.3.0 from `vendor/gmp-6.3.0.tar.gz`, configured as `gmp-mpfr-sys` does
//! (`--enable-fat --disable-shared --with-pic`: one static library whose run-time CPU
//! dispatch picks the kernels for the machine it runs on).
//!
//! GMP's configure needs `m4`, which a machine with only a Rust toolchain and a C compiler
//! may lack; then, or if any step fails, `install` says why and the crate is built without
//! the bundled GMP (see build.rs). A missing peer must never break the build.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use std::{env, fs};

/// Bump when the way the library is configured here changes.
const CACHE_SCHEMA: u32 = 1;
const VERSION: &str = "6.3.0";
const CONFIGURE: &[&str] = &["--enable-fat", "--disable-shared", "--with-pic"];

/// The install tree (lib/libgmp.a, include/gmp.h), from the cache or built now, or why
/// there is none.
pub fn install(cache: Option<&Path>, out_dir: &Path, target: &str) -> Result<PathBuf, String> {
    let tarball = Path::new(&env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"))
        .join(format!("vendor/gmp-{VERSION}.tar.gz"));
    println!("cargo:rerun-if-changed={}", tarball.display());
    if env::var("HOST").ok().as_deref() != Some(target) {
        return Err("cross compilation".into());
    }
    let key = super::cache_key("gmp", VERSION, CACHE_SCHEMA, &CONFIGURE.join(" "), target);
    // Only a build needs m4: a cached library is used even where m4 is gone.
    let cached = cache.is_some_and(|c| c.join(&key).join("lib").is_dir());
    if !cached && !runs("m4", &["--version"]) {
        return Err("m4 was not found on PATH".into());
    }
    super::install_cached(cache, out_dir, &key, |work, dest| build(&tarball, work, dest))
}

/// Unpacks, configures and builds GMP in `work`, and installs its library and header in
/// `dest`.
fn build(tarball: &Path, work: &Path, dest: &Path) -> Result<(), String> {
    let start = Instant::now();
    fs::create_dir_all(work).map_err(|e| format!("creating {}: {e}", work.display()))?;
    run(Command::new("tar").arg("xzf").arg(tarball).arg("-C").arg(work), "tar")?;
    let src = work.join(format!("gmp-{VERSION}"));
    let build = work.join("build");
    fs::create_dir_all(&build).map_err(|e| format!("creating {}: {e}", build.display()))?;
    run(Command::new(src.join("configure")).args(CONFIGURE).current_dir(&build), "configure")?;
    let jobs = env::var("NUM_JOBS").unwrap_or_else(|_| "1".into());
    run(Command::new("make").arg(format!("-j{jobs}")).current_dir(&build), "make")?;
    for (from, to) in
        [(build.join(".libs/libgmp.a"), "lib/libgmp.a"), (build.join("gmp.h"), "include/gmp.h")]
    {
        let to = dest.join(to);
        fs::create_dir_all(to.parent().expect("a parent")).map_err(|e| e.to_string())?;
        fs::copy(&from, &to).map_err(|e| format!("copying {}: {e}", from.display()))?;
    }
    let secs = start.elapsed().as_secs_f64();
    println!("cargo:warning=built GMP {VERSION} from vendor/ in {secs:.0} s (static, fat)");
    Ok(())
}

/// Whether `program args` starts and exits successfully.
fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program).args(args).output().is_ok_and(|o| o.status.success())
}

/// Runs a build step with its output captured; a failure carries the step's name and the
/// end of what it printed.
fn run(cmd: &mut Command, step: &str) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{step} did not start: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = text.lines().rev().take(3).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    Err(format!("{step} failed ({}): {}", out.status, tail.join(" / ")))
}
