//! DER from OpenSSL's ASN.1 generator strings (`ASN1_generate_nconf(3)`): what
//! `openssl asn1parse -genstr`/`-genconf` writes and what an extension given as
//! `OID = ASN1:...` in a configuration carries.
//!
//! A string is modifiers, then one type with its value, separated by commas:
//! `[IMPLICIT:N[C|A|P|U],][EXPLICIT:N...,][SEQWRAP|SETWRAP|OCTWRAP|BITWRAP,]
//! [FORMAT:ASCII|UTF8|HEX|BITLIST,]TYPE[:value]`. The value is the rest of the string,
//! commas and spaces included. Types: `BOOL`, `NULL`, `INT`, `ENUM`, `OID` (a name or
//! dotted decimal), `UTCTIME`, `GENTIME`, `OCT`, `BITSTR` (text, or `HEX`, or `BITLIST`
//! bit numbers), the string types (`UTF8`, `PRINTABLE`, `IA5`, `T61`, `BMP`, `UNIV`,
//! `VISIBLE`, `GENSTR`, `NUMERIC`; `ASCII` values are Latin-1, `UTF8` values Unicode),
//! and `SEQUENCE`/`SET`, whose value names a configuration section whose values are
//! generated in turn (a SET's elements sorted, as DER wants). As in OpenSSL: at most 20
//! explicit tags and wrappers, sections nested at most 50 deep, an IMPLICIT tag that meets
//! a wrapper tags the wrapper. Not offered: universal-class tags (`EXPLICIT:3U`,
//! `IMPLICIT:2U`) other than an IMPLICIT SEQUENCE or SET (16U, 17U): OpenSSL reads its
//! result back as the type such a tag names, which mangles or refuses most.

use super::object::object_by_name;
use crate::conf::Conf;
use crate::{Error, Result};
use const_oid::ObjectIdentifier;

/// The most explicit tags and wrappers one string may carry (`ASN1_FLAG_EXP_MAX`).
const MAX_EXPLICIT: usize = 20;
/// How deep SEQUENCE and SET sections may nest (`ASN1_GEN_SEQ_MAX_DEPTH`).
const MAX_DEPTH: usize = 50;
/// The most elements one string may generate (OpenSSL has no bound: sections that name
/// each other twice over would double the work at every level).
const MAX_ELEMENTS: usize = 1 << 16;
/// The longest DER generated, and so the most copied at each of the bounded levels.
const MAX_OUTPUT: usize = 1 << 20;

/// DER for the generator string `spec`; `conf` holds the sections SEQUENCE and SET name.
/// Work is bounded: at most 65,536 elements and 1 MiB of DER.
pub fn generate(spec: &str, conf: Option<&Conf>) -> Result<Vec<u8>> {
    let mut elements = 0;
    generate_at(spec, conf, 0, &mut elements)
}

/// Fails once `len` octets would pass [`MAX_OUTPUT`].
fn within(len: usize) -> Result<()> {
    match len <= MAX_OUTPUT {
        true => Ok(()),
        false => Err(bad(format!("a structure over {MAX_OUTPUT} octets"))),
    }
}

const UNIVERSAL: u8 = 0x00;
const APPLICATION: u8 = 0x40;
const CONTEXT: u8 = 0x80;
const PRIVATE: u8 = 0xc0;

/// A tag of the generator's table: a type (its universal tag number) or a modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    Type(u32),
    Implicit,
    Explicit,
    SeqWrap,
    SetWrap,
    OctWrap,
    BitWrap,
    Format,
}

const BOOLEAN: u32 = 1;
const INTEGER: u32 = 2;
const BIT_STRING: u32 = 3;
const OCTET_STRING: u32 = 4;
const NULL: u32 = 5;
const OBJECT: u32 = 6;
const ENUMERATED: u32 = 10;
const UTF8: u32 = 12;
const SEQUENCE: u32 = 16;
const SET: u32 = 17;
const NUMERIC: u32 = 18;
const PRINTABLE: u32 = 19;
const T61: u32 = 20;
const IA5: u32 = 22;
const UTC_TIME: u32 = 23;
const GENERALIZED_TIME: u32 = 24;
const VISIBLE: u32 = 26;
const GENERAL: u32 = 27;
const UNIVERSAL_STRING: u32 = 28;
const BMP: u32 = 30;

/// OpenSSL's names (`asn1_str2tag`), matched without regard to case.
const WORDS: &[(&str, Word)] = &[
    ("BOOL", Word::Type(BOOLEAN)),
    ("BOOLEAN", Word::Type(BOOLEAN)),
    ("NULL", Word::Type(NULL)),
    ("INT", Word::Type(INTEGER)),
    ("INTEGER", Word::Type(INTEGER)),
    ("ENUM", Word::Type(ENUMERATED)),
    ("ENUMERATED", Word::Type(ENUMERATED)),
    ("OID", Word::Type(OBJECT)),
    ("OBJECT", Word::Type(OBJECT)),
    ("UTCTIME", Word::Type(UTC_TIME)),
    ("UTC", Word::Type(UTC_TIME)),
    ("GENERALIZEDTIME", Word::Type(GENERALIZED_TIME)),
    ("GENTIME", Word::Type(GENERALIZED_TIME)),
    ("OCT", Word::Type(OCTET_STRING)),
    ("OCTETSTRING", Word::Type(OCTET_STRING)),
    ("BITSTR", Word::Type(BIT_STRING)),
    ("BITSTRING", Word::Type(BIT_STRING)),
    ("UNIVERSALSTRING", Word::Type(UNIVERSAL_STRING)),
    ("UNIV", Word::Type(UNIVERSAL_STRING)),
    ("IA5", Word::Type(IA5)),
    ("IA5STRING", Word::Type(IA5)),
    ("UTF8", Word::Type(UTF8)),
    ("UTF8String", Word::Type(UTF8)),
    ("BMP", Word::Type(BMP)),
    ("BMPSTRING", Word::Type(BMP)),
    ("VISIBLESTRING", Word::Type(VISIBLE)),
    ("VISIBLE", Word::Type(VISIBLE)),
    ("PRINTABLESTRING", Word::Type(PRINTABLE)),
    ("PRINTABLE", Word::Type(PRINTABLE)),
    ("T61", Word::Type(T61)),
    ("T61STRING", Word::Type(T61)),
    ("TELETEXSTRING", Word::Type(T61)),
    ("GeneralString", Word::Type(GENERAL)),
    ("GENSTR", Word::Type(GENERAL)),
    ("NUMERIC", Word::Type(NUMERIC)),
    ("NUMERICSTRING", Word::Type(NUMERIC)),
    ("SEQUENCE", Word::Type(SEQUENCE)),
    ("SEQ", Word::Type(SEQUENCE)),
    ("SET", Word::Type(SET)),
    ("EXP", Word::Explicit),
    ("EXPLICIT", Word::Explicit),
    ("IMP", Word::Implicit),
    ("IMPLICIT", Word::Implicit),
    ("OCTWRAP", Word::OctWrap),
    ("SEQWRAP", Word::SeqWrap),
    ("SETWRAP", Word::SetWrap),
    ("BITWRAP", Word::BitWrap),
    ("FORM", Word::Format),
    ("FORMAT", Word::Format),
];

/// How a value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Ascii,
    Utf8,
    Hex,
    Bitlist,
}

/// An explicit tag or wrapper, outermost first: its tag, class, whether constructed, and
/// whether a zero octet (a BIT STRING's unused bits) comes before the content.
#[derive(Clone, Copy, Debug)]
struct Outer {
    tag: u32,
    class: u8,
    constructed: bool,
    pad: bool,
}

fn bad(what: impl Into<String>) -> Error {
    Error::Malformed(what.into())
}

fn generate_at(
    spec: &str,
    conf: Option<&Conf>,
    depth: usize,
    elements: &mut usize,
) -> Result<Vec<u8>> {
    *elements += 1;
    if *elements > MAX_ELEMENTS {
        return Err(bad(format!("more than {MAX_ELEMENTS} elements")));
    }
    let mut implicit: Option<(u32, u8)> = None;
    let mut outer: Vec<Outer> = Vec::new();
    let mut format = Format::Ascii;
    let mut typed: Option<(u32, Option<&str>)> = None;
    // The elements between commas, spaces around them trimmed (`CONF_parse_list`); the
    // type's value is the rest of the string after its colon.
    let mut at = 0;
    while at <= spec.len() {
        let end = spec[at..].find(',').map_or(spec.len(), |i| at + i);
        let raw = &spec[at..end];
        let lead = raw.len() - raw.trim_start().len();
        let elem_start = at + lead;
        let elem = raw.trim();
        at = end + 1;
        if elem.is_empty() {
            return Err(bad("an empty element in the generator string"));
        }
        let (name, value_at) = match elem.find(':') {
            Some(i) => (&elem[..i], Some(elem_start + i + 1)),
            None => (elem, None),
        };
        let word = WORDS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, w)| *w)
            .ok_or_else(|| bad(format!("unknown tag: {name}")))?;
        let value = value_at.map(|i| &spec[i..]);
        // The element's own value (a modifier's), up to the comma.
        let own = value_at.map(|i| &spec[i..elem_start + elem.len()]);
        match word {
            Word::Type(t) => {
                if value.is_none() && end < spec.len()
                    || value.is_none() && raw.trim_end().len() < raw.len()
                {
                    return Err(bad(format!("missing value for {name}")));
                }
                typed = Some((t, value));
                break;
            }
            Word::Implicit => {
                if implicit.is_some() {
                    return Err(bad("illegal nested tagging: IMPLICIT twice"));
                }
                let (tag, class) = tagging(own)?;
                // OpenSSL reads its result back as the universal type such a tag names,
                // with results of its own for most; only SEQUENCE and SET are offered.
                if class == UNIVERSAL && tag != SEQUENCE && tag != SET {
                    return Err(bad("an IMPLICIT universal tag other than 16 or 17"));
                }
                implicit = Some((tag, class));
            }
            Word::Explicit => {
                let (tag, class) = tagging(own)?;
                if class == UNIVERSAL {
                    return Err(bad("an EXPLICIT universal tag (use SEQWRAP or SETWRAP)"));
                }
                push_outer(
                    &mut outer,
                    &mut implicit,
                    Outer { tag, class, constructed: true, pad: false },
                    false,
                )?;
            }
            Word::SeqWrap => {
                push_outer(&mut outer, &mut implicit, universal(SEQUENCE, true, false), true)?
            }
            Word::SetWrap => {
                push_outer(&mut outer, &mut implicit, universal(SET, true, false), true)?
            }
            Word::BitWrap => {
                push_outer(&mut outer, &mut implicit, universal(BIT_STRING, false, true), true)?
            }
            Word::OctWrap => {
                push_outer(&mut outer, &mut implicit, universal(OCTET_STRING, false, false), true)?
            }
            Word::Format => {
                let v = own.ok_or_else(|| bad("unknown format"))?;
                format = if v.starts_with("ASCII") {
                    Format::Ascii
                } else if v.starts_with("UTF8") {
                    Format::Utf8
                } else if v.starts_with("HEX") {
                    Format::Hex
                } else if v.starts_with("BITLIST") {
                    Format::Bitlist
                } else {
                    return Err(bad(format!("unknown format {v}")));
                };
            }
        }
    }
    let (utype, value) = typed.ok_or_else(|| bad("no type in the generator string"))?;
    let base = if utype == SEQUENCE || utype == SET {
        let conf = conf.ok_or_else(|| bad("a SEQUENCE or SET needs a configuration"))?;
        if depth >= MAX_DEPTH {
            return Err(bad("SEQUENCE and SET sections nested too deep"));
        }
        let mut items = Vec::new();
        let mut total = 0;
        if let Some(section) = value {
            let lines =
                conf.section(section).ok_or_else(|| bad(format!("no section {section}")))?;
            for (_, v) in lines {
                let item = generate_at(v, Some(conf), depth + 1, elements)?;
                total += item.len();
                within(total)?;
                items.push(item);
            }
        }
        if utype == SET {
            items.sort();
        }
        tlv(utype, UNIVERSAL, true, &items.concat())
    } else {
        primitive(utype, value.unwrap_or(""), format)?
    };
    if implicit.is_none() && outer.is_empty() {
        return Ok(base);
    }
    let mut der = match implicit {
        None => base,
        Some((tag, class)) => {
            let (constructed, content) = split(&base);
            let constructed =
                constructed || (class == UNIVERSAL && (tag == SEQUENCE || tag == SET));
            tlv(tag, class, constructed, content)
        }
    };
    for o in outer.iter().rev() {
        within(der.len() + 8)?;
        let content = if o.pad { [&[0u8][..], &der].concat() } else { der };
        der = tlv(o.tag, o.class, o.constructed, &content);
    }
    Ok(der)
}

fn universal(tag: u32, constructed: bool, pad: bool) -> Outer {
    Outer { tag, class: UNIVERSAL, constructed, pad }
}

/// Adds an explicit tag or wrapper (`append_exp`): a pending IMPLICIT tag becomes the
/// wrapper's tag where `implicit_ok`, and is refused before an EXPLICIT one.
fn push_outer(
    outer: &mut Vec<Outer>,
    implicit: &mut Option<(u32, u8)>,
    mut o: Outer,
    implicit_ok: bool,
) -> Result<()> {
    if implicit.is_some() && !implicit_ok {
        return Err(bad("illegal implicit tag: IMPLICIT before EXPLICIT"));
    }
    if outer.len() == MAX_EXPLICIT {
        return Err(bad(format!("more than {MAX_EXPLICIT} explicit tags")));
    }
    if let Some((tag, class)) = implicit.take() {
        if class == UNIVERSAL && !o.constructed {
            return Err(bad("a universal IMPLICIT tag on an OCTWRAP or BITWRAP"));
        }
        o.tag = tag;
        o.class = class;
    }
    outer.push(o);
    Ok(())
}

/// A tag given as `N` and an optional class letter (`parse_tagging`): `C`ontext (the
/// default), `A`pplication, `P`rivate, `U`niversal.
fn tagging(value: Option<&str>) -> Result<(u32, u8)> {
    let v = value.ok_or_else(|| bad("a tag number is missing"))?;
    let digits = v.bytes().take_while(u8::is_ascii_digit).count();
    let tag = if digits == 0 {
        0
    } else {
        v[..digits].parse::<u32>().map_err(|_| bad(format!("invalid tag {v}")))?
    };
    let class = match &v.as_bytes()[digits..] {
        [] => CONTEXT,
        [b'U', ..] => UNIVERSAL,
        [b'A', ..] => APPLICATION,
        [b'P', ..] => PRIVATE,
        [b'C', ..] => CONTEXT,
        _ => return Err(bad(format!("invalid modifier in tag {v}"))),
    };
    Ok((tag, class))
}

/// Whether the element `der` starts is constructed, and its contents.
fn split(der: &[u8]) -> (bool, &[u8]) {
    let constructed = der[0] & 0x20 != 0;
    let mut i = 1;
    if der[0] & 0x1f == 0x1f {
        while der[i] & 0x80 != 0 {
            i += 1;
        }
        i += 1;
    }
    let len_octets = if der[i] & 0x80 != 0 { 1 + usize::from(der[i] & 0x7f) } else { 1 };
    (constructed, &der[i + len_octets..])
}

/// An element: identifier octets (high tag numbers in base 128), definite length, contents.
fn tlv(tag: u32, class: u8, constructed: bool, content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + 8);
    let first = class | if constructed { 0x20 } else { 0 };
    if tag < 31 {
        out.push(first | tag as u8);
    } else {
        out.push(first | 0x1f);
        let mut groups = Vec::new();
        let mut t = tag;
        loop {
            groups.push((t & 0x7f) as u8);
            t >>= 7;
            if t == 0 {
                break;
            }
        }
        for (i, g) in groups.iter().rev().enumerate() {
            out.push(if i + 1 < groups.len() { g | 0x80 } else { *g });
        }
    }
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(content);
    out
}

/// A primitive of type `utype` from `value` (`asn1_str2type`).
fn primitive(utype: u32, value: &str, format: Format) -> Result<Vec<u8>> {
    let ascii_only = |what: &str| match format {
        Format::Ascii => Ok(()),
        _ => Err(bad(format!("{what} values must be in the ASCII format"))),
    };
    let content = match utype {
        NULL if value.is_empty() => Vec::new(),
        NULL => return Err(bad("a NULL takes no value")),
        BOOLEAN => {
            ascii_only("BOOLEAN")?;
            match value {
                "TRUE" | "true" | "Y" | "y" | "YES" | "yes" => vec![0xff],
                "FALSE" | "false" | "N" | "n" | "NO" | "no" => vec![0],
                _ => return Err(bad(format!("illegal boolean: {value}"))),
            }
        }
        INTEGER | ENUMERATED => {
            ascii_only("INTEGER")?;
            integer(value)?
        }
        OBJECT => {
            ascii_only("OBJECT")?;
            let oid = object_by_name(value)
                .or_else(|| ObjectIdentifier::new(value).ok())
                .ok_or_else(|| bad(format!("illegal object: {value}")))?;
            oid.as_bytes().to_vec()
        }
        UTC_TIME | GENERALIZED_TIME => {
            ascii_only("time")?;
            if !time_ok(value, utype == GENERALIZED_TIME) {
                return Err(bad(format!("illegal time value: {value}")));
            }
            value.as_bytes().to_vec()
        }
        OCTET_STRING | BIT_STRING => {
            let (unused, bytes) = match format {
                Format::Hex => (0, hex(value)?),
                Format::Ascii => (0, value.as_bytes().to_vec()),
                Format::Bitlist if utype == BIT_STRING => bit_list(value)?,
                _ => return Err(bad("illegal bit string format")),
            };
            if utype == BIT_STRING { [&[unused][..], &bytes].concat() } else { bytes }
        }
        _ => text(utype, value, format)?,
    };
    Ok(tlv(utype, UNIVERSAL, false, &content))
}

/// `s2i_ASN1_INTEGER`: decimal or `0x` hex, a leading `-` before or after the `0x`; the
/// minimal two's complement.
fn integer(value: &str) -> Result<Vec<u8>> {
    let fail = || bad(format!("illegal integer: {value}"));
    // A `-` before the `0x`, or one after it (which OpenSSL's BN_hex2bn and BN_dec2bn
    // read themselves): either makes the number negative.
    let (minus, v) = match value.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, value),
    };
    let (hex, v) = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(rest) => (true, rest),
        None => (false, v),
    };
    let (inner_minus, v) = match v.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, v),
    };
    let negative = minus || inner_minus;
    let radix = if hex { 16 } else { 10 };
    if v.is_empty() || !v.chars().all(|c| c.is_digit(radix)) {
        return Err(fail());
    }
    // The magnitude, big-endian, by repeated multiply-add.
    let mut mag: Vec<u8> = vec![0];
    for c in v.chars() {
        let mut carry = c.to_digit(radix).unwrap_or(0);
        for b in mag.iter_mut().rev() {
            let x = u32::from(*b) * radix + carry;
            *b = (x & 0xff) as u8;
            carry = x >> 8;
        }
        while carry > 0 {
            mag.insert(0, (carry & 0xff) as u8);
            carry >>= 8;
        }
        if mag.len() > 1 << 16 {
            return Err(fail());
        }
    }
    let start = mag.iter().position(|&b| b != 0).unwrap_or(mag.len() - 1);
    let mag = &mag[start..];
    let zero = mag.iter().all(|&b| b == 0);
    if !negative || zero {
        return Ok(if mag[0] & 0x80 != 0 { [&[0u8][..], mag].concat() } else { mag.to_vec() });
    }
    // Two's complement of the magnitude, then the fewest octets that keep the sign.
    let mut out: Vec<u8> = mag.iter().map(|b| !b).collect();
    for b in out.iter_mut().rev() {
        let (v, carry) = b.overflowing_add(1);
        *b = v;
        if !carry {
            break;
        }
    }
    if out[0] & 0x80 == 0 {
        out.insert(0, 0xff);
    }
    while out.len() > 1 && out[0] == 0xff && out[1] & 0x80 != 0 {
        out.remove(0);
    }
    Ok(out)
}

/// `OPENSSL_hexstr2buf`: pairs of hex digits, colons between pairs allowed.
fn hex(value: &str) -> Result<Vec<u8>> {
    let fail = || bad(format!("illegal hex: {value}"));
    let d = |c: u8| (c as char).to_digit(16).ok_or_else(fail);
    let mut out = Vec::new();
    let mut bytes = value.bytes();
    while let Some(h) = bytes.next() {
        if h == b':' {
            continue;
        }
        let l = bytes.next().ok_or_else(fail)?;
        out.push((d(h)? << 4 | d(l)?) as u8);
    }
    if out.is_empty() {
        return Err(fail());
    }
    Ok(out)
}

/// A BIT STRING of the comma-separated bit numbers set (as a named bit list: trailing
/// zero bits dropped): its unused-bit count and octets.
fn bit_list(value: &str) -> Result<(u8, Vec<u8>)> {
    let mut bytes: Vec<u8> = Vec::new();
    for item in value.split(',') {
        let item = item.trim();
        let bit: usize = item.parse().map_err(|_| bad(format!("illegal bit number: {item}")))?;
        if bit >= 1 << 20 {
            return Err(bad(format!("bit number {bit} too large")));
        }
        if bytes.len() <= bit / 8 {
            bytes.resize(bit / 8 + 1, 0);
        }
        bytes[bit / 8] |= 0x80 >> (bit % 8);
    }
    let unused = bytes.last().map_or(0, |b| b.trailing_zeros().min(7) as u8);
    Ok((unused, bytes))
}

/// A string type's contents (`ASN1_mbstring_copy` to the one type): the value's
/// characters (Latin-1 octets in the ASCII format, Unicode in UTF8), checked against the
/// type's alphabet, in its encoding.
fn text(utype: u32, value: &str, format: Format) -> Result<Vec<u8>> {
    let chars: Vec<u32> = match format {
        Format::Ascii => value.bytes().map(u32::from).collect(),
        Format::Utf8 => value.chars().map(u32::from).collect(),
        _ => return Err(bad("illegal format for a string")),
    };
    let illegal = || bad(format!("illegal characters for this string type: {value}"));
    let printable = |c: u32| {
        char::from_u32(c).is_some_and(|c| c.is_ascii_alphanumeric() || " '()+,-./:=?".contains(c))
    };
    let utf8 = |chars: &[u32]| -> Result<Vec<u8>> {
        chars
            .iter()
            .map(|&c| char::from_u32(c).map(|c| c.to_string().into_bytes()).ok_or_else(illegal))
            .collect::<Result<Vec<_>>>()
            .map(|v| v.concat())
    };
    Ok(match utype {
        NUMERIC | PRINTABLE | IA5 | T61 => {
            let ok = |c: u32| match utype {
                NUMERIC => c == u32::from(b' ') || (u32::from(b'0')..=u32::from(b'9')).contains(&c),
                PRINTABLE => printable(c),
                IA5 => c < 0x80,
                _ => c < 0x100,
            };
            if !chars.iter().all(|&c| ok(c)) {
                return Err(illegal());
            }
            chars.iter().map(|&c| c as u8).collect()
        }
        BMP => {
            if chars.iter().any(|&c| c > 0xffff) {
                return Err(illegal());
            }
            chars.iter().flat_map(|&c| (c as u16).to_be_bytes()).collect()
        }
        UNIVERSAL_STRING => chars.iter().flat_map(|c| c.to_be_bytes()).collect(),
        // UTF8String, and VisibleString and GeneralString, which OpenSSL writes as UTF-8.
        UTF8 | VISIBLE | GENERAL => utf8(&chars)?,
        _ => return Err(bad("unsupported type")),
    })
}

/// Whether `v` is a time OpenSSL's `ASN1_TIME_check` takes: `YYMMDDHHMM[SS]` (UTCTime) or
/// `YYYYMMDDHHMM[SS[.f...]]` (GeneralizedTime), then `Z` or `+hhmm`/`-hhmm`, each field
/// in range.
fn time_ok(v: &str, general: bool) -> bool {
    let b = v.as_bytes();
    let year_len = if general { 4 } else { 2 };
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    let num = |s: &[u8]| s.iter().fold(0u32, |a, &d| a * 10 + u32::from(d - b'0'));
    if b.len() < year_len + 8 || !digits(&b[..year_len + 8]) {
        return false;
    }
    let year = num(&b[..year_len]);
    let (month, day, hour, minute) = (
        num(&b[year_len..year_len + 2]),
        num(&b[year_len + 2..year_len + 4]),
        num(&b[year_len + 4..year_len + 6]),
        num(&b[year_len + 6..year_len + 8]),
    );
    let mut rest = &b[year_len + 8..];
    if rest.len() >= 2 && digits(&rest[..2]) {
        if num(&rest[..2]) > 59 {
            return false;
        }
        rest = &rest[2..];
        if general && rest.first() == Some(&b'.') {
            let n = rest[1..].iter().take_while(|d| d.is_ascii_digit()).count();
            if n == 0 {
                return false;
            }
            rest = &rest[1 + n..];
        }
    }
    let full_year = if general {
        year
    } else if year < 50 {
        2000 + year
    } else {
        1900 + year
    };
    let Some(days) = super::days_in_month(full_year, month) else { return false };
    if day < 1 || day > days || hour > 23 || minute > 59 {
        return false;
    }
    match rest {
        [b'Z'] => true,
        [b'+' | b'-', h1, h2, m1, m2] => {
            digits(&[*h1, *h2, *m1, *m2]) && num(&[*h1, *h2]) <= 12 && num(&[*m1, *m2]) <= 59
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strings and the DER OpenSSL 3.0.19's `asn1parse -genstr STR -out F` wrote for
    /// them (`None`: it refused the string).
    const OPENSSL: &[(&str, Option<&str>)] = &[
        ("VISIBLE:abc", Some("1a03616263")),
        ("GENSTR:abc", Some("1b03616263")),
        ("T61:abc", Some("1403616263")),
        ("UTF8:caf\u{e9}", Some("0c07636166c383c2a9")),
        ("FORMAT:UTF8,UTF8:caf\u{e9}", Some("0c05636166c3a9")),
        ("BMP:ab", Some("1e0400610062")),
        ("UNIV:a", Some("1c0400000061")),
        ("PRINTABLE:a*b", None),
        ("IA5:abc", Some("1603616263")),
        ("NUMERIC:12 3", Some("120431322033")),
        ("BOOL:yes", Some("0101ff")),
        ("INT:-129", Some("0202ff7f")),
        ("INT:0x-1", Some("0201ff")),
        ("INT:-0x10", Some("0201f0")),
        ("ENUM:5", Some("0a0105")),
        ("OID:sha256", Some("0609608648016503040201")),
        ("OID:1.2.3", Some("06022a03")),
        ("UTC:230101000000Z", Some("170d3233303130313030303030305a")),
        ("GENTIME:20230101000000.5Z", Some("181132303233303130313030303030302e355a")),
        ("OCT:abc", Some("0403616263")),
        ("FORMAT:HEX,OCT:0a:bb", Some("04020abb")),
        ("FORMAT:HEX,BITSTR:0aff", Some("0303000aff")),
        ("FORMAT:BITLIST,BITSTR:1,5,9", Some("0303064440")),
        ("BITSTR:ab", Some("0303006162")),
        ("EXPLICIT:0,UTF8:a,b", Some("a0050c03612c62")),
        ("IMPLICIT:3A,OCT:x", Some("430178")),
        ("EXP:2P,IMP:5,INT:1", Some("e203850101")),
        ("SEQWRAP,INT:1", Some("3003020101")),
        ("IMP:1,SEQWRAP,INT:1", Some("a103020101")),
        ("OCTWRAP,BITWRAP,NULL", Some("04050303000500")),
        ("NULL", Some("0500")),
        ("BOOL:maybe", None),
        ("UTF8: spaced ", Some("0c082073706163656420")),
        ("IA5:caf\u{e9}", None),
        ("FORMAT:UTF8,T61:\u{20ac}", None),
        ("FORMAT:UTF8,BMP:\u{20ac}", Some("1e0220ac")),
        ("FORMAT:UTF8,UNIV:\u{20ac}", Some("1c04000020ac")),
        ("NUMERIC:12a", None),
        ("PRINTABLE:Ab '()+,-./:=?", Some("130e4162202728292b2c2d2e2f3a3d3f")),
        ("UTC:2301010000Z", Some("170b323330313031303030305a")),
        ("UTC:230101000000+0100", Some("17113233303130313030303030302b30313030")),
        ("GENTIME:202301010000Z", Some("180d3230323330313031303030305a")),
        ("GENTIME:20230101000060Z", None),
        ("UTC:231301000000Z", None),
        ("SEQ", None),
        ("INT:abc", None),
        ("INT:", None),
        ("INT:-0", Some("020100")),
        ("INT:00012", Some("02010c")),
        ("INT:0x00ff", Some("020200ff")),
        ("BOOL:", None),
        ("OID:", None),
        ("OID:nonsense", None),
        ("FORMAT:HEX,OCT:abc", None),
        ("FORMAT:HEX,OCT:", None),
        ("FORMAT:BITLIST,BITSTR:", None),
        ("FORMAT:BITLIST,BITSTR:7", Some("03020001")),
        ("FORMAT:BITLIST,OCT:1", None),
        ("FORMAT:HEX,INT:1", None),
        ("IMP:1,IMP:2,INT:1", None),
        ("IMP:1,EXP:2,INT:1", None),
        ("EXP:1A,EXP:200,INT:1", Some("6107bf814803020101")),
        ("IMP:31,NULL", Some("9f1f00")),
        ("EXP:x,NULL", None),
        ("EXP:,NULL", Some("a0020500")),
        ("IMP:3Q,NULL", None),
        ("NULL:x", None),
        ("NULL,", None),
        ("OCTWRAP", None),
        ("utf8:x", Some("0c0178")),
        ("EXP:0C,SEQWRAP,SETWRAP,NULL", Some("a006300431020500")),
        ("IMP:16U,OCT:ab", Some("30026162")),
        ("OID:CN", Some("0603550403")),
        ("OID:commonName", Some("0603550403")),
    ];

    #[test]
    fn strings_as_openssl_generates_them() {
        for (spec, want) in OPENSSL {
            let got = generate(spec, None)
                .ok()
                .map(|d| d.iter().map(|b| format!("{b:02x}")).collect::<String>());
            assert_eq!(got.as_deref(), *want, "{spec}");
        }
    }

    #[test]
    fn sections_nest_and_sets_sort() {
        let conf = Conf::parse(
            "asn1 = SEQUENCE:top\n[top]\na = INT:3\nb = SET:s\nc = EXP:0,SEQUENCE:empty\n[s]\nx = INT:2\ny = BOOL:n\n[empty]\n[loop]\nl = SEQ:loop\n",
        )
        .unwrap();
        let der = generate("SEQUENCE:top", Some(&conf)).unwrap();
        // SET members sorted by encoding: BOOLEAN (01) before INTEGER (02).
        assert_eq!(der, [0x30, 0x0f, 2, 1, 3, 0x31, 6, 1, 1, 0, 2, 1, 2, 0xa0, 2, 0x30, 0]);
        assert!(generate("SEQUENCE:nosuch", Some(&conf)).is_err());
        let e = generate("SEQ:loop", Some(&conf)).unwrap_err().to_string();
        assert!(e.contains("too deep"), "{e}");
        // Sections naming each other twice over, 30 deep: 2^30 elements in OpenSSL,
        // refused here once the bound is met.
        let mut doubling = String::from("[s0]\n");
        for i in 0..30 {
            doubling.push_str(&format!("a = SEQ:s{n}\nb = SEQ:s{n}\n[s{n}]\n", n = i + 1));
        }
        doubling.push_str("x = NULL\n");
        let doubling = Conf::parse(&doubling).unwrap();
        let e = generate("SEQ:s0", Some(&doubling)).unwrap_err().to_string();
        assert!(e.contains("more than 65536 elements"), "{e}");
        let many = format!("{}NULL", "EXP:1,".repeat(21));
        assert!(generate(&many, None).is_err());
        assert!(generate(&format!("{}NULL", "EXP:1,".repeat(20)), None).is_ok());
        // Universal tags that OpenSSL would read back as another type: refused.
        for spec in ["EXP:3U,NULL", "IMP:2U,OCT:ab", "IMP:16U,OCTWRAP,NULL"] {
            assert!(generate(spec, None).is_err(), "{spec}");
        }
        assert!(generate("IMP:17U,SEQWRAP,NULL", None).is_ok());
    }
}
