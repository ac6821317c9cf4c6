//! The dispatch point between the portable Montgomery kernels and CPU-specific ones.
//!
//! A [`KernelSet`] is chosen once, when a [`super::Modulus`] is built (CPU detection is a
//! cached CPUID read, but even that stays out of the inner loops). Exponentiation then
//! matches on it once and runs a loop monomorphised for that kernel set
//! (`with_kernel!`), so each Montgomery product is a direct, inlinable call: no per-call
//! detection, no function pointer.
//!
//! Two kernel sets exist: [`Portable`] (always compiled, the reference) and, on x86-64
//! CPUs with BMI2 and ADX, `AdxKernel`, which forwards to the `mulx/adcx/adox` kernels of
//! `arch::x86_64::adx` (same contracts, with the `Adx` token that proves the
//! instructions exist). Adding a set takes a `KernelSet` variant, a [`MontKernel`]
//! implementation and an arm in `with_kernel!`.

use super::mont::{Finish, mont_mul_raw, redc_raw};
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{
    adx,
    cpu::{Adx, Avx2},
    select,
};
use crate::bignum::Limb;

/// One set of raw Montgomery kernels, with the contracts of [`mont_mul_raw`],
/// [`mont_sqr_raw`](super::mont_sqr::mont_sqr_raw) and [`redc_raw`].
pub(crate) trait MontKernel: Copy {
    /// [`mont_mul_raw`].
    fn mul(self, r: &mut [Limb], a: &[Limb], b: &[Limb], n: &[Limb], n0: Limb) -> Limb;
    /// [`mont_sqr_raw`](super::mont_sqr::mont_sqr_raw).
    fn sqr(self, r: &mut [Limb], a: &[Limb], n: &[Limb], n0: Limb) -> Limb;
    /// [`redc_raw`].
    fn redc(self, r: &mut [Limb], t: &mut [Limb], n: &[Limb], n0: Limb) -> Limb;

    /// Scratch limbs [`MontKernel::sqr_n`] and [`MontKernel::mul_into`] need for k-limb
    /// operands.
    fn chain_scratch_len(self, k: usize) -> usize {
        k
    }

    /// `acc = acc^(2^w) R^(1 - 2^w)` by `w` squarings, each finished by `finish` (the
    /// exponentiation's inner loop). Results are those of `w` calls of
    /// [`MontKernel::sqr`] and [`Finish::apply`]; `scratch` has
    /// [`MontKernel::chain_scratch_len`] limbs, garbage afterwards.
    fn sqr_n(
        self,
        acc: &mut [Limb],
        w: usize,
        n: &[Limb],
        n0: Limb,
        finish: Finish,
        scratch: &mut [Limb],
    ) {
        let t = &mut scratch[..n.len()];
        for _ in 0..w {
            let c = self.sqr(t, acc, n, n0);
            finish.apply(t, c, n);
            acc.copy_from_slice(t);
        }
    }

    /// `acc = acc b R^-1`, finished by `finish`; `scratch` as for [`MontKernel::sqr_n`].
    fn mul_into(
        self,
        acc: &mut [Limb],
        b: &[Limb],
        n: &[Limb],
        n0: Limb,
        finish: Finish,
        scratch: &mut [Limb],
    ) {
        let t = &mut scratch[..n.len()];
        let c = self.mul(t, acc, b, n, n0);
        finish.apply(t, c, n);
        acc.copy_from_slice(t);
    }

    /// `out = table[index]` by a full masked scan ([`crate::ct::select_from_table`]).
    fn select(self, out: &mut [Limb], table: &[Limb], index: usize) {
        crate::ct::select_from_table(out, table, index);
    }
}

/// The portable kernels: always compiled, the reference every other backend is tested
/// against.
///
/// Its squaring is the two-limbs-per-pass CIOS product with b = a, not the dedicated
/// [`mont_sqr_raw`](super::mont_sqr::mont_sqr_raw): in portable Rust the dedicated squaring's saved cross products
/// (k(k+1)/2 instead of k^2) are outweighed by its separate REDC, which runs one carry
/// chain per row where the fused CIOS runs four; so the portable set squares with the
/// CIOS product (measured on AMD Zen 4 at 1024 to 4096 bits, the squaring alone and in
/// constant-time exponentiations). A kernel set whose REDC keeps up (the `mulx/adcx/adox`
/// one) uses its dedicated squaring.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl MontKernel for Portable {
    #[inline(always)]
    fn mul(self, r: &mut [Limb], a: &[Limb], b: &[Limb], n: &[Limb], n0: Limb) -> Limb {
        mont_mul_raw(r, a, b, n, n0)
    }
    #[inline(always)]
    fn sqr(self, r: &mut [Limb], a: &[Limb], n: &[Limb], n0: Limb) -> Limb {
        mont_mul_raw(r, a, a, n, n0)
    }
    #[inline(always)]
    fn redc(self, r: &mut [Limb], t: &mut [Limb], n: &[Limb], n0: Limb) -> Limb {
        redc_raw(r, t, n, n0)
    }
}

/// The `mulx/adcx/adox` kernels; holding one proves the CPU has BMI2 and ADX. Their
/// squaring is the dedicated one (square, then REDC), faster than their product: it
/// takes about half the digit products, and their REDC keeps up. Exponentiation chains
/// run on the fused kernels of `adx::chain` (squarings and product with the
/// almost-Montgomery finish inside), and the table scan on AVX2 where the CPU has it.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) struct AdxKernel(pub(crate) Adx, pub(crate) Option<Avx2>);

#[cfg(target_arch = "x86_64")]
impl AdxKernel {
    /// The kernel set for a detected `Adx` token, with AVX2 if this CPU has it.
    #[inline]
    pub(crate) fn new(adx: Adx) -> AdxKernel {
        AdxKernel(adx, Avx2::detect())
    }
}

#[cfg(target_arch = "x86_64")]
impl MontKernel for AdxKernel {
    #[inline(always)]
    fn mul(self, r: &mut [Limb], a: &[Limb], b: &[Limb], n: &[Limb], n0: Limb) -> Limb {
        adx::mont_mul_raw(self.0, r, a, b, n, n0)
    }
    #[inline(always)]
    fn sqr(self, r: &mut [Limb], a: &[Limb], n: &[Limb], n0: Limb) -> Limb {
        adx::mont_sqr_raw(self.0, r, a, n, n0)
    }
    #[inline(always)]
    fn redc(self, r: &mut [Limb], t: &mut [Limb], n: &[Limb], n0: Limb) -> Limb {
        adx::redc_raw(self.0, r, t, n, n0)
    }
    fn chain_scratch_len(self, k: usize) -> usize {
        adx::chain_scratch_len(k)
    }
    /// The almost finish is right for every `Finish` the chains use: with headroom (the
    /// `Redundant` case) the carry is always 0 and nothing is subtracted.
    fn sqr_n(
        self,
        acc: &mut [Limb],
        w: usize,
        n: &[Limb],
        n0: Limb,
        finish: Finish,
        scratch: &mut [Limb],
    ) {
        debug_assert!(finish != Finish::Full, "internal error: full finish in a chain");
        adx::sqr_n_almost(self.0, acc, w, n, n0, scratch);
    }
    fn mul_into(
        self,
        acc: &mut [Limb],
        b: &[Limb],
        n: &[Limb],
        n0: Limb,
        finish: Finish,
        scratch: &mut [Limb],
    ) {
        debug_assert!(finish != Finish::Full, "internal error: full finish in a chain");
        adx::mul_almost(self.0, acc, b, n, n0, scratch);
    }
    fn select(self, out: &mut [Limb], table: &[Limb], index: usize) {
        match self.1 {
            Some(avx2) => select::select_from_table(avx2, out, table, index),
            None => crate::ct::select_from_table(out, table, index),
        }
    }
}

/// Which kernel set a modulus uses; chosen once, at construction.
#[derive(Clone, Copy, Debug)]
pub(crate) enum KernelSet {
    /// [`Portable`].
    Portable,
    /// `AdxKernel`.
    #[cfg(target_arch = "x86_64")]
    Adx(Adx),
}

impl KernelSet {
    /// The fastest kernel set this CPU supports (for every modulus size: the ADX kernels
    /// win from one limb up).
    pub(crate) fn detect() -> KernelSet {
        #[cfg(target_arch = "x86_64")]
        if let Some(token) = Adx::detect() {
            return KernelSet::Adx(token);
        }
        KernelSet::Portable
    }
}

/// Runs `$body` with `$k` bound to the kernel set of `$backend`, monomorphising the
/// body once per backend.
macro_rules! with_kernel {
    ($backend:expr, |$k:ident| $body:expr) => {
        match $backend {
            $crate::modular::kernel::KernelSet::Portable => {
                let $k = $crate::modular::kernel::Portable;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            $crate::modular::kernel::KernelSet::Adx(token) => {
                let $k = $crate::modular::kernel::AdxKernel::new(token);
                $body
            }
        }
    };
}
pub(crate) use with_kernel;
