//! BMI2/ADX kernels (docs below are filled in once measured).

// The callers (`modular::mont`, `bignum::mul`) are written beside this module and wire
// these kernels in as they land; until then only the tests use them.
#![cfg_attr(not(test), allow(dead_code))]

mod cios;
mod mont;
mod mul;
mod redc;
mod rows;
mod sqr;

#[cfg(test)]
mod bench;
#[cfg(test)]
mod tests;

use crate::arch::x86_64::cpu::Adx;
use crate::bignum::Limb;

/// Calls `$f::<K>` for the sizes with an unrolled kernel, `$generic` otherwise.
macro_rules! by_size {
    ($k:expr, $f:ident, ($($arg:expr),*), $generic:expr) => {
        match $k {
            8 => $f::<8>($($arg),*),
            16 => $f::<16>($($arg),*),
            24 => $f::<24>($($arg),*),
            32 => $f::<32>($($arg),*),
            48 => $f::<48>($($arg),*),
            64 => $f::<64>($($arg),*),
            _ => $generic,
        }
    };
}

/// The largest `k` whose double-length product fits the stack scratch of
/// [`mont_mul_raw`] and [`mont_sqr_raw`] (8192-bit CRT halves of 16384-bit RSA keys).
pub(crate) const MAX_SCRATCH_LIMBS: usize = 128;

/// Runs `f` on a zeroed scratch of `2k` limbs on the stack, and wipes it afterwards.
///
/// The wipe is a plain `fill(0)` kept alive by `black_box` rather than `zeroize`'s
/// volatile stores: those go one limb at a time and cost about 120 cycles at `k = 16`
/// (15% of a 1024-bit product on Zen 4), the vector fill a handful.
#[inline(always)]
fn with_scratch<T>(k: usize, f: impl FnOnce(&mut [Limb]) -> T) -> T {
    #[inline(always)]
    fn run<const N: usize, T>(k: usize, f: impl FnOnce(&mut [Limb]) -> T) -> T {
        let mut s = [0 as Limb; N];
        let out = f(&mut s[..2 * k]);
        s.fill(0);
        core::hint::black_box(&mut s);
        out
    }
    match k {
        0..=16 => run::<32, T>(k, f),
        17..=64 => run::<128, T>(k, f),
        _ => run::<{ 2 * MAX_SCRATCH_LIMBS }, T>(k, f),
    }
}

/// `r = a * b`, `r.len() == a.len() + b.len()`, `a` and `b` non-empty, any lengths
/// (fastest for equal ones). Time depends only on the lengths.
pub(crate) fn mul_basecase(adx: Adx, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
    assert!(
        !a.is_empty() && !b.is_empty() && r.len() == a.len() + b.len(),
        "internal error: mul_basecase lengths"
    );
    if a.len() == b.len() {
        by_size!(a.len(), mul_unrolled, (adx, r, a, b), mul::mul_loop(adx, r, a, b))
    } else if a.len() > b.len() {
        mul::mul_loop(adx, r, a, b)
    } else {
        mul::mul_loop(adx, r, b, a)
    }
}

/// `r = a^2`, `r.len() == 2 * a.len()`, `a` non-empty. Time depends only on the length.
pub(crate) fn sqr_basecase(adx: Adx, r: &mut [Limb], a: &[Limb]) {
    assert!(!a.is_empty() && r.len() == 2 * a.len(), "internal error: sqr_basecase lengths");
    by_size!(a.len(), sqr_unrolled, (adx, r, a), sqr::sqr_loop(adx, r, a))
}

/// Montgomery reduction: `c*R + r = (t + m*n) / R` for the `m` in `[0, R)` that makes the
/// division exact, `R = 2^(64k)`, `k = n.len() = r.len() >= 1`, `t.len() == 2k` (destroyed),
/// `n` odd, `n0 = -n^-1 mod 2^64`. `c` is 0 or 1 when `t < R^2`... see module docs.
pub(crate) fn redc_raw(adx: Adx, r: &mut [Limb], t: &mut [Limb], n: &[Limb], n0: Limb) -> Limb {
    let k = n.len();
    assert!(k >= 1 && r.len() == k && t.len() == 2 * k, "internal error: redc_raw lengths");
    by_size!(k, redc_unrolled, (adx, r, t, n, n0), redc::redc_loop(adx, r, t, n, n0))
}

/// Montgomery product: `c*R + r = (a*b + m*n) / R`, lengths all `k >= 1`.
pub(crate) fn mont_mul_raw(
    adx: Adx,
    r: &mut [Limb],
    a: &[Limb],
    b: &[Limb],
    n: &[Limb],
    n0: Limb,
) -> Limb {
    let k = n.len();
    assert!(
        k >= 1 && r.len() == k && a.len() == k && b.len() == k,
        "internal error: mont_mul_raw lengths"
    );
    if k > MAX_SCRATCH_LIMBS {
        return cios::mont_mul_cios(adx, r, a, b, n, n0);
    }
    by_size!(
        k,
        mont_mul_unrolled,
        (adx, r, a, b, n, n0),
        with_scratch(k, |t| {
            mul::mul_loop(adx, t, a, b);
            redc::redc_loop(adx, r, t, n, n0)
        })
    )
}

/// Montgomery square: `c*R + r = (a*a + m*n) / R`, lengths all `k >= 1`.
pub(crate) fn mont_sqr_raw(adx: Adx, r: &mut [Limb], a: &[Limb], n: &[Limb], n0: Limb) -> Limb {
    let k = n.len();
    assert!(k >= 1 && r.len() == k && a.len() == k, "internal error: mont_sqr_raw lengths");
    if k > MAX_SCRATCH_LIMBS {
        return cios::mont_mul_cios(adx, r, a, a, n, n0);
    }
    match k {
        8 => return mont::mont_sqr_unrolled::<8>(adx, r, a, n, n0),
        16 => return mont::mont_sqr_unrolled::<16>(adx, r, a, n, n0),
        24 => return mont::mont_sqr_unrolled::<24>(adx, r, a, n, n0),
        32 => return mont::mont_sqr_unrolled::<32>(adx, r, a, n, n0),
        _ => {}
    }
    with_scratch(k, |t| {
        sqr_basecase(adx, t, a);
        redc_raw(adx, r, t, n, n0)
    })
}

use mont::mont_mul_unrolled;
use mul::mul_unrolled;
use redc::redc_unrolled;
use sqr::sqr_unrolled;
