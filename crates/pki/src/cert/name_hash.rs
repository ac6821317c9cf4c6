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
//!   parse here) becomes a UTF8String with leading and trailing white space dropped, each
//!   inner run of white space one space, and ASCII letters in lower case; values of other
//!   types stay as they are;
//! - each relative distinguished name is DER-encoded as a SET OF its attributes (sorted),
//!   and the encodings are concatenated without the outer SEQUENCE.
//!
//! [`name_hash_old`] is the hash before 1.0.0 (`-subject_hash_old`): MD5 of the name's
//! DER, first four bytes little-endian.

use crate::Result;
use cryptocard::digest::{HashAlg, Hasher};
use der::asn1::{Any, SetOfVec};
use der::{Encode, Tag, Tagged};
use x509_cert::attr::AttributeTypeAndValue;
use x509_cert::name::Name;

/// OpenSSL's `X509_NAME_hash_ex` of `name` (see the module docs).
pub fn name_hash(name: &Name) -> Result<u32> {
    Ok(first_four_le(Hasher::digest(HashAlg::Sha1, &canonical_name(name)?).as_bytes()))
}

/// The canonical encoding of `name` (see the module docs), which name constraints also
/// compare (`nc_dn` in OpenSSL's `crypto/x509/v3_ncons.c`): empty for an empty name.
pub(crate) fn canonical_name(name: &Name) -> Result<Vec<u8>> {
    let mut canon = Vec::new();
    for rdn in name.iter_rdn() {
        let entries = rdn.iter().map(|atv| {
            let value = match canonical_text(atv.value.tag(), atv.value.value()) {
                Some(text) => Any::new(Tag::Utf8String, text)?,
                None => atv.value.clone(),
            };
            Ok(AttributeTypeAndValue { oid: atv.oid, value })
        });
        // A SET OF, which DER (and `SetOfVec`) orders by its elements' encodings.
        let set = SetOfVec::try_from(entries.collect::<Result<Vec<_>>>()?)?;
        set.encode_to_vec(&mut canon)?;
    }
    Ok(canon)
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
