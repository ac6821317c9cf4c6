//! The four-lane exponentiation: lanes in, each lane's status and result out.
//!
//! Each lane has its own modulus, base and exponent; only the digit count `D` is shared,
//! and exponents may differ in length (the longest sets the time of the call). An empty
//! lane, or one whose inputs break the contract, computes on a harmless dummy modulus
//! (`n = 1`) and is reported in its [`LaneStatus`]; the other lanes are unaffected.

use super::amm::{amm_mb4, ams_mb4, pack_mb4, select_mb4};
use super::{DIGIT_BITS, Mb4, Params28};
use crate::arch::x86_64::cpu::Avx2;
use crate::arch::x86_64::ifma::LaneStatus;
use crate::arch::x86_64::ifma::window::{Exponents, Kernels};
use crate::arch::x86_64::radix::{self, LaneDigits};
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// Window width of the exponentiation (tuned with `crates/bench`'s `mb4`).
pub(crate) const MB4_WINDOW: usize = 5;

/// Lanes of a call.
pub const LANES: usize = 4;

/// One lane's job on prepared parameters: `out = base^exp mod n`, `n` and `RR` given by
/// `params`. `base` and `out` have `params.limbs()` limbs, `base < n`; `exp` has any
/// length. Its `Debug` shows the lengths only: modulus, exponent and base may be secret.
pub(crate) struct Mb4Lane<'a, const D: usize> {
    pub(crate) params: &'a Params28<D>,
    pub(crate) base: &'a [u64],
    pub(crate) exp: &'a [u64],
    pub(crate) out: &'a mut [u64],
}

impl<const D: usize> core::fmt::Debug for Mb4Lane<'_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Mb4Lane")
            .field("digits", &D)
            .field("exp_limbs", &self.exp.len())
            .finish_non_exhaustive()
    }
}

/// Runs up to four exponentiations at once, each lane's exponent its own (`public` is
/// `None`: fixed windows, constant-time in the exponents) or one public exponent for
/// every lane (`Some(e)`: binary, time follows `e`; the RSA fault checks). `None` lanes
/// are [`LaneStatus::Empty`] (nothing is written for them); a lane whose inputs break
/// the [`Mb4Lane`] contract is [`LaneStatus::Failed`] and its `out` is zero-filled; the
/// others are [`LaneStatus::Done`] with `out` fully reduced. Constant-time in bases,
/// moduli and secret exponents (the checks reveal only sizes and whether `base < n`).
pub(crate) fn exp_mb4<const D: usize>(
    avx2: Avx2,
    mut lanes: [Option<Mb4Lane<'_, D>>; LANES],
    public: Option<&[u64]>,
) -> [LaneStatus; LANES] {
    let mut status = [LaneStatus::Empty; LANES];
    let mut digits = [LaneDigits::<D, DIGIT_BITS>::DUMMY; LANES];
    for ((slot, d), s) in lanes.iter_mut().zip(&mut digits).zip(&mut status) {
        let Some(lane) = slot else { continue };
        match LaneDigits::from_params(lane.params, lane.base, lane.out.len()) {
            Ok(lane_digits) => {
                *d = lane_digits;
                *s = LaneStatus::Done;
            }
            Err(e) => {
                lane.out.fill(0);
                *s = LaneStatus::Failed(e);
            }
        }
    }
    let exps: [&[u64]; LANES] = core::array::from_fn(|l| match (&lanes[l], status[l]) {
        (Some(lane), LaneStatus::Done) => lane.exp,
        _ => &[][..],
    });
    let exps = match public {
        Some(e) => Exponents::Public(e),
        None => Exponents::Secret(exps),
    };

    let (mut n, mut rr, mut base) = (Mb4::<D>::ZERO, Mb4::<D>::ZERO, Mb4::<D>::ZERO);
    for (l, d) in digits.iter().enumerate() {
        for k in 0..D {
            (n.0[k][l], rr.0[k][l], base.0[k][l]) = (d.n[k], d.rr[k], d.base[k]);
        }
    }
    let mut k = Mb4Kernels { _avx2: avx2, n: &n, k0: digits.map(|d| d.k0), a2: Mb4::ZERO };
    let mut out = Mb4::<D>::ZERO;
    exps.run::<_, MB4_WINDOW>(&mut k, &base, &rr, &mut out);
    k.a2.zeroize();
    for (l, slot) in lanes.iter_mut().enumerate() {
        let mut r: [u64; D] = core::array::from_fn(|j| out.0[j][l]);
        if let (Some(lane), LaneStatus::Done) = (slot, status[l]) {
            radix::reduce_once(&mut r, &digits[l].n, DIGIT_BITS);
            let fits = radix::from_radix(lane.out, &r, DIGIT_BITS);
            assert!(fits.declassify(), "internal error: result does not fit the modulus");
        }
        r.zeroize();
    }
    out.zeroize();
    base.zeroize();
    for d in digits.iter_mut() {
        d.base.zeroize();
    }
    status
}

/// The four-lane products bound to four moduli.
struct Mb4Kernels<'a, const D: usize> {
    /// Proof that the CPU has AVX2, which the kernels need.
    _avx2: Avx2,
    n: &'a Mb4<D>,
    k0: [u64; LANES],
    /// The squaring's doubled digits (scratch, secret).
    a2: Mb4<D>,
}

impl<const D: usize> Mb4Kernels<'_, D> {
    fn k0(&self) -> __m256i {
        // SAFETY: `k0` is 32 readable bytes; the load is unaligned. AVX2 is present
        // (`_avx2`).
        unsafe { _mm256_loadu_si256(self.k0.as_ptr().cast()) }
    }
}

impl<const D: usize> Kernels for Mb4Kernels<'_, D> {
    type Num = Mb4<D>;
    const LANES: usize = LANES;

    fn zero(&self) -> Mb4<D> {
        Mb4::ZERO
    }

    fn one(&self) -> Mb4<D> {
        let mut one = Mb4::ZERO;
        one.0[0] = [1; LANES];
        one
    }

    fn mul(&mut self, a: &Mb4<D>, b: &Mb4<D>, out: &mut Mb4<D>) {
        // SAFETY: the CPU has AVX2 (`_avx2`).
        unsafe { amm_mb4(a, b, self.n, self.k0(), out) }
    }

    fn sqr(&mut self, a: &Mb4<D>, out: &mut Mb4<D>) {
        let k0 = self.k0();
        // SAFETY: the CPU has AVX2 (`_avx2`).
        unsafe { ams_mb4(a, self.n, k0, out, &mut self.a2) }
    }

    fn seal_table(&mut self, table: &mut [Mb4<D>]) {
        for e in table {
            // SAFETY: the CPU has AVX2 (`_avx2`).
            unsafe { pack_mb4(e) }
        }
    }

    fn select(&self, table: &[Mb4<D>], idx: &[u64; 8], out: &mut Mb4<D>) {
        let idx: [u64; LANES] = core::array::from_fn(|l| idx[l]);
        // SAFETY: the CPU has AVX2 (`_avx2`).
        unsafe { select_mb4(table, &idx, out) }
    }
}
