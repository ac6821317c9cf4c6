//! SHA-224 and SHA-256 (FIPS 180-4 sections 6.2 and 6.3).
//!
//! The algorithm: padding and a 64-bit big-endian bit length (section 5.1.1, in
//! [`super::buffer`]); per 64-byte block the schedule
//! `W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]` (section 6.2.2 step 1) and 64
//! rounds with `Σ0`, `Σ1`, `Ch`, `Maj` (section 4.1.2) and the constants `K` of section
//! 4.2.2 (the first 32 bits of the fractional parts of the cube roots of the first 64
//! primes). SHA-224 is SHA-256 from the initial value of section 5.3.2, truncated to 224
//! bits (section 6.3).
//!
//! On x86-64 CPUs with the SHA extensions the blocks go to `arch::x86_64::sha_ni`
//! (`sha256rnds2`, `sha256msg1`, `sha256msg2`), several times faster. This portable code
//! is the reference they are tested against and the fallback elsewhere
//! (`CRYPTOCARD_DIGEST_PORTABLE=1 cryptocard speed sha256` measures it).

use super::buffer::BlockCompress;
use super::kernels::ShaAccel;
use crate::arch::sha2_constants::SHA256_K as K;

/// SHA-224/SHA-256 block size in bytes (512 bits, FIPS 180-4 section 1).
pub const SHA256_BLOCK_LEN: usize = 64;
/// SHA-256 digest size in bytes.
pub const SHA256_OUTPUT_LEN: usize = 32;
/// SHA-224 digest size in bytes.
pub const SHA224_OUTPUT_LEN: usize = 28;

/// SHA-256 H(0) (FIPS 180-4 section 5.3.3).
const IV256: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];
/// SHA-224 H(0) (FIPS 180-4 section 5.3.2).
const IV224: [u32; 8] = [
    0xc105_9ed8,
    0x367c_d507,
    0x3070_dd17,
    0xf70e_5939,
    0xffc0_0b31,
    0x6858_1511,
    0x64f9_8fa7,
    0xbefa_4fa4,
];

/// The SHA-256 chaining value and the kernel that compresses into it.
#[derive(Clone, zeroize::Zeroize)]
pub(crate) struct Sha256Core {
    state: [u32; 8],
    #[zeroize(skip)]
    accel: ShaAccel,
}

impl Sha256Core {
    fn accelerated(&self) -> bool {
        self.accel.uses_sha_ni()
    }
}

impl BlockCompress<SHA256_BLOCK_LEN> for Sha256Core {
    #[inline]
    fn compress(&mut self, blocks: &[[u8; SHA256_BLOCK_LEN]]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(token) = self.accel.sha_ni {
            crate::arch::x86_64::sha_ni::sha256_compress(token, &mut self.state, blocks);
            return;
        }
        compress_portable(&mut self.state, blocks);
    }
}

/// One round of section 6.2.2 step 3 on renamed variables: the caller rotates the names
/// instead of moving eight words. `$kw` is `K[t] + W[t]`, summed with `h` and Ch before
/// Σ1 (the deepest term) joins.
macro_rules! round {
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $kw:expr) => {
        // Σ1, Ch, Σ0, Maj of section 4.1.2 (4.2)-(4.5).
        let t1 = $h
            .wrapping_add($kw)
            .wrapping_add($g ^ ($e & ($f ^ $g)))
            .wrapping_add($e.rotate_right(6) ^ $e.rotate_right(11) ^ $e.rotate_right(25));
        let t2 = ($a.rotate_right(2) ^ $a.rotate_right(13) ^ $a.rotate_right(22))
            .wrapping_add(($a & $b) | ($c & ($a | $b)));
        $d = $d.wrapping_add(t1);
        $h = t1.wrapping_add(t2);
    };
}

/// The SHA-256 compression function in portable Rust (FIPS 180-4 section 6.2.2):
/// `blocks` in order into `state`.
///
/// Step 1 (the schedule, σ0 and σ1 of (4.6), (4.7)) fills `K[t] + W[t]` for all 64
/// rounds first; the rounds then read it from memory, eight at a time with the names
/// rotated, so the eight variables stay in registers and no constant sits on the
/// critical path.
pub(crate) fn compress_portable(state: &mut [u32; 8], blocks: &[[u8; SHA256_BLOCK_LEN]]) {
    for block in blocks {
        let mut w = [0u32; 64];
        for (wt, chunk) in w.iter_mut().zip(block.as_chunks::<4>().0) {
            *wt = u32::from_be_bytes(*chunk);
        }
        for t in 16..64 {
            let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
            let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
            w[t] = s1.wrapping_add(w[t - 7]).wrapping_add(s0).wrapping_add(w[t - 16]);
        }
        let mut kw = [0u32; 64];
        for ((x, k), wt) in kw.iter_mut().zip(K).zip(w) {
            *x = k.wrapping_add(wt);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
        for eight in kw.as_chunks::<8>().0 {
            round!(a, b, c, d, e, f, g, h, eight[0]);
            round!(h, a, b, c, d, e, f, g, eight[1]);
            round!(g, h, a, b, c, d, e, f, eight[2]);
            round!(f, g, h, a, b, c, d, e, eight[3]);
            round!(e, f, g, h, a, b, c, d, eight[4]);
            round!(d, e, f, g, h, a, b, c, eight[5]);
            round!(c, d, e, f, g, h, a, b, eight[6]);
            round!(b, c, d, e, f, g, h, a, eight[7]);
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s = s.wrapping_add(v);
        }
    }
}

super::md_hasher!(
    /// SHA-256 hasher (FIPS 180-4 section 6.2).
    Sha256, "SHA-256", core: Sha256Core, block: SHA256_BLOCK_LEN, out: SHA256_OUTPUT_LEN,
    init: |kernels| Sha256Core { state: IV256, accel: ShaAccel::new(kernels) },
    set_iv: |core| core.state = IV256,
    length: |bits| (bits as u64).to_be_bytes(),
    digest: |core| super::hasher_macros::words_be(&core.state),
);

super::md_hasher!(
    /// SHA-224 hasher (FIPS 180-4 section 6.3): SHA-256 from its own initial value,
    /// truncated to 224 bits.
    Sha224, "SHA-224", core: Sha256Core, block: SHA256_BLOCK_LEN, out: SHA224_OUTPUT_LEN,
    init: |kernels| Sha256Core { state: IV224, accel: ShaAccel::new(kernels) },
    set_iv: |core| core.state = IV224,
    length: |bits| (bits as u64).to_be_bytes(),
    digest: |core| super::hasher_macros::words_be(&core.state),
);
