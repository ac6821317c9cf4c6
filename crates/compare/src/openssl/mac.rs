//! HMAC (RFC 2104) and CMAC (NIST SP 800-38B) through `EVP_MAC`: keyed once, then each
//! message re-initialises the context from the saved keyed state (`EVP_MAC_init` with a
//! NULL key), as a server that MACs many messages under one key does.

use super::fns::{EVP_MAC, EVP_MAC_CTX, OSSL_PARAM};
use super::{Openssl, c_name};
use crate::{PeerError, Result};
use std::ptr;

/// A MAC context keyed for one digest (HMAC) or cipher (CMAC) and key.
#[derive(Debug)]
pub struct Mac {
    lib: &'static Openssl,
    mac: *mut EVP_MAC,
    ctx: *mut EVP_MAC_CTX,
    size: usize,
}

// SAFETY: the EVP_MAC is immutable and reference-counted and the context belongs to this
// value alone; `&mut self` on every operation keeps it to one thread at a time.
unsafe impl Send for Mac {}

impl Openssl {
    /// HMAC with digest `digest` ("SHA256", "SHA1", "MD5"...) under `key`.
    pub fn hmac(&'static self, digest: &str, key: &[u8]) -> Result<Mac> {
        // The size is that of the digest; fetching it also rejects unknown names early.
        let size = self.digest(digest)?.size();
        self.mac(c"HMAC", c"digest", digest, key, size)
    }

    /// CMAC with the CBC cipher `cipher` ("AES-128-CBC", "DES-EDE3-CBC"...) under `key`;
    /// `size` is the cipher's block, the tag's length.
    pub fn cmac(&'static self, cipher: &str, key: &[u8], size: usize) -> Result<Mac> {
        self.mac(c"CMAC", c"cipher", cipher, key, size)
    }

    /// The MAC `name` with its one string parameter `param` set to `value`, keyed.
    fn mac(
        &'static self,
        name: &std::ffi::CStr,
        param: &std::ffi::CStr,
        value: &str,
        key: &[u8],
        size: usize,
    ) -> Result<Mac> {
        let f = &self.fns;
        let mut h = Mac { lib: self, mac: ptr::null_mut(), ctx: ptr::null_mut(), size };
        // SAFETY: NULL library context and properties mean the defaults.
        h.mac = self.fetched(
            unsafe { (f.EVP_MAC_fetch)(ptr::null_mut(), name.as_ptr(), ptr::null()) },
            "MAC",
            name.to_str().unwrap_or("MAC"),
        )?;
        // SAFETY: `h.mac` is a valid fetched MAC.
        h.ctx = self.non_null(unsafe { (f.EVP_MAC_CTX_new)(h.mac) }, "EVP_MAC_CTX_new")?;
        let value = c_name(value)?;
        let params = [
            OSSL_PARAM::utf8(
                param.as_ptr(),
                value.as_ptr().cast_mut().cast(),
                value.as_bytes().len(),
            ),
            OSSL_PARAM::end(),
        ];
        // SAFETY: `params` is a terminated OSSL_PARAM array whose string outlives the call;
        // the key is read for `key.len()` bytes (OpenSSL copies it).
        let rc = unsafe { (f.EVP_MAC_init)(h.ctx, key.as_ptr(), key.len(), params.as_ptr()) };
        self.check(rc, "EVP_MAC_init")?;
        Ok(h)
    }
}

impl Mac {
    /// Tag length in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The tag of `data` into the front of `out` (at least [`size`](Self::size) bytes);
    /// returns its length.
    pub fn mac_into(&mut self, data: &[u8], out: &mut [u8]) -> Result<usize> {
        if out.len() < self.size {
            return Err(PeerError::InvalidInput("MAC output buffer too small"));
        }
        let f = &self.lib.fns;
        // SAFETY: a NULL key re-initialises from the key given at creation.
        let rc = unsafe { (f.EVP_MAC_init)(self.ctx, ptr::null(), 0, ptr::null()) };
        self.lib.check(rc, "EVP_MAC_init")?;
        // SAFETY: `data` is readable for its length.
        let rc = unsafe { (f.EVP_MAC_update)(self.ctx, data.as_ptr(), data.len()) };
        self.lib.check(rc, "EVP_MAC_update")?;
        let mut len = 0usize;
        // SAFETY: `out` is writable for `out.len()` bytes, which is passed as its size.
        let rc = unsafe { (f.EVP_MAC_final)(self.ctx, out.as_mut_ptr(), &mut len, out.len()) };
        self.lib.check(rc, "EVP_MAC_final")?;
        Ok(len)
    }

    /// The tag of `data`.
    pub fn mac(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0; self.size];
        let n = self.mac_into(data, &mut out)?;
        out.truncate(n);
        Ok(out)
    }
}

impl Drop for Mac {
    fn drop(&mut self) {
        // SAFETY: both pointers are owned by this value (or NULL, which the free functions
        // accept) and are not used again.
        unsafe {
            (self.lib.fns.EVP_MAC_CTX_free)(self.ctx);
            (self.lib.fns.EVP_MAC_free)(self.mac);
        }
    }
}
