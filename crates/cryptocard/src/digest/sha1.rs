//! SHA-1 (FIPS 180-4 section 6.1).
//!
//! **Legacy.** SHA-1 is broken for collision resistance: a full collision in 2017
//! (Stevens et al., "SHAttered") and chosen-prefix collisions in 2020 (Leurent and Peyrin,
//! "SHA-1 is a Shambles"). Do not use it for new signatures, certificates or anything
//! that needs collision resistance. What remains acceptable: HMAC-SHA1 and PBKDF2-HMAC-SHA1
//! (they need only the compression function's pseudorandomness; RFC 6194 section 3),
//! verifying signatures made before the break, and non-adversarial identifiers.
//!
//! The algorithm: padding and a 64-bit big-endian bit length (section 5.1.1, in
//! [`super::buffer`]); the initial value of section 5.3.1; per 64-byte block the message
//! schedule `W[t] = (W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]) <<< 1` (section 6.1.2 step 1)
//! and 80 rounds `T = (a <<< 5) + f_t(b,c,d) + e + K_t + W[t]` with `Ch`, `Parity`, `Maj`
//! and the constants of sections 4.1.1 and 4.2.1.
//!
//! On x86-64 CPUs with the SHA extensions the blocks go to `arch::x86_64::sha_ni`
//! (`sha1rnds4`, `sha1nexte`, `sha1msg1`, `sha1msg2`), several times faster. This
//! portable code is the reference they are tested against and the fallback everywhere
//! else (`CRYPTOCARD_DIGEST_PORTABLE=1 cryptocard speed sha1` measures it).

use super::buffer::BlockCompress;
use super::kernels::ShaAccel;

/// SHA-1 block size in bytes (512 bits, FIPS 180-4 section 1).
pub const SHA1_BLOCK_LEN: usize = 64;
/// SHA-1 digest size in bytes (160 bits, FIPS 180-4 section 1).
pub const SHA1_OUTPUT_LEN: usize = 20;

/// The initial hash value H(0) (FIPS 180-4 section 5.3.1).
const IV: [u32; 5] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0];
/// The round constants K_t for t in 0-19, 20-39, 40-59, 60-79 (FIPS 180-4 section 4.2.1).
const K: [u32; 4] = [0x5a82_7999, 0x6ed9_eba1, 0x8f1b_bcdc, 0xca62_c1d6];

/// The SHA-1 chaining value and the kernel that compresses into it.
#[derive(Clone, zeroize::Zeroize)]
pub(crate) struct Sha1Core {
    state: [u32; 5],
    #[zeroize(skip)]
    accel: ShaAccel,
}

impl Sha1Core {
    fn accelerated(&self) -> bool {
        self.accel.uses_sha_ni()
    }
}

impl BlockCompress<SHA1_BLOCK_LEN> for Sha1Core {
    #[inline]
    fn compress(&mut self, blocks: &[[u8; SHA1_BLOCK_LEN]]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(token) = self.accel.sha_ni {
            crate::arch::x86_64::sha_ni::sha1_compress(token, &mut self.state, blocks);
            return;
        }
        compress_portable(&mut self.state, blocks);
    }
}

/// The SHA-1 compression function in portable Rust (FIPS 180-4 section 6.1.2): `blocks`
/// in order into `state`.
pub(crate) fn compress_portable(state: &mut [u32; 5], blocks: &[[u8; SHA1_BLOCK_LEN]]) {
    for block in blocks {
        // Step 1: the schedule, kept as a 16-word ring (W[t] overwrites W[t-16]).
        let mut w = [0u32; 16];
        for (wt, chunk) in w.iter_mut().zip(block.as_chunks::<4>().0) {
            *wt = u32::from_be_bytes(*chunk);
        }
        let [mut a, mut b, mut c, mut d, mut e] = *state;
        for t in 0..80 {
            if t >= 16 {
                w[t % 16] = (w[(t - 3) % 16] ^ w[(t - 8) % 16] ^ w[(t - 14) % 16] ^ w[t % 16])
                    .rotate_left(1);
            }
            // Section 4.1.1: Ch, Parity, Maj, Parity.
            let f = match t / 20 {
                0 => d ^ (b & (c ^ d)),
                2 => (b & c) | (d & (b | c)),
                _ => b ^ c ^ d,
            };
            let tmp = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(K[t / 20])
                .wrapping_add(w[t % 16]);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = tmp;
        }
        for (h, v) in state.iter_mut().zip([a, b, c, d, e]) {
            *h = h.wrapping_add(v);
        }
    }
}

super::md_hasher!(
    /// SHA-1 hasher (FIPS 180-4). **Legacy**: see the module docs.
    Sha1, "SHA1", core: Sha1Core, block: SHA1_BLOCK_LEN, out: SHA1_OUTPUT_LEN,
    init: |kernels| Sha1Core { state: IV, accel: ShaAccel::new(kernels) },
    set_iv: |core| core.state = IV,
    length: |bits| (bits as u64).to_be_bytes(),
    digest: |core| super::hasher_macros::words_be(&core.state),
);
