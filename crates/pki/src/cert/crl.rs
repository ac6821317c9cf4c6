//! Certificate revocation lists (RFC 5280 section 5) and the revocation check of path
//! validation (section 6.3), as OpenSSL applies it under `-crl_check` (the end entity)
//! and `-crl_check_all` (every certificate of the path, the trust anchor included), its
//! failures and their order those of its `check_cert`, `check_crl` and `cert_crl`
//! (`crypto/x509/x509_vfy.c`, 3.0):
//!
//! - a CRL may be a certificate's when it names the certificate's issuer and, if both
//!   give one, that issuer's key identifier (5.2.1), and is complete: deltas (5.2.4),
//!   indirect CRLs and CRLs of some reasons only (5.2.5) are not read, as OpenSSL without
//!   its extended CRL support does not read them. None is "unable to get certificate
//!   CRL";
//! - of several, the best is taken as OpenSSL scores them: no unhandled critical
//!   extension, then in scope, then current, then the latest thisUpdate;
//! - its signer is the certificate's issuer in the path, whose keyUsage, if present, must
//!   have cRLSign (4.2.1.3);
//! - the certificate must be in its scope: an issuingDistributionPoint (5.2.5) that
//!   limits it to CA or to end-entity certificates must fit, and a distribution point it
//!   names must be one the certificate names (4.2.1.13);
//! - thisUpdate must have passed and nextUpdate, if present, not (5.1.2.4, 5.1.2.5);
//! - the issuer's key must verify its signature (5.1.1.3);
//! - no extension of the CRL or of an entry may be critical unless it is one we read
//!   (5.2, 5.3);
//! - the certificate's serial number must not be listed (5.1.2.6), except with the
//!   reason removeFromCRL (5.3.1).
//!
//! The CRLs are the caller's: files an operator names, or those a CMS message carries
//! (which `cms::verify` passes on); each certificate checked costs one signature
//! verification.

use super::failure::PathFailure;
use crate::sig::{self, SigScheme};
use crate::{Error, Result};
use const_oid::db::rfc5280::{
    ID_CE_AUTHORITY_KEY_IDENTIFIER, ID_CE_CERTIFICATE_ISSUER, ID_CE_CRL_NUMBER, ID_CE_CRL_REASONS,
    ID_CE_DELTA_CRL_INDICATOR, ID_CE_INVALIDITY_DATE, ID_CE_ISSUING_DISTRIBUTION_POINT,
};
use cryptocard::digest::{HashAlg, Hasher};
use der::asn1::{AnyRef, BitString, Int};
use der::{Decode, Encode, Sequence};
use spki::AlgorithmIdentifierOwned;
use std::time::SystemTime;
use x509_cert::Certificate;
use x509_cert::Version;
use x509_cert::ext::Extensions;
use x509_cert::ext::pkix::crl::dp::IssuingDistributionPoint;
use x509_cert::ext::pkix::name::DistributionPointName;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, CrlDistributionPoints, CrlReason, KeyUsage,
    SubjectKeyIdentifier,
};
use x509_cert::name::Name;
use x509_cert::time::Time;

/// The most CRLs read from one input (a bound on work, not a limit users meet).
pub const MAX_CRLS: usize = 1000;

/// RFC 5280 section 5.1 `CertificateList`.
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub(super) struct CertificateList {
    pub(super) tbs: TbsCertList,
    pub(super) signature_algorithm: AlgorithmIdentifierOwned,
    pub(super) signature: BitString,
}

/// `TBSCertList`, its version optional (a v1 CRL has none), unlike `x509-cert`'s.
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub(super) struct TbsCertList {
    pub(super) version: Option<Version>,
    pub(super) signature: AlgorithmIdentifierOwned,
    pub(super) issuer: Name,
    pub(super) this_update: Time,
    pub(super) next_update: Option<Time>,
    pub(super) revoked: Option<Vec<RevokedCert>>,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    pub(super) extensions: Option<Extensions>,
}

/// One entry of `revokedCertificates`, its serial number read as any INTEGER.
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub(super) struct RevokedCert {
    pub(super) serial: Int,
    pub(super) date: Time,
    pub(super) extensions: Option<Extensions>,
}

/// The outer SEQUENCE with its signed part as it came, so that the signature and the
/// fingerprint are over the bytes the issuer signed, not over a re-encoding.
#[derive(Sequence)]
struct Signed<'a> {
    tbs: AnyRef<'a>,
    signature_algorithm: AnyRef<'a>,
    signature: AnyRef<'a>,
}

/// A parsed CRL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crl {
    pub(super) list: CertificateList,
    der: Vec<u8>,
    tbs_der: Vec<u8>,
}

impl Crl {
    /// One DER CRL; trailing bytes are an error.
    pub fn from_der(der: &[u8]) -> Result<Crl> {
        let malformed = |e: der::Error| Error::Malformed(format!("CRL: {e}"));
        let list = CertificateList::from_der(der).map_err(malformed)?;
        let tbs_der = Signed::from_der(der).and_then(|s| s.tbs.to_der()).map_err(malformed)?;
        Ok(Crl { list, der: der.to_vec(), tbs_der })
    }

    /// The CRL's DER, as read.
    pub fn to_der(&self) -> &[u8] {
        &self.der
    }

    /// The CRL as PEM (`X509 CRL`, as OpenSSL writes it).
    pub fn to_pem(&self) -> Result<String> {
        der::pem::encode_string("X509 CRL", der::pem::LineEnding::LF, &self.der)
            .map_err(|e| Error::Malformed(format!("CRL PEM: {e}")))
    }

    /// The digest of the DER (`openssl crl -fingerprint`).
    pub fn fingerprint(&self, hash: HashAlg) -> Vec<u8> {
        Hasher::digest(hash, &self.der).as_bytes().to_vec()
    }

    /// `NAME Fingerprint=AB:CD:...` as `openssl crl -fingerprint` prints it, labelled with
    /// OpenSSL's name of the digest (`SHA1`, `SHA2-256`, ...).
    pub fn fingerprint_line(&self, hash: HashAlg) -> String {
        super::fingerprint_text(hash.name(), &self.fingerprint(hash))
    }

    /// The cRLNumber extension (RFC 5280 5.2.3), if it has a readable one, in hex as
    /// `openssl crl -crlnumber` prints it after its `0x` ([`super::integer_hex`]).
    pub fn number_hex(&self) -> Option<String> {
        self.extension::<Int>(ID_CE_CRL_NUMBER).map(|n| super::integer_hex(n.as_bytes()))
    }

    /// The CRL's issuer.
    pub fn issuer(&self) -> &Name {
        &self.list.tbs.issuer
    }

    /// thisUpdate.
    pub fn this_update(&self) -> SystemTime {
        self.list.tbs.this_update.to_system_time()
    }

    /// nextUpdate, if given.
    pub fn next_update(&self) -> Option<SystemTime> {
        self.list.tbs.next_update.map(|t| t.to_system_time())
    }

    /// thisUpdate and nextUpdate as encoded (to print them as [`super::time_text`]).
    pub fn update_times(&self) -> (&Time, Option<&Time>) {
        (&self.list.tbs.this_update, self.list.tbs.next_update.as_ref())
    }

    /// How many certificates the CRL lists.
    pub fn revoked_count(&self) -> usize {
        self.list.tbs.revoked.as_ref().map_or(0, Vec::len)
    }

    fn extension<T: for<'a> Decode<'a>>(&self, oid: der::oid::ObjectIdentifier) -> Option<T> {
        let exts = self.list.tbs.extensions.as_ref()?;
        let ext = exts.iter().find(|e| e.extn_id == oid)?;
        T::from_der(ext.extn_value.as_bytes()).ok()
    }

    fn has_extension(&self, oid: der::oid::ObjectIdentifier) -> bool {
        self.list.tbs.extensions.as_ref().is_some_and(|x| x.iter().any(|e| e.extn_id == oid))
    }

    /// Whether the CRL may be `cert`'s, issued by `issuer`: its issuer's name, its key
    /// identifier (if both name one), a complete CRL (no delta, no indirect CRL, no
    /// subset of reasons) with a readable issuingDistributionPoint if it has one, as
    /// OpenSSL's `get_crl_score` excludes the rest.
    fn may_be_for(&self, cert: &Certificate, issuer: &Certificate) -> bool {
        if self.issuer() != cert.tbs_certificate().issuer()
            || self.has_extension(ID_CE_DELTA_CRL_INDICATOR)
        {
            return false;
        }
        let akid = self.extension::<AuthorityKeyIdentifier>(ID_CE_AUTHORITY_KEY_IDENTIFIER);
        let skid = issuer.tbs_certificate().get_extension::<SubjectKeyIdentifier>();
        if let (Some(AuthorityKeyIdentifier { key_identifier: Some(a), .. }), Ok(Some((_, s)))) =
            (akid, skid)
            && a != s.0
        {
            return false;
        }
        match self.idp() {
            Ok(Some(idp)) => !idp.indirect_crl && idp.only_some_reasons.is_none(),
            Ok(None) => true,
            Err(()) => false,
        }
    }

    /// The issuingDistributionPoint, if any; `Err` if it does not parse.
    fn idp(&self) -> core::result::Result<Option<IssuingDistributionPoint>, ()> {
        if !self.has_extension(ID_CE_ISSUING_DISTRIBUTION_POINT) {
            return Ok(None);
        }
        self.extension(ID_CE_ISSUING_DISTRIBUTION_POINT).map(Some).ok_or(())
    }

    /// Whether `cert` is in the CRL's scope (OpenSSL's `crl_crldp_check`): the
    /// issuingDistributionPoint's limits to CA or end-entity certificates fit it, and a
    /// distribution point it names is one `cert` names (RFC 5280 4.2.1.13, 5.2.5).
    fn in_scope(&self, cert: &Certificate) -> bool {
        let Ok(idp) = self.idp() else { return false };
        let Some(idp) = idp else { return true };
        let tbs = cert.tbs_certificate();
        let is_ca = matches!(tbs.get_extension::<BasicConstraints>(), Ok(Some((_, bc))) if bc.ca);
        if idp.only_contains_attribute_certs
            || (idp.only_contains_user_certs && is_ca)
            || (idp.only_contains_ca_certs && !is_ca)
        {
            return false;
        }
        let Some(point) = idp.distribution_point else { return true };
        let points = match tbs.get_extension::<CrlDistributionPoints>() {
            Ok(Some((_, dps))) => dps.0,
            _ => Vec::new(),
        };
        points.iter().filter(|dp| dp.crl_issuer.is_none()).any(|dp| {
            match (&dp.distribution_point, &point) {
                (None, _) => true,
                (
                    Some(DistributionPointName::FullName(theirs)),
                    DistributionPointName::FullName(ours),
                ) => theirs.iter().any(|n| ours.contains(n)),
                // A name relative to the issuer (RFC 5280 4.2.1.13) is rare; it is not read.
                _ => false,
            }
        })
    }

    /// Whether `at` falls between thisUpdate and nextUpdate.
    fn current(&self, at: SystemTime) -> bool {
        self.this_update() <= at && self.next_update().is_none_or(|next| at <= next)
    }

    /// Whether `issuer`'s key verifies the CRL's signature (its name is not compared).
    pub fn signed_by(&self, issuer: &Certificate) -> bool {
        let verify = || -> Result<()> {
            if self.list.signature_algorithm != self.list.tbs.signature {
                return Err(Error::Verify("CRL signature algorithm mismatch".into()));
            }
            let scheme = SigScheme::from_algorithm_identifier(&self.list.signature_algorithm)?;
            let signature = self
                .list
                .signature
                .as_bytes()
                .ok_or_else(|| Error::Malformed("CRL signature is not whole bytes".into()))?;
            let digest = Hasher::digest(scheme.hash(), &self.tbs_der);
            let key =
                sig::public_key_from_spki(issuer.tbs_certificate().subject_public_key_info())?;
            sig::verify_digest(&key, &scheme, digest.as_bytes(), signature)
        };
        verify().is_ok()
    }

    /// Whether a critical extension of the CRL or of an entry is one we do not read.
    fn unhandled_critical(&self) -> bool {
        let crl_known = [
            ID_CE_ISSUING_DISTRIBUTION_POINT,
            ID_CE_AUTHORITY_KEY_IDENTIFIER,
            ID_CE_DELTA_CRL_INDICATOR,
        ];
        let entry_known = [ID_CE_CRL_REASONS, ID_CE_INVALIDITY_DATE, ID_CE_CERTIFICATE_ISSUER];
        let tbs = &self.list.tbs;
        let mut crl_exts = tbs.extensions.iter().flatten();
        let mut entry_exts =
            tbs.revoked.iter().flatten().flat_map(|r| r.extensions.iter().flatten());
        crl_exts.any(|e| e.critical && !crl_known.contains(&e.extn_id))
            || entry_exts.any(|e| e.critical && !entry_known.contains(&e.extn_id))
    }

    /// Whether `cert`'s serial number is listed, for a reason other than removeFromCRL.
    fn lists(&self, cert: &Certificate) -> bool {
        let serial = cert.tbs_certificate().serial_number().as_bytes();
        let entries = self.list.tbs.revoked.iter().flatten();
        entries.filter(|r| r.serial.as_bytes() == serial).any(|r| {
            let reason = r.extensions.iter().flatten().find(|e| e.extn_id == ID_CE_CRL_REASONS);
            let reason = reason.and_then(|e| CrlReason::from_der(e.extn_value.as_bytes()).ok());
            reason != Some(CrlReason::RemoveFromCRL)
        })
    }
}

/// Every CRL of PEM text (`X509 CRL` blocks; others are skipped) or one DER CRL, told
/// apart by content.
pub fn read_crls(data: &[u8]) -> Result<Vec<Crl>> {
    if super::parse::is_pem(data) { crls_from_pem(data) } else { Ok(vec![Crl::from_der(data)?]) }
}

/// Every `X509 CRL` block of PEM text, in order (none if it has none).
pub fn crls_from_pem(data: &[u8]) -> Result<Vec<Crl>> {
    let mut out = Vec::new();
    for (label, block) in super::parse::pem_blocks(data)? {
        if label == "X509 CRL" {
            if out.len() == MAX_CRLS {
                return Err(Error::Malformed(format!("more than {MAX_CRLS} CRLs")));
            }
            out.push(Crl::from_der(&super::parse::pem_body(block)?)?);
        }
    }
    Ok(out)
}

/// The CRLs of a file of trusted certificates (`-CAfile`), which OpenSSL's store reads
/// beside them: its `X509 CRL` blocks if it is PEM; none if it is DER (one certificate).
pub fn crls_beside_certs(data: &[u8]) -> Result<Vec<Crl>> {
    if super::parse::is_pem(data) { crls_from_pem(data) } else { Ok(Vec::new()) }
}

/// Which certificates of a path are checked for revocation, against which CRLs.
#[derive(Clone, Copy, Debug)]
pub struct Revocation<'a> {
    /// The CRLs to consult.
    pub crls: &'a [Crl],
    /// Every certificate of the path (`-crl_check_all`), not only the end entity
    /// (`-crl_check`).
    pub all: bool,
}

/// The revocation check of the certificate at `depth` of `path` (leaf first), at `at`
/// (`None`: the CRLs' times are not checked, OpenSSL's `-no_check_time`), with unhandled
/// critical CRL extensions let by if `ignore_critical`, reporting each failure through `report`, which says whether to go on (OpenSSL's
/// verify callback). `Err(())` once one does not go on.
pub(super) fn check_cert(
    path: &[Certificate],
    depth: usize,
    crls: &[Crl],
    at: Option<SystemTime>,
    ignore_critical: bool,
    report: &mut dyn FnMut(PathFailure) -> core::result::Result<(), ()>,
) -> core::result::Result<(), ()> {
    let cert = &path[depth];
    // The CRL's signer: the next certificate up, or the top one if it issued itself; a
    // top that did not (a partial chain) has no CRL we could check, as in OpenSSL.
    let tbs = cert.tbs_certificate();
    let issuer = match path.get(depth + 1) {
        Some(issuer) => issuer,
        None if tbs.issuer() == tbs.subject() => cert,
        None => return report(PathFailure::UnableToGetCrl),
    };
    // The best CRL, as OpenSSL scores them: no unhandled critical extension, then in
    // scope, then current, then the latest; of equals, the first given (`max_by_key`
    // takes the last of equals, so it runs backwards).
    let best = crls
        .iter()
        .rev()
        .filter(|c| c.may_be_for(cert, issuer))
        .map(|c| {
            let current = at.is_none_or(|at| c.current(at));
            ((!c.unhandled_critical(), c.in_scope(cert), current, c.this_update()), c)
        })
        .max_by_key(|(score, _)| *score);
    let Some(((handled, in_scope, _, _), crl)) = best else {
        return report(PathFailure::UnableToGetCrl);
    };
    if let Ok(Some((_, ku))) = issuer.tbs_certificate().get_extension::<KeyUsage>()
        && !ku.crl_sign()
    {
        report(PathFailure::NoCrlSign)?;
    }
    if !in_scope {
        report(PathFailure::DifferentCrlScope)?;
    }
    if let Some(at) = at {
        if at < crl.this_update() {
            report(PathFailure::CrlNotYetValid)?;
        } else if crl.next_update().is_some_and(|next| at > next) {
            report(PathFailure::CrlExpired)?;
        }
    }
    if !crl.signed_by(issuer) {
        report(PathFailure::CrlSignatureFailure)?;
    }
    if !handled && !ignore_critical {
        report(PathFailure::CrlCriticalExtension)?;
    }
    if crl.lists(cert) {
        report(PathFailure::Revoked)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_malformed_not_a_panic() {
        for bad in [
            &b""[..],
            b"\x30\x03\x02\x01\x01",
            b"-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n",
        ] {
            assert!(read_crls(bad).is_err());
        }
        assert_eq!(
            read_crls(b"-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n").unwrap(),
            []
        );
    }
}
