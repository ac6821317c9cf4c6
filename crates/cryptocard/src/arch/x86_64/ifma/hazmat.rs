//! Safe entry points to the IFMA kernels for `crate::hazmat` (feature `hazmat`), so that the
//! benchmark crate (`crates/bench`) can time them without `unsafe` of its own.
//!
//! Each wrapper takes the [`Ifma`] token, which proves the instructions exist, and calls
//! the kernel unchanged; the kernels' contracts (operand bounds, digit counts) are the
//! caller's to keep, as their documentation says. Not a stable API.

use super::LaneStatus;
use crate::arch::x86_64::cpu::Ifma;

pub use super::exp_mb8::{MB8_TRANSPOSED_MAX_DIGITS, Mb8Lane};
pub use super::radix52::{Params52, max_modulus_bits};
pub use super::vec52::{Mb8, X2};

/// Only the shape: the digits may be secret.
impl<const D: usize> core::fmt::Debug for Mb8<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Mb8<{D}>")
    }
}

/// Only the shape: the digits may be secret.
impl<const D: usize> core::fmt::Debug for X2<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "X2<{D}>")
    }
}

impl<const D: usize> Mb8<D> {
    /// Eight numbers from their digits, transposed: `rows[k][l]` is digit `k` of lane `l`.
    pub fn from_rows(rows: [[u64; 8]; D]) -> Self {
        Mb8(rows)
    }
}

impl<const D: usize> X2<D> {
    /// Two numbers from their digits: `pairs[k][s]` is digit `k` of number `s`.
    pub fn from_pairs(pairs: [[u64; 2]; D]) -> Self {
        let mut x = X2::ZERO;
        x.d = pairs;
        x
    }
}

impl<'a> Mb8Lane<'a> {
    /// One lane of [`exp_mb8`]: `out = base^exp mod modulus`, `rr = 2^(104 D) mod modulus`.
    pub fn new(
        modulus: &'a [u64],
        rr: &'a [u64],
        base: &'a [u64],
        exp: &'a [u64],
        out: &'a mut [u64],
    ) -> Self {
        Mb8Lane { modulus, rr, base, exp, out }
    }
}

/// `amm_x2`: the almost-Montgomery product of two pairs.
pub fn amm_x2<const D: usize>(
    _ifma: Ifma,
    a: &X2<D>,
    b: &X2<D>,
    n: &X2<D>,
    k0: &[u64; 2],
    out: &mut X2<D>,
) {
    // SAFETY: the token proves AVX-512 F/IFMA/VL/BW.
    unsafe { super::amm::amm_x2(a, b, n, k0, out) }
}

/// `ams_x2`: the almost-Montgomery square of a pair.
pub fn ams_x2<const D: usize>(_ifma: Ifma, a: &X2<D>, n: &X2<D>, k0: &[u64; 2], out: &mut X2<D>) {
    // SAFETY: the token proves AVX-512 F/IFMA/VL/BW.
    unsafe { super::ams::ams_x2(a, n, k0, out) }
}

/// `amm_x2s`: the strided x2 product of `D` digits in `P` slots (`P` is `D` rounded up to
/// a multiple of 4, from 20 to 40).
pub fn amm_x2s<const D: usize, const P: usize>(
    _ifma: Ifma,
    a: &X2<P>,
    b: &X2<P>,
    n: &X2<P>,
    k0: &[u64; 2],
    out: &mut X2<P>,
) {
    // SAFETY: the token proves AVX-512 F/IFMA/VL/BW.
    unsafe { super::amm_x2_strided::amm_x2s::<D, P>(a, b, n, k0, out) }
}

/// `ams_x2s`: the strided x2 square (`D` and `P` as for `amm_x2s`).
pub fn ams_x2s<const D: usize, const P: usize>(
    _ifma: Ifma,
    a: &X2<P>,
    n: &X2<P>,
    k0: &[u64; 2],
    out: &mut X2<P>,
) {
    // SAFETY: the token proves AVX-512 F/IFMA/VL/BW.
    unsafe { super::ams_x2_strided::ams_x2s::<D, P>(a, n, k0, out) }
}

/// `amm_mb8`: eight almost-Montgomery products, one per lane.
pub fn amm_mb8<const D: usize>(
    _ifma: Ifma,
    a: &Mb8<D>,
    b: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
) {
    // SAFETY: the token proves AVX-512 F/IFMA/VL/BW.
    unsafe { super::amm::amm_mb8(a, b, n, k0, out) }
}

/// `ams_mb8`: eight almost-Montgomery squares.
pub fn ams_mb8<const D: usize>(
    _ifma: Ifma,
    a: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
    scratch: &mut Mb8<D>,
) {
    // SAFETY: the token proves AVX-512 F/IFMA/VL/BW.
    unsafe { super::ams::ams_mb8(a, n, k0, out, scratch) }
}

/// Whether the product-scanning kernels have column groups of `W` for `D` digits.
pub const fn ps_width_ok<const D: usize, const W: usize>() -> bool {
    super::mb8_columns::width_ok::<D, W>()
}

/// `amm_mb8_ps`: the product-scanning mb8 product in column groups of `W`.
pub fn amm_mb8_ps<const D: usize, const W: usize>(
    _ifma: Ifma,
    a: &Mb8<D>,
    b: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
    y: &mut Mb8<D>,
) {
    // SAFETY: the token proves AVX-512 F/IFMA.
    unsafe { super::mb8_columns::amm_mb8_ps::<D, W>(a, b, n, k0, out, y) }
}

/// `ams_mb8_ps`: the product-scanning mb8 square; `side` runs between column groups.
pub fn ams_mb8_ps<const D: usize, const W: usize>(
    _ifma: Ifma,
    a: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
    y: &mut Mb8<D>,
    side: impl FnMut(),
) {
    // SAFETY: the token proves AVX-512 F/IFMA.
    unsafe { super::mb8_columns::ams_mb8_ps::<D, W>(a, n, k0, out, y, side) }
}

/// Whether the Karatsuba mb8 kernels exist for `D` digits and groups of `W`.
pub const fn ks_fits<const D: usize, const W: usize>() -> bool {
    super::mb8_karatsuba::ks_fits::<D, W>()
}

/// `amm_mb8_ks`: the mb8 product with one Karatsuba level.
#[allow(clippy::too_many_arguments)]
pub fn amm_mb8_ks<const D: usize, const W: usize>(
    _ifma: Ifma,
    a: &Mb8<D>,
    b: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
    y: &mut Mb8<D>,
    scratch: &mut [Mb8<D>; 3],
) {
    // SAFETY: the token proves AVX-512 F/IFMA.
    unsafe { super::mb8_karatsuba::amm_mb8_ks::<D, W>(a, b, n, k0, out, y, scratch) }
}

/// `ams_mb8_ks`: the mb8 square with one Karatsuba level.
#[allow(clippy::too_many_arguments)]
pub fn ams_mb8_ks<const D: usize, const W: usize>(
    _ifma: Ifma,
    a: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
    y: &mut Mb8<D>,
    scratch: &mut [Mb8<D>; 3],
    side: impl FnMut(),
) {
    // SAFETY: the token proves AVX-512 F/IFMA.
    unsafe { super::mb8_karatsuba::ams_mb8_ks::<D, W>(a, n, k0, out, y, scratch, side) }
}

/// `select_mb8`: the masked scan of a power table, one index per lane.
pub fn select_mb8<const D: usize>(_ifma: Ifma, table: &[Mb8<D>], idx: &[u64; 8], out: &mut Mb8<D>) {
    // SAFETY: the token proves AVX-512 F.
    unsafe { super::exp_mb8::select_mb8(table, idx, out) }
}

/// `select_rows`: digits `j` and `j + 1` of the masked scan (the fused form).
pub fn select_rows<const D: usize>(
    _ifma: Ifma,
    table: &[Mb8<D>],
    masks: &[[u64; 8]],
    out: &mut Mb8<D>,
    j: usize,
) {
    // SAFETY: the token proves AVX-512 F.
    unsafe { super::exp_mb8::select_rows(table, masks, out, j) }
}

/// `exp_mb8` with a window of `W` bits (4 or 5); true when every lane is done.
pub fn exp_mb8_window<const D: usize, const W: usize>(
    ifma: Ifma,
    lanes: [Option<Mb8Lane<'_>>; 8],
) -> bool {
    let status = super::exp_mb8::exp_mb8_window::<D, W, _>(ifma, lanes);
    status.iter().all(|s| *s == LaneStatus::Done)
}

/// `exp_mb8`: eight exponentiations, one per lane; true when every lane is done.
pub fn exp_mb8<const D: usize>(ifma: Ifma, lanes: [Option<Mb8Lane<'_>>; 8]) -> bool {
    let status = super::exp_mb8::exp_mb8::<D>(ifma, lanes);
    status.iter().all(|s| *s == LaneStatus::Done)
}

/// `exp_x2`: the two exponentiations of one RSA private operation.
pub fn exp_x2<const D: usize>(
    ifma: Ifma,
    out: [&mut [u64]; 2],
    base: [&[u64]; 2],
    exp: [&[u64]; 2],
    params: [&Params52<D>; 2],
) -> crate::Result<()> {
    super::exp_x2::exp_x2::<D>(ifma, out, base, exp, params)
}
