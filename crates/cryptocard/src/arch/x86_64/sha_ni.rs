//! SHA-1 and SHA-256 block compression with the Intel SHA extensions.
//!
//! `sha256rnds2` does two SHA-256 rounds on the state held as two vectors, `ABEF` and
//! `CDGH`; `sha256msg1`/`sha256msg2` compute the σ0 and σ1 halves of the message schedule
//! (FIPS 180-4 section 6.2.2 step 1) four words at a time. `sha1rnds4` does four SHA-1
//! rounds on `ABCD` with the round function chosen by an immediate (0: Ch, 1: Parity,
//! 2: Maj, 3: Parity; section 4.1.1), `sha1nexte` adds the rotated `E` into the next four
//! schedule words, and `sha1msg1`/`sha1msg2` compute the schedule. The instruction
//! sequences follow Intel's "New Instructions Supporting the Secure Hash Algorithm on
//! Intel Architecture Processors" (Gulley et al., 2013), written with intrinsics.
//!
//! Contracts: each function takes the chaining value in the FIPS word order (`H0` first)
//! and any number of whole 64-byte blocks, which it reads in order; nothing is written
//! but the state. The portable twins are `digest::sha1::compress_portable` and
//! `digest::sha256::compress_portable`, the reference the tests hold these to.
//!
//! The dependency chain through `sha256rnds2`/`sha1rnds4` bounds both; the schedule runs
//! beside it. Both run level with OpenSSL's SHA-NI code (the `sha1` and `sha256` rows of
//! `docs/performance.md`).

use super::cpu::ShaNi;
use core::arch::x86_64::*;

/// The SHA-256 round constants, FIPS 180-4 section 4.2.2.
use crate::arch::sha2_constants::SHA256_K as K256;

/// SHA-1: absorbs `blocks` into `state` (FIPS 180-4 section 6.1.2).
#[inline]
pub(crate) fn sha1_compress(_token: ShaNi, state: &mut [u32; 5], blocks: &[[u8; 64]]) {
    // SAFETY: the token proves the CPU has SHA, SSE2, SSSE3 and SSE4.1 (`ShaNi::detect`).
    unsafe { sha1_blocks(state, blocks) }
}

/// SHA-256: absorbs `blocks` into `state` (FIPS 180-4 section 6.2.2).
#[inline]
pub(crate) fn sha256_compress(_token: ShaNi, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    // SAFETY: the token proves the CPU has SHA, SSE2, SSSE3 and SSE4.1 (`ShaNi::detect`).
    unsafe { sha256_blocks(state, blocks) }
}

/// Loads 16 message bytes as four big-endian words, `W[i]` in the highest lane (the order
/// `sha1rnds4` wants).
#[inline(always)]
unsafe fn load_be_sha1(p: &[u8; 64], i: usize) -> __m128i {
    // SAFETY: `i < 4`, so the 16 bytes at `p[16 i..]` are in bounds; `loadu` needs no
    // alignment. The caller has SSSE3.
    unsafe {
        let v = _mm_loadu_si128(p.as_ptr().add(16 * i).cast());
        _mm_shuffle_epi8(v, _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f))
    }
}

/// Four SHA-1 rounds, group `$i` of 20: `$m` are the four schedule vectors, `$e` the two
/// `E` vectors that alternate. The schedule work is interleaved exactly as Intel's
/// reference: `msg2` finishes the words of the next group, `msg1` and the XOR start those
/// two and three groups ahead.
macro_rules! sha1_group {
    ($i:literal, $f:literal, $abcd:ident, $m:ident, $e:ident) => {{
        let cur = $i % 2;
        $e[cur] = _mm_sha1nexte_epu32($e[cur], $m[$i % 4]);
        $e[1 - cur] = $abcd;
        if $i >= 3 && $i <= 18 {
            $m[($i + 1) % 4] = _mm_sha1msg2_epu32($m[($i + 1) % 4], $m[$i % 4]);
        }
        $abcd = _mm_sha1rnds4_epu32::<$f>($abcd, $e[cur]);
        if $i <= 16 {
            $m[($i + 3) % 4] = _mm_sha1msg1_epu32($m[($i + 3) % 4], $m[$i % 4]);
        }
        if $i >= 2 && $i <= 17 {
            $m[($i + 2) % 4] = _mm_xor_si128($m[($i + 2) % 4], $m[$i % 4]);
        }
    }};
}

// The schedule macros assign vectors the last groups no longer read; the dead stores
// vanish in codegen.
#[allow(unused_assignments)]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
unsafe fn sha1_blocks(state: &mut [u32; 5], blocks: &[[u8; 64]]) {
    // SAFETY: for the whole body: the loads and stores touch `state` (20 bytes: a 16-byte
    // unaligned load/store of words 0-3 plus word 4 by value) and whole blocks only; the
    // intrinsics need the features this function is compiled with.
    unsafe {
        let mut abcd = _mm_shuffle_epi32(_mm_loadu_si128(state.as_ptr().cast()), 0x1b);
        let mut e0 = _mm_set_epi32(state[4] as i32, 0, 0, 0);
        for block in blocks {
            let (abcd_save, e_save) = (abcd, e0);
            let mut m = [_mm_setzero_si128(); 4];
            let mut e = [e0, _mm_setzero_si128()];
            // Group 0: E is added plainly (no rotation for the first group).
            m[0] = load_be_sha1(block, 0);
            e[0] = _mm_add_epi32(e[0], m[0]);
            e[1] = abcd;
            abcd = _mm_sha1rnds4_epu32::<0>(abcd, e[0]);
            m[1] = load_be_sha1(block, 1);
            m[2] = load_be_sha1(block, 2);
            m[3] = load_be_sha1(block, 3);
            sha1_group!(1, 0, abcd, m, e);
            sha1_group!(2, 0, abcd, m, e);
            sha1_group!(3, 0, abcd, m, e);
            sha1_group!(4, 0, abcd, m, e);
            sha1_group!(5, 1, abcd, m, e);
            sha1_group!(6, 1, abcd, m, e);
            sha1_group!(7, 1, abcd, m, e);
            sha1_group!(8, 1, abcd, m, e);
            sha1_group!(9, 1, abcd, m, e);
            sha1_group!(10, 2, abcd, m, e);
            sha1_group!(11, 2, abcd, m, e);
            sha1_group!(12, 2, abcd, m, e);
            sha1_group!(13, 2, abcd, m, e);
            sha1_group!(14, 2, abcd, m, e);
            sha1_group!(15, 3, abcd, m, e);
            sha1_group!(16, 3, abcd, m, e);
            sha1_group!(17, 3, abcd, m, e);
            sha1_group!(18, 3, abcd, m, e);
            sha1_group!(19, 3, abcd, m, e);
            // After group 19 (odd), e[0] holds ABCD from before it: its A rotated is the
            // final E, added to the saved one.
            e0 = _mm_sha1nexte_epu32(e[0], e_save);
            abcd = _mm_add_epi32(abcd, abcd_save);
        }
        _mm_storeu_si128(state.as_mut_ptr().cast(), _mm_shuffle_epi32(abcd, 0x1b));
        state[4] = _mm_extract_epi32(e0, 3) as u32;
    }
}

/// Four SHA-256 rounds, group `$i` of 16, with the schedule for later groups interleaved
/// (Intel's order): `msg2` completes the next group's words, `msg1` starts the words three
/// groups ahead.
macro_rules! sha256_group {
    ($i:literal, $s0:ident, $s1:ident, $m:ident) => {{
        let k = _mm_loadu_si128(K256.as_ptr().add(4 * $i).cast());
        let mut wk = _mm_add_epi32($m[$i % 4], k);
        $s1 = _mm_sha256rnds2_epu32($s1, $s0, wk);
        if $i >= 3 && $i <= 14 {
            let t = _mm_alignr_epi8($m[$i % 4], $m[($i + 3) % 4], 4);
            $m[($i + 1) % 4] = _mm_add_epi32($m[($i + 1) % 4], t);
            $m[($i + 1) % 4] = _mm_sha256msg2_epu32($m[($i + 1) % 4], $m[$i % 4]);
        }
        wk = _mm_shuffle_epi32(wk, 0x0e);
        $s0 = _mm_sha256rnds2_epu32($s0, $s1, wk);
        if $i >= 1 && $i <= 12 {
            $m[($i + 3) % 4] = _mm_sha256msg1_epu32($m[($i + 3) % 4], $m[$i % 4]);
        }
    }};
}

// The schedule macros assign vectors the last groups no longer read; the dead stores
// vanish in codegen.
#[allow(unused_assignments)]
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
unsafe fn sha256_blocks(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    // SAFETY: for the whole body: the loads and stores touch the 32 bytes of `state`, whole
    // 64-byte blocks and the 256-byte constant table (`4 i + 3 < 64`); all unaligned; the
    // intrinsics need the features this function is compiled with.
    unsafe {
        // Byte-swap each 32-bit word (the message is big-endian).
        let bswap = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);
        // State words A..H to the ABEF / CDGH halves `sha256rnds2` works on.
        let dcba = _mm_shuffle_epi32(_mm_loadu_si128(state.as_ptr().cast()), 0xb1);
        let hgfe = _mm_shuffle_epi32(_mm_loadu_si128(state.as_ptr().add(4).cast()), 0x1b);
        let mut s0 = _mm_alignr_epi8(dcba, hgfe, 8);
        let mut s1 = _mm_blend_epi16(hgfe, dcba, 0xf0);
        for block in blocks {
            let (save0, save1) = (s0, s1);
            let mut m = [_mm_setzero_si128(); 4];
            for (i, mi) in m.iter_mut().enumerate() {
                *mi = _mm_shuffle_epi8(_mm_loadu_si128(block.as_ptr().add(16 * i).cast()), bswap);
            }
            sha256_group!(0, s0, s1, m);
            sha256_group!(1, s0, s1, m);
            sha256_group!(2, s0, s1, m);
            sha256_group!(3, s0, s1, m);
            sha256_group!(4, s0, s1, m);
            sha256_group!(5, s0, s1, m);
            sha256_group!(6, s0, s1, m);
            sha256_group!(7, s0, s1, m);
            sha256_group!(8, s0, s1, m);
            sha256_group!(9, s0, s1, m);
            sha256_group!(10, s0, s1, m);
            sha256_group!(11, s0, s1, m);
            sha256_group!(12, s0, s1, m);
            sha256_group!(13, s0, s1, m);
            sha256_group!(14, s0, s1, m);
            sha256_group!(15, s0, s1, m);
            s0 = _mm_add_epi32(s0, save0);
            s1 = _mm_add_epi32(s1, save1);
        }
        // ABEF / CDGH back to A..H.
        let feba = _mm_shuffle_epi32(s0, 0x1b);
        let dchg = _mm_shuffle_epi32(s1, 0xb1);
        let abcd = _mm_blend_epi16(feba, dchg, 0xf0);
        let efgh = _mm_alignr_epi8(dchg, feba, 8);
        _mm_storeu_si128(state.as_mut_ptr().cast(), abcd);
        _mm_storeu_si128(state.as_mut_ptr().add(4).cast(), efgh);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::{sha1_portable, sha256_portable};

    /// Deterministic test bytes (xorshift), no dependency on the code under test.
    fn bytes(n: usize, seed: u64) -> Vec<u8> {
        let mut x = crate::test_rng::XorShift64(seed | 1);
        (0..n).map(|_| x.next_u64() as u8).collect()
    }

    #[test]
    fn kernels_match_the_portable_code() {
        let Some(token) = ShaNi::detect() else { return };
        for nblocks in [1usize, 2, 3, 7, 16] {
            for seed in 1..6u64 {
                let data = bytes(64 * nblocks, seed * 977 + nblocks as u64);
                let blocks = data.as_chunks::<64>().0;
                let init = bytes(32, seed);
                let mut s256: [u32; 8] = core::array::from_fn(|i| {
                    u32::from_le_bytes(init[4 * i..4 * i + 4].try_into().unwrap())
                });
                let mut r256 = s256;
                sha256_compress(token, &mut s256, blocks);
                sha256_portable(&mut r256, blocks);
                assert_eq!(s256, r256, "sha256 {nblocks} blocks, seed {seed}");
                let mut s1: [u32; 5] = core::array::from_fn(|i| r256[i]);
                let mut r1 = s1;
                sha1_compress(token, &mut s1, blocks);
                sha1_portable(&mut r1, blocks);
                assert_eq!(s1, r1, "sha1 {nblocks} blocks, seed {seed}");
            }
        }
    }
}
