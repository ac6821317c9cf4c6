//! AES (FIPS 197) on 256-bit registers with the vector AES instructions: `vaesenc`,
//! `vaesenclast`, `vaesdec` and `vaesdeclast` run one round on each 128-bit lane of a ymm
//! register, so one instruction advances two blocks where AES-NI's advances one (Drucker,
//! Gueron and Krasnov, "Making AES great again: the forthcoming vectorized AES
//! instruction", 2018). Where the CPU issues the 256-bit form as often as the 128-bit one
//! (VAES came with Ice Lake and Zen 3), the parallel modes run up to twice as fast; the
//! performance page has the measured rows. 512-bit registers are not used: the Intel
//! Xeon we measured (family 6, model 207) issues the 512-bit form half as often as the
//! 256-bit one, for the same blocks a cycle (Zen 5's full-width AES units are untried).
//!
//! Only the modes whose blocks are independent live here: ECB, CTR, and CBC and CFB
//! decryption.
//! The serial chains (CBC and CFB encryption, OFB) stay on `aesni`, one block at a time
//! whatever the register width. The round keys are AES-NI's (`aesni::inverse_keys` makes
//! the decryption ones), each broadcast to both lanes.
//!
//! Contracts as `aesni`: round keys `rk[0..=nr]` with `nr` in {10, 12, 14}, whole blocks,
//! [`LANES`] registers (16 blocks) interleaved, a shorter tail in passes of 4, 2 and 1
//! registers, and a lone last block in the low lane of one register. The instructions run in constant time; the only branches are on lengths
//! and on the public counter.

use super::aesni::counter_block;
use super::cpu::Vaes;
use core::arch::x86_64::*;

/// Registers interleaved by the kernels: 8, 16 blocks in flight (the rounds' latency is
/// about four cycles at two instructions a cycle, so eight registers keep both units fed).
const LANES: usize = 8;

/// Encrypts whole blocks of `blocks` in place with round keys `rk`.
#[inline]
pub(crate) fn encrypt(_token: Vaes, rk: &[[u8; 16]; 15], nr: usize, blocks: &mut [u8]) {
    // SAFETY: the token proves the CPU has AES, VAES and AVX2 (`Vaes::detect`).
    unsafe { blocks_vaes::<false>(rk, nr, blocks) }
}

/// Decrypts whole blocks of `blocks` in place with the decryption round keys `dk`
/// (`aesni::inverse_keys`).
#[inline]
pub(crate) fn decrypt(_token: Vaes, dk: &[[u8; 16]; 15], nr: usize, blocks: &mut [u8]) {
    // SAFETY: as in `encrypt`.
    unsafe { blocks_vaes::<true>(dk, nr, blocks) }
}

/// CTR (SP 800-38A 6.5): `output = input xor E(T_i)`, `T_i = ctr + i mod 2^128` as a
/// big-endian block; `ctr` ends as the next unused counter. `input` and `output` are
/// whole blocks of the same length.
#[inline]
pub(crate) fn ctr(
    _token: Vaes,
    rk: &[[u8; 16]; 15],
    nr: usize,
    ctr: &mut [u8; 16],
    input: &[u8],
    output: &mut [u8],
) {
    // SAFETY: as in `encrypt`.
    unsafe { ctr_vaes(rk, nr, ctr, input, output) }
}

/// CBC decryption (`CFB` false; SP 800-38A 6.2, `P_i = D(C_i) xor C_{i-1}`, with the
/// decryption round keys) or CFB-128 decryption (`CFB` true; 6.3, `P_i = C_i xor
/// E(C_{i-1})`, with the encryption round keys: the same blocks the other way round, the
/// previous ciphertext blocks through the cipher and the current ones XORed in); `C_0 =
/// iv`, and `iv` ends as the last ciphertext block. Lengths as `ctr`.
#[inline]
pub(crate) fn chained_decrypt<const CFB: bool>(
    _token: Vaes,
    keys: &[[u8; 16]; 15],
    nr: usize,
    iv: &mut [u8; 16],
    input: &[u8],
    output: &mut [u8],
) {
    // SAFETY: as in `encrypt`.
    unsafe { chained_decrypt_vaes::<CFB>(keys, nr, iv, input, output) }
}

/// The round keys, each in both lanes.
#[target_feature(enable = "aes,vaes,avx2")]
fn load_keys(k: &[[u8; 16]; 15]) -> [__m256i; 15] {
    core::array::from_fn(|i| {
        // SAFETY: the pointer addresses a 16-byte array; `loadu` needs no alignment.
        let key = unsafe { _mm_loadu_si128(k[i].as_ptr().cast()) };
        _mm256_broadcastsi128_si256(key)
    })
}

/// `N` registers through all rounds, interleaved round by round.
#[target_feature(enable = "aes,vaes,avx2")]
fn rounds<const DEC: bool, const N: usize>(k: &[__m256i; 15], nr: usize, s: &mut [__m256i; N]) {
    for x in s.iter_mut() {
        *x = _mm256_xor_si256(*x, k[0]);
    }
    for key in &k[1..nr] {
        for x in s.iter_mut() {
            *x = if DEC { _mm256_aesdec_epi128(*x, *key) } else { _mm256_aesenc_epi128(*x, *key) };
        }
    }
    for x in s.iter_mut() {
        *x = if DEC {
            _mm256_aesdeclast_epi128(*x, k[nr])
        } else {
            _mm256_aesenclast_epi128(*x, k[nr])
        };
    }
}

/// `N` registers (`2N` blocks) from the start of `p`, which holds at least `32 N` bytes.
#[target_feature(enable = "aes,vaes,avx2")]
fn load_n<const N: usize>(p: &[u8]) -> [__m256i; N] {
    assert!(p.len() >= 32 * N, "internal error: short AES input");
    // SAFETY: `32 j + 32 <= p.len()` for every `j < N` (checked above); `loadu` needs no
    // alignment.
    core::array::from_fn(|j| unsafe { _mm256_loadu_si256(p.as_ptr().add(32 * j).cast()) })
}

/// Stores the `N` registers of `s` to the start of `y`, which holds at least `32 N` bytes.
#[target_feature(enable = "aes,vaes,avx2")]
fn store_n<const N: usize>(s: &[__m256i; N], y: &mut [u8]) {
    assert!(y.len() >= 32 * N, "internal error: short AES output");
    for (j, x) in s.iter().enumerate() {
        // SAFETY: `32 j + 32 <= y.len()` (checked above); `storeu` needs no alignment.
        unsafe { _mm256_storeu_si256(y.as_mut_ptr().add(32 * j).cast(), *x) };
    }
}

/// The first block of `p` in the low lane (the high lane zero).
#[target_feature(enable = "aes,vaes,avx2")]
fn load_one(p: &[u8]) -> __m256i {
    assert!(p.len() >= 16, "internal error: short AES input");
    // SAFETY: `p` holds at least 16 bytes (checked above); `loadu` needs no alignment.
    _mm256_zextsi128_si256(unsafe { _mm_loadu_si128(p.as_ptr().cast()) })
}

/// Stores the low lane of `s` to the first block of `y`.
#[target_feature(enable = "aes,vaes,avx2")]
fn store_one(s: __m256i, y: &mut [u8]) {
    assert!(y.len() >= 16, "internal error: short AES output");
    // SAFETY: `y` holds at least 16 bytes (checked above); `storeu` needs no alignment.
    unsafe { _mm_storeu_si128(y.as_mut_ptr().cast(), _mm256_castsi256_si128(s)) };
}

/// `N` registers of ECB over the start of `c`, in place.
#[target_feature(enable = "aes,vaes,avx2")]
fn ecb_n<const DEC: bool, const N: usize>(k: &[__m256i; 15], nr: usize, c: &mut [u8]) {
    let mut s = load_n::<N>(c);
    rounds::<DEC, N>(k, nr, &mut s);
    store_n(&s, c);
}

#[target_feature(enable = "aes,vaes,avx2")]
fn blocks_vaes<const DEC: bool>(k: &[[u8; 16]; 15], nr: usize, blocks: &mut [u8]) {
    let k = load_keys(k);
    let n = blocks.len();
    let mut i = 0;
    while i + 32 * LANES <= n {
        ecb_n::<DEC, LANES>(&k, nr, &mut blocks[i..]);
        i += 32 * LANES;
    }
    // The tail, fewer than LANES registers, in at most three interleaved passes.
    let rest = (n - i) / 32;
    if rest & 4 != 0 {
        ecb_n::<DEC, 4>(&k, nr, &mut blocks[i..]);
        i += 128;
    }
    if rest & 2 != 0 {
        ecb_n::<DEC, 2>(&k, nr, &mut blocks[i..]);
        i += 64;
    }
    if rest & 1 != 0 {
        ecb_n::<DEC, 1>(&k, nr, &mut blocks[i..]);
        i += 32;
    }
    if i < n {
        let mut s = [load_one(&blocks[i..])];
        rounds::<DEC, 1>(&k, nr, &mut s);
        store_one(s[0], &mut blocks[i..]);
    }
}

/// The `2N` counter blocks `t .. t + 2N`, two to a register (the lower counter in the low
/// lane). As `aesni`'s, they are one native-order `(high, low)` pair with `j` added to the
/// low half and each half byte-swapped, unless the low 64 bits carry among them; the
/// counter is public, so the branch leaks nothing.
#[target_feature(enable = "aes,vaes,avx2")]
fn counter_blocks<const N: usize>(t: u128) -> [__m256i; N] {
    let low = t as u64;
    if low.checked_add(2 * N as u64 - 1).is_none() {
        return core::array::from_fn(|j| {
            let c = |i: usize| counter_block(t.wrapping_add((2 * j + i) as u128));
            _mm256_set_m128i(c(1), c(0))
        });
    }
    let native = _mm256_broadcastsi128_si256(_mm_set_epi64x(low as i64, (t >> 64) as i64));
    // `vpshufb` shuffles within each 128-bit lane: every 64-bit half reversed.
    let swap = _mm256_broadcastsi128_si256(_mm_set_epi8(
        8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7,
    ));
    core::array::from_fn(|j| {
        let step = _mm256_set_epi64x(2 * j as i64 + 1, 0, 2 * j as i64, 0);
        _mm256_shuffle_epi8(_mm256_add_epi64(native, step), swap)
    })
}

/// `N` registers of CTR over the first `32 N` bytes of `x` into `y`, from counter `t`.
#[target_feature(enable = "aes,vaes,avx2")]
fn ctr_n<const N: usize>(k: &[__m256i; 15], nr: usize, t: &mut u128, x: &[u8], y: &mut [u8]) {
    let mut s = counter_blocks::<N>(*t);
    *t = t.wrapping_add(2 * N as u128);
    rounds::<false, N>(k, nr, &mut s);
    let x = load_n::<N>(x);
    for (s, x) in s.iter_mut().zip(x) {
        *s = _mm256_xor_si256(*s, x);
    }
    store_n(&s, y);
}

#[target_feature(enable = "aes,vaes,avx2")]
fn ctr_vaes(rk: &[[u8; 16]; 15], nr: usize, ctr: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
    let k = load_keys(rk);
    let mut t = u128::from_be_bytes(*ctr);
    let n = input.len();
    let mut i = 0;
    while i + 32 * LANES <= n {
        ctr_n::<LANES>(&k, nr, &mut t, &input[i..], &mut output[i..]);
        i += 32 * LANES;
    }
    // The tail, fewer than LANES registers, in at most three interleaved passes.
    let rest = (n - i) / 32;
    if rest & 4 != 0 {
        ctr_n::<4>(&k, nr, &mut t, &input[i..], &mut output[i..]);
        i += 128;
    }
    if rest & 2 != 0 {
        ctr_n::<2>(&k, nr, &mut t, &input[i..], &mut output[i..]);
        i += 64;
    }
    if rest & 1 != 0 {
        ctr_n::<1>(&k, nr, &mut t, &input[i..], &mut output[i..]);
        i += 32;
    }
    if i < n {
        let mut s = [_mm256_zextsi128_si256(counter_block(t))];
        t = t.wrapping_add(1);
        rounds::<false, 1>(&k, nr, &mut s);
        store_one(_mm256_xor_si256(s[0], load_one(&input[i..])), &mut output[i..]);
    }
    *ctr = t.to_be_bytes();
}

/// The rounds of CBC decryption (`CFB` false: the inverse cipher) or of CFB decryption
/// (`CFB` true: the cipher) on `N` registers.
#[target_feature(enable = "aes,vaes,avx2")]
fn chained_rounds<const CFB: bool, const N: usize>(
    k: &[__m256i; 15],
    nr: usize,
    s: &mut [__m256i; N],
) {
    if CFB { rounds::<false, N>(k, nr, s) } else { rounds::<true, N>(k, nr, s) }
}

/// `N` registers of CBC decryption (`CFB` false: `D(C_i) xor C_{i-1}`) or of CFB
/// decryption (`CFB` true: `E(C_{i-1}) xor C_i`): `x` starts with the `2N` ciphertext
/// blocks, `before` is the block before the first (`C_{i-1}`; each later block's is the
/// one before it in `x`, so register `j`'s are the 32 bytes from `32 j - 16`).
#[target_feature(enable = "aes,vaes,avx2")]
fn chained_dec_n<const CFB: bool, const N: usize>(
    k: &[__m256i; 15],
    nr: usize,
    before: __m128i,
    x: &[u8],
    y: &mut [u8],
) {
    // The blocks XORed in are loaded after the rounds, not held across them: the 16 ymm
    // registers hold the states and the keys in use, not a second set of blocks.
    let previous = || -> [__m256i; N] {
        core::array::from_fn(|j| match j {
            0 => _mm256_set_m128i(_mm256_castsi256_si128(load_one(x)), before),
            _ => load_n::<1>(&x[32 * j - 16..])[0],
        })
    };
    let mut s = if CFB { previous() } else { load_n::<N>(x) };
    chained_rounds::<CFB, N>(k, nr, &mut s);
    let other = if CFB { load_n::<N>(x) } else { previous() };
    for (s, o) in s.iter_mut().zip(other) {
        *s = _mm256_xor_si256(*s, o);
    }
    store_n(&s, y);
}

/// CBC (`CFB` false, decryption keys) or CFB-128 (`CFB` true, encryption keys)
/// decryption of whole blocks: [`LANES`] registers at a time, then the tail.
#[target_feature(enable = "aes,vaes,avx2")]
fn chained_decrypt_vaes<const CFB: bool>(
    keys: &[[u8; 16]; 15],
    nr: usize,
    iv: &mut [u8; 16],
    input: &[u8],
    output: &mut [u8],
) {
    let n = input.len();
    if n == 0 {
        return;
    }
    let k = load_keys(keys);
    // Block 0 chains to the IV, every later block to the ciphertext block before it.
    let before = |i: usize| {
        _mm256_castsi256_si128(load_one(if i == 0 { &iv[..] } else { &input[i - 16..] }))
    };
    let mut i = 0;
    while i + 32 * LANES <= n {
        chained_dec_n::<CFB, LANES>(&k, nr, before(i), &input[i..], &mut output[i..]);
        i += 32 * LANES;
    }
    // The tail, fewer than LANES registers, in at most three interleaved passes.
    let rest = (n - i) / 32;
    if rest & 4 != 0 {
        chained_dec_n::<CFB, 4>(&k, nr, before(i), &input[i..], &mut output[i..]);
        i += 128;
    }
    if rest & 2 != 0 {
        chained_dec_n::<CFB, 2>(&k, nr, before(i), &input[i..], &mut output[i..]);
        i += 64;
    }
    if rest & 1 != 0 {
        chained_dec_n::<CFB, 1>(&k, nr, before(i), &input[i..], &mut output[i..]);
        i += 32;
    }
    if i < n {
        let (current, previous) = (load_one(&input[i..]), _mm256_zextsi128_si256(before(i)));
        let (mut s, other) = if CFB { ([previous], current) } else { ([current], previous) };
        chained_rounds::<CFB, 1>(&k, nr, &mut s);
        store_one(_mm256_xor_si256(s[0], other), &mut output[i..]);
    }
    iv.copy_from_slice(&input[n - 16..]);
}
