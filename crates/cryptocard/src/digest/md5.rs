//! MD5 (RFC 1321).
//!
//! **Legacy.** MD5 is broken for collision resistance (Wang and Yu, EUROCRYPT 2005;
//! chosen-prefix collisions, Stevens et al. 2007, were used to forge a CA certificate):
//! never use it for signatures, certificates or any new design. What remains acceptable:
//! verifying old data, non-adversarial checksums, and HMAC-MD5 in legacy protocols
//! (HMAC's security rests on the compression function's PRF property, which collisions do
//! not break; RFC 6151 section 2.3), still discouraged for new designs.
//!
//! The algorithm (RFC 1321 section 3): pad to 448 mod 512 bits and append the 64-bit
//! little-endian bit length (section 3.1-3.2, in [`super::buffer`]); start from the
//! chaining value of section 3.3; each 64-byte block is read as sixteen little-endian
//! words `X[k]` and runs four rounds of sixteen steps
//! `a = b + ((a + F(b,c,d) + X[k] + T[i]) <<< s)` with `F`, `G`, `H`, `I` of section 3.4
//! and `T[i] = floor(2^32 · |sin(i)|)`; the block's result is added into the chaining
//! value. The digest is the final chaining value, little-endian.
//!
//! Speed: the 64 steps form one dependency chain (each reads the previous result), so
//! what matters is how many operations stand between one step's result and the next:
//! the code is fully unrolled, `a + X[k] + T[i]` is summed off the chain (the constants
//! are read through an opaque reference so that LLVM cannot move their add after the
//! round function), and where a round function splits into bitwise-disjoint halves the
//! half that does not read the newest word joins the early sum. It runs level with
//! OpenSSL's assembly (the `md5` row of `docs/performance.md`).

use super::buffer::BlockCompress;

/// MD5 block size in bytes (512 bits, RFC 1321 section 3.4).
pub const MD5_BLOCK_LEN: usize = 64;
/// MD5 digest size in bytes (128 bits, RFC 1321 section 3.5).
pub const MD5_OUTPUT_LEN: usize = 16;

/// The initial chaining value A, B, C, D (RFC 1321 section 3.3, as little-endian words).
const IV: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

/// `T[1..=64]`, the integer part of `2^32 · |sin(i)|`, i in radians (RFC 1321 section 3.4).
const T: [u32; 64] = [
    0xd76a_a478,
    0xe8c7_b756,
    0x2420_70db,
    0xc1bd_ceee,
    0xf57c_0faf,
    0x4787_c62a,
    0xa830_4613,
    0xfd46_9501,
    0x6980_98d8,
    0x8b44_f7af,
    0xffff_5bb1,
    0x895c_d7be,
    0x6b90_1122,
    0xfd98_7193,
    0xa679_438e,
    0x49b4_0821,
    0xf61e_2562,
    0xc040_b340,
    0x265e_5a51,
    0xe9b6_c7aa,
    0xd62f_105d,
    0x0244_1453,
    0xd8a1_e681,
    0xe7d3_fbc8,
    0x21e1_cde6,
    0xc337_07d6,
    0xf4d5_0d87,
    0x455a_14ed,
    0xa9e3_e905,
    0xfcef_a3f8,
    0x676f_02d9,
    0x8d2a_4c8a,
    0xfffa_3942,
    0x8771_f681,
    0x6d9d_6122,
    0xfde5_380c,
    0xa4be_ea44,
    0x4bde_cfa9,
    0xf6bb_4b60,
    0xbebf_bc70,
    0x289b_7ec6,
    0xeaa1_27fa,
    0xd4ef_3085,
    0x0488_1d05,
    0xd9d4_d039,
    0xe6db_99e5,
    0x1fa2_7cf8,
    0xc4ac_5665,
    0xf429_2244,
    0x432a_ff97,
    0xab94_23a7,
    0xfc93_a039,
    0x655b_59c3,
    0x8f0c_cc92,
    0xffef_f47d,
    0x8584_5dd1,
    0x6fa8_7e4f,
    0xfe2c_e6e0,
    0xa301_4314,
    0x4e08_11a1,
    0xf753_7e82,
    0xbd3a_f235,
    0x2ad7_d2bb,
    0xeb86_d391,
];

/// The MD5 chaining value.
#[derive(Clone, zeroize::Zeroize)]
pub(crate) struct Md5Core {
    state: [u32; 4],
}

impl Md5Core {
    /// MD5 has no accelerated kernel.
    fn accelerated(&self) -> bool {
        false
    }
}

impl BlockCompress<MD5_BLOCK_LEN> for Md5Core {
    #[inline]
    fn compress(&mut self, blocks: &[[u8; MD5_BLOCK_LEN]]) {
        for block in blocks {
            compress_block(&mut self.state, block);
        }
    }
}

/// One step: `a = b + ((a + f + X[k] + T[i]) <<< s)`, associated so that `a + X[k] + T[i]`
/// and the parts of `f` that do not read the newest word `b` are computed off the
/// critical path; `$f_late` is what does read `b`, added last. Where `f` splits into two
/// bitwise-disjoint halves their OR is their sum, so the early half joins the early sum.
macro_rules! step {
    ($a:ident, $b:ident, $early:expr, $f_late:expr, $x:expr, $t:expr, $s:expr) => {
        $a = $b.wrapping_add(
            $a.wrapping_add($x.wrapping_add($t))
                .wrapping_add($early)
                .wrapping_add($f_late)
                .rotate_left($s),
        )
    };
}

/// The MD5 compression function: one 64-byte block into `state` (RFC 1321 section 3.4).
#[inline]
fn compress_block(state: &mut [u32; 4], block: &[u8; MD5_BLOCK_LEN]) {
    let mut x = [0u32; 16];
    for (w, chunk) in x.iter_mut().zip(block.as_chunks::<4>().0) {
        *w = u32::from_le_bytes(*chunk);
    }
    // Read the constants through an opaque reference: as immediates LLVM would
    // reassociate `a + X[k] + T[i] + f` to add `T[i]` after `f`, putting one more add on
    // the critical path of every step (measurably slower on Zen 4). Loaded, they fold into
    // early memory-operand adds.
    let t = core::hint::black_box(&T);
    let [mut a, mut b, mut c, mut d] = *state;
    // Round 1: F(x,y,z) = xy | ~x z, written as z ^ (x & (y ^ z)).
    macro_rules! r1 {
        ($a:ident, $b:ident, $c:ident, $d:ident, $k:expr, $s:expr, $i:expr) => {
            step!($a, $b, 0, $d ^ ($b & ($c ^ $d)), x[$k], t[$i], $s)
        };
    }
    // Round 2: G(x,y,z) = xz | y ~z; the halves are disjoint, so (y & ~z) goes early.
    macro_rules! r2 {
        ($a:ident, $b:ident, $c:ident, $d:ident, $k:expr, $s:expr, $i:expr) => {
            step!($a, $b, $c & !$d, $b & $d, x[$k], t[$i], $s)
        };
    }
    // Round 3: H(x,y,z) = x ^ y ^ z.
    macro_rules! r3 {
        ($a:ident, $b:ident, $c:ident, $d:ident, $k:expr, $s:expr, $i:expr) => {
            step!($a, $b, 0, $b ^ ($c ^ $d), x[$k], t[$i], $s)
        };
    }
    // Round 4: I(x,y,z) = y ^ (x | ~z).
    macro_rules! r4 {
        ($a:ident, $b:ident, $c:ident, $d:ident, $k:expr, $s:expr, $i:expr) => {
            step!($a, $b, 0, $c ^ ($b | !$d), x[$k], t[$i], $s)
        };
    }
    // The step lists of RFC 1321 section 3.4, [abcd k s i] with i counted from 0.
    r1!(a, b, c, d, 0, 7, 0);
    r1!(d, a, b, c, 1, 12, 1);
    r1!(c, d, a, b, 2, 17, 2);
    r1!(b, c, d, a, 3, 22, 3);
    r1!(a, b, c, d, 4, 7, 4);
    r1!(d, a, b, c, 5, 12, 5);
    r1!(c, d, a, b, 6, 17, 6);
    r1!(b, c, d, a, 7, 22, 7);
    r1!(a, b, c, d, 8, 7, 8);
    r1!(d, a, b, c, 9, 12, 9);
    r1!(c, d, a, b, 10, 17, 10);
    r1!(b, c, d, a, 11, 22, 11);
    r1!(a, b, c, d, 12, 7, 12);
    r1!(d, a, b, c, 13, 12, 13);
    r1!(c, d, a, b, 14, 17, 14);
    r1!(b, c, d, a, 15, 22, 15);

    r2!(a, b, c, d, 1, 5, 16);
    r2!(d, a, b, c, 6, 9, 17);
    r2!(c, d, a, b, 11, 14, 18);
    r2!(b, c, d, a, 0, 20, 19);
    r2!(a, b, c, d, 5, 5, 20);
    r2!(d, a, b, c, 10, 9, 21);
    r2!(c, d, a, b, 15, 14, 22);
    r2!(b, c, d, a, 4, 20, 23);
    r2!(a, b, c, d, 9, 5, 24);
    r2!(d, a, b, c, 14, 9, 25);
    r2!(c, d, a, b, 3, 14, 26);
    r2!(b, c, d, a, 8, 20, 27);
    r2!(a, b, c, d, 13, 5, 28);
    r2!(d, a, b, c, 2, 9, 29);
    r2!(c, d, a, b, 7, 14, 30);
    r2!(b, c, d, a, 12, 20, 31);

    r3!(a, b, c, d, 5, 4, 32);
    r3!(d, a, b, c, 8, 11, 33);
    r3!(c, d, a, b, 11, 16, 34);
    r3!(b, c, d, a, 14, 23, 35);
    r3!(a, b, c, d, 1, 4, 36);
    r3!(d, a, b, c, 4, 11, 37);
    r3!(c, d, a, b, 7, 16, 38);
    r3!(b, c, d, a, 10, 23, 39);
    r3!(a, b, c, d, 13, 4, 40);
    r3!(d, a, b, c, 0, 11, 41);
    r3!(c, d, a, b, 3, 16, 42);
    r3!(b, c, d, a, 6, 23, 43);
    r3!(a, b, c, d, 9, 4, 44);
    r3!(d, a, b, c, 12, 11, 45);
    r3!(c, d, a, b, 15, 16, 46);
    r3!(b, c, d, a, 2, 23, 47);

    r4!(a, b, c, d, 0, 6, 48);
    r4!(d, a, b, c, 7, 10, 49);
    r4!(c, d, a, b, 14, 15, 50);
    r4!(b, c, d, a, 5, 21, 51);
    r4!(a, b, c, d, 12, 6, 52);
    r4!(d, a, b, c, 3, 10, 53);
    r4!(c, d, a, b, 10, 15, 54);
    r4!(b, c, d, a, 1, 21, 55);
    r4!(a, b, c, d, 8, 6, 56);
    r4!(d, a, b, c, 15, 10, 57);
    r4!(c, d, a, b, 6, 15, 58);
    r4!(b, c, d, a, 13, 21, 59);
    r4!(a, b, c, d, 4, 6, 60);
    r4!(d, a, b, c, 11, 10, 61);
    r4!(c, d, a, b, 2, 15, 62);
    r4!(b, c, d, a, 9, 21, 63);

    state[0] = state[0].wrapping_add(a);
    state[1] = state[1].wrapping_add(b);
    state[2] = state[2].wrapping_add(c);
    state[3] = state[3].wrapping_add(d);
}

super::md_hasher!(
    /// MD5 hasher (RFC 1321). **Legacy**: see the module docs.
    Md5, "MD5", core: Md5Core, block: MD5_BLOCK_LEN, out: MD5_OUTPUT_LEN,
    init: |_backend| Md5Core { state: IV },
    set_iv: |core| core.state = IV,
    length: |bits| (bits as u64).to_le_bytes(),
    digest: |core| super::hasher_macros::words_le(&core.state),
);
