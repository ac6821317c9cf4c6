//! The subject alternative name extension (RFC 5280 section 4.2.1.6) in OpenSSL's
//! configuration syntax (`DNS:example.com,IP:192.0.2.1,email:a@example.com,URI:...`), and
//! the extensions a request asks for (PKCS#9 `extensionRequest`, RFC 2985 section
//! 5.4.2), which `req -addext` writes and `x509 -req -copy_extensions` copies.
//!
//! TLS clients name servers by these entries, never by the subject's CN (RFC 6125 section
//! 6.4.4; rustls and browsers ignore the CN), so a server certificate needs one.

use crate::{Error, Result};
use const_oid::AssociatedOid;
use der::{Decode, Encode};
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::{AuthorityKeyIdentifier, BasicConstraints, SubjectKeyIdentifier};
use x509_cert::request::{CertReq, ExtensionReq};

/// The subjectAltName extension of `spec`: comma-separated `DNS:`, `IP:`, `email:`,
/// `URI:` and `RID:` entries (the extension language's, `ext_conf`).
pub fn subject_alt_name(spec: &str) -> Result<Extension> {
    super::conf_extension("subjectAltName", spec, &super::ExtContext::NONE, &[])?
        .ok_or_else(|| Error::Malformed("subjectAltName with no entries".into()))
}

/// Which of a request's extensions a certificate issued from it gets (`openssl x509
/// -copy_extensions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyExtensions {
    /// None (OpenSSL's default).
    None,
    /// Those of a type the issuer's profile does not set (basic constraints and the key
    /// identifiers stay the issuer's).
    Copy,
    /// All, replacing the profile's of the same type.
    CopyAll,
}

impl super::CertBuilder {
    /// Adds the extensions `csr` requests, as `mode` says.
    pub fn requested_extensions(mut self, csr: &CertReq, mode: CopyExtensions) -> Result<Self> {
        let kept = [BasicConstraints::OID, SubjectKeyIdentifier::OID, AuthorityKeyIdentifier::OID];
        for ext in requested_extensions(csr)? {
            let copy = match mode {
                CopyExtensions::None => false,
                CopyExtensions::Copy => !kept.contains(&ext.extn_id),
                CopyExtensions::CopyAll => true,
            };
            if copy {
                self = self.extension(ext);
            }
        }
        Ok(self)
    }
}

/// Adds the extensions `csr` requests to `exts` as OpenSSL's `copy_extensions` does for
/// `ca` and `x509 -extfile`: `Copy` those of a type not yet present, `CopyAll` all, each
/// replacing any of its type, at the end.
pub fn copy_requested(
    exts: &mut Vec<Extension>,
    csr: &CertReq,
    mode: CopyExtensions,
) -> Result<()> {
    if mode == CopyExtensions::None {
        return Ok(());
    }
    for ext in requested_extensions(csr)? {
        if mode == CopyExtensions::Copy && exts.iter().any(|e| e.extn_id == ext.extn_id) {
            continue;
        }
        super::add_replacing(exts, ext);
    }
    Ok(())
}

/// The extensions `csr` requests (its `extensionRequest` attribute), or none.
pub fn requested_extensions(csr: &CertReq) -> Result<Vec<Extension>> {
    let mut out = Vec::new();
    for attr in csr.info.attributes.iter() {
        if attr.oid != ExtensionReq::OID {
            continue;
        }
        for value in attr.values.iter() {
            out.extend(ExtensionReq::from_der(&value.to_der()?)?.0);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use x509_cert::ext::pkix::SubjectAltName;
    use x509_cert::ext::pkix::name::GeneralName;

    #[test]
    fn entries_of_each_kind_and_errors() {
        let ext = subject_alt_name("DNS:localhost, IP:127.0.0.1,IP:::1,email:a@b.example").unwrap();
        let san = SubjectAltName::from_der(ext.extn_value.as_bytes()).unwrap();
        assert_eq!(san.0.len(), 4);
        assert!(matches!(&san.0[1], GeneralName::IpAddress(o) if o.as_bytes() == [127, 0, 0, 1]));
        assert!(subject_alt_name("").is_err());
        assert!(subject_alt_name("DNS").is_err());
        assert!(subject_alt_name("IP:300.1.1.1").is_err());
        assert!(subject_alt_name("otherName:x").is_err());
    }
}
