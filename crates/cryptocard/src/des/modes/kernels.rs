//! Whole-block kernels of the modes of operation (FIPS 81; NIST SP 800-38A sections 6.1
//! to 6.5), generic over the crate's 64-bit block ciphers.
//!
//! Contract for every kernel: `input.len() == output.len()`, a multiple of 8 (checked by
//! the caller: `crate::des::modes::ctx`); `input` and `output` do not overlap (they are
//! distinct borrows). The chaining value (`iv`) is a big-endian `u64` updated in place so
//! that a later call continues the stream.
//!
//! Serial modes (CBC and CFB-64 encryption, OFB) run their chain on the internal expanded
//! halves (`feistel` module docs), so each block costs the rounds plus one XOR on the
//! critical path; IP, E and IP^-1 of the neighbouring blocks overlap with it. Parallel
//! modes (ECB, CBC and CFB-64 decryption, CTR) interleave three blocks.

use crate::des::cipher::sealed::Inner;
use crate::des::feistel::{Halves, fp_contract, ip_expand};

/// Blocks per stage of the serial kernels: IP of a stage's blocks runs first, then the
/// chain (512 bytes of input, 1 KiB of stack; tuned on AMD Zen 4 with `cargo bench -p
/// cryptocard-bench --bench des`; rerun it to retune).
const STAGE: usize = 64;

/// Blocks interleaved by the parallel kernels (ECB, CTR, CBC and CFB-64 decryption). Tuned
/// on AMD Zen 4 with the `des` benchmark of `crates/bench`: 3 lanes fill the rounds' load
/// latency where 2 leave it partly idle, and 4 gain nothing and spill registers.
const LANES: usize = 3;

#[inline(always)]
fn load(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    u64::from_be_bytes(a)
}

#[inline(always)]
fn store(b: &mut [u8], v: u64) {
    b.copy_from_slice(&v.to_be_bytes());
}

#[inline(always)]
fn enc_or_dec<C: Inner, const DEC: bool>(c: &C, s: Halves) -> Halves {
    if DEC { c.decrypt_inner(s) } else { c.encrypt_inner(s) }
}

/// Applies the block function (or its inverse, `DEC`) to [`LANES`] blocks at once, then
/// to the rest one by one: block i goes in as `pre(i, block)` and comes out as
/// `post(i, result)`.
#[inline(always)]
fn blocks_par<C: Inner, const DEC: bool>(
    c: &C,
    input: &[u8],
    output: &mut [u8],
    mut pre: impl FnMut(usize, u64) -> u64,
    mut post: impl FnMut(usize, u64) -> u64,
) {
    let n = input.len() / 8;
    let mut i = 0;
    while i + LANES <= n {
        let mut s = [Halves { l: 0, r: 0 }; LANES];
        for (j, h) in s.iter_mut().enumerate() {
            *h = ip_expand(pre(i + j, load(&input[8 * (i + j)..8 * (i + j) + 8])));
        }
        if DEC {
            c.decrypt_inner_par(&mut s)
        } else {
            c.encrypt_inner_par(&mut s)
        }
        for (j, h) in s.iter().enumerate() {
            store(&mut output[8 * (i + j)..8 * (i + j) + 8], post(i + j, fp_contract(*h)));
        }
        i += LANES;
    }
    while i < n {
        let s = enc_or_dec::<C, DEC>(c, ip_expand(pre(i, load(&input[8 * i..8 * i + 8]))));
        store(&mut output[8 * i..8 * i + 8], post(i, fp_contract(s)));
        i += 1;
    }
}

/// ECB (SP 800-38A 6.1): `C_i = E(P_i)`, or `P_i = D(C_i)` with `DEC`.
pub(crate) fn ecb<C: Inner, const DEC: bool>(c: &C, input: &[u8], output: &mut [u8]) {
    blocks_par::<C, DEC>(c, input, output, |_, x| x, |_, y| y);
}

/// A serial chain on the internal halves, in stages of [`STAGE`] blocks: IP of the
/// stage's input blocks first, then `s = step(s, IP(x_i))` block after block (the chain),
/// each `s` leaving through IP^-1 into `output` if there is one. IP, which does not
/// depend on the chain, runs ahead at full throughput instead of competing with the
/// chain for ALU ports and scheduler slots (inline it cost a noticeable part of a block
/// on Zen 4); IP^-1, which depends on it, overlaps with the next block's rounds.
#[inline(always)]
fn serial<C: Inner>(
    c: &C,
    iv: &mut u64,
    input: &[u8],
    mut output: Option<&mut [u8]>,
    step: impl Fn(&C, Halves, Halves) -> Halves,
) {
    let mut s = ip_expand(*iv);
    let mut buf = [Halves { l: 0, r: 0 }; STAGE];
    for (n, x) in input.chunks(8 * STAGE).enumerate() {
        let buf = &mut buf[..x.len() / 8];
        for (h, x) in buf.iter_mut().zip(x.chunks_exact(8)) {
            *h = ip_expand(load(x));
        }
        match output.as_deref_mut() {
            Some(out) => {
                let out = &mut out[8 * STAGE * n..];
                for (h, y) in buf.iter().zip(out.chunks_exact_mut(8)) {
                    s = step(c, s, *h);
                    store(y, fp_contract(s));
                }
            }
            None => {
                for h in buf.iter() {
                    s = step(c, s, *h);
                }
            }
        }
    }
    *iv = fp_contract(s);
}

/// CBC encryption (SP 800-38A 6.2): `C_i = E(P_i xor C_{i-1})`, `C_0 = IV`. The chain
/// runs on the internal halves: `IP(P_i xor C_{i-1}) = IP(P_i) xor state_{i-1}`.
pub(crate) fn cbc_encrypt<C: Inner>(c: &C, iv: &mut u64, input: &[u8], output: &mut [u8]) {
    serial(c, iv, input, Some(output), |c, s, x| c.encrypt_inner(s ^ x));
}

/// The CBC-MAC chain (ISO/IEC 9797-1 MAC algorithm 1): `H_i = E(D_i xor H_{i-1})` with no
/// output; `h` is `H_0` on entry and `H_q` on return.
pub(crate) fn cbc_mac_blocks<C: Inner>(c: &C, h: &mut u64, input: &[u8]) {
    serial(c, h, input, None, |c, s, x| c.encrypt_inner(s ^ x));
}

/// CBC decryption: `P_i = D(C_i) xor C_{i-1}`, [`LANES`] blocks at a time.
pub(crate) fn cbc_decrypt<C: Inner>(c: &C, iv: &mut u64, input: &[u8], output: &mut [u8]) {
    if input.is_empty() {
        return;
    }
    let first = *iv;
    let prev = |i: usize| if i == 0 { first } else { load(&input[8 * i - 8..8 * i]) };
    blocks_par::<C, true>(c, input, output, |_, x| x, |i, y| y ^ prev(i));
    *iv = load(&input[input.len() - 8..]);
}

/// CFB-64 encryption (SP 800-38A 6.3, s = 64): `C_i = P_i xor E(C_{i-1})`. On the internal
/// halves `IP(C_i) = IP(P_i) xor rounds(IP(C_{i-1}))`, so the chain skips IP and IP^-1.
pub(crate) fn cfb64_encrypt<C: Inner>(c: &C, iv: &mut u64, input: &[u8], output: &mut [u8]) {
    serial(c, iv, input, Some(output), |c, s, x| c.encrypt_inner(s) ^ x);
}

/// CFB-64 decryption: `P_i = C_i xor E(C_{i-1})`, [`LANES`] blocks at a time.
pub(crate) fn cfb64_decrypt<C: Inner>(c: &C, iv: &mut u64, input: &[u8], output: &mut [u8]) {
    if input.is_empty() {
        return;
    }
    let first = *iv;
    let prev = |i: usize| if i == 0 { first } else { load(&input[8 * i - 8..8 * i]) };
    let cur = |i: usize| load(&input[8 * i..8 * i + 8]);
    blocks_par::<C, false>(c, input, output, |i, _| prev(i), |i, y| y ^ cur(i));
    *iv = load(&input[input.len() - 8..]);
}

/// OFB (SP 800-38A 6.4): `O_i = E(O_{i-1})`, `O_0 = IV`, output `X_i xor O_i` (the same
/// both ways). `iv` ends as the last `O_i`.
pub(crate) fn ofb<C: Inner>(c: &C, iv: &mut u64, input: &[u8], output: &mut [u8]) {
    let mut s = ip_expand(*iv);
    for (i, o) in input.chunks_exact(8).zip(output.chunks_exact_mut(8)) {
        s = c.encrypt_inner(s);
        store(o, load(i) ^ fp_contract(s));
    }
    *iv = fp_contract(s);
}

/// CTR (SP 800-38A 6.5): `X_i xor E(T_i)` with `T_i = IV + i mod 2^64`, the whole block a
/// big-endian counter. `ctr` ends as the next unused counter block.
pub(crate) fn ctr<C: Inner>(c: &C, ctr: &mut u64, input: &[u8], output: &mut [u8]) {
    let t0 = *ctr;
    let cur = |i: usize| load(&input[8 * i..8 * i + 8]);
    blocks_par::<C, false>(c, input, output, |i, _| t0.wrapping_add(i as u64), |i, y| y ^ cur(i));
    *ctr = t0.wrapping_add((input.len() / 8) as u64);
}

/// CFB-8 decryption (SP 800-38A 6.3, s = 8): `P_i = C_i xor MSB_8(E(I_i))` with
/// `I_{i+1} = (I_i << 8) | C_i`. The registers depend on ciphertext only, so [`LANES`]
/// bytes are decrypted at once. `reg` ends as the next register.
pub(crate) fn cfb8_decrypt<C: Inner>(c: &C, reg: &mut u64, input: &[u8], output: &mut [u8]) {
    let mut r = *reg;
    let mut ins = input.chunks_exact(LANES);
    let mut outs = output.chunks_exact_mut(LANES);
    for (x, y) in ins.by_ref().zip(outs.by_ref()) {
        let mut s = [Halves { l: 0, r: 0 }; LANES];
        for (h, &b) in s.iter_mut().zip(x) {
            *h = ip_expand(r);
            r = (r << 8) | b as u64;
        }
        c.encrypt_inner_par(&mut s);
        for ((o, &b), h) in y.iter_mut().zip(x).zip(&s) {
            *o = b ^ (fp_contract(*h) >> 56) as u8;
        }
    }
    for (o, &b) in outs.into_remainder().iter_mut().zip(ins.remainder()) {
        *o = b ^ (fp_contract(c.encrypt_inner(ip_expand(r))) >> 56) as u8;
        r = (r << 8) | b as u64;
    }
    *reg = r;
}
