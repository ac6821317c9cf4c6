//! The element-by-element listing of `openssl asn1parse` (OpenSSL 3.0's `ASN1_parse_dump`):
//! per element its offset, depth, header and contents lengths, form and tag, and for the
//! primitive universal types a value: strings and times as their octets, OBJECT
//! IDENTIFIERs named, INTEGERs and ENUMERATEDs in signed hex, BOOLEANs as a number, OCTET
//! STRINGs as text when printable and in hex otherwise. Constructed elements are listed
//! inside, indefinite lengths up to their end-of-contents octets (X.690 section 8.1.5).
//! A header that does not parse, or a length past its container, ends the listing with
//! "Error in encoding", as it ends OpenSSL's; so does nesting past 128 levels.

use super::header::{self, Header};
use super::object::{object_text, valid};
use super::{hex_dump, upper_hex};

/// OpenSSL's bound on nesting (`ASN1_PARSE_MAXDEPTH`).
const MAX_DEPTH: usize = 128;

/// How much of the contents without a printed value to dump in hex (`-dump`, `-dlimit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dump {
    /// None: OCTET STRINGs in one line of hex, other contents not at all.
    Off,
    /// All of it, in [`hex_dump`] rows.
    All,
    /// The first so many octets.
    Limit(usize),
}

/// What [`list`] made of its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listing {
    /// The lines, as OpenSSL prints them (string contents are written as their octets, so
    /// this is bytes, not text).
    pub text: Vec<u8>,
    /// Whether the whole input listed; false where OpenSSL's would fail (the text ends
    /// with the reason then).
    pub complete: bool,
}

/// Lists `der`: every element, in order, with `indent` indenting the tags by depth.
pub fn list(der: &[u8], indent: bool, dump: Dump) -> Listing {
    let mut l = Lister { buf: der, out: Vec::new(), indent, dump };
    let mut pos = 0;
    let complete = l.elements(&mut pos, der.len(), 0) != Status::Failed;
    Listing { text: l.out, complete }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Failed,
    Done,
    /// An end-of-contents element ended the run (`asn1_parse2`'s 2).
    EndOfContents,
}

struct Lister<'a> {
    buf: &'a [u8],
    out: Vec<u8>,
    indent: bool,
    dump: Dump,
}

impl Lister<'_> {
    /// Lists the elements in `length` octets from `*pos`, or up to an end-of-contents
    /// element; `*pos` ends after what was read.
    fn elements(&mut self, pos: &mut usize, mut length: usize, depth: usize) -> Status {
        if depth > MAX_DEPTH {
            self.put("BAD RECURSION DEPTH\n");
            return Status::Failed;
        }
        let end = *pos + length;
        while length > 0 {
            let start = *pos;
            let h = match header::read(&self.buf[start..start + length]) {
                Some(h) if !h.too_long => h,
                _ => {
                    self.put("Error in encoding\n");
                    return Status::Failed;
                }
            };
            // Not too long: the contents fit in `length`.
            let len = h.len as usize;
            *pos += h.header_len;
            length -= h.header_len;
            self.info(start, depth, &h);
            let used = if h.constructed {
                self.put("\n");
                let contents = *pos;
                if h.indefinite {
                    loop {
                        match self.elements(pos, end - *pos, depth + 1) {
                            Status::Failed => return Status::Failed,
                            Status::EndOfContents => break,
                            Status::Done if *pos >= end => break,
                            Status::Done => {}
                        }
                    }
                } else {
                    let stop = contents + len;
                    while *pos < stop {
                        if self.elements(pos, stop - *pos, depth + 1) == Status::Failed {
                            return Status::Failed;
                        }
                    }
                }
                *pos - contents
            } else if h.class != 0 {
                self.put("\n");
                *pos += len;
                len
            } else {
                let contents = &self.buf[*pos..*pos + len];
                self.value(contents, h.tag);
                *pos += len;
                if h.tag == 0 {
                    return Status::EndOfContents;
                }
                len
            };
            length -= used;
        }
        Status::Done
    }

    /// The element's line up to its value: offset, depth, lengths, form, tag.
    fn info(&mut self, offset: usize, depth: usize, h: &Header) {
        let form = if h.constructed { "cons: " } else { "prim: " };
        let head = if h.indefinite {
            format!("{offset:5}:d={depth:<2} hl={} l=inf  {form}", h.header_len)
        } else {
            format!("{offset:5}:d={depth:<2} hl={} l={:4} {form}", h.header_len, h.len)
        };
        let indent = if self.indent { depth } else { 0 };
        let tag = match h.class {
            header::PRIVATE => format!("priv [ {} ] ", h.tag),
            header::CONTEXT => format!("cont [ {} ]", h.tag),
            header::APPLICATION => format!("appl [ {} ]", h.tag),
            _ if h.tag > 30 => format!("<ASN1 {}>", h.tag),
            _ => TAG_NAMES[h.tag as usize].to_string(),
        };
        self.put(&format!("{head}{:indent$}{tag:<18}", ""));
    }

    /// The value of a primitive universal element and the end of its line.
    fn value(&mut self, c: &[u8], tag: u32) {
        let mut dumped = false;
        let mut bad = false;
        match tag {
            // PrintableString, T61String, IA5String, VisibleString, NumericString,
            // UTF8String, UTCTime, GeneralizedTime: the octets as they are.
            19 | 20 | 22 | 26 | 18 | 12 | 23 | 24 => {
                self.put(":");
                self.out.extend_from_slice(c);
            }
            6 => {
                if valid(c) {
                    self.put(":");
                    match object_text(c) {
                        Some(text) => self.put(&text),
                        None => {
                            self.put("<INVALID>");
                            self.put(&hex_dump(c, 0));
                        }
                    }
                } else {
                    self.put(":BAD OBJECT");
                    bad = true;
                }
            }
            1 => {
                if c.len() != 1 {
                    self.put(":BAD BOOLEAN");
                    bad = true;
                }
                if let Some(b) = c.first() {
                    self.put(&format!(":{b}"));
                }
            }
            4 if !c.is_empty() => {
                let printable = c
                    .iter()
                    .all(|&b| (b' '..=b'~').contains(&b) || matches!(b, b'\n' | b'\r' | b'\t'));
                if printable {
                    self.put(":");
                    self.out.extend_from_slice(c);
                } else if self.dump == Dump::Off {
                    self.put("[HEX DUMP]:");
                    self.put(&upper_hex(c));
                } else {
                    dumped = self.dump_rows(c);
                }
            }
            2 | 10 => match integer_magnitude(c) {
                Some((negative, magnitude)) => {
                    self.put(if negative { ":-" } else { ":" });
                    self.put(&upper_hex(&magnitude));
                }
                None => {
                    self.put(if tag == 2 { ":BAD INTEGER" } else { ":BAD ENUMERATED" });
                    bad = true;
                }
            },
            // BMPString prints nothing; OCTET STRING nothing when empty.
            30 | 4 => {}
            _ if !c.is_empty() && self.dump != Dump::Off => dumped = self.dump_rows(c),
            _ => {}
        }
        if bad {
            self.put(&format!(":[{}]", upper_hex(c)));
        }
        if !dumped {
            self.put("\n");
        }
    }

    /// `c` (up to the dump limit) in hex rows on the lines after the element's; true.
    fn dump_rows(&mut self, c: &[u8]) -> bool {
        let n = match self.dump {
            Dump::Limit(n) => n.min(c.len()),
            _ => c.len(),
        };
        self.put("\n");
        self.put(&hex_dump(&c[..n], 6));
        true
    }

    fn put(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
    }
}

/// The universal tag names OpenSSL prints (`ASN1_tag2str`), 0 to 30.
pub(crate) const TAG_NAMES: [&str; 31] = [
    "EOC",
    "BOOLEAN",
    "INTEGER",
    "BIT STRING",
    "OCTET STRING",
    "NULL",
    "OBJECT",
    "OBJECT DESCRIPTOR",
    "EXTERNAL",
    "REAL",
    "ENUMERATED",
    "<ASN1 11>",
    "UTF8STRING",
    "<ASN1 13>",
    "<ASN1 14>",
    "<ASN1 15>",
    "SEQUENCE",
    "SET",
    "NUMERICSTRING",
    "PRINTABLESTRING",
    "T61STRING",
    "VIDEOTEXSTRING",
    "IA5STRING",
    "UTCTIME",
    "GENERALIZEDTIME",
    "GRAPHICSTRING",
    "VISIBLESTRING",
    "GENERALSTRING",
    "UNIVERSALSTRING",
    "<ASN1 29>",
    "BMPSTRING",
];

/// The sign and magnitude of INTEGER or ENUMERATED contents as OpenSSL's `c2i_ibuf`
/// reads them (X.690 section 8.3: two's complement, minimal); `None` for empty contents
/// or a redundant leading octet. The magnitude keeps the contents' length less any
/// leading sign octet, so zero is one zero octet.
pub(super) fn integer_magnitude(c: &[u8]) -> Option<(bool, Vec<u8>)> {
    let (&first, rest) = c.split_first()?;
    let negative = first & 0x80 != 0;
    let padded = match (first, rest.first()) {
        (_, None) => false,
        (0x00, Some(_)) => true,
        // 0xff is padding unless the rest is all zeros (the least value of its length).
        (0xff, Some(_)) => rest.iter().any(|&b| b != 0),
        _ => false,
    };
    if padded && negative == (rest[0] & 0x80 != 0) {
        return None;
    }
    let digits = if padded { rest } else { c };
    if !negative {
        return Some((false, digits.to_vec()));
    }
    // Two's complement: invert and add one, from the least significant octet.
    let mut out = vec![0u8; digits.len()];
    let mut carry = 1u16;
    for (o, &d) in out.iter_mut().zip(digits).rev() {
        let v = u16::from(!d) + carry;
        *o = v as u8;
        carry = v >> 8;
    }
    Some((true, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(der: &[u8]) -> String {
        let l = list(der, false, Dump::Off);
        String::from_utf8(l.text).unwrap()
    }

    #[test]
    fn integers_as_openssl_signs_them() {
        let m = |c: &[u8]| integer_magnitude(c).map(|(n, v)| (n, upper_hex(&v)));
        assert_eq!(m(&[0x00]), Some((false, "00".into())));
        assert_eq!(m(&[0x00, 0x80]), Some((false, "80".into())));
        assert_eq!(m(&[0xff]), Some((true, "01".into())));
        assert_eq!(m(&[0x80]), Some((true, "80".into())));
        assert_eq!(m(&[0xff, 0x00]), Some((true, "0100".into())));
        assert_eq!(m(&[0xff, 0x01]), Some((true, "FF".into())));
        assert_eq!(m(&[0x00, 0x01]), None);
        assert_eq!(m(&[0xff, 0x80]), None);
        assert_eq!(m(&[]), None);
    }

    #[test]
    fn lines_and_failures() {
        // SEQUENCE { INTEGER 5, NULL, OID 1.2.3, [0] { BOOLEAN } }
        let der = [0x30, 0x0e, 2, 1, 5, 5, 0, 6, 2, 0x2a, 3, 0xa0, 3, 1, 1, 0xff];
        assert_eq!(
            text(&der),
            "    0:d=0  hl=2 l=  14 cons: SEQUENCE          \n\
             \x20   2:d=1  hl=2 l=   1 prim: INTEGER           :05\n\
             \x20   5:d=1  hl=2 l=   0 prim: NULL              \n\
             \x20   7:d=1  hl=2 l=   2 prim: OBJECT            :1.2.3\n\
             \x20  11:d=1  hl=2 l=   3 cons: cont [ 0 ]        \n\
             \x20  13:d=2  hl=2 l=   1 prim: BOOLEAN           :255\n"
        );
        // A child past its parent: listed up to it, then the error.
        let l = list(&[0x30, 0x03, 0x04, 0x05, 0], false, Dump::Off);
        assert!(!l.complete);
        assert!(
            String::from_utf8(l.text).unwrap().ends_with("SEQUENCE          \nError in encoding\n")
        );
        // Indefinite lengths end at their end-of-contents octets.
        assert!(text(&[0x30, 0x80, 5, 0, 0, 0]).contains("l=inf  cons: SEQUENCE"));
        assert!(
            text(&[0x30, 0x80, 5, 0, 0, 0])
                .ends_with("d=1  hl=2 l=   0 prim: EOC               \n")
        );
        // Nesting past 128 levels.
        let deep: Vec<u8> = std::iter::repeat_n([0x30, 0x80], 140).flatten().collect();
        let l = list(&deep, false, Dump::Off);
        assert!(!l.complete);
        assert!(String::from_utf8(l.text).unwrap().ends_with("BAD RECURSION DEPTH\n"));
    }
}
