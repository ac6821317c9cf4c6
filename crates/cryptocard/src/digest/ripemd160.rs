//! RIPEMD-160 (Dobbertin, Bosselaers and Preneel, "RIPEMD-160: A Strengthened Version of
//! RIPEMD", Fast Software Encryption 1996; ISO/IEC 10118-3 dedicated hash function 1).
//!
//! **Legacy.** No practical attack breaks RIPEMD-160, but its 160 bits give collisions
//! at 2^80 work, below what new designs want. It is here for the systems built on it:
//! RSA signatures of the European banking standards of the 1990s (the German HBCI/FinTS
//! RDH profiles sign RIPEMD-160 digests), OpenPGP's old keys, Bitcoin's addresses, and
//! OpenSSL's default provider, which signs with it.
//!
//! The algorithm (the paper's section 3 and appendix A): MD4's padding and little-endian
//! length (in [`super::buffer`]); each 64-byte block, read as sixteen little-endian words,
//! runs through two lines of five rounds of sixteen steps
//! `A = ((A + f(B, C, D) + X[r] + K) <<< s) + E; C = C <<< 10`, the left line with the
//! Boolean functions in the order f1 ... f5, the right line in the order f5 ... f1, each
//! with its own word order `r`, rotations `s` and constants `K`; the five chaining words
//! then absorb both lines, rotated by one word.
//!
//! Constant time: additions, rotations and Boolean functions of the data only.

use super::buffer::BlockCompress;

/// RIPEMD-160 block size in bytes (512 bits).
pub const RIPEMD160_BLOCK_LEN: usize = 64;
/// RIPEMD-160 digest size in bytes (160 bits).
pub const RIPEMD160_OUTPUT_LEN: usize = 20;

/// The initial chaining value h0 ... h4 (MD4's four words and SHA-1's fifth).
const IV: [u32; 5] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0];

/// The left line's constants, one per round: 0 and the integer parts of 2^30 times the
/// square roots of 2, 3, 5 and 7.
const K_LEFT: [u32; 5] = [0x0000_0000, 0x5a82_7999, 0x6ed9_eba1, 0x8f1b_bcdc, 0xa953_fd4e];
/// The right line's constants: the integer parts of 2^30 times the cube roots of 2, 3, 5
/// and 7, and 0.
const K_RIGHT: [u32; 5] = [0x50a2_8be6, 0x5c4d_d124, 0x6d70_3ef3, 0x7a6d_76e9, 0x0000_0000];

/// The message word each step of the left line reads (r(j)).
const R_LEFT: [usize; 80] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, //
    7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8, //
    3, 10, 14, 4, 9, 15, 8, 1, 2, 7, 0, 6, 13, 11, 5, 12, //
    1, 9, 11, 10, 0, 8, 12, 4, 13, 3, 7, 15, 14, 5, 6, 2, //
    4, 0, 5, 9, 7, 12, 2, 10, 14, 1, 3, 8, 11, 6, 15, 13,
];
/// The message word each step of the right line reads (r'(j)).
const R_RIGHT: [usize; 80] = [
    5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12, //
    6, 11, 3, 7, 0, 13, 5, 10, 14, 15, 8, 12, 4, 9, 1, 2, //
    15, 5, 1, 3, 7, 14, 6, 9, 11, 8, 12, 2, 10, 0, 4, 13, //
    8, 6, 4, 1, 3, 11, 15, 0, 5, 12, 2, 13, 9, 7, 10, 14, //
    12, 15, 10, 4, 1, 5, 8, 7, 6, 2, 13, 14, 0, 3, 9, 11,
];
/// The left line's rotations (s(j)).
const S_LEFT: [u32; 80] = [
    11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8, //
    7, 6, 8, 13, 11, 9, 7, 15, 7, 12, 15, 9, 11, 7, 13, 12, //
    11, 13, 6, 7, 14, 9, 13, 15, 14, 8, 13, 6, 5, 12, 7, 5, //
    11, 12, 14, 15, 14, 15, 9, 8, 9, 14, 5, 6, 8, 6, 5, 12, //
    9, 15, 5, 11, 6, 8, 13, 12, 5, 12, 13, 14, 11, 8, 5, 6,
];
/// The right line's rotations (s'(j)).
const S_RIGHT: [u32; 80] = [
    8, 9, 9, 11, 13, 15, 15, 5, 7, 7, 8, 11, 14, 14, 12, 6, //
    9, 13, 15, 7, 12, 8, 9, 11, 7, 7, 12, 7, 6, 15, 13, 11, //
    9, 7, 15, 11, 8, 6, 6, 14, 12, 13, 5, 14, 13, 13, 7, 5, //
    15, 5, 8, 11, 14, 14, 6, 14, 6, 9, 12, 9, 12, 5, 15, 8, //
    8, 5, 12, 9, 12, 5, 14, 6, 8, 13, 6, 5, 15, 13, 11, 11,
];

/// The RIPEMD-160 chaining value.
#[derive(Clone, zeroize::Zeroize)]
pub(crate) struct Ripemd160Core {
    state: [u32; 5],
}

impl Ripemd160Core {
    /// RIPEMD-160 has no accelerated kernel.
    fn accelerated(&self) -> bool {
        false
    }
}

impl BlockCompress<RIPEMD160_BLOCK_LEN> for Ripemd160Core {
    #[inline]
    fn compress(&mut self, blocks: &[[u8; RIPEMD160_BLOCK_LEN]]) {
        for block in blocks {
            compress_block(&mut self.state, block);
        }
    }
}

// The Boolean functions f1 ... f5 of the paper's section 3, each written with one
// operation fewer where an identity allows: f2 = (x & y) | (!x & z) = z ^ (x & (y ^ z)),
// f4 = (x & z) | (y & !z) = y ^ (z & (x ^ y)).
#[inline(always)]
fn f1(x: u32, y: u32, z: u32) -> u32 {
    x ^ y ^ z
}
#[inline(always)]
fn f2(x: u32, y: u32, z: u32) -> u32 {
    z ^ (x & (y ^ z))
}
#[inline(always)]
fn f3(x: u32, y: u32, z: u32) -> u32 {
    (x | !y) ^ z
}
#[inline(always)]
fn f4(x: u32, y: u32, z: u32) -> u32 {
    y ^ (z & (x ^ y))
}
#[inline(always)]
fn f5(x: u32, y: u32, z: u32) -> u32 {
    x ^ (y | !z)
}

/// One step on renamed variables: `A = ((A + f(B, C, D) + X[r] + K) <<< s) + E` and
/// `C = C <<< 10`; the caller rotates the five names instead of moving the words (the
/// step's new B is the A just written, its new A the old E).
macro_rules! step {
    ($f:ident, $x:expr, $k:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident) => {
        $a = $a.wrapping_add($f($b, $c, $d)).wrapping_add($x).wrapping_add($k);
        $a = $a.rotate_left(S).wrapping_add($e);
        $c = $c.rotate_left(10);
    };
}

/// Sixteen steps of one round, from step `$j` of the line with word order `$r` and
/// rotations `$s`, unrolled so that every index and rotation is a constant.
macro_rules! round {
    ($f:ident, $x:ident, $r:ident, $s:ident, $k:expr, $j:literal,
     $a:ident, $b:ident, $c:ident, $d:ident, $e:ident) => {{
        macro_rules! at {
            ($n:literal, $va:ident, $vb:ident, $vc:ident, $vd:ident, $ve:ident) => {{
                const S: u32 = $s[$j + $n];
                step!($f, $x[$r[$j + $n]], $k, $va, $vb, $vc, $vd, $ve);
            }};
        }
        at!(0, $a, $b, $c, $d, $e);
        at!(1, $e, $a, $b, $c, $d);
        at!(2, $d, $e, $a, $b, $c);
        at!(3, $c, $d, $e, $a, $b);
        at!(4, $b, $c, $d, $e, $a);
        at!(5, $a, $b, $c, $d, $e);
        at!(6, $e, $a, $b, $c, $d);
        at!(7, $d, $e, $a, $b, $c);
        at!(8, $c, $d, $e, $a, $b);
        at!(9, $b, $c, $d, $e, $a);
        at!(10, $a, $b, $c, $d, $e);
        at!(11, $e, $a, $b, $c, $d);
        at!(12, $d, $e, $a, $b, $c);
        at!(13, $c, $d, $e, $a, $b);
        at!(14, $b, $c, $d, $e, $a);
        at!(15, $a, $b, $c, $d, $e);
    }};
}

/// The compression function: one 64-byte block into `state` (the paper's appendix A).
/// Each round's sixteen steps rotate the names by one (sixteen is one more than a
/// multiple of five), so each round starts one name further on, and after the eightieth
/// step the words are back under their own names.
#[inline]
fn compress_block(state: &mut [u32; 5], block: &[u8; RIPEMD160_BLOCK_LEN]) {
    let mut x = [0u32; 16];
    for (w, chunk) in x.iter_mut().zip(block.as_chunks::<4>().0) {
        *w = u32::from_le_bytes(*chunk);
    }
    let [mut al, mut bl, mut cl, mut dl, mut el] = *state;
    let [mut ar, mut br, mut cr, mut dr, mut er] = *state;
    round!(f1, x, R_LEFT, S_LEFT, K_LEFT[0], 0, al, bl, cl, dl, el);
    round!(f2, x, R_LEFT, S_LEFT, K_LEFT[1], 16, el, al, bl, cl, dl);
    round!(f3, x, R_LEFT, S_LEFT, K_LEFT[2], 32, dl, el, al, bl, cl);
    round!(f4, x, R_LEFT, S_LEFT, K_LEFT[3], 48, cl, dl, el, al, bl);
    round!(f5, x, R_LEFT, S_LEFT, K_LEFT[4], 64, bl, cl, dl, el, al);
    // The right line takes the functions in the reverse order.
    round!(f5, x, R_RIGHT, S_RIGHT, K_RIGHT[0], 0, ar, br, cr, dr, er);
    round!(f4, x, R_RIGHT, S_RIGHT, K_RIGHT[1], 16, er, ar, br, cr, dr);
    round!(f3, x, R_RIGHT, S_RIGHT, K_RIGHT[2], 32, dr, er, ar, br, cr);
    round!(f2, x, R_RIGHT, S_RIGHT, K_RIGHT[3], 48, cr, dr, er, ar, br);
    round!(f1, x, R_RIGHT, S_RIGHT, K_RIGHT[4], 64, br, cr, dr, er, ar);
    let [h0, h1, h2, h3, h4] = *state;
    *state = [
        h1.wrapping_add(cl).wrapping_add(dr),
        h2.wrapping_add(dl).wrapping_add(er),
        h3.wrapping_add(el).wrapping_add(ar),
        h4.wrapping_add(al).wrapping_add(br),
        h0.wrapping_add(bl).wrapping_add(cr),
    ];
}

super::md_hasher!(
    /// RIPEMD-160 hasher (Dobbertin, Bosselaers and Preneel, 1996). **Legacy**: see the
    /// module docs.
    Ripemd160, "RIPEMD-160", core: Ripemd160Core, block: RIPEMD160_BLOCK_LEN,
    out: RIPEMD160_OUTPUT_LEN,
    init: |_backend| Ripemd160Core { state: IV },
    set_iv: |core| core.state = IV,
    length: |bits| (bits as u64).to_le_bytes(),
    digest: |core| super::hasher_macros::words_le(&core.state),
);
