//! Whole-block kernels of the AES modes of operation (NIST SP 800-38A sections 6.1 to
//! 6.5) on 16-byte blocks.
//!
//! Contract for every kernel: `input.len() == output.len()`, a multiple of 16 (checked by
//! the caller, `super::ctx`); the chaining value `iv` is updated in place so that a later
//! call continues the stream. The parallel modes (ECB, CTR, CBC and CFB decryption) lay
//! their cipher inputs out in `output` and run them through [`Aes::encrypt_blocks`] in
//! one call, which AES-NI interleaves eight blocks at a time and VAES sixteen (CTR, CBC
//! and CFB decryption go to fused kernels instead on both, counters or chaining XOR kept
//! in registers; the layout is the portable path's); the serial chains (CBC and CFB
//! encryption, OFB) go block by block through `Aes::chain`, which on AES-NI keeps the
//! round keys in registers across blocks and nothing but the rounds on the chain.

use crate::aes::{Aes, Chain};
use zeroize::Zeroize;

#[inline(always)]
fn xor_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}

/// ECB (SP 800-38A 6.1): `C_i = E(P_i)`, or `P_i = D(C_i)` with `DEC`.
pub(super) fn ecb<const DEC: bool>(c: &Aes, input: &[u8], output: &mut [u8]) {
    output.copy_from_slice(input);
    if DEC { c.decrypt_blocks(output) } else { c.encrypt_blocks(output) }
}

/// CBC encryption (SP 800-38A 6.2): `C_i = E(P_i xor C_{i-1})`, `C_0 = IV`.
pub(super) fn cbc_encrypt(c: &Aes, iv: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
    c.chain(Chain::Cbc, iv, input, output);
}

/// The "previous block" sequence of CBC and CFB decryption, `C_{i-1}` with `C_0 = IV`,
/// written to `output`; `iv` becomes the last ciphertext block.
fn previous_blocks(iv: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
    let n = input.len();
    if n == 0 {
        return;
    }
    output[..16].copy_from_slice(iv);
    output[16..].copy_from_slice(&input[..n - 16]);
    iv.copy_from_slice(&input[n - 16..]);
}

/// CBC decryption: `P_i = D(C_i) xor C_{i-1}`, all blocks through the cipher at once.
pub(super) fn cbc_decrypt(c: &Aes, iv: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
    if c.chained_decrypt_fused::<false>(iv, input, output) {
        return;
    }
    let n = input.len();
    if n == 0 {
        return;
    }
    output.copy_from_slice(input);
    c.decrypt_blocks(output);
    xor_into(&mut output[..16], iv);
    xor_into(&mut output[16..], &input[..n - 16]);
    iv.copy_from_slice(&input[n - 16..]);
}

/// CFB-128 encryption (SP 800-38A 6.3, s = 128): `C_i = P_i xor E(C_{i-1})`.
pub(super) fn cfb_encrypt(c: &Aes, iv: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
    c.chain(Chain::Cfb, iv, input, output);
}

/// CFB-128 decryption: `P_i = C_i xor E(C_{i-1})`, all blocks through the cipher at once.
pub(super) fn cfb_decrypt(c: &Aes, iv: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
    if c.chained_decrypt_fused::<true>(iv, input, output) {
        return;
    }
    previous_blocks(iv, input, output);
    c.encrypt_blocks(output);
    xor_into(output, input);
}

/// OFB (SP 800-38A 6.4): `O_i = E(O_{i-1})`, `O_0 = IV`, output `X_i xor O_i` (the same
/// both ways). `iv` ends as the last `O_i`.
pub(super) fn ofb(c: &Aes, iv: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
    c.chain(Chain::Ofb, iv, input, output);
}

/// CTR (SP 800-38A 6.5): `X_i xor E(T_i)` with `T_i = IV + i mod 2^128`, the whole block a
/// big-endian counter (Appendix B.1's standard incrementing function with m = 128, as
/// OpenSSL's `aes-*-ctr`). `ctr` ends as the next unused counter block.
pub(super) fn ctr(c: &Aes, ctr: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
    if c.ctr_fused(ctr, input, output) {
        return;
    }
    let mut t = u128::from_be_bytes(*ctr);
    for y in output.chunks_exact_mut(16) {
        y.copy_from_slice(&t.to_be_bytes());
        t = t.wrapping_add(1);
    }
    c.encrypt_blocks(output);
    xor_into(output, input);
    *ctr = t.to_be_bytes();
}

/// CFB-8 decryption (SP 800-38A 6.3, s = 8): `P_i = C_i xor MSB_8(E(I_i))` with
/// `I_{i+1} = (I_i << 8) | C_i`. The registers depend on ciphertext only, so they are
/// laid out a stage at a time and encrypted together. `reg` ends as the next register.
pub(super) fn cfb8_decrypt(c: &Aes, reg: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
    const STAGE: usize = 8;
    let mut regs = [0u8; 16 * STAGE];
    for (x, y) in input.chunks(STAGE).zip(output.chunks_mut(STAGE)) {
        let regs = &mut regs[..16 * x.len()];
        for (r, &b) in regs.chunks_exact_mut(16).zip(x) {
            r.copy_from_slice(reg);
            reg.copy_within(1.., 0);
            reg[15] = b;
        }
        c.encrypt_blocks(regs);
        for ((o, &b), r) in y.iter_mut().zip(x).zip(regs.chunks_exact(16)) {
            *o = b ^ r[0];
        }
    }
    regs.zeroize();
}

/// CFB-8 encryption: serial, each register takes the ciphertext byte just made.
pub(super) fn cfb8_encrypt(c: &Aes, reg: &mut [u8; 16], input: &[u8], output: &mut [u8]) {
    for (o, &x) in output.iter_mut().zip(input) {
        let mut k = *reg;
        c.encrypt_blocks(&mut k);
        *o = x ^ k[0];
        reg.copy_within(1.., 0);
        reg[15] = *o;
        k.zeroize();
    }
}
