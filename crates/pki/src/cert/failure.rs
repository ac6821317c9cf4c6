//! Why a certificate path failed, and where: the failures of RFC 5280 section 6 path
//! validation that `verify` and `checks` report, each with OpenSSL's number
//! (`X509_V_ERR_*` in `x509_vfy.h`) and words (`X509_verify_cert_error_string`), so that
//! `cryptocard verify` prints what `openssl verify` prints and scripts that read either
//! read both.

use super::name::display_name;
use core::fmt;
use x509_cert::Certificate;

/// One reason a path fails, as OpenSSL numbers and words it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathFailure {
    /// An issuer's signature over the certificate does not verify
    /// (`X509_V_ERR_CERT_SIGNATURE_FAILURE`).
    SignatureFailure,
    /// Before notBefore (`X509_V_ERR_CERT_NOT_YET_VALID`).
    NotYetValid,
    /// After notAfter (`X509_V_ERR_CERT_HAS_EXPIRED`).
    Expired,
    /// The end entity is self-signed and not trusted
    /// (`X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT`).
    SelfSignedLeaf,
    /// The path ends at a self-signed certificate that is not trusted
    /// (`X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN`).
    SelfSignedInChain,
    /// No issuer among the certificates given (`X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT`
    /// where the certificate came from the trust store, which OpenSSL words apart).
    NoIssuerOfTrusted,
    /// No issuer among the certificates given
    /// (`X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY`).
    NoIssuer,
    /// Longer than [`MAX_DEPTH`](super::MAX_DEPTH) (`X509_V_ERR_CERT_CHAIN_TOO_LONG`).
    TooLong,
    /// An issuer that is not a CA (`X509_V_ERR_INVALID_CA`).
    InvalidCa,
    /// More CAs below a CA than its pathLenConstraint allows
    /// (`X509_V_ERR_PATH_LENGTH_EXCEEDED`).
    PathLength,
    /// Not for the purpose the path is checked for (`X509_V_ERR_INVALID_PURPOSE`).
    Purpose,
    /// An issuer whose keyUsage lacks keyCertSign (`X509_V_ERR_KEYUSAGE_NO_CERTSIGN`).
    NoCertSign,
    /// A critical extension that is not processed
    /// (`X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION`).
    CriticalExtension,
    /// An end-entity RSA key under [`MIN_RSA_BITS`](super::MIN_RSA_BITS)
    /// (`X509_V_ERR_EE_KEY_TOO_SMALL`).
    EeKeyTooSmall,
    /// A CA's RSA key under [`MIN_RSA_BITS`](super::MIN_RSA_BITS)
    /// (`X509_V_ERR_CA_KEY_TOO_SMALL`).
    CaKeyTooSmall,
    /// A signature's digest below the security level asked for
    /// (`X509_V_ERR_CA_MD_TOO_WEAK`).
    CaMdTooWeak,
    /// The end entity is not for the host name asked for
    /// (`X509_V_ERR_HOSTNAME_MISMATCH`).
    HostnameMismatch,
    /// The end entity is not for the email address asked for
    /// (`X509_V_ERR_EMAIL_MISMATCH`).
    EmailMismatch,
    /// The end entity is not for the IP address asked for
    /// (`X509_V_ERR_IP_ADDRESS_MISMATCH`).
    IpMismatch,
    /// No CRL for a certificate whose revocation is checked
    /// (`X509_V_ERR_UNABLE_TO_GET_CRL`).
    UnableToGetCrl,
    /// The CRL's signer has a keyUsage without cRLSign (`X509_V_ERR_KEYUSAGE_NO_CRL_SIGN`).
    NoCrlSign,
    /// The only CRLs of the issuer do not cover the certificate
    /// (`X509_V_ERR_DIFFERENT_CRL_SCOPE`).
    DifferentCrlScope,
    /// Before the CRL's thisUpdate (`X509_V_ERR_CRL_NOT_YET_VALID`).
    CrlNotYetValid,
    /// After the CRL's nextUpdate (`X509_V_ERR_CRL_HAS_EXPIRED`).
    CrlExpired,
    /// The issuer's key does not verify the CRL (`X509_V_ERR_CRL_SIGNATURE_FAILURE`).
    CrlSignatureFailure,
    /// A critical CRL or entry extension that is not processed
    /// (`X509_V_ERR_UNHANDLED_CRITICAL_CRL_EXTENSION`).
    CrlCriticalExtension,
    /// The certificate is on its issuer's CRL (`X509_V_ERR_CERT_REVOKED`).
    Revoked,
    /// A name outside every permitted subtree of its form
    /// (`X509_V_ERR_PERMITTED_VIOLATION`).
    PermittedViolation,
    /// A name inside an excluded subtree (`X509_V_ERR_EXCLUDED_VIOLATION`).
    ExcludedViolation,
    /// A subtree with a minimum other than 0 or with a maximum
    /// (`X509_V_ERR_SUBTREE_MINMAX`).
    SubtreeMinMax,
    /// A subtree of a form names cannot be compared with
    /// (`X509_V_ERR_UNSUPPORTED_CONSTRAINT_TYPE`).
    UnsupportedConstraintType,
    /// A name that cannot be read or compared with a subtree of its form
    /// (`X509_V_ERR_UNSUPPORTED_NAME_SYNTAX`).
    UnsupportedNameSyntax,
    /// A certificate's policy extensions are malformed
    /// (`X509_V_ERR_INVALID_POLICY_EXTENSION`).
    InvalidPolicyExtension,
    /// The path's CAs require a policy valid for all of it, and there is none
    /// (`X509_V_ERR_NO_EXPLICIT_POLICY`).
    NoExplicitPolicy,
    /// A check that could not be made, here one that would pass the bound on the work of
    /// name constraints (`X509_V_ERR_UNSPECIFIED`).
    Unspecified,
    /// Strict: the signature algorithm outside the signed part differs from the one inside
    /// (`X509_V_ERR_SIGNATURE_ALGORITHM_INCONSISTENCY`).
    SignatureAlgorithmInconsistency,
    /// Strict: a pathLenConstraint on a certificate that is not a CA
    /// (`X509_V_ERR_PATHLEN_INVALID_FOR_NON_CA`).
    PathLenForNonCa,
    /// Strict: a pathLenConstraint without keyUsage keyCertSign
    /// (`X509_V_ERR_PATHLEN_WITHOUT_KU_KEY_CERT_SIGN`).
    PathLenWithoutCertSign,
    /// Strict: keyUsage keyCertSign on a certificate that is not a CA
    /// (`X509_V_ERR_KU_KEY_CERT_SIGN_INVALID_FOR_NON_CA`).
    CertSignForNonCa,
    /// Strict: an empty issuer name (`X509_V_ERR_ISSUER_NAME_EMPTY`).
    IssuerNameEmpty,
    /// Strict: an empty subject name where one is required
    /// (`X509_V_ERR_SUBJECT_NAME_EMPTY`).
    SubjectNameEmpty,
    /// Strict: no authorityKeyIdentifier with a key identifier
    /// (`X509_V_ERR_MISSING_AUTHORITY_KEY_IDENTIFIER`).
    MissingAuthorityKeyId,
    /// Strict: a CA without subjectKeyIdentifier
    /// (`X509_V_ERR_MISSING_SUBJECT_KEY_IDENTIFIER`).
    MissingSubjectKeyId,
    /// Strict: a subjectAltName without names (`X509_V_ERR_EMPTY_SUBJECT_ALT_NAME`).
    EmptySubjectAltName,
    /// Strict: an empty subject with a non-critical subjectAltName
    /// (`X509_V_ERR_EMPTY_SUBJECT_SAN_NOT_CRITICAL`).
    EmptySubjectSanNotCritical,
    /// Strict: a CA's basicConstraints not critical (`X509_V_ERR_CA_BCONS_NOT_CRITICAL`).
    CaBasicConstraintsNotCritical,
    /// Strict: a CA without keyUsage (`X509_V_ERR_CA_CERT_MISSING_KEY_USAGE`).
    CaWithoutKeyUsage,
    /// Strict: extensions in a certificate before version 3
    /// (`X509_V_ERR_EXTENSIONS_REQUIRE_VERSION_3`).
    ExtensionsNeedV3,
}

impl PathFailure {
    /// OpenSSL's `X509_V_ERR_*` number.
    pub fn code(self) -> u32 {
        match self {
            PathFailure::NoIssuerOfTrusted => 2,
            PathFailure::SignatureFailure => 7,
            PathFailure::NotYetValid => 9,
            PathFailure::Expired => 10,
            PathFailure::SelfSignedLeaf => 18,
            PathFailure::SelfSignedInChain => 19,
            PathFailure::NoIssuer => 20,
            PathFailure::TooLong => 22,
            PathFailure::PathLength => 25,
            PathFailure::Purpose => 26,
            PathFailure::NoCertSign => 32,
            PathFailure::CriticalExtension => 34,
            PathFailure::HostnameMismatch => 62,
            PathFailure::EmailMismatch => 63,
            PathFailure::IpMismatch => 64,
            PathFailure::UnableToGetCrl => 3,
            PathFailure::CrlSignatureFailure => 8,
            PathFailure::CrlNotYetValid => 11,
            PathFailure::CrlExpired => 12,
            PathFailure::Revoked => 23,
            PathFailure::NoCrlSign => 35,
            PathFailure::CrlCriticalExtension => 36,
            PathFailure::DifferentCrlScope => 44,
            PathFailure::EeKeyTooSmall => 66,
            PathFailure::CaKeyTooSmall => 67,
            PathFailure::CaMdTooWeak => 68,
            PathFailure::InvalidCa => 79,
            PathFailure::PermittedViolation => 47,
            PathFailure::ExcludedViolation => 48,
            PathFailure::SubtreeMinMax => 49,
            PathFailure::UnsupportedConstraintType => 51,
            PathFailure::UnsupportedNameSyntax => 53,
            PathFailure::Unspecified => 1,
            PathFailure::InvalidPolicyExtension => 42,
            PathFailure::NoExplicitPolicy => 43,
            PathFailure::SignatureAlgorithmInconsistency => 78,
            PathFailure::PathLenForNonCa => 80,
            PathFailure::PathLenWithoutCertSign => 81,
            PathFailure::CertSignForNonCa => 82,
            PathFailure::IssuerNameEmpty => 83,
            PathFailure::SubjectNameEmpty => 84,
            PathFailure::MissingAuthorityKeyId => 85,
            PathFailure::MissingSubjectKeyId => 86,
            PathFailure::EmptySubjectAltName => 87,
            PathFailure::EmptySubjectSanNotCritical => 88,
            PathFailure::CaBasicConstraintsNotCritical => 89,
            PathFailure::CaWithoutKeyUsage => 92,
            PathFailure::ExtensionsNeedV3 => 93,
        }
    }

    /// OpenSSL's words (3.0 and later).
    pub fn as_str(self) -> &'static str {
        match self {
            PathFailure::NoIssuerOfTrusted => "unable to get issuer certificate",
            PathFailure::SignatureFailure => "certificate signature failure",
            PathFailure::NotYetValid => "certificate is not yet valid",
            PathFailure::Expired => "certificate has expired",
            PathFailure::SelfSignedLeaf => "self-signed certificate",
            PathFailure::SelfSignedInChain => "self-signed certificate in certificate chain",
            PathFailure::NoIssuer => "unable to get local issuer certificate",
            PathFailure::TooLong => "certificate chain too long",
            PathFailure::PathLength => "path length constraint exceeded",
            PathFailure::Purpose => "unsuitable certificate purpose",
            PathFailure::NoCertSign => "key usage does not include certificate signing",
            PathFailure::CriticalExtension => "unhandled critical extension",
            PathFailure::HostnameMismatch => "hostname mismatch",
            PathFailure::EmailMismatch => "email address mismatch",
            PathFailure::IpMismatch => "IP address mismatch",
            PathFailure::UnableToGetCrl => "unable to get certificate CRL",
            PathFailure::CrlSignatureFailure => "CRL signature failure",
            PathFailure::CrlNotYetValid => "CRL is not yet valid",
            PathFailure::CrlExpired => "CRL has expired",
            PathFailure::Revoked => "certificate revoked",
            PathFailure::NoCrlSign => "key usage does not include CRL signing",
            PathFailure::CrlCriticalExtension => "unhandled critical CRL extension",
            PathFailure::DifferentCrlScope => "different CRL scope",
            PathFailure::EeKeyTooSmall => "EE certificate key too weak",
            PathFailure::CaKeyTooSmall => "CA certificate key too weak",
            PathFailure::CaMdTooWeak => "CA signature digest algorithm too weak",
            PathFailure::InvalidCa => "invalid CA certificate",
            PathFailure::PermittedViolation => "permitted subtree violation",
            PathFailure::ExcludedViolation => "excluded subtree violation",
            PathFailure::SubtreeMinMax => "name constraints minimum and maximum not supported",
            PathFailure::UnsupportedConstraintType => "unsupported name constraint type",
            PathFailure::UnsupportedNameSyntax => "unsupported or invalid name syntax",
            PathFailure::Unspecified => "unspecified certificate verification error",
            PathFailure::InvalidPolicyExtension => {
                "invalid or inconsistent certificate policy extension"
            }
            PathFailure::NoExplicitPolicy => "no explicit policy",
            PathFailure::SignatureAlgorithmInconsistency => {
                "cert info signature and signature algorithm mismatch"
            }
            PathFailure::PathLenForNonCa => "Path length invalid for non-CA cert",
            PathFailure::PathLenWithoutCertSign => {
                "Path length given without key usage keyCertSign"
            }
            PathFailure::CertSignForNonCa => "Key usage keyCertSign invalid for non-CA cert",
            PathFailure::IssuerNameEmpty => "Issuer name empty",
            PathFailure::SubjectNameEmpty => "Subject name empty",
            PathFailure::MissingAuthorityKeyId => "Missing Authority Key Identifier",
            PathFailure::MissingSubjectKeyId => "Missing Subject Key Identifier",
            PathFailure::EmptySubjectAltName => "Empty Subject Alternative Name extension",
            PathFailure::EmptySubjectSanNotCritical => {
                "Subject empty and Subject Alt Name extension not critical"
            }
            PathFailure::CaBasicConstraintsNotCritical => {
                "Basic Constraints of CA cert not marked critical"
            }
            PathFailure::CaWithoutKeyUsage => "CA cert does not include key usage extension",
            PathFailure::ExtensionsNeedV3 => "Using cert extension requires at least X509v3",
        }
    }
}

impl fmt::Display for PathFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A path that failed: why, at which depth (0 for the end entity, counting up to the
/// trust anchor), the certificate there, and any detail beyond OpenSSL's words.
#[derive(Clone, Debug)]
pub struct PathError {
    /// Why.
    pub failure: PathFailure,
    /// Where in the path.
    pub depth: usize,
    /// The certificate at `depth`.
    pub cert: Box<Certificate>,
    /// More than the failure's words say (which bound of the work was reached).
    pub detail: Option<String>,
    /// The lines OpenSSL's `verify` prints after the failure's (for
    /// [`PathFailure::NoExplicitPolicy`], the policy tree), if any.
    pub note: Option<String>,
}

impl PathError {
    pub(crate) fn new(failure: PathFailure, depth: usize, cert: &Certificate) -> PathError {
        PathError { failure, depth, cert: Box::new(cert.clone()), detail: None, note: None }
    }

    /// The subject of the certificate at fault, as OpenSSL prints names.
    pub fn subject(&self) -> String {
        display_name(self.cert.tbs_certificate().subject())
    }
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.failure)?;
        if let Some(detail) = &self.detail {
            write!(f, ": {detail}")?;
        }
        write!(f, " (depth {}: {})", self.depth, self.subject())
    }
}
