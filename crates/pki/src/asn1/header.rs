//! Identifier and length octets (X.690 sections 8.1.2 and 8.1.3), read with the rules of
//! OpenSSL's `ASN1_get_object`, whose acceptance the listing must match byte for byte:
//! high tag numbers up to 2^31, long-form lengths with leading zero octets, indefinite
//! lengths on constructed encodings only. Two quirks are OpenSSL's: a header must leave at
//! least one octet after its identifier, and a long-form length at least one after
//! itself.

/// The classes of tag, as the identifier's top two bits (universal is 0).
pub(super) const APPLICATION: u8 = 0x40;
/// See [`APPLICATION`].
pub(super) const CONTEXT: u8 = 0x80;
/// See [`APPLICATION`].
pub(super) const PRIVATE: u8 = 0xc0;

/// An element's identifier and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Header {
    /// The class bits (0, 0x40, 0x80, 0xc0).
    pub class: u8,
    /// Whether the encoding is constructed.
    pub constructed: bool,
    /// The tag number.
    pub tag: u32,
    /// Whether the length is indefinite (then `len` is 0).
    pub indefinite: bool,
    /// The octets of identifier and length.
    pub header_len: usize,
    /// The contents' length as encoded.
    pub len: u64,
    /// Whether `len` runs past the end of the input (OpenSSL's "too long", still a header).
    pub too_long: bool,
}

/// The header at the start of `p`; `None` where OpenSSL's `ASN1_get_object` fails on the
/// header itself (too short, a tag or length it does not take).
pub(super) fn read(p: &[u8]) -> Option<Header> {
    let first = *p.first()?;
    let mut at = 1;
    let tag = if first & 0x1f == 0x1f {
        let mut l: u32 = 0;
        loop {
            // Each octet consumed must leave one more.
            let b = *p.get(at)?;
            at += 1;
            p.get(at)?;
            l = (l << 7) | u32::from(b & 0x7f);
            if b & 0x80 == 0 {
                break;
            }
            if l > (i32::MAX as u32 >> 7) {
                return None;
            }
        }
        l
    } else {
        p.get(at)?;
        u32::from(first & 0x1f)
    };
    let constructed = first & 0x20 != 0;
    let b = p[at];
    at += 1;
    let (indefinite, len) = if b == 0x80 {
        (true, 0)
    } else if b & 0x80 != 0 {
        let mut n = usize::from(b & 0x7f);
        // OpenSSL asks for one octet beyond the length octets.
        if p.len() - at < n + 1 {
            return None;
        }
        while n > 0 && p[at] == 0 {
            at += 1;
            n -= 1;
        }
        if n > 8 {
            return None;
        }
        let mut len: u64 = 0;
        for &x in &p[at..at + n] {
            len = (len << 8) | u64::from(x);
        }
        at += n;
        if len > i64::MAX as u64 {
            return None;
        }
        (false, len)
    } else {
        (false, u64::from(b))
    };
    if indefinite && !constructed {
        return None;
    }
    let too_long = len > (p.len() - at) as u64;
    Some(Header {
        class: first & PRIVATE,
        constructed,
        tag,
        indefinite,
        header_len: at,
        len,
        too_long,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_as_openssl_reads_them() {
        let h = read(&[0x30, 0x03, 2, 1, 5]).unwrap();
        assert_eq!(
            (h.constructed, h.tag, h.header_len, h.len, h.too_long),
            (true, 16, 2, 3, false)
        );
        // Long form with a leading zero, and the octet OpenSSL wants after it.
        let h = read(&[0x04, 0x82, 0x00, 0x01, 0xaa]).unwrap();
        assert_eq!((h.header_len, h.len), (4, 1));
        assert_eq!(read(&[0x04, 0x81, 0x00]), None);
        // High tag numbers.
        let h = read(&[0x9f, 0x81, 0x00, 0x00, 0x00]).unwrap();
        assert_eq!((h.class, h.tag, h.header_len), (CONTEXT, 128, 4));
        assert_eq!(read(&[0x1f, 0x81]), None);
        // Indefinite: constructed only.
        assert!(read(&[0x30, 0x80, 0, 0]).unwrap().indefinite);
        assert_eq!(read(&[0x04, 0x80, 0, 0]), None);
        // Nine length octets after zeros are too many; too long is a header still.
        assert_eq!(read(&[0x04, 0x89, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]), None);
        assert!(read(&[0x04, 0x05, 0]).unwrap().too_long);
        assert_eq!(read(&[0x04]), None);
        assert_eq!(read(&[]), None);
    }
}
