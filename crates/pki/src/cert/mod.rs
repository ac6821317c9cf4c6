//! X.509 certificates (RFC 5280) and certification requests (PKCS#10, RFC 2986) on
//! cryptocard's RSA.
//!
//! - `parse`: PEM or DER, one certificate or a PEM bundle, told apart by content.
//! - `name`: distinguished names from OpenSSL's `/CN=x/O=y` form, and printed as
//!   OpenSSL 3 prints them (`CN = x, O = y`).
//! - `build`: self-signed and CA-signed certificates ([`CertBuilder`]).
//! - `csr`: requests: make one, check its self-signature.
//! - `verify`: an issuer's signature over a certificate, and a path to a trusted root,
//!   with bounded work; `checks` the checks on each certificate of the path;
//!   `name_check` (with `subtree` and `punycode`) its name constraints; `purpose`
//!   what the path is for (S/MIME signing); `strict` the conformance checks of
//!   `-x509_strict`; `failure` why a path failed, in OpenSSL's
//!   numbers and words; `store` a trust store read as `openssl verify` reads one.
//! - `text`: the `openssl x509 -text` and `openssl req -text` dumps.
//!
//! The structures and their DER are `x509-cert`'s. Its fields are private to it, so a
//! certificate is built by encoding a `Sequence` of the same shape with `der` and reading
//! it back as an `x509_cert::Certificate`: the decoder checks what we wrote.

mod alt_name;
mod build;
mod checks;
mod crl;
mod crl_build;
mod crl_text;
mod csr;
mod encode;
mod ext_conf;
mod failure;
mod host;
mod lookups;
mod name;
mod name_check;
mod name_constraints;
mod name_hash;
mod name_print;
mod parse;
mod peer_id;
mod policy;
mod policy_conf;
mod policy_limits;
mod policy_text;
mod punycode;
mod purpose;
mod security_level;
mod store;
mod strict;
mod subtree;
mod text;
mod verify;

pub use alt_name::{CopyExtensions, copy_requested, requested_extensions, subject_alt_name};
pub use build::{CertBuilder, Profile, new_serial, time as x509_time};
pub use checks::MIN_RSA_BITS;
pub use crl::{Crl, MAX_CRLS, Revocation, crls_beside_certs, crls_from_pem, read_crls};
pub use crl_build::CrlBuilder;
pub(crate) use crl_text::{asn1_string_hex, sign_magnitude};
pub use crl_text::{crl_text, crl_text_with, integer_hex};
pub use csr::{make_csr, make_csr_with, verify_csr};
pub use ext_conf::{
    ExtContext, add_replacing, add_section, conf_extension, drop_disabled, ip_octets,
    key_id_defaults, section_extensions,
};
pub use failure::{PathError, PathFailure};
pub use host::host_matches;
pub use lookups::{emails, next_serial_hex, ocsp_uris, ocspid_text, time_text_iso};
pub use name::{attribute_oid, display_name, name_from_section, name_of, oneline, parse_subject};
pub use name_check::{MAX_NAME_CHECKS, check_name_constraints};
pub(crate) use name_hash::canonical_name;
pub use name_hash::{name_hash, name_hash_old};
pub use name_print::{NameOpt, name_text, print_name, print_titled};
pub use parse::{
    cert_from_der, cert_from_pem, certs_from_pem, csr_from_der, csr_from_pem, csr_to_der,
    csr_to_pem, read_certs, read_csr, to_der, to_pem,
};
pub use peer_id::{email_matches, ip_matches};
pub use policy::{ANY_POLICY, PolicyInputs, policies_valid};
pub use purpose::{Purpose, purposes_text};
pub use store::TrustStore;
pub use text::{
    CertOpt, cert_text, cert_text_compat, cert_text_opts, cert_text_with, csr_text, csr_text_with,
    extensions_text, serial_hex, time_text,
};
pub(crate) use text::{
    MONTHS, extension_lines, extension_value_lines, general_name, general_name_print,
    signature_lines,
};
pub use verify::{
    MAX_DEPTH, MAX_FAILED_SIGNATURES, PathBudget, PathChecks, PathReport, verify_chain,
    verify_chain_for, verify_chain_report, verify_issued_by,
};
pub use x509_cert::Certificate;
pub use x509_cert::attr::AttributeTypeAndValue;
pub use x509_cert::ext::Extension;
pub use x509_cert::ext::pkix::CrlReason;
pub use x509_cert::request::CertReq;

use crate::{Error, Result};
use cryptocard::digest::{HashAlg, Hasher};
use x509_cert::ext::pkix::SubjectKeyIdentifier;
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;

/// The certificate's subjectKeyIdentifier extension (RFC 5280 4.2.1.2), if it has one.
pub fn subject_key_id(cert: &Certificate) -> Result<Option<Vec<u8>>> {
    let ext = cert.tbs_certificate().get_extension::<SubjectKeyIdentifier>()?;
    Ok(ext.map(|(_, ski)| ski.0.as_bytes().to_vec()))
}

/// The certificate's issuer and serial number, as CMS names a signer or recipient
/// (RFC 5652 section 10.2.4, `IssuerAndSerialNumber`).
pub fn issuer_and_serial(cert: &Certificate) -> (Name, SerialNumber) {
    let tbs = cert.tbs_certificate();
    (tbs.issuer().clone(), tbs.serial_number().clone())
}

/// The hash of the certificate's DER, as `openssl x509 -fingerprint` shows it.
pub fn fingerprint(cert: &Certificate, hash: HashAlg) -> Result<Vec<u8>> {
    Ok(Hasher::digest(hash, &encode::cert_der(cert)?).as_bytes().to_vec())
}

/// `LABEL Fingerprint=AB:CD:...` (OpenSSL labels it with the digest name as given,
/// `SHA1` when none was).
pub fn fingerprint_line(cert: &Certificate, hash: HashAlg, label: &str) -> Result<String> {
    Ok(fingerprint_text(label, &fingerprint(cert, hash)?))
}

/// `LABEL Fingerprint=AB:CD:...` of a digest (certificates', CRLs').
fn fingerprint_text(label: &str, digest: &[u8]) -> String {
    let hex: Vec<String> = digest.iter().map(|b| format!("{b:02X}")).collect();
    format!("{label} Fingerprint={}", hex.join(":"))
}

/// The SHA-1 key identifier of RFC 5280 4.2.1.2 method 1: the hash of the
/// subjectPublicKey BIT STRING's bytes, as OpenSSL computes it.
pub fn key_id(spki: &spki::SubjectPublicKeyInfoOwned) -> Result<Vec<u8>> {
    let bits = spki
        .subject_public_key
        .as_bytes()
        .ok_or_else(|| Error::Malformed("public key is not a whole number of bytes".into()))?;
    Ok(Hasher::digest(HashAlg::Sha1, bits).as_bytes().to_vec())
}
