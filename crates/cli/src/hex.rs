//! Hexadecimal in the shapes OpenSSL prints and reads: plain lower case (`dgst`), upper
//! case (`mac`, `enc -P`), colon-separated (`dgst -c`, the `-text` dumps), and the
//! fixed-length key and IV arguments of `enc -K/-iv/-S`.

use std::fmt::Write;

/// Lower-case hex digits.
pub fn lower(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 * bytes.len());
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Upper-case hex digits.
pub fn upper(bytes: &[u8]) -> String {
    lower(bytes).to_ascii_uppercase()
}

/// Lower-case hex bytes joined by colons: `0a:1b:2c`.
pub fn colons(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// Parses an even number of hex digits (either case). Errors name the problem.
pub fn decode(s: &str) -> Result<Vec<u8>, &'static str> {
    let digits = s.as_bytes();
    if !digits.len().is_multiple_of(2) {
        return Err("odd number of hex digits");
    }
    digits.chunks(2).map(|p| Ok(nibble(p[0])? << 4 | nibble(p[1])?)).collect()
}

fn nibble(c: u8) -> Result<u8, &'static str> {
    (c as char).to_digit(16).map(|d| d as u8).ok_or("non-hex digit")
}

/// What [`fixed`] had to do to fit the digits to the length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Exactly the right number of digits.
    Exact,
    /// Too few: zero bytes were appended.
    Padded,
    /// Too many: the excess was dropped.
    Truncated,
}

/// Parses a key, IV or salt argument into exactly `len` bytes as `openssl enc` does: hex
/// digits fill bytes from the left (an odd last digit is the high half of its byte),
/// missing bytes are zero and excess digits are ignored (unchecked, as OpenSSL's
/// `set_hex` leaves them), and [`Fit`] says which happened so the caller can warn as
/// OpenSSL does. Errors: a character that is not a hex digit.
pub fn fixed(s: &str, len: usize) -> Result<(Vec<u8>, Fit), &'static str> {
    let mut out = vec![0u8; len];
    let digits = s.as_bytes();
    for (i, &c) in digits.iter().enumerate().take(2 * len) {
        let d = nibble(c)?;
        out[i / 2] |= if i % 2 == 0 { d << 4 } else { d };
    }
    let fit = match digits.len().cmp(&(2 * len)) {
        std::cmp::Ordering::Equal => Fit::Exact,
        std::cmp::Ordering::Less => Fit::Padded,
        std::cmp::Ordering::Greater => Fit::Truncated,
    };
    Ok((out, fit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_shapes() {
        let b = [0x0a, 0xbc, 0xff];
        assert_eq!(lower(&b), "0abcff");
        assert_eq!(upper(&b), "0ABCFF");
        assert_eq!(colons(&b), "0a:bc:ff");
        assert_eq!(decode("0AbcFF").unwrap(), b);
        assert_eq!(decode("").unwrap(), b"");
        assert!(decode("abc").is_err());
        assert!(decode("zz").is_err());
    }

    #[test]
    fn fixed_length_like_openssl() {
        assert_eq!(fixed("0011", 2).unwrap(), (vec![0x00, 0x11], Fit::Exact));
        assert_eq!(fixed("abc", 2).unwrap(), (vec![0xab, 0xc0], Fit::Padded));
        assert_eq!(fixed("00112233", 2).unwrap(), (vec![0x00, 0x11], Fit::Truncated));
        assert!(fixed("0g", 1).is_err());
        // Digits past the length are ignored unchecked, as in OpenSSL.
        assert_eq!(fixed("0000zz", 2).unwrap().1, Fit::Truncated);
    }
}
