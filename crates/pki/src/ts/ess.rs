//! The signing-certificate attribute of a token (RFC 3161 section 2.4.1 requires it):
//! hashes of the TSA's certificate, and optionally of its CAs, among the signed
//! attributes, so that a token cannot be passed off as signed under another certificate
//! for the same key (RFC 2634 section 5.4, SigningCertificate with SHA-1; RFC 5035
//! section 3, SigningCertificateV2 with another hash, SHA-256 when none is named).
//!
//! A TSA names its own certificate by hash alone and each CA by hash, issuer and serial,
//! as OpenSSL's TSA does; a verifier finds the first ID at the head of the path and every
//! other one in it, as OpenSSL's `OSSL_ESS_check_signing_certs` does.

use super::asn1::{EssCertId, EssCertIdV2, IssuerSerial, SigningCertificate, SigningCertificateV2};
use crate::cert::canonical_name;
use crate::sig::{hash_from_id, hash_id};
use crate::{Error, Result};
use const_oid::db::rfc5911::{ID_AA_SIGNING_CERTIFICATE, ID_AA_SIGNING_CERTIFICATE_V_2};
use cryptocard::digest::{HashAlg, Hasher};
use der::asn1::{OctetString, SetOfVec};
use der::{Any, Decode, Encode};
use x509_cert::Certificate;
use x509_cert::attr::{Attribute, Attributes};
use x509_cert::ext::pkix::name::GeneralName;

/// The signing-certificate attribute naming `signer` (and, with `chain`, its CAs) by
/// their `hash`: version 1 for SHA-1, version 2 otherwise.
pub(crate) fn attribute(
    signer: &Certificate,
    chain: &[Certificate],
    hash: HashAlg,
) -> Result<Attribute> {
    let issuer_serial = |c: &Certificate| IssuerSerial {
        issuer: vec![GeneralName::DirectoryName(c.tbs_certificate().issuer().clone())],
        serial_number: c.tbs_certificate().serial_number().clone(),
    };
    // Each certificate's hash, and for the CAs their issuer and serial.
    let certs = std::iter::once((signer, false)).chain(chain.iter().map(|c| (c, true)));
    let mut ids = Vec::new();
    for (c, with_issuer) in certs {
        let cert_hash =
            OctetString::new(Hasher::digest(hash, &crate::cert::to_der(c)?).as_bytes())?;
        ids.push((cert_hash, with_issuer.then(|| issuer_serial(c))));
    }
    let (oid, value) = if hash == HashAlg::Sha1 {
        let certs = ids
            .into_iter()
            .map(|(cert_hash, issuer_serial)| EssCertId { cert_hash, issuer_serial })
            .collect();
        let sc = SigningCertificate { certs, policies: None };
        (ID_AA_SIGNING_CERTIFICATE, Any::encode_from(&sc)?)
    } else {
        // SHA-256 is the default, left out (DER); another hash is named, without
        // parameters.
        let hash_algorithm = match hash {
            HashAlg::Sha256 => None,
            h => Some(spki::AlgorithmIdentifierOwned { parameters: None, ..hash_id(h)? }),
        };
        let certs = ids
            .into_iter()
            .map(|(cert_hash, issuer_serial)| EssCertIdV2 {
                hash_algorithm: hash_algorithm.clone(),
                cert_hash,
                issuer_serial,
            })
            .collect();
        let sc = SigningCertificateV2 { certs, policies: None };
        (ID_AA_SIGNING_CERTIFICATE_V_2, Any::encode_from(&sc)?)
    };
    Ok(Attribute { oid, values: SetOfVec::try_from(vec![value])? })
}

/// One certificate ID, of either version: its hash, the hash's algorithm, and the issuer
/// and serial if given.
struct CertRef<'a> {
    hash: HashAlg,
    digest: &'a [u8],
    issuer_serial: Option<&'a IssuerSerial>,
}

/// Checks the signing-certificate attributes of `attrs` against the signer's verified
/// `path` (leaf first): at least one of them, none empty, the first ID of each naming the
/// leaf and every other ID a certificate of the path.
pub(crate) fn check(attrs: &Attributes, path: &[Certificate]) -> Result<()> {
    let v1: Option<SigningCertificate> = value(attrs, ID_AA_SIGNING_CERTIFICATE)?;
    let v2: Option<SigningCertificateV2> = value(attrs, ID_AA_SIGNING_CERTIFICATE_V_2)?;
    if v1.is_none() && v2.is_none() {
        return Err(Error::Verify("no signing certificate attribute".into()));
    }
    let mut refs = Vec::new();
    if let Some(sc) = &v1 {
        if sc.certs.is_empty() {
            return Err(Error::Verify("empty signing certificate attribute".into()));
        }
        refs.push(
            sc.certs
                .iter()
                .map(|id| CertRef {
                    hash: HashAlg::Sha1,
                    digest: id.cert_hash.as_bytes(),
                    issuer_serial: id.issuer_serial.as_ref(),
                })
                .collect::<Vec<_>>(),
        );
    }
    if let Some(sc) = &v2 {
        if sc.certs.is_empty() {
            return Err(Error::Verify("empty signing certificate attribute".into()));
        }
        let mut ids = Vec::new();
        for id in &sc.certs {
            let hash = match &id.hash_algorithm {
                None => HashAlg::Sha256,
                Some(alg) => hash_from_id(alg)?,
            };
            ids.push(CertRef {
                hash,
                digest: id.cert_hash.as_bytes(),
                issuer_serial: id.issuer_serial.as_ref(),
            });
        }
        refs.push(ids);
    }
    let ders = path.iter().map(crate::cert::to_der).collect::<Result<Vec<_>>>()?;
    for ids in &refs {
        for (i, id) in ids.iter().enumerate() {
            find(id, i, path, &ders)?;
        }
    }
    Ok(())
}

/// The one value of attribute `oid`, decoded, if the attribute is there.
fn value<T: for<'a> Decode<'a, Error = der::Error>>(
    attrs: &Attributes,
    oid: der::asn1::ObjectIdentifier,
) -> Result<Option<T>> {
    let Some(attr) = attrs.iter().find(|a| a.oid == oid) else { return Ok(None) };
    let mut values = attr.values.iter();
    let (Some(v), None) = (values.next(), values.next()) else {
        return Err(Error::Verify("a signing certificate attribute needs one value".into()));
    };
    Ok(Some(T::from_der(&v.to_der()?)?))
}

/// Finds the certificate of `id`, the `index`th ID, in `path`: the first ID must name
/// the leaf and no other may.
fn find(id: &CertRef<'_>, index: usize, path: &[Certificate], ders: &[Vec<u8>]) -> Result<()> {
    for (pos, (cert, der)) in path.iter().zip(ders).enumerate() {
        let digest = Hasher::digest(id.hash, der);
        if digest.as_bytes().len() != id.digest.len() {
            return Err(Error::Verify("signing certificate hash of the wrong length".into()));
        }
        if digest.as_bytes() != id.digest {
            continue;
        }
        if id.issuer_serial.is_none_or(|is| names(is, cert)) {
            if (pos == 0) == (index == 0) {
                return Ok(());
            }
            return Err(Error::Verify("signing certificate IDs in the wrong order".into()));
        }
    }
    Err(Error::Verify("a signing certificate ID names no certificate of the path".into()))
}

/// Whether `is` names `cert`: one directory name, its issuer (compared as OpenSSL's
/// `X509_NAME_cmp` does), and its serial number.
fn names(is: &IssuerSerial, cert: &Certificate) -> bool {
    let tbs = cert.tbs_certificate();
    let [GeneralName::DirectoryName(issuer)] = is.issuer.as_slice() else { return false };
    let same = match (canonical_name(issuer), canonical_name(tbs.issuer())) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    same && is.serial_number == *tbs.serial_number()
}
