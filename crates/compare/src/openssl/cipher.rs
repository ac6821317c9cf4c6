//! Symmetric ciphers by OpenSSL name through `EVP_Cipher*`: "DES-ECB", "DES-CBC",
//! "DES-CFB", "DES-OFB", "DES-EDE3", "DES-EDE3-CBC", ... (single DES needs the legacy
//! provider). Padding is off: the caller feeds whole blocks, as a benchmark does.

use super::fns::{EVP_CIPHER, EVP_CIPHER_CTX};
use super::{Openssl, c_len, c_name};
use crate::{PeerError, Result};
use std::ffi::c_int;
use std::ptr;

/// A keyed cipher context in one direction.
#[derive(Debug)]
pub struct Cipher {
    lib: &'static Openssl,
    cipher: *mut EVP_CIPHER,
    ctx: *mut EVP_CIPHER_CTX,
    block: usize,
}

// SAFETY: the EVP_CIPHER is immutable and reference-counted and the context belongs to this
// value alone; `&mut self` on every operation keeps it to one thread at a time.
unsafe impl Send for Cipher {}

impl Openssl {
    /// Fetches cipher `name` and keys it. `iv` must be as long as the mode's IV (empty for
    /// ECB); `key` exactly as long as the cipher's key. Padding is disabled.
    pub fn cipher(
        &'static self,
        name: &str,
        key: &[u8],
        iv: &[u8],
        encrypt: bool,
    ) -> Result<Cipher> {
        let cname = c_name(name)?;
        let f = &self.fns;
        let mut c = Cipher { lib: self, cipher: ptr::null_mut(), ctx: ptr::null_mut(), block: 1 };
        // SAFETY: NULL library context and properties mean the defaults; `cname` is a
        // valid C string.
        c.cipher = self.fetched(
            unsafe { (f.EVP_CIPHER_fetch)(ptr::null_mut(), cname.as_ptr(), ptr::null()) },
            "cipher",
            name,
        )?;
        // SAFETY: `c.cipher` is a valid fetched cipher (three read-only queries).
        let (key_len, iv_len, block) = unsafe {
            (
                (f.EVP_CIPHER_get_key_length)(c.cipher),
                (f.EVP_CIPHER_get_iv_length)(c.cipher),
                (f.EVP_CIPHER_get_block_size)(c.cipher),
            )
        };
        if usize::try_from(key_len) != Ok(key.len()) {
            return Err(PeerError::InvalidInput("key length does not match the cipher"));
        }
        if usize::try_from(iv_len.max(0)) != Ok(iv.len()) {
            return Err(PeerError::InvalidInput("IV length does not match the cipher mode"));
        }
        c.block = usize::try_from(block).unwrap_or(1).max(1);
        // SAFETY: allocates a fresh context.
        c.ctx = self.non_null(unsafe { (f.EVP_CIPHER_CTX_new)() }, "EVP_CIPHER_CTX_new")?;
        let iv_ptr = if iv.is_empty() { ptr::null() } else { iv.as_ptr() };
        // SAFETY: key and IV lengths were checked against the cipher above, so OpenSSL reads
        // within them; NULL params is allowed.
        let rc = unsafe {
            (f.EVP_CipherInit_ex2)(
                c.ctx,
                c.cipher,
                key.as_ptr(),
                iv_ptr,
                c_int::from(encrypt),
                ptr::null(),
            )
        };
        self.check(rc, "EVP_CipherInit_ex2")?;
        // SAFETY: `c.ctx` is initialised.
        let rc = unsafe { (f.EVP_CIPHER_CTX_set_padding)(c.ctx, 0) };
        self.check(rc, "EVP_CIPHER_CTX_set_padding")?;
        Ok(c)
    }
}

impl Cipher {
    /// Block size in bytes (1 for the stream modes CFB and OFB).
    pub fn block_size(&self) -> usize {
        self.block
    }

    /// Continues the stream: transforms `input` (a whole number of blocks) into the front
    /// of `output` (at least as long) and returns the number of bytes written.
    pub fn update(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        if !input.len().is_multiple_of(self.block) {
            return Err(PeerError::InvalidInput("input is not a whole number of blocks"));
        }
        if output.len() < input.len() {
            return Err(PeerError::InvalidInput("output buffer shorter than input"));
        }
        let mut outl: c_int = 0;
        // SAFETY: with padding off and whole blocks in, EVP_CipherUpdate writes exactly
        // `input.len()` bytes, which `output` holds; in-place is not used (distinct slices).
        let rc = unsafe {
            (self.lib.fns.EVP_CipherUpdate)(
                self.ctx,
                output.as_mut_ptr(),
                &mut outl,
                input.as_ptr(),
                c_len(input.len())?,
            )
        };
        self.lib.check(rc, "EVP_CipherUpdate")?;
        Ok(outl as usize)
    }

    /// Ends the stream (with padding off, checks that no partial block is left over).
    pub fn finish(&mut self) -> Result<()> {
        let mut buf = [0u8; 64];
        let mut outl: c_int = 0;
        // SAFETY: with padding off nothing is written; `buf` is larger than any block anyway.
        let rc =
            unsafe { (self.lib.fns.EVP_CipherFinal_ex)(self.ctx, buf.as_mut_ptr(), &mut outl) };
        self.lib.check(rc, "EVP_CipherFinal_ex")
    }

    /// `input` transformed as one message, as a new vector.
    pub fn apply(&mut self, input: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0; input.len()];
        let n = self.update(input, &mut out)?;
        out.truncate(n);
        Ok(out)
    }
}

impl Drop for Cipher {
    fn drop(&mut self) {
        // SAFETY: both pointers are owned by this value (or NULL, which the free functions
        // accept) and are not used again.
        unsafe {
            (self.lib.fns.EVP_CIPHER_CTX_free)(self.ctx);
            (self.lib.fns.EVP_CIPHER_free)(self.cipher);
        }
    }
}
