//! GMP's `mpz_powm_sec`, loaded at run time with `dlopen`, so that the benchmark can time
//! it in the same process as our kernels without the crate or its tests linking GMP.
//! Test-only; absent GMP, [`Gmp::load`] returns `None` and the comparison is skipped.

use crate::bignum::Limb;
use core::ffi::{c_char, c_int, c_void};

/// `mpz_t`: `{ int alloc; int size; mp_limb_t *d; }`, 16 bytes on x86-64.
#[repr(C)]
struct Mpz {
    alloc: c_int,
    size: c_int,
    d: *mut Limb,
}

type Init = unsafe extern "C" fn(*mut Mpz);
type Import = unsafe extern "C" fn(*mut Mpz, usize, c_int, usize, c_int, usize, *const c_void);
type Powm = unsafe extern "C" fn(*mut Mpz, *const Mpz, *const Mpz, *const Mpz);
type Mul = unsafe extern "C" fn(*mut Mpz, *const Mpz, *const Mpz);

unsafe extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
}

const RTLD_NOW: c_int = 2;

/// The three GMP entry points the benchmark needs.
pub(super) struct Gmp {
    init: Init,
    clear: Init,
    import: Import,
    powm_sec: Powm,
    mul: Mul,
}

impl Gmp {
    /// `libgmp.so.10`, if the system has it.
    pub(super) fn load() -> Option<Gmp> {
        // SAFETY: dlopen/dlsym from the C library with NUL-terminated names; a found
        // symbol is a GMP 6 function whose C signature the `type` aliases above copy from
        // gmp.h (`__gmpz_init(mpz_ptr)`, `__gmpz_import(mpz_ptr, size_t, int, size_t, int,
        // size_t, const void *)`, `__gmpz_powm_sec(mpz_ptr, mpz_srcptr x3)`,
        // `__gmpz_mul(mpz_ptr, mpz_srcptr, mpz_srcptr)`).
        unsafe {
            let h = dlopen(c"libgmp.so.10".as_ptr(), RTLD_NOW);
            if h.is_null() {
                return None;
            }
            let sym = |name: &core::ffi::CStr| {
                let p = dlsym(h, name.as_ptr());
                (!p.is_null()).then_some(p)
            };
            Some(Gmp {
                init: core::mem::transmute::<*mut c_void, Init>(sym(c"__gmpz_init")?),
                clear: core::mem::transmute::<*mut c_void, Init>(sym(c"__gmpz_clear")?),
                import: core::mem::transmute::<*mut c_void, Import>(sym(c"__gmpz_import")?),
                powm_sec: core::mem::transmute::<*mut c_void, Powm>(sym(c"__gmpz_powm_sec")?),
                mul: core::mem::transmute::<*mut c_void, Mul>(sym(c"__gmpz_mul")?),
            })
        }
    }

    /// A closure computing `b^e mod n` with `mpz_powm_sec` on GMP integers made once from
    /// the limbs (little-endian `u64`s, `n` odd).
    pub(super) fn powm_sec<'a>(&'a self, b: &[Limb], e: &[Limb], n: &[Limb]) -> PowmSec<'a> {
        let mut v = [b, e, n, &[0]].map(|_| Mpz { alloc: 0, size: 0, d: core::ptr::null_mut() });
        for (z, x) in v.iter_mut().zip([b, e, n, &[0][..]]) {
            // SAFETY: `z` is a valid `mpz_t` to initialise; `x` is `x.len()` readable
            // 8-byte words, imported least significant first (order -1, native endian).
            unsafe {
                (self.init)(z);
                (self.import)(z, x.len(), -1, 8, 0, 0, x.as_ptr().cast());
            }
        }
        PowmSec { gmp: self, v }
    }
}

/// GMP operands for one `mpz_powm_sec` call, freed on drop.
pub(super) struct PowmSec<'a> {
    gmp: &'a Gmp,
    v: [Mpz; 4],
}

impl PowmSec<'_> {
    /// One `mpz_powm_sec(r, b, e, n)`.
    pub(super) fn run(&mut self) {
        let [b, e, n, r] = &mut self.v;
        // SAFETY: four initialised `mpz_t`s; `n` is odd, as mpz_powm_sec requires.
        unsafe { (self.gmp.powm_sec)(r, b, e, n) }
    }

    /// One `mpz_mul(r, b, e)`.
    pub(super) fn mul(&mut self) {
        let [b, e, _, r] = &mut self.v;
        // SAFETY: three initialised `mpz_t`s.
        unsafe { (self.gmp.mul)(r, b, e) }
    }
}

impl Drop for PowmSec<'_> {
    fn drop(&mut self) {
        for z in &mut self.v {
            // SAFETY: each was initialised by `__gmpz_init` and is cleared once.
            unsafe { (self.gmp.clear)(z) }
        }
    }
}
