//! The BMI2/ADX kernels as the basecase of the bignum multiplication recursion
//! (`bignum::mul::Basecase`), with the Karatsuba and Toom-3 cut-overs that go with them.

use super::{linear, mul_basecase, sqr_basecase};
use crate::arch::x86_64::cpu::Adx;
use crate::bignum::Limb;
use crate::bignum::mul::{Basecase, Thresholds};
use crate::ct::Choice;

/// [`mul_basecase`] and [`sqr_basecase`] behind the `Basecase` seam; holding one proves the
/// CPU has the instructions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AdxBasecase(pub(crate) Adx);

impl Basecase for AdxBasecase {
    /// Below the Karatsuba cut-over; a 32 x 32 product is one Karatsuba level over the
    /// unrolled 16-limb kernel (`karatsuba::karatsuba_product`), about 15% faster than the
    /// 32-limb schoolbook and than the generic level.
    #[inline]
    fn mul_basecase(&self, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
        if a.len() == 32 && b.len() == 32 {
            let mut t = [0 as Limb; 64];
            super::karatsuba::karatsuba_product::<16>(self.0, r, a, Some(b), &mut t);
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

/// Thresholds for [`AdxBasecase`], tuned on AMD EPYC Zen 4 (2 shared cores, core about
/// 4.0 GHz, rustc 1.95) with `bench_mul::tune_karatsuba_over_adx` and
/// `bench_mul::bench_products_against_gmp` (minimum of interleaved samples, core cycles):
///
/// * Karatsuba products overtake the basecase between 40 and 48 limbs (40: 2965 against
///   2925; 48: 3410 against 3585; 64: 5725 against 6315). The unrolled sizes (16 to 64
///   limbs) make the curve jagged, hence a cut in the gap.
/// * Karatsuba squares from 64 limbs (56: 3390 against 3165; 64: 3450 against 3805).
/// * Toom-3 (one level over Karatsuba) never won clearly up to 500 limbs (within 2% either
///   way from 300 up), and whole 65536-bit products were fastest with none: 586600 cycles
///   against 618400 with Toom-3 from 150 or 300 limbs. So it starts above the largest size
///   measured (1024 limbs).
///
/// With these, a 4096-bit product takes 0.92 times GMP 6.2's `mpz_mul` time and a
/// 65536-bit one 1.44 times (portable basecase: 1.75 and 2.2 times).
pub(crate) const THRESHOLDS: Thresholds = Thresholds {
    mul_karatsuba: 40,
    mul_toom3: 1500,
    sqr_karatsuba: 60,
    sqr_toom3: 1500,
    mul_toom4: 300,
    sqr_toom4: 300,
};
