//! MD4 (RFC 1320).
//!
//! **Legacy.** MD4 is thoroughly broken: collisions cost a few hash evaluations (Wang et
//! al., EUROCRYPT 2005) and second preimages are feasible for some messages (Leurent,
//! FSE 2008); RFC 6150 moved it to Historic. Use it only to interoperate with old formats
//! (NTLM password hashes, rsync, old signatures), never where collisions or preimages
//! matter.
//!
//! The algorithm (RFC 1320 section 3): the same padding and little-endian length as MD5
//! (section 3.1-3.2, in [`super::buffer`]); each 64-byte block is read as sixteen
//! little-endian words and runs three rounds of sixteen steps
//! `a = (a + f(b,c,d) + X[k] + K_r) <<< s`, with `F` (selection), `G` (majority) and `H`
//! (parity), round constants 0, √2·2^30 and √3·2^30 (section 3.4).
//!
//! Speed: as MD5 (see there), each step adds `X[k] + K` before the round function, and
//! round 2's majority is `(y & z) + (x & (y ^ z))` (disjoint terms) so only one AND and
//! one add follow the newest word. It runs level with OpenSSL's (the `md4` row of
//! `docs/performance.md`).

use super::buffer::BlockCompress;

/// MD4 block size in bytes (512 bits, RFC 1320 section 3.4).
pub const MD4_BLOCK_LEN: usize = 64;
/// MD4 digest size in bytes (128 bits, RFC 1320 section 3.5).
pub const MD4_OUTPUT_LEN: usize = 16;

/// The initial chaining value A, B, C, D (RFC 1320 section 3.3, as little-endian words).
const IV: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
/// Round 2 constant: the integer part of 2^30 · √2 (RFC 1320 section 3.4).
const K2: u32 = 0x5a82_7999;
/// Round 3 constant: the integer part of 2^30 · √3 (RFC 1320 section 3.4).
const K3: u32 = 0x6ed9_eba1;

/// The MD4 chaining value.
#[derive(Clone, zeroize::Zeroize)]
pub(crate) struct Md4Core {
    state: [u32; 4],
}

impl Md4Core {
    /// MD4 has no accelerated kernel.
    fn accelerated(&self) -> bool {
        false
    }
}

impl BlockCompress<MD4_BLOCK_LEN> for Md4Core {
    #[inline]
    fn compress(&mut self, blocks: &[[u8; MD4_BLOCK_LEN]]) {
        for block in blocks {
            compress_block(&mut self.state, block);
        }
    }
}

/// The MD4 compression function: one 64-byte block into `state` (RFC 1320 section 3.4).
#[inline]
fn compress_block(state: &mut [u32; 4], block: &[u8; MD4_BLOCK_LEN]) {
    let mut x = [0u32; 16];
    for (w, chunk) in x.iter_mut().zip(block.as_chunks::<4>().0) {
        *w = u32::from_le_bytes(*chunk);
    }
    // The round constants through an opaque reference, so that LLVM does not move the
    // `+ K` after the round function (see `md5::compress_block`).
    let [k2, k3] = *core::hint::black_box(&[K2, K3]);
    let [mut a, mut b, mut c, mut d] = *state;
    // Each step adds `X[k] + K` to `a` before the round function, which reads the newest
    // word and so is on the critical path; it is added last.
    // Round 1, F(x,y,z) = xy | ~x z = z ^ (x & (y ^ z)); shifts 3, 7, 11, 19.
    for k in [0, 4, 8, 12] {
        a = a.wrapping_add(x[k]).wrapping_add(d ^ (b & (c ^ d))).rotate_left(3);
        d = d.wrapping_add(x[k + 1]).wrapping_add(c ^ (a & (b ^ c))).rotate_left(7);
        c = c.wrapping_add(x[k + 2]).wrapping_add(b ^ (d & (a ^ b))).rotate_left(11);
        b = b.wrapping_add(x[k + 3]).wrapping_add(a ^ (c & (d ^ a))).rotate_left(19);
    }
    // Round 2, G(x,y,z) = xy | xz | yz; shifts 3, 5, 9, 13. With x the newest word,
    // G = (y & z) + (x & (y ^ z)): the two terms never share a set bit (where y ^ z is 1,
    // y & z is 0), so their OR is their sum and `y & z` joins the early part of the sum.
    for k in [0, 1, 2, 3] {
        a = a
            .wrapping_add(x[k].wrapping_add(k2))
            .wrapping_add(c & d)
            .wrapping_add(b & (c ^ d))
            .rotate_left(3);
        d = d
            .wrapping_add(x[k + 4].wrapping_add(k2))
            .wrapping_add(b & c)
            .wrapping_add(a & (b ^ c))
            .rotate_left(5);
        c = c
            .wrapping_add(x[k + 8].wrapping_add(k2))
            .wrapping_add(a & b)
            .wrapping_add(d & (a ^ b))
            .rotate_left(9);
        b = b
            .wrapping_add(x[k + 12].wrapping_add(k2))
            .wrapping_add(d & a)
            .wrapping_add(c & (d ^ a))
            .rotate_left(13);
    }
    // Round 3, H(x,y,z) = x ^ y ^ z; word order 0 8 4 12 / 2 10 6 14 / 1 9 5 13 / 3 11 7 15;
    // shifts 3, 9, 11, 15.
    for k in [0, 2, 1, 3] {
        a = a.wrapping_add(x[k].wrapping_add(k3)).wrapping_add(b ^ (c ^ d)).rotate_left(3);
        d = d.wrapping_add(x[k + 8].wrapping_add(k3)).wrapping_add(a ^ (b ^ c)).rotate_left(9);
        c = c.wrapping_add(x[k + 4].wrapping_add(k3)).wrapping_add(d ^ (a ^ b)).rotate_left(11);
        b = b.wrapping_add(x[k + 12].wrapping_add(k3)).wrapping_add(c ^ (d ^ a)).rotate_left(15);
    }
    state[0] = state[0].wrapping_add(a);
    state[1] = state[1].wrapping_add(b);
    state[2] = state[2].wrapping_add(c);
    state[3] = state[3].wrapping_add(d);
}

super::md_hasher!(
    /// MD4 hasher (RFC 1320). **Legacy**: see the module docs.
    Md4, "MD4", core: Md4Core, block: MD4_BLOCK_LEN, out: MD4_OUTPUT_LEN,
    init: |_backend| Md4Core { state: IV },
    set_iv: |core| core.state = IV,
    length: |bits| (bits as u64).to_le_bytes(),
    digest: |core| super::hasher_macros::words_le(&core.state),
);
