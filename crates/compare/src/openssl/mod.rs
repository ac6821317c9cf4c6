//! OpenSSL's libcrypto as a peer: the vendored static 4.0.3 and the system's shared 3.x.
//!
//! Both are driven through one `fns::CryptoFns` table using only the OpenSSL 3.0 API
//! (`EVP_*_fetch`, providers, `EVP_PKEY_CTX`), which 4.0 keeps. Each copy loads its
//! `default` provider and, where it can, its `legacy` provider (single DES, MD4; in the
//! vendored build `no-module` compiles the legacy provider into libcrypto, so it loads by
//! name; the system copy loads `ossl-modules/legacy.so` if installed). Algorithms that are
//! not there fail with [`PeerError::Unavailable`]. Other providers load from a modules
//! directory ([`Openssl::load_provider`]), and an RSA operation can be bound to one by a
//! property query ([`RsaKey::prepare_with`]).
//!
//! The objects returned here ([`Digest`], [`Cipher`], [`Mac`], [`RsaKey`], [`RsaCtx`],
//! [`ModExp`], [`BnMul`]) own their OpenSSL contexts, are prepared once and then run many
//! times, as a benchmark loop wants; each is `Send` but not `Sync`: one per thread.

mod bn;
mod cipher;
mod cms;
mod digest;
pub(crate) mod fns;
mod mac;
mod ocsp;
mod provider;
mod rsa;
mod ts;

pub use bn::{BnMul, ModExp};
pub use cipher::Cipher;
pub use cms::CmsSigner;
pub use digest::Digest;
pub use mac::Mac;
pub use ocsp::OcspResponder;
pub use provider::Provider;
pub use rsa::{RsaCtx, RsaKey, RsaOp, RsaPadding};
pub use ts::Tsa;

use crate::{Origin, PeerError, PeerInfo, Result};
use fns::CryptoFns;
use libloading::os::unix::Library;
use std::ffi::{CStr, CString, c_char, c_int};
use std::sync::OnceLock;

/// The system libcrypto this peer looks for (OpenSSL 3.x keeps this soname).
pub const SYSTEM_LIBCRYPTO: &str = "libcrypto.so.3";

/// One copy of libcrypto.
pub struct Openssl {
    fns: CryptoFns,
    info: PeerInfo,
    legacy: bool,
    _lib: Option<Library>,
}

impl std::fmt::Debug for Openssl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Openssl").field("info", &self.info).field("legacy", &self.legacy).finish()
    }
}

impl Openssl {
    /// The statically linked OpenSSL built from `openssl-src` (4.0.3).
    pub fn vendored() -> Result<&'static Openssl> {
        static VENDORED: OnceLock<Result<Openssl>> = OnceLock::new();
        VENDORED
            .get_or_init(|| Openssl::init(CryptoFns::linked(), Origin::Vendored, None))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The system's `libcrypto.so.3`, opened in isolation; `Ok(None)` if it is not installed.
    pub fn system() -> Result<Option<&'static Openssl>> {
        static SYSTEM: OnceLock<Result<Option<Openssl>>> = OnceLock::new();
        crate::ffi::system_peer(&SYSTEM, SYSTEM_LIBCRYPTO, |lib| {
            let fns = CryptoFns::load(&lib).map_err(PeerError::Unavailable)?;
            Openssl::init(fns, Origin::System, Some(lib))
        })
    }

    fn init(fns: CryptoFns, origin: Origin, lib: Option<Library>) -> Result<Openssl> {
        // SAFETY: OpenSSL_version takes any int and returns a pointer to a static string
        // (or "not available" for an unknown type), never NULL.
        let version = unsafe { CStr::from_ptr((fns.OpenSSL_version)(fns::OPENSSL_VERSION_STRING)) };
        let version = version.to_string_lossy().into_owned();
        let load = |name: &CStr| {
            // SAFETY: a NULL library context means the default one; `name` is a valid C
            // string. The returned provider handle stays loaded for the process's life.
            !unsafe { (fns.OSSL_PROVIDER_load)(std::ptr::null_mut(), name.as_ptr()) }.is_null()
        };
        // Loading any provider explicitly turns off the implicit default: load it too.
        let default = load(c"default");
        let legacy = load(c"legacy");
        // SAFETY: clears this thread's error queue; always safe.
        unsafe { (fns.ERR_clear_error)() };
        let lib_ok = Openssl {
            fns,
            info: PeerInfo { id: "openssl", name: "OpenSSL", version, origin },
            legacy,
            _lib: lib,
        };
        if !default {
            return Err(PeerError::Unavailable(format!(
                "{}: the default provider did not load",
                lib_ok.info
            )));
        }
        Ok(lib_ok)
    }

    /// Version and origin, e.g. "OpenSSL 4.0.3 (vendored)".
    pub fn info(&self) -> &PeerInfo {
        &self.info
    }

    /// Whether the legacy provider (single DES, MD4, MD2) is loaded.
    pub fn has_legacy(&self) -> bool {
        self.legacy
    }

    /// The failure of `call`, with the oldest message on this thread's OpenSSL error queue
    /// (the queue is then cleared).
    fn error(&self, call: &'static str) -> PeerError {
        // SAFETY: reads and pops this thread's error queue.
        let code = unsafe { (self.fns.ERR_get_error)() };
        let mut detail = String::new();
        if code != 0 {
            let mut buf = [0 as c_char; 256];
            // SAFETY: `buf` has room for `buf.len()` bytes; the function NUL-terminates.
            unsafe { (self.fns.ERR_error_string_n)(code, buf.as_mut_ptr(), buf.len()) };
            // SAFETY: NUL-terminated by ERR_error_string_n.
            detail = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned();
        }
        // SAFETY: clears this thread's error queue.
        unsafe { (self.fns.ERR_clear_error)() };
        PeerError::Failed { call, detail }
    }

    /// `Ok` when an OpenSSL "1 on success" return code says success.
    fn check(&self, rc: c_int, call: &'static str) -> Result<()> {
        if rc == 1 { Ok(()) } else { Err(self.error(call)) }
    }

    /// `Ok(p)` unless `p` is NULL.
    fn non_null<T>(&self, p: *mut T, call: &'static str) -> Result<*mut T> {
        if p.is_null() { Err(self.error(call)) } else { Ok(p) }
    }

    /// A fetch that returned NULL: the algorithm is not provided by this copy.
    fn fetched<T>(&self, p: *mut T, kind: &str, name: &str) -> Result<*mut T> {
        if p.is_null() {
            // SAFETY: clears this thread's error queue.
            unsafe { (self.fns.ERR_clear_error)() };
            Err(PeerError::Unavailable(format!("{kind} {name} in {}", self.info)))
        } else {
            Ok(p)
        }
    }
}

/// A Rust string as a C string for an algorithm name.
fn c_name(name: &str) -> Result<CString> {
    CString::new(name).map_err(|_| PeerError::InvalidInput("name contains a NUL byte"))
}

/// A length as C `int`, or `InvalidInput` if it does not fit.
fn c_len(len: usize) -> Result<c_int> {
    c_int::try_from(len).map_err(|_| PeerError::InvalidInput("buffer longer than INT_MAX"))
}
