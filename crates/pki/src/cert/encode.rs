//! Certificates encoded as they were signed. `x509-cert`'s RFC 5280 profile writes a
//! validity time through 2049 as UTCTime (RFC 5280 4.1.2.5) even where the certificate
//! holds a GeneralizedTime, as a few public roots do (Certum Trusted Network CA 2): the
//! signed part then changes, its signature no longer verifies, and a copy written out is
//! not the certificate. These mirrors of RFC 5280 4.1 encode every field as decoded, for
//! signature checks, fingerprints and every certificate written, and for the certificates
//! `build.rs` makes.

use crate::Result;
use der::asn1::BitString;
use der::{Encode, Sequence};
use spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};
use x509_cert::Certificate;
use x509_cert::certificate::{TbsCertificate, Version};
use x509_cert::ext::Extensions;
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::time::Time;

/// `Validity`, its times as they are.
#[derive(Sequence)]
pub(super) struct Validity {
    pub(super) not_before: Time,
    pub(super) not_after: Time,
}

/// `TBSCertificate`.
#[derive(Sequence)]
pub(super) struct Tbs {
    #[asn1(context_specific = "0", optional = "true")]
    pub(super) version: Option<Version>,
    pub(super) serial_number: SerialNumber,
    pub(super) signature: AlgorithmIdentifierOwned,
    pub(super) issuer: Name,
    pub(super) validity: Validity,
    pub(super) subject: Name,
    pub(super) subject_public_key_info: SubjectPublicKeyInfoOwned,
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", optional = "true")]
    pub(super) issuer_unique_id: Option<BitString>,
    #[asn1(context_specific = "2", tag_mode = "IMPLICIT", optional = "true")]
    pub(super) subject_unique_id: Option<BitString>,
    #[asn1(context_specific = "3", optional = "true")]
    pub(super) extensions: Option<Extensions>,
}

/// `Certificate`.
#[derive(Sequence)]
pub(super) struct Signed {
    pub(super) tbs_certificate: Tbs,
    pub(super) signature_algorithm: AlgorithmIdentifierOwned,
    pub(super) signature: BitString,
}

fn tbs(t: &TbsCertificate) -> Tbs {
    Tbs {
        // v1 is the DEFAULT, which DER leaves out.
        version: (t.version() != Version::V1).then_some(t.version()),
        serial_number: t.serial_number().clone(),
        signature: t.signature().clone(),
        issuer: t.issuer().clone(),
        validity: Validity {
            not_before: t.validity().not_before,
            not_after: t.validity().not_after,
        },
        subject: t.subject().clone(),
        subject_public_key_info: t.subject_public_key_info().clone(),
        issuer_unique_id: t.issuer_unique_id().clone(),
        subject_unique_id: t.subject_unique_id().clone(),
        extensions: t.extensions().cloned(),
    }
}

/// The signed part's DER, as signed.
pub(crate) fn tbs_der(t: &TbsCertificate) -> Result<Vec<u8>> {
    Ok(tbs(t).to_der()?)
}

/// The certificate's DER, as issued.
pub(crate) fn cert_der(cert: &Certificate) -> Result<Vec<u8>> {
    let signed = Signed {
        tbs_certificate: tbs(cert.tbs_certificate()),
        signature_algorithm: cert.signature_algorithm().clone(),
        signature: cert.signature().clone(),
    };
    Ok(signed.to_der()?)
}
