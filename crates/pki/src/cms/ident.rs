//! How CMS names a certificate (RFC 5652 sections 5.3 and 6.2.1): by issuer and serial
//! number, or by subject key identifier. A signer's `SignerIdentifier` and a recipient's
//! `RecipientIdentifier` are the same choice; this is the one place that makes and
//! matches it.

use crate::cert::{Certificate, issuer_and_serial};
use crate::{Error, Result};
use cms::cert::IssuerAndSerialNumber;
use cms::enveloped_data::RecipientIdentifier;
use cms::signed_data::SignerIdentifier;
use x509_cert::ext::pkix::SubjectKeyIdentifier;

/// One of the two ways CMS names a certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum CertId {
    /// Issuer and serial number (version 1 SignerInfo, version 0 recipient).
    IssuerSerial(IssuerAndSerialNumber),
    /// Subject key identifier (version 3 SignerInfo, version 2 recipient).
    KeyId(SubjectKeyIdentifier),
}

impl CertId {
    /// How `cert` is named: by key identifier if `by_key_id` (an error if it has none;
    /// `role` says whose certificate it is), else by issuer and serial number.
    pub(super) fn of(cert: &Certificate, by_key_id: bool, role: &str) -> Result<CertId> {
        if !by_key_id {
            let (issuer, serial_number) = issuer_and_serial(cert);
            return Ok(CertId::IssuerSerial(IssuerAndSerialNumber { issuer, serial_number }));
        }
        let ski = cert.tbs_certificate().get_extension::<SubjectKeyIdentifier>()?;
        let (_, ski) = ski.ok_or_else(|| {
            Error::NoMatch(format!("{role} certificate has no subject key identifier"))
        })?;
        Ok(CertId::KeyId(ski))
    }

    /// Whether this names `cert`.
    pub(super) fn names(&self, cert: &Certificate) -> bool {
        CertId::of(cert, matches!(self, CertId::KeyId(_)), "").is_ok_and(|mine| &mine == self)
    }

    pub(super) fn signer(self) -> SignerIdentifier {
        match self {
            CertId::IssuerSerial(isn) => SignerIdentifier::IssuerAndSerialNumber(isn),
            CertId::KeyId(ski) => SignerIdentifier::SubjectKeyIdentifier(ski),
        }
    }

    pub(super) fn recipient(self) -> RecipientIdentifier {
        match self {
            CertId::IssuerSerial(isn) => RecipientIdentifier::IssuerAndSerialNumber(isn),
            CertId::KeyId(ski) => RecipientIdentifier::SubjectKeyIdentifier(ski),
        }
    }
}

impl From<&SignerIdentifier> for CertId {
    fn from(sid: &SignerIdentifier) -> CertId {
        match sid {
            SignerIdentifier::IssuerAndSerialNumber(isn) => CertId::IssuerSerial(isn.clone()),
            SignerIdentifier::SubjectKeyIdentifier(ski) => CertId::KeyId(ski.clone()),
        }
    }
}

impl From<&RecipientIdentifier> for CertId {
    fn from(rid: &RecipientIdentifier) -> CertId {
        match rid {
            RecipientIdentifier::IssuerAndSerialNumber(isn) => CertId::IssuerSerial(isn.clone()),
            RecipientIdentifier::SubjectKeyIdentifier(ski) => CertId::KeyId(ski.clone()),
        }
    }
}
