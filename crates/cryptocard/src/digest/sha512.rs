//! SHA-384, SHA-512, SHA-512/224 and SHA-512/256 (FIPS 180-4 sections 6.4-6.7).
//!
//! The algorithm: padding and a 128-bit big-endian bit length (section 5.1.2, in
//! [`super::buffer`]); per 128-byte block the schedule
//! `W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]` (section 6.4.2 step 1) and 80
//! rounds with the 64-bit `Σ0`, `Σ1`, `σ0`, `σ1`, `Ch`, `Maj` of section 4.1.3 and the
//! constants `K` of section 4.2.3 (the first 64 bits of the fractional parts of the cube
//! roots of the first 80 primes). The four variants differ only in the initial value
//! (sections 5.3.4-5.3.6) and in how much of the final state they output.
//!
//! Speed: on x86-64 with AVX2 and BMI2 the blocks go to `arch::x86_64::sha512`
//! (the schedule of two blocks at a time in vector registers, the rounds in assembly
//! with `rorx`/`andn`, and AVX-512VL's rotations in the schedule where present), level
//! with OpenSSL's AVX2 code. This portable code, the reference it is tested against,
//! runs the schedule sixteen words ahead into a small array and the rounds eight at a
//! time with the names rotated.

use super::buffer::BlockCompress;
use super::kernels::ShaAccel;
use crate::arch::sha2_constants::SHA512_K as K;

/// SHA-384/512 block size in bytes (1024 bits, FIPS 180-4 section 1).
pub const SHA512_BLOCK_LEN: usize = 128;
/// SHA-512 digest size in bytes.
pub const SHA512_OUTPUT_LEN: usize = 64;
/// SHA-384 digest size in bytes.
pub const SHA384_OUTPUT_LEN: usize = 48;
/// SHA-512/256 digest size in bytes.
pub const SHA512_256_OUTPUT_LEN: usize = 32;
/// SHA-512/224 digest size in bytes.
pub const SHA512_224_OUTPUT_LEN: usize = 28;

/// SHA-512 H(0) (FIPS 180-4 section 5.3.5).
const IV512: [u64; 8] = [
    0x6a09_e667_f3bc_c908,
    0xbb67_ae85_84ca_a73b,
    0x3c6e_f372_fe94_f82b,
    0xa54f_f53a_5f1d_36f1,
    0x510e_527f_ade6_82d1,
    0x9b05_688c_2b3e_6c1f,
    0x1f83_d9ab_fb41_bd6b,
    0x5be0_cd19_137e_2179,
];
/// SHA-384 H(0) (FIPS 180-4 section 5.3.4).
const IV384: [u64; 8] = [
    0xcbbb_9d5d_c105_9ed8,
    0x629a_292a_367c_d507,
    0x9159_015a_3070_dd17,
    0x152f_ecd8_f70e_5939,
    0x6733_2667_ffc0_0b31,
    0x8eb4_4a87_6858_1511,
    0xdb0c_2e0d_64f9_8fa7,
    0x47b5_481d_befa_4fa4,
];
/// SHA-512/224 H(0) (FIPS 180-4 section 5.3.6.1).
const IV512_224: [u64; 8] = [
    0x8c3d_37c8_1954_4da2,
    0x73e1_9966_89dc_d4d6,
    0x1dfa_b7ae_32ff_9c82,
    0x679d_d514_582f_9fcf,
    0x0f6d_2b69_7bd4_4da8,
    0x77e3_6f73_04c4_8942,
    0x3f9d_85a8_6a1d_36c8,
    0x1112_e6ad_91d6_92a1,
];
/// SHA-512/256 H(0) (FIPS 180-4 section 5.3.6.2).
const IV512_256: [u64; 8] = [
    0x2231_2194_fc2b_f72c,
    0x9f55_5fa3_c84c_64c2,
    0x2393_b86b_6f53_b151,
    0x9638_7719_5940_eabd,
    0x9628_3ee2_a88e_ffe3,
    0xbe5e_1e25_5386_3992,
    0x2b01_99fc_2c85_b8aa,
    0x0eb7_2ddc_81c5_2ca2,
];

/// The SHA-512 chaining value and the kernel that compresses into it.
#[derive(Clone, zeroize::Zeroize)]
pub(crate) struct Sha512Core {
    state: [u64; 8],
    #[zeroize(skip)]
    accel: ShaAccel,
}

impl Sha512Core {
    fn accelerated(&self) -> bool {
        self.accel.uses_avx2()
    }
}

impl BlockCompress<SHA512_BLOCK_LEN> for Sha512Core {
    #[inline]
    fn compress(&mut self, blocks: &[[u8; SHA512_BLOCK_LEN]]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(token) = self.accel.avx2 {
            crate::arch::x86_64::sha512::sha512_compress(token, &mut self.state, blocks);
            return;
        }
        compress_portable(&mut self.state, blocks);
    }
}

/// One round of section 6.4.2 step 3 on renamed variables (places): the caller rotates
/// the names instead of moving eight words. `$kw` is `K[t] + W[t]`.
macro_rules! round {
    ($a:expr, $b:expr, $c:expr, $d:expr, $e:expr, $f:expr, $g:expr, $h:expr, $kw:expr) => {
        // T1 = h + K + W + Ch(e,f,g) + Σ1(e) (4.8, 4.10); Σ1 is the deepest term (three
        // levels), so everything else is summed first, and the new e is formed as
        // (d + h + K + W + Ch) + Σ1 rather than d + T1: four levels from e to e, not five.
        let ch = $g ^ ($e & ($f ^ $g));
        let pre = $h.wrapping_add($kw).wrapping_add(ch);
        let s1 = $e.rotate_right(14) ^ $e.rotate_right(18) ^ $e.rotate_right(41);
        // T2 = Σ0(a) + Maj(a,b,c) (4.9, 4.11), Maj written as (a & b) | (c & (a | b)).
        let t2 = ($a.rotate_right(28) ^ $a.rotate_right(34) ^ $a.rotate_right(39))
            .wrapping_add(($a & $b) | ($c & ($a | $b)));
        $d = $d.wrapping_add(pre).wrapping_add(s1);
        $h = pre.wrapping_add(s1).wrapping_add(t2);
    };
}

/// Sixteen rounds of section 6.4.2 step 3 on the working variables `s` (a..h), with
/// `kw[j] = K[t + j] + W[t + j]` precomputed (by the portable schedule below or a vector
/// kernel in `arch`). Sixteen is a multiple of eight, so the renamed variables end where
/// they started.
#[inline(always)]
pub(crate) fn rounds16(s: &mut [u64; 8], kw: &[u64; 16]) {
    let [a, b, c, d, e, f, g, h] = s;
    macro_rules! eight {
        ($j:literal) => {
            round!(*a, *b, *c, *d, *e, *f, *g, *h, kw[$j]);
            round!(*h, *a, *b, *c, *d, *e, *f, *g, kw[$j + 1]);
            round!(*g, *h, *a, *b, *c, *d, *e, *f, kw[$j + 2]);
            round!(*f, *g, *h, *a, *b, *c, *d, *e, kw[$j + 3]);
            round!(*e, *f, *g, *h, *a, *b, *c, *d, kw[$j + 4]);
            round!(*d, *e, *f, *g, *h, *a, *b, *c, kw[$j + 5]);
            round!(*c, *d, *e, *f, *g, *h, *a, *b, kw[$j + 6]);
            round!(*b, *c, *d, *e, *f, *g, *h, *a, kw[$j + 7]);
        };
    }
    eight!(0);
    eight!(8);
}

/// The SHA-512 compression function in portable Rust (FIPS 180-4 section 6.4.2):
/// `blocks` in order into `state`.
///
/// The schedule (step 1) runs sixteen words ahead of the rounds in a 16-word ring:
/// `W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]` with σ0, σ1 of (4.12), (4.13);
/// `K[t] + W[t]` goes to a small array the rounds read, which keeps the rounds' eight
/// variables in registers and the constants out of their critical path.
#[inline(always)]
pub(crate) fn compress_portable(state: &mut [u64; 8], blocks: &[[u8; SHA512_BLOCK_LEN]]) {
    for block in blocks {
        let mut w = [0u64; 16];
        for (wt, chunk) in w.iter_mut().zip(block.as_chunks::<8>().0) {
            *wt = u64::from_be_bytes(*chunk);
        }
        let mut s = *state;
        let mut kw = [0u64; 16];
        for base in (0..80).step_by(16) {
            if base > 0 {
                // Slot j of the ring holds W[t - 16] for t = base + j.
                macro_rules! schedule {
                    ($($j:literal)*) => {$(
                        let w15 = w[($j + 1) % 16];
                        let w2 = w[($j + 14) % 16];
                        let s0 = w15.rotate_right(1) ^ w15.rotate_right(8) ^ (w15 >> 7);
                        let s1 = w2.rotate_right(19) ^ w2.rotate_right(61) ^ (w2 >> 6);
                        let w7 = w[($j + 9) % 16];
                        w[$j] = w[$j].wrapping_add(s0).wrapping_add(w7).wrapping_add(s1);
                    )*};
                }
                schedule!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
            }
            for j in 0..16 {
                kw[j] = K[base + j].wrapping_add(w[j]);
            }
            rounds16(&mut s, &kw);
        }
        for (h, v) in state.iter_mut().zip(s) {
            *h = h.wrapping_add(v);
        }
    }
}

super::md_hasher!(
    /// SHA-512 hasher (FIPS 180-4 section 6.4).
    Sha512, "SHA-512", core: Sha512Core, block: SHA512_BLOCK_LEN, out: SHA512_OUTPUT_LEN,
    init: |kernels| Sha512Core { state: IV512, accel: ShaAccel::new(kernels) },
    set_iv: |core| core.state = IV512,
    length: |bits| bits.to_be_bytes(),
    digest: |core| super::hasher_macros::words64_be(&core.state),
);

super::md_hasher!(
    /// SHA-384 hasher (FIPS 180-4 section 6.5): SHA-512 from its own initial value,
    /// truncated to 384 bits.
    Sha384, "SHA-384", core: Sha512Core, block: SHA512_BLOCK_LEN, out: SHA384_OUTPUT_LEN,
    init: |kernels| Sha512Core { state: IV384, accel: ShaAccel::new(kernels) },
    set_iv: |core| core.state = IV384,
    length: |bits| bits.to_be_bytes(),
    digest: |core| super::hasher_macros::words64_be(&core.state),
);

super::md_hasher!(
    /// SHA-512/224 hasher (FIPS 180-4 section 6.7): SHA-512 from the initial value of
    /// section 5.3.6.1, truncated to 224 bits.
    Sha512_224, "SHA-512/224",
    core: Sha512Core, block: SHA512_BLOCK_LEN, out: SHA512_224_OUTPUT_LEN,
    init: |kernels| Sha512Core { state: IV512_224, accel: ShaAccel::new(kernels) },
    set_iv: |core| core.state = IV512_224,
    length: |bits| bits.to_be_bytes(),
    digest: |core| super::hasher_macros::words64_be(&core.state),
);

super::md_hasher!(
    /// SHA-512/256 hasher (FIPS 180-4 section 6.7): SHA-512 from the initial value of
    /// section 5.3.6.2, truncated to 256 bits.
    Sha512_256, "SHA-512/256",
    core: Sha512Core, block: SHA512_BLOCK_LEN, out: SHA512_256_OUTPUT_LEN,
    init: |kernels| Sha512Core { state: IV512_256, accel: ShaAccel::new(kernels) },
    set_iv: |core| core.state = IV512_256,
    length: |bits| bits.to_be_bytes(),
    digest: |core| super::hasher_macros::words64_be(&core.state),
);
