//! OpenSSL 4.0.3 from the `openssl-src` crate: a static libcrypto with the legacy provider
//! built in (single DES, MD4) and MD2 (`weak-crypto`). Its build needs a C compiler, perl
//! and make, which every machine that builds Rust with C dependencies has; a failure here
//! stops the build with OpenSSL's own message.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Bump when the way the library is configured here changes.
const CACHE_SCHEMA: u32 = 1;
/// The openssl-src features this crate enables (see Cargo.toml): they change the library.
const FEATURES: &str = "legacy,weak-crypto";

/// The install tree (lib/libcrypto.a), from the cache or built now.
pub fn install(cache: Option<&Path>, out_dir: &Path, target: &str) -> PathBuf {
    let key = super::cache_key("openssl", openssl_src::version(), CACHE_SCHEMA, FEATURES, target);
    super::install_cached(cache, out_dir, &key, build).unwrap_or_else(|e| panic!("{e}"))
}

/// Builds OpenSSL with `work` as scratch space and moves the installed tree to `dest`.
fn build(work: &Path, dest: &Path) -> Result<(), String> {
    let start = Instant::now();
    let artifacts = openssl_src::Build::new().out_dir(work).build();
    let installed = artifacts.lib_dir().parent().expect("install dir has a parent").to_path_buf();
    let _ = fs::remove_dir_all(dest);
    fs::rename(&installed, dest).map_err(|e| format!("moving {}: {e}", installed.display()))?;
    let secs = start.elapsed().as_secs_f64();
    let _ = fs::write(dest.join("build-seconds"), format!("{secs:.0}\n"));
    let version = openssl_src::version();
    let openssl = version.split_once('+').map_or(version, |(_, v)| v);
    println!(
        "cargo:warning=built OpenSSL {openssl} from openssl-src in {secs:.0} s (static libcrypto, {FEATURES})"
    );
    Ok(())
}
