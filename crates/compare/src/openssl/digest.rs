//! Message digests by name through `EVP_Digest*` (md2, md4, md5, sha1, sha224, sha256,
//! sha384, sha512, ... whatever the loaded providers offer).

use super::fns::{EVP_MD, EVP_MD_CTX};
use super::{Openssl, c_name};
use crate::{PeerError, Result};
use std::ffi::c_uint;
use std::ptr;

/// A fetched digest algorithm with its own context, reused across messages.
#[derive(Debug)]
pub struct Digest {
    lib: &'static Openssl,
    md: *mut EVP_MD,
    ctx: *mut EVP_MD_CTX,
    size: usize,
}

// SAFETY: the EVP_MD is immutable and reference-counted, and the EVP_MD_CTX belongs to this
// value alone; OpenSSL contexts may be used from any thread, one thread at a time, which
// `&mut self` on every operation enforces.
unsafe impl Send for Digest {}

impl Openssl {
    /// Fetches the digest `name` (OpenSSL's names: "SHA256", "sha-256", "MD5", "MD2"...).
    pub fn digest(&'static self, name: &str) -> Result<Digest> {
        let cname = c_name(name)?;
        let mut d = Digest { lib: self, md: ptr::null_mut(), ctx: ptr::null_mut(), size: 0 };
        // SAFETY: NULL library context and properties mean the defaults; `cname` is a valid
        // C string for the duration of the call.
        d.md = self.fetched(
            unsafe { (self.fns.EVP_MD_fetch)(ptr::null_mut(), cname.as_ptr(), ptr::null()) },
            "digest",
            name,
        )?;
        // SAFETY: allocates a fresh context.
        d.ctx = self.non_null(unsafe { (self.fns.EVP_MD_CTX_new)() }, "EVP_MD_CTX_new")?;
        // SAFETY: `d.md` is a valid fetched EVP_MD.
        let size = unsafe { (self.fns.EVP_MD_get_size)(d.md) };
        d.size = usize::try_from(size)
            .map_err(|_| PeerError::Unavailable(format!("digest {name} has no fixed size")))?;
        Ok(d)
    }
}

impl Digest {
    /// Output length in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Hashes `data` in one update; writes the digest to the front of `out` and returns its
    /// length. `out` must hold at least [`size`](Self::size) bytes.
    pub fn digest_into(&mut self, data: &[u8], out: &mut [u8]) -> Result<usize> {
        self.digest_chunks_into(data, data.len().max(1), out)
    }

    /// Hashes `data` fed as a stream of `chunk`-byte updates (the last one shorter).
    pub fn digest_chunks_into(
        &mut self,
        data: &[u8],
        chunk: usize,
        out: &mut [u8],
    ) -> Result<usize> {
        if out.len() < self.size {
            return Err(PeerError::InvalidInput("digest output buffer too small"));
        }
        if chunk == 0 {
            return Err(PeerError::InvalidInput("chunk size must be positive"));
        }
        let f = &self.lib.fns;
        // SAFETY: `ctx` and `md` are valid; the engine argument may be NULL.
        let rc = unsafe { (f.EVP_DigestInit_ex)(self.ctx, self.md, ptr::null_mut()) };
        self.lib.check(rc, "EVP_DigestInit_ex")?;
        for piece in data.chunks(chunk) {
            // SAFETY: `piece` is readable for its length.
            let rc = unsafe { (f.EVP_DigestUpdate)(self.ctx, piece.as_ptr().cast(), piece.len()) };
            self.lib.check(rc, "EVP_DigestUpdate")?;
        }
        let mut len: c_uint = 0;
        // SAFETY: `out` holds at least `size` bytes, the most EVP_DigestFinal_ex writes.
        let rc = unsafe { (f.EVP_DigestFinal_ex)(self.ctx, out.as_mut_ptr(), &mut len) };
        self.lib.check(rc, "EVP_DigestFinal_ex")?;
        Ok(len as usize)
    }

    /// The digest of `data`.
    pub fn digest(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0; self.size];
        let n = self.digest_into(data, &mut out)?;
        out.truncate(n);
        Ok(out)
    }
}

impl Drop for Digest {
    fn drop(&mut self) {
        // SAFETY: both pointers are owned by this value (or NULL, which the free functions
        // accept) and are not used again.
        unsafe {
            (self.lib.fns.EVP_MD_CTX_free)(self.ctx);
            (self.lib.fns.EVP_MD_free)(self.md);
        }
    }
}
