//! SHA-384/512 block compression with an AVX2 message schedule and BMI2 rounds.
//!
//! The shape of OpenSSL's `sha512-x86_64` AVX2 path: the schedule of FIPS 180-4 section
//! 6.4.2 step 1, `W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]`, runs in vector
//! registers two words at a time (the recurrence reaches back only two words, so a pair
//! is the widest step), sixteen words ahead of the rounds, and stores `K[t] + W[t]` for
//! them; the rounds run in general registers, compiled with BMI2 so each rotation is one
//! non-destructive `rorx`. The vector and scalar halves use different execution units,
//! and being independent they overlap in the out-of-order window.
//!
//! Contract: `sha512_compress` takes the chaining value (`H0` first) and whole 128-byte
//! blocks, read in order; it writes only the state. The portable twin is
//! `digest::sha512::compress_portable`, whose round function (`rounds16`) this kernel
//! shares, and against which it is tested.

use core::arch::asm;
use core::arch::x86_64::*;

/// AVX2, BMI1 and BMI2: the vector schedule, `andn` and `rorx`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2Bmi2 {
    _proof: (),
}

impl Avx2Bmi2 {
    /// The token, if this CPU has AVX2 and BMI2.
    #[inline]
    pub(crate) fn detect() -> Option<Avx2Bmi2> {
        (std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2"))
        .then_some(Avx2Bmi2 { _proof: () })
    }
}

/// Absorbs `blocks` into `state` (FIPS 180-4 section 6.4.2).
#[inline]
pub(crate) fn sha512_compress(_token: Avx2Bmi2, state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    // SAFETY: the token proves the CPU has AVX2 and BMI2 (`Avx2Bmi2::detect`).
    unsafe { sha512_blocks(state, blocks) }
}

/// σ0 of (4.12) on two words: `ROTR^1 ^ ROTR^8 ^ SHR^7`.
#[inline(always)]
unsafe fn small_sigma0(x: __m128i) -> __m128i {
    // SAFETY: shifts and XORs on registers; the caller has SSE2 (implied by AVX2).
    unsafe {
        let r1 = _mm_or_si128(_mm_srli_epi64(x, 1), _mm_slli_epi64(x, 63));
        let r8 = _mm_or_si128(_mm_srli_epi64(x, 8), _mm_slli_epi64(x, 56));
        _mm_xor_si128(_mm_xor_si128(r1, r8), _mm_srli_epi64(x, 7))
    }
}

/// σ1 of (4.13) on two words: `ROTR^19 ^ ROTR^61 ^ SHR^6`.
#[inline(always)]
unsafe fn small_sigma1(x: __m128i) -> __m128i {
    // SAFETY: shifts and XORs on registers; the caller has SSE2 (implied by AVX2).
    unsafe {
        let r19 = _mm_or_si128(_mm_srli_epi64(x, 19), _mm_slli_epi64(x, 45));
        let r61 = _mm_or_si128(_mm_srli_epi64(x, 61), _mm_slli_epi64(x, 3));
        _mm_xor_si128(_mm_xor_si128(r19, r61), _mm_srli_epi64(x, 6))
    }
}

/// One round of FIPS 180-4 section 6.4.2 step 3 in assembly, on renamed variables: on
/// return `$d` is the new `e` and `$h` the new `a`; `$bc` carries `b ^ c` in and `a ^ b`
/// out, for Maj(a,b,c) = b ^ ((a ^ b) & (b ^ c)) (the next round's `b ^ c` is this
/// round's `a ^ b`). `K[t] + W[t]` is read from `[$kw + 8 $j]`.
///
/// Written in assembly because LLVM reassociates the sums: it adds Σ1(e), the deepest
/// term, first, putting three adds between Σ1 and the new `e`. Here `h + K + W + Ch`
/// is summed while Σ1 is computed, so the new `e` is two adds after it; Ch is
/// `(e & f) + (!e & g)` (disjoint, so the OR is a sum) with BMI1 `andn`; 22 ALU
/// operations and two register copies a round, the count that bounds the speed.
macro_rules! round_asm {
    ($a:ident, $b:ident, $d:ident, $e:ident, $g:ident, $h:ident, $s0:ident, $bc:ident, $fc:ident, $kw:expr, $j:expr) => {
        // SAFETY: register arithmetic and one 8-byte load from `$kw + 8 $j`, inside the
        // caller's 16-word array (`$j < 16`); BMI1/BMI2 (`andn`, `rorx`) are guaranteed by
        // the caller's token; no stack use; flags clobbered (asm! assumes so).
        unsafe {
            asm!(
                "add {h}, qword ptr [{kw} + {off}]",
                "and {fc}, {e}",
                "rorx {t0}, {e}, 41",
                "rorx {ab}, {e}, 18",
                "add {a}, {s0}",
                "add {h}, {fc}",
                "andn {fc}, {e}, {g}",
                "xor {t0}, {ab}",
                "rorx {s0}, {e}, 14",
                "add {h}, {fc}",
                "xor {t0}, {s0}",
                "mov {ab}, {a}",
                "rorx {fc}, {a}, 39",
                "add {h}, {t0}",
                "xor {ab}, {b}",
                "rorx {s0}, {a}, 34",
                "rorx {t0}, {a}, 28",
                "add {d}, {h}",
                "and {bc}, {ab}",
                "xor {s0}, {fc}",
                "xor {bc}, {b}",
                "xor {s0}, {t0}",
                "add {h}, {bc}",
                "mov {fc}, {e}",
                a = inout(reg) $a,
                b = in(reg) $b,
                e = in(reg) $e,
                g = in(reg) $g,
                d = inout(reg) $d,
                h = inout(reg) $h,
                s0 = inout(reg) $s0,
                bc = inout(reg) $bc => _,
                ab = out(reg) $bc,
                fc = inout(reg) $fc,
                kw = in(reg) $kw,
                off = const 8 * $j,
                t0 = out(reg) _,
                options(pure, readonly, nostack),
            );
        }
    };
}

/// Sixteen rounds on the working variables `s`, with `kw[j] = K[t + j] + W[t + j]`.
/// `carry` is what one round hands the next besides the variables: Σ0 of the last `a`
/// (added to the new `a` at the start of the next round), `b ^ c`, and a copy of `f`.
#[inline(always)]
fn rounds16_asm(s: &mut [u64; 8], carry: &mut [u64; 3], kw: &[u64; 16]) {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *s;
    let [mut s0, mut bc, mut fc] = *carry;
    let p = kw.as_ptr();
    macro_rules! eight {
        ($j:literal) => {
            round_asm!(a, b, d, e, g, h, s0, bc, fc, p, $j);
            round_asm!(h, a, c, d, f, g, s0, bc, fc, p, $j + 1);
            round_asm!(g, h, b, c, e, f, s0, bc, fc, p, $j + 2);
            round_asm!(f, g, a, b, d, e, s0, bc, fc, p, $j + 3);
            round_asm!(e, f, h, a, c, d, s0, bc, fc, p, $j + 4);
            round_asm!(d, e, g, h, b, c, s0, bc, fc, p, $j + 5);
            round_asm!(c, d, f, g, a, b, s0, bc, fc, p, $j + 6);
            round_asm!(b, c, e, f, h, a, s0, bc, fc, p, $j + 7);
        };
    }
    eight!(0);
    eight!(8);
    *s = [a, b, c, d, e, f, g, h];
    *carry = [s0, bc, fc];
}

// `$i` literals make the ring indices constants; clippy's identity-op lint fires on the
// `+ 0` of the first expansion.
#[allow(clippy::identity_op)]
#[target_feature(enable = "avx2,bmi1,bmi2")]
unsafe fn sha512_blocks(state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    let k = &crate::digest::sha512_constants;
    // SAFETY (whole body): unaligned 16-byte loads from a 128-byte block at offsets
    // 16 i (i < 8) and from the 80-word constant table at word offsets < 80; unaligned
    // 16-byte stores into the 16-word `kw` array at word offsets < 16; the intrinsics
    // need AVX2/SSSE3, which this function is compiled with.
    unsafe {
        // Byte-reverse each 64-bit lane: the message words are big-endian.
        let bswap = _mm_set_epi64x(0x0809_0a0b_0c0d_0e0f, 0x0001_0203_0405_0607);
        for block in blocks {
            // x[i] holds the word pair of ring slots 2i, 2i + 1: W[t - 16 + 2i ..] for the
            // next sixteen words t.
            let mut x = [_mm_setzero_si128(); 8];
            let mut kw = [0u64; 16];
            for (i, xi) in x.iter_mut().enumerate() {
                *xi = _mm_shuffle_epi8(_mm_loadu_si128(block.as_ptr().add(16 * i).cast()), bswap);
                let kv = _mm_loadu_si128(k.as_ptr().add(2 * i).cast());
                _mm_storeu_si128(kw.as_mut_ptr().add(2 * i).cast(), _mm_add_epi64(*xi, kv));
            }
            let mut s = *state;
            // Nothing deferred yet; b ^ c and a copy of f of the initial variables.
            let mut carry = [0, s[1] ^ s[2], s[5]];
            for base in [16, 32, 48, 64] {
                // The next sixteen words, written into a second array so the rounds on
                // the current one need not wait: pair i is W[base + 2i], W[base + 2i + 1].
                let mut next = [0u64; 16];
                macro_rules! pair {
                    ($i:literal) => {
                        // W[t-15], W[t-14] straddle pairs i and i + 1; W[t-7], W[t-6]
                        // straddle pairs i + 4 and i + 5; W[t-2], W[t-1] are pair i - 1.
                        let w15 = _mm_alignr_epi8(x[($i + 1) % 8], x[$i], 8);
                        let w7 = _mm_alignr_epi8(x[($i + 5) % 8], x[($i + 4) % 8], 8);
                        let w2 = x[($i + 7) % 8];
                        let sum = _mm_add_epi64(_mm_add_epi64(x[$i], small_sigma0(w15)), w7);
                        x[$i] = _mm_add_epi64(sum, small_sigma1(w2));
                        let kv = _mm_loadu_si128(k.as_ptr().add(base + 2 * $i).cast());
                        _mm_storeu_si128(
                            next.as_mut_ptr().add(2 * $i).cast(),
                            _mm_add_epi64(x[$i], kv),
                        );
                    };
                }
                pair!(0);
                pair!(1);
                pair!(2);
                pair!(3);
                pair!(4);
                pair!(5);
                pair!(6);
                pair!(7);
                rounds16_asm(&mut s, &mut carry, &kw);
                kw = next;
            }
            rounds16_asm(&mut s, &mut carry, &kw);
            // The last round's Σ0 is still owed to `a`.
            s[0] = s[0].wrapping_add(carry[0]);
            for (h, v) in state.iter_mut().zip(s) {
                *h = h.wrapping_add(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::sha512_portable;

    #[test]
    fn kernel_matches_the_portable_code() {
        let Some(token) = Avx2Bmi2::detect() else { return };
        let mut x = 0x0123_4567_89ab_cdefu64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for nblocks in [1usize, 2, 3, 8] {
            let data: Vec<u8> = (0..128 * nblocks).map(|_| next() as u8).collect();
            let blocks = data.as_chunks::<128>().0;
            let mut fast: [u64; 8] = core::array::from_fn(|_| next());
            let mut slow = fast;
            sha512_compress(token, &mut fast, blocks);
            sha512_portable(&mut slow, blocks);
            assert_eq!(fast, slow, "{nblocks} blocks");
        }
    }
}
