//! What a path is checked for: OpenSSL's certificate "purposes" (crypto/x509/v3_purp.c),
//! of which we have S/MIME signing (`smimesign`, what `openssl cms -verify` checks), TLS
//! servers and clients (`sslserver`, `sslclient`) and none at all.
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
//! Under no purpose, extendedKeyUsage restricts nothing we check, so a critical one is an
//! extension we do not process (RFC 5280 4.2) and fails the path.

use super::failure::PathFailure;
use const_oid::ObjectIdentifier;
use const_oid::db::rfc5280::{
    ANY_EXTENDED_KEY_USAGE, ID_KP_CLIENT_AUTH, ID_KP_EMAIL_PROTECTION, ID_KP_SERVER_AUTH,
};
use x509_cert::Certificate;
use x509_cert::ext::pkix::{ExtendedKeyUsage, KeyUsage};

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
}

impl Purpose {
    /// Whether this purpose processes extendedKeyUsage (so that a critical one does not
    /// fail the path).
    pub(super) fn uses_eku(self) -> bool {
        self != Purpose::Any
    }

    /// The purpose OpenSSL names `name` (`-purpose`), of those we have.
    pub fn from_name(name: &str) -> Option<Purpose> {
        match name {
            "any" => Some(Purpose::Any),
            "smimesign" => Some(Purpose::SmimeSign),
            "sslserver" => Some(Purpose::SslServer),
            "sslclient" => Some(Purpose::SslClient),
            _ => None,
        }
    }

    /// Checks `cert`, at `depth` in its path (0 for the end entity, the CAs above), for
    /// this purpose.
    pub(super) fn check(self, cert: &Certificate, depth: usize) -> Result<(), PathFailure> {
        match self {
            Purpose::Any => Ok(()),
            Purpose::SmimeSign => smime_sign(cert, depth),
            Purpose::SslServer => {
                let ku = |k: &KeyUsage| {
                    k.digital_signature() || k.key_encipherment() || k.key_agreement()
                };
                usages(cert, depth, &[ID_KP_SERVER_AUTH, MS_SGC, NS_SGC], ku)
            }
            Purpose::SslClient => usages(cert, depth, &[ID_KP_CLIENT_AUTH], |k| {
                k.digital_signature() || k.key_agreement()
            }),
        }
    }
}

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
    if depth > 0 {
        return Ok(());
    }
    match tbs.get_extension::<KeyUsage>() {
        Ok(None) => Ok(()),
        Ok(Some((_, k))) if ku(&k) => Ok(()),
        _ => Err(PathFailure::Purpose),
    }
}
