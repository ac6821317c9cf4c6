//! Reading key files and password lines into memory that is wiped when dropped, without
//! leaving unwiped copies behind.
//!
//! `Read::read_to_end` into a `Vec` grows the vector as data arrives, and each growth
//! copies the bytes into a larger allocation and frees the old one as it is: a key read
//! from a pipe leaves a trail of partial copies in freed heap memory, where a later
//! allocation or a core dump can find them, and wrapping the final vector in `Zeroizing`
//! wipes the last copy only. A `BufReader` keeps its own buffer, never wiped. Here input
//! is read into `Zeroizing` buffers that are each allocated once at their full size and
//! never grow (chunks for [`read_all`], one line buffer for [`first_line`]); the result is
//! copied into one buffer allocated at its exact length. Every allocation that held the
//! secret is wiped when dropped (`zeroize` wipes a vector's spare capacity too).
//!
//! Out of reach: the kernel's page cache, and the standard library's 8 KiB buffer behind
//! `io::stdin()` for input read from stdin.

use crate::fail::CmdResult;
use crate::io;
use std::io::{ErrorKind, Read};
use zeroize::Zeroizing;

/// The first chunk of an input of unknown length; later chunks double, up to
/// [`MAX_CHUNK`].
const MIN_CHUNK: usize = 16 * 1024;

/// The largest chunk.
const MAX_CHUNK: usize = 1024 * 1024;

/// How much [`first_line`] asks of its reader at a time (as a `BufReader` would), so
/// that it reads little past the line on a pipe or terminal.
const LINE_STEP: usize = 8 * 1024;

/// Reads a whole input that holds a secret (a key file, `what` in the error): the file at
/// `path`, or stdin for `None` and `-`, as [`io::open_input`] opens it; at most
/// [`io::MAX_SMALL_INPUT`] bytes, as [`io::read_small`].
pub fn read_input(path: Option<&str>, what: &str) -> CmdResult<Zeroizing<Vec<u8>>> {
    let mut r = io::open_input(path)?.take(io::MAX_SMALL_INPUT as u64 + 1);
    // A regular file's length sizes the first chunk: one read, one chunk.
    let hint = path
        .filter(|p| *p != "-")
        .and_then(|p| std::fs::metadata(p).ok())
        .filter(|m| m.is_file())
        .map_or(0, |m| usize::try_from(m.len()).unwrap_or(usize::MAX));
    let data =
        read_all(&mut r, hint.min(io::MAX_SMALL_INPUT)).map_err(|e| io::read_error(path, &e))?;
    io::check_small(path, what, data.len())?;
    Ok(data)
}

/// Everything `r` holds, in a buffer of exactly its length; `size_hint` is the expected
/// length (0 if unknown). See the module docs.
pub fn read_all(r: &mut dyn Read, size_hint: usize) -> std::io::Result<Zeroizing<Vec<u8>>> {
    let mut chunks: Vec<Zeroizing<Vec<u8>>> = Vec::new();
    let mut total = 0usize;
    // One more than the hint, so that a file of that length ends within the first chunk.
    let mut size = size_hint.saturating_add(1).clamp(MIN_CHUNK, MAX_CHUNK);
    loop {
        let mut chunk = Zeroizing::new(vec![0u8; size]);
        let n = io::read_full(r, &mut chunk)?;
        chunk.truncate(n);
        total += n;
        chunks.push(chunk);
        if n < size {
            break;
        }
        size = (size * 2).min(MAX_CHUNK);
    }
    let mut all = Zeroizing::new(Vec::with_capacity(total));
    for c in &chunks {
        all.extend_from_slice(c);
    }
    Ok(all)
}

/// The first line of `r` (a password), without its line ending (`\n` or `\r\n`), in a
/// buffer of exactly its length; a line longer than `max` bytes is cut at `max`.
pub fn first_line(r: &mut dyn Read, max: usize) -> std::io::Result<Zeroizing<Vec<u8>>> {
    let mut buf = Zeroizing::new(vec![0u8; max]);
    let mut filled = 0;
    let (end, newline) = loop {
        let want = (filled + LINE_STEP).min(max);
        if filled == want {
            break (filled, false);
        }
        let k = match r.read(&mut buf[filled..want]) {
            Ok(k) => k,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if k == 0 {
            break (filled, false);
        }
        if let Some(i) = buf[filled..filled + k].iter().position(|&b| b == b'\n') {
            break (filled + i, true);
        }
        filled += k;
    };
    let line = match (newline, buf[..end].last()) {
        (true, Some(b'\r')) => &buf[..end - 1],
        _ => &buf[..end],
    };
    Ok(Zeroizing::new(line.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most `step` bytes a call, as a pipe may.
    struct Dribble<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Dribble<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.step).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn bytes(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 131 + 7) as u8).collect()
    }

    /// Whatever the length and however the reader splits it, the result is the input in
    /// one allocation of exactly its length: nothing grew, so no copy was freed unwiped.
    #[test]
    fn read_all_returns_one_exact_allocation() {
        for len in [0, 1, 1000, MIN_CHUNK - 1, MIN_CHUNK, MIN_CHUNK + 1, 5 * MIN_CHUNK + 3] {
            let data = bytes(len);
            for (step, hint) in [(7, 0), (4096, 0), (usize::MAX, 0), (usize::MAX, len)] {
                let got = read_all(&mut Dribble { data: &data, step }, hint).unwrap();
                assert!(got[..] == data[..], "len {len}, step {step}");
                assert_eq!(got.capacity(), len, "len {len}, step {step}, hint {hint}");
            }
        }
    }

    #[test]
    fn first_line_is_exact_and_cut_where_openssl_cuts_it() {
        let cases: [(&[u8], &[u8]); 6] = [
            (b"first\r\nsecond\n", b"first"),
            (b"only\n", b"only"),
            (b"no newline", b"no newline"),
            (b"cr at the end\r", b"cr at the end\r"),
            (b"\nsecond", b""),
            (b"", b""),
        ];
        for (input, want) in cases {
            for step in [1, 3, usize::MAX] {
                let got = first_line(&mut Dribble { data: input, step }, 64).unwrap();
                assert_eq!(&got[..], want, "{input:?}, step {step}");
                assert_eq!(got.capacity(), want.len(), "{input:?}, step {step}");
            }
        }
        let long = [b'x'; 100];
        let got = first_line(&mut Dribble { data: &long, step: 9 }, 40).unwrap();
        assert_eq!(got[..], long[..40]);
    }
}
