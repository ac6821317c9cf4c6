//! EnvelopedData (RFC 5652 section 6): content encrypted under a fresh key, that key
//! transported to each recipient's RSA key (section 6.2.1), the seed paper's "digital
//! envelope".
//!
//! Opening one without a recipient certificate (no `-recip`) is a guess at which
//! RecipientInfo is ours, and a wrong guess does not fail reliably: key transport
//! unwraps any other recipient's key to a random or implicit-rejection key (see
//! `keytrans.rs`), under which the content's CBC padding still checks one time in about
//! 256, giving garbage. So [`decrypt`] first narrows the guess with what is public (an
//! encrypted key of another length than our modulus is not ours, RFC 8017 section 7.2.2
//! step 1; a subject key identifier equal to our key's SHA-1 identifier, RFC 5280
//! 4.2.1.2 method 1, names us), then tries every candidate left, and fails, asking for
//! the certificate, where two of them open to different content keys. Decryption errors
//! stay silent about padding: implicit rejection is kept throughout.

use super::content::{DATA, open, wrap};
use super::content_cipher::ContentCipher;
use super::ident::CertId;
use super::keytrans::KeyTransport;
use crate::cert::key_id;
use crate::{Error, Result};
use cms::content_info::CmsVersion;
use cms::enveloped_data::{
    EncryptedContentInfo, EnvelopedData, KeyTransRecipientInfo, RecipientIdentifier, RecipientInfo,
    RecipientInfos,
};
use const_oid::db::rfc5911::ID_ENVELOPED_DATA;
use cryptocard::rsa::{RsaPrivateKey, RsaPublicKey};
use der::asn1::OctetString;
use x509_cert::Certificate;
use zeroize::Zeroizing;

/// The most key-transport recipients [`decrypt`] tries with one key when no certificate
/// says which is ours.
pub const MAX_TRIED_RECIPIENTS: usize = 64;

/// One recipient of an envelope: its certificate (which names it and holds its key) and
/// how the content key travels to it.
#[derive(Clone, Debug)]
pub struct Recipient {
    /// The recipient's certificate.
    pub cert: Certificate,
    /// PKCS#1 v1.5 or OAEP.
    pub transport: KeyTransport,
    /// Name the recipient by subject key identifier (`-keyid`) instead of issuer and
    /// serial number.
    pub by_key_id: bool,
}

/// The RSA public key in `cert`.
pub(crate) fn cert_public_key(cert: &Certificate) -> Result<RsaPublicKey> {
    crate::sig::public_key_from_spki(cert.tbs_certificate().subject_public_key_info())
}

/// An EnvelopedData ContentInfo (DER) of `content` for `recipients`.
pub fn encrypt(content: &[u8], recipients: &[Recipient], cipher: ContentCipher) -> Result<Vec<u8>> {
    if recipients.is_empty() {
        return Err(Error::NoMatch("no recipient certificate given".into()));
    }
    let cek = cipher.generate_key()?;
    let mut infos = Vec::with_capacity(recipients.len());
    for r in recipients {
        let rid = CertId::of(&r.cert, r.by_key_id, "recipient")?.recipient();
        let version = if r.by_key_id { CmsVersion::V2 } else { CmsVersion::V0 };
        let enc_key = r.transport.wrap(&cert_public_key(&r.cert)?, &cek)?;
        infos.push(RecipientInfo::Ktri(KeyTransRecipientInfo {
            version,
            rid,
            key_enc_alg: r.transport.algorithm_identifier()?,
            enc_key: OctetString::new(enc_key)?,
        }));
    }
    // Version 0 unless a recipient is named by key identifier (section 6.1).
    let version =
        if recipients.iter().any(|r| r.by_key_id) { CmsVersion::V2 } else { CmsVersion::V0 };
    let (content_enc_alg, ciphertext) = cipher.encrypt(&cek, content)?;
    let ed = EnvelopedData {
        version,
        originator_info: None,
        recip_infos: RecipientInfos::try_from(infos)?,
        encrypted_content: EncryptedContentInfo {
            content_type: DATA,
            content_enc_alg,
            encrypted_content: Some(OctetString::new(ciphertext)?),
        },
        unprotected_attrs: None,
    };
    wrap(ID_ENVELOPED_DATA, &ed)
}

/// The content of an EnvelopedData ContentInfo (DER or BER), opened with `key`. With
/// `cert`, the recipient it names is used ([`Error::NoMatch`] if none); without, each key
/// transport recipient that may be ours is tried (see the module docs), and
/// [`Error::NoMatch`] says when several open differently.
pub fn decrypt(
    der: &[u8],
    key: &RsaPrivateKey,
    cert: Option<&Certificate>,
) -> Result<Zeroizing<Vec<u8>>> {
    let ed: EnvelopedData = open(der, ID_ENVELOPED_DATA, "EnvelopedData")?;
    let eci = &ed.encrypted_content;
    let (cipher, iv) = ContentCipher::from_algorithm(&eci.content_enc_alg)?;
    let ciphertext = eci
        .encrypted_content
        .as_ref()
        .ok_or_else(|| Error::Unsupported("detached encrypted content".into()))?
        .as_bytes();
    let ktris = ed.recip_infos.0.iter().filter_map(|ri| match ri {
        RecipientInfo::Ktri(k) => Some(k),
        _ => None,
    });
    let candidates: Vec<&KeyTransRecipientInfo> = match cert {
        Some(c) => ktris.filter(|k| CertId::from(&k.rid).names(c)).collect(),
        None => maybe_ours(ktris, key)?,
    };
    if candidates.is_empty() {
        return Err(Error::NoMatch("no matching recipient".into()));
    }
    // Each candidate costs a private-key operation: a hostile message with thousands of
    // recipients must not buy thousands of them.
    if candidates.len() > MAX_TRIED_RECIPIENTS {
        return Err(Error::Unsupported(format!(
            "{} recipients to try: name ours with its certificate (-recip)",
            candidates.len()
        )));
    }
    // The content key and content of the first candidate that opened.
    let mut opened: Option<(Secret, Secret)> = None;
    for ktri in candidates {
        let transport = KeyTransport::from_algorithm_identifier(&ktri.key_enc_alg)?;
        let cek = transport.unwrap(key, ktri.enc_key.as_bytes(), cipher.key_len())?;
        let Ok(content) = cipher.decrypt(&cek, &iv, ciphertext) else { continue };
        match &opened {
            // A recipient named by the certificate: the first that opens.
            _ if cert.is_some() => return Ok(content),
            None => opened = Some((cek, content)),
            Some((first, _)) if same_key(first, &cek) => {}
            Some(_) => {
                return Err(Error::NoMatch(
                    "more than one recipient opens with this key: name ours with its \
                     certificate (-recip)"
                        .into(),
                ));
            }
        }
    }
    opened.map(|(_, content)| content).ok_or(Error::Crypto(cryptocard::Error::Decryption))
}

/// The key transport recipients that may be ours when no certificate says which: those
/// whose encrypted key has our modulus's length, narrowed to those that name our key by
/// its method-1 key identifier if any does. The identifier is a hint only (a CA may
/// compute identifiers otherwise), so one that does not match excludes nothing.
fn maybe_ours<'a>(
    ktris: impl Iterator<Item = &'a KeyTransRecipientInfo>,
    key: &RsaPrivateKey,
) -> Result<Vec<&'a KeyTransRecipientInfo>> {
    let ours = key_id(&crate::sig::spki_of(key.public_key())?)?;
    let sized: Vec<_> = ktris.filter(|k| k.enc_key.as_bytes().len() == key.size()).collect();
    let named: Vec<_> = sized
        .iter()
        .copied()
        .filter(|k| match &k.rid {
            RecipientIdentifier::SubjectKeyIdentifier(ski) => ski.0.as_bytes() == ours,
            RecipientIdentifier::IssuerAndSerialNumber(_) => false,
        })
        .collect();
    Ok(if named.is_empty() { sized } else { named })
}

/// Key or content bytes, wiped when dropped.
type Secret = Zeroizing<Vec<u8>>;

/// Whether two content keys are equal, in time independent of where they differ.
fn same_key(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
