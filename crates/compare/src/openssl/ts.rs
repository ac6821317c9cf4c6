//! A time-stamping authority through libcrypto's `TS_RESP_create_response` (the API
//! behind `openssl ts -reply`): a response context with the signer's certificate and key,
//! SHA-256 for requests, signatures and the ESS signing-certificate attribute, and one
//! policy, prepared once; then one response and `i2d` per request, as a TSA built on
//! OpenSSL runs.

use super::Openssl;
use super::fns::{EVP_MD, EVP_PKEY, TS_RESP_CTX};
use crate::{PeerError, Result};
use std::ffi::{CString, c_int, c_long};
use std::ptr;

/// A TSA: the response context and the digest it holds.
#[derive(Debug)]
pub struct Tsa {
    lib: &'static Openssl,
    ctx: *mut TS_RESP_CTX,
    md: *mut EVP_MD,
}

// SAFETY: the context is used by one thread at a time (`respond` takes `&mut self`);
// nothing in it is tied to the thread that made it.
unsafe impl Send for Tsa {}

impl Openssl {
    /// A TSA from its DER certificate (for time stamping: a critical extendedKeyUsage of
    /// timeStamping) and DER (PKCS#8 or PKCS#1) private key, answering under `policy`
    /// (dotted decimal).
    pub fn tsa(&'static self, cert_der: &[u8], key_der: &[u8], policy: &str) -> Result<Tsa> {
        let f = &self.fns;
        let len =
            |d: &[u8]| c_long::try_from(d.len()).map_err(|_| PeerError::InvalidInput("too long"));
        let (cert_len, key_len) = (len(cert_der)?, len(key_der)?);
        let policy = CString::new(policy).map_err(|_| PeerError::InvalidInput("policy"))?;
        // SAFETY: no arguments; a new context is allocated.
        let ctx = self.non_null(unsafe { (f.TS_RESP_CTX_new)() }, "TS_RESP_CTX_new")?;
        // Owned from here: a failure below frees the context (and the digest once set).
        let mut tsa = Tsa { lib: self, ctx, md: ptr::null_mut() };
        // SAFETY: a NUL-terminated name; the digest is fetched from the default context.
        let md = unsafe { (f.EVP_MD_fetch)(ptr::null_mut(), c"SHA256".as_ptr(), ptr::null()) };
        tsa.md = self.non_null(md, "EVP_MD_fetch")?;
        let mut p = cert_der.as_ptr();
        // SAFETY: `p` points at `cert_len` readable bytes; a new X509 is allocated.
        let cert =
            self.non_null(unsafe { (f.d2i_X509)(ptr::null_mut(), &mut p, cert_len) }, "d2i_X509")?;
        // SAFETY: the context takes its own reference to the certificate, so ours is
        // freed whatever the outcome.
        let set = unsafe { (f.TS_RESP_CTX_set_signer_cert)(ctx, cert) };
        // SAFETY: ours, not used again.
        unsafe { (f.X509_free)(cert) };
        self.check(set, "TS_RESP_CTX_set_signer_cert")?;
        let mut p = key_der.as_ptr();
        // SAFETY: as above, for the key.
        let key: *mut EVP_PKEY = self.non_null(
            unsafe { (f.d2i_AutoPrivateKey)(ptr::null_mut(), &mut p, key_len) },
            "d2i_AutoPrivateKey",
        )?;
        // SAFETY: the context takes its own reference to the key.
        let set = unsafe { (f.TS_RESP_CTX_set_signer_key)(ctx, key) };
        // SAFETY: ours, not used again.
        unsafe { (f.EVP_PKEY_free)(key) };
        self.check(set, "TS_RESP_CTX_set_signer_key")?;
        // SAFETY: the digest outlives the context (freed after it in Drop).
        self.check(unsafe { (f.TS_RESP_CTX_set_signer_digest)(ctx, tsa.md) }, "set_signer_digest")?;
        // SAFETY: as above, for the signing-certificate attribute's hash.
        let set = unsafe { (f.TS_RESP_CTX_set_ess_cert_id_digest)(ctx, tsa.md) };
        self.check(set, "set_ess_digest")?;
        // SAFETY: as above; the context keeps the digest in its list.
        self.check(unsafe { (f.TS_RESP_CTX_add_md)(ctx, tsa.md) }, "TS_RESP_CTX_add_md")?;
        // SAFETY: a NUL-terminated dotted OID, read only as dotted (no_name 1).
        let obj = self.non_null(unsafe { (f.OBJ_txt2obj)(policy.as_ptr(), 1) }, "OBJ_txt2obj")?;
        // SAFETY: the context duplicates the object; ours is freed after.
        let set = unsafe { (f.TS_RESP_CTX_set_def_policy)(ctx, obj) };
        // SAFETY: ours, not used again.
        unsafe { (f.ASN1_OBJECT_free)(obj) };
        self.check(set, "TS_RESP_CTX_set_def_policy")?;
        Ok(tsa)
    }
}

impl Tsa {
    /// The DER TimeStampResp to the DER request `request` (a rejection is an answer too).
    pub fn respond(&mut self, request: &[u8]) -> Result<Vec<u8>> {
        let f = &self.lib.fns;
        let len =
            c_int::try_from(request.len()).map_err(|_| PeerError::InvalidInput("too long"))?;
        // SAFETY: a read-only memory BIO over `request`, which outlives it (freed below).
        let bio = self.lib.non_null(
            unsafe { (f.BIO_new_mem_buf)(request.as_ptr().cast(), len) },
            "BIO_new_mem_buf",
        )?;
        // SAFETY: the context is valid and owned by self; the BIO is read to its end.
        let resp = unsafe { (f.TS_RESP_create_response)(self.ctx, bio) };
        // SAFETY: ours, no longer used.
        unsafe { (f.BIO_free)(bio) };
        let resp = self.lib.non_null(resp, "TS_RESP_create_response")?;
        // SAFETY: `resp` is valid; a NULL output pointer asks for the length only.
        let n = unsafe { (f.i2d_TS_RESP)(resp, ptr::null_mut()) };
        let mut out = vec![0u8; usize::try_from(n).unwrap_or(0)];
        let mut p = out.as_mut_ptr();
        // SAFETY: `out` has room for the `n` bytes the first call measured.
        let written = unsafe { (f.i2d_TS_RESP)(resp, &mut p) };
        // SAFETY: owned here, not used again.
        unsafe { (f.TS_RESP_free)(resp) };
        if n <= 0 || written != n {
            return Err(self.lib.error("i2d_TS_RESP"));
        }
        Ok(out)
    }
}

impl Drop for Tsa {
    fn drop(&mut self) {
        // SAFETY: owned by this value, not used again; the context first, as it refers to
        // the digest (EVP_MD_free accepts NULL).
        unsafe {
            (self.lib.fns.TS_RESP_CTX_free)(self.ctx);
            (self.lib.fns.EVP_MD_free)(self.md);
        }
    }
}
