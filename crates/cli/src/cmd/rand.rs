//! `cryptocard rand`: random bytes from the operating system's source, as `openssl rand`.
//!
//! ```text
//! cryptocard rand [-hex | -base64] [-out F] NUM[K|M|G]
//! ```
//!
//! NUM bytes (K, M and G multiply by 1024, 1024², 1024³, as OpenSSL 3.2 and later read
//! them) from [`OsRng`] (the kernel's `getrandom`), written raw, as lowercase hex on one
//! line, or as base64 in lines of 64 characters. The bytes are made and written in 64 KiB
//! chunks, so any NUM runs in constant memory; a file is written whole or not at all.

use super::Spec;
use crate::args::Flag;
use crate::base64;
use crate::fail::{CmdResult, Fail};
use crate::hex;
use crate::io::{Mode, Output};
use cryptocard::rng::{OsRng, RandomSource};
use std::io::Write;

const SPEC: Spec = Spec {
    usage: "rand [options] NUM",
    flags: &[
        Flag::value("out", "FILE").about("Output file (default stdout)"),
        Flag::switch("hex").about("Hex encode the output"),
        Flag::switch("base64").about("Base64 encode the output"),
    ],
    notes: "NUM: bytes, with an optional suffix K, M or G (powers of 1024)\n",
    more: None,
};

const CHUNK: usize = 64 * 1024;

/// Runs `rand`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse(argv)? else { return Ok(()) };
    let count = match a.positional.as_slice() {
        [n] => parse_count(n)?,
        [] => return Err(Fail::msg("the number of bytes is missing (rand NUM)")),
        [_, extra, ..] => return Err(Fail::msg(format!("unexpected argument '{extra}'"))),
    };
    if a.has("hex") && a.has("base64") {
        return Err(Fail::msg("-hex and -base64: choose one"));
    }
    let mut out = Output::create(a.value("out"), Mode::Public)?;
    let mut buf = vec![0u8; CHUNK];
    let fill = |buf: &mut [u8]| OsRng.fill_bytes(buf).map_err(|e| Fail::lib("rand", e));
    if a.has("base64") {
        let mut enc = base64::Encoder::new(&mut out, true);
        for len in chunks(count) {
            fill(&mut buf[..len])?;
            enc.write_all(&buf[..len]).map_err(write_error)?;
        }
        enc.finish().map_err(write_error)?;
    } else {
        for len in chunks(count) {
            fill(&mut buf[..len])?;
            match a.has("hex") {
                true => out.put(hex::lower(&buf[..len]).as_bytes())?,
                false => out.put(&buf[..len])?,
            }
        }
        if a.has("hex") {
            out.put(b"\n")?;
        }
    }
    out.commit()
}

/// The byte count: a positive decimal number, optionally times K, M or G (1024^1..3).
fn parse_count(arg: &str) -> CmdResult<u64> {
    let bad = || Fail::msg(format!("'{arg}' is not a positive number of bytes"));
    let (digits, scale) = match arg.as_bytes().last().map(u8::to_ascii_uppercase) {
        Some(b'K') => (&arg[..arg.len() - 1], 1u64 << 10),
        Some(b'M') => (&arg[..arg.len() - 1], 1 << 20),
        Some(b'G') => (&arg[..arg.len() - 1], 1 << 30),
        _ => (arg, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n: u64 = digits.parse().map_err(|_| bad())?;
    match n.checked_mul(scale) {
        Some(0) | None => Err(bad()),
        Some(count) => Ok(count),
    }
}

/// `count` split into chunk lengths.
fn chunks(count: u64) -> impl Iterator<Item = usize> {
    let full = count / CHUNK as u64;
    let rest = (count % CHUNK as u64) as usize;
    (0..full).map(|_| CHUNK).chain((rest > 0).then_some(rest))
}

fn write_error(e: std::io::Error) -> Fail {
    Fail::msg(format!("write error: {}", crate::io::reason(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_suffixes() {
        assert_eq!(parse_count("16").unwrap(), 16);
        assert_eq!(parse_count("2k").unwrap(), 2048);
        assert_eq!(parse_count("3M").unwrap(), 3 << 20);
        assert_eq!(parse_count("1G").unwrap(), 1 << 30);
        for bad in ["0", "", "k", "-1", "+5", "1.5", "12x", "99999999999999999999", "99999999999G"]
        {
            assert!(parse_count(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn chunking_covers_the_count() {
        for count in [1u64, 65535, 65536, 65537, 3 * 65536 + 7] {
            let lens: Vec<usize> = chunks(count).collect();
            assert_eq!(lens.iter().map(|&l| l as u64).sum::<u64>(), count);
            assert!(lens.iter().all(|&l| (1..=CHUNK).contains(&l)));
        }
    }
}
