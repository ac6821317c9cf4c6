//! Almost-Montgomery product and square of four lanes in radix 2^28 (see `super` for the
//! method and the guard-bit budget).
//!
//! Both take the multiplier's digits two at a time. For digits `b_i`, `b_(i+1)` the two
//! quotient digits are found first from the accumulator's two low digits (a chain of
//! about 25 cycles), then one pass over `j` adds
//!
//! ```text
//! x_j = a_j b_i + n_j q_i            (step i, digit j)
//! y_j = a_j b_(i+1) + n_j q_(i+1)    (step i + 1, digit j, one place up)
//! acc_(j-2) = acc_j + x_j + y_(j-1)  (both steps' division by 2^28 as a shift by two)
//! ```
//!
//! so each `a_j` and `n_j` is loaded once for four products and each accumulator digit is
//! loaded and stored once per two steps. `vpmuludq` (two a cycle on Zen 3 and 4, as on
//! Skylake) bounds the pass; the loads and stores fit beside it.
//!
//! The quotient chain of the next pass needs only the new digits 0 and 1, which are final
//! once a pass has done its first two digits. The squaring, whose passes are short enough
//! (half of its digits take the reduction's products only) for the chain to show in its
//! time, makes the next pass's quotient digits right there, so that the chain runs
//! beside the rest of the pass (software pipelining). The product's passes are long enough
//! for the processor to overlap the chain by itself.

use super::{DIGIT_BITS, DIGIT_MASK, Mb4};
use core::arch::x86_64::*;

/// `a + b` lane by lane.
#[inline]
#[target_feature(enable = "avx2")]
fn add(a: __m256i, b: __m256i) -> __m256i {
    _mm256_add_epi64(a, b)
}

/// The products of the lanes' low 32 bits (digits, below 2^29 even when doubled).
#[inline]
#[target_feature(enable = "avx2")]
fn mul(a: __m256i, b: __m256i) -> __m256i {
    _mm256_mul_epu32(a, b)
}

/// `vpmuludq` as an instruction the compiler cannot see into, for [`ams_mb4`]. Its
/// quotient digits cross the loop's back edge from one pass to the next; LLVM knows they
/// are below 2^28 where they are made and drops the intrinsic's mask of their upper
/// halves, and across the back edge its instruction selector no longer sees that they
/// fit, so it emulates each product by them as a full 64-bit one (three multiplies).
#[inline]
#[target_feature(enable = "avx2")]
fn mul_opaque(a: __m256i, b: __m256i) -> __m256i {
    let out: __m256i;
    // SAFETY: `vpmuludq` reads two registers and writes a third, nothing else.
    unsafe {
        core::arch::asm!(
            "vpmuludq {o}, {a}, {b}",
            o = lateout(ymm_reg) out,
            a = in(ymm_reg) a,
            b = in(ymm_reg) b,
            options(pure, nomem, nostack, preserves_flags)
        )
    };
    out
}

/// The quotient digit for a running digit `t`: `(t k0) mod 2^28` (`vpmuludq` reads the
/// low 32 bits of `t`, which hold its residue).
#[inline]
#[target_feature(enable = "avx2")]
fn quotient(t: __m256i, k0: __m256i) -> __m256i {
    _mm256_and_si256(mul_opaque(t, k0), _mm256_set1_epi64x(DIGIT_MASK as i64))
}

/// The carry out of a digit: its bits from 28 up.
#[inline]
#[target_feature(enable = "avx2")]
fn carry(t: __m256i) -> __m256i {
    _mm256_srli_epi64::<{ DIGIT_BITS as i32 }>(t)
}

/// `out = amm(a, b) = (a b + q n) / 2^(28 D)` in each of the four lanes, with `k0 =
/// -n^-1 mod 2^28` per lane. Inputs: digits below 2^28, values below `2n` (or one of them
/// any value below `R` if the other is below `n`). Output: normalised, below `2n`. `D` is
/// even.
#[target_feature(enable = "avx2")]
pub(super) fn amm_mb4<const D: usize>(
    a: &Mb4<D>,
    b: &Mb4<D>,
    n: &Mb4<D>,
    k0: __m256i,
    out: &mut Mb4<D>,
) {
    const { assert!(D >= 4 && D.is_multiple_of(2), "internal error: mb4 digit count") };
    let zero = _mm256_setzero_si256();
    let mut acc = [zero; D];
    let (a0, a1, n0, n1) = (a.row(0), a.row(1), n.row(0), n.row(1));
    for i in (0..D).step_by(2) {
        let (b0, b1) = (b.row(i), b.row(i + 1));
        let t0 = add(acc[0], mul(a0, b0));
        let q0 = quotient(t0, k0);
        let c0 = carry(add(t0, mul(n0, q0)));
        let t1 = add(add(acc[1], mul(a1, b0)), add(mul(n1, q0), c0));
        let t1 = add(t1, mul(a0, b1));
        let q1 = quotient(t1, k0);
        let c1 = carry(add(t1, mul(n0, q1)));
        let mut y = add(mul(a1, b1), mul(n1, q1));
        for j in 2..D {
            let (aj, nj) = (a.row(j), n.row(j));
            let x = add(mul(aj, b0), mul(nj, q0));
            acc[j - 2] = add(add(acc[j], x), y);
            y = add(mul(aj, b1), mul(nj, q1));
        }
        acc[D - 2] = y;
        acc[D - 1] = zero;
        acc[0] = add(acc[0], c1);
    }
    normalize(&acc, out);
}

/// `out = amm(a, a)`, each cross product `a_i a_j` (`i < j`) taken once against the
/// doubled digit `2 a_i` (`a2`, scratch): step `i` adds `a_i^2` at digit `i` and `a_j 2a_i`
/// at digits `j > i` of its (shifted) accumulator, which puts every term of `a^2` at its
/// place, `D^2 / 2` products where [`amm_mb4`] takes `D^2`, beside the `D^2` of the
/// reduction. Same contract as `amm_mb4(a, a)`.
#[target_feature(enable = "avx2")]
pub(super) fn ams_mb4<const D: usize>(
    a: &Mb4<D>,
    n: &Mb4<D>,
    k0: __m256i,
    out: &mut Mb4<D>,
    a2: &mut Mb4<D>,
) {
    const { assert!(D >= 4 && D.is_multiple_of(2), "internal error: mb4 digit count") };
    let zero = _mm256_setzero_si256();
    for j in 0..D {
        let aj = a.row(j);
        a2.set_row(j, add(aj, aj));
    }
    let mut acc = [zero; D];
    let (n0, n1) = (n.row(0), n.row(1));
    // A pass's head: its two quotient digits from the accumulator's digits 0 and 1 (`t0`,
    // `t1`, with the pass's own products there), the carry out of digit 1 (`c1`) and
    // what the pass adds at digit 1 besides (`y`); `c1` and `y` go to the new digit 0.
    let head = |t0: __m256i, t1: __m256i, y: __m256i| {
        let q0 = quotient(t0, k0);
        let c0 = carry(add(t0, mul_opaque(n0, q0)));
        let t1 = add(add(t1, mul_opaque(n1, q0)), c0);
        let q1 = quotient(t1, k0);
        let c1 = carry(add(t1, mul_opaque(n0, q1)));
        (q0, q1, c1, add(y, mul_opaque(n1, q1)))
    };
    // Digits 0 and 1 take products only in the first two steps.
    let (a0, a1) = (a.row(0), a.row(1));
    let (mut q0, mut q1, mut c1, mut y) =
        head(mul_opaque(a0, a0), mul_opaque(a1, a2.row(0)), mul_opaque(a1, a1));
    for i in (0..D).step_by(2) {
        let (ai, ai1) = (a.row(i), a.row(i + 1));
        let (d0, d1) = (a2.row(i), a2.row(i + 1));
        // Digits below i take only the reduction's products, digits from i + 2 both,
        // digits i and i + 1 the squares a_i^2, a_(i+1)^2 and 2 a_i a_(i+1).
        macro_rules! reduce_only {
            ($j:expr) => {{
                let nj = n.row($j);
                acc[$j - 2] = add(add(acc[$j], mul_opaque(nj, q0)), y);
                y = mul_opaque(nj, q1);
            }};
        }
        macro_rules! both {
            ($j:expr) => {{
                let (aj, nj) = (a.row($j), n.row($j));
                let x = add(mul_opaque(aj, d0), mul_opaque(nj, q0));
                acc[$j - 2] = add(add(acc[$j], x), y);
                y = add(mul_opaque(aj, d1), mul_opaque(nj, q1));
            }};
        }
        macro_rules! diagonal {
            () => {{
                let nj = n.row(i);
                acc[i - 2] = add(add(acc[i], add(mul_opaque(ai, ai), mul_opaque(nj, q0))), y);
                y = mul_opaque(nj, q1);
                let nj = n.row(i + 1);
                let x = add(mul_opaque(ai1, d0), mul_opaque(nj, q0));
                acc[i - 1] = add(add(acc[i + 1], x), y);
                y = add(mul_opaque(ai1, ai1), mul_opaque(nj, q1));
            }};
        }
        // Steps `j` up to `end` (an even count from an even `j`), in blocks of four and a
        // last pair; `j` is left at `end`.
        macro_rules! in_blocks {
            ($step:ident, $j:ident, $end:expr) => {{
                while $j + 4 <= $end {
                    $step!($j);
                    $step!($j + 1);
                    $step!($j + 2);
                    $step!($j + 3);
                    $j += 4;
                }
                if $j < $end {
                    $step!($j);
                    $step!($j + 1);
                }
            }};
        }
        // Digits 2 and 3 first: they become the next pass's digits 0 and 1, so its
        // quotient chain (about 25 cycles of latency) can start now, beside the rest of
        // this pass, instead of after it.
        match i {
            0 => {
                both!(2);
                both!(3);
            }
            2 => diagonal!(),
            _ => {
                reduce_only!(2);
                reduce_only!(3);
            }
        }
        acc[0] = add(acc[0], c1);
        // (After the last pass this head is of no use.)
        let next = head(acc[0], acc[1], zero);
        let mut j = 4;
        if i >= 4 {
            // The loops' counts change from pass to pass, so their exits would be
            // mispredicted at every pass; they run in blocks of four and a last pair (both
            // counts are even), whose counts change every other pass only.
            in_blocks!(reduce_only, j, i);
            diagonal!();
            j = i + 2;
        }
        in_blocks!(both, j, D);
        acc[D - 2] = y;
        acc[D - 1] = zero;
        (q0, q1, c1, y) = next;
    }
    normalize(&acc, out);
}

/// `out` = the digits of `acc` with carries propagated (the value is below `2n < R`, so no
/// carry leaves the top digit).
#[inline]
#[target_feature(enable = "avx2")]
fn normalize<const D: usize>(acc: &[__m256i; D], out: &mut Mb4<D>) {
    let mask = _mm256_set1_epi64x(DIGIT_MASK as i64);
    let mut c = _mm256_setzero_si256();
    for (j, &d) in acc.iter().enumerate() {
        let s = add(d, c);
        c = carry(s);
        out.set_row(j, _mm256_and_si256(s, mask));
    }
}

/// Packs a table entry in place for [`select_mb4`]: row `k < D / 2` becomes digits `2k`
/// (low 32 bits) and `2k + 1` (high 32 bits) of the four lanes, which halves the bytes a
/// scan reads (the digits are below 2^28, so two share a lane). Rows from `D / 2` up are
/// left as they were.
#[target_feature(enable = "avx2")]
pub(super) fn pack_mb4<const D: usize>(x: &mut Mb4<D>) {
    // Row k reads rows 2k and 2k + 1, which no earlier step has overwritten.
    for k in 0..D / 2 {
        let (lo, hi) = (x.row(2 * k), x.row(2 * k + 1));
        x.set_row(k, _mm256_or_si256(lo, _mm256_slli_epi64::<32>(hi)));
    }
}

/// `out = table[idx[l]]` in lane `l` for a table packed by [`pack_mb4`], reading every
/// packed row of every entry: each entry's rows are masked with the lanes whose index it
/// is (`vpcmpeqq`) and or-ed in, four rows at a time so that one mask serves four loads.
/// Row `2k` of `out` is packed row `k` itself (its high half, digit `2k + 1`, is ignored by
/// `vpmuludq`, and `out` is only ever a multiplier) and row `2k + 1` that row shifted down.
#[target_feature(enable = "avx2")]
pub(super) fn select_mb4<const D: usize>(table: &[Mb4<D>], idx: &[u64; 4], out: &mut Mb4<D>) {
    // SAFETY: `idx` is 32 readable bytes; the load is unaligned.
    let idx = unsafe { _mm256_loadu_si256(idx.as_ptr().cast()) };
    let rows = D / 2;
    let mut k = 0;
    while k < rows {
        let w = (rows - k).min(4);
        let mut acc = [_mm256_setzero_si256(); 4];
        for (e, entry) in table.iter().enumerate() {
            let m = _mm256_cmpeq_epi64(idx, _mm256_set1_epi64x(e as i64));
            for (r, a) in acc.iter_mut().enumerate().take(w) {
                *a = _mm256_or_si256(*a, _mm256_and_si256(entry.row(k + r), m));
            }
        }
        for (r, &a) in acc.iter().enumerate().take(w) {
            out.set_row(2 * (k + r), a);
            out.set_row(2 * (k + r) + 1, _mm256_srli_epi64::<32>(a));
        }
        k += w;
    }
}
