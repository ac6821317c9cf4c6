//! The two register layouts of radix-2^52 numbers, their loads and stores, and the carry
//! normalisation that ends every product.
//!
//! * [`Mb8`]: eight independent numbers, transposed (Intel crypto_mb's layout): row `k` is
//!   one `zmm`, digit `k` of lanes 0..8. A digit of all eight numbers is one register, so
//!   shifting a number by a digit is renaming registers, and every lane can hold a different
//!   modulus.
//! * [`X2`]: two numbers interleaved digit by digit, `[a0, b0, a1, b1, ...]`: block `v` (one
//!   `zmm`) holds digits `4v..4v+4` of both, `a` in the even lanes and `b` in the odd ones.
//!   A shift by one digit moves both numbers by two lanes (`valignq`), and the pair of
//!   digits `(a_i, b_i)` broadcast to all four lane pairs is one `vbroadcasti64x2`.
//!
//! Both are `align(64)` so that rows and blocks are aligned `zmm` loads. `X2` carries four
//! zero digits after the last one, so that a block that runs past digit `D - 1` reads
//! zeros, and digit `D` exists (and is zero).

use core::arch::x86_64::*;
use zeroize::Zeroize;

/// Eight numbers of `D` radix-2^52 digits, transposed: `self.0[k][l]` is digit `k` of lane
/// `l`.
#[repr(C, align(64))]
#[derive(Clone)]
pub struct Mb8<const D: usize>(pub(super) [[u64; 8]; D]);

impl<const D: usize> Mb8<D> {
    /// Eight zeros.
    pub const ZERO: Self = Mb8([[0; 8]; D]);
}

impl<const D: usize> Mb8<D> {
    /// Zeroizes the digits with full-width stores (the `Zeroize` implementation writes a
    /// word at a time, which costs as much as a product of the scratch it clears): a plain
    /// fill that `black_box` keeps from being removed as a dead store.
    pub(super) fn wipe(&mut self) {
        self.0 = [[0; 8]; D];
        core::hint::black_box(&mut self.0);
    }
}

impl<const D: usize> Zeroize for Mb8<D> {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

/// Digit `k` of the eight numbers.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn row<const D: usize>(x: &Mb8<D>, k: usize) -> __m512i {
    let r: &[u64; 8] = &x.0[k];
    // SAFETY: `r` is 64 readable bytes at a 64-byte boundary (`Mb8` is `align(64)` and its
    // rows are 64 bytes each).
    unsafe { _mm512_load_si512(r.as_ptr().cast()) }
}

/// Sets digit `k` of the eight numbers.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn set_row<const D: usize>(x: &mut Mb8<D>, k: usize, v: __m512i) {
    let r: &mut [u64; 8] = &mut x.0[k];
    // SAFETY: as in `row`, for writing through a unique reference.
    unsafe { _mm512_store_si512(r.as_mut_ptr().cast(), v) }
}

/// Two numbers of `D` radix-2^52 digits, interleaved: `self.d[k]` is digit `k` of the two.
/// The `pad` digits are always zero.
#[repr(C, align(64))]
#[derive(Clone)]
pub struct X2<const D: usize> {
    pub(super) d: [[u64; 2]; D],
    pad: [[u64; 2]; 4],
}

impl<const D: usize> X2<D> {
    /// Two zeros.
    pub const ZERO: Self = X2 { d: [[0; 2]; D], pad: [[0; 2]; 4] };
    /// Blocks of four digits: `ceil(D / 4)`, at most 24 (the kernels keep them in
    /// registers, and `normalize_x2` its carry bits in three words).
    pub(super) const BLOCKS: usize = {
        assert!(D <= 96, "internal error: X2 takes at most 96 digits");
        D.div_ceil(4)
    };
}

impl<const D: usize> Zeroize for X2<D> {
    fn zeroize(&mut self) {
        self.d.zeroize();
    }
}

/// Block `v` of `x`: digits `4v..4v+4` of both numbers. `v < X2::<D>::BLOCKS`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn block<const D: usize>(x: &X2<D>, v: usize) -> __m512i {
    assert!(v < X2::<D>::BLOCKS, "internal error: block index");
    // SAFETY: words 8v..8v+8 of the struct are inside it: 8v + 8 <= 2 * 4 * ceil(D/4)
    // <= 2 D + 6 < 2 D + 8, the words of `d` and `pad`, which are contiguous (`repr(C)`,
    // both of alignment 8). The address is 64-byte aligned: the struct is, and 8v words
    // are 64v bytes.
    unsafe { _mm512_load_si512((x as *const X2<D>).cast::<u64>().add(8 * v).cast()) }
}

/// Sets block `v` of `x`. The lanes of digits `>= D` must be zero in `val`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn set_block<const D: usize>(x: &mut X2<D>, v: usize, val: __m512i) {
    assert!(v < X2::<D>::BLOCKS, "internal error: block index");
    // SAFETY: as in `block`, writing through a unique reference; the pad keeps its zeros
    // by this function's contract.
    unsafe { _mm512_store_si512((x as *mut X2<D>).cast::<u64>().add(8 * v).cast(), val) }
}

/// Digit `k <= D` of both numbers, `[a_k, b_k]`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
pub(super) fn pair<const D: usize>(x: &X2<D>, k: usize) -> __m128i {
    assert!(k <= D, "internal error: digit index");
    // SAFETY: word pair k <= D lies in `d` or `pad[0]` (contiguous, see `block`), at a
    // 16-byte boundary (the struct is 64-byte aligned and pairs are 16 bytes).
    unsafe { _mm_load_si128((x as *const X2<D>).cast::<u64>().add(2 * k).cast()) }
}

/// Digit `k <= D` of both numbers broadcast to every lane pair: `[a_k, b_k, a_k, b_k, ...]`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
pub(super) fn pair_bcast<const D: usize>(x: &X2<D>, k: usize) -> __m512i {
    _mm512_broadcast_i32x4(pair(x, k))
}

/// The eight words of `x` as one vector.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn load8(x: &[u64; 8]) -> __m512i {
    // SAFETY: `x` is 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(x.as_ptr().cast()) }
}

/// The two words of `x` as one vector.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn load2(x: &[u64; 2]) -> __m128i {
    // SAFETY: `x` is 16 readable bytes; the load is unaligned.
    unsafe { _mm_loadu_si128(x.as_ptr().cast()) }
}

/// `[x0, x1]` broadcast to every lane pair.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn pair_splat(x: [u64; 2]) -> __m512i {
    let (a, b) = (x[0] as i64, x[1] as i64);
    _mm512_set_epi64(b, a, b, a, b, a, b, a)
}

/// Propagates the carries of eight columns of unnormalised digits (each below 2^63) into
/// normalised digits, written to `out`. The value must be below `2^(52 D)` in every lane.
/// A chain of `D` dependent add-shift pairs; the mb8 products are throughput-bound, so its
/// latency (about `2 D` cycles) is a few percent of theirs.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn normalize_mb8<const D: usize>(acc: &[__m512i; D], out: &mut Mb8<D>) {
    let mask = _mm512_set1_epi64(super::radix52::DIGIT_MASK as i64);
    let mut c = _mm512_setzero_si512();
    for (k, &t) in acc.iter().enumerate() {
        let t = _mm512_add_epi64(t, c);
        set_row(out, k, _mm512_and_si512(t, mask));
        c = _mm512_srli_epi64::<52>(t);
    }
}

/// `normalize_x2!(acc, out)`: normalises the unnormalised digits of two interleaved numbers
/// (each digit below 2^63, each value below `2^(52 D)`), `acc[v]` for each block `v` of
/// `out: &mut X2<D>`, into `out`. A macro so that a product can end with it on its
/// accumulator registers: as a call, the accumulators go through memory, and the whole
/// normalisation is latency on the chain from one product to the next.
///
/// Two steps, as in Gueron-Krasnov's AVX-512 RSA code (OpenSSL `rsaz-avx512.pl`): every
/// digit passes its high bits to the next digit of the same number in parallel (a two-lane
/// `valignq`), which leaves digits below `2^52 + 2^11`; then the remaining carries, at most
/// one per digit, are resolved at once as a binary addition over bit masks: digit `k`
/// "generates" when it is `>= 2^52` and "propagates" when it is exactly `2^52 - 1`, and
/// the carries into the digits are `((G << 1) + P) ^ P` computed per number (the other
/// number's bits set in `P` so that carries pass over them). Constant-time: the carries are
/// data, never branches. The comparison masks are packed into words in the mask registers
/// ([`pack_masks`]); the addition runs in general registers (doing it in the mask registers
/// with `kaddq` and friends measured slower on Zen 4, as the mask instructions issue one at
/// a time).
macro_rules! normalize_x2 {
    ($acc:expr, $out:expr) => {{
        let (acc, out) = ($acc, $out);
        let blocks = acc.len();
        let mask = _mm512_set1_epi64($crate::arch::x86_64::ifma::radix52::DIGIT_MASK as i64);
        let zero = _mm512_setzero_si512();
        // Step 1: t_k = (x_k mod 2^52) + (x_{k-1} >> 52). (32 entries: the unrolled
        // copies index up to 31.)
        let mut t = [zero; 32];
        let mut prev_hi = zero;
        unroll!(v in 0..blocks => {
            let hi = _mm512_srli_epi64::<52>(acc[v]);
            // Carries from digits 4v-1 (lanes 6, 7 of the previous block) and 4v..4v+2.
            let shifted = _mm512_alignr_epi64::<6>(hi, prev_hi);
            t[v] = _mm512_add_epi64(_mm512_and_si512(acc[v], mask), shifted);
            prev_hi = hi;
        });
        let _ = prev_hi;
        // Step 2: generate / propagate bits, 8 per block, one word per 8 blocks.
        let (mut g, mut p) = ([0u64; 4], [0u64; 4]);
        unroll!(w in 0..blocks.div_ceil(8), max 4 => {
            let (mut gm, mut pm) = ([0u8; 8], [0u8; 8]);
            unroll!(j in 0..8, max 8 => {
                if 8 * w + j < blocks {
                    gm[j] = _mm512_cmpgt_epu64_mask(t[8 * w + j], mask);
                    pm[j] = _mm512_cmpeq_epi64_mask(t[8 * w + j], mask);
                }
            });
            g[w] = $crate::arch::x86_64::ifma::vec52::pack_masks(gm);
            p[w] = $crate::arch::x86_64::ifma::vec52::pack_masks(pm);
        });
        let carries = $crate::arch::x86_64::ifma::vec52::lookahead(&g, &p);
        unroll!(v in 0..blocks => {
            let c = (carries[v / 8] >> (8 * (v % 8))) as u8;
            // t + 1 in the lanes that receive a carry, then keep 52 bits.
            let y = _mm512_mask_sub_epi64(t[v], c, t[v], _mm512_set1_epi64(-1));
            $crate::arch::x86_64::ifma::vec52::set_block(out, v, _mm512_and_si512(y, mask));
        });
    }};
}

/// `end_x2!(acc, out)`: the normalisation that ends an x2 product, `acc` its blocks.
/// [`normalize_x2!`] inline up to 10 blocks (40 digits, RSA-4096's halves), where it
/// saves 2 to 5% of a product on Zen 4 (the accumulators stay in registers, and the
/// normalisation is on the chain from one product to the next); [`normalize_x2()`], out of
/// line, above, where inlining it cost 7% at 60 digits (the normalisation's temporaries
/// then spill the product's).
macro_rules! end_x2 {
    ($acc:expr, $out:expr) => {{
        let (acc, out) = ($acc, $out);
        if acc.len() <= 10 {
            normalize_x2!(acc, out);
        } else {
            $crate::arch::x86_64::ifma::vec52::normalize_x2(acc, out);
        }
    }};
}

/// Normalises the unnormalised digits of two interleaved numbers (each digit below 2^63,
/// each value below `2^(52 D)`) held in `X2::<D>::BLOCKS` blocks, into `out`: the
/// out-of-line form of [`normalize_x2!`], for the digit counts whose products do not
/// inline it.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn normalize_x2<const D: usize>(acc: &[__m512i], out: &mut X2<D>) {
    assert_eq!(acc.len(), X2::<D>::BLOCKS, "internal error: block count");
    normalize_x2!(acc, out);
}

/// Eight 8-bit lane masks as one word, `m[j]` in bits `8j..8j + 8`, packed in the mask
/// registers (`kunpck`, three levels) and moved to a general register once. Left to
/// itself, LLVM moved each mask out and assembled the word in a vector register, a chain
/// three times as long.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn pack_masks(m: [__mmask8; 8]) -> u64 {
    // Two halves of four (the mask registers are seven).
    let (lo, hi) = (pack4(m[0], m[1], m[2], m[3]), pack4(m[4], m[5], m[6], m[7]));
    let word: u64;
    // SAFETY: mask-register instructions of AVX-512 BW (enabled on this function) and a
    // move to a general register; no memory, stack or flags.
    unsafe {
        core::arch::asm!(
            "kunpckdq {h}, {h}, {l}",
            "kmovq {w}, {h}",
            h = inout(kreg) hi => _, l = in(kreg) lo, w = out(reg) word,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    word
}

/// Four 8-bit masks as the low 32 bits of a mask register, `m_j` in bits `8j..8j + 8`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn pack4(m0: __mmask8, m1: __mmask8, m2: __mmask8, m3: __mmask8) -> u64 {
    let (mut a, b) = (u64::from(m0), u64::from(m2));
    // SAFETY: mask-register instructions of AVX-512 BW (enabled on this function) on
    // registers only: no memory, stack or flags.
    unsafe {
        core::arch::asm!(
            "kunpckbw {a}, {c}, {a}",
            "kunpckbw {b}, {d}, {b}",
            "kunpckwd {a}, {b}, {a}",
            a = inout(kreg) a, b = inout(kreg) b => _,
            c = in(kreg) u64::from(m1), d = in(kreg) u64::from(m3),
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    a
}

/// The carry-in bits of an `N`-word binary addition over interleaved numbers: bit `2k + s`
/// of the words is digit `k` of number `s`. See `normalize_x2!`.
pub(super) fn lookahead<const N: usize>(g: &[u64; N], p: &[u64; N]) -> [u64; N] {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let mut out = [0u64; N];
    for sel in [EVEN, !EVEN] {
        // Carries of one number: the other's positions always propagate.
        let mut carry_in = 0u64;
        let mut g_top = 0u64;
        for w in 0..N {
            let gw = g[w] & sel;
            let pw = (p[w] & sel) | !sel;
            // (G << 1) over the word boundary, plus P, plus the carry out of the last word.
            let shifted = (gw << 1) | g_top;
            g_top = gw >> 63;
            let (s1, c1) = shifted.overflowing_add(pw);
            let (s2, c2) = s1.overflowing_add(carry_in);
            carry_in = u64::from(c1) | u64::from(c2);
            out[w] |= (s2 ^ pw) & sel;
        }
    }
    out
}

/// `v`, hidden from the optimiser in its register: an empty `asm!` claims to rewrite it.
/// For selection masks, which LLVM would otherwise fold into masked instructions whose
/// data path depends on the (secret) mask; `core::hint::black_box` does the same through
/// a store and a reload, which cost a table scan a fifth of its time.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn opaque(mut v: __m512i) -> __m512i {
    // SAFETY: the template is empty: no instruction runs, no memory or flag is touched.
    unsafe {
        core::arch::asm!("/* {0} */", inout(zmm_reg) v, options(pure, nomem, nostack, preserves_flags))
    };
    v
}
