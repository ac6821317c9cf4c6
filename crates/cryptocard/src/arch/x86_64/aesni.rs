//! AES (FIPS 197) with the Intel AES New Instructions: `aesenc`/`aesenclast` do one round
//! of the cipher (ShiftRows, SubBytes, MixColumns, AddRoundKey), `aesdec`/`aesdeclast` one
//! round of the equivalent inverse cipher (section 5.3.5), whose round keys are the
//! encryption keys in reverse order with InvMixColumns (`aesimc`) applied to all but the
//! first and last (Gueron, "Intel Advanced Encryption Standard (AES) New Instructions
//! Set", white paper 323641, 2010, section "The AES decryption flow").
//!
//! The key expansion itself is the portable, constant-time one (`aes::soft`): it runs
//! once a key and keeps this file to the rounds. The instructions run in constant time.
//!
//! Contracts: round keys `rk[0..=nr]` with `nr` in {10, 12, 14}; `blocks.len()` a multiple
//! of 16, processed in place, [`LANES`] blocks interleaved (the rounds have a latency of
//! several cycles and a throughput of one or two a cycle, so independent blocks fill the
//! pipeline); a tail of fewer than [`LANES`] blocks goes in passes of 4, 2 and 1, so
//! that even a short message interleaves. The portable twins are
//! `aes::soft::{encrypt, decrypt}`.

use super::cpu::AesNi;
use core::arch::x86_64::*;

/// The serial chains of CBC and CFB encryption and of OFB (the AES layer's `aes::Chain`,
/// which maps onto this one: the kernels sit below it and cannot name it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Chain {
    /// `s = E(s xor x)`, output `s`.
    Cbc,
    /// `s = E(s) xor x`, output `s`.
    Cfb,
    /// `s = E(s)`, output `s xor x`.
    Ofb,
}

/// Blocks interleaved by the parallel kernels: 8, as OpenSSL's `aesni_ecb_encrypt` and
/// its CTR loop (the 16 XMM registers hold 8 states and the round key in use).
const LANES: usize = 8;

/// Round keys `rk[0..=nr]` (or the inverse cipher's).
type Keys = [[u8; 16]; 15];

/// `$body` with `$nr` (10, 12 or 14) as the constant `$NR`: the kernels below are
/// compiled once per round count, their rounds unrolled (but for a full set of [`LANES`]
/// blocks: [`rounds`]) and each round key read where it is used (a memory operand off
/// the chain, loaded once a round for all the blocks in flight), so that a message of a
/// few blocks pays for no loop over the rounds and no copying of the fifteen keys.
macro_rules! with_rounds {
    ($nr:expr, $NR:ident => $body:expr) => {
        match $nr {
            10 => {
                const $NR: usize = 10;
                $body
            }
            12 => {
                const $NR: usize = 12;
                $body
            }
            14 => {
                const $NR: usize = 14;
                $body
            }
            _ => unreachable!("internal error: AES has 10, 12 or 14 rounds"),
        }
    };
}

/// The decryption round keys of the equivalent inverse cipher: `dk[0] = rk[nr]`,
/// `dk[i] = InvMixColumns(rk[nr - i])`, `dk[nr] = rk[0]`.
#[inline]
pub(crate) fn inverse_keys(_token: AesNi, rk: &[[u8; 16]; 15], nr: usize, dk: &mut [[u8; 16]; 15]) {
    // SAFETY: the token proves the CPU has AES, SSE2 and SSSE3 (`AesNi::detect`).
    unsafe { inverse_keys_ni(rk, nr, dk) }
}

/// Runs chain `kind` (CBC or CFB encryption, OFB) over the whole blocks of `input` into
/// `output` (the same length), `iv` updated to the last running block. The round keys stay in registers across blocks.
#[inline]
pub(crate) fn chain(
    _token: AesNi,
    rk: &[[u8; 16]; 15],
    nr: usize,
    kind: Chain,
    iv: &mut [u8; 16],
    input: &[u8],
    output: &mut [u8],
) {
    // SAFETY: the token proves the CPU has AES, SSE2 and SSSE3 (`AesNi::detect`).
    unsafe { chain_ni(rk, nr, kind, iv, input, output) }
}

/// The chain kinds as const parameters of [`chain_k`].
const CBC: u8 = 0;
const CFB: u8 = 1;
const OFB: u8 = 2;

/// Picks the [`chain_k`] of `kind` and `nr` rounds: one loop per pair, its rounds
/// unrolled and its choices made at compile time, so a short message (a 16-byte CBC
/// update is one block) pays for nothing but the rounds and its loads.
#[target_feature(enable = "aes,sse2,ssse3")]
fn chain_ni(
    rk: &[[u8; 16]; 15],
    nr: usize,
    kind: Chain,
    iv: &mut [u8; 16],
    input: &[u8],
    output: &mut [u8],
) {
    assert_eq!(output.len(), input.len() / 16 * 16, "internal error: AES chain lengths");
    with_rounds!(nr, NR => match kind {
        Chain::Cbc => chain_k::<CBC, NR>(rk, iv, input, output),
        Chain::Cfb => chain_k::<CFB, NR>(rk, iv, input, output),
        Chain::Ofb => chain_k::<OFB, NR>(rk, iv, input, output),
    })
}

/// The serial chain with nothing but the rounds on its critical path. The chain's state
/// is kept whitened, `a = s xor rk[0]` (with CBC's next input block already XORed in):
/// the value the last round's output is XORed with to make the next `a`, `f`, is folded
/// into that round's key (`aesenclast` ends with AddRoundKey), and the block itself,
/// `E = a xor f`, is recovered off the chain. One block costs `NR` AES instructions of
/// latency where XORing before and after would add two more.
#[target_feature(enable = "aes,sse2,ssse3")]
fn chain_k<const KIND: u8, const NR: usize>(
    rk: &[[u8; 16]; 15],
    iv: &mut [u8; 16],
    input: &[u8],
    output: &mut [u8],
) {
    // Each round key is read where it is used (a memory operand of `aesenc`, off the
    // chain): loading all fifteen up front costs a short message more than it saves.
    let (k0, last) = (key(rk, 0), key(rk, NR));
    let mut blocks = input.chunks_exact(16).map(|x| load_n::<1>(x)[0]);
    // SAFETY: `iv` is 16 bytes; `loadu`/`storeu` need no alignment.
    let mut s = unsafe { _mm_loadu_si128(iv.as_ptr().cast()) };
    let mut a = _mm_xor_si128(s, k0);
    let mut next = blocks.next();
    if let (CBC, Some(x)) = (KIND, next) {
        a = _mm_xor_si128(a, x);
    }
    for y in output.chunks_exact_mut(16) {
        let Some(x) = next else { break };
        next = blocks.next();
        let f = match (KIND, next) {
            (CBC, Some(x1)) => _mm_xor_si128(x1, k0),
            (CFB, _) => _mm_xor_si128(x, k0),
            _ => k0,
        };
        for r in 1..NR {
            a = _mm_aesenc_si128(a, key(rk, r));
        }
        a = _mm_aesenclast_si128(a, _mm_xor_si128(last, f));
        let e = _mm_xor_si128(a, f);
        s = if KIND == CFB { _mm_xor_si128(e, x) } else { e };
        let out = if KIND == OFB { _mm_xor_si128(e, x) } else { s };
        // SAFETY: `y` is 16 bytes (`chunks_exact_mut`); `storeu` needs no alignment.
        unsafe { _mm_storeu_si128(y.as_mut_ptr().cast(), out) };
    }
    // SAFETY: as above.
    unsafe { _mm_storeu_si128(iv.as_mut_ptr().cast(), s) };
}

/// CTR (SP 800-38A 6.5): `output = input xor E(T_i)`, `T_i = ctr + i mod 2^128` as a
/// big-endian block; `ctr` ends as the next unused counter. Lengths as in `chain`.
#[inline]
pub(crate) fn ctr(
    _token: AesNi,
    rk: &[[u8; 16]; 15],
    nr: usize,
    ctr: &mut [u8; 16],
    input: &[u8],
    output: &mut [u8],
) {
    // SAFETY: the token proves the CPU has AES, SSE2 and SSSE3 (`AesNi::detect`).
    unsafe { ctr_ni(rk, nr, ctr, input, output) }
}

/// CBC decryption (`CFB` false; SP 800-38A 6.2, `P_i = D(C_i) xor C_{i-1}`, with the
/// decryption round keys) or CFB-128 decryption (`CFB` true; 6.3, `P_i = C_i xor
/// E(C_{i-1})`, with the encryption round keys: the same blocks the other way round, the
/// previous ciphertext blocks through the cipher and the current ones XORed in); `C_0 =
/// iv`, and `iv` ends as the last ciphertext block.
#[inline]
pub(crate) fn chained_decrypt<const CFB: bool>(
    _token: AesNi,
    keys: &[[u8; 16]; 15],
    nr: usize,
    iv: &mut [u8; 16],
    input: &[u8],
    output: &mut [u8],
) {
    // SAFETY: the token proves the CPU has AES, SSE2 and SSSE3 (`AesNi::detect`).
    unsafe { chained_decrypt_ni::<CFB>(keys, nr, iv, input, output) }
}

/// `N` consecutive blocks from `p` (at least `16 N` bytes).
#[target_feature(enable = "aes,sse2,ssse3")]
fn load_n<const N: usize>(p: &[u8]) -> [__m128i; N] {
    assert!(p.len() >= 16 * N, "internal error: short AES input");
    // SAFETY: `16 j + 16 <= p.len()` for every `j < N` (checked above); `loadu` needs no
    // alignment.
    core::array::from_fn(|j| unsafe { _mm_loadu_si128(p.as_ptr().add(16 * j).cast()) })
}

/// Stores the `N` blocks of `s` to the start of `y`, which holds at least `16 N` bytes.
#[target_feature(enable = "aes,sse2,ssse3")]
fn store_n<const N: usize>(s: &[__m128i; N], y: &mut [u8]) {
    assert!(y.len() >= 16 * N, "internal error: short AES output");
    for (j, x) in s.iter().enumerate() {
        // SAFETY: `16 j + 16 <= y.len()` (checked above); `storeu` needs no alignment.
        unsafe { _mm_storeu_si128(y.as_mut_ptr().add(16 * j).cast(), *x) };
    }
}

/// Stores `s[j] xor x_j` to `y_j`, `x` and `y` at least `16 N` bytes.
#[target_feature(enable = "aes,sse2,ssse3")]
fn xor_store<const N: usize>(s: &[__m128i; N], x: &[u8], y: &mut [u8]) {
    let x = load_n::<N>(x);
    store_n::<N>(&core::array::from_fn(|j| _mm_xor_si128(s[j], x[j])), y);
}

/// The counter block of `t`: its 16 big-endian bytes as a register, built from the two
/// byte-swapped halves in general registers (no byte buffer in memory between them).
#[target_feature(enable = "aes,sse2,ssse3")]
pub(super) fn counter_block(t: u128) -> __m128i {
    // The register's low lane is the block's first eight bytes: the high half, big-endian.
    let high = ((t >> 64) as u64).swap_bytes();
    let low = (t as u64).swap_bytes();
    _mm_set_epi64x(low as i64, high as i64)
}

/// The `N` counter blocks `t .. t + N`. When the low 64 bits do not carry among them (all
/// but one batch in 2^64 / N), they are one register `(high, low)` in native order, `j`
/// added to its low lane by `paddq` and each lane byte-swapped by `pshufb`: three vector
/// instructions a block, where building each from general registers takes about twelve.
/// The counter is public (it is the IV's), so the branch leaks nothing.
#[target_feature(enable = "aes,sse2,ssse3")]
fn counter_blocks<const N: usize>(t: u128) -> [__m128i; N] {
    let low = t as u64;
    if low.checked_add(N as u64 - 1).is_none() {
        return core::array::from_fn(|j| counter_block(t.wrapping_add(j as u128)));
    }
    let native = _mm_set_epi64x(low as i64, (t >> 64) as i64);
    // Byte `i` of the result is byte `swap[i]` of the input: each 64-bit lane reversed.
    let swap = _mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    core::array::from_fn(|j| {
        _mm_shuffle_epi8(_mm_add_epi64(native, _mm_set_epi64x(j as i64, 0)), swap)
    })
}

/// `N` blocks of CTR: counters `t .. t + N`, encrypted, XORed into `x`, stored to `y`.
#[target_feature(enable = "aes,sse2,ssse3")]
fn ctr_n<const N: usize, const NR: usize>(k: &Keys, t: &mut u128, x: &[u8], y: &mut [u8]) {
    let mut s = counter_blocks::<N>(*t);
    *t = t.wrapping_add(N as u128);
    rounds::<false, N, NR>(k, &mut s);
    xor_store(&s, x, y);
}

#[target_feature(enable = "aes,sse2,ssse3")]
fn ctr_ni(rk: &Keys, nr: usize, ctr: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
    with_rounds!(nr, NR => ctr_k::<NR>(rk, ctr, input, output))
}

/// [`ctr_ni`] with `NR` rounds.
#[target_feature(enable = "aes,sse2,ssse3")]
fn ctr_k<const NR: usize>(k: &Keys, ctr: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
    let mut t = u128::from_be_bytes(*ctr);
    let n = input.len();
    let mut i = 0;
    while i + 16 * LANES <= n {
        ctr_n::<LANES, NR>(k, &mut t, &input[i..], &mut output[i..]);
        i += 16 * LANES;
    }
    // The tail, fewer than LANES blocks, in at most three interleaved passes.
    let rest = (n - i) / 16;
    if rest & 4 != 0 {
        ctr_n::<4, NR>(k, &mut t, &input[i..], &mut output[i..]);
        i += 64;
    }
    if rest & 2 != 0 {
        ctr_n::<2, NR>(k, &mut t, &input[i..], &mut output[i..]);
        i += 32;
    }
    if rest & 1 != 0 {
        ctr_n::<1, NR>(k, &mut t, &input[i..], &mut output[i..]);
    }
    *ctr = t.to_be_bytes();
}

/// `N` blocks of CBC decryption (`CFB` false: `D(C_i) xor C_{i-1}`, decryption keys) or
/// of CFB decryption (`CFB` true: `E(C_{i-1}) xor C_i`, encryption keys): `x` starts with
/// the `N` ciphertext blocks, `before` is the block before the first (`C_{i-1}`; each
/// later block's is the one before it in `x`).
#[target_feature(enable = "aes,sse2,ssse3")]
fn chained_dec_n<const CFB: bool, const N: usize, const NR: usize>(
    k: &Keys,
    before: __m128i,
    x: &[u8],
    y: &mut [u8],
) {
    // The blocks XORed in are loaded after the rounds, not held across them: the 16 XMM
    // registers hold the states and the key in use, not a second set of blocks.
    let previous = || -> [__m128i; N] {
        core::array::from_fn(|j| if j == 0 { before } else { load_n::<1>(&x[16 * (j - 1)..])[0] })
    };
    let mut s = if CFB { previous() } else { load_n::<N>(x) };
    if CFB {
        rounds::<false, N, NR>(k, &mut s);
    } else {
        rounds::<true, N, NR>(k, &mut s);
    }
    let other = if CFB { load_n::<N>(x) } else { previous() };
    for (s, o) in s.iter_mut().zip(other) {
        *s = _mm_xor_si128(*s, o);
    }
    store_n(&s, y);
}

/// CBC (`CFB` false, decryption keys) or CFB-128 (`CFB` true, encryption keys)
/// decryption of whole blocks: [`LANES`] blocks at a time, then the tail.
#[target_feature(enable = "aes,sse2,ssse3")]
fn chained_decrypt_ni<const CFB: bool>(
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
    with_rounds!(nr, NR => chained_decrypt_k::<CFB, NR>(keys, iv, input, output))
}

/// [`chained_decrypt_ni`] with `NR` rounds, over at least one block.
#[target_feature(enable = "aes,sse2,ssse3")]
fn chained_decrypt_k<const CFB: bool, const NR: usize>(
    k: &Keys,
    iv: &mut [u8; 16],
    input: &[u8],
    output: &mut [u8],
) {
    let n = input.len();
    // Block 0 chains to the IV, every later block to the ciphertext block before it.
    let before = |i: usize| load_n::<1>(if i == 0 { &iv[..] } else { &input[i - 16..] })[0];
    let mut i = 0;
    while i + 16 * LANES <= n {
        chained_dec_n::<CFB, LANES, NR>(k, before(i), &input[i..], &mut output[i..]);
        i += 16 * LANES;
    }
    // The tail, fewer than LANES blocks, in at most three interleaved passes.
    let rest = (n - i) / 16;
    if rest & 4 != 0 {
        chained_dec_n::<CFB, 4, NR>(k, before(i), &input[i..], &mut output[i..]);
        i += 64;
    }
    if rest & 2 != 0 {
        chained_dec_n::<CFB, 2, NR>(k, before(i), &input[i..], &mut output[i..]);
        i += 32;
    }
    if rest & 1 != 0 {
        chained_dec_n::<CFB, 1, NR>(k, before(i), &input[i..], &mut output[i..]);
    }
    iv.copy_from_slice(&input[n - 16..]);
}

/// Encrypts whole blocks of `blocks` in place with round keys `rk`.
#[inline]
pub(crate) fn encrypt(_token: AesNi, rk: &[[u8; 16]; 15], nr: usize, blocks: &mut [u8]) {
    // SAFETY: the token proves the CPU has AES, SSE2 and SSSE3 (`AesNi::detect`).
    unsafe { blocks_ni::<false>(rk, nr, blocks) }
}

/// Decrypts whole blocks of `blocks` in place with decryption round keys `dk`
/// ([`inverse_keys`]).
#[inline]
pub(crate) fn decrypt(_token: AesNi, dk: &[[u8; 16]; 15], nr: usize, blocks: &mut [u8]) {
    // SAFETY: the token proves the CPU has AES, SSE2 and SSSE3 (`AesNi::detect`).
    unsafe { blocks_ni::<true>(dk, nr, blocks) }
}

#[target_feature(enable = "aes,sse2,ssse3")]
fn inverse_keys_ni(rk: &[[u8; 16]; 15], nr: usize, dk: &mut [[u8; 16]; 15]) {
    dk[0] = rk[nr];
    dk[nr] = rk[0];
    for i in 1..nr {
        // SAFETY: both pointers address 16-byte arrays; `loadu`/`storeu` need no alignment.
        unsafe {
            let k = _mm_aesimc_si128(_mm_loadu_si128(rk[nr - i].as_ptr().cast()));
            _mm_storeu_si128(dk[i].as_mut_ptr().cast(), k);
        }
    }
}

/// Round key `r` of `k` as a register.
#[target_feature(enable = "aes,sse2,ssse3")]
fn key(k: &Keys, r: usize) -> __m128i {
    load_n::<1>(&k[r][..])[0]
}

/// `N` blocks through all `NR` rounds, interleaved round by round.
#[target_feature(enable = "aes,sse2,ssse3")]
fn rounds<const DEC: bool, const N: usize, const NR: usize>(k: &Keys, s: &mut [__m128i; N]) {
    let k0 = key(k, 0);
    for x in s.iter_mut() {
        *x = _mm_xor_si128(*x, k0);
    }
    // A full set of LANES blocks keeps its loop over the rounds: unrolled, the round keys
    // and the eight states outgrow the sixteen registers, and the spills cost more than
    // the loop.
    let nr = if N >= LANES { core::hint::black_box(NR) } else { NR };
    for r in 1..nr {
        let kr = key(k, r);
        for x in s.iter_mut() {
            *x = if DEC { _mm_aesdec_si128(*x, kr) } else { _mm_aesenc_si128(*x, kr) };
        }
    }
    let last = key(k, NR);
    for x in s.iter_mut() {
        *x = if DEC { _mm_aesdeclast_si128(*x, last) } else { _mm_aesenclast_si128(*x, last) };
    }
}

/// `N` blocks of ECB over the start of `c`, in place.
#[target_feature(enable = "aes,sse2,ssse3")]
fn ecb_n<const DEC: bool, const N: usize, const NR: usize>(k: &Keys, c: &mut [u8]) {
    let mut s = load_n::<N>(c);
    rounds::<DEC, N, NR>(k, &mut s);
    store_n(&s, c);
}

#[target_feature(enable = "aes,sse2,ssse3")]
fn blocks_ni<const DEC: bool>(k: &Keys, nr: usize, blocks: &mut [u8]) {
    with_rounds!(nr, NR => blocks_k::<DEC, NR>(k, blocks))
}

/// ECB over whole blocks with `NR` rounds: [`LANES`] blocks at a time, then the tail.
#[target_feature(enable = "aes,sse2,ssse3")]
fn blocks_k<const DEC: bool, const NR: usize>(k: &Keys, blocks: &mut [u8]) {
    let n = blocks.len();
    let mut i = 0;
    while i + 16 * LANES <= n {
        ecb_n::<DEC, LANES, NR>(k, &mut blocks[i..]);
        i += 16 * LANES;
    }
    // The tail, fewer than LANES blocks, in at most three interleaved passes.
    let rest = (n - i) / 16;
    if rest & 4 != 0 {
        ecb_n::<DEC, 4, NR>(k, &mut blocks[i..]);
        i += 64;
    }
    if rest & 2 != 0 {
        ecb_n::<DEC, 2, NR>(k, &mut blocks[i..]);
        i += 32;
    }
    if rest & 1 != 0 {
        ecb_n::<DEC, 1, NR>(k, &mut blocks[i..]);
    }
}
