//! RSA key formats: PKCS#1 (RFC 8017 appendix A.1), PKCS#8 (RFC 5208 / RFC 5958) plain and
//! encrypted (PBES2, RFC 8018, or PKCS#12's schemes, RFC 7292: [`crate::pbe`]),
//! SubjectPublicKeyInfo (RFC 5280, RFC 3279 2.3.1), each in DER and PEM (RFC 7468), and
//! OpenSSL's "traditional" PKCS#1 PEM under legacy encryption (RFC 1421 headers).
//!
//! ```
//! use cryptocard::rng::OsRng;
//! use cryptocard::rsa::{RsaKey, RsaPrivateKey, key_from_pem};
//!
//! let key = RsaPrivateKey::generate(1024, &mut OsRng)?;
//! let pem = key.to_pkcs8_encrypted_pem(b"secret", &mut OsRng)?; // PBES2, PBKDF2
//! match key_from_pem(&pem, Some(b"secret"))? {
//!     RsaKey::Private(k) => assert_eq!(k, key),
//!     RsaKey::Public(_) => unreachable!(),
//! }
//! assert!(key_from_pem(&pem, Some(b"wrong")).is_err());
//! # Ok::<(), cryptocard::Error>(())
//! ```
//!
//! The ASN.1 is the RustCrypto crates' (`der`, `pkcs1`, `pkcs8`, `spki`), not
//! hand-written; the cryptography of encrypted PKCS#8 is ours ([`crate::pbe`]: PBES2,
//! PKCS#12's and PBES1's schemes over our digests, AES, DES and RC2). Every parsed key goes through the checks of
//! [`crate::rsa::validate`]. Malformed input is [`Error::InvalidEncoding`]; a well-formed
//! but unusable key is [`Error::InvalidKey`] or [`Error::Unsupported`]; nothing panics.
//! What a file may make the parser spend (PBKDF2 iterations, the recovery of p and q) is
//! bounded by [`KeyParseOptions`], which the `_with` forms of the parsers take.
//!
//! | format | PEM label | parse | write |
//! |---|---|---|---|
//! | PKCS#1 `RSAPrivateKey` (multi-prime too) | RSA PRIVATE KEY | [`RsaPrivateKey::from_pkcs1_der`] | [`RsaPrivateKey::to_pkcs1_der`] |
//! | PKCS#1 `RSAPublicKey` | RSA PUBLIC KEY | [`RsaPublicKey::from_pkcs1_der`] | [`RsaPublicKey::to_pkcs1_der`] |
//! | PKCS#8 `PrivateKeyInfo` | PRIVATE KEY | [`RsaPrivateKey::from_pkcs8_der`] | [`RsaPrivateKey::to_pkcs8_der`] |
//! | PKCS#8 `EncryptedPrivateKeyInfo` | ENCRYPTED PRIVATE KEY | [`RsaPrivateKey::from_pkcs8_encrypted_der`] | [`RsaPrivateKey::to_pkcs8_encrypted_der`] |
//! | PKCS#1 under legacy PEM encryption (RFC 1421 `Proc-Type: 4,ENCRYPTED`, PEM only) | RSA PRIVATE KEY | [`RsaPrivateKey::from_pkcs1_encrypted_pem`] | [`RsaPrivateKey::to_pkcs1_encrypted_pem`] |
//! | `SubjectPublicKeyInfo` | PUBLIC KEY | [`RsaPublicKey::from_public_key_der`] | [`RsaPublicKey::to_public_key_der`] |
//!
//! [`key_from_pem`] and [`key_from_der`] take any of them and say which it was.

mod encrypted;
mod legacy_pem;
mod options;
mod pkcs1;
mod pkcs8;

pub use crate::pbe::{PBKDF2_ITERATIONS, SALT_LEN};
pub use encrypted::{decrypt_pkcs8_der, encrypt_pkcs8_der};
pub use options::{
    DEFAULT_MAX_ITERATIONS, KeyParseOptions, RECOVERY_NOT_ENABLED, TOO_MANY_ITERATIONS,
};
pub use pkcs1::{PRIVATE_LABEL as PKCS1_PRIVATE_LABEL, PUBLIC_LABEL as PKCS1_PUBLIC_LABEL};
pub use pkcs8::{
    ENCRYPTED_LABEL, PRIVATE_LABEL as PKCS8_PRIVATE_LABEL, PUBLIC_LABEL as SPKI_LABEL,
};

use crate::bignum::Nat;
use crate::rsa::{RsaPrivateKey, RsaPublicKey};
use crate::{Error, Result};
use der::asn1::UintRef;
use zeroize::Zeroizing;

pub(crate) const DER_ERROR: Error = Error::InvalidEncoding("malformed DER");

/// A key read from a file: private or public.
// Keys are read once and moved about rarely: the size difference is not worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RsaKey {
    /// A private key (its public half is [`RsaPrivateKey::public_key`]).
    Private(RsaPrivateKey),
    /// A public key.
    Public(RsaPublicKey),
}

impl RsaKey {
    /// The public key, of either kind.
    pub fn public_key(&self) -> &RsaPublicKey {
        match self {
            RsaKey::Private(k) => k.public_key(),
            RsaKey::Public(k) => k,
        }
    }
}

fn nat(u: UintRef<'_>) -> Nat {
    Nat::from_be_bytes(u.as_bytes())
}

fn secret_bytes(x: &Nat) -> Zeroizing<Vec<u8>> {
    Zeroizing::new(x.to_be_bytes())
}

/// PEM with LF line endings and 64-column lines, as OpenSSL writes it.
fn to_pem(label: &str, der: &[u8]) -> Result<Zeroizing<String>> {
    der::pem::encode_string(label, der::pem::LineEnding::LF, der)
        .map(Zeroizing::new)
        .map_err(|_| Error::InvalidEncoding("PEM encoding failed"))
}

/// A PEM block: its label, its body's bytes, and the `DEK-Info` of a block under legacy
/// encryption (`Proc-Type: 4,ENCRYPTED`, [`legacy_pem`]), whose body is then ciphertext.
struct PemBlock {
    label: String,
    body: Zeroizing<Vec<u8>>,
    dek_info: Option<String>,
}

/// The first PEM block in `text`; text before the BEGIN line and after the END line is
/// ignored, as OpenSSL does. Headers (RFC 1421 section 4.6) are read up to the blank line
/// that ends them: `Proc-Type: 4,ENCRYPTED` with a `DEK-Info`, or none at all.
fn pem_decode(text: &str) -> Result<PemBlock> {
    const NO_PEM: Error = Error::InvalidEncoding("no PEM block");
    const BAD_HEADERS: Error =
        Error::Unsupported("PEM headers other than Proc-Type: 4,ENCRYPTED and DEK-Info");
    let start = text.find("-----BEGIN ").ok_or(NO_PEM)?;
    let body = &text[start..];
    let end_line = body.find("-----END ").ok_or(NO_PEM)?;
    let end = body[end_line + 9..].find("-----").map(|i| end_line + 9 + i + 5).ok_or(NO_PEM)?;
    let mut lines = body[..end].lines();
    let begin = lines.next().ok_or(NO_PEM)?;
    let mut rest: Vec<&str> = lines.collect();
    let (mut proc_type, mut dek_info) = (None, None);
    if rest.first().is_some_and(|l| l.contains(':')) {
        let blank = rest.iter().position(|l| l.trim().is_empty()).ok_or(BAD_HEADERS)?;
        for header in rest.drain(..=blank).take(blank) {
            let (name, value) = header.split_once(':').ok_or(BAD_HEADERS)?;
            let slot = match name.trim() {
                "Proc-Type" => &mut proc_type,
                "DEK-Info" => &mut dek_info,
                _ => return Err(BAD_HEADERS),
            };
            if slot.replace(value.trim().to_string()).is_some() {
                return Err(BAD_HEADERS);
            }
        }
        if proc_type.as_deref() != Some("4,ENCRYPTED") || dek_info.is_none() {
            return Err(BAD_HEADERS);
        }
    }
    // The block again without its headers (its base64 may be a plain private key).
    let mut block = Zeroizing::new(String::with_capacity(end));
    for line in std::iter::once(begin).chain(rest) {
        block.push_str(line);
        block.push('\n');
    }
    let (label, der) = der::pem::decode_vec(block.as_bytes())
        .map_err(|_| Error::InvalidEncoding("malformed PEM"))?;
    Ok(PemBlock { label: label.to_string(), body: Zeroizing::new(der), dek_info })
}

/// The error of an encrypted key read without a password.
const NEEDS_PASSWORD: Error = Error::InvalidArgument("the key is encrypted: a password is needed");

/// Decodes a PEM block that must carry `label` and no encryption, and parses its DER with
/// `parse`.
fn from_pem_with<T>(text: &str, label: &str, parse: impl FnOnce(&[u8]) -> Result<T>) -> Result<T> {
    let block = pem_decode(text)?;
    if block.label != label {
        return Err(Error::InvalidEncoding("unexpected PEM label"));
    }
    if block.dek_info.is_some() {
        return Err(NEEDS_PASSWORD);
    }
    parse(&block.body)
}

/// Reads a key from PEM, by its label: "RSA PRIVATE KEY" (plain, or under legacy
/// encryption with `password`), "PRIVATE KEY", "ENCRYPTED PRIVATE KEY" (needs
/// `password`), "PUBLIC KEY", "RSA PUBLIC KEY".
pub fn key_from_pem(text: &str, password: Option<&[u8]>) -> Result<RsaKey> {
    key_from_pem_with(text, password, &KeyParseOptions::default())
}

/// As [`key_from_pem`], with `opts` (PBKDF2 ceiling, recovery of p and q).
pub fn key_from_pem_with(
    text: &str,
    password: Option<&[u8]>,
    opts: &KeyParseOptions,
) -> Result<RsaKey> {
    let block = pem_decode(text)?;
    let der = &block.body;
    if block.dek_info.is_some() {
        let password = password.ok_or(NEEDS_PASSWORD)?;
        return legacy_pem::decrypt_pkcs1(&block, password, opts).map(RsaKey::Private);
    }
    match block.label.as_str() {
        pkcs1::PRIVATE_LABEL => RsaPrivateKey::from_pkcs1_der_with(der, opts).map(RsaKey::Private),
        pkcs8::PRIVATE_LABEL => RsaPrivateKey::from_pkcs8_der_with(der, opts).map(RsaKey::Private),
        pkcs8::ENCRYPTED_LABEL => {
            let password = password.ok_or(NEEDS_PASSWORD)?;
            RsaPrivateKey::from_pkcs8_encrypted_der_with(der, password, opts).map(RsaKey::Private)
        }
        pkcs8::PUBLIC_LABEL => RsaPublicKey::from_public_key_der(der).map(RsaKey::Public),
        pkcs1::PUBLIC_LABEL => RsaPublicKey::from_pkcs1_der(der).map(RsaKey::Public),
        _ => Err(Error::Unsupported("PEM label is not an RSA key")),
    }
}

/// Reads a key from DER of any of the formats, trying PKCS#8, PKCS#1 private,
/// SubjectPublicKeyInfo, PKCS#1 public and (with `password`) encrypted PKCS#8. The
/// error is that of the format the bytes parse as, or [`Error::InvalidEncoding`].
pub fn key_from_der(der: &[u8], password: Option<&[u8]>) -> Result<RsaKey> {
    key_from_der_with(der, password, &KeyParseOptions::default())
}

/// As [`key_from_der`], with `opts` (PBKDF2 ceiling, recovery of p and q).
pub fn key_from_der_with(
    der: &[u8],
    password: Option<&[u8]>,
    opts: &KeyParseOptions,
) -> Result<RsaKey> {
    // The structures differ in their first fields, so at most one parses as DER; a key
    // that parses and then fails its checks reports that failure.
    let mut outcome = Err(Error::InvalidEncoding("not an RSA key in any known DER format"));
    let attempts: [&dyn Fn() -> Result<RsaKey>; 5] = [
        &|| RsaPrivateKey::from_pkcs8_der_with(der, opts).map(RsaKey::Private),
        &|| RsaPrivateKey::from_pkcs1_der_with(der, opts).map(RsaKey::Private),
        &|| RsaPublicKey::from_public_key_der(der).map(RsaKey::Public),
        &|| RsaPublicKey::from_pkcs1_der(der).map(RsaKey::Public),
        &|| match password {
            Some(pw) => {
                RsaPrivateKey::from_pkcs8_encrypted_der_with(der, pw, opts).map(RsaKey::Private)
            }
            None => Err(DER_ERROR),
        },
    ];
    for attempt in attempts {
        match attempt() {
            Ok(key) => return Ok(key),
            Err(e) if e == DER_ERROR => {}
            Err(e) => outcome = Err(e),
        }
    }
    outcome
}

impl RsaPrivateKey {
    /// Reads a private key from PEM: "RSA PRIVATE KEY" (under legacy encryption with
    /// `password`), "PRIVATE KEY", or "ENCRYPTED PRIVATE KEY" with `password`.
    pub fn from_pem(text: &str, password: Option<&[u8]>) -> Result<RsaPrivateKey> {
        match key_from_pem(text, password)? {
            RsaKey::Private(k) => Ok(k),
            RsaKey::Public(_) => {
                Err(Error::InvalidArgument("a public key where a private key is needed"))
            }
        }
    }
}

impl RsaPublicKey {
    /// Reads a public key from PEM: "PUBLIC KEY" or "RSA PUBLIC KEY", or the public half
    /// of an unencrypted private key.
    pub fn from_pem(text: &str) -> Result<RsaPublicKey> {
        match key_from_pem(text, None)? {
            RsaKey::Private(k) => Ok(k.public_key().clone()),
            RsaKey::Public(k) => Ok(k),
        }
    }
}
