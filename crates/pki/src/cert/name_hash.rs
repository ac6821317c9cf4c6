//! OpenSSL's name hashes: the file names of a hashed certificate directory (`-CApath`,
//! `openssl rehash`) and what `openssl x509 -subject_hash` prints.
//!
//! [`name_hash`] is OpenSSL's `X509_NAME_hash_ex` (since 1.0.0): the first four bytes,
//! little-endian, of the SHA-1 of the name's canonical encoding (`x509_name_canon` in
//! `crypto/x509/x_name.c`). The canonical encoding makes names that differ only in
//! string type, case or spacing hash alike:
//!
//! - each attribute value of a string type (UTF8String, PrintableString, IA5String,
//!   VisibleString, T61String read as Latin-1, BMPString; UniversalString names do not
//!   parse here) becomes a
//!   UTF8String with leading and trailing white space dropped, each inner run of white
//!   space one space, and ASCII letters in lower case; values of other types stay as
//!   they are;
//! - each relative distinguished name is DER-encoded as a SET OF its attributes (sorted),
//!   and the encodings are concatenated without the outer SEQUENCE.
//!
//! [`name_hash_old`] is the hash before 1.0.0 (`-subject_hash_old`): MD5 of the name's
//! DER, first four bytes little-endian.

use crate::Result;
use cryptocard::digest::{HashAlg, Hasher};
use der::{Encode, Tag, Tagged};
use x509_cert::name::Name;

/// OpenSSL's `X509_NAME_hash_ex` of `name` (see the module docs).
pub fn name_hash(name: &Name) -> Result<u32> {
    let mut canon = Vec::new();
    for rdn in name.iter_rdn() {
        let mut entries: Vec<Vec<u8>> = Vec::new();
        for atv in rdn.iter() {
            let mut body = atv.oid.to_der()?;
            let value = &atv.value;
            let (tag, content) = match canonical_text(value.tag(), value.value()) {
                Some(text) => (Tag::Utf8String, text),
                None => (value.tag(), value.value().to_vec()),
            };
            tlv(&mut body, &tag.to_der()?, &content);
            let mut entry = Vec::new();
            tlv(&mut entry, &[0x30], &body);
            entries.push(entry);
        }
        // DER orders a SET OF by its elements' encodings.
        entries.sort();
        tlv(&mut canon, &[0x31], &entries.concat());
    }
    Ok(first_four_le(Hasher::digest(HashAlg::Sha1, &canon).as_bytes()))
}

/// The hash before OpenSSL 1.0.0: MD5 of the name's DER.
pub fn name_hash_old(name: &Name) -> Result<u32> {
    Ok(first_four_le(Hasher::digest(HashAlg::Md5, &name.to_der()?).as_bytes()))
}

fn first_four_le(digest: &[u8]) -> u32 {
    u32::from_le_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// A value of a string type in canonical form (OpenSSL's `asn1_string_canon`); `None`
/// for other types.
fn canonical_text(tag: Tag, content: &[u8]) -> Option<Vec<u8>> {
    let text: String = match tag {
        Tag::Utf8String => String::from_utf8_lossy(content).into_owned(),
        Tag::PrintableString | Tag::Ia5String | Tag::VisibleString | Tag::TeletexString => {
            content.iter().map(|&b| char::from(b)).collect()
        }
        Tag::BmpString => {
            char::decode_utf16(content.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])))
                .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect()
        }
        _ => return None,
    };
    let bytes = text.as_bytes();
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let start = bytes.iter().position(|&b| !is_space(b)).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|&b| !is_space(b)).map_or(start, |i| i + 1);
    let mut out = Vec::with_capacity(end - start);
    let mut i = start;
    while i < end {
        let b = bytes[i];
        if is_space(b) {
            out.push(b' ');
            while i < end && is_space(bytes[i]) {
                i += 1;
            }
        } else {
            out.push(b.to_ascii_lowercase());
            i += 1;
        }
    }
    Some(out)
}

/// Appends the DER TLV of `tag` (encoded) and `content` to `out`.
fn tlv(out: &mut Vec<u8>, tag: &[u8], content: &[u8]) {
    out.extend_from_slice(tag);
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
}
