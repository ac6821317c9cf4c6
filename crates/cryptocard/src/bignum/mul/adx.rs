//! The BMI2/ADX kernels of `arch/x86_64/adx` as the basecase of the multiplication
//! recursion ([`Basecase`]), with the Karatsuba and Toom-3 cut-overs that go with them.
//!
//! This adapter lives here, beside the seam it plugs into, rather than beside the kernels:
//! `arch` stays below `bignum` and knows nothing of its traits (see the crate docs).

use super::{Basecase, Thresholds};
use crate::arch::x86_64::adx::{karatsuba_product, linear, mul_basecase, sqr_basecase};
use crate::arch::x86_64::cpu::Adx;
use crate::ct::Choice;
use crate::limb::Limb;

/// [`mul_basecase`] and [`sqr_basecase`] behind the `Basecase` seam; holding one proves the
/// CPU has the instructions.
#[derive(Clone, Copy, Debug)]
pub struct AdxBasecase(pub Adx);

impl Basecase for AdxBasecase {
    /// Below the Karatsuba cut-over; a 32 x 32 product is one Karatsuba level over the
    /// unrolled 16-limb kernel (`karatsuba::karatsuba_product`), faster than the 32-limb
    /// schoolbook and than the generic level (`crates/bench`, `adx -- tune_karatsuba`).
    #[inline]
    fn mul_basecase(&self, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
        if a.len() == 32 && b.len() == 32 {
            let mut t = [0 as Limb; 64];
            karatsuba_product::<16>(self.0, r, a, Some(b), &mut t);
            t.fill(0);
            core::hint::black_box(&mut t);
        } else {
            mul_basecase(self.0, r, a, b)
        }
    }
    #[inline]
    fn sqr_basecase(&self, r: &mut [Limb], a: &[Limb]) {
        sqr_basecase(self.0, r, a)
    }
    #[inline]
    fn add_n(&self, r: &mut [Limb], a: &[Limb], b: &[Limb], cin: Limb) -> Limb {
        linear::add_n(self.0, r, a, b, cin)
    }
    #[inline]
    fn add_n_assign(&self, a: &mut [Limb], b: &[Limb], cin: Limb) -> Limb {
        linear::add_n_assign(self.0, a, b, cin)
    }
    #[inline]
    fn sub_n(&self, r: &mut [Limb], a: &[Limb], b: &[Limb], bin: Limb) -> Limb {
        linear::sub_n(self.0, r, a, b, bin)
    }
    #[inline]
    fn sub_n_assign(&self, a: &mut [Limb], b: &[Limb], bin: Limb) -> Limb {
        linear::sub_n_assign(self.0, a, b, bin)
    }
    #[inline]
    fn add_1(&self, a: &mut [Limb], b: &[Limb]) -> Limb {
        linear::add_1(self.0, a, b)
    }
    #[inline]
    fn sub_1(&self, a: &mut [Limb], b: &[Limb]) -> Limb {
        linear::sub_1(self.0, a, b)
    }
    #[inline]
    fn add_repeated(&self, a: &mut [Limb], x: Limb, c: Limb) -> Limb {
        linear::add_repeated(self.0, a, x, c)
    }
    #[inline]
    fn abs_diff(&self, r: &mut [Limb], a: &[Limb], b: &[Limb]) -> Limb {
        linear::abs_diff(self.0, r, a, b)
    }
    #[inline]
    fn addmul_1(&self, r: &mut [Limb], a: &[Limb], d: Limb) -> Limb {
        linear::addmul_1(self.0, r, a, d)
    }
    fn karatsuba_middle(&self, r: &mut [Limb], zm: &mut [Limb], h: usize, sub: Choice) {
        let m = sub.mask();
        for x in zm.iter_mut() {
            *x ^= m;
        }
        linear::karatsuba_middle(self.0, r, zm, h, m);
    }
}

/// Thresholds for [`AdxBasecase`], tuned on AMD Zen 4 with the `adx` benchmark's
/// `tune_karatsuba` and `tune_toom3` (`crates/bench`; `KARATSUBA=...` and `TOOM4=...` try
/// other cut-overs, interleaved); rerun them to retune, on a quiet machine:
///
/// * Karatsuba products win from 40 limbs (the 32-limb basecase is itself one Karatsuba
///   level over the unrolled 16-limb kernel, see `mul_basecase` above); whole 65536-bit
///   products are flat for cuts between 36 and 48.
/// * Karatsuba squares win from 64 limbs; at 56 the two are level.
/// * Toom-4 (one level, over Karatsuba) wins over Karatsuba from about 300 limbs, for
///   products and squares (a 65536-bit product is one Toom-4 level over seven 256-limb
///   Karatsuba products).
/// * Toom-3 never won (its 342-limb parts of a 1024-limb product recurse to loop-kernel
///   sizes), and Toom-4 covers its range; it stays above the sizes measured.
///
/// The products these give, against GMP, are the `mulN` rows of `docs/performance.md` and
/// the `adx` benchmark's `products_gmp`.
pub const THRESHOLDS: Thresholds = Thresholds {
    mul_karatsuba: 40,
    mul_toom3: 1500,
    sqr_karatsuba: 60,
    sqr_toom3: 1500,
    mul_toom4: 300,
    sqr_toom4: 300,
};
