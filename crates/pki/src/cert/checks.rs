//! The checks path validation makes on each certificate of a path, apart from its
//! issuer's signature (RFC 5280 section 6.1.3 and 6.1.4, the subset we implement):
//!
//! - validity at the given time (6.1.3 (a)(2));
//! - an issuer is a CA: basicConstraints cA with its pathLenConstraint (4.2.1.9, 6.1.4
//!   (k), (m)), a keyUsage, if present, with keyCertSign (4.2.1.3, 6.1.4 (n));
//! - no critical extension we do not process (4.2, 6.1.4 (o)): which ones we process
//!   depends on the [`Purpose`] the path is checked for (extendedKeyUsage is processed only
//!   under a purpose that enforces it);
//! - RSA keys of at least [`MIN_RSA_BITS`] bits, as OpenSSL refuses smaller ones at its
//!   default security level 1 (80 bits of security; `X509_V_ERR_EE_KEY_TOO_SMALL` and
//!   `X509_V_ERR_CA_KEY_TOO_SMALL`, worded as OpenSSL words them).
//!
//! Every certificate of the path gets them, the trust anchor included: OpenSSL checks every
//! certificate of the chain it built, and so do we, in the order of its `verify_chain`
//! (`crypto/x509/x509_vfy.c`, 3.0), so that a path with several faults reports the one
//! OpenSSL reports: the path is built first (issuers found, signatures checked), then each
//! certificate's extensions and each issuer's CA status from the end entity up, then key
//! sizes, then validity from the trust anchor down.

use super::failure::PathFailure;
use super::policy::INHIBIT_ANY_POLICY;
use super::purpose::Purpose;
use super::security_level;
use crate::sig::RSA_ENCRYPTION;
use const_oid::AssociatedOid;
use der::asn1::UintRef;
use der::{Decode, Sequence};
use std::time::SystemTime;
use x509_cert::Certificate;
use x509_cert::certificate::Version;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, CertificatePolicies, CrlDistributionPoints,
    ExtendedKeyUsage, KeyUsage, NameConstraints, PolicyConstraints, PolicyMappings, SubjectAltName,
    SubjectKeyIdentifier,
};

/// id-pkix-ocsp-nocheck (RFC 6960 section 4.2.2.2.1): an OCSP responder's certificate is
/// not checked for revocation.
const OCSP_NO_CHECK: const_oid::ObjectIdentifier =
    const_oid::ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.48.1.5");

/// The smallest RSA modulus accepted in a path or from a CMS signer: 1024 bits, about 80
/// bits of security (NIST SP 800-57 part 1, table 2), OpenSSL's security level 1.
pub const MIN_RSA_BITS: usize = 1024;

/// No critical extension of `cert` is one we do not process (RFC 5280 4.2), counted as
/// OpenSSL 3.0's `X509_supported_extension` counts them where we process the same:
/// subjectAltName and nameConstraints are processed by `name_check.rs`, the policy
/// extensions by `policy.rs`, cRLDistributionPoints by the CRLs' scope (`crl.rs`),
/// id-pkix-ocsp-nocheck asks nothing of a path, and extendedKeyUsage counts only where
/// `purpose` enforces it (OpenSSL counts it always, as it checks a purpose always). The
/// key identifiers, which RFC 5280 4.2.1.1 and 4.2.1.2 say must not be critical, are not
/// on OpenSSL's list, so a critical one fails the path there and here. OpenSSL's list also
/// has Netscape's certificate type, proxyCertInfo and RFC 3779's address and AS number
/// blocks, which we do not read: a critical one fails the path here.
pub(super) fn check_critical(cert: &Certificate, purpose: Purpose) -> Result<(), PathFailure> {
    let known = [
        BasicConstraints::OID,
        KeyUsage::OID,
        SubjectAltName::OID,
        NameConstraints::OID,
        CertificatePolicies::OID,
        PolicyMappings::OID,
        PolicyConstraints::OID,
        INHIBIT_ANY_POLICY,
        CrlDistributionPoints::OID,
        OCSP_NO_CHECK,
    ];
    let handled =
        |oid| known.contains(oid) || (*oid == ExtendedKeyUsage::OID && purpose.uses_eku());
    let exts = cert.tbs_certificate().extensions().map(|e| e.as_slice()).unwrap_or(&[]);
    if exts.iter().any(|e| e.critical && !handled(&e.extn_id)) {
        return Err(PathFailure::CriticalExtension);
    }
    Ok(())
}

/// `at` falls in the certificate's validity period.
pub(super) fn check_time(cert: &Certificate, at: SystemTime) -> Result<(), PathFailure> {
    let v = cert.tbs_certificate().validity();
    if at < v.not_before.to_system_time() {
        return Err(PathFailure::NotYetValid);
    }
    if at > v.not_after.to_system_time() {
        return Err(PathFailure::Expired);
    }
    Ok(())
}

/// An issuer must be a CA (OpenSSL's `check_extensions` without `-x509_strict`): by
/// basicConstraints cA below the top of the path; the top, the trust anchor
/// (`anchor`), may also be a self-signed version 1 certificate or one whose keyUsage
/// has keyCertSign without basicConstraints, as OpenSSL accepts them.
pub(super) fn check_is_ca(issuer: &Certificate, anchor: bool) -> Result<(), PathFailure> {
    match (ca_kind(issuer), anchor) {
        (CaKind::ByBasicConstraints, _) => Ok(()),
        (CaKind::V1Root | CaKind::ByKeyUsage, true) => Ok(()),
        _ => Err(PathFailure::InvalidCa),
    }
}

/// What OpenSSL's `X509_check_ca` says of a certificate (`check_ca` in
/// `crypto/x509/v3_purp.c`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CaKind {
    /// Not a CA (0): basicConstraints without cA, a keyUsage without keyCertSign, or no
    /// sign of one.
    Not,
    /// A CA by basicConstraints cA (1).
    ByBasicConstraints,
    /// A self-signed version 1 certificate (3).
    V1Root,
    /// No basicConstraints, a keyUsage with keyCertSign (4).
    ByKeyUsage,
}

/// [`CaKind`] of `cert`. Netscape's certificate type (OpenSSL's kind 5) is not read.
pub(super) fn ca_kind(cert: &Certificate) -> CaKind {
    let tbs = cert.tbs_certificate();
    let ku = tbs.get_extension::<KeyUsage>().ok().flatten().map(|(_, ku)| ku);
    if ku.is_some_and(|ku| !ku.key_cert_sign()) {
        return CaKind::Not;
    }
    if let Ok(Some((_, bc))) = tbs.get_extension::<BasicConstraints>() {
        return if bc.ca { CaKind::ByBasicConstraints } else { CaKind::Not };
    }
    if tbs.version() == Version::V1 && tbs.issuer() == tbs.subject() {
        CaKind::V1Root
    } else if ku.is_some() {
        CaKind::ByKeyUsage
    } else {
        CaKind::Not
    }
}

/// An issuer's pathLenConstraint bounds `below`, the intermediate CAs under it in the
/// path (all certificates under it but the leaf).
pub(super) fn check_path_len(issuer: &Certificate, below: usize) -> Result<(), PathFailure> {
    match issuer.tbs_certificate().get_extension::<BasicConstraints>() {
        Ok(Some((_, bc))) if bc.path_len_constraint.is_some_and(|n| below > usize::from(n)) => {
            Err(PathFailure::PathLength)
        }
        _ => Ok(()),
    }
}

/// An issuer's keyUsage, if present, has keyCertSign.
pub(super) fn check_cert_sign(issuer: &Certificate) -> Result<(), PathFailure> {
    match issuer.tbs_certificate().get_extension::<KeyUsage>() {
        Ok(Some((_, ku))) if !ku.key_cert_sign() => Err(PathFailure::NoCertSign),
        Ok(_) => Ok(()),
        Err(_) => Err(PathFailure::InvalidCa),
    }
}

/// At security `level`, the certificate's key offers its bits (`security_level.rs`), RSA
/// keys never under [`MIN_RSA_BITS`]; keys of other types are not judged.
pub(super) fn check_key_level(
    cert: &Certificate,
    depth: usize,
    level: u8,
) -> Result<(), PathFailure> {
    let weak = rsa_bits(cert).is_some_and(|bits| {
        bits < MIN_RSA_BITS
            || security_level::rsa_security_bits(bits as u32) < security_level::level_bits(level)
    });
    match (weak, depth) {
        (false, _) => Ok(()),
        (true, 0) => Err(PathFailure::EeKeyTooSmall),
        (true, _) => Err(PathFailure::CaKeyTooSmall),
    }
}

/// At security `level`, the certificate's signature offers its bits.
pub(super) fn check_digest_level(cert: &Certificate, level: u8) -> Result<(), PathFailure> {
    if security_level::signature_security_bits(cert) < security_level::level_bits(level) {
        return Err(PathFailure::CaMdTooWeak);
    }
    Ok(())
}

/// Self-signed as OpenSSL's extension cache counts it (`EXFLAG_SS`): issuer and subject
/// the same name, an authorityKeyIdentifier, if any, naming its own key identifier, and
/// a keyUsage, if any, with keyCertSign. The signature itself is not looked at.
pub(super) fn self_signed(cert: &Certificate) -> bool {
    let tbs = cert.tbs_certificate();
    let akid = tbs.get_extension::<AuthorityKeyIdentifier>().ok().flatten();
    let skid = tbs.get_extension::<SubjectKeyIdentifier>().ok().flatten();
    let ids_agree = match (akid.and_then(|(_, a)| a.key_identifier), skid) {
        (Some(a), Some((_, s))) => a == s.0,
        _ => true,
    };
    let ku = tbs.get_extension::<KeyUsage>().ok().flatten();
    tbs.issuer() == tbs.subject() && ids_agree && ku.is_none_or(|(_, ku)| ku.key_cert_sign())
}

/// RFC 8017 appendix A.1.1 `RSAPublicKey`, read only for the modulus's length.
#[derive(Sequence)]
struct RsaPublicKeyRef<'a> {
    modulus: UintRef<'a>,
    public_exponent: UintRef<'a>,
}

/// The bit length of the certificate's RSA modulus; `None` for another key type.
/// Malformed RSA keys are `Some(0)`, so that they fail the size check.
pub(crate) fn rsa_bits(cert: &Certificate) -> Option<usize> {
    let spki = cert.tbs_certificate().subject_public_key_info();
    if spki.algorithm.oid != RSA_ENCRYPTION {
        return None;
    }
    let key = spki.subject_public_key.as_bytes().map(RsaPublicKeyRef::from_der);
    let Some(Ok(key)) = key else { return Some(0) };
    let n = key.modulus.as_bytes();
    Some(n.first().map_or(0, |top| 8 * n.len() - top.leading_zeros() as usize))
}

/// RSA keys under [`MIN_RSA_BITS`] fail. Keys of other types are not ours to size: they
/// cannot sign in a path we verify, and a CMS signer must be RSA.
pub(super) fn check_key_size(cert: &Certificate, depth: usize) -> Result<(), PathFailure> {
    match rsa_bits(cert) {
        Some(bits) if bits < MIN_RSA_BITS && depth == 0 => Err(PathFailure::EeKeyTooSmall),
        Some(bits) if bits < MIN_RSA_BITS => Err(PathFailure::CaKeyTooSmall),
        _ => Ok(()),
    }
}
