//! RSA through `EVP_PKEY`: keys read from DER (PKCS#8 or PKCS#1 private keys,
//! SubjectPublicKeyInfo public keys) or generated, and prepared operation contexts for
//! sign / verify (PKCS#1 v1.5, PSS) and encrypt / decrypt (PKCS#1 v1.5, OAEP, raw).
//!
//! Signing takes the message *digest* (`EVP_PKEY_sign` with a signature digest set, which
//! adds the DigestInfo for PKCS#1 v1.5), so a benchmark measures the private-key operation
//! and padding, not hashing.

use super::fns::{EVP_MD, EVP_PKEY, EVP_PKEY_CTX};
use super::{Openssl, c_name};
use crate::{PeerError, Result};
use std::ffi::{c_int, c_long};
use std::ptr;

/// An RSA key (private, or public only).
#[derive(Debug)]
pub struct RsaKey {
    lib: &'static Openssl,
    pkey: *mut EVP_PKEY,
}

// SAFETY: an EVP_PKEY is reference-counted and, once built, only read (each operation makes
// its own EVP_PKEY_CTX), so it may be moved to and shared between threads.
unsafe impl Send for RsaKey {}
// SAFETY: as above: operations only read the key.
unsafe impl Sync for RsaKey {}

/// Which RSA operation a context performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RsaOp {
    /// Signature generation over a digest (private key).
    Sign,
    /// Signature verification over a digest (public key).
    Verify,
    /// Encryption (public key).
    Encrypt,
    /// Decryption (private key).
    Decrypt,
    /// Recovery of what a signature signs (public key): the digest, or without one the
    /// data inside the padding.
    VerifyRecover,
}

/// RSA padding and its parameters; digests by OpenSSL name ("SHA256"...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RsaPadding<'a> {
    /// PKCS#1 v1.5 (RFC 8017 §8.2 / §7.2). For signatures, `digest` adds its DigestInfo;
    /// `None` signs the input bytes as they are.
    Pkcs1 {
        /// Digest whose DigestInfo prefixes the signed hash.
        digest: Option<&'a str>,
    },
    /// PSS (RFC 8017 §8.1) with MGF1 over the same digest. `salt_len`: bytes, or OpenSSL's
    /// -1 (digest length), -2 (auto-detect on verify), -3 (maximum).
    Pss {
        /// Hash and MGF1 digest.
        digest: &'a str,
        /// Salt length.
        salt_len: i32,
    },
    /// OAEP (RFC 8017 §7.1) with MGF1 over the same digest and an empty label.
    Oaep {
        /// Hash and MGF1 digest.
        digest: &'a str,
    },
    /// ANSI X9.31 signatures of a `digest` (SHA-1 or SHA-2), whose id byte the padding
    /// carries.
    X931 {
        /// The digest signed.
        digest: &'a str,
    },
    /// Raw RSA: the input is a full-width integer below the modulus.
    None,
}

const RSA_PKCS1_PADDING: c_int = 1;
const RSA_NO_PADDING: c_int = 3;
const RSA_PKCS1_OAEP_PADDING: c_int = 4;
const RSA_X931_PADDING: c_int = 5;
const RSA_PKCS1_PSS_PADDING: c_int = 6;

impl Openssl {
    /// Reads a private key: PKCS#8 PrivateKeyInfo or PKCS#1 RSAPrivateKey, DER.
    pub fn rsa_private_key_der(&'static self, der: &[u8]) -> Result<RsaKey> {
        self.read_key(der, self.fns.d2i_AutoPrivateKey, "d2i_AutoPrivateKey")
    }

    /// Reads a public key: SubjectPublicKeyInfo, DER.
    pub fn rsa_public_key_der(&'static self, der: &[u8]) -> Result<RsaKey> {
        self.read_key(der, self.fns.d2i_PUBKEY, "d2i_PUBKEY")
    }

    fn read_key(
        &'static self,
        der: &[u8],
        d2i: unsafe extern "C" fn(*mut *mut EVP_PKEY, *mut *const u8, c_long) -> *mut EVP_PKEY,
        call: &'static str,
    ) -> Result<RsaKey> {
        let len =
            c_long::try_from(der.len()).map_err(|_| PeerError::InvalidInput("key too long"))?;
        let mut p = der.as_ptr();
        // SAFETY: `p` points at `len` readable bytes; the decoder advances `p` within them
        // and allocates a new key (first argument NULL).
        let pkey = unsafe { d2i(ptr::null_mut(), &mut p, len) };
        Ok(RsaKey { lib: self, pkey: self.non_null(pkey, call)? })
    }

    /// Generates a fresh RSA key of `bits` bits (public exponent 65537).
    pub fn rsa_generate(&'static self, bits: u32) -> Result<RsaKey> {
        let f = &self.fns;
        let bits =
            c_int::try_from(bits).map_err(|_| PeerError::InvalidInput("key size too large"))?;
        // SAFETY: NULL library context and properties mean the defaults.
        let ctx = self.non_null(
            unsafe {
                (f.EVP_PKEY_CTX_new_from_name)(ptr::null_mut(), c"RSA".as_ptr(), ptr::null())
            },
            "EVP_PKEY_CTX_new_from_name",
        )?;
        let ctx = PkeyCtx { lib: self, ctx };
        // SAFETY: `ctx.ctx` is a valid RSA key-generation context for all three calls;
        // `pkey` receives a newly allocated key on success.
        unsafe {
            self.check((f.EVP_PKEY_keygen_init)(ctx.ctx), "EVP_PKEY_keygen_init")?;
            self.check(
                (f.EVP_PKEY_CTX_set_rsa_keygen_bits)(ctx.ctx, bits),
                "EVP_PKEY_CTX_set_rsa_keygen_bits",
            )?;
            let mut pkey = ptr::null_mut();
            self.check((f.EVP_PKEY_generate)(ctx.ctx, &mut pkey), "EVP_PKEY_generate")?;
            Ok(RsaKey { lib: self, pkey: self.non_null(pkey, "EVP_PKEY_generate")? })
        }
    }
}

/// An `EVP_PKEY_CTX` freed on drop, with the digests its parameters refer to.
struct PkeyCtx {
    lib: &'static Openssl,
    ctx: *mut EVP_PKEY_CTX,
}

impl Drop for PkeyCtx {
    fn drop(&mut self) {
        // SAFETY: owned by this value, not used again.
        unsafe { (self.lib.fns.EVP_PKEY_CTX_free)(self.ctx) };
    }
}

impl RsaKey {
    /// Modulus length in bits.
    pub fn bits(&self) -> usize {
        // SAFETY: `pkey` is a valid key.
        unsafe { (self.lib.fns.EVP_PKEY_get_bits)(self.pkey) }.max(0) as usize
    }

    /// Modulus length in bytes (the size of signatures and ciphertexts).
    pub fn size(&self) -> usize {
        // SAFETY: `pkey` is a valid key.
        unsafe { (self.lib.fns.EVP_PKEY_get_size)(self.pkey) }.max(0) as usize
    }

    /// The public key as SubjectPublicKeyInfo DER.
    pub fn to_spki_der(&self) -> Result<Vec<u8>> {
        self.encode(
            |pp| {
                // SAFETY: `pp` is NULL (length query) or points at a pointer to a buffer of the
                // length the query returned, as `encode` guarantees.
                unsafe { (self.lib.fns.i2d_PUBKEY)(self.pkey, pp) }
            },
            "i2d_PUBKEY",
        )
    }

    /// The private key as PKCS#1 RSAPrivateKey DER.
    pub fn to_pkcs1_der(&self) -> Result<Vec<u8>> {
        self.encode(
            |pp| {
                // SAFETY: as in `to_spki_der`.
                unsafe { (self.lib.fns.i2d_PrivateKey)(self.pkey, pp) }
            },
            "i2d_PrivateKey",
        )
    }

    /// The private key as PKCS#8 PrivateKeyInfo DER.
    pub fn to_pkcs8_der(&self) -> Result<Vec<u8>> {
        let f = &self.lib.fns;
        // SAFETY: `pkey` is a valid key; a new PKCS8_PRIV_KEY_INFO is returned or NULL.
        let p8 = self.lib.non_null(unsafe { (f.EVP_PKEY2PKCS8)(self.pkey) }, "EVP_PKEY2PKCS8")?;
        let out = self.encode(
            |pp| {
                // SAFETY: as in `to_spki_der`; `p8` is valid until freed below.
                unsafe { (f.i2d_PKCS8_PRIV_KEY_INFO)(p8, pp) }
            },
            "i2d_PKCS8_PRIV_KEY_INFO",
        );
        // SAFETY: `p8` is owned here and not used again.
        unsafe { (f.PKCS8_PRIV_KEY_INFO_free)(p8) };
        out
    }

    /// Runs an `i2d_*` encoder twice: once for the length, once into a buffer of it.
    fn encode(&self, i2d: impl Fn(*mut *mut u8) -> c_int, call: &'static str) -> Result<Vec<u8>> {
        let len = usize::try_from(i2d(ptr::null_mut())).map_err(|_| self.lib.error(call))?;
        let mut out = vec![0u8; len];
        let mut p = out.as_mut_ptr();
        let written = i2d(&mut p);
        if usize::try_from(written) != Ok(len) {
            return Err(self.lib.error(call));
        }
        Ok(out)
    }

    /// Prepares a context for `op` with `padding`, to be run many times.
    pub fn prepare(&self, op: RsaOp, padding: RsaPadding<'_>) -> Result<RsaCtx> {
        self.prepare_with(op, padding, None)
    }

    /// As [`prepare`](Self::prepare), with the property query `propq` choosing the
    /// provider of the RSA operation (and of the key management the key moves to), e.g.
    /// "provider=cryptocard" (only that provider) or "?provider=cryptocard" (preferred).
    /// Digests are fetched without it, from whichever provider offers them.
    pub fn prepare_with(
        &self,
        op: RsaOp,
        padding: RsaPadding<'_>,
        propq: Option<&str>,
    ) -> Result<RsaCtx> {
        let lib = self.lib;
        let f = &lib.fns;
        let propq = propq.map(c_name).transpose()?;
        let props = propq.as_ref().map_or(ptr::null(), |p| p.as_ptr());
        // SAFETY: `pkey` is valid; the new context takes its own reference to it; `props`
        // is NULL or a NUL-terminated query, which OpenSSL copies.
        let ctx = lib.non_null(
            unsafe { (f.EVP_PKEY_CTX_new_from_pkey)(ptr::null_mut(), self.pkey, props) },
            "EVP_PKEY_CTX_new_from_pkey",
        )?;
        let mut rsa =
            RsaCtx { ctx: PkeyCtx { lib, ctx }, mds: Vec::new(), op, out_len: self.size() };
        let (init, name) = match op {
            RsaOp::Sign => (f.EVP_PKEY_sign_init, "EVP_PKEY_sign_init"),
            RsaOp::Verify => (f.EVP_PKEY_verify_init, "EVP_PKEY_verify_init"),
            RsaOp::Encrypt => (f.EVP_PKEY_encrypt_init, "EVP_PKEY_encrypt_init"),
            RsaOp::Decrypt => (f.EVP_PKEY_decrypt_init, "EVP_PKEY_decrypt_init"),
            RsaOp::VerifyRecover => {
                (f.EVP_PKEY_verify_recover_init, "EVP_PKEY_verify_recover_init")
            }
        };
        // SAFETY: `ctx` is a fresh context for this key.
        lib.check(unsafe { init(ctx) }, name)?;
        let signing = matches!(op, RsaOp::Sign | RsaOp::Verify | RsaOp::VerifyRecover);
        if let RsaPadding::X931 { digest } = padding {
            // X9.31 wants its digest before the padding (OpenSSL checks the pair when
            // the padding is set).
            let md = rsa.fetch_md(digest)?;
            // SAFETY: the context was initialised for `op` above; `md` lives in `rsa.mds`.
            let rc = unsafe { (f.EVP_PKEY_CTX_set_signature_md)(ctx, md) };
            lib.check(rc, "EVP_PKEY_CTX_set_signature_md")?;
            // SAFETY: as above.
            let rc = unsafe { (f.EVP_PKEY_CTX_set_rsa_padding)(ctx, RSA_X931_PADDING) };
            lib.check(rc, "EVP_PKEY_CTX_set_rsa_padding")?;
            return Ok(rsa);
        }
        let (pad, digest) = match padding {
            RsaPadding::Pkcs1 { digest } => (RSA_PKCS1_PADDING, digest),
            RsaPadding::Pss { digest, .. } if signing => (RSA_PKCS1_PSS_PADDING, Some(digest)),
            RsaPadding::Oaep { digest } if !signing => (RSA_PKCS1_OAEP_PADDING, Some(digest)),
            RsaPadding::None => (RSA_NO_PADDING, None),
            _ => return Err(PeerError::InvalidInput("padding does not fit the operation")),
        };
        // SAFETY: the context was initialised for `op` above.
        let rc = unsafe { (f.EVP_PKEY_CTX_set_rsa_padding)(ctx, pad) };
        lib.check(rc, "EVP_PKEY_CTX_set_rsa_padding")?;
        if let Some(digest) = digest {
            let md = rsa.fetch_md(digest)?;
            // The calls below set parameters on `ctx`, initialised above with a padding that
            // takes them; `md` stays alive in `rsa.mds` as long as the context.
            if signing {
                // SAFETY: see above.
                let rc = unsafe { (f.EVP_PKEY_CTX_set_signature_md)(ctx, md) };
                lib.check(rc, "EVP_PKEY_CTX_set_signature_md")?;
            }
            if let RsaPadding::Pss { salt_len, .. } = padding {
                // SAFETY: see above.
                let rc = unsafe { (f.EVP_PKEY_CTX_set_rsa_mgf1_md)(ctx, md) };
                lib.check(rc, "EVP_PKEY_CTX_set_rsa_mgf1_md")?;
                // SAFETY: see above.
                let rc = unsafe { (f.EVP_PKEY_CTX_set_rsa_pss_saltlen)(ctx, salt_len) };
                lib.check(rc, "EVP_PKEY_CTX_set_rsa_pss_saltlen")?;
            }
            if let RsaPadding::Oaep { .. } = padding {
                // SAFETY: see above.
                let rc = unsafe { (f.EVP_PKEY_CTX_set_rsa_oaep_md)(ctx, md) };
                lib.check(rc, "EVP_PKEY_CTX_set_rsa_oaep_md")?;
                // SAFETY: see above.
                let rc = unsafe { (f.EVP_PKEY_CTX_set_rsa_mgf1_md)(ctx, md) };
                lib.check(rc, "EVP_PKEY_CTX_set_rsa_mgf1_md")?;
            }
        }
        Ok(rsa)
    }
}

impl Drop for RsaKey {
    fn drop(&mut self) {
        // SAFETY: owned by this value, not used again.
        unsafe { (self.lib.fns.EVP_PKEY_free)(self.pkey) };
    }
}

/// A prepared RSA operation (one key, one padding), reusable for many inputs.
pub struct RsaCtx {
    // Dropped in declaration order: the context before the digests it was given.
    ctx: PkeyCtx,
    mds: Vec<MdRef>,
    op: RsaOp,
    out_len: usize,
}

impl std::fmt::Debug for RsaCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RsaCtx").field("op", &self.op).field("out_len", &self.out_len).finish()
    }
}

// SAFETY: the EVP_PKEY_CTX and digests belong to this value alone; `&mut self` on every
// operation keeps them to one thread at a time.
unsafe impl Send for RsaCtx {}

impl RsaCtx {
    fn fetch_md(&mut self, name: &str) -> Result<*mut EVP_MD> {
        let lib = self.ctx.lib;
        let cname = c_name(name)?;
        // SAFETY: default library context and properties; `cname` is a valid C string.
        let md = lib.fetched(
            unsafe { (lib.fns.EVP_MD_fetch)(ptr::null_mut(), cname.as_ptr(), ptr::null()) },
            "digest",
            name,
        )?;
        self.mds.push(MdRef { lib, md });
        Ok(md)
    }

    /// Output size: the modulus length in bytes.
    pub fn output_len(&self) -> usize {
        self.out_len
    }

    /// Sign, encrypt or decrypt `input` into the front of `out` (at least
    /// [`output_len`](Self::output_len) bytes); returns the number of bytes written.
    pub fn run_into(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        let lib = self.ctx.lib;
        let (call, name) = match self.op {
            RsaOp::Sign => (lib.fns.EVP_PKEY_sign, "EVP_PKEY_sign"),
            RsaOp::Encrypt => (lib.fns.EVP_PKEY_encrypt, "EVP_PKEY_encrypt"),
            RsaOp::Decrypt => (lib.fns.EVP_PKEY_decrypt, "EVP_PKEY_decrypt"),
            RsaOp::VerifyRecover => (lib.fns.EVP_PKEY_verify_recover, "EVP_PKEY_verify_recover"),
            RsaOp::Verify => {
                return Err(PeerError::InvalidInput("use verify() for a verification context"));
            }
        };
        if out.len() < self.out_len {
            return Err(PeerError::InvalidInput("RSA output buffer smaller than the modulus"));
        }
        let mut len = out.len();
        // SAFETY: `out` is writable for `len` bytes, which OpenSSL checks against the
        // modulus size before writing; `input` is readable for its length.
        let rc =
            unsafe { call(self.ctx.ctx, out.as_mut_ptr(), &mut len, input.as_ptr(), input.len()) };
        lib.check(rc, name)?;
        Ok(len)
    }

    /// Sign, encrypt or decrypt `input`, returning a new vector.
    pub fn run(&mut self, input: &[u8]) -> Result<Vec<u8>> {
        let mut out = vec![0; self.out_len];
        let n = self.run_into(input, &mut out)?;
        out.truncate(n);
        Ok(out)
    }

    /// Verifies `sig` over the digest `tbs`: `Ok(true)` for a valid signature, `Ok(false)`
    /// for an invalid one, `Err` if the library could not run the check.
    pub fn verify(&mut self, tbs: &[u8], sig: &[u8]) -> Result<bool> {
        if self.op != RsaOp::Verify {
            return Err(PeerError::InvalidInput("not a verification context"));
        }
        let lib = self.ctx.lib;
        // SAFETY: both slices are readable for their lengths.
        let rc = unsafe {
            (lib.fns.EVP_PKEY_verify)(
                self.ctx.ctx,
                sig.as_ptr(),
                sig.len(),
                tbs.as_ptr(),
                tbs.len(),
            )
        };
        match rc {
            1 => Ok(true),
            0 => {
                // SAFETY: clears this thread's error queue.
                unsafe { (lib.fns.ERR_clear_error)() };
                Ok(false)
            }
            // A malformed signature (wrong length, out of range) is also "invalid".
            _ => {
                let err = lib.error("EVP_PKEY_verify");
                if sig.len() != self.out_len { Ok(false) } else { Err(err) }
            }
        }
    }
}

/// A fetched digest owned by an [`RsaCtx`].
struct MdRef {
    lib: &'static Openssl,
    md: *mut EVP_MD,
}

impl Drop for MdRef {
    fn drop(&mut self) {
        // SAFETY: fetched by the owning context and not used again.
        unsafe { (self.lib.fns.EVP_MD_free)(self.md) };
    }
}
