//! Input and output files, shared by every command.
//!
//! Inputs: a path, or stdin for none or `-`. Keys, signatures and RSA inputs are read
//! whole, up to [`MAX_SMALL_INPUT`]; data to hash or encrypt is streamed.
//!
//! Outputs: stdout for none or `-`; a path is written through [`Output`], which writes a
//! temporary file in the same directory and renames it over the target only when the
//! command succeeds ([`Output::commit`]), so a failed decryption or signature never leaves
//! a half-written file in place of a good one: the temporary file is removed and an
//! existing file is left untouched; a signal that ends the command removes it too
//! (`interrupt.rs`). A replaced file keeps its permission bits (narrowed
//! to owner-only for private output), and a new one is created as [`Mode`] says. Outputs
//! that are not regular files (`/dev/null`, a FIFO, a terminal) are written in place,
//! since they cannot be renamed over; so are `/dev/stdout` (stdout itself), `/dev/stderr`
//! and `/dev/fd/N`, which name this process's open descriptors. Through any other
//! symbolic link, the file it points to is replaced.
//!
//! Error messages name the path and the system's reason, without Rust's "(os error N)".

use crate::fail::{CmdResult, Fail};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// The system's reason for `e`, as `strerror` words ("No such file or directory").
pub fn reason(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Whether `path` means stdin/stdout.
fn is_std(path: Option<&str>) -> bool {
    matches!(path, None | Some("-"))
}

/// The name of an input in messages and digest lines.
pub fn input_name(path: Option<&str>) -> &str {
    if is_std(path) { "stdin" } else { path.unwrap_or("stdin") }
}

/// Opens an input for reading: the file, or stdin for `None` and `-`.
pub fn open_input(path: Option<&str>) -> CmdResult<Box<dyn Read>> {
    match path.filter(|p| *p != "-") {
        None => Ok(Box::new(io::stdin().lock())),
        Some(p) => match File::open(p) {
            Ok(f) if f.metadata().is_ok_and(|m| m.is_dir()) => {
                Err(Fail::msg(format!("{p}: Is a directory")))
            }
            Ok(f) => Ok(Box::new(f)),
            Err(e) => Err(Fail::msg(format!("{p}: {}", reason(&e)))),
        },
    }
}

/// Reads a whole input with no bound (the messages of `cms` and `smime`).
pub fn read_input(path: Option<&str>) -> CmdResult<Vec<u8>> {
    let mut data = Vec::new();
    open_input(path)?.read_to_end(&mut data).map_err(|e| read_error(path, &e))?;
    Ok(data)
}

/// The length of a named input that is a regular file (`None` for stdin, a pipe, a
/// device): for the few computations that must know it before they read.
pub fn input_len(path: Option<&str>) -> Option<u64> {
    let p = path.filter(|p| *p != "-")?;
    fs::metadata(p).ok().filter(|m| m.is_file()).map(|m| m.len())
}

/// The most bytes [`read_small`] takes, 1 MiB. A key file is small (a 16384-bit key with
/// five primes is under 20 KiB of PEM) and a signature or an RSA input is at most the
/// modulus (2 KiB); the bound leaves room for text around a PEM block, and keeps a
/// mistaken `-in /dev/zero` or a hostile stream from filling memory.
pub const MAX_SMALL_INPUT: usize = 1 << 20;

/// The most bytes a file of certificates may hold, 16 MiB: a system's whole CA bundle is
/// a few hundred KiB, and the certificate reader takes at most 1000 certificates.
pub const MAX_CERT_INPUT: usize = 16 << 20;

/// Reads a whole key, signature or RSA input (`what`, for the message), refusing more
/// than [`MAX_SMALL_INPUT`] bytes; it stops reading there.
pub fn read_small(path: Option<&str>, what: &str) -> CmdResult<Vec<u8>> {
    read_capped(path, what, MAX_SMALL_INPUT)
}

/// Reads a whole input (`what`, for the message), refusing more than `cap` bytes; it
/// stops reading there.
pub fn read_capped(path: Option<&str>, what: &str, cap: usize) -> CmdResult<Vec<u8>> {
    let mut data = Vec::new();
    open_input(path)?
        .take(cap as u64 + 1)
        .read_to_end(&mut data)
        .map_err(|e| read_error(path, &e))?;
    check_capped(path, what, data.len(), cap)?;
    Ok(data)
}

/// The error of an input of `len` bytes read with a cap of [`MAX_SMALL_INPUT`] (one
/// more byte than the cap is read to tell), if it is over.
pub fn check_small(path: Option<&str>, what: &str, len: usize) -> CmdResult {
    check_capped(path, what, len, MAX_SMALL_INPUT)
}

fn check_capped(path: Option<&str>, what: &str, len: usize, cap: usize) -> CmdResult {
    if len > cap {
        return Err(Fail::msg(format!(
            "{}: more than {} MiB, too large for {what}",
            input_name(path),
            cap >> 20
        )));
    }
    Ok(())
}

/// A read error on `path`.
pub fn read_error(path: Option<&str>, e: &io::Error) -> Fail {
    Fail::msg(format!("{}: {}", input_name(path), reason(e)))
}

/// Feeds everything `r` holds to `f`, in chunks of up to 64 KiB; `name` is the input's
/// name for a read error.
pub fn for_each_chunk(r: &mut dyn Read, name: &str, mut f: impl FnMut(&[u8])) -> CmdResult {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(k) => f(&buf[..k]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Fail::msg(format!("{name}: {}", reason(&e)))),
        }
    }
}

/// Reads until `buf` is full or the input ends; returns the count (short only at the end).
pub fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`: links to a descriptor this process
/// has open, which can name a pipe or terminal (with no path to resolve) or a file the
/// shell opened; such an output is the descriptor's file, not a file to replace.
fn is_descriptor_link(path: &str) -> bool {
    path == "/dev/stderr" || path.starts_with("/dev/fd/") || path.starts_with("/proc/self/fd/")
}

/// How a new output file is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Readable as the umask allows (ciphertexts, digests, public keys).
    Public,
    /// Owner only, 0600 (private keys, as OpenSSL writes them).
    Private,
}

enum Sink {
    Stdout(io::StdoutLock<'static>),
    /// Written in place: a device, FIFO or other non-regular file.
    Direct(BufWriter<File>),
    /// A temporary file beside `target`, renamed over it on commit.
    Temp {
        file: BufWriter<File>,
        temp: PathBuf,
        target: PathBuf,
    },
}

/// An output being written; see the module docs. Dropping it without
/// [`Output::commit`] removes the temporary file.
pub struct Output {
    sink: Sink,
    name: String,
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Output {
    /// An output to `path`, or to stdout for `None` and `-`.
    pub fn create(path: Option<&str>, mode: Mode) -> CmdResult<Output> {
        let Some(p) = path.filter(|p| !matches!(*p, "-" | "/dev/stdout")) else {
            return Ok(Output { sink: Sink::Stdout(io::stdout().lock()), name: "stdout".into() });
        };
        let fail = |e: &io::Error| Fail::msg(format!("{p}: {}", reason(e)));
        if is_descriptor_link(p) {
            // One of this process's open files: written where it stands, after what is
            // there (a shell's `2>>log` and `2>log` both keep what came before).
            let f = OpenOptions::new().append(true).open(p).map_err(|e| fail(&e))?;
            return Ok(Output { sink: Sink::Direct(BufWriter::new(f)), name: p.into() });
        }
        // Through a symbolic link, replace the file it points to, not the link.
        let target = match fs::symlink_metadata(p) {
            Ok(m) if m.file_type().is_symlink() => fs::canonicalize(p).map_err(|e| fail(&e))?,
            _ => PathBuf::from(p),
        };
        let existing = match fs::metadata(&target) {
            Ok(m) if m.is_dir() => return Err(Fail::msg(format!("{p}: Is a directory"))),
            Ok(m) if !m.is_file() => {
                let f = OpenOptions::new().write(true).open(&target).map_err(|e| fail(&e))?;
                return Ok(Output { sink: Sink::Direct(BufWriter::new(f)), name: p.into() });
            }
            Ok(m) => Some(m.permissions()),
            Err(_) => None,
        };
        let (file, temp) = crate::interrupt::create(|| create_temp(&target, mode, existing))
            .map_err(|e| fail(&e))?;
        Ok(Output { sink: Sink::Temp { file: BufWriter::new(file), temp, target }, name: p.into() })
    }

    /// A write error on this output.
    pub fn error(&self, e: &io::Error) -> Fail {
        Fail::msg(format!("{}: {}", self.name, reason(e)))
    }

    /// Writes all of `data`, with the error as a [`Fail`].
    pub fn put(&mut self, data: &[u8]) -> CmdResult {
        self.write_all(data).map_err(|e| self.error(&e))
    }

    /// Flushes and, for a file, renames the temporary file over the target.
    pub fn commit(mut self) -> CmdResult {
        self.flush().map_err(|e| self.error(&e))?;
        if let Sink::Temp { file, temp, target } = &mut self.sink {
            file.get_ref()
                .sync_all()
                .map_err(|e| Fail::msg(format!("{}: {}", self.name, reason(&e))))?;
            crate::interrupt::rename(temp, target)
                .map_err(|e| Fail::msg(format!("{}: {}", self.name, reason(&e))))?;
            // Renamed: nothing left for Drop to remove.
            temp.clear();
        }
        Ok(())
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::Stdout(s) => s.write(buf),
            Sink::Direct(f) | Sink::Temp { file: f, .. } => f.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout(s) => s.flush(),
            Sink::Direct(f) | Sink::Temp { file: f, .. } => f.flush(),
        }
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Sink::Temp { temp, .. } = &self.sink
            && !temp.as_os_str().is_empty()
        {
            crate::interrupt::remove(temp);
        }
    }
}

/// The longest base name that goes into a temporary file's name: with the dot, the
/// process id, the counter and `.tmp` (at most 27 bytes) the name stays within NAME_MAX
/// (255 bytes) for a target whose own name is as long as NAME_MAX allows.
const TEMP_BASE_MAX: usize = 200;

/// Creates a new file `.NAME.PID.N.tmp` beside `target` (NAME cut to [`TEMP_BASE_MAX`]
/// bytes), before any byte is written, with the permissions the target will have:
///
/// * a new target: owner-only (0600) for [`Mode::Private`], else as the umask allows;
/// * an existing target: its own permission bits, so that replacing it never widens who
///   may read it (a 0600 file stays 0600), narrowed to owner-only for
///   [`Mode::Private`] (private material never becomes readable by others).
fn create_temp(
    target: &Path,
    mode: Mode,
    existing: Option<fs::Permissions>,
) -> io::Result<(File, PathBuf)> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = temp_base(target.file_name().unwrap_or_default());
    // An existing target's bits (never set-id or sticky), narrowed for private output.
    #[cfg(unix)]
    let keep = existing.map(|perm| {
        use std::os::unix::fs::PermissionsExt;
        let bits = perm.mode() & 0o777;
        if mode == Mode::Private { bits & 0o600 } else { bits }
    });
    #[cfg(not(unix))]
    let _ = existing;
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut name = std::ffi::OsString::from(".");
        name.push(&base);
        name.push(format!(".{}.{n}.tmp", std::process::id()));
        let temp = dir.join(name);
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        // Created no wider than it will be (the umask may only narrow it)...
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            let new = if mode == Mode::Private { 0o600 } else { 0o666 };
            opts.mode(keep.unwrap_or(new));
        }
        match opts.open(&temp) {
            Ok(f) => {
                // ... then given the existing file's exact bits, whatever the umask.
                #[cfg(unix)]
                if let Some(bits) = keep {
                    use std::os::unix::fs::PermissionsExt;
                    if let Err(e) = f.set_permissions(fs::Permissions::from_mode(bits)) {
                        let _ = fs::remove_file(&temp);
                        return Err(e);
                    }
                }
                return Ok((f, temp));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < u32::MAX => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The target's name as it goes into its temporary file's name: at most
/// [`TEMP_BASE_MAX`] bytes (a cut may split a multi-byte character: the name is bytes).
fn temp_base(name: &std::ffi::OsStr) -> std::ffi::OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let b = name.as_bytes();
        std::ffi::OsStr::from_bytes(&b[..b.len().min(TEMP_BASE_MAX)]).to_os_string()
    }
    #[cfg(not(unix))]
    {
        let s = name.to_string_lossy();
        let mut end = s.len().min(TEMP_BASE_MAX);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s[..end].into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory for test `name` (tests run in parallel).
    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cryptocard-io-{}-{name}", std::process::id()));
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn commit_replaces_and_drop_keeps_the_old_file() {
        let d = dir("commit");
        let target = d.join("out.bin");
        fs::write(&target, b"old").unwrap();
        let t = target.to_str().unwrap();
        let mut o = Output::create(Some(t), Mode::Public).unwrap();
        o.put(b"partial").unwrap();
        drop(o);
        assert_eq!(fs::read(&target).unwrap(), b"old");
        let mut o = Output::create(Some(t), Mode::Private).unwrap();
        o.put(b"new").unwrap();
        o.commit().unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        // Only the target remains: no temporary files left behind.
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
        }
        fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_written_through() {
        let d = dir("symlink");
        let (real, link) = (d.join("real"), d.join("link"));
        fs::write(&real, b"old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut o = Output::create(link.to_str(), Mode::Public).unwrap();
        o.put(b"new").unwrap();
        o.commit().unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn errors_name_the_path() {
        let e = open_input(Some("/nonexistent/x")).err().unwrap();
        assert_eq!(e.to_string(), "/nonexistent/x: No such file or directory");
        let e = Output::create(Some("/nonexistent/x"), Mode::Public).unwrap_err();
        assert_eq!(e.to_string(), "/nonexistent/x: No such file or directory");
        assert_eq!(input_name(Some("-")), "stdin");
    }
}
