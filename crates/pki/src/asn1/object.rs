//! OBJECT IDENTIFIER contents (X.690 section 8.19) as text, the way OpenSSL prints them:
//! the long name from its object table ([`super::oid_names`]) where it has one, else
//! dotted decimal with arcs of any size (`OBJ_obj2txt`).

use super::oid_names::{NAMES, SHORT_NAMES};

/// The longest contents OpenSSL turns into text (RFC 2578 section 3.5's 128 arcs of 32
/// bits, 586 octets); longer ones it refuses, which bounds the decimal conversion.
const MAX_TEXT_LEN: usize = 586;

/// Whether OpenSSL's `c2i_ASN1_OBJECT` takes `c` as an OBJECT IDENTIFIER's contents: not
/// empty, the last octet ending an arc, no arc starting with a padding octet 0x80.
pub(super) fn valid(c: &[u8]) -> bool {
    let Some(&last) = c.last() else { return false };
    if last & 0x80 != 0 {
        return false;
    }
    !c.iter().enumerate().any(|(i, &b)| b == 0x80 && (i == 0 || c[i - 1] & 0x80 == 0))
}

/// The text of the contents `c` of an OBJECT IDENTIFIER: OpenSSL's name for it, or its
/// arcs in dotted decimal; `None` where OpenSSL's `OBJ_obj2txt` fails (invalid contents,
/// or longer than 586 octets without a name).
pub fn object_text(c: &[u8]) -> Option<String> {
    if !valid(c) {
        return None;
    }
    if let Some(name) = name(c) {
        return Some(name.to_string());
    }
    if c.len() > MAX_TEXT_LEN {
        return None;
    }
    let mut text = String::new();
    for (i, arc) in arcs(c).enumerate() {
        let mut arc = arc;
        if i == 0 {
            let x = first_arc(arc.to_u32());
            arc.sub_small(40 * x);
            text.push_str(&format!("{x}"));
        }
        text.push('.');
        text.push_str(&arc.to_decimal());
    }
    Some(text)
}

/// The name OpenSSL's object table gives the OBJECT IDENTIFIER contents `c`, if any.
pub fn object_name(c: &[u8]) -> Option<&'static str> {
    if valid(c) { name(c) } else { None }
}

/// The object OpenSSL's table names `text`, if any: a short name first, then a long one,
/// as `OBJ_txt2obj` looks them up (case counts).
pub fn object_by_name(text: &str) -> Option<const_oid::ObjectIdentifier> {
    let arcs = match SHORT_NAMES.binary_search_by(|(name, _)| (*name).cmp(text)) {
        Ok(i) => SHORT_NAMES[i].1,
        Err(_) => NAMES.iter().find(|(_, name)| *name == text)?.0,
    };
    const_oid::ObjectIdentifier::from_arcs(arcs.iter().copied()).ok()
}

/// OpenSSL's long name of `oid` (`OBJ_nid2ln`; its short name where it has no long one),
/// if its object table knows it.
pub fn long_name(oid: &const_oid::ObjectIdentifier) -> Option<&'static str> {
    let want: Vec<u32> = oid.arcs().collect();
    NAMES.binary_search_by(|(arcs, _)| (*arcs).cmp(&want[..])).ok().map(|i| NAMES[i].1)
}

/// OpenSSL's short name of `oid` (`OBJ_nid2sn`; the long one where it has no short one),
/// if its object table knows it.
pub fn short_name(oid: &const_oid::ObjectIdentifier) -> Option<&'static str> {
    let want: Vec<u32> = oid.arcs().collect();
    SHORT_NAMES
        .iter()
        .find(|(_, arcs)| **arcs == want[..])
        .map(|(sn, _)| *sn)
        .or_else(|| long_name(oid))
}

/// The name OpenSSL's object table gives `c`, if any.
fn name(c: &[u8]) -> Option<&'static str> {
    let mut want: Vec<u32> = Vec::new();
    for (i, arc) in arcs(c).enumerate() {
        let v = arc.to_u32()?;
        if i == 0 {
            let x = first_arc(Some(v));
            want.extend([x, v - 40 * x]);
        } else {
            want.push(v);
        }
    }
    NAMES.binary_search_by(|(arcs, _)| (*arcs).cmp(&want[..])).ok().map(|i| NAMES[i].1)
}

/// The first arc X of a first subidentifier `40 X + Y` (X.690 section 8.19.4: X is at
/// most 2, so any subidentifier of 80 or more, of any size, has X = 2).
fn first_arc(subidentifier: Option<u32>) -> u32 {
    subidentifier.map_or(2, |v| (v / 40).min(2))
}

/// The subidentifiers of valid contents, as numbers of any size.
fn arcs(c: &[u8]) -> impl Iterator<Item = Arc> + '_ {
    c.split_inclusive(|b| b & 0x80 == 0).map(|group| {
        let mut arc = Arc(vec![0]);
        for &b in group {
            arc.shl7_add(b & 0x7f);
        }
        arc
    })
}

/// A subidentifier: a natural number in 32-bit limbs, least significant first.
struct Arc(Vec<u32>);

impl Arc {
    fn shl7_add(&mut self, bits: u8) {
        let mut carry = u64::from(bits);
        for limb in &mut self.0 {
            let v = (u64::from(*limb) << 7) | carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    fn to_u32(&self) -> Option<u32> {
        match self.0.iter().rposition(|&l| l != 0) {
            None => Some(0),
            Some(0) => Some(self.0[0]),
            Some(_) => None,
        }
    }

    fn sub_small(&mut self, n: u32) {
        let mut borrow = u64::from(n);
        for limb in &mut self.0 {
            let (v, under) = u64::from(*limb).overflowing_sub(borrow);
            *limb = v as u32;
            borrow = u64::from(under);
            if borrow == 0 {
                break;
            }
        }
    }

    fn to_decimal(&self) -> String {
        let mut limbs = self.0.clone();
        let mut chunks = Vec::new();
        loop {
            let mut rem = 0u64;
            for limb in limbs.iter_mut().rev() {
                let v = (rem << 32) | u64::from(*limb);
                *limb = (v / 1_000_000_000) as u32;
                rem = v % 1_000_000_000;
            }
            chunks.push(rem as u32);
            while limbs.len() > 1 && limbs.last() == Some(&0) {
                limbs.pop();
            }
            if limbs == [0] {
                break;
            }
        }
        let mut s = format!("{}", chunks.pop().unwrap_or(0));
        for c in chunks.iter().rev() {
            s.push_str(&format!("{c:09}"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers() {
        // rsaEncryption, commonName: OpenSSL's long names.
        assert_eq!(
            object_text(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 1, 1]).unwrap(),
            "rsaEncryption"
        );
        assert_eq!(object_text(&[0x55, 4, 3]).unwrap(), "commonName");
        // Unnamed: dotted, first arcs split as X.690 says, 2.x above 80.
        assert_eq!(object_text(&[0x2a, 3]).unwrap(), "1.2.3");
        assert_eq!(object_text(&[0x88, 0x37, 1]).unwrap(), "2.999.1");
        assert_eq!(object_text(&[0x00]).unwrap(), "0.0");
        // Arcs past 64 bits: 2^70 is 0x81 followed by ten 0x80 octets and 0x00.
        let mut big = vec![0x2a, 0x81];
        big.extend([0x80; 9]);
        big.push(0x00);
        assert_eq!(object_text(&big).unwrap(), "1.2.1180591620717411303424");
        // Invalid: empty, unterminated, padded.
        assert_eq!(object_text(&[]), None);
        assert_eq!(object_text(&[0x2a, 0x86]), None);
        assert_eq!(object_text(&[0x2a, 0x80, 0x01]), None);
        // Longer than OpenSSL turns into text.
        assert_eq!(object_text(&[0x2a; 587]), None);
        assert_eq!(object_text(&[0x2a; 586]).unwrap().len(), 3 + 585 * 3);
    }
}
