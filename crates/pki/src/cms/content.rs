//! The outer ContentInfo (RFC 5652 section 3) and its three encodings: DER (BER accepted
//! on input, as X.690 allows a CMS reader), PEM (RFC 7468 section 9, label `CMS` or
//! `PKCS7`), and S/MIME ([`super::smime`]).

use crate::{Error, Result};
use cms::content_info::ContentInfo;
use const_oid::ObjectIdentifier;
use const_oid::db::rfc5911::{ID_DATA, ID_ENVELOPED_DATA, ID_SIGNED_DATA};
use der::{Decode, Encode};

/// How a CMS object is written on disk or on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Binary DER (BER on input).
    Der,
    /// Base64 between `-----BEGIN CMS-----` (or `PKCS7`) lines.
    Pem,
    /// A MIME message (RFC 8551).
    Smime,
}

/// The CMS content types this crate makes and opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// SignedData (RFC 5652 section 5).
    Signed,
    /// EnvelopedData (RFC 5652 section 6).
    Enveloped,
}

/// The content type of a DER ContentInfo, if it is one this crate knows.
pub fn kind_of(der: &[u8]) -> Result<Kind> {
    let ci = content_info(der)?;
    match ci.content_type {
        ID_SIGNED_DATA => Ok(Kind::Signed),
        ID_ENVELOPED_DATA => Ok(Kind::Enveloped),
        other => Err(Error::Unsupported(format!("CMS content type {other}"))),
    }
}

/// A ContentInfo's DER (`Der`) or PEM (`Pem`, with `label`: `CMS` for `openssl cms`,
/// `PKCS7` for `openssl smime`). S/MIME is written by [`super::smime`].
pub fn write(der: &[u8], format: Format, label: &str) -> Result<Vec<u8>> {
    match format {
        Format::Der => Ok(der.to_vec()),
        Format::Pem => der::pem::encode_string(label, der::pem::LineEnding::LF, der)
            .map(String::into_bytes)
            .map_err(|e| Error::Malformed(format!("PEM: {e}"))),
        Format::Smime => Err(Error::Unsupported("S/MIME output needs smime::write".into())),
    }
}

/// The ContentInfo DER in `input`, and for a detached S/MIME signature the signed content
/// (the first part of a `multipart/signed` message).
pub fn read(input: &[u8], format: Format) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
    match format {
        Format::Der => Ok((input.to_vec(), None)),
        Format::Pem => {
            let (label, der) =
                der::pem::decode_vec(input).map_err(|e| Error::Malformed(format!("PEM: {e}")))?;
            if label != "CMS" && label != "PKCS7" {
                return Err(Error::Malformed(format!("PEM label {label}, not CMS or PKCS7")));
            }
            Ok((der, None))
        }
        Format::Smime => super::smime::read(input),
    }
}

/// The ContentInfo in `der` (BER accepted: OpenSSL's `-stream` output is indefinite-length).
pub(super) fn content_info(der: &[u8]) -> Result<ContentInfo> {
    ContentInfo::from_ber(der).map_err(|e| Error::Malformed(format!("CMS ContentInfo: {e}")))
}

/// The inner structure of `der` when its content type is `expected`.
pub(super) fn open<T>(der: &[u8], expected: ObjectIdentifier, what: &str) -> Result<T>
where
    T: for<'a> Decode<'a, Error = der::Error>,
{
    let ci = content_info(der)?;
    if ci.content_type != expected {
        return Err(Error::Malformed(format!("content type is {}, not {what}", ci.content_type)));
    }
    let inner = ci.content.to_der()?;
    T::from_ber(&inner).map_err(|e| Error::Malformed(format!("{what}: {e}")))
}

/// `inner` wrapped in a ContentInfo of type `content_type`, as DER.
pub(super) fn wrap<T: Encode>(content_type: ObjectIdentifier, inner: &T) -> Result<Vec<u8>> {
    let content = der::Any::from_der(&inner.to_der()?)?;
    Ok(ContentInfo { content_type, content }.to_der()?)
}

/// The content type that CMS gives plain data.
pub(super) const DATA: ObjectIdentifier = ID_DATA;
