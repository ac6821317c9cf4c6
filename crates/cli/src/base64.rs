//! Base64 (RFC 4648 section 4) as `openssl enc -a` writes and reads it: 64 characters a
//! line with a newline after each line (or one unbroken line with `-A`), and on input any
//! line breaks and blanks ignored. Streaming in both directions, so `enc -a` works on
//! inputs of any size.

use std::io::{self, Read, Write};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/// Characters a line, as OpenSSL's base64 BIO writes them.
const LINE: usize = 64;

/// Encodes to `inner` as it is written; [`Encoder::finish`] writes the last group.
#[derive(Debug)]
pub struct Encoder<W: Write> {
    inner: W,
    pending: [u8; 3],
    n: usize,
    col: usize,
    wrap: bool,
}

impl<W: Write> Encoder<W> {
    /// An encoder with 64-character lines (`wrap`) or one line.
    pub fn new(inner: W, wrap: bool) -> Self {
        Encoder { inner, pending: [0; 3], n: 0, col: 0, wrap }
    }

    fn emit(&mut self, chars: &[u8]) -> io::Result<()> {
        for &c in chars {
            self.inner.write_all(&[c])?;
            self.col += 1;
            if self.wrap && self.col == LINE {
                self.inner.write_all(b"\n")?;
                self.col = 0;
            }
        }
        Ok(())
    }

    /// Writes the last, padded group and the final newline; returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        if self.n > 0 {
            self.pending[self.n..].fill(0);
            let mut quad = quad(&self.pending);
            for q in quad.iter_mut().skip(self.n + 1) {
                *q = b'=';
            }
            self.emit(&quad)?;
        }
        if self.wrap && self.col > 0 {
            self.inner.write_all(b"\n")?;
        }
        Ok(self.inner)
    }
}

fn quad(b: &[u8; 3]) -> [u8; 4] {
    let v = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
    [18, 12, 6, 0].map(|s| ALPHABET[(v >> s & 63) as usize])
}

impl<W: Write> Write for Encoder<W> {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let len = buf.len();
        while !buf.is_empty() {
            let take = (3 - self.n).min(buf.len());
            self.pending[self.n..self.n + take].copy_from_slice(&buf[..take]);
            self.n += take;
            buf = &buf[take..];
            if self.n == 3 {
                let q = quad(&self.pending);
                self.emit(&q)?;
                self.n = 0;
            }
        }
        Ok(len)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Decodes base64 read from `inner`, skipping whitespace; stops at the first `=`.
/// Invalid input is an error, or with [`Decoder::stop_at_garbage`] the end of the data.
#[derive(Debug)]
pub struct Decoder<R: Read> {
    inner: R,
    /// Decoded bytes not yet handed out.
    out: Vec<u8>,
    out_pos: usize,
    /// Sextets of the group being assembled.
    acc: u32,
    n: usize,
    done: bool,
    /// Invalid input ends the data instead of failing.
    lenient: bool,
}

fn invalid() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "invalid base64 input")
}

impl<R: Read> Decoder<R> {
    /// A decoder over `inner`.
    pub fn new(inner: R) -> Self {
        Decoder { inner, out: Vec::new(), out_pos: 0, acc: 0, n: 0, done: false, lenient: false }
    }

    /// The same decoder, for which invalid input (a character outside the alphabet, a
    /// lone sextet at the end, data after the padding) ends the data: the whole groups
    /// before it are the output and the rest is ignored, without an error, as OpenSSL's
    /// `base64 -d` exits 0 on such input.
    pub fn stop_at_garbage(self) -> Self {
        Decoder { lenient: true, ..self }
    }

    /// Decodes the next chunk of input into `self.out`; false at the end.
    fn refill(&mut self) -> io::Result<bool> {
        match self.refill_strict() {
            Err(e) if self.lenient && e.kind() == io::ErrorKind::InvalidData => {
                // Keep what was decoded before the garbage; drop the partial group.
                self.done = true;
                self.acc = 0;
                self.n = 0;
                Ok(!self.out.is_empty())
            }
            r => r,
        }
    }

    fn refill_strict(&mut self) -> io::Result<bool> {
        let mut chunk = [0u8; 8192];
        self.out.clear();
        self.out_pos = 0;
        while self.out.is_empty() {
            if self.done {
                return Ok(false);
            }
            let k = match self.inner.read(&mut chunk) {
                Ok(k) => k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if k == 0 {
                self.finish_group()?;
                self.done = true;
                continue;
            }
            for &c in &chunk[..k] {
                if self.done {
                    if !c.is_ascii_whitespace() && c != b'=' {
                        return Err(invalid());
                    }
                    continue;
                }
                let v = match c {
                    b'A'..=b'Z' => c - b'A',
                    b'a'..=b'z' => c - b'a' + 26,
                    b'0'..=b'9' => c - b'0' + 52,
                    b'+' => 62,
                    b'/' => 63,
                    b'=' => {
                        self.finish_group()?;
                        self.done = true;
                        continue;
                    }
                    c if c.is_ascii_whitespace() => continue,
                    _ => return Err(invalid()),
                };
                self.acc = self.acc << 6 | u32::from(v);
                self.n += 1;
                if self.n == 4 {
                    self.out.extend_from_slice(&self.acc.to_be_bytes()[1..]);
                    self.acc = 0;
                    self.n = 0;
                }
            }
        }
        Ok(true)
    }

    /// Emits the bytes of a final group of 2 or 3 sextets.
    fn finish_group(&mut self) -> io::Result<()> {
        match self.n {
            0 => {}
            2 => self.out.push((self.acc >> 4) as u8),
            3 => self.out.extend_from_slice(&((self.acc >> 2) as u16).to_be_bytes()),
            _ => return Err(invalid()),
        }
        self.n = 0;
        Ok(())
    }
}

impl<R: Read> Read for Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.out_pos == self.out.len() && !self.refill()? {
            return Ok(0);
        }
        let k = buf.len().min(self.out.len() - self.out_pos);
        buf[..k].copy_from_slice(&self.out[self.out_pos..self.out_pos + k]);
        self.out_pos += k;
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(data: &[u8], wrap: bool) -> String {
        let mut e = Encoder::new(Vec::new(), wrap);
        // Written in uneven pieces: the result must not depend on them.
        for piece in data.chunks(5) {
            e.write_all(piece).unwrap();
        }
        String::from_utf8(e.finish().unwrap()).unwrap()
    }

    fn decode(text: &str) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        Decoder::new(text.as_bytes()).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn rfc4648_vectors() {
        for (plain, b64) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes(), false), b64);
            let wrapped = if b64.is_empty() { String::new() } else { format!("{b64}\n") };
            assert_eq!(encode(plain.as_bytes(), true), wrapped);
            assert_eq!(decode(b64).unwrap(), plain.as_bytes());
        }
    }

    #[test]
    fn lines_of_64_and_round_trip() {
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let text = encode(&data, true);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[..lines.len() - 1].iter().all(|l| l.len() == 64));
        assert!(text.ends_with('\n'));
        assert_eq!(decode(&text).unwrap(), data);
        assert_eq!(decode(&text.replace('\n', "\r\n  ")).unwrap(), data);
    }

    #[test]
    fn garbage_is_an_error() {
        for bad in ["Zm9v*", "Z", "Zm9vY", "Zg==x"] {
            assert_eq!(decode(bad).unwrap_err().kind(), io::ErrorKind::InvalidData, "{bad}");
        }
    }

    #[test]
    fn garbage_ends_the_data_when_lenient() {
        for (text, want) in [
            ("Zm9v*", &b"foo"[..]),
            ("Z", b""),
            ("Zm9vY", b"foo"),
            ("Zg==x", b"f"),
            ("!!!\n", b""),
            ("Zm9vYmFy\nZm9v!Zm9v", b"foobarfoo"),
            ("Zm9vY!mFy", b"foo"),
        ] {
            let mut out = Vec::new();
            Decoder::new(text.as_bytes()).stop_at_garbage().read_to_end(&mut out).unwrap();
            assert_eq!(out, want, "{text}");
        }
    }
}
