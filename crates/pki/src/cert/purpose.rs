//! What a path is checked for: OpenSSL's certificate "purposes" (crypto/x509/v3_purp.c),
//! all those of OpenSSL 3.0: S/MIME signing (`smimesign`, what `openssl cms -verify`
//! checks) and encryption (`smimeencrypt`), TLS servers and clients (`sslserver`,
//! `nssslserver`, `sslclient`), CRL signing (`crlsign`), OCSP responders' CAs
//! (`ocsphelper`), time-stamping (`timestampsign`) and none at all.
//!
//! S/MIME signing, for every certificate of the path, as OpenSSL's
//! `check_purpose_smime_sign` (`purpose_smime`) checks them:
//!
//! - each certificate, the end entity, its CAs and the trust anchor alike (OpenSSL checks
//!   every certificate that carries no auxiliary trust settings, and we read none): an
//!   extendedKeyUsage, if present, holds emailProtection (OpenSSL's `xku_reject(x,
//!   XKU_SMIME)`) or anyExtendedKeyUsage (RFC 8550 section 4.4.4). So a CA restricted to
//!   TLS servers certifies no S/MIME signer, whatever its leaves say. OpenSSL (3.0 to
//!   master) does not count anyExtendedKeyUsage: it refuses a certificate whose
//!   extendedKeyUsage holds it without emailProtection, which we accept, as RFC 8550
//!   says (and as the README lists among the differences).
//! - the end entity: a keyUsage, if present, with digitalSignature or nonRepudiation (RFC
//!   8550 section 4.4.2).
//! - a CA: what path validation checks anyway (basicConstraints, keyCertSign; OpenSSL's
//!   `check_ca`). Netscape's certificate type extension, which OpenSSL also reads, is not
//!   read (a critical one fails the path as unhandled).
//!
//! TLS servers and clients, as OpenSSL's `check_purpose_ssl_server` and
//! `check_purpose_ssl_client`:
//!
//! - each certificate of the path: an extendedKeyUsage, if present, holds id-kp-serverAuth
//!   (or one of the two "server gated crypto" purposes of old browsers, which OpenSSL
//!   still counts) for a server, id-kp-clientAuth for a client (RFC 5280 4.2.1.12).
//!   anyExtendedKeyUsage does not count here, as in OpenSSL and as RFC 5280 lets an
//!   application that wants one purpose decide.
//! - the end entity: a keyUsage, if present, with digitalSignature, keyEncipherment or
//!   keyAgreement for a server (any TLS key exchange), digitalSignature or keyAgreement
//!   for a client.
//! - a CA: as for S/MIME.
//!
//! The others, as OpenSSL's `check_purpose_*`: `nssslserver` is `sslserver` with an end
//! entity's keyUsage, if present, holding keyEncipherment; `smimeencrypt` is `smimesign`'s
//! extendedKeyUsage with keyEncipherment for the end entity; `crlsign` asks an end
//! entity's keyUsage, if present, for cRLSign and reads no extendedKeyUsage;
//! `ocsphelper` asks only that the CAs be CAs; `timestampsign` asks the end entity for a
//! critical extendedKeyUsage of id-kp-timeStamping alone and a keyUsage, if present, of
//! digitalSignature and nonRepudiation alone (RFC 3161 section 2.3), and nothing more of
//! the CAs.
//!
//! Under no purpose, or one that reads no extendedKeyUsage, it restricts nothing we check,
//! so a critical one is an extension we do not process (RFC 5280 4.2) and fails the path.

use super::checks::{CaKind, ca_kind};
use super::failure::PathFailure;
use const_oid::ObjectIdentifier;
use const_oid::db::rfc5280::{
    ANY_EXTENDED_KEY_USAGE, ID_KP_CLIENT_AUTH, ID_KP_CODE_SIGNING, ID_KP_EMAIL_PROTECTION,
    ID_KP_OCSP_SIGNING, ID_KP_SERVER_AUTH, ID_KP_TIME_STAMPING,
};
use x509_cert::Certificate;
use x509_cert::ext::pkix::{ExtendedKeyUsage, KeyUsage, KeyUsages};

/// What a certificate path is verified for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Purpose {
    /// Nothing in particular: keyUsage and extendedKeyUsage are not checked beyond a CA's
    /// keyCertSign.
    #[default]
    Any,
    /// Signing S/MIME and CMS content (OpenSSL's `smimesign`).
    SmimeSign,
    /// A TLS server (OpenSSL's `sslserver`).
    SslServer,
    /// A TLS client (OpenSSL's `sslclient`).
    SslClient,
    /// A TLS server whose key can encipher, as old Netscape clients needed (OpenSSL's
    /// `nssslserver`).
    NsSslServer,
    /// Encrypting S/MIME and CMS content to the end entity (OpenSSL's `smimeencrypt`).
    SmimeEncrypt,
    /// Signing CRLs (OpenSSL's `crlsign`).
    CrlSign,
    /// Signing OCSP responses for a CA (OpenSSL's `ocsphelper`: only the CAs are checked,
    /// the responder itself being OCSP's to judge).
    OcspHelper,
    /// Signing time-stamp tokens (OpenSSL's `timestampsign`, RFC 3161 section 2.3).
    TimestampSign,
}

impl Purpose {
    /// Whether this purpose processes extendedKeyUsage (so that a critical one does not
    /// fail the path).
    pub(super) fn uses_eku(self) -> bool {
        !matches!(self, Purpose::Any | Purpose::CrlSign | Purpose::OcspHelper)
    }

    /// Whether the end-entity certificate `cert` may serve this purpose (OpenSSL's
    /// `X509_check_purpose` for a leaf).
    pub fn allows(self, cert: &Certificate) -> bool {
        self.check(cert, 0).is_ok()
    }

    /// The purpose OpenSSL names `name` (`-purpose`), of those we have.
    pub fn from_name(name: &str) -> Option<Purpose> {
        match name {
            "any" => Some(Purpose::Any),
            "smimesign" => Some(Purpose::SmimeSign),
            "sslserver" => Some(Purpose::SslServer),
            "sslclient" => Some(Purpose::SslClient),
            "nssslserver" => Some(Purpose::NsSslServer),
            "smimeencrypt" => Some(Purpose::SmimeEncrypt),
            "crlsign" => Some(Purpose::CrlSign),
            "ocsphelper" => Some(Purpose::OcspHelper),
            "timestampsign" => Some(Purpose::TimestampSign),
            _ => None,
        }
    }

    /// Checks `cert`, at `depth` in its path (0 for the end entity, the CAs above), for
    /// this purpose. A CA must be one for every purpose but `any` (OpenSSL's `check_ca`
    /// under `X509_check_purpose`, which fails the purpose too where the CA status has
    /// failed; OpenSSL 3.0 takes any kind of CA here, also in a strict path).
    pub(super) fn check(self, cert: &Certificate, depth: usize) -> Result<(), PathFailure> {
        if depth > 0 && self != Purpose::Any && ca_kind(cert) == CaKind::Not {
            return Err(PathFailure::Purpose);
        }
        match self {
            Purpose::Any => Ok(()),
            Purpose::SmimeSign => smime_sign(cert, depth),
            Purpose::SslServer => {
                let ku = |k: &KeyUsage| {
                    k.digital_signature() || k.key_encipherment() || k.key_agreement()
                };
                usages(cert, depth, &[ID_KP_SERVER_AUTH, MS_SGC, NS_SGC], ku)
            }
            Purpose::NsSslServer => {
                usages(cert, depth, &[ID_KP_SERVER_AUTH, MS_SGC, NS_SGC], |k| k.key_encipherment())
            }
            Purpose::SslClient => usages(cert, depth, &[ID_KP_CLIENT_AUTH], |k| {
                k.digital_signature() || k.key_agreement()
            }),
            Purpose::SmimeEncrypt => {
                let ekus = [ID_KP_EMAIL_PROTECTION, ANY_EXTENDED_KEY_USAGE];
                usages(cert, depth, &ekus, |k| k.key_encipherment())
            }
            Purpose::CrlSign => key_usage(cert, depth, |k| k.crl_sign()),
            Purpose::OcspHelper => Ok(()),
            Purpose::TimestampSign => timestamp_sign(cert, depth),
        }
    }
}

/// The purposes `openssl x509 -purpose` lists, in OpenSSL 3.0's order, by the names it
/// prints.
const LISTED: [(Purpose, &str); 9] = [
    (Purpose::SslClient, "SSL client"),
    (Purpose::SslServer, "SSL server"),
    (Purpose::NsSslServer, "Netscape SSL server"),
    (Purpose::SmimeSign, "S/MIME signing"),
    (Purpose::SmimeEncrypt, "S/MIME encryption"),
    (Purpose::CrlSign, "CRL signing"),
    (Purpose::Any, "Any Purpose"),
    (Purpose::OcspHelper, "OCSP helper"),
    (Purpose::TimestampSign, "Time Stamp signing"),
];

/// `x509 -purpose`: for each purpose, whether the certificate may serve it as an end
/// entity and as a CA, as OpenSSL's `purpose_print` says (`Yes (WARNING code=3)` for a CA
/// only by being a version 1 root, `=4` only by its keyUsage, where OpenSSL's check
/// returns `check_ca`'s answer: S/MIME, CRL signing, OCSP helper, time stamping).
pub fn purposes_text(cert: &Certificate) -> String {
    let mut out = String::from("Certificate purposes:\n");
    for (purpose, name) in LISTED {
        let leaf = if purpose.allows(cert) { "Yes" } else { "No" };
        out.push_str(&format!("{name} : {leaf}\n"));
        let ca = match purpose.check(cert, 1) {
            Err(_) => "No".to_string(),
            Ok(()) => {
                let code = match ca_kind(cert) {
                    CaKind::V1Root => 3,
                    CaKind::ByKeyUsage => 4,
                    _ => 1,
                };
                let plain = matches!(
                    purpose,
                    Purpose::Any | Purpose::SslClient | Purpose::SslServer | Purpose::NsSslServer
                );
                if plain || code == 1 {
                    "Yes".to_string()
                } else {
                    format!("Yes (WARNING code={code})")
                }
            }
        };
        out.push_str(&format!("{name} CA : {ca}\n"));
    }
    out
}

/// RFC 3161 section 2.3 as OpenSSL's `check_purpose_timestamp_sign` reads it, for the end
/// entity (a CA need only be one): a keyUsage, if any, of digitalSignature and
/// nonRepudiation alone, and a critical extendedKeyUsage whose only purpose OpenSSL knows
/// is id-kp-timeStamping (others it does not know may stand beside it).
fn timestamp_sign(cert: &Certificate, depth: usize) -> Result<(), PathFailure> {
    if depth > 0 {
        return Ok(());
    }
    let tbs = cert.tbs_certificate();
    if let Ok(Some((_, k))) = tbs.get_extension::<KeyUsage>() {
        let signing = k.digital_signature() || k.non_repudiation();
        let others = !(k.0 - (KeyUsages::DigitalSignature | KeyUsages::NonRepudiation)).is_empty();
        if !signing || others {
            return Err(PathFailure::Purpose);
        }
    }
    let Ok(Some((critical, eku))) = tbs.get_extension::<ExtendedKeyUsage>() else {
        return Err(PathFailure::Purpose);
    };
    let known: Vec<&ObjectIdentifier> =
        eku.0.iter().filter(|oid| OPENSSL_KNOWN_EKUS.contains(oid)).collect();
    if !critical || known.is_empty() || known.iter().any(|oid| **oid != ID_KP_TIME_STAMPING) {
        return Err(PathFailure::Purpose);
    }
    Ok(())
}

/// The extended key usages OpenSSL's extension cache turns into its `XKU_*` flags.
const OPENSSL_KNOWN_EKUS: [ObjectIdentifier; 10] = [
    ID_KP_SERVER_AUTH,
    ID_KP_CLIENT_AUTH,
    ID_KP_EMAIL_PROTECTION,
    ID_KP_CODE_SIGNING,
    MS_SGC,
    NS_SGC,
    ID_KP_OCSP_SIGNING,
    ID_KP_TIME_STAMPING,
    ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.10"), // id-kp-dvcs
    ANY_EXTENDED_KEY_USAGE,
];

fn smime_sign(cert: &Certificate, depth: usize) -> Result<(), PathFailure> {
    let ku = |k: &KeyUsage| k.digital_signature() || k.non_repudiation();
    usages(cert, depth, &[ID_KP_EMAIL_PROTECTION, ANY_EXTENDED_KEY_USAGE], ku)
}

/// Microsoft's and Netscape's "server gated crypto" purposes, which OpenSSL's `XKU_SGC`
/// still counts for a TLS server.
const MS_SGC: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.311.10.3.3");
const NS_SGC: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.113730.4.1");

/// What every purpose checks: an extendedKeyUsage, if present, with one of `ekus`; an
/// end entity's keyUsage, if present, as `ku` wants.
fn usages(
    cert: &Certificate,
    depth: usize,
    ekus: &[ObjectIdentifier],
    ku: impl Fn(&KeyUsage) -> bool,
) -> Result<(), PathFailure> {
    let tbs = cert.tbs_certificate();
    match tbs.get_extension::<ExtendedKeyUsage>() {
        Ok(None) => {}
        Ok(Some((_, eku))) if eku.0.iter().any(|oid| ekus.contains(oid)) => {}
        _ => return Err(PathFailure::Purpose),
    }
    key_usage(cert, depth, ku)
}

/// An end entity's keyUsage, if present, as `ku` wants (a CA's is checked for
/// keyCertSign by path validation).
fn key_usage(
    cert: &Certificate,
    depth: usize,
    ku: impl Fn(&KeyUsage) -> bool,
) -> Result<(), PathFailure> {
    if depth > 0 {
        return Ok(());
    }
    match cert.tbs_certificate().get_extension::<KeyUsage>() {
        Ok(None) => Ok(()),
        Ok(Some((_, k))) if ku(&k) => Ok(()),
        _ => Err(PathFailure::Purpose),
    }
}
