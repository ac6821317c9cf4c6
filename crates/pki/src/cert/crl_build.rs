//! Making CRLs (RFC 5280 section 5) as OpenSSL's `ca -gencrl` makes them with the usual
//! `crl_extensions`: version 2; the issuer's name; thisUpdate and nextUpdate (UTCTime
//! through 2049, GeneralizedTime after, 5.1.2.4 and 5.1.2.5); each revoked serial with
//! its revocation date and, if given, its reason code (5.3.1), sorted by serial as
//! OpenSSL's `X509_CRL_sort` sorts them; an authorityKeyIdentifier with the issuer's key
//! identifier (5.2.1) and, if given, a cRLNumber (5.2.3); signed with the issuer's key,
//! which must be its certificate's.
//!
//! An issuer whose keyUsage leaves out cRLSign is refused: every verifier would refuse
//! its CRL (4.2.1.3), OpenSSL's with "key usage does not include CRL signing".

use super::build::{extension, time};
use super::crl::{CertificateList, Crl, RevokedCert, TbsCertList};
use super::key_id;
use crate::sig::{self, SigScheme};
use crate::{Error, Result};
use cryptocard::rsa::RsaPrivateKey;
use der::Encode;
use der::asn1::{BitString, Int, OctetString, Uint};
use std::time::SystemTime;
use x509_cert::Certificate;
use x509_cert::Version;
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::{AuthorityKeyIdentifier, CrlNumber, CrlReason, KeyUsage};
use x509_cert::serial_number::SerialNumber;
use x509_cert::time::Time;

/// The fields of a CRL to be made.
#[derive(Clone, Debug)]
pub struct CrlBuilder {
    this_update: SystemTime,
    next_update: Option<SystemTime>,
    number: Option<u64>,
    revoked: Vec<Entry>,
    scheme: SigScheme,
    extensions: Option<Vec<Extension>>,
    version: Version,
}

/// A revoked certificate: its serial (DER INTEGER content), when, its reason and other
/// entry extensions.
type Entry = (Vec<u8>, Stamp, Option<CrlReason>, Vec<Extension>);

/// A revocation date: a moment (encoded by year), or a time kept as given.
#[derive(Clone, Debug)]
enum Stamp {
    At(SystemTime),
    Exact(Time),
}

impl CrlBuilder {
    /// A CRL issued at `this_update`, listing nothing yet, signed with PKCS#1 v1.5 and
    /// SHA-256 (as `ca -gencrl` with `default_md = sha256`).
    pub fn new(this_update: SystemTime) -> CrlBuilder {
        CrlBuilder {
            this_update,
            next_update: None,
            number: None,
            revoked: Vec::new(),
            scheme: SigScheme::DEFAULT,
            extensions: None,
            version: Version::V2,
        }
    }

    /// The CRL's own extensions, in place of the default authority key identifier
    /// (`ca -gencrl`'s `crl_extensions`); a [`number`](Self::number) follows them.
    pub fn extensions(mut self, extensions: Vec<Extension>) -> CrlBuilder {
        self.extensions = Some(extensions);
        self
    }

    /// The version (default 2). Version 1 is for a CRL without any extension, as
    /// `ca -gencrl` writes one when nothing asks for version 2 (RFC 5280 5.1.2.1).
    pub fn version(mut self, version: Version) -> CrlBuilder {
        self.version = version;
        self
    }

    /// Lists the certificate of `serial` as revoked at `at`, a time kept as given, with
    /// these entry extensions (RFC 5280 5.3), in this order.
    pub fn revoke_entry(
        mut self,
        serial: &SerialNumber,
        at: Time,
        extensions: Vec<Extension>,
    ) -> CrlBuilder {
        self.revoked.push((serial.as_bytes().to_vec(), Stamp::Exact(at), None, extensions));
        self
    }

    /// When the next CRL will be issued (RFC 5280 requires it; OpenSSL's `-crldays`).
    pub fn next_update(mut self, at: SystemTime) -> CrlBuilder {
        self.next_update = Some(at);
        self
    }

    /// The CRL's number, increasing from one CRL of the issuer to the next.
    pub fn number(mut self, number: u64) -> CrlBuilder {
        self.number = Some(number);
        self
    }

    /// Lists the certificate of `serial` as revoked at `at`, for `reason` if given.
    pub fn revoke(
        mut self,
        serial: &SerialNumber,
        at: SystemTime,
        reason: Option<CrlReason>,
    ) -> CrlBuilder {
        self.revoked.push((serial.as_bytes().to_vec(), Stamp::At(at), reason, Vec::new()));
        self
    }

    /// The signature scheme (for the issuer's key: `SigScheme::for_key`).
    pub fn scheme(mut self, scheme: SigScheme) -> CrlBuilder {
        self.scheme = scheme;
        self
    }

    /// Signs the CRL as `issuer`, whose private key is `key`.
    pub fn sign(self, issuer: &Certificate, key: &RsaPrivateKey) -> Result<Crl> {
        let tbs = issuer.tbs_certificate();
        if &sig::spki_of(key.public_key())? != tbs.subject_public_key_info() {
            return Err(Error::NoMatch(
                "key values mismatch: the CRL signing key is not the issuer certificate's".into(),
            ));
        }
        if let Ok(Some((_, ku))) = tbs.get_extension::<KeyUsage>()
            && !ku.crl_sign()
        {
            return Err(Error::Unsupported(
                "the issuer's keyUsage does not include cRLSign".into(),
            ));
        }
        let aki = match super::subject_key_id(issuer)? {
            Some(id) => id,
            None => key_id(tbs.subject_public_key_info())?,
        };
        let scheme = self.scheme.for_key(key.public_key())?;
        let alg = scheme.algorithm_identifier()?;
        let aki = AuthorityKeyIdentifier {
            key_identifier: Some(OctetString::new(aki)?),
            authority_cert_issuer: None,
            authority_cert_serial_number: None,
        };
        let mut extensions = match self.extensions {
            Some(given) => given,
            None => vec![extension(&aki, false)?],
        };
        if let Some(n) = self.number {
            extensions.push(extension(&CrlNumber(Uint::new(&n.to_be_bytes())?), false)?);
        }
        let entries_extended = self.revoked.iter().any(|e| e.2.is_some() || !e.3.is_empty());
        if self.version == Version::V1 && (!extensions.is_empty() || entries_extended) {
            return Err(Error::Unsupported("a version 1 CRL with extensions".into()));
        }
        let tbs_list = TbsCertList {
            version: (self.version == Version::V2).then_some(Version::V2),
            signature: alg.clone(),
            issuer: tbs.subject().clone(),
            this_update: time(self.this_update)?,
            next_update: self.next_update.map(time).transpose()?,
            revoked: revoked_list(self.revoked)?,
            extensions: (!extensions.is_empty()).then_some(extensions),
        };
        let tbs_der = tbs_list.to_der()?;
        let signature = sig::sign(key, &scheme, &tbs_der)?;
        let list = CertificateList {
            tbs: tbs_list,
            signature_algorithm: alg,
            signature: BitString::from_bytes(&signature)?,
        };
        Crl::from_der(&list.to_der()?)
    }
}

/// The entries, sorted by serial number (positive INTEGERs in DER: shorter is smaller,
/// then byte order); a serial listed twice is refused. `None` for none (RFC 5280 5.1.2.6:
/// absent rather than empty).
fn revoked_list(mut entries: Vec<Entry>) -> Result<Option<Vec<RevokedCert>>> {
    if entries.is_empty() {
        return Ok(None);
    }
    entries.sort_by(|a, b| (a.0.len(), &a.0).cmp(&(b.0.len(), &b.0)));
    if entries.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(Error::Unsupported("a serial number is revoked twice".into()));
    }
    let mut out = Vec::with_capacity(entries.len());
    for (serial, at, reason, more) in entries {
        let date = match at {
            Stamp::At(at) => time(at)?,
            Stamp::Exact(t) => t,
        };
        let mut extensions =
            reason.map(|r| extension(&r, false)).into_iter().collect::<Result<Vec<_>>>()?;
        extensions.extend(more);
        let extensions = (!extensions.is_empty()).then_some(extensions);
        out.push(RevokedCert { serial: Int::new(&serial)?, date, extensions });
    }
    Ok(Some(out))
}
