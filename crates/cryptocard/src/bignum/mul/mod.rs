//! Multiplication of limb slices: single-limb kernels, the schoolbook basecase by product
//! scanning, dedicated squaring, Karatsuba, Toom-3 and Toom-4 above tuned thresholds.
//!
//! Every algorithm bottoms out in a [`Basecase`] kernel, the one seam where a faster
//! kernel (the x86-64 `mulx`/`adcx`/`adox` kernels under `arch/`) is plugged in, together
//! with the carry-chain passes of the algorithms' linear steps (`linear`): the
//! recursion is generic over it, and [`Thresholds`] are data that travel with it, because
//! a faster basecase moves the cut-overs. [`mul`] and [`sqr`] use the portable kernel
//! and the thresholds tuned for it; [`mul_with`] and [`sqr_with`] take any pair.
//!
//! ```
//! use cryptocard::bignum::mul::mul;
//!
//! // (2^64 - 1)^2 = 2^128 - 2^65 + 1, little-endian limbs.
//! let (a, mut r) = ([u64::MAX], [0u64; 2]);
//! mul(&mut r, &a, &a);
//! assert_eq!(r, [1, u64::MAX - 1]);
//! ```
//!
//! Allocation: the kernels never allocate. A top-level call needs scratch space
//! ([`mul_scratch_len`]), allocated once by the caller (or by [`mul`]/[`sqr`], which
//! allocate it, zeroised on drop, for convenience) and shared by all recursion levels.
//!
//! Constant time: every algorithm here runs in time that depends only on the operand
//! lengths; the signs inside Karatsuba, Toom-3 and Toom-4 are masks.

#[cfg(target_arch = "x86_64")]
pub(crate) mod adx;
mod basecase;
mod karatsuba;
pub(crate) mod linear;
mod recursive;
mod sqr_basecase;
pub mod thresholds;
mod toom3;
mod toom4;

pub use basecase::{addmul_1, mul_1, mul_basecase, mul_basecase_rows, submul_1};
pub use recursive::Multiplier;
pub use sqr_basecase::sqr_basecase;
pub use thresholds::Thresholds;

use crate::ct::Choice;
use crate::limb::Limb;
use zeroize::Zeroizing;

/// A schoolbook kernel pair that the recursive algorithms bottom out in.
///
/// Contracts (those of [`mul_basecase()`] and [`sqr_basecase()`]):
/// * `mul_basecase(r, a, b)`: `r = a·b`; `r.len() == a.len() + b.len()`, neither input
///   empty; the recursion always passes `a.len() >= b.len()`; `r` is written, not read.
/// * `sqr_basecase(r, a)`: `r = a^2`; `r.len() == 2 a.len()`, `a` not empty.
///
/// Both must run in time that depends only on the lengths.
///
/// The trait also carries the carry-chain passes of the recursion's linear steps, with
/// portable defaults (the contracts of `bignum::add_n`, `add_1`, ... with a carry in), so
/// that a kernel set can bring faster ones; all in time that depends on the lengths only.
pub trait Basecase {
    /// `r = a * b`.
    fn mul_basecase(&self, r: &mut [Limb], a: &[Limb], b: &[Limb]);
    /// `r = a^2`.
    fn sqr_basecase(&self, r: &mut [Limb], a: &[Limb]);

    /// `r = a + b + cin` over equal lengths (`cin` 0 or 1), returning the carry.
    fn add_n(&self, r: &mut [Limb], a: &[Limb], b: &[Limb], cin: Limb) -> Limb {
        linear::add_n_portable(r, a, b, cin)
    }
    /// `a = a + b + cin` in place over equal lengths, returning the carry.
    fn add_n_assign(&self, a: &mut [Limb], b: &[Limb], cin: Limb) -> Limb {
        linear::add_n_assign_portable(a, b, cin)
    }
    /// `a = a - b - bin` in place over equal lengths, returning the borrow.
    fn sub_n_assign(&self, a: &mut [Limb], b: &[Limb], bin: Limb) -> Limb {
        linear::sub_n_assign_portable(a, b, bin)
    }
    /// `r = a - b - bin` over equal lengths (`bin` 0 or 1), returning the borrow.
    fn sub_n(&self, r: &mut [Limb], a: &[Limb], b: &[Limb], bin: Limb) -> Limb {
        linear::sub_n_portable(r, a, b, bin)
    }
    /// `a += b` (`b` no longer than `a`), the carry through the rest of `a`
    /// (`add_1`).
    fn add_1(&self, a: &mut [Limb], b: &[Limb]) -> Limb {
        crate::bignum::add_1(a, b)
    }
    /// `a -= b` likewise (`sub_1`).
    fn sub_1(&self, a: &mut [Limb], b: &[Limb]) -> Limb {
        crate::bignum::sub_1(a, b)
    }
    /// `a = a + x + c` with the limb `x` repeated over all of `a` (0: carry propagation,
    /// `!0`: sign extension), `c` 0 or 1; returns the carry out.
    fn add_repeated(&self, a: &mut [Limb], x: Limb, c: Limb) -> Limb {
        linear::add_repeated_portable(a, x, c)
    }
    /// `r = |a - b|`, returning 1 where `a < b` (`abs_diff`);
    /// `r.len() == a.len() >= b.len()`.
    fn abs_diff(&self, r: &mut [Limb], a: &[Limb], b: &[Limb]) -> Limb {
        linear::abs_diff(self, r, a, b)
    }
    /// `r += a * d` over `r.len() == a.len()` limbs, returning the high limb
    /// ([`addmul_1`]).
    fn addmul_1(&self, r: &mut [Limb], a: &[Limb], d: Limb) -> Limb {
        addmul_1(r, a, d)
    }
    /// Karatsuba's middle term: `r += (z0 + z2 ± zm)·B^h` with `z0 = r[..2h]` and
    /// `z2 = r[2h..]` in place, subtracting `zm` (`2h` limbs, destroyed) where `sub` is
    /// true; `3h <= r.len() <= 4h`. By default the passes above (`karatsuba::middle`).
    fn karatsuba_middle(&self, r: &mut [Limb], zm: &mut [Limb], h: usize, sub: Choice) {
        karatsuba::middle(self, r, zm, h, sub)
    }
}

/// The portable kernels of this module, always available; the reference the
/// architecture-specific kernels are tested against.
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable;

impl Basecase for Portable {
    #[inline]
    fn mul_basecase(&self, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
        mul_basecase(r, a, b)
    }
    #[inline]
    fn sqr_basecase(&self, r: &mut [Limb], a: &[Limb]) {
        sqr_basecase(r, a)
    }
}

const PORTABLE: Multiplier<'static, Portable> =
    Multiplier { kernel: &Portable, thresholds: &thresholds::PORTABLE };

/// Runs `$body` with `$m` bound to the fastest [`Multiplier`] this CPU has: the BMI2/ADX
/// kernels with their own thresholds where the CPU has them (the detection is a cached
/// CPUID read), else the portable ones. The choice is fixed for the life of the process,
/// so the scratch lengths below always match the multiplier that uses the scratch.
macro_rules! with_best_multiplier {
    (|$m:ident| $body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        if let Some(adx) = crate::arch::x86_64::cpu::Adx::detect() {
            let kernel = crate::bignum::mul::adx::AdxBasecase(adx);
            let $m =
                Multiplier { kernel: &kernel, thresholds: &crate::bignum::mul::adx::THRESHOLDS };
            return $body;
        }
        let $m = PORTABLE;
        $body
    }};
}

/// Scratch limbs [`mul_with_scratch`] needs for operands of `an` and `bn` limbs.
pub fn mul_scratch_len(an: usize, bn: usize) -> usize {
    with_best_multiplier!(|m| m.mul_scratch_len(an, bn))
}

/// Scratch limbs [`sqr_with_scratch`] needs for an operand of `n` limbs.
pub fn sqr_scratch_len(n: usize) -> usize {
    with_best_multiplier!(|m| m.sqr_scratch_len(n))
}

/// `r = a * b` with the fastest kernels of this CPU. Contract: `r.len() == a.len() +
/// b.len()`, neither input empty, `scratch.len() >= mul_scratch_len(a.len(), b.len())`. No
/// allocation; time depends only on the lengths.
pub fn mul_with_scratch(r: &mut [Limb], a: &[Limb], b: &[Limb], scratch: &mut [Limb]) {
    with_best_multiplier!(|m| m.mul(r, a, b, scratch))
}

/// `r = a^2` with the fastest kernels of this CPU. Contract: `r.len() == 2 a.len()`, `a`
/// not empty, `scratch.len() >= sqr_scratch_len(a.len())`. No allocation.
pub fn sqr_with_scratch(r: &mut [Limb], a: &[Limb], scratch: &mut [Limb]) {
    with_best_multiplier!(|m| m.sqr(r, a, scratch))
}

/// `r = a * b`, allocating the scratch space once (zeroised when freed). Contract:
/// `r.len() == a.len() + b.len()`, neither input empty.
pub fn mul(r: &mut [Limb], a: &[Limb], b: &[Limb]) {
    with_best_multiplier!(|m| mul_with(&m, r, a, b))
}

/// `r = a^2`, allocating the scratch space once. Contract: `r.len() == 2 a.len()`, `a` not
/// empty.
pub fn sqr(r: &mut [Limb], a: &[Limb]) {
    with_best_multiplier!(|m| sqr_with(&m, r, a))
}

/// `r = a * b` with the given kernel and thresholds, allocating scratch once.
pub fn mul_with<K: Basecase>(ctx: &Multiplier<'_, K>, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
    let len = ctx.mul_scratch_len(a.len(), b.len());
    if len == 0 {
        ctx.mul(r, a, b, &mut []);
    } else {
        let mut scratch = Zeroizing::new(vec![0; len]);
        ctx.mul(r, a, b, &mut scratch);
    }
}

/// `r = a^2` with the given kernel and thresholds, allocating scratch once.
pub fn sqr_with<K: Basecase>(ctx: &Multiplier<'_, K>, r: &mut [Limb], a: &[Limb]) {
    let len = ctx.sqr_scratch_len(a.len());
    if len == 0 {
        ctx.sqr(r, a, &mut []);
    } else {
        let mut scratch = Zeroizing::new(vec![0; len]);
        ctx.sqr(r, a, &mut scratch);
    }
}
