//! GMP as a peer: the bundled 6.3.0 (built by this crate's build script with
//! `--enable-fat`, so its run-time CPU dispatch picks the kernels for the machine it runs
//! on; absent where the build machine had no `m4`) and the system's `libgmp.so.10`,
//! through one `GmpFns` table.
//!
//! Operations: `mpz_powm_sec` (GMP's constant-time exponentiation, the fair peer for a
//! secret-exponent RSA-style modexp), `mpz_powm` (variable time) and `mpz_mul`. GMP aborts
//! the process on a zero modulus and its `powm_sec` requires an odd modulus and a positive
//! exponent, so those are checked here and returned as [`PeerError::InvalidInput`].

use crate::{Origin, PeerError, PeerInfo, Result};
use libloading::os::unix::Library;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::OnceLock;

/// The system GMP this peer looks for.
pub const SYSTEM_LIBGMP: &str = "libgmp.so.10";

/// GMP's `__mpz_struct` (gmp.h), the same in every 6.x release.
#[repr(C)]
#[derive(Debug)]
pub(crate) struct MpzStruct {
    alloc: c_int,
    size: c_int,
    d: *mut u64,
}

crate::ffi_table! {
    /// The GMP entry points used here (gmp.h maps `mpz_x` to the symbol `__gmpz_x`).
    pub(crate) struct GmpFns [linked if bundled_gmp] {
        fn mpz_init(x: *mut MpzStruct) as "__gmpz_init";
        fn mpz_clear(x: *mut MpzStruct) as "__gmpz_clear";
        fn mpz_import(
            rop: *mut MpzStruct, count: usize, order: c_int, size: usize, endian: c_int, nails: usize,
            op: *const c_void
        ) as "__gmpz_import";
        fn mpz_export(
            rop: *mut c_void, countp: *mut usize, order: c_int, size: usize, endian: c_int, nails: usize,
            op: *const MpzStruct
        ) -> *mut c_void as "__gmpz_export";
        fn mpz_sizeinbase(op: *const MpzStruct, base: c_int) -> usize as "__gmpz_sizeinbase";
        fn mpz_powm(r: *mut MpzStruct, b: *const MpzStruct, e: *const MpzStruct, m: *const MpzStruct) as "__gmpz_powm";
        fn mpz_powm_sec(r: *mut MpzStruct, b: *const MpzStruct, e: *const MpzStruct, m: *const MpzStruct) as "__gmpz_powm_sec";
        fn mpz_mul(r: *mut MpzStruct, a: *const MpzStruct, b: *const MpzStruct) as "__gmpz_mul";
        static gmp_version: *const c_char as "__gmp_version";
    }
}

/// One copy of GMP.
pub struct Gmp {
    fns: GmpFns,
    info: PeerInfo,
    _lib: Option<Library>,
}

impl std::fmt::Debug for Gmp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gmp").field("info", &self.info).finish()
    }
}

impl Gmp {
    /// The GMP built from `vendor/` by this crate's build script and linked statically, or
    /// [`PeerError::Unavailable`] saying why the build left it out (no `m4` on the build
    /// machine, a failed configure, ...).
    pub fn bundled() -> Result<&'static Gmp> {
        #[cfg(bundled_gmp)]
        {
            static BUNDLED: OnceLock<Gmp> = OnceLock::new();
            Ok(BUNDLED.get_or_init(|| Gmp::new(GmpFns::linked(), Origin::Bundled, None)))
        }
        #[cfg(not(bundled_gmp))]
        Err(PeerError::Unavailable(format!(
            "the bundled GMP was not built: {}",
            env!("COMPARE_GMP_ABSENT")
        )))
    }

    /// The system's `libgmp.so.10`, opened in isolation; `Ok(None)` if not installed.
    pub fn system() -> Result<Option<&'static Gmp>> {
        static SYSTEM: OnceLock<Result<Option<Gmp>>> = OnceLock::new();
        crate::ffi::system_peer(&SYSTEM, SYSTEM_LIBGMP, |lib| {
            let fns = GmpFns::load(&lib).map_err(PeerError::Unavailable)?;
            Ok(Gmp::new(fns, Origin::System, Some(lib)))
        })
    }

    fn new(fns: GmpFns, origin: Origin, lib: Option<Library>) -> Gmp {
        // SAFETY: `gmp_version` is the address of GMP's `const char *const gmp_version`,
        // which points at a static NUL-terminated string.
        let version = unsafe { CStr::from_ptr(*fns.gmp_version) }.to_string_lossy().into_owned();
        Gmp { fns, info: PeerInfo { id: "gmp", name: "GMP", version, origin }, _lib: lib }
    }

    /// Version and origin, e.g. "GMP 6.3.0 (bundled)".
    pub fn info(&self) -> &PeerInfo {
        &self.info
    }

    /// A GMP integer read from big-endian bytes.
    fn int(&'static self, be: &[u8]) -> Mpz {
        let mut x = Mpz::zero(self);
        if !be.is_empty() {
            // SAFETY: `x` is initialised; `be` is readable for `be.len()` one-byte words
            // (order 1: most significant first; size 1 makes endianness moot; no nails).
            unsafe { (self.fns.mpz_import)(&mut x.raw, be.len(), 1, 1, 0, 0, be.as_ptr().cast()) };
        }
        x
    }

    /// Prepares `base^exp mod modulus` (big-endian bytes). The modulus must be odd and
    /// greater than one, the exponent positive (what `mpz_powm_sec` requires).
    pub fn modexp(&'static self, base: &[u8], exp: &[u8], modulus: &[u8]) -> Result<GmpModExp> {
        let m = self.int(modulus);
        if m.bits() < 2 || modulus.last().is_none_or(|b| b & 1 == 0) {
            return Err(PeerError::InvalidInput("modulus must be odd and greater than one"));
        }
        let e = self.int(exp);
        if e.bits() == 0 {
            return Err(PeerError::InvalidInput("exponent must be positive"));
        }
        let len = m.bits().div_ceil(8);
        Ok(GmpModExp { r: Mpz::zero(self), b: self.int(base), e, m, len })
    }

    /// Prepares the product `a * b` (big-endian bytes).
    pub fn mul(&'static self, a: &[u8], b: &[u8]) -> GmpMul {
        GmpMul { r: Mpz::zero(self), a: self.int(a), b: self.int(b) }
    }
}

/// An owned, initialised `mpz_t`.
struct Mpz {
    lib: &'static Gmp,
    raw: MpzStruct,
}

impl Mpz {
    fn zero(lib: &'static Gmp) -> Mpz {
        let mut raw = MpzStruct { alloc: 0, size: 0, d: std::ptr::null_mut() };
        // SAFETY: mpz_init initialises any `__mpz_struct` storage to zero.
        unsafe { (lib.fns.mpz_init)(&mut raw) };
        Mpz { lib, raw }
    }

    fn bits(&self) -> usize {
        if self.raw.size == 0 {
            return 0;
        }
        // SAFETY: `raw` is initialised.
        unsafe { (self.lib.fns.mpz_sizeinbase)(&self.raw, 2) }
    }

    /// Big-endian bytes, left-padded to `len` (or minimal if `len` is too small).
    fn to_bytes(&self, len: usize) -> Vec<u8> {
        let n = self.bits().div_ceil(8);
        let mut out = vec![0u8; n.max(len)];
        let start = out.len() - n;
        let mut count = 0usize;
        // SAFETY: `out[start..]` has room for the `n` bytes the value needs (mpz_export
        // writes exactly ceil(bits/8) one-byte words for a non-negative value).
        unsafe {
            (self.lib.fns.mpz_export)(
                out[start..].as_mut_ptr().cast(),
                &mut count,
                1,
                1,
                0,
                0,
                &self.raw,
            )
        };
        out
    }
}

impl Drop for Mpz {
    fn drop(&mut self) {
        // SAFETY: `raw` was initialised by mpz_init and is cleared exactly once.
        unsafe { (self.lib.fns.mpz_clear)(&mut self.raw) };
    }
}

// SAFETY: an mpz_t is plain heap data owned by its value; GMP's integer functions are
// reentrant, so a value may move to another thread.
unsafe impl Send for Mpz {}

/// A prepared modular exponentiation.
pub struct GmpModExp {
    r: Mpz,
    b: Mpz,
    e: Mpz,
    m: Mpz,
    len: usize,
}

impl std::fmt::Debug for GmpModExp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GmpModExp").field("modulus_bytes", &self.len).finish()
    }
}

impl GmpModExp {
    /// Computes with `mpz_powm_sec` (constant time).
    pub fn run_sec(&mut self) {
        // SAFETY: all four are initialised; the checks in `Gmp::modexp` meet powm_sec's
        // requirements (odd modulus, positive exponent); `r` aliases no input.
        unsafe {
            (self.r.lib.fns.mpz_powm_sec)(&mut self.r.raw, &self.b.raw, &self.e.raw, &self.m.raw)
        };
    }

    /// Computes with `mpz_powm` (variable time).
    pub fn run(&mut self) {
        // SAFETY: as in `run_sec` (a nonzero modulus is all mpz_powm needs).
        unsafe {
            (self.r.lib.fns.mpz_powm)(&mut self.r.raw, &self.b.raw, &self.e.raw, &self.m.raw)
        };
    }

    /// The last result, big-endian, as long as the modulus.
    pub fn result(&self) -> Vec<u8> {
        self.r.to_bytes(self.len)
    }
}

/// A prepared product.
pub struct GmpMul {
    r: Mpz,
    a: Mpz,
    b: Mpz,
}

impl std::fmt::Debug for GmpMul {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GmpMul").finish_non_exhaustive()
    }
}

impl GmpMul {
    /// Computes `a * b` with `mpz_mul`.
    pub fn run(&mut self) {
        // SAFETY: all three are initialised; `r` aliases no input.
        unsafe { (self.r.lib.fns.mpz_mul)(&mut self.r.raw, &self.a.raw, &self.b.raw) };
    }

    /// The last product, big-endian, minimal length.
    pub fn result(&self) -> Vec<u8> {
        self.r.to_bytes(0)
    }
}
