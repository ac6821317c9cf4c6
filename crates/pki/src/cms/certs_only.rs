//! Certs-only messages: a SignedData with no signers that carries certificates and CRLs
//! (RFC 5652 section 5.2's degenerate case; `.p7b`/`.p7c` files, RFC 8551 section
//! 3.2.2's `application/pkcs7-mime; smime-type=certs-only`), as `openssl crl2pkcs7`
//! writes them and `openssl pkcs7 -print_certs` reads them: version 1, no digest
//! algorithms, id-data with no content, then the certificates and CRLs in the order
//! given. Reading takes them out of any SignedData, signed or not.

use super::content::{DATA, open, wrap};
use super::raw_set::RawSet;
use crate::cert::Crl;
use crate::{Error, Result};
use cms::content_info::CmsVersion;
use const_oid::ObjectIdentifier;
use const_oid::db::rfc5911::ID_SIGNED_DATA;

use der::{Decode, Sequence};
use x509_cert::Certificate;

/// The most certificates, and the most CRLs, one message may hand out.
pub const MAX_CERTS_ONLY: usize = 1000;

/// SignedData with its SETs raw (as they came, in their order), its content not read.
#[derive(Sequence)]
struct Degenerate {
    version: CmsVersion,
    digest_algorithms: RawSet,
    encap_content_info: Encapsulated,
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    certificates: Option<RawSet>,
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", optional = "true")]
    crls: Option<RawSet>,
    signer_infos: RawSet,
}

/// EncapsulatedContentInfo, its content (if any) not read.
#[derive(Sequence)]
struct Encapsulated {
    econtent_type: ObjectIdentifier,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    econtent: Option<der::Any>,
}

/// A certs-only SignedData ContentInfo (DER) holding `certs` and `crls`, in that order.
pub fn certs_only(certs: &[Certificate], crls: &[Crl]) -> Result<Vec<u8>> {
    let cert_ders = certs.iter().map(crate::cert::to_der).collect::<Result<Vec<_>>>()?;
    let sd = Degenerate {
        version: CmsVersion::V1,
        digest_algorithms: RawSet::in_order([]),
        encap_content_info: Encapsulated { econtent_type: DATA, econtent: None },
        certificates: (!certs.is_empty())
            .then(|| RawSet::in_order(cert_ders.iter().map(Vec::as_slice))),
        crls: (!crls.is_empty()).then(|| RawSet::in_order(crls.iter().map(Crl::to_der))),
        signer_infos: RawSet::in_order([]),
    };
    wrap(ID_SIGNED_DATA, &sd)
}

/// The certificates and CRLs of a SignedData ContentInfo (DER or BER), in its order; the
/// other certificate and revocation choices (attribute certificates, OCSP responses) are
/// passed over.
pub fn certs_and_crls(der: &[u8]) -> Result<(Vec<Certificate>, Vec<Crl>)> {
    let sd: Degenerate = open(der, ID_SIGNED_DATA, "SignedData")?;
    let certs = match &sd.certificates {
        Some(set) => set.sequences()?,
        None => Vec::new(),
    };
    let crls = match &sd.crls {
        Some(set) => set.crls()?,
        None => Vec::new(),
    };
    if certs.len() > MAX_CERTS_ONLY || crls.len() > MAX_CERTS_ONLY {
        return Err(Error::Unsupported(format!("more than {MAX_CERTS_ONLY} certificates or CRLs")));
    }
    let certs = certs.iter().map(|d| Certificate::from_der(d)).collect::<der::Result<Vec<_>>>()?;
    Ok((certs, crls))
}
