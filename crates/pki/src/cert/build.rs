//! Making certificates: self-signed (`openssl req -x509`) and issued by a CA
//! (`openssl x509 -req -CA`), v3 (RFC 5280 4.1), signed with a [`SigScheme`].
//!
//! What OpenSSL 3 writes, we write: a random positive serial of 20 bytes (159 bits, as
//! OpenSSL's `RAND_bits` serials), validity from now for the given days (UTCTime through
//! 2049, GeneralizedTime after, RFC 5280 4.1.2.5), and the extensions of its default
//! `v3_ca` section for a CA (subjectKeyIdentifier, authorityKeyIdentifier with the key
//! identifier only, basicConstraints CA:TRUE critical), plus a critical keyUsage of
//! digitalSignature, keyCertSign and cRLSign so that path validation may check it. A leaf
//! gets the two key identifiers and basicConstraints CA:FALSE. Key identifiers are the
//! SHA-1 of the subjectPublicKey bits (RFC 5280 4.2.1.2 method 1), as OpenSSL's.
//!
//! `x509-cert` keeps its `TbsCertificate` fields private (its builder would bring the
//! `rsa` crate), so the certificate is written with `encode.rs`'s mirrors of RFC 5280
//! 4.1, then decoded as `x509-cert`'s type, whose decoder checks it.

use super::encode::{Signed, Tbs, Validity};
use super::key_id;
use crate::sig::{self, SigScheme};
use crate::{Error, Result};
use cryptocard::rng::{OsRng, RandomSource};
use cryptocard::rsa::{RsaPrivateKey, RsaPublicKey};
use der::asn1::{BitString, OctetString};
use der::{Decode, Encode};
use spki::SubjectPublicKeyInfoOwned;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use x509_cert::Certificate;
use x509_cert::certificate::Version;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, KeyUsage, KeyUsages, SubjectKeyIdentifier,
};
use x509_cert::ext::{Extension, Extensions};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::time::Time;

/// The serial length OpenSSL draws: 20 bytes, the top bit clear.
const SERIAL_LEN: usize = 20;

/// Which extensions a certificate gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// A CA: basicConstraints CA:TRUE and keyUsage (critical), the key identifiers.
    Ca,
    /// An end entity: basicConstraints CA:FALSE, the key identifiers.
    Leaf,
    /// Only the extensions given with [`CertBuilder::extension`], in their order; with none,
    /// a v1 certificate, as `openssl x509 -req` without `-extfile` and `openssl ca`
    /// without an extension section write.
    V1,
}

/// The fields of a certificate to be made.
#[derive(Clone, Debug)]
pub struct CertBuilder {
    subject: Name,
    public_key: SubjectPublicKeyInfoOwned,
    serial: Option<Vec<u8>>,
    not_before: Option<SystemTime>,
    not_after: Option<SystemTime>,
    days: u32,
    scheme: SigScheme,
    profile: Profile,
    extra: Vec<Extension>,
}

impl CertBuilder {
    /// A certificate for `public_key` named `subject`: 30 days, SHA-256 PKCS#1 v1.5,
    /// the CA profile, a random serial (OpenSSL's defaults).
    pub fn new(subject: Name, public_key: &RsaPublicKey) -> Result<CertBuilder> {
        Ok(CertBuilder::for_spki(subject, sig::spki_of(public_key)?))
    }

    /// The same for a key given as its `SubjectPublicKeyInfo` (from a request).
    pub fn for_spki(subject: Name, public_key: SubjectPublicKeyInfoOwned) -> CertBuilder {
        CertBuilder {
            subject,
            public_key,
            serial: None,
            not_before: None,
            not_after: None,
            days: 30,
            scheme: SigScheme::DEFAULT,
            profile: Profile::Ca,
            extra: Vec::new(),
        }
    }

    /// The serial number, big-endian magnitude (leading zeros are dropped).
    pub fn serial(mut self, serial: &[u8]) -> CertBuilder {
        self.serial = Some(serial.to_vec());
        self
    }

    /// Valid for `days` days from the start.
    pub fn days(mut self, days: u32) -> CertBuilder {
        self.days = days;
        self
    }

    /// The start of validity (default: now).
    pub fn not_before(mut self, at: SystemTime) -> CertBuilder {
        self.not_before = Some(at);
        self
    }

    /// The end of validity, in place of a number of days from the start.
    pub fn not_after(mut self, at: SystemTime) -> CertBuilder {
        self.not_after = Some(at);
        self
    }

    /// The signature scheme (a PSS salt length of `max` is made concrete for the key).
    pub fn scheme(mut self, scheme: SigScheme) -> CertBuilder {
        self.scheme = scheme;
        self
    }

    /// The extension profile.
    pub fn profile(mut self, profile: Profile) -> CertBuilder {
        self.profile = profile;
        self
    }

    /// One more extension (a subject alternative name, say), after the profile's; one of
    /// the same type that is already there is replaced. Any extension makes the
    /// certificate v3, also under [`Profile::V1`].
    pub fn extension(mut self, ext: Extension) -> CertBuilder {
        self.extra.retain(|e| e.extn_id != ext.extn_id);
        self.extra.push(ext);
        self
    }

    /// Signs the certificate with the subject's own key (issuer = subject).
    pub fn self_signed(self, key: &RsaPrivateKey) -> Result<Certificate> {
        if sig::spki_of(key.public_key())? != self.public_key {
            return Err(Error::NoMatch("the signing key is not the certificate's key".into()));
        }
        let aki = key_id(&self.public_key)?;
        let issuer = self.subject.clone();
        self.sign(issuer, aki, key)
    }

    /// Signs the certificate as `issuer`, whose private key is `issuer_key`.
    pub fn signed_by(
        self,
        issuer: &Certificate,
        issuer_key: &RsaPrivateKey,
    ) -> Result<Certificate> {
        let issuer_spki = issuer.tbs_certificate().subject_public_key_info();
        if &sig::spki_of(issuer_key.public_key())? != issuer_spki {
            return Err(Error::NoMatch(
                "key values mismatch: the CA key is not the CA certificate's".into(),
            ));
        }
        let aki = match super::subject_key_id(issuer)? {
            Some(id) => id,
            None => key_id(issuer_spki)?,
        };
        let name = issuer.tbs_certificate().subject().clone();
        self.sign(name, aki, issuer_key)
    }

    fn sign(self, issuer: Name, aki: Vec<u8>, key: &RsaPrivateKey) -> Result<Certificate> {
        let scheme = self.scheme.for_key(key.public_key())?;
        let alg = scheme.algorithm_identifier()?;
        let serial = match &self.serial {
            Some(s) => SerialNumber::new(s)?,
            None => random_serial(&mut OsRng)?,
        };
        let start = self.not_before.unwrap_or_else(SystemTime::now);
        let end =
            self.not_after.unwrap_or(start + Duration::from_secs(u64::from(self.days) * 86_400));
        let validity = Validity { not_before: time(start)?, not_after: time(end)? };
        let extensions = self.extensions(aki)?;
        let tbs = Tbs {
            // v1 is the DEFAULT, so DER leaves it out.
            version: extensions.is_some().then_some(Version::V3),
            serial_number: serial,
            signature: alg.clone(),
            issuer,
            validity,
            subject: self.subject,
            subject_public_key_info: self.public_key,
            issuer_unique_id: None,
            subject_unique_id: None,
            extensions,
        };
        let signature = sig::sign(key, &scheme, &tbs.to_der()?)?;
        let cert = Signed {
            tbs_certificate: tbs,
            signature_algorithm: alg,
            signature: BitString::from_bytes(&signature)?,
        };
        // Decoded as `x509-cert`'s type, whose decoder checks it.
        Ok(Certificate::from_der(&cert.to_der()?)?)
    }

    fn extensions(&self, aki: Vec<u8>) -> Result<Option<Extensions>> {
        let ski = key_id(&self.public_key)?;
        let mut exts = vec![
            extension(&SubjectKeyIdentifier(OctetString::new(ski)?), false)?,
            extension(
                &AuthorityKeyIdentifier {
                    key_identifier: Some(OctetString::new(aki)?),
                    authority_cert_issuer: None,
                    authority_cert_serial_number: None,
                },
                false,
            )?,
        ];
        match self.profile {
            Profile::V1 if self.extra.is_empty() => return Ok(None),
            Profile::V1 => exts.clear(),
            Profile::Ca => {
                let bc = BasicConstraints { ca: true, path_len_constraint: None };
                exts.push(extension(&bc, true)?);
                let ku = KeyUsages::DigitalSignature | KeyUsages::KeyCertSign | KeyUsages::CRLSign;
                exts.push(extension(&KeyUsage(ku), true)?);
            }
            Profile::Leaf => {
                let bc = BasicConstraints { ca: false, path_len_constraint: None };
                exts.push(extension(&bc, false)?);
            }
        }
        exts.retain(|e| self.extra.iter().all(|x| x.extn_id != e.extn_id));
        exts.extend(self.extra.iter().cloned());
        Ok(Some(exts))
    }
}

/// A time in whole seconds (as the encodings hold), UTCTime through 2049 and
/// GeneralizedTime after (RFC 5280 4.1.2.5, 5.1.2.4).
pub fn time(at: SystemTime) -> Result<Time> {
    let secs = at
        .duration_since(UNIX_EPOCH)
        .map_err(|_| Error::Unsupported("a time before 1970".into()))?;
    Ok(Time::try_from(UNIX_EPOCH + Duration::from_secs(secs.as_secs()))?)
}

/// An extension holding `value`'s DER.
pub(super) fn extension<T: Encode + const_oid::AssociatedOid>(
    value: &T,
    critical: bool,
) -> Result<Extension> {
    Ok(Extension { extn_id: T::OID, critical, extn_value: OctetString::new(value.to_der()?)? })
}

/// A random serial as OpenSSL draws them (`ca -rand_serial`): positive, 20 bytes.
pub fn new_serial() -> Result<SerialNumber> {
    random_serial(&mut OsRng)
}

/// A random positive serial of [`SERIAL_LEN`] bytes.
pub(crate) fn random_serial(rng: &mut dyn RandomSource) -> Result<SerialNumber> {
    let mut bytes = [0u8; SERIAL_LEN];
    rng.fill_bytes(&mut bytes)?;
    // Positive, and never shorter than 20 bytes.
    bytes[0] = (bytes[0] & 0x7f) | 0x40;
    Ok(SerialNumber::new(&bytes)?)
}
