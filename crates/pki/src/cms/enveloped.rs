//! EnvelopedData (RFC 5652 section 6): content encrypted under a fresh key, that key
//! transported to each recipient's RSA key (section 6.2.1), the seed paper's "digital
//! envelope".

use super::content::{DATA, open, wrap};
use super::content_cipher::ContentCipher;
use super::ident::CertId;
use super::keytrans::KeyTransport;
use crate::{Error, Result};
use cms::content_info::CmsVersion;
use cms::enveloped_data::{
    EncryptedContentInfo, EnvelopedData, KeyTransRecipientInfo, RecipientInfo, RecipientInfos,
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
/// transport recipient is tried in turn.
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
        None => ktris.collect(),
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
    for ktri in candidates {
        let transport = KeyTransport::from_algorithm_identifier(&ktri.key_enc_alg)?;
        let cek = transport.unwrap(key, ktri.enc_key.as_bytes(), cipher.key_len())?;
        if let Ok(content) = cipher.decrypt(&cek, &iv, ciphertext) {
            return Ok(content);
        }
    }
    Err(Error::Crypto(cryptocard::Error::Decryption))
}
