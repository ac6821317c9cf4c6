//! Bag attributes (RFC 7292 section 4.2, PKCS#9's friendlyName and localKeyID) read into
//! values a program can use and printed as OpenSSL's `pkcs12` prints them.

use super::asn1::{FRIENDLY_NAME, LOCAL_KEY_ID};
use crate::Result;
use der::asn1::{Any, BitStringRef, ObjectIdentifier, OctetString};
use der::{Encode, Tag, Tagged};
use x509_cert::attr::{Attribute, Attributes};

/// One attribute of a bag or of a key: its type and first value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BagAttribute {
    /// The attribute's type.
    pub oid: ObjectIdentifier,
    /// Its first value (PKCS#12's attributes have one).
    pub value: AttributeValue,
}

/// An attribute's value, as far as this crate reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttributeValue {
    /// A BMPString or UTF8String (a friendly name, a CSP name).
    Text(String),
    /// An OCTET STRING or BIT STRING's bytes (a local key ID, a key usage).
    Bytes(Vec<u8>),
    /// A value of another type: its universal tag number.
    Other(u8),
    /// No value at all.
    Absent,
}

/// OpenSSL's long names of the attributes PKCS#12 files carry.
const NAMES: &[(&str, &str)] = &[
    ("1.2.840.113549.1.9.20", "friendlyName"),
    ("1.2.840.113549.1.9.21", "localKeyID"),
    ("1.3.6.1.4.1.311.17.1", "Microsoft CSP Name"),
    ("1.3.6.1.4.1.311.17.2", "Microsoft Local Key set"),
    ("2.5.29.15", "X509v3 Key Usage"),
    ("2.16.840.1.113894.746875.1.1", "Trusted key usage (Oracle)"),
];

impl BagAttribute {
    /// A friendlyName.
    pub fn friendly_name(&self) -> Option<&str> {
        match &self.value {
            AttributeValue::Text(t) if self.oid == FRIENDLY_NAME => Some(t),
            _ => None,
        }
    }

    /// A localKeyID.
    pub fn local_key_id(&self) -> Option<&[u8]> {
        match &self.value {
            AttributeValue::Bytes(b) if self.oid == LOCAL_KEY_ID => Some(b),
            _ => None,
        }
    }

    /// The line OpenSSL's `pkcs12` prints for it (`    localKeyID: 1D DD ...`, without
    /// the newline).
    pub fn openssl_line(&self) -> String {
        let oid = self.oid.to_string();
        let name = NAMES.iter().find(|(o, _)| *o == oid).map_or(oid.as_str(), |e| e.1);
        let value = match &self.value {
            AttributeValue::Text(t) => t.clone(),
            AttributeValue::Bytes(b) => b.iter().map(|x| format!("{x:02X} ")).collect(),
            AttributeValue::Other(tag) => format!("<Unsupported tag {tag}>"),
            AttributeValue::Absent => "<No Values>".into(),
        };
        format!("    {name}: {value}")
    }
}

/// Reads a BMPString's UTF-16BE bytes (unpaired surrogates become U+FFFD).
fn bmp_text(bytes: &[u8]) -> String {
    let units = bytes.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
    char::decode_utf16(units).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)).collect()
}

fn value_of(any: &Any) -> AttributeValue {
    match any.tag() {
        Tag::BmpString => AttributeValue::Text(bmp_text(any.value())),
        Tag::Utf8String => AttributeValue::Text(String::from_utf8_lossy(any.value()).into_owned()),
        Tag::OctetString => AttributeValue::Bytes(any.value().to_vec()),
        Tag::BitString => match any.decode_as::<BitStringRef<'_>>() {
            Ok(bits) => AttributeValue::Bytes(bits.raw_bytes().to_vec()),
            Err(_) => AttributeValue::Other(3),
        },
        tag => AttributeValue::Other(tag.number().value() as u8),
    }
}

/// The attributes of a bag (or a key), in the order the file lists them.
pub(super) fn read(attrs: Option<&Attributes>) -> Vec<BagAttribute> {
    attrs.into_iter().flat_map(|set| set.iter()).map(read_one).collect()
}

fn read_one(attr: &Attribute) -> BagAttribute {
    let value = attr.values.iter().next().map_or(AttributeValue::Absent, value_of);
    BagAttribute { oid: attr.oid, value }
}

/// A friendlyName attribute (a BMPString, RFC 2985 5.5.1).
pub(super) fn friendly_name(name: &str) -> Result<Attribute> {
    let units: Vec<u8> = name.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let value = Any::new(Tag::BmpString, units)?;
    Ok(Attribute { oid: FRIENDLY_NAME, values: der::asn1::SetOfVec::try_from(vec![value])? })
}

/// A localKeyID attribute (an OCTET STRING, RFC 2985 5.5.2).
pub(super) fn local_key_id(id: &[u8]) -> Result<Attribute> {
    let value = Any::encode_from(&OctetString::new(id)?)?;
    Ok(Attribute { oid: LOCAL_KEY_ID, values: der::asn1::SetOfVec::try_from(vec![value])? })
}

/// The attributes as a SET OF (sorted by DER, as OpenSSL writes them), or none.
pub(super) fn set(attrs: Vec<Attribute>) -> Result<Option<Attributes>> {
    if attrs.is_empty() {
        return Ok(None);
    }
    // SetOfVec sorts by encoding; check each encodes first so the sort cannot fail.
    for a in &attrs {
        a.to_der()?;
    }
    Ok(Some(Attributes::try_from(attrs)?))
}
