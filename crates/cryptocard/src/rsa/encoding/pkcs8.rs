//! PKCS#8 `PrivateKeyInfo` (RFC 5208 section 5, RFC 5958 `OneAsymmetricKey` v1/v2) and
//! X.509 `SubjectPublicKeyInfo` (RFC 5280 4.1.2.7) for RSA, whose algorithm identifier is
//! `rsaEncryption` (1.2.840.113549.1.1.1) with NULL parameters (RFC 3279 2.3.1, RFC 8017
//! appendix A.1). The parameters must be present and NULL, as OpenSSL and BoringSSL write
//! them; an `id-RSASSA-PSS` key (RFC 4055, a key restricted to PSS) is
//! [`Error::Unsupported`].

use super::{DER_ERROR, KeyParseOptions, from_pem_with, to_pem};
use crate::rsa::{RsaPrivateKey, RsaPublicKey};
use crate::{Error, Result};
use der::asn1::{AnyRef, BitStringRef, OctetStringRef};
use der::{Decode, Encode};
use pkcs8::{ObjectIdentifier, PrivateKeyInfoRef};
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

/// The PEM label of PKCS#8 private keys.
pub const PRIVATE_LABEL: &str = "PRIVATE KEY";
/// The PEM label of encrypted PKCS#8 private keys.
pub const ENCRYPTED_LABEL: &str = "ENCRYPTED PRIVATE KEY";
/// The PEM label of `SubjectPublicKeyInfo`.
pub const PUBLIC_LABEL: &str = "PUBLIC KEY";

/// id-RSASSA-PSS (RFC 4055).
const RSASSA_PSS_OID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.10");

/// rsaEncryption with NULL parameters.
const RSA_ALGORITHM: AlgorithmIdentifierRef<'static> =
    AlgorithmIdentifierRef { oid: pkcs1::ALGORITHM_OID, parameters: Some(AnyRef::NULL) };

fn check_algorithm(alg: &AlgorithmIdentifierRef<'_>) -> Result<()> {
    if alg.oid == RSASSA_PSS_OID {
        return Err(Error::Unsupported("RSASSA-PSS restricted keys (id-RSASSA-PSS)"));
    }
    if alg.oid != pkcs1::ALGORITHM_OID {
        return Err(Error::Unsupported("not an RSA key (algorithm OID is not rsaEncryption)"));
    }
    if alg.parameters != Some(AnyRef::NULL) {
        return Err(Error::InvalidEncoding("rsaEncryption parameters must be NULL"));
    }
    Ok(())
}

impl RsaPrivateKey {
    /// Parses a DER PKCS#8 `PrivateKeyInfo` holding an RSA key.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<RsaPrivateKey> {
        RsaPrivateKey::from_pkcs8_der_with(der, &KeyParseOptions::default())
    }

    /// As [`RsaPrivateKey::from_pkcs8_der`], with `opts` (the recovery of p and q).
    pub fn from_pkcs8_der_with(der: &[u8], opts: &KeyParseOptions) -> Result<RsaPrivateKey> {
        let info = PrivateKeyInfoRef::from_der(der).map_err(|_| DER_ERROR)?;
        RsaPrivateKey::from_pkcs8_info(&info, opts)
    }

    /// The key in a parsed `PrivateKeyInfo` (also the `pkcs8::DecodePrivateKey` impl).
    pub(crate) fn from_pkcs8_info(
        info: &PrivateKeyInfoRef<'_>,
        opts: &KeyParseOptions,
    ) -> Result<RsaPrivateKey> {
        check_algorithm(&info.algorithm)?;
        RsaPrivateKey::from_pkcs1_der_with(info.private_key.as_bytes(), opts)
    }

    /// Encodes the key as a DER PKCS#8 `PrivateKeyInfo` (version 1, as OpenSSL writes).
    pub fn to_pkcs8_der(&self) -> Result<Zeroizing<Vec<u8>>> {
        let inner = self.to_pkcs1_der()?;
        let octets = OctetStringRef::new(&inner).map_err(|_| DER_ERROR)?;
        let info: PrivateKeyInfoRef<'_> = pkcs8::PrivateKeyInfo::new(RSA_ALGORITHM, octets);
        info.to_der().map(Zeroizing::new).map_err(|_| DER_ERROR)
    }

    /// Parses a PEM "PRIVATE KEY".
    pub fn from_pkcs8_pem(pem: &str) -> Result<RsaPrivateKey> {
        from_pem_with(pem, PRIVATE_LABEL, RsaPrivateKey::from_pkcs8_der)
    }

    /// Encodes the key as a PEM "PRIVATE KEY".
    pub fn to_pkcs8_pem(&self) -> Result<Zeroizing<String>> {
        to_pem(PRIVATE_LABEL, &self.to_pkcs8_der()?)
    }
}

impl RsaPublicKey {
    /// Parses a DER `SubjectPublicKeyInfo` holding an RSA key.
    pub fn from_public_key_der(der: &[u8]) -> Result<RsaPublicKey> {
        let spki = SubjectPublicKeyInfoRef::from_der(der).map_err(|_| DER_ERROR)?;
        RsaPublicKey::from_spki(&spki)
    }

    /// The key in a parsed `SubjectPublicKeyInfo` (also the `spki::DecodePublicKey`
    /// impl).
    pub(crate) fn from_spki(spki: &SubjectPublicKeyInfoRef<'_>) -> Result<RsaPublicKey> {
        check_algorithm(&spki.algorithm)?;
        let key = spki.subject_public_key.as_bytes().ok_or(DER_ERROR)?;
        RsaPublicKey::from_pkcs1_der(key)
    }

    /// Encodes the key as a DER `SubjectPublicKeyInfo`.
    pub fn to_public_key_der(&self) -> Result<Vec<u8>> {
        let inner = self.to_pkcs1_der()?;
        let spki = SubjectPublicKeyInfoRef {
            algorithm: RSA_ALGORITHM,
            subject_public_key: BitStringRef::from_bytes(&inner).map_err(|_| DER_ERROR)?,
        };
        spki.to_der().map_err(|_| DER_ERROR)
    }

    /// Parses a PEM "PUBLIC KEY".
    pub fn from_public_key_pem(pem: &str) -> Result<RsaPublicKey> {
        from_pem_with(pem, PUBLIC_LABEL, RsaPublicKey::from_public_key_der)
    }

    /// Encodes the key as a PEM "PUBLIC KEY".
    pub fn to_public_key_pem(&self) -> Result<String> {
        to_pem(PUBLIC_LABEL, &self.to_public_key_der()?).map(|s| s.to_string())
    }
}
