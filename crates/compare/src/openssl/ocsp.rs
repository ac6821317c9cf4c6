//! An OCSP responder through libcrypto, as `openssl ocsp -index` makes its answers
//! (`make_ocsp_response` in apps/ocsp.c, less the database): the request read
//! (`d2i_OCSP_REQUEST`), each certificate it asks about answered `good` as of now, its
//! nonce copied, the basic response signed by the responder with SHA-256
//! (`OCSP_basic_sign`, the responder named by subject and its certificate carried), and
//! the `OCSPResponse` out as DER. The certificate, key and digest are prepared once.

use super::Openssl;
use super::fns::{EVP_MD, EVP_PKEY, X509};
use crate::{PeerError, Result};
use std::ffi::{c_int, c_long};
use std::ptr;

/// `V_OCSP_CERTSTATUS_GOOD`.
const STATUS_GOOD: c_int = 0;
/// `OCSP_RESPONSE_STATUS_SUCCESSFUL`.
const RESPONSE_SUCCESSFUL: c_int = 0;

/// A responder: its certificate, key and signature digest.
#[derive(Debug)]
pub struct OcspResponder {
    lib: &'static Openssl,
    cert: *mut X509,
    key: *mut EVP_PKEY,
    md: *mut EVP_MD,
}

// SAFETY: the objects are used by one thread at a time (`respond` takes `&mut self`);
// nothing in them is tied to the thread that made them.
unsafe impl Send for OcspResponder {}

impl Openssl {
    /// A responder from its DER certificate and DER (PKCS#8 or PKCS#1) private key.
    pub fn ocsp_responder(&'static self, cert_der: &[u8], key_der: &[u8]) -> Result<OcspResponder> {
        let f = &self.fns;
        let len =
            |d: &[u8]| c_long::try_from(d.len()).map_err(|_| PeerError::InvalidInput("too long"));
        let (cert_len, key_len) = (len(cert_der)?, len(key_der)?);
        // Owned from here: a failure below frees what was made (the free functions take
        // NULL).
        let mut r = OcspResponder {
            lib: self,
            cert: ptr::null_mut(),
            key: ptr::null_mut(),
            md: ptr::null_mut(),
        };
        // SAFETY: a NUL-terminated name; the digest is fetched from the default context.
        let md = unsafe { (f.EVP_MD_fetch)(ptr::null_mut(), c"SHA256".as_ptr(), ptr::null()) };
        r.md = self.non_null(md, "EVP_MD_fetch")?;
        let mut p = cert_der.as_ptr();
        // SAFETY: `p` points at `cert_len` readable bytes; a new X509 is allocated.
        let cert = unsafe { (f.d2i_X509)(ptr::null_mut(), &mut p, cert_len) };
        r.cert = self.non_null(cert, "d2i_X509")?;
        let mut p = key_der.as_ptr();
        // SAFETY: as above, for the key.
        let key = unsafe { (f.d2i_AutoPrivateKey)(ptr::null_mut(), &mut p, key_len) };
        r.key = self.non_null(key, "d2i_AutoPrivateKey")?;
        Ok(r)
    }
}

impl OcspResponder {
    /// The DER `OCSPResponse` to the DER request `request`: every certificate `good`.
    pub fn respond(&mut self, request: &[u8]) -> Result<Vec<u8>> {
        let (lib, f) = (self.lib, &self.lib.fns);
        let len =
            c_long::try_from(request.len()).map_err(|_| PeerError::InvalidInput("too long"))?;
        let mut p = request.as_ptr();
        // SAFETY: `p` points at `len` readable bytes; a new request is allocated.
        let req = unsafe { (f.d2i_OCSP_REQUEST)(ptr::null_mut(), &mut p, len) };
        let req = Owned(lib.non_null(req, "d2i_OCSP_REQUEST")?, f.OCSP_REQUEST_free);
        // SAFETY: no arguments; a new basic response is allocated.
        let bs = unsafe { (f.OCSP_BASICRESP_new)() };
        let bs = Owned(lib.non_null(bs, "OCSP_BASICRESP_new")?, f.OCSP_BASICRESP_free);
        // SAFETY: a NULL time asks for a new one, now.
        let now = unsafe { (f.X509_gmtime_adj)(ptr::null_mut(), 0) };
        let now = Owned(lib.non_null(now, "X509_gmtime_adj")?, f.ASN1_TIME_free);
        // SAFETY: the request is valid; the count and the entries are read only.
        let count = unsafe { (f.OCSP_request_onereq_count)(req.0) };
        for i in 0..count {
            // SAFETY: `i` is below the count; the ID belongs to the request, and the
            // basic response copies it (add1).
            let added = unsafe {
                let id = (f.OCSP_onereq_get0_id)((f.OCSP_request_onereq_get0)(req.0, i));
                (f.OCSP_basic_add1_status)(
                    bs.0,
                    id,
                    STATUS_GOOD,
                    0,
                    ptr::null_mut(),
                    now.0,
                    ptr::null_mut(),
                )
            };
            lib.non_null(added, "OCSP_basic_add1_status")?;
        }
        // SAFETY: both valid; the nonce, if any, is copied into the response.
        lib.check(unsafe { (f.OCSP_copy_nonce)(bs.0, req.0) }, "OCSP_copy_nonce")?;
        // SAFETY: the certificate, key and digest are owned by self and outlive the call;
        // no extra certificates, no flags.
        let signed =
            unsafe { (f.OCSP_basic_sign)(bs.0, self.cert, self.key, self.md, ptr::null_mut(), 0) };
        lib.check(signed, "OCSP_basic_sign")?;
        // SAFETY: the response takes a copy of the basic response (ours is freed after).
        let resp = unsafe { (f.OCSP_response_create)(RESPONSE_SUCCESSFUL, bs.0) };
        let resp = Owned(lib.non_null(resp, "OCSP_response_create")?, f.OCSP_RESPONSE_free);
        // SAFETY: `resp` is valid; a NULL output pointer asks for the length only.
        let n = unsafe { (f.i2d_OCSP_RESPONSE)(resp.0, ptr::null_mut()) };
        let mut out = vec![0u8; usize::try_from(n).unwrap_or(0)];
        let mut p = out.as_mut_ptr();
        // SAFETY: `out` has room for the `n` bytes the first call measured.
        let written = unsafe { (f.i2d_OCSP_RESPONSE)(resp.0, &mut p) };
        if n <= 0 || written != n {
            return Err(lib.error("i2d_OCSP_RESPONSE"));
        }
        Ok(out)
    }
}

/// A libcrypto object freed by its function when dropped.
struct Owned<T>(*mut T, unsafe extern "C" fn(*mut T));

impl<T> Drop for Owned<T> {
    fn drop(&mut self) {
        // SAFETY: the object was made by libcrypto, is owned here and not used again.
        unsafe { (self.1)(self.0) }
    }
}

impl Drop for OcspResponder {
    fn drop(&mut self) {
        // SAFETY: owned by this value, not used again; each free function accepts NULL.
        unsafe {
            (self.lib.fns.X509_free)(self.cert);
            (self.lib.fns.EVP_PKEY_free)(self.key);
            (self.lib.fns.EVP_MD_free)(self.md);
        }
    }
}
