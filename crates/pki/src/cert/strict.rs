//! The conformance checks of a strict path validation (OpenSSL's `-x509_strict`,
//! `X509_V_FLAG_X509_STRICT`): what RFC 5280 requires of the certificates a conforming CA
//! issues, checked on each certificate of a path of more than one, in the order and with
//! the numbers of OpenSSL 3.0's `check_extensions` (`crypto/x509/x509_vfy.c`):
//!
//! | check | RFC 5280 | OpenSSL |
//! |---|---|---|
//! | a pathLenConstraint only on a CA, and with keyCertSign | 4.2.1.9 | 80, 81 |
//! | a CA's basicConstraints critical | 4.2.1.9 | 89 |
//! | a CA has a keyUsage; a non-CA has no keyCertSign | 4.2.1.3 | 92, 82 |
//! | a non-empty issuer | 4.1.2.4 | 83 |
//! | a non-empty subject for a CA, a CRL signer, or without subjectAltName | 4.1.2.6 | 84 |
//! | an empty subject only with a critical subjectAltName | 4.2.1.6 | 88 |
//! | a subjectAltName with at least one name | 4.2.1.6 | 87 |
//! | the signature algorithm twice the same | 4.1.1.2 | 78 |
//! | a key identifier of the authority below the top of the path | 4.2.1.1 | 85 |
//! | a subject key identifier on a CA | 4.2.1.2 | 86 |
//! | extensions only in version 3 | 4.1.2.9 | 93 |
//!
//! A strict path also asks more of each certificate's CA status (`X509_check_ca` must
//! say "a CA by basicConstraints" for every issuer, the trust anchor included, and must not
//! say "a CA by other signs" for the end entity): see `checks::ca_kind`. OpenSSL's check of
//! explicit elliptic-curve parameters (94) has nothing to check on RSA keys.
//!
//! Where OpenSSL reads a flag that its extension cache derives (`EXFLAG_CA`,
//! `ex_kusage`...), the same is derived here from the extension as decoded; an extension
//! that does not decode counts as absent, as OpenSSL's cache leaves it. Its cache notes
//! which extensions are critical in one pass over them that stops at the first critical
//! extension it does not support (`ossl_x509v3_cache_extensions`), so a critical
//! basicConstraints or subjectAltName after such a one counts as not critical
//! ([`criticality`]); and as the key identifiers are not among those it supports, its
//! checks that they are not critical (90, 91) never fire: a critical one is an unhandled
//! critical extension (34) already, here as there.

use super::checks::{CaKind, ca_kind};
use super::failure::PathFailure;
use const_oid::ObjectIdentifier as Oid;
use x509_cert::Certificate;
use x509_cert::certificate::Version;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, KeyUsage, SubjectAltName, SubjectKeyIdentifier,
};

/// The strict CA-status check of the certificate at `depth` (OpenSSL's `must_be_ca`
/// cases under the flag): an issuer must be a CA by basicConstraints; the end entity may
/// be a CA by basicConstraints or none, not one by other signs.
pub(super) fn check_ca_strict(cert: &Certificate, depth: usize) -> Result<(), PathFailure> {
    let kind = ca_kind(cert);
    let ok = match depth {
        0 => matches!(kind, CaKind::Not | CaKind::ByBasicConstraints),
        _ => kind == CaKind::ByBasicConstraints,
    };
    if ok { Ok(()) } else { Err(PathFailure::InvalidCa) }
}

/// The conformance failures of `cert` at `depth` in a path of `len` certificates, in
/// OpenSSL's order (none for a path of one certificate).
pub(super) fn conformance(cert: &Certificate, depth: usize, len: usize) -> Vec<PathFailure> {
    use PathFailure as F;
    let mut out = Vec::new();
    if len <= 1 {
        return out;
    }
    let tbs = cert.tbs_certificate();
    let bc = tbs.get_extension::<BasicConstraints>().ok().flatten();
    let is_ca = bc.as_ref().is_some_and(|(_, bc)| bc.ca);
    let ku = tbs.get_extension::<KeyUsage>().ok().flatten().map(|(_, ku)| ku);
    // OpenSSL's `ex_kusage` bits: none where there is no keyUsage.
    let cert_sign = ku.is_some_and(|ku| ku.key_cert_sign());
    let crl_sign = ku.is_some_and(|ku| ku.crl_sign());
    let san = tbs.get_extension::<SubjectAltName>().ok().flatten();
    let akid = tbs.get_extension::<AuthorityKeyIdentifier>().ok().flatten();
    let skid = tbs.get_extension::<SubjectKeyIdentifier>().ok().flatten();
    let critical = criticality(cert);
    let subject_empty = tbs.subject().iter_rdn().all(|rdn| rdn.iter().next().is_none());
    let issuer_empty = tbs.issuer().iter_rdn().all(|rdn| rdn.iter().next().is_none());

    if bc.as_ref().is_some_and(|(_, bc)| bc.path_len_constraint.is_some()) {
        if !is_ca {
            out.push(F::PathLenForNonCa);
        }
        if !cert_sign {
            out.push(F::PathLenWithoutCertSign);
        }
    }
    if is_ca && !critical.basic_constraints {
        out.push(F::CaBasicConstraintsNotCritical);
    }
    if is_ca {
        if ku.is_none() {
            out.push(F::CaWithoutKeyUsage);
        }
    } else if cert_sign {
        out.push(F::CertSignForNonCa);
    }
    if issuer_empty {
        out.push(F::IssuerNameEmpty);
    }
    if (is_ca || crl_sign || san.is_none()) && subject_empty {
        out.push(F::SubjectNameEmpty);
    }
    if subject_empty && san.is_some() && !critical.subject_alt_name {
        out.push(F::EmptySubjectSanNotCritical);
    }
    if san.as_ref().is_some_and(|(_, names)| names.0.is_empty()) {
        out.push(F::EmptySubjectAltName);
    }
    if cert.signature_algorithm() != tbs.signature() {
        out.push(F::SignatureAlgorithmInconsistency);
    }
    if tbs.version() == Version::V3 {
        // Below the top of the path: taken as issued by a conforming CA.
        let keyid = akid.as_ref().is_some_and(|(_, a)| a.key_identifier.is_some());
        if depth + 1 < len && !keyid {
            out.push(F::MissingAuthorityKeyId);
        }
        if is_ca && skid.is_none() {
            out.push(F::MissingSubjectKeyId);
        }
    } else if tbs.extensions().is_some_and(|e| !e.is_empty()) {
        out.push(F::ExtensionsNeedV3);
    }
    out
}

/// Which of the two extensions whose criticality the checks read OpenSSL's cache marks
/// critical.
struct Criticality {
    basic_constraints: bool,
    subject_alt_name: bool,
}

/// The extensions OpenSSL 3.0 supports (`X509_supported_extension`, `v3_purp.c`):
/// Netscape's certificate type, keyUsage, subjectAltName, basicConstraints,
/// certificatePolicies, cRLDistributionPoints, extendedKeyUsage, RFC 3779's address and
/// AS number blocks, id-pkix-ocsp-nocheck, policyConstraints, proxyCertInfo,
/// nameConstraints, policyMappings, inhibitAnyPolicy.
const OPENSSL_SUPPORTED: [Oid; 15] = [
    Oid::new_unwrap("2.16.840.1.113730.1.1"),
    Oid::new_unwrap("2.5.29.15"),
    Oid::new_unwrap("2.5.29.17"),
    Oid::new_unwrap("2.5.29.19"),
    Oid::new_unwrap("2.5.29.32"),
    Oid::new_unwrap("2.5.29.31"),
    Oid::new_unwrap("2.5.29.37"),
    Oid::new_unwrap("1.3.6.1.5.5.7.1.7"),
    Oid::new_unwrap("1.3.6.1.5.5.7.1.8"),
    Oid::new_unwrap("1.3.6.1.5.5.7.48.1.5"),
    Oid::new_unwrap("2.5.29.36"),
    Oid::new_unwrap("1.3.6.1.5.5.7.1.14"),
    Oid::new_unwrap("2.5.29.30"),
    Oid::new_unwrap("2.5.29.33"),
    Oid::new_unwrap("2.5.29.54"),
];

/// [`Criticality`] as OpenSSL's cache notes it: the critical extensions in their order, up
/// to the first it does not support.
fn criticality(cert: &Certificate) -> Criticality {
    let mut c = Criticality { basic_constraints: false, subject_alt_name: false };
    let exts = cert.tbs_certificate().extensions().map(|e| e.as_slice()).unwrap_or(&[]);
    for e in exts.iter().filter(|e| e.critical) {
        if !OPENSSL_SUPPORTED.contains(&e.extn_id) {
            break;
        }
        match e.extn_id.to_string().as_str() {
            "2.5.29.19" => c.basic_constraints = true,
            "2.5.29.17" => c.subject_alt_name = true,
            _ => {}
        }
    }
    c
}
