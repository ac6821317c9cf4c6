//! SignedData (RFC 5652 section 5): the seed paper's "digital signature" object.
//!
//! For each signer, the content's digest goes into the signed attributes (content type,
//! message digest, signing time, S/MIME capabilities; section 5.3 and RFC 8551 section
//! 2.5.2), and the signature covers their DER as a SET OF (section 5.4). Without
//! attributes (`-noattr`) it covers the content itself.
//!
//! The RSA operation of each signer is a prehashed [`PrivateRequest`]: run alone for
//! [`sign`], or for [`sign_many`] handed to the engine all together, so that a batch of
//! documents signed with one key fills the IFMA unit's eight lanes.

use super::content::{DATA, wrap};
use super::ident::CertId;
use super::keytrans::hash_algorithm;
use super::raw_set::RawSet;
use crate::cert::Crl;
use crate::sig::{self, SigScheme};
use crate::{Error, Result};
use cms::content_info::CmsVersion;
use cms::signed_data::{
    DigestAlgorithmIdentifiers, EncapsulatedContentInfo, SignerIdentifier, SignerInfo, SignerInfos,
};
use const_oid::ObjectIdentifier;
use const_oid::db::rfc5911::{
    DES_EDE_3_CBC, ID_AES_128_CBC, ID_AES_192_CBC, ID_AES_256_CBC, ID_CONTENT_TYPE,
    ID_MESSAGE_DIGEST, ID_SIGNED_DATA, ID_SIGNING_TIME, SMIME_CAPABILITIES,
};
use const_oid::db::rfc5912::RSA_ENCRYPTION;
use cryptocard::digest::{HashAlg, Hasher};
use cryptocard::engine::Engine;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{PrivateRequest, PssHash, RsaPrivateKey};
use der::asn1::{OctetString, SetOfVec};
use der::{Any, Encode, Sequence};
use spki::AlgorithmIdentifierOwned;
use std::sync::Arc;
use std::time::SystemTime;
use x509_cert::Certificate;
use x509_cert::attr::{Attribute, Attributes};
use x509_cert::time::Time;

/// One signer: its key, its certificate, and the signature scheme.
#[derive(Clone, Debug)]
pub struct Signer {
    /// The private key (shared with the engine for [`sign_many`]).
    pub key: Arc<RsaPrivateKey>,
    /// The certificate of `key`, which names the signer.
    pub cert: Certificate,
    /// PKCS#1 v1.5 or PSS, with the digest of the content and attributes.
    pub scheme: SigScheme,
    /// Name the signer by subject key identifier (`-keyid`), not issuer and serial.
    pub by_key_id: bool,
}

/// What goes into a SignedData besides the signatures.
#[derive(Clone, Debug)]
pub struct SignOptions {
    /// Leave the content out (a detached signature; `openssl cms -sign`'s default).
    pub detached: bool,
    /// Include the signers' certificates (`-nocerts` clears it).
    pub include_certs: bool,
    /// More certificates to include (`-certfile`).
    pub extra_certs: Vec<Certificate>,
    /// Sign attributes (`-noattr` clears it: the signature covers the content itself).
    pub signed_attrs: bool,
    /// Add the S/MIME capabilities attribute (`-nosmimecap` clears it).
    pub smime_capabilities: bool,
    /// The signing-time attribute's value; `None` for the current time.
    pub signing_time: Option<SystemTime>,
    /// CRLs to include (RFC 5652 section 10.2.1), for a verifier's revocation check
    /// (OpenSSL's `CMS_add1_crl`).
    pub crls: Vec<Crl>,
    /// The content's type (`eContentType`): id-data, or another for a content of its own
    /// (a time-stamp token's TSTInfo), which needs signed attributes (section 5.3).
    pub content_type: ObjectIdentifier,
    /// More signed attributes, after those above (a time-stamp token's signing
    /// certificate).
    pub extra_attrs: Vec<Attribute>,
}

impl Default for SignOptions {
    fn default() -> SignOptions {
        SignOptions {
            detached: true,
            include_certs: true,
            extra_certs: Vec::new(),
            signed_attrs: true,
            smime_capabilities: true,
            signing_time: None,
            crls: Vec::new(),
            content_type: DATA,
            extra_attrs: Vec::new(),
        }
    }
}

/// SignedData (RFC 5652 section 5.1) as the `cms` crate defines it, but with its CRLs
/// as a [`RawSet`], which holds CRLs of any version.
#[derive(Sequence)]
struct SignedData {
    version: CmsVersion,
    digest_algorithms: DigestAlgorithmIdentifiers,
    encap_content_info: EncapsulatedContentInfo,
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    certificates: Option<RawSet>,
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", optional = "true")]
    crls: Option<RawSet>,
    signer_infos: SignerInfos,
}

/// A SignedData ContentInfo (DER) over `content` by every one of `signers`.
pub fn sign(content: &[u8], signers: &[Signer], opts: &SignOptions) -> Result<Vec<u8>> {
    if signers.is_empty() {
        return Err(Error::NoMatch("no signer given".into()));
    }
    let prepared = signers.iter().map(|s| prepare(content, s, opts)).collect::<Result<Vec<_>>>()?;
    let mut infos = Vec::with_capacity(signers.len());
    for (s, p) in signers.iter().zip(prepared) {
        let sig = p.request.run(&s.key, &mut OsRng)?;
        infos.push(p.finish(sig)?);
    }
    assemble(content, signers, infos, opts)
}

/// One SignedData (DER) for each of `contents`, all signed by `signer` through `engine`,
/// which spreads their RSA operations over its workers and batches them. Each content
/// fails alone.
pub fn sign_many(
    engine: &Engine,
    contents: &[&[u8]],
    signer: &Signer,
    opts: &SignOptions,
) -> Vec<Result<Vec<u8>>> {
    sign_each(contents, signer, opts, |requests| {
        let requests: Vec<_> =
            requests.iter().map(|r| (Arc::clone(&signer.key), (*r).clone())).collect();
        engine.sign_batch(&requests)
    })
}

/// [`sign_many`] on the calling thread: the RSA operations in one
/// [`private_batch`](cryptocard::rsa::private_batch), which fills the IFMA lanes where the
/// CPU has them, for a caller that runs its own thread per core. Each content fails
/// alone.
pub fn sign_batch(contents: &[&[u8]], signer: &Signer, opts: &SignOptions) -> Vec<Result<Vec<u8>>> {
    sign_each(contents, signer, opts, |requests| {
        let pairs: Vec<_> = requests.iter().map(|r| (&*signer.key, *r)).collect();
        cryptocard::rsa::private_batch(&pairs, &mut OsRng)
    })
}

/// The body of [`sign_many`] and [`sign_batch`]: `run` makes the signatures of the
/// prepared requests, one answer each, in order.
fn sign_each(
    contents: &[&[u8]],
    signer: &Signer,
    opts: &SignOptions,
    run: impl FnOnce(&[&PrivateRequest]) -> Vec<cryptocard::Result<Vec<u8>>>,
) -> Vec<Result<Vec<u8>>> {
    let prepared: Vec<Result<Prepared>> =
        contents.iter().map(|c| prepare(c, signer, opts)).collect();
    let requests: Vec<&PrivateRequest> =
        prepared.iter().filter_map(|p| p.as_ref().ok()).map(|p| &p.request).collect();
    let mut answers = run(&requests).into_iter();
    let signers = std::slice::from_ref(signer);
    contents
        .iter()
        .zip(prepared)
        .map(|(content, p)| {
            let p = p?;
            let sig = answers.next().ok_or(Error::Crypto(cryptocard::Error::Internal(
                "fewer signatures than requests",
            )))??;
            assemble(content, signers, vec![p.finish(sig)?], opts)
        })
        .collect()
}

/// A signer's SignerInfo less its signature, and the RSA request that makes it.
struct Prepared {
    version: CmsVersion,
    sid: SignerIdentifier,
    digest_alg: AlgorithmIdentifierOwned,
    signed_attrs: Option<Attributes>,
    signature_algorithm: AlgorithmIdentifierOwned,
    request: PrivateRequest,
}

impl Prepared {
    fn finish(self, signature: Vec<u8>) -> Result<SignerInfo> {
        Ok(SignerInfo {
            version: self.version,
            sid: self.sid,
            digest_alg: self.digest_alg,
            signed_attrs: self.signed_attrs,
            signature_algorithm: self.signature_algorithm,
            signature: OctetString::new(signature)?,
            unsigned_attrs: None,
        })
    }
}

/// The digest algorithm of a CMS signer's scheme (RFC 4056 section 2: PSS's hash).
pub(super) fn scheme_hash(scheme: &SigScheme) -> Result<HashAlg> {
    match scheme {
        SigScheme::Pkcs1v15(h) => Ok(*h),
        SigScheme::Pss(p) => match p.hash {
            PssHash::Hash(h) => Ok(h),
            PssHash::Shake(_) => Err(Error::Unsupported("RSASSA-PSS with SHAKE in CMS".into())),
        },
    }
}

/// The `signatureAlgorithm` of a SignerInfo: `rsaEncryption` for PKCS#1 v1.5 (as OpenSSL
/// writes it; RFC 3370 section 3.2 allows both), `id-RSASSA-PSS` with its parameters.
fn signature_algorithm(scheme: &SigScheme) -> Result<AlgorithmIdentifierOwned> {
    match scheme {
        SigScheme::Pkcs1v15(_) => Ok(AlgorithmIdentifierOwned {
            oid: RSA_ENCRYPTION,
            parameters: Some(Any::encode_from(&der::asn1::Null)?),
        }),
        SigScheme::Pss(_) => scheme.algorithm_identifier(),
    }
}

fn attribute(oid: ObjectIdentifier, value: Any) -> Result<Attribute> {
    Ok(Attribute { oid, values: SetOfVec::try_from(vec![value])? })
}

/// The S/MIME capabilities OpenSSL advertises that this crate also decrypts, strongest
/// first (RFC 8551 section 2.5.2).
fn smime_capabilities() -> Result<Any> {
    let caps: Vec<AlgorithmIdentifierOwned> =
        [ID_AES_256_CBC, ID_AES_192_CBC, ID_AES_128_CBC, DES_EDE_3_CBC]
            .into_iter()
            .map(|oid| AlgorithmIdentifierOwned { oid, parameters: None })
            .collect();
    Ok(Any::encode_from(&caps)?)
}

fn prepare(content: &[u8], signer: &Signer, opts: &SignOptions) -> Result<Prepared> {
    // A PSS salt of "maximum" or "digest length" becomes the number the parameters carry.
    let scheme = signer.scheme.for_key(signer.key.public_key())?;
    let hash = scheme_hash(&scheme)?;
    let content_digest = Hasher::digest(hash, content);
    let (signed_attrs, to_sign) = if opts.signed_attrs {
        let time = Time::try_from(opts.signing_time.unwrap_or_else(SystemTime::now))?;
        let mut attrs = vec![
            attribute(ID_CONTENT_TYPE, Any::encode_from(&opts.content_type)?)?,
            attribute(ID_SIGNING_TIME, Any::encode_from(&time)?)?,
            attribute(
                ID_MESSAGE_DIGEST,
                Any::encode_from(&OctetString::new(content_digest.as_bytes())?)?,
            )?,
        ];
        if opts.smime_capabilities {
            attrs.push(attribute(SMIME_CAPABILITIES, smime_capabilities()?)?);
        }
        attrs.extend(opts.extra_attrs.iter().cloned());
        let attrs = Attributes::try_from(attrs)?;
        let digest = Hasher::digest(hash, &attrs.to_der()?).as_bytes().to_vec();
        (Some(attrs), digest)
    } else if opts.content_type == DATA {
        (None, content_digest.as_bytes().to_vec())
    } else {
        return Err(Error::Unsupported(
            "a content type other than id-data without signed attributes".into(),
        ));
    };
    let request = sig::digest_request(&scheme, to_sign)?;
    let id = CertId::of(&signer.cert, signer.by_key_id, "signer")?;
    // Version 1 names the signer by issuer and serial, version 3 by key id (section 5.3).
    let version = if signer.by_key_id { CmsVersion::V3 } else { CmsVersion::V1 };
    let sid = id.signer();
    Ok(Prepared {
        version,
        sid,
        digest_alg: hash_algorithm(hash)?,
        signed_attrs,
        signature_algorithm: signature_algorithm(&scheme)?,
        request,
    })
}

/// The SignedData ContentInfo around finished SignerInfos.
fn assemble(
    content: &[u8],
    signers: &[Signer],
    infos: Vec<SignerInfo>,
    opts: &SignOptions,
) -> Result<Vec<u8>> {
    let mut digests: Vec<AlgorithmIdentifierOwned> = Vec::new();
    for info in &infos {
        if !digests.contains(&info.digest_alg) {
            digests.push(info.digest_alg.clone());
        }
    }
    let mut certs: Vec<Certificate> = Vec::new();
    let mine = signers.iter().map(|s| &s.cert).filter(|_| opts.include_certs);
    for cert in mine.chain(&opts.extra_certs) {
        if !certs.contains(cert) {
            certs.push(cert.clone());
        }
    }
    // As issued (`cert::to_der`), not re-encoded.
    let cert_ders = certs.iter().map(crate::cert::to_der).collect::<Result<Vec<_>>>()?;
    let certificates = RawSet::sorted(cert_ders.iter().map(Vec::as_slice));
    // Version 1 unless a signer is named by key identifier or the content is not id-data
    // (section 5.1).
    let version = if infos.iter().any(|i| i.version == CmsVersion::V3) || opts.content_type != DATA
    {
        CmsVersion::V3
    } else {
        CmsVersion::V1
    };
    let econtent =
        if opts.detached { None } else { Some(Any::encode_from(&OctetString::new(content)?)?) };
    let sd = SignedData {
        version,
        digest_algorithms: SetOfVec::try_from(digests)?,
        encap_content_info: EncapsulatedContentInfo { econtent_type: opts.content_type, econtent },
        certificates,
        crls: RawSet::of(&opts.crls),
        signer_infos: SignerInfos::try_from(infos)?,
    };
    wrap(ID_SIGNED_DATA, &sd)
}
