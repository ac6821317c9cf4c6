//! Verification of SignedData (RFC 5652 section 5.6): for every signer, its certificate
//! (found among the message's certificates and the caller's by issuer and serial number
//! or key identifier) chains to a trusted root; the message-digest attribute equals the
//! content's digest and the content-type attribute its type (section 11.1-11.2); and the
//! signature verifies over the signed attributes' DER as a SET OF (section 5.4), or over
//! the content when there are none, which only id-data content may do (section 5.3). A
//! certificate that says it is for something else (keyUsage, extendedKeyUsage), or whose
//! CAs do, does not sign (RFC 8550 section 4.4; `cert::Purpose::SmimeSign`), and an RSA
//! key under 1024 bits does not sign, even unchained (`-noverify`). If asked
//! ([`CrlCheck`]), the signers' paths are checked for revocation (RFC 5280 section 6.3)
//! by the caller's CRLs and the message's own (its `crls`, section 10.2.1), as OpenSSL's
//! `-crl_check` checks them.
//!
//! The signers of one message share one `cert::PathBudget`: however many signers and
//! decoy certificates a message brings, its chains cost a bounded number of failed
//! signature checks, and a certificate pair checked for one signer is not checked again.

use super::content::{DATA, open};
use super::enveloped::cert_public_key;
use super::ident::CertId;
use super::raw_set::RawSet;
use crate::cert::{
    Crl, MIN_RSA_BITS, PathBudget, PathChecks, PathError, PathFailure, PolicyInputs, Purpose,
    Revocation,
};
use crate::sig::SigScheme;
use crate::sig::hash_from_id as hash_of;
use crate::{Error, Result};
use cms::cert::CertificateChoices;
use cms::content_info::CmsVersion;
use cms::signed_data::{CertificateSet, DigestAlgorithmIdentifiers, SignerInfo, SignerInfos};
use const_oid::ObjectIdentifier;
use const_oid::db::rfc5911::{ID_CONTENT_TYPE, ID_MESSAGE_DIGEST, ID_SIGNED_DATA};
use const_oid::db::rfc5912::RSA_ENCRYPTION;
use cryptocard::digest::{HashAlg, Hasher};
use der::asn1::OctetString;
use der::{Encode, Sequence};
use std::time::SystemTime;
use x509_cert::Certificate;

/// SignedData (RFC 5652 section 5.1) as the `cms` crate defines it, but with the
/// encapsulated content read as an OCTET STRING: der's `Any` keeps a BER constructed
/// OCTET STRING (OpenSSL's `-stream` output) as its chunks' encodings, while `OctetString`
/// decoding reassembles them.
#[derive(Clone, Debug, Sequence)]
struct SignedData {
    version: CmsVersion,
    digest_algorithms: DigestAlgorithmIdentifiers,
    encap_content_info: EncapsulatedData,
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    certificates: Option<CertificateSet>,
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", optional = "true")]
    crls: Option<RawSet>,
    signer_infos: SignerInfos,
}

/// EncapsulatedContentInfo with OCTET STRING content (which RFC 5652 section 5.2
/// requires).
#[derive(Clone, Debug, Sequence)]
struct EncapsulatedData {
    econtent_type: ObjectIdentifier,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    econtent: Option<OctetString>,
}

/// The most signers [`verify`] checks in one message.
pub const MAX_SIGNERS: usize = 64;

/// The most certificates (the message's and the caller's untrusted ones) [`verify`]
/// searches for signers and issuers.
pub const MAX_CERTIFICATES: usize = 256;

/// What to trust and check.
#[derive(Clone, Debug, Default)]
pub struct VerifyOptions {
    /// The trusted roots (`-CAfile`).
    pub trusted: Vec<Certificate>,
    /// More certificates to find signers and intermediates among (`-certfile`).
    pub untrusted: Vec<Certificate>,
    /// Check the signatures only, not the signers' certificate chains (`-noverify`).
    pub no_chain: bool,
    /// The time at which the chains must be valid; `None` for now.
    pub at: Option<SystemTime>,
    /// Whose certificates are checked for revocation (`-crl_check`, `-crl_check_all`).
    pub crl_check: CrlCheck,
    /// CRLs beside the message's own (those of `-CAfile`).
    pub crls: Vec<Crl>,
    /// The email address each signer's certificate must be for (`-verify_email`).
    pub email: Option<String>,
    /// The policies acceptable for the signers' paths (`-policy`); none for any.
    pub policies: Vec<ObjectIdentifier>,
    /// A valid policy is required (`-explicit_policy`).
    pub explicit_policy: bool,
    /// anyPolicy does not stand for other policies (`-inhibit_any`).
    pub inhibit_any: bool,
    /// Policy mappings are not followed (`-inhibit_map`).
    pub inhibit_map: bool,
    /// The conformance checks of a strict path validation (`-x509_strict`).
    pub strict: bool,
}

/// Which certificates of the signers' paths are checked for revocation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CrlCheck {
    /// None (the default, as in OpenSSL).
    #[default]
    Off,
    /// The signers' own certificates (`-crl_check`).
    Signers,
    /// Every certificate of the paths, the trust anchors included (`-crl_check_all`).
    All,
}

/// A verified SignedData: its content and the certificates of its signers.
#[derive(Clone, Debug)]
pub struct Verified {
    /// The content that was signed (the detached content when one was given).
    pub content: Vec<u8>,
    /// Each signer's certificate, in the order of the SignerInfos.
    pub signers: Vec<Certificate>,
}

/// Verifies a SignedData ContentInfo (DER or BER). `detached` is the content of a
/// detached signature (it replaces an encapsulated one, as in OpenSSL).
pub fn verify(der: &[u8], detached: Option<&[u8]>, opts: &VerifyOptions) -> Result<Verified> {
    let checked = verify_for(der, detached, opts, Purpose::SmimeSign)?;
    let signers = checked.signers.into_iter().filter_map(|s| s.path.into_iter().next()).collect();
    Ok(Verified { content: checked.content, signers })
}

/// Reads a SignedData ContentInfo (DER or BER) whole, its certificates and signers
/// included, as OpenSSL's `d2i_PKCS7` does before anything looks inside (a time-stamp
/// token read).
pub(crate) fn parse_signed(der: &[u8]) -> Result<()> {
    let _: SignedData = open(der, ID_SIGNED_DATA, "SignedData")?;
    Ok(())
}

/// One signer [`verify_for`] checked.
pub(crate) struct CheckedSigner {
    /// The signer's path, its certificate first (only that without a chain check).
    pub path: Vec<Certificate>,
    /// Its SignerInfo.
    pub info: SignerInfo,
}

/// What [`verify_for`] found.
pub(crate) struct Checked {
    /// The content signed.
    pub content: Vec<u8>,
    /// Each signer, in the order of the SignerInfos.
    pub signers: Vec<CheckedSigner>,
}

/// [`verify`] with the signers' paths checked for `purpose` (a time-stamping
/// authority's, for a token), giving each signer's path and SignerInfo.
pub(crate) fn verify_for(
    der: &[u8],
    detached: Option<&[u8]>,
    opts: &VerifyOptions,
    purpose: Purpose,
) -> Result<Checked> {
    let sd: SignedData = open(der, ID_SIGNED_DATA, "SignedData")?;
    let encap = &sd.encap_content_info;
    let content = match (detached, &encap.econtent) {
        (Some(c), _) => c.to_vec(),
        (None, Some(octets)) => octets.as_bytes().to_vec(),
        (None, None) => {
            return Err(Error::Verify("no content: a detached signature needs its content".into()));
        }
    };
    if sd.signer_infos.0.is_empty() {
        return Err(Error::Verify("no signers".into()));
    }
    // Each signer costs a signature check and a chain search among the certificates: a
    // hostile message must not buy an unbounded number of them.
    if sd.signer_infos.0.len() > MAX_SIGNERS {
        return Err(Error::Unsupported(format!("more than {MAX_SIGNERS} signers")));
    }
    let mut pool: Vec<Certificate> = sd
        .certificates
        .iter()
        .flat_map(|set| set.0.iter())
        .filter_map(|c| match c {
            CertificateChoices::Certificate(cert) => Some(cert.clone()),
            CertificateChoices::Other(_) => None,
        })
        .collect();
    pool.extend(opts.untrusted.iter().cloned());
    if pool.len() > MAX_CERTIFICATES {
        return Err(Error::Unsupported(format!("more than {MAX_CERTIFICATES} certificates")));
    }
    let at = opts.at.unwrap_or_else(SystemTime::now);
    // The caller's CRLs and the message's, gathered only when they are consulted.
    let mut crls = Vec::new();
    if opts.crl_check != CrlCheck::Off {
        crls.extend(opts.crls.iter().cloned());
        if let Some(set) = &sd.crls {
            crls.extend(set.crls()?);
        }
    }
    let checks = PathChecks {
        revocation: match opts.crl_check {
            CrlCheck::Off => None,
            CrlCheck::Signers => Some(Revocation { crls: &crls, all: false }),
            CrlCheck::All => Some(Revocation { crls: &crls, all: true }),
        },
        email: opts.email.as_deref(),
        policy: PolicyInputs {
            user_policies: (!opts.policies.is_empty()).then_some(opts.policies.as_slice()),
            explicit: opts.explicit_policy,
            inhibit_any: opts.inhibit_any,
            inhibit_map: opts.inhibit_map,
        },
        strict: opts.strict,
        ..PathChecks::new(at, purpose)
    };
    let mut signers = Vec::with_capacity(sd.signer_infos.0.len());
    let mut budget = PathBudget::new();
    for info in sd.signer_infos.0.iter() {
        let cert = pool
            .iter()
            .find(|c| CertId::from(&info.sid).names(c))
            .ok_or_else(|| Error::Verify("signer certificate not found".into()))?;
        let path = match opts.no_chain {
            true => vec![cert.clone()],
            false => {
                crate::cert::verify_chain_report(cert, &pool, &opts.trusted, &checks, &mut budget)?
                    .into_result()?
            }
        };
        verify_signer(info, cert, &content, &encap.econtent_type)?;
        signers.push(CheckedSigner { path, info: info.clone() });
    }
    Ok(Checked { content, signers })
}

/// The scheme of a SignerInfo: `rsaEncryption` (PKCS#1 v1.5 with the digest algorithm),
/// a `shaNWithRSAEncryption`, or RSASSA-PSS, whose hash must be the digest algorithm.
fn signer_scheme(info: &SignerInfo, hash: HashAlg) -> Result<SigScheme> {
    if info.signature_algorithm.oid == RSA_ENCRYPTION {
        return Ok(SigScheme::Pkcs1v15(hash));
    }
    let scheme = SigScheme::from_algorithm_identifier(&info.signature_algorithm)?;
    if super::signed::scheme_hash(&scheme)? != hash {
        return Err(Error::Verify("signature and digest algorithms disagree".into()));
    }
    Ok(scheme)
}

/// The one value of attribute `oid` in `info`'s signed attributes, decoded as `T`.
fn single_attr<T>(info: &SignerInfo, oid: ObjectIdentifier, name: &str) -> Result<T>
where
    T: for<'a> der::Decode<'a, Error = der::Error>,
{
    let attrs = info.signed_attrs.as_ref().expect("internal error: called with attributes");
    let mut found = attrs.iter().filter(|a| a.oid == oid);
    let (Some(attr), None) = (found.next(), found.next()) else {
        return Err(Error::Verify(format!("signed attributes need exactly one {name}")));
    };
    let mut values = attr.values.iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return Err(Error::Verify(format!("{name} attribute needs exactly one value")));
    };
    Ok(T::from_der(&value.to_der()?)?)
}

fn verify_signer(
    info: &SignerInfo,
    cert: &Certificate,
    content: &[u8],
    content_type: &ObjectIdentifier,
) -> Result<()> {
    let hash = hash_of(&info.digest_alg)?;
    let scheme = signer_scheme(info, hash)?;
    let content_digest = Hasher::digest(hash, content);
    let signed_digest = match &info.signed_attrs {
        // Without signed attributes nothing binds the content type to the signature, so
        // RFC 5652 section 5.3 requires them for any content type but id-data.
        None if *content_type != DATA => {
            return Err(Error::Verify(
                "no signed attributes, which a content type other than id-data requires".into(),
            ));
        }
        None => content_digest.as_bytes().to_vec(),
        Some(attrs) => {
            let md: OctetString = single_attr(info, ID_MESSAGE_DIGEST, "message digest")?;
            if md.as_bytes() != content_digest.as_bytes() {
                return Err(Error::Verify("digest failure: the content does not match".into()));
            }
            let ct: ObjectIdentifier = single_attr(info, ID_CONTENT_TYPE, "content type")?;
            if &ct != content_type {
                return Err(Error::Verify("content type attribute does not match".into()));
            }
            Hasher::digest(hash, &attrs.to_der()?).as_bytes().to_vec()
        }
    };
    let key = cert_public_key(cert)?;
    if key.bits() < MIN_RSA_BITS {
        return Err(Error::Path(PathError::new(PathFailure::EeKeyTooSmall, 0, cert)));
    }
    crate::sig::verify_digest(&key, &scheme, &signed_digest, info.signature.as_bytes())
        .map_err(|_| Error::Verify("signature failure".into()))
}
