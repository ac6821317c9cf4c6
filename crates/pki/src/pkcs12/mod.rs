//! PKCS#12 (RFC 7292): a private key and its certificates in one password-protected file,
//! the `.p12` / `.pfx` that Windows, Java's keytool, browsers and OpenSSL's `pkcs12`
//! exchange, and the form most servers' keys arrive in.
//!
//! A PFX holds an authenticated safe: a list of SafeContents, each plain (id-data) or
//! encrypted under the password (id-encryptedData), each a list of bags (a key, a
//! password-encrypted "shrouded" key, a certificate, ...) with attributes (a friendly
//! name, a local key ID that pairs a key with its certificate). A MAC keyed by the
//! password covers the whole (password integrity mode, section 5.1). The schemes are
//! [`cryptocard::pbe`]'s: OpenSSL 3 writes PBES2 with AES-256-CBC and a SHA-256 MAC; files
//! from before it, and `openssl pkcs12 -legacy`, 3DES for keys, 40-bit RC2 for
//! certificates and a SHA-1 MAC. This module reads both (OpenSSL 3 needs its legacy
//! provider for the second) and writes either.
//!
//! [`parse`] checks the MAC first, then decrypts; what a file may make it spend is bounded
//! ([`ParseOptions`]): each derivation's iteration count, and their sum, are checked
//! before any derivation runs. Public-key modes (a signed PFX, an enveloped safe) are
//! [`Error::Unsupported`], as is PBMAC1 (RFC 9579). [`Pkcs12Builder`] writes a file as
//! OpenSSL's `PKCS12_create` lays it out: the certificates in one encrypted safe (the
//! end entity first, with the friendly name and a local key ID that is the SHA-1 of its
//! DER), the shrouded key in a plain one with the same attributes, then the MAC.

mod asn1;
mod attr;
mod build;
mod mac;
mod parse;

pub use attr::{AttributeValue, BagAttribute};
pub use build::Pkcs12Builder;
pub use mac::MacInfo;
pub use parse::{ParseOptions, parse, parse_with};

use crate::{Error, Result};
use cryptocard::pbe::PbeScheme;
use cryptocard::rng::RandomSource;
use cryptocard::rsa::{RsaPrivateKey, encrypt_pkcs8_der};
use der::Decode;
use der::asn1::ObjectIdentifier;
use x509_cert::Certificate;
use zeroize::Zeroizing;

/// A PKCS#12 file, read: its MAC and its safes, in file order.
#[derive(Debug)]
pub struct Pkcs12 {
    /// The MAC, if the file has one.
    pub mac: Option<MacInfo>,
    /// The SafeContents of the authenticated safe.
    pub safes: Vec<Safe>,
}

/// One SafeContents: how it was protected, and its bags.
#[derive(Debug)]
pub struct Safe {
    /// `None` for a plain safe (id-data); for an encrypted one, OpenSSL's words for the
    /// scheme (`PBES2, PBKDF2, AES-256-CBC, Iteration 2048, PRF hmacWithSHA256`).
    pub encryption: Option<String>,
    /// The bags, nested SafeContents bags flattened in place.
    pub bags: Vec<Bag>,
}

/// One bag: what it holds, and its attributes.
#[derive(Debug)]
pub struct Bag {
    /// The content.
    pub content: BagContent,
    /// The bag's attributes, in file order.
    pub attributes: Vec<BagAttribute>,
}

/// What a bag holds.
#[derive(Debug)]
pub enum BagContent {
    /// A private key (a keyBag, or a pkcs8ShroudedKeyBag decrypted), of any algorithm.
    Key {
        /// The DER `PrivateKeyInfo` (PKCS#8).
        pkcs8: Zeroizing<Vec<u8>>,
        /// For a shrouded key, OpenSSL's words for its scheme; `None` for a plain keyBag.
        shrouded: Option<String>,
        /// The key's own attributes (PKCS#8's, not the bag's; Windows writes some).
        attributes: Vec<BagAttribute>,
    },
    /// An X.509 certificate.
    Cert(Box<Certificate>),
    /// A bag this crate does not read (a CRL, a secret, an SDSI certificate): its type.
    Other(ObjectIdentifier),
}

impl Bag {
    /// The friendlyName attribute, if the bag has one.
    pub fn friendly_name(&self) -> Option<&str> {
        self.attributes.iter().find_map(BagAttribute::friendly_name)
    }

    /// The localKeyID attribute, if the bag has one.
    pub fn local_key_id(&self) -> Option<&[u8]> {
        self.attributes.iter().find_map(BagAttribute::local_key_id)
    }
}

impl Pkcs12 {
    /// Every bag, safe after safe.
    pub fn bags(&self) -> impl Iterator<Item = &Bag> {
        self.safes.iter().flat_map(|s| s.bags.iter())
    }

    /// The first private key's bag.
    pub fn key_bag(&self) -> Option<&Bag> {
        self.bags().find(|b| matches!(b.content, BagContent::Key { .. }))
    }

    /// The first private key as an RSA key (`None` if the file has no key). Errors: a
    /// key of another algorithm, or one that fails cryptocard's checks.
    pub fn rsa_private_key(&self) -> Result<Option<RsaPrivateKey>> {
        match self.key_bag().map(|b| &b.content) {
            Some(BagContent::Key { pkcs8, .. }) => Ok(Some(RsaPrivateKey::from_pkcs8_der(pkcs8)?)),
            _ => Ok(None),
        }
    }

    /// Every certificate, in file order.
    pub fn certificates(&self) -> impl Iterator<Item = &Certificate> {
        self.bags().filter_map(|b| match &b.content {
            BagContent::Cert(c) => Some(&**c),
            _ => None,
        })
    }

    /// The key's certificate: the one whose localKeyID is the key's (OpenSSL's
    /// `PKCS12_parse` pairing), else the first.
    pub fn end_entity(&self) -> Option<&Certificate> {
        let id = self.key_bag().and_then(Bag::local_key_id);
        let by_id = self.bags().find_map(|b| match &b.content {
            BagContent::Cert(c) if id.is_some() && b.local_key_id() == id => Some(&**c),
            _ => None,
        });
        by_id.or_else(|| self.certificates().next())
    }
}

/// A DER PKCS#8 key (a [`BagContent::Key`]'s) as PEM, as `openssl pkcs12` writes it:
/// "PRIVATE KEY", or with `encrypt`'s password and scheme "ENCRYPTED PRIVATE KEY". An RSA
/// key is checked and written anew (OpenSSL re-encodes every key it reads, and drops the
/// key's attributes); a key of another algorithm is written as the file holds it.
pub fn key_to_pem(
    pkcs8: &[u8],
    encrypt: Option<(&[u8], &PbeScheme)>,
    rng: &mut dyn RandomSource,
) -> Result<Zeroizing<String>> {
    let rsa = RsaPrivateKey::from_pkcs8_der(pkcs8);
    let plain = match &rsa {
        Ok(key) => Zeroizing::new(key.to_pkcs8_der()?.to_vec()),
        Err(_) if !is_rsa(pkcs8) => Zeroizing::new(pkcs8.to_vec()),
        Err(e) => return Err(Error::Crypto(*e)),
    };
    let (label, der) = match encrypt {
        None => ("PRIVATE KEY", plain),
        Some((password, scheme)) => (
            "ENCRYPTED PRIVATE KEY",
            Zeroizing::new(encrypt_pkcs8_der(&plain, Some(password), scheme, rng)?),
        ),
    };
    der::pem::encode_string(label, der::pem::LineEnding::LF, &der)
        .map(Zeroizing::new)
        .map_err(|e| Error::Malformed(format!("PEM: {e}")))
}

/// Whether a PKCS#8 key is rsaEncryption's.
fn is_rsa(pkcs8: &[u8]) -> bool {
    asn1::KeyInfo::from_der(pkcs8)
        .is_ok_and(|k| k.algorithm.oid == cryptocard::rsa::pkcs1::ALGORITHM_OID)
}

#[cfg(test)]
mod tests;
