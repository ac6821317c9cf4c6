//! The contents of one element as OpenSSL's `d2i_ASN1_TYPE` keeps them, which `openssl
//! asn1parse -strparse` lists next: a string's octets (a constructed string's segments
//! joined, X.690 section 8.21), a BIT STRING's bits without the unused-bits octet and with
//! the unused bits cleared (section 8.6), an INTEGER's magnitude, and for SEQUENCE, SET and
//! non-universal tags the whole element. OBJECT IDENTIFIER, BOOLEAN and NULL have no
//! contents to list.

use super::header::{self, Header};
use super::listing::integer_magnitude;
use super::object::valid;
use core::fmt;

/// OpenSSL's bound on constructed strings inside constructed strings
/// (`ASN1_MAX_STRING_NEST`).
const MAX_STRING_NEST: usize = 5;

/// Why [`dig`] found nothing to list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DigError {
    /// The offset is not inside the input (OpenSSL skips such an offset).
    OutOfRange,
    /// The element there does not parse.
    Malformed,
    /// The element is of a type without contents to list; its name as OpenSSL prints it.
    NoContents(&'static str),
}

impl fmt::Display for DigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DigError::OutOfRange => f.write_str("out of range"),
            DigError::Malformed => f.write_str("Error parsing structure"),
            DigError::NoContents(t) => write!(f, "Can't parse {t} type"),
        }
    }
}

/// The contents of the element at `offset` in `data` (see the module documentation);
/// offsets from 1 to `data.len() - 1` are in range, as OpenSSL's are.
pub fn dig(data: &[u8], offset: usize) -> Result<Vec<u8>, DigError> {
    if offset == 0 || offset >= data.len() {
        return Err(DigError::OutOfRange);
    }
    let p = &data[offset..];
    let h = tlen(p)?;
    let after = &p[h.header_len..];
    let whole = |h: &Header| -> Result<Vec<u8>, DigError> {
        let body = if h.indefinite { find_end(after)? } else { h.len as usize };
        Ok(p[..h.header_len + body].to_vec())
    };
    if h.class != 0 {
        return whole(&h);
    }
    let tag = h.tag;
    if matches!(tag, 16 | 17) {
        return if h.constructed { whole(&h) } else { Err(DigError::Malformed) };
    }
    let c = if h.constructed {
        if matches!(tag, 1 | 2 | 5 | 6 | 10) {
            return Err(DigError::Malformed);
        }
        let mut out = Vec::new();
        let len = if h.indefinite { after.len() } else { h.len as usize };
        collect(&after[..len], h.indefinite, 0, &mut out)?;
        out
    } else {
        after[..h.len as usize].to_vec()
    };
    match tag {
        6 if valid(&c) => Err(DigError::NoContents("OBJECT")),
        1 if c.len() == 1 => Err(DigError::NoContents("BOOLEAN")),
        5 if c.is_empty() => Err(DigError::NoContents("NULL")),
        1 | 5 | 6 => Err(DigError::Malformed),
        3 => {
            let (&unused, bits) = c.split_first().ok_or(DigError::Malformed)?;
            if unused > 7 {
                return Err(DigError::Malformed);
            }
            let mut bits = bits.to_vec();
            if let Some(last) = bits.last_mut() {
                *last &= 0xff << unused;
            }
            Ok(bits)
        }
        2 | 10 => integer_magnitude(&c).map(|(_, m)| m).ok_or(DigError::Malformed),
        30 if c.len() % 2 != 0 => Err(DigError::Malformed),
        28 if c.len() % 4 != 0 => Err(DigError::Malformed),
        _ => Ok(c),
    }
}

/// A header whose contents fit in `p` (OpenSSL's `asn1_check_tlen`).
fn tlen(p: &[u8]) -> Result<Header, DigError> {
    match header::read(p) {
        Some(h) if !h.too_long => Ok(h),
        _ => Err(DigError::Malformed),
    }
}

/// Whether `p` starts with end-of-contents octets.
fn eoc(p: &[u8]) -> bool {
    p.starts_with(&[0, 0])
}

/// The length of indefinite-length contents up to and including their end-of-contents
/// octets (OpenSSL's `asn1_find_end`).
fn find_end(p: &[u8]) -> Result<usize, DigError> {
    let mut open = 1usize;
    let mut at = 0;
    while at < p.len() {
        if eoc(&p[at..]) {
            at += 2;
            open -= 1;
            if open == 0 {
                return Ok(at);
            }
            continue;
        }
        let h = tlen(&p[at..])?;
        at += h.header_len;
        if h.indefinite {
            open += 1;
        } else {
            at += h.len as usize;
        }
    }
    Err(DigError::Malformed)
}

/// Appends the segments of constructed string contents `p` to `out` (OpenSSL's
/// `asn1_collect`): primitive segments' octets, constructed ones' segments in turn.
fn collect(p: &[u8], indefinite: bool, depth: usize, out: &mut Vec<u8>) -> Result<usize, DigError> {
    let mut at = 0;
    while at < p.len() {
        if eoc(&p[at..]) {
            return if indefinite { Ok(at + 2) } else { Err(DigError::Malformed) };
        }
        let h = tlen(&p[at..])?;
        at += h.header_len;
        if h.constructed {
            if depth >= MAX_STRING_NEST {
                return Err(DigError::Malformed);
            }
            let len = if h.indefinite { p.len() - at } else { h.len as usize };
            let used = collect(&p[at..at + len], h.indefinite, depth + 1, out)?;
            at += if h.indefinite { used } else { len };
        } else {
            out.extend_from_slice(&p[at..at + h.len as usize]);
            at += h.len as usize;
        }
    }
    if indefinite { Err(DigError::Malformed) } else { Ok(at) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_as_openssl_keeps_them() {
        // SEQUENCE { OCTET STRING { INTEGER 5 }, BIT STRING (1 unused) { 0xff }, NULL }
        let der = [0x30, 0x0b, 0x04, 0x03, 2, 1, 5, 0x03, 0x02, 1, 0xff, 0x05, 0x00];
        assert_eq!(dig(&der, 2).unwrap(), [2, 1, 5]);
        assert_eq!(dig(&der, 7).unwrap(), [0xfe]);
        assert_eq!(dig(&der, 11), Err(DigError::NoContents("NULL")));
        assert_eq!(dig(&der, 4), Ok(vec![5]));
        assert_eq!(dig(&der, 0), Err(DigError::OutOfRange));
        assert_eq!(dig(&der, der.len()), Err(DigError::OutOfRange));
        // A SEQUENCE is kept whole; at offset 1 there is no element.
        let inner = [0x04, 0x04, 0x30, 0x02, 5, 0];
        assert_eq!(dig(&inner, 2).unwrap(), [0x30, 0x02, 5, 0]);
        assert_eq!(dig(&[0x30, 0x05, 0x04, 0x09, 0], 2), Err(DigError::Malformed));
        // Constructed strings are joined, definite and indefinite.
        let ber = [0x00, 0x24, 0x80, 0x04, 0x01, b'a', 0x24, 0x03, 0x04, 0x01, b'b', 0x00, 0x00];
        assert_eq!(dig(&ber, 1).unwrap(), b"ab");
        // An indefinite SEQUENCE runs to its end-of-contents octets.
        let seq = [0x00, 0x30, 0x80, 0x30, 0x80, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0xaa];
        assert_eq!(dig(&seq, 1).unwrap(), &seq[1..11]);
        assert_eq!(dig(&seq[..10], 1), Err(DigError::Malformed));
    }
}
