//! Almost-Montgomery multiplication (AMM) in radix 2^52, for the mb8 and x2 layouts.
//!
//! `amm(a, b) = (a b + q n) / R` with `R = 2^(52 D)` and `q < R` chosen digit by digit so
//! that the division is exact: word-serial Montgomery (Dusse-Kaliski section 3; Tang-Tsui-
//! Leong Algorithm 2 with the radix 2^52 of the multiplier). For each digit `b_i`:
//!
//! ```text
//! acc += a * b_i                  low halves of the 52x52 products (vpmadd52luq)
//! y    = (acc_0 * k0) mod 2^52    k0 = -n^-1 mod 2^52, so acc_0 + y n_0 = 0 mod 2^52
//! acc += n * y                    low halves
//! acc  = acc / 2^52               drop digit 0, its bits above 52 carried into digit 1
//! acc += hi(a * b_i) + hi(n * y)  high halves, which belong one digit up: after the shift
//!                                 they go to the same index as their low halves did
//! ```
//!
//! There is no carry propagation inside the loop: each digit absorbs at most four
//! products below 2^52 per step, see `super` for the guard-bit budget, and one
//! normalisation at the end (`vec52`) returns digits below 2^52, as the next product's
//! multiplicands must be. No final subtraction either: with `a, b < 2n` and `4n < R` the
//! result is below `2n` (`super`, Dusse-Kaliski Theorem 2 in the unsigned form).

use super::radix52::DIGIT_MASK;
use super::vec52::{self, Mb8, X2};
use core::arch::x86_64::*;

/// `amm(a, b)` of eight lanes, each with its own modulus `n` and `k0` (`k0` holds each
/// lane's `-n^-1 mod 2^52`). Inputs: digits below 2^52, values below `2n` (or one of them
/// any value below `R` if the other is below `n`, as in conversions). Output: normalised,
/// below `2n`. `D <= 23` keeps the accumulator in registers.
///
/// Scheduling: the high halves go straight to the digit above (`acc[j + 1]`, before the
/// shift), so that all the products of `b_i` and the low product of `b_(i+1)` into the next
/// digit 0 are in place before `y` is known; after `y`, the next digit 0 needs only
/// `lo(n_1 y) + hi(n_0 y) + c`, ten cycles, and the other `4D` products fill the step.
/// The carry out of digit 0 is `(acc_0 >> 52) + (acc_0 mod 2^52 != 0)`: adding `y n_0`
/// clears the low 52 bits, so the low half either was zero (then `y = 0`) or carries
/// exactly one. It is known before `y`, and `lo(y n_0)` itself is never computed.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl,avx512bw")]
pub(super) fn amm_mb8<const D: usize>(
    a: &Mb8<D>,
    b: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    out: &mut Mb8<D>,
) {
    let k0 = vec52::load8(k0);
    let zero = _mm512_setzero_si512();
    // acc[j] is digit j of the running sum, `top` digit D (the top high halves of a step).
    let mut acc = [zero; D];
    let mut top = zero;
    let a0 = vec52::row(a, 0);
    acc[0] = _mm512_madd52lo_epu64(zero, a0, vec52::row(b, 0));
    for i in 0..D {
        let bi = vec52::row(b, i);
        // Products of b_i without y: low halves into digit j >= 1 (digit 0 got its own in
        // the previous step), high halves into digit j + 1.
        unroll!(j in 0..D => {
            let aj = vec52::row(a, j);
            if j > 0 {
                acc[j] = _mm512_madd52lo_epu64(acc[j], aj, bi);
            }
            let up = if j + 1 < D { &mut acc[j + 1] } else { &mut top };
            *up = _mm512_madd52hi_epu64(*up, aj, bi);
        });
        // The next step's low product into its digit 0 (b_D is taken as zero).
        if i + 1 < D {
            acc[1] = _mm512_madd52lo_epu64(acc[1], a0, vec52::row(b, i + 1));
        }
        reduce_step_mb8(&mut acc, &mut top, n, k0);
    }
    vec52::normalize_mb8(&acc, out);
}

/// The Montgomery step shared by [`amm_mb8`] and `ams_mb8`, after the products of a step
/// are in: `y = acc_0 k0`, `acc += y n` (low halves into digit `j`, high halves into `j +
/// 1`), then the division by 2^52 (digits renamed down by one, digit 0's carry into the
/// new digit 0). The new digit 0 is completed first, since it decides the next `y`.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn reduce_step_mb8<const D: usize>(
    acc: &mut [__m512i; D],
    top: &mut __m512i,
    n: &Mb8<D>,
    k0: __m512i,
) {
    let zero = _mm512_setzero_si512();
    let mask = _mm512_set1_epi64(DIGIT_MASK as i64);
    let y = _mm512_madd52lo_epu64(zero, acc[0], k0);
    let carry = _mm512_add_epi64(
        _mm512_srli_epi64::<52>(acc[0]),
        _mm512_min_epu64(_mm512_and_si512(acc[0], mask), _mm512_set1_epi64(1)),
    );
    let t = _mm512_add_epi64(_mm512_madd52hi_epu64(zero, vec52::row(n, 0), y), carry);
    acc[1] = _mm512_add_epi64(_mm512_madd52lo_epu64(acc[1], vec52::row(n, 1), y), t);
    unroll!(j in 0..D => {
        let nj = vec52::row(n, j);
        if j > 1 {
            acc[j] = _mm512_madd52lo_epu64(acc[j], nj, y);
        }
        if j > 0 {
            let up = if j + 1 < D { &mut acc[j + 1] } else { &mut *top };
            *up = _mm512_madd52hi_epu64(*up, nj, y);
        }
    });
    unroll!(j in 0..D => {
        acc[j] = if j + 1 < D { acc[j + 1] } else { *top };
    });
    *top = zero;
}

/// `amm(a, b)` of two interleaved pairs, each number with its own modulus; `k0` is
/// `[k0_a, k0_b]`. Contract as [`amm_mb8`].
///
/// The quotient digits `y` sit on a dependency chain from one step to the next that the
/// `zmm` accumulator would make long (four products into the same register, a `valignq`,
/// a broadcast: about 30 cycles a step against 20 cycles of products for `D = 20`). So the
/// digit that decides the next `y` is also tracked on its own, in an `xmm` register `z`
/// (the two numbers' current digit 0, complete):
///
/// ```text
/// y      = z k0 mod 2^52
/// c      = (z >> 52) + (z mod 2^52 != 0)            the carry out of z + y n_0
/// z_next = e + hi(a_0 b_i) + lo(a_0 b_i+1)          e: digit 1 after acc += a b_i,
///          + lo(n_1 y) + hi(n_0 y) + c                 read before the y products
/// ```
///
/// which is about ten cycles a step (`y`, two products, two additions). The high halves
/// go into a separate register set `h` added after the shift, so that each accumulator
/// register sees two products, a `valignq` and an addition per step.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl,avx512bw")]
pub(super) fn amm_x2<const D: usize>(
    a: &X2<D>,
    b: &X2<D>,
    n: &X2<D>,
    k0: &[u64; 2],
    out: &mut X2<D>,
) {
    let k0 = vec52::load2(k0);
    let blocks = X2::<D>::BLOCKS;
    let zero = _mm512_setzero_si512();
    let zx = _mm_setzero_si128();
    let a0 = vec52::pair(a, 0);
    let mut acc = [zero; D];
    let mut h = [zero; D];
    let mut digit0 = Digit0::new(_mm_madd52lo_epu64(zx, a0, vec52::pair(b, 0)), k0);
    for i in 0..D {
        let bi = vec52::pair_bcast(b, i);
        // Block 0 first: it holds the next digit 0.
        acc[0] = _mm512_madd52lo_epu64(acc[0], vec52::block(a, 0), bi);
        h[0] = _mm512_madd52hi_epu64(zero, vec52::block(a, 0), bi);
        // Digit 1 so far, with hi(a_0 b_i) and the next step's lo(a_0 b_(i+1)).
        let e = _mm512_extracti32x4_epi32::<1>(acc[0]);
        let next = _mm_madd52lo_epu64(zx, a0, vec52::pair(b, i + 1));
        let x = _mm_add_epi64(_mm_add_epi64(e, _mm512_castsi512_si128(h[0])), next);
        let (y, carry) = (digit0.y, digit0.carry);
        digit0 = digit0.next(x, n, k0);
        unroll!(v in 0..blocks => {
            if v > 0 {
                acc[v] = _mm512_madd52lo_epu64(acc[v], vec52::block(a, v), bi);
                h[v] = _mm512_madd52hi_epu64(zero, vec52::block(a, v), bi);
            }
        });
        reduce_step_x2(&mut acc, &mut h, y, carry, n);
    }
    end_x2!(&acc[..blocks], out);
}

/// The digit-0 shadow of the x2 kernels: `z`, the two numbers' current digit 0 (complete),
/// its quotient digit `y = z k0 mod 2^52` (in the low lane pair) and the carry
/// `c = (z >> 52) + (z mod 2^52 != 0)` out of `z + y n_0`.
#[derive(Clone, Copy)]
pub(super) struct Digit0 {
    z: __m128i,
    pub(super) y: __m128i,
    pub(super) carry: __m128i,
}

impl Digit0 {
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub(super) fn new(z: __m128i, k0: __m128i) -> Digit0 {
        let mask = _mm_set1_epi64x(DIGIT_MASK as i64);
        Digit0 {
            z,
            y: _mm_madd52lo_epu64(_mm_setzero_si128(), z, k0),
            carry: _mm_add_epi64(
                _mm_srli_epi64::<52>(z),
                _mm_min_epu64(_mm_and_si128(z, mask), _mm_set1_epi64x(1)),
            ),
        }
    }

    /// The next digit 0: `x` (digit 1 without the `y` terms and the carry) plus
    /// `lo(n_1 y) + hi(n_0 y) + c`, with its own `y` and carry. Computed before the step's
    /// bulk products so that, in program order, the chain from one `y` to the next is not
    /// queued behind them.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub(super) fn next<const D: usize>(self, x: __m128i, n: &X2<D>, k0: __m128i) -> Digit0 {
        self.next_at(x, vec52::pair(n, 1), vec52::pair(n, 0), k0)
    }

    /// [`Digit0::next`] given the moduli's digits 1 (`n1`) and 0 (`n0`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
    pub(super) fn next_at(self, x: __m128i, n1: __m128i, n0: __m128i, k0: __m128i) -> Digit0 {
        let _ = self.z;
        let zx = _mm_setzero_si128();
        let u =
            _mm_add_epi64(_mm_madd52lo_epu64(zx, n1, self.y), _mm_madd52hi_epu64(zx, n0, self.y));
        Digit0::new(_mm_add_epi64(_mm_add_epi64(x, self.carry), u), k0)
    }
}

/// `acc += lo(n y)`, `h += hi(n y)` and the carry of digit 0 into `h`: a step's quotient
/// products, before its shift (lane-wise, so for any digit layout of the blocks).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub(super) fn ny_products_x2<const D: usize>(
    acc: &mut [__m512i; D],
    h: &mut [__m512i; D],
    y: __m128i,
    carry: __m128i,
    n: &X2<D>,
) {
    let y = _mm512_shuffle_i64x2::<0>(_mm512_castsi128_si512(y), _mm512_castsi128_si512(y));
    unroll!(v in 0..X2::<D>::BLOCKS => {
        acc[v] = _mm512_madd52lo_epu64(acc[v], vec52::block(n, v), y);
        h[v] = _mm512_madd52hi_epu64(h[v], vec52::block(n, v), y);
    });
    h[0] = _mm512_add_epi64(h[0], _mm512_zextsi128_si512(carry));
}

/// The bulk of a Montgomery step shared by [`amm_x2`] and `ams_x2`, after the products of
/// a step are in (low halves in `acc`, high halves in `h` in the shifted frame):
/// `acc += lo(n y)`, `h += hi(n y)`, `acc = acc / 2^52 + h`, and the carry of digit 0.
/// (Adding the high halves straight into `acc` after the shift saves the additions but
/// makes every accumulator's chain five operations long; it measured slower on Zen 4 at
/// 20 and 40 digits.)
#[inline]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub(super) fn reduce_step_x2<const D: usize>(
    acc: &mut [__m512i; D],
    h: &mut [__m512i; D],
    y: __m128i,
    carry: __m128i,
    n: &X2<D>,
) {
    let blocks = X2::<D>::BLOCKS;
    let zero = _mm512_setzero_si512();
    ny_products_x2(acc, h, y, carry, n);
    unroll!(v in 0..blocks => {
        let up = if v + 1 < blocks { acc[v + 1] } else { zero };
        acc[v] = _mm512_add_epi64(_mm512_alignr_epi64::<2>(up, acc[v]), h[v]);
    });
}
