//! Reading key files and password lines into memory that is wiped when dropped, without
//! leaving unwiped copies behind.
//!
//! `Read::read_to_end` into a `Vec` grows the vector as data arrives, and each growth
//! copies the bytes into a larger allocation and frees the old one as it is: a key read
//! from a pipe leaves a trail of partial copies in freed heap memory, where a later
//! allocation or a core dump can find them, and wrapping the final vector in `Zeroizing`
//! wipes the last copy only. A `BufReader` keeps its own buffer, never wiped. Here input
//! is read into `Zeroizing` buffers that are each allocated once at their full size and
//! never grow (chunks for [`read_all`], one line buffer for [`first_line`] and
//! [`first_line_buffered`]); the result is copied into one buffer allocated at its exact
//! length. Every allocation that held the secret is wiped when dropped (`zeroize` wipes a
//! vector's spare capacity too).
//!
//! Out of reach: the kernel's page cache, and the standard library's 8 KiB buffer behind
//! `io::stdin()` for input read from stdin (a password line read from stdin passes
//! through it too: the data that follows the line is read from that same buffer).

use crate::fail::CmdResult;
use crate::io;
use std::io::{BufRead, ErrorKind, Read};
use zeroize::Zeroizing;

/// The first chunk of an input of unknown length; later chunks double, up to
/// [`MAX_CHUNK`].
const MIN_CHUNK: usize = 16 * 1024;

/// The largest chunk.
const MAX_CHUNK: usize = 1024 * 1024;

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
///
/// Reads one byte at a time, straight into a wiped buffer, so that nothing past the
/// newline is taken from `r`: when `r` is a pipe or a descriptor that also carries the
/// data (`-pass fd:3 -in /dev/fd/3`), the data starts right after the password line, as
/// with OpenSSL. A password is short; the system calls cost nothing that matters.
pub fn first_line(r: &mut dyn Read, max: usize) -> std::io::Result<Zeroizing<Vec<u8>>> {
    let mut buf = Zeroizing::new(vec![0u8; max]);
    let mut filled = 0;
    let mut newline = false;
    while filled < max {
        match r.read(&mut buf[filled..filled + 1]) {
            Ok(0) => break,
            Ok(_) if buf[filled] == b'\n' => {
                newline = true;
                break;
            }
            Ok(_) => filled += 1,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(exact_line(&buf[..filled], newline))
}

/// As [`first_line`], from a buffered reader that the caller goes on reading after the
/// line (standard input, whose data follows the password line): consumes the line and
/// its newline, and nothing after them. The reader's own buffer is out of reach (see the
/// module docs).
pub fn first_line_buffered(r: &mut dyn BufRead, max: usize) -> std::io::Result<Zeroizing<Vec<u8>>> {
    let mut buf = Zeroizing::new(vec![0u8; max]);
    let mut filled = 0;
    let mut newline = false;
    while filled < max {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            break;
        }
        let (len, nl) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (avail.len(), false),
        };
        let take = len.min(max - filled);
        buf[filled..filled + take].copy_from_slice(&avail[..take]);
        filled += take;
        // The newline is consumed with the line, unless the line was cut before it.
        let ends = nl && take == len;
        r.consume(take + usize::from(ends));
        if ends {
            newline = true;
            break;
        }
    }
    Ok(exact_line(&buf[..filled], newline))
}

/// `line` in a buffer of exactly its length, less the `\r` of a `\r\n` ending.
fn exact_line(line: &[u8], newline: bool) -> Zeroizing<Vec<u8>> {
    let line = match (newline, line.last()) {
        (true, Some(b'\r')) => &line[..line.len() - 1],
        _ => line,
    };
    Zeroizing::new(line.to_vec())
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
                for cap in [1, 4, 8192] {
                    let mut r =
                        std::io::BufReader::with_capacity(cap, Dribble { data: input, step });
                    let got = first_line_buffered(&mut r, 64).unwrap();
                    assert_eq!(&got[..], want, "{input:?}, step {step}, buffered {cap}");
                    assert_eq!(got.capacity(), want.len(), "{input:?}, step {step}");
                }
            }
        }
        let long = [b'x'; 100];
        let got = first_line(&mut Dribble { data: &long, step: 9 }, 40).unwrap();
        assert_eq!(got[..], long[..40]);
        let got = first_line_buffered(&mut &long[..], 40).unwrap();
        assert_eq!(got[..], long[..40]);
    }

    /// The data after the password line is left for whoever reads the input next.
    #[test]
    fn first_line_reads_nothing_past_the_newline() {
        let input = b"pw\r\nthe data\nmore\n";
        let mut r = Dribble { data: input, step: usize::MAX };
        assert_eq!(&first_line(&mut r, 64).unwrap()[..], b"pw");
        assert_eq!(r.data, b"the data\nmore\n");
        for cap in [1, 3, 8192] {
            let mut r = std::io::BufReader::with_capacity(cap, &input[..]);
            assert_eq!(&first_line_buffered(&mut r, 64).unwrap()[..], b"pw");
            let mut rest = Vec::new();
            r.read_to_end(&mut rest).unwrap();
            assert_eq!(rest, b"the data\nmore\n", "buffered {cap}");
        }
        // A line cut at `max` leaves its rest unread, in both.
        let mut r = Dribble { data: b"abcdef\nx", step: usize::MAX };
        assert_eq!(&first_line(&mut r, 4).unwrap()[..], b"abcd");
        assert_eq!(r.data, b"ef\nx");
        let mut r = &b"abcdef\nx"[..];
        assert_eq!(&first_line_buffered(&mut r, 4).unwrap()[..], b"abcd");
        assert_eq!(r, b"ef\nx");
    }
}
