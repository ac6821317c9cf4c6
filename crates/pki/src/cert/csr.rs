//! Certification requests (PKCS#10, RFC 2986): making one for a key and a name, and
//! checking its self-signature (section 4: the request is signed with the subject's
//! own key, proving possession). `x509-cert`'s request types have public fields, so the
//! request is assembled directly; its `CertificationRequestInfo` DER is what is signed.
//!
//! Requested extensions (`req -addext`) go into a PKCS#9 extensionRequest attribute; with
//! none, the attribute set is empty, as OpenSSL writes it.

use crate::sig::{self, SigScheme};
use crate::{Error, Result};
use cryptocard::rsa::RsaPrivateKey;
use der::Encode;
use der::asn1::{BitString, SetOfVec};
use x509_cert::attr::Attribute;
use x509_cert::ext::Extension;
use x509_cert::name::Name;
use x509_cert::request::{CertReq, CertReqInfo, ExtensionReq, Version};

/// A request for `key`'s public half named `subject`, signed with `key` under `scheme`.
pub fn make_csr(key: &RsaPrivateKey, subject: Name, scheme: &SigScheme) -> Result<CertReq> {
    make_csr_with(key, subject, scheme, &[])
}

/// As [`make_csr`], requesting `extensions` for the certificate.
pub fn make_csr_with(
    key: &RsaPrivateKey,
    subject: Name,
    scheme: &SigScheme,
    extensions: &[Extension],
) -> Result<CertReq> {
    let scheme = scheme.for_key(key.public_key())?;
    let mut attributes = SetOfVec::new();
    if !extensions.is_empty() {
        attributes.insert(Attribute::try_from(ExtensionReq(extensions.to_vec()))?)?;
    }
    let info = CertReqInfo {
        version: Version::V1,
        subject,
        public_key: sig::spki_of(key.public_key())?,
        attributes,
    };
    let signature = sig::sign(key, &scheme, &info.to_der()?)?;
    Ok(CertReq {
        info,
        algorithm: scheme.algorithm_identifier()?,
        signature: BitString::from_bytes(&signature)?,
    })
}

/// Checks the request's self-signature with the key it holds.
pub fn verify_csr(csr: &CertReq) -> Result<()> {
    let scheme = SigScheme::from_algorithm_identifier(&csr.algorithm)?;
    let key = sig::public_key_from_spki(&csr.info.public_key)?;
    let signature = csr
        .signature
        .as_bytes()
        .ok_or_else(|| Error::Malformed("signature is not a whole number of bytes".into()))?;
    sig::verify(&key, &scheme, &csr.info.to_der()?, signature)
        .map_err(|_| Error::Verify("certificate request self-signature".into()))
}
