//! Safe entry points to the four-lane AVX2 kernels for `crate::hazmat` (feature
//! `hazmat`), so that the benchmark crate can time them without `unsafe` of its own. Each
//! takes the [`Avx2`] token and calls the kernel unchanged; the kernels' contracts
//! (digits below 2^28, values below `2n`, an even digit count) are the caller's to keep.
//! Not a stable API.

use crate::Error;
use crate::arch::x86_64::cpu::Avx2;
use crate::arch::x86_64::ifma::LaneStatus;
use core::arch::x86_64::__m256i;

pub use super::exp::LANES;
pub use super::{DIGIT_BITS, DIGITS};

pub use super::Mb4;

impl<const D: usize> Mb4<D> {
    /// Four numbers from their digits: `rows[k][l]` is digit `k` of lane `l`.
    pub fn from_rows(rows: [[u64; 4]; D]) -> Self {
        Mb4(rows)
    }
}

fn k0_vector(_avx2: Avx2, k0: &[u64; 4]) -> __m256i {
    // SAFETY: unaligned 32-byte load of `k0`; `__m256i` loads need only AVX, which the
    // `Avx2` token proves.
    unsafe { core::arch::x86_64::_mm256_loadu_si256(k0.as_ptr().cast()) }
}

/// `-n^-1 mod 2^28`, the kernels' `k0`, from an odd modulus's low limb.
pub fn neg_inv28(n_low: u64) -> u64 {
    crate::arch::x86_64::radix::neg_inv(n_low, DIGIT_BITS)
}

/// `amm_mb4`: the almost-Montgomery product of four lanes.
pub fn amm_mb4<const D: usize>(
    avx2: Avx2,
    a: &Mb4<D>,
    b: &Mb4<D>,
    n: &Mb4<D>,
    k0: &[u64; 4],
    out: &mut Mb4<D>,
) {
    // SAFETY: the token proves AVX2.
    unsafe { super::amm::amm_mb4(a, b, n, k0_vector(avx2, k0), out) }
}

/// `ams_mb4`: the almost-Montgomery square of four lanes (`scratch` is overwritten).
pub fn ams_mb4<const D: usize>(
    avx2: Avx2,
    a: &Mb4<D>,
    n: &Mb4<D>,
    k0: &[u64; 4],
    out: &mut Mb4<D>,
    scratch: &mut Mb4<D>,
) {
    // SAFETY: the token proves AVX2.
    unsafe { super::amm::ams_mb4(a, n, k0_vector(avx2, k0), out, scratch) }
}

/// One lane of [`exp_mb4`]: modulus, `RR = 2^(56 D) mod modulus`, base, exponent, result
/// (little-endian limbs).
pub type ExpLane<'a> = (&'a [u64], &'a [u64], &'a [u64], &'a [u64], &'a mut [u64]);

/// Four exponentiations `base_l^exp_l mod n_l` for `D`-digit moduli (public: their
/// parameters are built in variable time), each lane's status as `exp::exp_mb4` gives it
/// (`true`: done).
pub fn exp_mb4<const D: usize>(avx2: Avx2, lanes: [ExpLane<'_>; 4]) -> Result<[bool; 4], Error> {
    let mut params = Vec::with_capacity(4);
    for (n, rr, ..) in &lanes {
        params.push(super::Params28::<D>::new(n, rr)?);
    }
    let mut it = lanes.into_iter().zip(&params);
    let lanes = core::array::from_fn(|_| {
        let ((_, _, base, exp, out), params) = it.next().expect("four lanes");
        Some(super::exp::Mb4Lane { params, base, exp, out })
    });
    Ok(super::exp::exp_mb4::<D>(avx2, lanes, None).map(|s| s == LaneStatus::Done))
}
