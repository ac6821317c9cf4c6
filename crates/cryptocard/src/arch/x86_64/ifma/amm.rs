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
/// below `2n`. `D <= 24` keeps the accumulator in registers.
///
/// The carry out of digit 0 is `(acc_0 >> 52) + (acc_0 mod 2^52 != 0)`: adding `y n_0`
/// clears the low 52 bits, so the low half either was zero (then `y = 0`) or carries
/// exactly one. It is known before `y`, and `y n_0` itself is never computed.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl,avx512bw")]
pub(super) fn amm_mb8<const D: usize>(
    a: &Mb8<D>,
    b: &Mb8<D>,
    n: &Mb8<D>,
    k0: __m512i,
    out: &mut Mb8<D>,
) {
    let zero = _mm512_setzero_si512();
    let mask = _mm512_set1_epi64(DIGIT_MASK as i64);
    let one = _mm512_set1_epi64(1);
    let mut acc = [zero; D];
    for i in 0..D {
        let bi = vec52::row(b, i);
        unroll!(j in 0..D => {
            acc[j] = _mm512_madd52lo_epu64(acc[j], vec52::row(a, j), bi);
        });
        let y = _mm512_madd52lo_epu64(zero, acc[0], k0);
        let carry = _mm512_add_epi64(
            _mm512_srli_epi64::<52>(acc[0]),
            _mm512_min_epu64(_mm512_and_si512(acc[0], mask), one),
        );
        unroll!(j in 0..D => {
            if j > 0 {
                acc[j] = _mm512_madd52lo_epu64(acc[j], vec52::row(n, j), y);
            }
        });
        // Divide by 2^52: rename the digits down by one.
        unroll!(j in 0..D => {
            acc[j] = acc.get(j + 1).copied().unwrap_or(zero);
        });
        acc[0] = _mm512_add_epi64(acc[0], carry);
        unroll!(j in 0..D => {
            acc[j] = _mm512_madd52hi_epu64(acc[j], vec52::row(a, j), bi);
            acc[j] = _mm512_madd52hi_epu64(acc[j], vec52::row(n, j), y);
        });
    }
    vec52::normalize_mb8(&acc, out);
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
    k0: __m128i,
    out: &mut X2<D>,
) {
    let blocks = X2::<D>::BLOCKS;
    let zero = _mm512_setzero_si512();
    let zx = _mm_setzero_si128();
    let mask = _mm_set1_epi64x(DIGIT_MASK as i64);
    let one = _mm_set1_epi64x(1);
    let (a0, n0, n1) = (vec52::pair(a, 0), vec52::pair(n, 0), vec52::pair(n, 1));
    let mut acc = [zero; D];
    let mut h = [zero; D];
    let mut z = _mm_madd52lo_epu64(zx, a0, vec52::pair(b, 0));
    for i in 0..D {
        let bi = vec52::pair_bcast(b, i);
        let yx = _mm_madd52lo_epu64(zx, z, k0);
        let y = _mm512_shuffle_i64x2::<0>(_mm512_castsi128_si512(yx), _mm512_castsi128_si512(yx));
        let carry =
            _mm_add_epi64(_mm_srli_epi64::<52>(z), _mm_min_epu64(_mm_and_si128(z, mask), one));
        unroll!(v in 0..blocks => {
            acc[v] = _mm512_madd52lo_epu64(acc[v], vec52::block(a, v), bi);
            h[v] = _mm512_madd52hi_epu64(zero, vec52::block(a, v), bi);
        });
        let e = _mm512_extracti32x4_epi32::<1>(acc[0]);
        let next = _mm_madd52lo_epu64(zx, a0, vec52::pair(b, i + 1));
        let x = _mm_add_epi64(_mm_add_epi64(e, _mm512_castsi512_si128(h[0])), next);
        let u = _mm_add_epi64(_mm_madd52lo_epu64(zx, n1, yx), _mm_madd52hi_epu64(zx, n0, yx));
        z = _mm_add_epi64(_mm_add_epi64(x, carry), u);
        unroll!(v in 0..blocks => {
            acc[v] = _mm512_madd52lo_epu64(acc[v], vec52::block(n, v), y);
            h[v] = _mm512_madd52hi_epu64(h[v], vec52::block(n, v), y);
        });
        unroll!(v in 0..blocks => {
            let up = if v + 1 < blocks { acc[v + 1] } else { zero };
            acc[v] = _mm512_add_epi64(_mm512_alignr_epi64::<2>(up, acc[v]), h[v]);
        });
        acc[0] = _mm512_add_epi64(acc[0], _mm512_zextsi128_si512(carry));
    }
    vec52::normalize_x2(&acc[..blocks], out);
}
