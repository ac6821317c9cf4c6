//! Compiled kernel modules kept on disk between processes (`CRYPTOCARD_GPU_CACHE`).
//!
//! NVRTC takes 3 to 30 seconds of a core for each of the unrolled modules the driver
//! builds (RSA-4096's the longest), and every process that asks for the GPU backend
//! compiles them again: a server's restart, each step of the device check. With
//! `CRYPTOCARD_GPU_CACHE=DIR` the driver keeps each module's machine code (the cubin
//! NVRTC makes for the device's architecture) in `DIR`, named by the SHA-256 of
//! everything that decides it: the kernel source and NVRTC's options, the architecture
//! and the tuning's defines among them. A later process with the same source and options
//! loads the file instead of compiling. `rsa::gpu_precompile` fills a cache without a
//! device, wherever NVRTC can be loaded, so that the device check's bundle (and a
//! deployment image) carries its modules ready made.
//!
//! The file is code that will run beside the keys, so the cache is only used when
//! `DIR` is the process's own: owned by its user (where `/proc/self` tells it) and
//! writable by nobody else, and each file likewise, and no folder above it lets another
//! user swap it (writable by others without the sticky bit); the driver makes `DIR` with
//! mode 0700 if it is missing. A file holds a magic line, the SHA-256 of its body, and the
//! body; one that is short, altered or of another format is ignored (and replaced by
//! the next compile), never loaded. Writes go to a file of their own, renamed into
//! place, so a reader sees a whole module or none, whatever runs at the same time. A
//! cubin the driver cannot load (one made by a newer NVRTC than the driver accepts) is
//! compiled again on the device and takes its place.
//!
//! The key leaves out NVRTC's version on purpose, so that modules made on the
//! development machine serve the device's driver; the fallback above covers a mismatch.

use crate::digest::Sha256;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The first bytes of a cache file, which name its format.
const MAGIC: &[u8] = b"cryptocard gpu module v1\n";

/// The environment variable that names the cache's folder.
pub(crate) const CACHE_VAR: &str = "CRYPTOCARD_GPU_CACHE";

/// A folder of compiled modules, found usable (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct ModuleCache {
    dir: PathBuf,
}

impl ModuleCache {
    /// The cache `CRYPTOCARD_GPU_CACHE` names: `None` where it is unset or empty, an
    /// error where the folder cannot be made or is not safe to load code from.
    pub(crate) fn from_env() -> Option<Result<ModuleCache, String>> {
        let dir = std::env::var_os(CACHE_VAR).filter(|d| !d.is_empty())?;
        Some(ModuleCache::open(Path::new(&dir)))
    }

    /// The cache in `dir`, made (mode 0700) if it is missing.
    pub(crate) fn open(dir: &Path) -> Result<ModuleCache, String> {
        let shown = dir.display();
        if !dir.exists() {
            make_private_dir(dir).map_err(|e| format!("{CACHE_VAR} {shown}: {e}"))?;
        }
        let meta = fs::metadata(dir).map_err(|e| format!("{CACHE_VAR} {shown}: {e}"))?;
        if !meta.is_dir() {
            return Err(format!("{CACHE_VAR} {shown}: not a folder"));
        }
        private(&meta).map_err(|why| format!("{CACHE_VAR} {shown}: {why}"))?;
        let real = fs::canonicalize(dir).map_err(|e| format!("{CACHE_VAR} {shown}: {e}"))?;
        for parent in real.ancestors().skip(1) {
            let meta = fs::metadata(parent).map_err(|e| format!("{CACHE_VAR} {shown}: {e}"))?;
            replaceable(&meta)
                .map_err(|why| format!("{CACHE_VAR} {shown}: {} {why}", parent.display()))?;
        }
        // The folder is used by the path that was checked, not by one whose links could
        // lead elsewhere later.
        Ok(ModuleCache { dir: real })
    }

    /// The name of the module NVRTC makes from `source` with `options`: 64 hex digits.
    pub(crate) fn key(source: &str, options: &[String]) -> String {
        let mut h = Sha256::new();
        h.update(MAGIC);
        h.update(&(source.len() as u64).to_le_bytes());
        h.update(source.as_bytes());
        for o in options {
            h.update(&(o.len() as u64).to_le_bytes());
            h.update(o.as_bytes());
        }
        hex(&h.finalize())
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.cubin"))
    }

    /// The module stored under `key`, or `None` where there is none or it is not whole,
    /// not this format, or not private.
    pub(crate) fn get(&self, key: &str) -> Option<Vec<u8>> {
        use std::io::Read;
        let path = self.path(key);
        if !fs::symlink_metadata(&path).ok()?.is_file() {
            return None;
        }
        // What is checked is the file opened, and what is read: a name swapped for a
        // link between a check by name and the read would otherwise be read unchecked.
        let mut file = fs::File::open(&path).ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() || private(&meta).is_err() {
            return None;
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).ok()?;
        let rest = bytes.strip_prefix(MAGIC)?;
        let (digest, body) = rest.split_at_checked(32)?;
        (Sha256::digest(body).as_slice() == digest && !body.is_empty()).then(|| body.to_vec())
    }

    /// Stores `body` under `key`: written beside, then renamed into place.
    pub(crate) fn put(&self, key: &str, body: &[u8]) -> Result<(), String> {
        let tmp = self.dir.join(format!(
            ".{key}.{}.{:?}.tmp",
            std::process::id(),
            std::thread::current().id()
        ));
        let written = (|| {
            let mut f = create_private_file(&tmp)?;
            f.write_all(MAGIC)?;
            f.write_all(&Sha256::digest(body))?;
            f.write_all(body)?;
            f.sync_all()?;
            fs::rename(&tmp, self.path(key))
        })();
        written.map_err(|e| {
            let _ = fs::remove_file(&tmp);
            format!("{CACHE_VAR} {}: storing a module: {e}", self.dir.display())
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(unix)]
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    fs::create_dir_all(dir)
}

#[cfg(unix)]
fn create_private_file(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)
}

#[cfg(not(unix))]
fn create_private_file(path: &Path) -> std::io::Result<fs::File> {
    fs::OpenOptions::new().write(true).create_new(true).open(path)
}

/// Whether a folder or file is the process's own: owned by its user where `/proc/self`
/// says who that is, and writable by no group or other user.
#[cfg(unix)]
fn private(meta: &fs::Metadata) -> Result<(), &'static str> {
    use std::os::unix::fs::MetadataExt;
    if meta.mode() & 0o022 != 0 {
        return Err("writable by other users: refused, its modules would run beside the keys");
    }
    match fs::metadata("/proc/self") {
        Ok(me) if me.uid() != meta.uid() => {
            Err("owned by another user: refused, its modules would run beside the keys")
        }
        _ => Ok(()),
    }
}

#[cfg(not(unix))]
fn private(_meta: &fs::Metadata) -> Result<(), &'static str> {
    Ok(())
}

/// Whether another user could rename or replace what a folder above the cache holds
/// (and so the cache itself): writable by a group or by others without the sticky bit
/// (which `/tmp` has, so that only an entry's owner may rename it).
#[cfg(unix)]
fn replaceable(meta: &fs::Metadata) -> Result<(), &'static str> {
    use std::os::unix::fs::MetadataExt;
    if meta.mode() & 0o022 != 0 && meta.mode() & 0o1000 == 0 {
        return Err("is writable by other users: refused, they could replace the cache");
    }
    Ok(())
}

#[cfg(not(unix))]
fn replaceable(_meta: &fs::Metadata) -> Result<(), &'static str> {
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A fresh folder under the system's temporary one, removed at the end.
    pub(in crate::rsa::accel::gpu) struct TempDir(pub(in crate::rsa::accel::gpu) PathBuf);

    impl TempDir {
        pub(in crate::rsa::accel::gpu) fn new(tag: &str) -> TempDir {
            let mut seed = [0u8; 8];
            getrandom::fill(&mut seed).unwrap();
            let p =
                std::env::temp_dir().join(format!("cryptocard-module-cache-{tag}-{}", hex(&seed)));
            TempDir(p)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn opts(o: &[&str]) -> Vec<String> {
        o.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn key_names_source_and_every_option() {
        let k = ModuleCache::key("src", &opts(&["-DA=1", "--gpu-architecture=sm_90"]));
        assert_eq!(k.len(), 64);
        assert!(k.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(k, ModuleCache::key("src ", &opts(&["-DA=1", "--gpu-architecture=sm_90"])));
        assert_ne!(k, ModuleCache::key("src", &opts(&["-DA=0", "--gpu-architecture=sm_90"])));
        assert_ne!(k, ModuleCache::key("src", &opts(&["-DA=1", "--gpu-architecture=sm_80"])));
        assert_ne!(k, ModuleCache::key("src", &opts(&["-DA=1"])));
        // Lengths are hashed, so moving text across a boundary changes the key.
        assert_ne!(ModuleCache::key("ab", &opts(&["c"])), ModuleCache::key("a", &opts(&["bc"])));
        assert_eq!(k, ModuleCache::key("src", &opts(&["-DA=1", "--gpu-architecture=sm_90"])));
    }

    #[test]
    fn stores_and_loads_whole_modules_only() {
        let t = TempDir::new("roundtrip");
        let dir = t.0.join("nested").join("cache");
        let cache = ModuleCache::open(&dir).unwrap();
        let key = ModuleCache::key("kernel", &opts(&["-DX=1"]));
        assert_eq!(cache.get(&key), None, "an empty cache");
        let body: Vec<u8> = (0..5000u32).map(|i| (i * 7 + 3) as u8).collect();
        cache.put(&key, &body).unwrap();
        assert_eq!(cache.get(&key).as_deref(), Some(&body[..]));
        // Stored again (another process compiled it too): still one whole file.
        cache.put(&key, &body).unwrap();
        assert_eq!(cache.get(&key).as_deref(), Some(&body[..]));
        let left: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from(format!("{key}.cubin"))], "no temporary");

        let path = cache.path(&key);
        let whole = fs::read(&path).unwrap();
        // Every way a file can be wrong reads as absent.
        let altered = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut b = whole.clone();
            f(&mut b);
            fs::write(&path, &b).unwrap();
            cache.get(&key)
        };
        assert_eq!(altered(&|b| b.truncate(b.len() - 1)), None, "short");
        assert_eq!(altered(&|b| *b.last_mut().unwrap() ^= 1), None, "a body bit");
        assert_eq!(altered(&|b| b[MAGIC.len()] ^= 0x80), None, "a digest bit");
        assert_eq!(altered(&|b| b[0] = b'C'), None, "another format");
        assert_eq!(altered(&|b| b.truncate(MAGIC.len() + 32)), None, "no body");
        assert_eq!(altered(&|b| b.truncate(10)), None, "cut in the magic");
        assert_eq!(altered(&|_| {}).as_deref(), Some(&body[..]), "restored");
    }

    #[cfg(unix)]
    #[test]
    fn refuses_what_others_can_write() {
        use std::os::unix::fs::PermissionsExt;
        let t = TempDir::new("modes");
        let cache = ModuleCache::open(&t.0).unwrap();
        let mode = fs::metadata(&t.0).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "made private");
        let key = ModuleCache::key("kernel", &[]);
        cache.put(&key, b"module").unwrap();
        let file = cache.path(&key);
        assert_eq!(fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);

        fs::set_permissions(&file, fs::Permissions::from_mode(0o620)).unwrap();
        assert_eq!(cache.get(&key), None, "a group-writable file");
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(cache.get(&key).as_deref(), Some(&b"module"[..]), "readable by others is fine");

        fs::set_permissions(&t.0, fs::Permissions::from_mode(0o777)).unwrap();
        let err = ModuleCache::open(&t.0).unwrap_err();
        assert!(err.contains("writable by other users"), "{err}");
        fs::set_permissions(&t.0, fs::Permissions::from_mode(0o700)).unwrap();

        // A link in the file's place is not followed.
        let target = t.0.join("elsewhere");
        fs::write(&target, b"x").unwrap();
        fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(&target, &file).unwrap();
        assert_eq!(cache.get(&key), None, "a symbolic link");

        // A file where the folder should be.
        let err = ModuleCache::open(&target).unwrap_err();
        assert!(err.contains("not a folder"), "{err}");

        // A private folder under one others may write in: refused, unless the one above
        // has the sticky bit (as /tmp has).
        let open = t.0.join("open");
        fs::create_dir(&open).unwrap();
        fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
        let err = ModuleCache::open(&open.join("cache")).unwrap_err();
        assert!(err.contains("could replace the cache"), "{err}");
        fs::set_permissions(&open, fs::Permissions::from_mode(0o1777)).unwrap();
        assert!(ModuleCache::open(&open.join("cache")).is_ok(), "sticky");
    }
}
