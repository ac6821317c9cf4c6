//! Test support for cryptocard's GPU backend: the kernel source of
//! `crates/cryptocard/src/rsa/accel/gpu/kernel` compiled for the host by the C compiler
//! (build.rs, with `host_shim.h` in place of CUDA's qualifiers), behind safe wrappers.
//!
//! The device compiles the same headers with NVRTC; this build lets every test run
//! check their arithmetic against cryptocard's scalar backend on a machine with no GPU
//! (`crates/cryptocard/tests/gpu_host_kernels.rs`). The wrappers check every length and
//! key header the C code relies on, so a wrong call panics instead of reading out of
//! bounds. Not part of the library: a dev-dependency only.

#![deny(unsafe_op_in_unsafe_fn)]

/// The largest prime in 32-bit limbs (`CC_PRIME_MAX`).
pub const PRIME_MAX: usize = 64;
/// The largest n in 32-bit limbs (`CC_N_MAX`).
pub const N_MAX: usize = 2 * PRIME_MAX;
/// The widest window (`CC_WINDOW_MAX`).
pub const WINDOW_MAX: u32 = 5;
/// The key image's header words (`CC_KEY_HDR`).
pub const KEY_HDR: usize = 16;

/// Words of a key image whose primes have `l` limbs (`CC_KEY_WORDS`).
pub const fn key_words(l: usize) -> usize {
    KEY_HDR + 11 * l
}

mod ffi {
    unsafe extern "C" {
        pub fn cc_host_mont_mul(
            r: *mut u32,
            a: *const u32,
            b: *const u32,
            n: *const u32,
            n0: u32,
            l: i32,
        );
        pub fn cc_host_mont_mul_chain(
            r: *mut u32,
            a: *const u32,
            b: *const u32,
            n: *const u32,
            n0: u32,
            l: i32,
        );
        pub fn cc_host_mont_sqr(r: *mut u32, a: *const u32, n: *const u32, n0: u32, l: i32);
        pub fn cc_host_mont_sqr_chain(r: *mut u32, a: *const u32, n: *const u32, n0: u32, l: i32);
        pub fn cc_host_reduce_wide(
            r: *mut u32,
            x: *const u32,
            n: *const u32,
            n0: u32,
            r2: *const u32,
            l: i32,
        );
        #[allow(clippy::too_many_arguments)]
        pub fn cc_host_mont_exp_ct(
            r: *mut u32,
            x: *const u32,
            e: *const u32,
            el: i32,
            n: *const u32,
            n0: u32,
            r2: *const u32,
            l: i32,
            w: i32,
            f64: i32,
        );
        #[allow(clippy::too_many_arguments)]
        pub fn cc_host_exp_pub_eq(
            m: *const u32,
            c: *const u32,
            e_lo: u32,
            e_hi: u32,
            n: *const u32,
            n0: u32,
            r2: *const u32,
            l: i32,
        ) -> u32;
        pub fn cc_host_f64_mont_mul(
            r: *mut u64,
            a: *const u32,
            b: *const u32,
            n: *const u32,
            n0: u32,
            l: i32,
            sqr: i32,
        );
        pub fn cc_host_neg_inv32(m: u32) -> u32;
        pub fn cc_host_sqr_wide(r: *mut u32, a: *const u32, l: i32);
        pub fn cc_host_mul_wide(r: *mut u32, a: *const u32, b: *const u32, l: i32);
    }
}

/// The signature of every batch entry, run-time or sized.
type BatchFn = unsafe extern "C" fn(
    keys: *const u64,
    key_count: u32,
    op_key: *const u32,
    input: *const u32,
    out: *mut u32,
    status: *mut u32,
    count: u32,
    words: u32,
    w: u32,
    split: i32,
) -> i32;

/// Declares the batch entries, the run-time build's and one per sized variant (build.rs
/// compiles them), and lists the variants.
macro_rules! variants {
    ($(($sym:ident, $l:expr, $sqr:expr, $chain:expr, $f64:expr)),* $(,)?) => {
        mod entries {
            unsafe extern "C" {
                $(pub fn $sym(
                    keys: *const u64,
                    key_count: u32,
                    op_key: *const u32,
                    input: *const u32,
                    out: *mut u32,
                    status: *mut u32,
                    count: u32,
                    words: u32,
                    w: u32,
                    split: i32,
                ) -> i32;)*
            }
        }
        /// Every compile-time variant of the kernel source the device may run, as
        /// build.rs compiles them for the host (the first is the run-time build).
        pub const VARIANTS: &[Variant] = &[
            $(Variant {
                fixed_l: $l,
                sqr_by_mul: $sqr,
                mul_chain: $chain,
                exp_f64: $f64,
                entry: entries::$sym,
            },)*
        ];
    };
}

variants!(
    (cc_host_rsa_private, None, false, false, false),
    (cc_host_rsa_private_l0_s1_c0, None, true, false, false),
    (cc_host_rsa_private_l0_s0_c1, None, false, true, false),
    (cc_host_rsa_private_l16_s0_c0, Some(16), false, false, false),
    (cc_host_rsa_private_l16_s1_c0, Some(16), true, false, false),
    (cc_host_rsa_private_l16_s0_c1, Some(16), false, true, false),
    (cc_host_rsa_private_l16_s1_c1, Some(16), true, true, false),
    (cc_host_rsa_private_l32_s0_c0, Some(32), false, false, false),
    (cc_host_rsa_private_l32_s1_c0, Some(32), true, false, false),
    (cc_host_rsa_private_l32_s0_c1, Some(32), false, true, false),
    (cc_host_rsa_private_l32_s1_c1, Some(32), true, true, false),
    (cc_host_rsa_private_l48_s0_c0, Some(48), false, false, false),
    (cc_host_rsa_private_l48_s1_c0, Some(48), true, false, false),
    (cc_host_rsa_private_l48_s0_c1, Some(48), false, true, false),
    (cc_host_rsa_private_l48_s1_c1, Some(48), true, true, false),
    (cc_host_rsa_private_l64_s0_c0, Some(64), false, false, false),
    (cc_host_rsa_private_l64_s1_c0, Some(64), true, false, false),
    (cc_host_rsa_private_l64_s0_c1, Some(64), false, true, false),
    (cc_host_rsa_private_l64_s1_c1, Some(64), true, true, false),
    (cc_host_rsa_private_l0_s0_c0_f64, None, false, false, true),
    (cc_host_rsa_private_l16_s1_c1_f64, Some(16), true, true, true),
    (cc_host_rsa_private_l32_s1_c1_f64, Some(32), true, true, true),
    (cc_host_rsa_private_l32_s0_c1_f64, Some(32), false, true, true),
    (cc_host_rsa_private_l48_s0_c1_f64, Some(48), false, true, true),
    (cc_host_rsa_private_l64_s1_c1_f64, Some(64), true, true, true),
);

/// A build of the kernel source with prelude.cuh's compile-time choices.
#[derive(Clone, Copy)]
pub struct Variant {
    /// `CC_FIXED_L`: a module for primes of exactly this many limbs (other keys get
    /// `CC_STATUS_BAD_KEY`); `None` for the run-time build.
    pub fixed_l: Option<usize>,
    /// `CC_SQR_BY_MUL`: squaring by the general product.
    pub sqr_by_mul: bool,
    /// `CC_MUL_CHAIN`: the product's rows as carry chains.
    pub mul_chain: bool,
    /// `CC_EXP_F64`: the secret exponentiations in radix 2^52 on the FP64 units.
    pub exp_f64: bool,
    entry: BatchFn,
}

impl core::fmt::Debug for Variant {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.fixed_l {
            Some(l) => write!(f, "sized L = {l}")?,
            None => f.write_str("run-time L")?,
        }
        f.write_str(if self.sqr_by_mul {
            ", squaring by product"
        } else {
            ", dedicated squaring"
        })?;
        f.write_str(if self.mul_chain { ", chained product" } else { ", CIOS product" })?;
        f.write_str(if self.exp_f64 { ", FP64 exponentiation" } else { "" })
    }
}

/// An odd modulus of 1 to [`N_MAX`] limbs with its -n^-1 mod 2^32.
fn check_modulus(n: &[u32]) -> (u32, i32) {
    assert!((1..=N_MAX).contains(&n.len()), "modulus of {} limbs", n.len());
    assert!(n[0] & 1 == 1, "even modulus");
    (neg_inv32(n[0]), n.len() as i32)
}

/// -m^-1 mod 2^32 for odd m.
pub fn neg_inv32(m: u32) -> u32 {
    assert!(m & 1 == 1);
    // SAFETY: a pure function of one word.
    unsafe { ffi::cc_host_neg_inv32(m) }
}

/// a b / R mod n (R = 2^(32 len(n))), for a < R and b < n.
pub fn mont_mul(a: &[u32], b: &[u32], n: &[u32]) -> Vec<u32> {
    let (n0, l) = check_modulus(n);
    assert!(a.len() == n.len() && b.len() == n.len());
    let mut r = vec![0; n.len()];
    // SAFETY: every array has len(n) limbs, as the C function reads and writes.
    unsafe { ffi::cc_host_mont_mul(r.as_mut_ptr(), a.as_ptr(), b.as_ptr(), n.as_ptr(), n0, l) };
    r
}

/// [`mont_mul`] with the rows as carry chains (`cc_mont_mul_chain`), as the device's
/// PTX computes them.
pub fn mont_mul_chain(a: &[u32], b: &[u32], n: &[u32]) -> Vec<u32> {
    let (n0, l) = check_modulus(n);
    assert!(a.len() == n.len() && b.len() == n.len());
    let mut r = vec![0; n.len()];
    // SAFETY: every array has len(n) limbs, as the C function reads and writes.
    unsafe {
        ffi::cc_host_mont_mul_chain(r.as_mut_ptr(), a.as_ptr(), b.as_ptr(), n.as_ptr(), n0, l)
    };
    r
}

/// a^2 / R mod n, for a < n (the dedicated squaring and separate REDC).
pub fn mont_sqr(a: &[u32], n: &[u32]) -> Vec<u32> {
    let (n0, l) = check_modulus(n);
    assert!(a.len() == n.len());
    let mut r = vec![0; n.len()];
    // SAFETY: both arrays have len(n) limbs.
    unsafe { ffi::cc_host_mont_sqr(r.as_mut_ptr(), a.as_ptr(), n.as_ptr(), n0, l) };
    r
}

/// [`mont_sqr`] as the sized device modules square: the dedicated squaring and REDC as
/// carry chains (`cc_mont_sqr_chain`).
pub fn mont_sqr_chain(a: &[u32], n: &[u32]) -> Vec<u32> {
    let (n0, l) = check_modulus(n);
    assert!(a.len() == n.len());
    let mut r = vec![0; n.len()];
    // SAFETY: both arrays have len(n) limbs.
    unsafe { ffi::cc_host_mont_sqr_chain(r.as_mut_ptr(), a.as_ptr(), n.as_ptr(), n0, l) };
    r
}

/// x mod n for x of 2 len(n) limbs with x < n R; `r2` = R^2 mod n.
pub fn reduce_wide(x: &[u32], n: &[u32], r2: &[u32]) -> Vec<u32> {
    let (n0, l) = check_modulus(n);
    assert!(x.len() == 2 * n.len() && r2.len() == n.len() && n.len() <= PRIME_MAX);
    let mut r = vec![0; n.len()];
    // SAFETY: x has 2L limbs, r2 and r have L; L is within the C arrays' bound.
    unsafe { ffi::cc_host_reduce_wide(r.as_mut_ptr(), x.as_ptr(), n.as_ptr(), n0, r2.as_ptr(), l) };
    r
}

/// x^e mod n by the constant-time fixed window of `w` bits, for x < n; `r2` = R^2 mod n.
pub fn mont_exp_ct(x: &[u32], e: &[u32], n: &[u32], r2: &[u32], w: u32) -> Vec<u32> {
    exp(x, e, n, r2, w, false)
}

/// [`mont_exp_ct`] with the products in radix 2^52 on the FP64 units
/// (`cc_mont_exp_ct_f64`, fp64.cuh): the same contract and result.
pub fn mont_exp_ct_f64(x: &[u32], e: &[u32], n: &[u32], r2: &[u32], w: u32) -> Vec<u32> {
    exp(x, e, n, r2, w, true)
}

fn exp(x: &[u32], e: &[u32], n: &[u32], r2: &[u32], w: u32, f64: bool) -> Vec<u32> {
    let (n0, l) = check_modulus(n);
    assert!(n.len() <= PRIME_MAX, "the exponentiation's table holds primes of at most 64 limbs");
    assert!(x.len() == n.len() && r2.len() == n.len() && !e.is_empty());
    assert!((1..=WINDOW_MAX).contains(&w));
    let mut r = vec![0; n.len()];
    // SAFETY: x, r2, r have L limbs (L <= CC_PRIME_MAX), e has eL; w in range.
    unsafe {
        ffi::cc_host_mont_exp_ct(
            r.as_mut_ptr(),
            x.as_ptr(),
            e.as_ptr(),
            e.len() as i32,
            n.as_ptr(),
            n0,
            r2.as_ptr(),
            l,
            w as i32,
            i32::from(f64),
        )
    };
    r
}

/// 52-bit limbs for a prime of `l` 32-bit limbs (`CC_F64_LIMBS`): 52 s >= 32 l + 2.
pub const fn f64_limbs(l: usize) -> usize {
    (32 * l + 2).div_ceil(52)
}

/// fp64.cuh's Montgomery product: a b / 2^(52 s) mod n, below 2n, as s 52-bit limbs
/// (`s = f64_limbs(len(n))`), for a, b < n.
pub fn f64_mont_mul(a: &[u32], b: &[u32], n: &[u32]) -> Vec<u64> {
    f64_mont(a, b, n, false)
}

/// fp64.cuh's dedicated Montgomery square: a^2 / 2^(52 s) mod n, as [`f64_mont_mul`].
pub fn f64_mont_sqr(a: &[u32], n: &[u32]) -> Vec<u64> {
    f64_mont(a, a, n, true)
}

fn f64_mont(a: &[u32], b: &[u32], n: &[u32], sqr: bool) -> Vec<u64> {
    let (n0, l) = check_modulus(n);
    assert!(n.len() <= PRIME_MAX && a.len() == n.len() && b.len() == n.len());
    let mut r = vec![0; f64_limbs(n.len())];
    let sqr = i32::from(sqr);
    // SAFETY: a, b and n have L <= CC_PRIME_MAX limbs, r the s limbs the C code writes.
    unsafe {
        ffi::cc_host_f64_mont_mul(r.as_mut_ptr(), a.as_ptr(), b.as_ptr(), n.as_ptr(), n0, l, sqr)
    };
    r
}

/// Whether m^e = c mod n for a public e of 1 to 64 bits; `r2` = R^2 mod n, m < n.
pub fn exp_pub_eq(m: &[u32], c: &[u32], e: u64, n: &[u32], r2: &[u32]) -> bool {
    let (n0, l) = check_modulus(n);
    assert!(m.len() == n.len() && c.len() == n.len() && r2.len() == n.len() && e != 0);
    // SAFETY: every array has L <= CC_N_MAX limbs.
    let mask = unsafe {
        ffi::cc_host_exp_pub_eq(
            m.as_ptr(),
            c.as_ptr(),
            e as u32,
            (e >> 32) as u32,
            n.as_ptr(),
            n0,
            r2.as_ptr(),
            l,
        )
    };
    assert!(mask == 0 || mask == u32::MAX, "a mask is all or nothing");
    mask == u32::MAX
}

/// a^2 as 2 len(a) limbs (the squaring before REDC).
pub fn sqr_wide(a: &[u32]) -> Vec<u32> {
    assert!((1..=N_MAX).contains(&a.len()));
    let mut r = vec![0; 2 * a.len()];
    // SAFETY: r has 2L limbs, a has L.
    unsafe { ffi::cc_host_sqr_wide(r.as_mut_ptr(), a.as_ptr(), a.len() as i32) };
    r
}

/// a b as 2 len(a) limbs.
pub fn mul_wide(a: &[u32], b: &[u32]) -> Vec<u32> {
    assert!((1..=N_MAX).contains(&a.len()) && a.len() == b.len());
    let mut r = vec![0; 2 * a.len()];
    // SAFETY: r has 2L limbs, a and b have L.
    unsafe { ffi::cc_host_mul_wide(r.as_mut_ptr(), a.as_ptr(), b.as_ptr(), a.len() as i32) };
    r
}

/// What [`rsa_private`] returns: per operation its planes (m, A^2, Ai^2, each `words`
/// limbs) and its status word.
#[derive(Debug, Clone)]
pub struct BatchOut {
    /// Interleaved as the device writes them: word j of plane k of operation i at
    /// `(k words + j) count + i`.
    pub out: Vec<u32>,
    /// `CC_STATUS_*` per operation.
    pub status: Vec<u32>,
}

/// The kernel's batch body on the host, one operation after the other: `keys` are key
/// images, `op_key[i]` the key of operation i, `input` the interleaved planes (c, A R,
/// Ai R) of `words` limbs each, `w` the window.
pub fn rsa_private(
    keys: &[&[u32]],
    op_key: &[u32],
    input: &[u32],
    words: usize,
    w: u32,
) -> BatchOut {
    batch(entries::cc_host_rsa_private, keys, op_key, input, words, w, false)
}

/// [`rsa_private`] with one of the compile-time [`VARIANTS`].
pub fn rsa_private_variant(
    variant: &Variant,
    keys: &[&[u32]],
    op_key: &[u32],
    input: &[u32],
    words: usize,
    w: u32,
) -> BatchOut {
    batch(variant.entry, keys, op_key, input, words, w, false)
}

/// [`rsa_private_variant`] in the split kernels' three passes (blinding and the
/// reductions; the two exponentiations, one thread each; Garner to the fault check)
/// over a scratch, as the device runs them with `CRYPTOCARD_GPU_SPLIT=1`.
pub fn rsa_private_split(
    variant: &Variant,
    keys: &[&[u32]],
    op_key: &[u32],
    input: &[u32],
    words: usize,
    w: u32,
) -> BatchOut {
    batch(variant.entry, keys, op_key, input, words, w, true)
}

fn batch(
    entry: BatchFn,
    keys: &[&[u32]],
    op_key: &[u32],
    input: &[u32],
    words: usize,
    w: u32,
    split: bool,
) -> BatchOut {
    let count = op_key.len();
    assert!(words <= N_MAX && input.len() == 3 * words * count);
    for key in keys {
        // The C code trusts the header's L for the image's length: check it here.
        assert!(key.len() >= KEY_HDR, "key image shorter than its header");
        let l = key[1] as usize;
        if (1..=PRIME_MAX).contains(&l) {
            assert!(key.len() >= key_words(l), "key image of {} words for L = {l}", key.len());
        }
    }
    let ptrs: Vec<u64> = keys.iter().map(|k| k.as_ptr() as usize as u64).collect();
    let mut out = vec![0u32; 3 * words * count];
    let mut status = vec![u32::MAX; count];
    // SAFETY: every key pointer is a live slice of at least the words its header makes
    // the C code read (checked above; a header it rejects is read up to word 2 only);
    // op_key, input, out and status have the lengths the batch layout implies for
    // `count` operations of `words` limbs; an op_key beyond the keys is caught in C.
    // Every entry (run-time or sized) has cc_host_rsa_private's contract; a sized one
    // reads no more of an image than its header's L allows (it rejects other sizes).
    // The split form allocates its own scratch, and says so if it cannot.
    let rc = unsafe {
        entry(
            ptrs.as_ptr(),
            keys.len() as u32,
            op_key.as_ptr(),
            input.as_ptr(),
            out.as_mut_ptr(),
            status.as_mut_ptr(),
            count as u32,
            words as u32,
            w,
            i32::from(split),
        )
    };
    assert_eq!(rc, 0, "the host batch could not allocate its scratch");
    BatchOut { out, status }
}
