//! CMS SignedData through libcrypto's `CMS_sign` (the API behind `openssl cms -sign`):
//! one signer certificate and key, prepared once, then one `CMS_sign` and `i2d` per
//! document, as a document-signing service built on OpenSSL runs.

use super::Openssl;
use super::fns::{EVP_PKEY, X509};
use crate::{PeerError, Result};
use std::ffi::{c_int, c_long, c_uint};
use std::ptr;

/// `CMS_DETACHED` (openssl/cms.h): leave the content out.
const CMS_DETACHED: c_uint = 0x40;
/// `CMS_BINARY` (openssl/cms.h): no canonical text conversion.
const CMS_BINARY: c_uint = 0x80;

/// A signer: certificate and private key.
#[derive(Debug)]
pub struct CmsSigner {
    lib: &'static Openssl,
    cert: *mut X509,
    key: *mut EVP_PKEY,
}

// SAFETY: the certificate and key are only read by CMS_sign (it takes its own references),
// so the signer may move to another thread; it is used by one thread at a time.
unsafe impl Send for CmsSigner {}

impl Openssl {
    /// A CMS signer from a DER certificate and a DER (PKCS#8 or PKCS#1) private key.
    pub fn cms_signer(&'static self, cert_der: &[u8], key_der: &[u8]) -> Result<CmsSigner> {
        let len =
            |d: &[u8]| c_long::try_from(d.len()).map_err(|_| PeerError::InvalidInput("too long"));
        let (cert_len, key_len) = (len(cert_der)?, len(key_der)?);
        let mut p = cert_der.as_ptr();
        // SAFETY: `p` points at `cert_len` readable bytes; a new X509 is allocated.
        let cert = unsafe { (self.fns.d2i_X509)(ptr::null_mut(), &mut p, cert_len) };
        let cert = self.non_null(cert, "d2i_X509")?;
        let mut p = key_der.as_ptr();
        // SAFETY: as above, for the key.
        let key = unsafe { (self.fns.d2i_AutoPrivateKey)(ptr::null_mut(), &mut p, key_len) };
        // Owned from here: a failure below frees the certificate.
        let signer = CmsSigner { lib: self, cert, key };
        if signer.key.is_null() {
            return Err(self.error("d2i_AutoPrivateKey"));
        }
        Ok(signer)
    }
}

impl CmsSigner {
    /// The DER SignedData of `data` (SHA-256, PKCS#1 v1.5, OpenSSL's default signed
    /// attributes, the certificate included; detached or not), binary content.
    pub fn sign(&mut self, data: &[u8], detached: bool) -> Result<Vec<u8>> {
        let f = &self.lib.fns;
        let len = c_int::try_from(data.len()).map_err(|_| PeerError::InvalidInput("too long"))?;
        // SAFETY: a read-only memory BIO over `data`, which outlives it (freed below).
        let bio = self.lib.non_null(
            unsafe { (f.BIO_new_mem_buf)(data.as_ptr().cast(), len) },
            "BIO_new_mem_buf",
        )?;
        let flags = CMS_BINARY | if detached { CMS_DETACHED } else { 0 };
        // SAFETY: cert and key are valid objects owned by self; no extra certificates.
        let cms = unsafe { (f.CMS_sign)(self.cert, self.key, ptr::null_mut(), bio, flags) };
        // SAFETY: the BIO is ours and no longer used (CMS_sign has read it to the end).
        unsafe { (f.BIO_free)(bio) };
        let cms = self.lib.non_null(cms, "CMS_sign")?;
        // SAFETY: `cms` is valid; a NULL output pointer asks for the length only.
        let n = unsafe { (f.i2d_CMS_ContentInfo)(cms, ptr::null_mut()) };
        let mut out = vec![0u8; usize::try_from(n).unwrap_or(0)];
        let mut p = out.as_mut_ptr();
        // SAFETY: `out` has room for the `n` bytes the first call measured.
        let written = unsafe { (f.i2d_CMS_ContentInfo)(cms, &mut p) };
        // SAFETY: owned here, not used again.
        unsafe { (f.CMS_ContentInfo_free)(cms) };
        if n <= 0 || written != n {
            return Err(self.lib.error("i2d_CMS_ContentInfo"));
        }
        Ok(out)
    }
}

impl Drop for CmsSigner {
    fn drop(&mut self) {
        // SAFETY: owned by this value, not used again (the key may be NULL only while
        // construction failed, and EVP_PKEY_free accepts NULL).
        unsafe {
            (self.lib.fns.X509_free)(self.cert);
            (self.lib.fns.EVP_PKEY_free)(self.key);
        }
    }
}
