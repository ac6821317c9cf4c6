//! SHA-384/512 block compression with an AVX2 message schedule and BMI2 rounds.
//!
//! The shape of OpenSSL's `sha512-x86_64` AVX2 path. The schedule of FIPS 180-4 section
//! 6.4.2 step 1, `W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]`, runs in vector
//! registers two words at a time (the recurrence reaches back two words, so a pair is the
//! widest step) for two blocks at once, one per 128-bit lane, and stores `K[t] + W[t]`.
//! It runs sixteen words ahead of the first block's rounds, its instructions interleaved
//! with theirs (every second round); the second block's rounds then run from the stored
//! schedule alone. The rounds are assembly on general registers: `rorx` (BMI2) for each
//! rotation, `andn` (BMI1) for Ch, and Σ0(a) added at the start of the next round, as
//! OpenSSL does. On Zen 4 the rounds are bound by instruction throughput, so every vector
//! instruction counts: the two-block lanes halve the schedule's work per block, and where
//! AVX-512VL is present its rotations and three-input XOR halve it again. It runs level
//! with OpenSSL's AVX2 code (the `sha512` row of `docs/performance.md`), well ahead of the
//! portable code.
//!
//! Contract: `sha512_compress` takes the chaining value (`H0` first) and whole 128-byte
//! blocks, read in order; it writes only the state. The portable twin is
//! `digest::sha512::compress_portable`, against which it is tested.

mod rounds;

use core::arch::x86_64::*;
use rounds::{PairSchedule, block_rounds, rounds16_asm};

/// AVX2, BMI1 and BMI2: the vector schedule, `andn` and `rorx`; and whether AVX-512VL's
/// rotations and three-input logic are there too, for a shorter schedule.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2Bmi2 {
    avx512vl: bool,
}

impl Avx2Bmi2 {
    /// The token, if this CPU has AVX2, BMI1 and BMI2.
    #[inline]
    pub(crate) fn detect() -> Option<Avx2Bmi2> {
        let base = std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2");
        let avx512vl =
            std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512vl");
        base.then_some(Avx2Bmi2 { avx512vl })
    }
}

/// Absorbs `blocks` into `state` (FIPS 180-4 section 6.4.2).
#[inline]
pub(crate) fn sha512_compress(token: Avx2Bmi2, state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    if token.avx512vl {
        // SAFETY: the token proves AVX2, BMI1, BMI2 and (this flag) AVX-512F/VL.
        unsafe { blocks_avx512vl(state, blocks) }
    } else {
        // SAFETY: the token proves the CPU has AVX2, BMI1 and BMI2.
        unsafe { blocks_avx2(state, blocks) }
    }
}

/// σ0 of (4.12), `ROTR^1 ^ ROTR^8 ^ SHR^7`, and σ1 of (4.13), `ROTR^19 ^ ROTR^61 ^
/// SHR^6`, on four words.
trait SmallSigmas {
    /// σ0 on each 64-bit lane.
    unsafe fn sigma0(x: __m256i) -> __m256i;
    /// σ1 on each 64-bit lane.
    unsafe fn sigma1(x: __m256i) -> __m256i;
}

/// AVX2: each rotation is two shifts and an OR (LLVM turns the rotation by 8 into a
/// byte shuffle).
struct ShiftSigmas;

impl SmallSigmas for ShiftSigmas {
    #[inline(always)]
    unsafe fn sigma0(x: __m256i) -> __m256i {
        // SAFETY: shifts and XORs on registers; the caller has AVX2.
        unsafe {
            let r1 = _mm256_or_si256(_mm256_srli_epi64(x, 1), _mm256_slli_epi64(x, 63));
            let r8 = _mm256_or_si256(_mm256_srli_epi64(x, 8), _mm256_slli_epi64(x, 56));
            _mm256_xor_si256(_mm256_xor_si256(r1, r8), _mm256_srli_epi64(x, 7))
        }
    }

    #[inline(always)]
    unsafe fn sigma1(x: __m256i) -> __m256i {
        // SAFETY: shifts and XORs on registers; the caller has AVX2.
        unsafe {
            let r19 = _mm256_or_si256(_mm256_srli_epi64(x, 19), _mm256_slli_epi64(x, 45));
            let r61 = _mm256_or_si256(_mm256_srli_epi64(x, 61), _mm256_slli_epi64(x, 3));
            _mm256_xor_si256(_mm256_xor_si256(r19, r61), _mm256_srli_epi64(x, 6))
        }
    }
}

/// AVX-512VL: `vprorq` rotations and one `vpternlogq` for the three-way XOR: four
/// instructions for each σ instead of eight.
struct RotateSigmas;

/// The `vpternlogq` truth table of `a ^ b ^ c`.
const XOR3: i32 = 0x96;

impl SmallSigmas for RotateSigmas {
    #[inline(always)]
    unsafe fn sigma0(x: __m256i) -> __m256i {
        // SAFETY: register operations; the caller has AVX-512F and AVX-512VL.
        unsafe {
            _mm256_ternarylogic_epi64::<XOR3>(
                _mm256_ror_epi64::<1>(x),
                _mm256_ror_epi64::<8>(x),
                _mm256_srli_epi64::<7>(x),
            )
        }
    }

    #[inline(always)]
    unsafe fn sigma1(x: __m256i) -> __m256i {
        // SAFETY: register operations; the caller has AVX-512F and AVX-512VL.
        unsafe {
            _mm256_ternarylogic_epi64::<XOR3>(
                _mm256_ror_epi64::<19>(x),
                _mm256_ror_epi64::<61>(x),
                _mm256_srli_epi64::<6>(x),
            )
        }
    }
}

#[target_feature(enable = "avx2,bmi1,bmi2")]
unsafe fn blocks_avx2(state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    // SAFETY: this function has the features `two_blocks_avx2` needs.
    blocks_in_pairs(state, blocks, |s, b0, b1, both| unsafe { two_blocks_avx2(s, b0, b1, both) });
}

#[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512vl")]
unsafe fn blocks_avx512vl(state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    // SAFETY: this function has the features `two_blocks_avx512vl` needs.
    blocks_in_pairs(state, blocks, |s, b0, b1, both| unsafe {
        two_blocks_avx512vl(s, b0, b1, both)
    });
}

/// Feeds the blocks to `two` two at a time, then a last odd one with itself as the
/// partner (its second lane's rounds are skipped: `both` is false).
#[inline(always)]
fn blocks_in_pairs(
    state: &mut [u64; 8],
    blocks: &[[u8; 128]],
    mut two: impl FnMut(&mut [u64; 8], &[u8; 128], &[u8; 128], bool),
) {
    let mut pairs = blocks.chunks_exact(2);
    for pair in &mut pairs {
        two(state, &pair[0], &pair[1], true);
    }
    if let [last] = pairs.remainder() {
        two(state, last, last, false);
    }
}

/// Defines `$name`, compiled with `$features`, using `$sigmas` for the schedule's σ0/σ1:
/// the same body for the AVX2 and the AVX-512VL variants (closures inside inherit the
/// function's target features, which a generic `#[inline(always)]` body would not give
/// them).
macro_rules! two_blocks_fn {
    ($name:ident, $features:literal, $sigmas:ty) => {
        /// Compresses `b0` then (if `both`) `b1` into `state`. The schedules of the two blocks
        /// are computed together, one block per 128-bit lane of each vector (so the vector work
        /// per block halves, as in OpenSSL's AVX2 code), interleaved with the rounds of `b0`;
        /// the rounds of `b1` then run from the stored schedule alone.
        #[target_feature(enable = $features)]
        unsafe fn $name(state: &mut [u64; 8], b0: &[u8; 128], b1: &[u8; 128], both: bool) {
            type S = $sigmas;
            let k = &crate::arch::sha2_constants::SHA512_K;
            // SAFETY: for the whole body: 16-byte unaligned loads from the two 128-byte blocks at
            // offsets 16 i (i < 8) and from the 80-word constant table at word offsets 2 p
            // (p < 40); 32-byte unaligned stores into entries p < 40 of `wk`; the rounds read
            // `wk` within the bounds `rounds16_asm` documents; the intrinsics need AVX2 (and
            // AVX-512VL for `RotateSigmas`), which every caller is compiled with.
            unsafe {
                // Byte-reverse each 64-bit lane: the message words are big-endian.
                let bswap = _mm256_broadcastsi128_si256(_mm_set_epi64x(
                    0x0809_0a0b_0c0d_0e0f,
                    0x0001_0203_0405_0607,
                ));
                // Every entry is written (8 here, 32 by the steps below) before any round reads
                // it; zeroing the 1280 bytes first would cost 40 stores a block pair.
                let mut wk = core::mem::MaybeUninit::<PairSchedule>::uninit();
                let wk_ptr = wk.as_mut_ptr().cast::<[u64; 4]>();
                // x[i]: the words W[t - 16 + 2i], W[t - 15 + 2i] of both blocks (b0 low lane).
                let mut x = [_mm256_setzero_si256(); 8];
                for (i, xi) in x.iter_mut().enumerate() {
                    let lo = _mm_loadu_si128(b0.as_ptr().add(16 * i).cast());
                    let hi = _mm_loadu_si128(b1.as_ptr().add(16 * i).cast());
                    *xi = _mm256_shuffle_epi8(_mm256_set_m128i(hi, lo), bswap);
                    let kv =
                        _mm256_broadcastsi128_si256(_mm_loadu_si128(k.as_ptr().add(2 * i).cast()));
                    _mm256_storeu_si256(wk_ptr.add(i).cast(), _mm256_add_epi64(*xi, kv));
                }
                let mut s = *state;
                let mut carry = [0, s[1] ^ s[2], s[5]];
                for g in 0..4 {
                    // While rounds 16g.. run, schedule the words 16(g + 1).. into entries
                    // 8(g + 1) + i.
                    let step = |i: usize| {
                        // W[t-15], W[t-14] straddle pairs i and i + 1; W[t-7], W[t-6] straddle
                        // pairs i + 4 and i + 5; W[t-2], W[t-1] are pair i - 1.
                        let w15 = _mm256_alignr_epi8(x[(i + 1) % 8], x[i], 8);
                        let w7 = _mm256_alignr_epi8(x[(i + 5) % 8], x[(i + 4) % 8], 8);
                        let w2 = x[(i + 7) % 8];
                        let sum = _mm256_add_epi64(_mm256_add_epi64(x[i], S::sigma0(w15)), w7);
                        x[i] = _mm256_add_epi64(sum, S::sigma1(w2));
                        let p = 8 * (g + 1) + i;
                        let kv = _mm256_broadcastsi128_si256(_mm_loadu_si128(
                            k.as_ptr().add(2 * p).cast(),
                        ));
                        _mm256_storeu_si256(wk_ptr.add(p).cast(), _mm256_add_epi64(x[i], kv));
                    };
                    rounds16_asm(&mut s, &mut carry, wk_ptr.cast::<u8>().add(256 * g), step);
                }
                rounds16_asm(&mut s, &mut carry, wk_ptr.cast::<u8>().add(256 * 4), |_| {});
                // The last round's Σ0 is still owed to `a`.
                s[0] = s[0].wrapping_add(carry[0]);
                for (h, v) in state.iter_mut().zip(s) {
                    *h = h.wrapping_add(v);
                }
                if both {
                    block_rounds(state, wk.assume_init_ref(), true);
                }
            }
        }
    };
}

two_blocks_fn!(two_blocks_avx2, "avx2,bmi1,bmi2", ShiftSigmas);
two_blocks_fn!(two_blocks_avx512vl, "avx2,bmi1,bmi2,avx512f,avx512vl", RotateSigmas);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::sha512_portable;

    #[test]
    fn kernel_matches_the_portable_code() {
        let Some(token) = Avx2Bmi2::detect() else { return };
        let mut x = crate::test_rng::XorShift64(0x0123_4567_89ab_cdef);
        let mut next = || x.next_u64();
        for nblocks in [1usize, 2, 3, 4, 5, 8] {
            let data: Vec<u8> = (0..128 * nblocks).map(|_| next() as u8).collect();
            let blocks = data.as_chunks::<128>().0;
            let init: [u64; 8] = core::array::from_fn(|_| next());
            let mut slow = init;
            sha512_portable(&mut slow, blocks);
            // The AVX-512VL schedule where the CPU has it, and the AVX2 one always (the
            // detected token minus the AVX-512VL flag still proves AVX2/BMI1/BMI2).
            for variant in [token, Avx2Bmi2 { avx512vl: false }] {
                let mut fast = init;
                sha512_compress(variant, &mut fast, blocks);
                assert_eq!(fast, slow, "{nblocks} blocks, {variant:?}");
            }
        }
    }
}
