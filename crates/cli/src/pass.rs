//! Password arguments, as OpenSSL's `-pass`, `-passin` and `-passout` take them
//! (openssl-passphrase-options(1)):
//!
//! * `pass:WORD`: the password itself (visible to `ps`; for tests and scripts);
//! * `env:VAR`: the value of environment variable VAR;
//! * `file:PATH`: the first line of the file;
//! * `fd:N`: the first line read from file descriptor N;
//! * `stdin`: the first line of standard input.
//!
//! "First line" excludes the line ending (`\n` or `\r\n`). Nothing here prompts on the
//! terminal: with no password argument, commands that need one say so and fail.
//! Passwords are wiped from memory when dropped, and a line is read without leaving
//! copies behind (`secret_read`).
//!
//! As in OpenSSL, the password line and the data may come down the same stream: with
//! `printf 'pw\ndata' | cryptocard enc -pass stdin` the password is `pw` and the data
//! `data`. So commands resolve their passwords before they open their inputs, and a line
//! is read without taking anything past its newline: from standard input (`stdin`,
//! `fd:0`, `file:/dev/stdin`) through the process's one stdin buffer, which the input
//! then goes on reading; from another descriptor or file a byte at a time.

use crate::fail::{CmdResult, Fail};
use crate::io::reason;
use crate::secret_read;
use zeroize::Zeroizing;

/// A password, wiped on drop.
pub type Password = Zeroizing<Vec<u8>>;

/// The longest password line read from a file, descriptor or stdin.
const MAX_LEN: usize = 64 * 1024;

/// Resolves a password argument (`pass:`, `env:`, `file:`, `fd:`, `stdin`).
pub fn resolve(arg: &str) -> CmdResult<Password> {
    let bad = |why: String| Fail::msg(format!("invalid password argument '{}': {why}", shown(arg)));
    if let Some(p) = arg.strip_prefix("pass:") {
        return Ok(Zeroizing::new(p.as_bytes().to_vec()));
    }
    if let Some(var) = arg.strip_prefix("env:") {
        return match std::env::var_os(var) {
            Some(v) => Ok(Zeroizing::new(v.into_encoded_bytes())),
            None => Err(bad(format!("environment variable {var} is not set"))),
        };
    }
    if let Some(path) = arg.strip_prefix("file:") {
        if STDIN_PATHS.contains(&path) {
            return stdin_line().map_err(|e| bad(format!("{path}: {e}")));
        }
        let mut f =
            std::fs::File::open(path).map_err(|e| bad(format!("{path}: {}", reason(&e))))?;
        return first_line(&mut f).map_err(|e| bad(format!("{path}: {e}")));
    }
    if let Some(fd) = arg.strip_prefix("fd:") {
        let n: u32 = fd.parse().map_err(|_| bad("not a descriptor number".into()))?;
        if n == 0 {
            return stdin_line().map_err(&bad);
        }
        let path = format!("/dev/fd/{n}");
        let mut f = std::fs::File::open(&path).map_err(|e| bad(reason(&e)))?;
        return first_line(&mut f).map_err(&bad);
    }
    if arg == "stdin" {
        return stdin_line().map_err(&bad);
    }
    Err(bad("expected pass:, env:, file:, fd: or stdin".into()))
}

/// The argument as it may appear in a message: never the password itself.
fn shown(arg: &str) -> &str {
    if arg.starts_with("pass:") { "pass:..." } else { arg }
}

/// Paths of standard input itself: opening one of them anew would start a regular file
/// redirected to stdin over from its beginning, so they are read through stdin's buffer.
const STDIN_PATHS: [&str; 3] = ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

/// The first line of `r`, without its line ending; nothing past it is read.
fn first_line(r: &mut dyn std::io::Read) -> Result<Password, String> {
    secret_read::first_line(r, MAX_LEN).map_err(|e| reason(&e))
}

/// The first line of standard input, through the buffer that the command's input, when
/// it is stdin too, goes on reading from. The lock is released before returning.
fn stdin_line() -> Result<Password, String> {
    secret_read::first_line_buffered(&mut std::io::stdin().lock(), MAX_LEN).map_err(|e| reason(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources() {
        assert_eq!(resolve("pass:sec ret").unwrap().as_slice(), b"sec ret");
        assert_eq!(resolve("pass:").unwrap().as_slice(), b"");
        let dir = std::env::temp_dir().join(format!("cryptocard-pass-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("pw");
        std::fs::write(&f, b"first\r\nsecond\n").unwrap();
        let arg = format!("file:{}", f.display());
        assert_eq!(resolve(&arg).unwrap().as_slice(), b"first");
        std::fs::remove_dir_all(&dir).unwrap();
        // PATH is set in any test environment.
        assert!(!resolve("env:PATH").unwrap().is_empty());
    }

    #[test]
    fn bad_arguments_never_echo_the_password() {
        for arg in ["word", "env:CRYPTOCARD_SURELY_UNSET_VAR", "file:/nonexistent", "fd:x"] {
            let e = resolve(arg).unwrap_err().to_string();
            assert!(e.starts_with("invalid password argument"), "{e}");
        }
    }
}
