//! `pkcs8::DecodePrivateKey` / `EncodePrivateKey` for [`RsaPrivateKey`] and
//! `spki::DecodePublicKey` / `EncodePublicKey` for [`RsaPublicKey`], on the parsers and
//! encoders of [`crate::rsa::encoding`] (no second parser). The traits come from blanket
//! impls over `TryFrom<PrivateKeyInfoRef>` and `TryFrom<SubjectPublicKeyInfoRef>`.
//!
//! The keys' inherent methods of the same names (`from_pkcs8_der`, `to_pkcs8_pem`,
//! `from_public_key_pem`, ...) return [`crate::Result`] and take no line ending; Rust
//! picks an inherent method over a trait's, so `key.to_pkcs8_pem()` is ours and
//! `EncodePrivateKey::to_pkcs8_pem(&key, LineEnding::LF)` (or any generic code bounded
//! on the trait) the trait's. Both write the same bytes.

use crate::Error;
use crate::rsa::{KeyParseOptions, RsaPrivateKey, RsaPublicKey};
use pkcs8::{KeyError, PrivateKeyInfoRef};
use spki::SubjectPublicKeyInfoRef;

/// Our error as a `pkcs8::Error`: an algorithm other than rsaEncryption is an unknown
/// OID, anything else a malformed key.
fn pkcs8_error(e: Error, oid: spki::ObjectIdentifier) -> pkcs8::Error {
    match spki_error(e, oid) {
        spki::Error::OidUnknown { oid } => pkcs8::Error::PublicKey(spki::Error::OidUnknown { oid }),
        _ => pkcs8::Error::KeyMalformed(KeyError::Invalid),
    }
}

fn spki_error(e: Error, oid: spki::ObjectIdentifier) -> spki::Error {
    match e {
        Error::Unsupported(_) if oid != pkcs1::ALGORITHM_OID => spki::Error::OidUnknown { oid },
        _ => spki::Error::KeyMalformed,
    }
}

impl TryFrom<PrivateKeyInfoRef<'_>> for RsaPrivateKey {
    type Error = pkcs8::Error;

    fn try_from(info: PrivateKeyInfoRef<'_>) -> pkcs8::Result<RsaPrivateKey> {
        RsaPrivateKey::from_pkcs8_info(&info, &KeyParseOptions::default())
            .map_err(|e| pkcs8_error(e, info.algorithm.oid))
    }
}

impl pkcs8::EncodePrivateKey for RsaPrivateKey {
    fn to_pkcs8_der(&self) -> pkcs8::Result<der::SecretDocument> {
        let der = RsaPrivateKey::to_pkcs8_der(self)
            .map_err(|_| pkcs8::Error::KeyMalformed(KeyError::Invalid))?;
        Ok(der::SecretDocument::try_from(der.as_slice())?)
    }
}

impl TryFrom<SubjectPublicKeyInfoRef<'_>> for RsaPublicKey {
    type Error = spki::Error;

    fn try_from(info: SubjectPublicKeyInfoRef<'_>) -> spki::Result<RsaPublicKey> {
        RsaPublicKey::from_spki(&info).map_err(|e| spki_error(e, info.algorithm.oid))
    }
}

impl spki::EncodePublicKey for RsaPublicKey {
    fn to_public_key_der(&self) -> spki::Result<der::Document> {
        let der = RsaPublicKey::to_public_key_der(self).map_err(|_| spki::Error::KeyMalformed)?;
        Ok(der::Document::try_from(der)?)
    }
}

#[cfg(test)]
mod tests {
    use crate::rsa::{RsaPrivateKey, RsaPublicKey};
    use pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
    use spki::{DecodePublicKey, EncodePublicKey};

    const KEY: &str = include_str!("../../../tests/data/rsa/rsa2048_pkcs8.pem");

    #[test]
    fn traits_read_and_write_what_the_inherent_methods_do() {
        let ours = RsaPrivateKey::from_pkcs8_pem(KEY).unwrap();
        let theirs = <RsaPrivateKey as DecodePrivateKey>::from_pkcs8_pem(KEY).unwrap();
        assert_eq!(ours, theirs);
        let doc = EncodePrivateKey::to_pkcs8_der(&ours).unwrap();
        assert_eq!(doc.as_bytes(), &RsaPrivateKey::to_pkcs8_der(&ours).unwrap()[..]);
        let pem = EncodePrivateKey::to_pkcs8_pem(&ours, LineEnding::LF).unwrap();
        assert_eq!(*pem, *RsaPrivateKey::to_pkcs8_pem(&ours).unwrap());

        let public = ours.public_key();
        let pem = EncodePublicKey::to_public_key_pem(public, LineEnding::LF).unwrap();
        assert_eq!(pem, RsaPublicKey::to_public_key_pem(public).unwrap());
        let back = <RsaPublicKey as DecodePublicKey>::from_public_key_pem(&pem).unwrap();
        assert_eq!(&back, public);
    }

    #[test]
    fn traits_refuse_what_is_not_an_rsa_key() {
        assert!(<RsaPrivateKey as DecodePrivateKey>::from_pkcs8_der(&[0x30, 0x00]).is_err());
        // An SPKI of an EC key (id-ecPublicKey, P-256): an unknown OID, not a bad key.
        let ec = hex_der("3059301306072a8648ce3d020106082a8648ce3d030107034200");
        let mut der = ec;
        der.extend_from_slice(&[4u8; 65][..]);
        match <RsaPublicKey as DecodePublicKey>::from_public_key_der(&der) {
            Err(spki::Error::OidUnknown { oid }) => {
                assert_eq!(oid.to_string(), "1.2.840.10045.2.1")
            }
            other => panic!("{other:?}"),
        }
    }

    fn hex_der(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }
}
