//! The portable, constant-time AES (FIPS 197): the key expansion (section 5.2), the cipher
//! (5.1) and the inverse cipher (5.3), with no table indexed by a secret and no branch on
//! one.
//!
//! The S-box is computed, not looked up: `SubBytes(x) = A(x^254) ^ 0x63` (section 5.1.1),
//! the inversion in GF(2^8) by square-and-multiply with a fixed chain (7 squarings, 6
//! multiplications), the multiplication by shift-and-masked-XOR. All sixteen bytes of the
//! state are held in one `u128` (byte `i` of the block in bits `8i..8i+8`, so column `c`
//! is the 32-bit lane `c`) and every step works on the sixteen bytes at once (SIMD within
//! a register): `xtime` of every byte is one shift, one mask and one multiplication by
//! `0x1b` of a 0/1 byte vector, which cannot carry across bytes. Each operation is a
//! fixed sequence of shifts, ANDs, XORs and constant multiplications, whatever the data.
//!
//! Slower than a table (about 13 GF multiplications a round for SubBytes), which matters
//! little: this is the fallback for CPUs without AES-NI and the reference AES-NI is tested
//! against.

/// `0x01` in every byte.
const ONES: u128 = u128::MAX / 0xff;

/// Every byte doubled in GF(2^8) mod `x^8 + x^4 + x^3 + x + 1` (section 4.2.1).
#[inline(always)]
fn xtime(a: u128) -> u128 {
    ((a & (ONES * 0x7f)) << 1) ^ (((a >> 7) & ONES) * 0x1b)
}

/// Bytewise GF(2^8) products `a_i * b_i` (section 4.2), in eight masked steps.
#[inline(always)]
fn gmul(mut a: u128, b: u128) -> u128 {
    let mut r = 0;
    for i in 0..8 {
        r ^= a & (((b >> i) & ONES) * 0xff);
        a = xtime(a);
    }
    r
}

/// Bytewise inverses in GF(2^8), with 0 mapped to 0: `x^254 = x^(2+4+...+128)`.
#[inline(always)]
fn ginv(x: u128) -> u128 {
    let mut p = gmul(x, x);
    let mut r = p;
    for _ in 0..6 {
        p = gmul(p, p);
        r = gmul(r, p);
    }
    r
}

/// Every byte rotated left by `k` bits.
#[inline(always)]
fn rotl8(x: u128, k: u32) -> u128 {
    ((x << k) & (ONES * ((0xff << k) & 0xff))) | ((x >> (8 - k)) & (ONES * ((1 << k) - 1)))
}

/// SubBytes (section 5.1.1) on all sixteen bytes.
#[inline(always)]
fn sub_bytes(x: u128) -> u128 {
    let b = ginv(x);
    b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4) ^ (ONES * 0x63)
}

/// InvSubBytes (section 5.3.2): the inverse affine map, then the inversion.
#[inline(always)]
fn inv_sub_bytes(y: u128) -> u128 {
    ginv(rotl8(y, 1) ^ rotl8(y, 3) ^ rotl8(y, 6) ^ (ONES * 0x05))
}

/// ShiftRows (section 5.1.2), or its inverse: row `r` of column `c` (byte `r + 4c`) comes
/// from column `c + r` (`c - r` for the inverse). A fixed permutation of positions.
#[inline(always)]
fn shift_rows<const INV: bool>(x: u128) -> u128 {
    let s = x.to_le_bytes();
    let mut t = [0u8; 16];
    for (i, b) in t.iter_mut().enumerate() {
        let (r, c) = (i % 4, i / 4);
        let from = if INV { (c + 4 - r) % 4 } else { (c + r) % 4 };
        *b = s[r + 4 * from];
    }
    u128::from_le_bytes(t)
}

/// Each column's bytes moved up by `k` rows: row `r` receives row `r + k mod 4`.
#[inline(always)]
fn rot_rows(x: u128, k: u32) -> u128 {
    let lanes = u128::MAX / 0xffff_ffff;
    let keep = lanes * (0xffff_ffff >> (8 * k));
    ((x >> (8 * k)) & keep) | ((x << (32 - 8 * k)) & !keep)
}

/// MixColumns (section 5.1.3): `b_r = 2 a_r ^ 3 a_{r+1} ^ a_{r+2} ^ a_{r+3}`.
#[inline(always)]
fn mix_columns(a: u128) -> u128 {
    let a1 = rot_rows(a, 1);
    xtime(a ^ a1) ^ a1 ^ rot_rows(a, 2) ^ rot_rows(a, 3)
}

/// InvMixColumns (section 5.3.3): `b_r = 14 a_r ^ 11 a_{r+1} ^ 13 a_{r+2} ^ 9 a_{r+3}`.
#[inline(always)]
fn inv_mix_columns(a: u128) -> u128 {
    let (a2, a4, a8) = (xtime(a), xtime(xtime(a)), xtime(xtime(xtime(a))));
    (a8 ^ a4 ^ a2) ^ rot_rows(a8 ^ a2 ^ a, 1) ^ rot_rows(a8 ^ a4 ^ a, 2) ^ rot_rows(a8 ^ a, 3)
}

/// The key expansion (section 5.2) of a 16-, 24- or 32-byte key into `Nr + 1` round keys,
/// `Nr = Nk + 6`. `key.len()` is checked by the caller. Constant time: SubWord is the
/// computed S-box.
pub(super) fn expand_key(key: &[u8], rk: &mut [[u8; 16]; 15]) -> usize {
    let nk = key.len() / 4;
    let nr = nk + 6;
    let mut w = [[0u8; 4]; 60];
    for (wi, k) in w.iter_mut().zip(key.chunks_exact(4)) {
        wi.copy_from_slice(k);
    }
    let mut rcon = 1u8;
    for i in nk..4 * (nr + 1) {
        let mut t = w[i - 1];
        if i % nk == 0 || (nk > 6 && i % nk == 4) {
            if i % nk == 0 {
                t.rotate_left(1);
            }
            let s = sub_bytes(u32::from_le_bytes(t) as u128).to_le_bytes();
            t.copy_from_slice(&s[..4]);
            if i % nk == 0 {
                t[0] ^= rcon;
                rcon = xtime(rcon as u128) as u8;
            }
        }
        for (j, b) in t.iter().enumerate() {
            w[i][j] = w[i - nk][j] ^ b;
        }
    }
    for (r, k) in rk.iter_mut().enumerate().take(nr + 1) {
        for c in 0..4 {
            k[4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c]);
        }
    }
    zeroize::Zeroize::zeroize(&mut w);
    nr
}

/// The cipher (section 5.1, Figure 5) on one block with `nr` rounds.
pub(super) fn encrypt(rk: &[[u8; 16]; 15], nr: usize, block: &mut [u8; 16]) {
    let key = |r: usize| u128::from_le_bytes(rk[r]);
    let mut s = u128::from_le_bytes(*block) ^ key(0);
    for r in 1..nr {
        s = mix_columns(shift_rows::<false>(sub_bytes(s))) ^ key(r);
    }
    s = shift_rows::<false>(sub_bytes(s)) ^ key(nr);
    *block = s.to_le_bytes();
}

/// The inverse cipher (section 5.3, Figure 12) on one block with `nr` rounds.
pub(super) fn decrypt(rk: &[[u8; 16]; 15], nr: usize, block: &mut [u8; 16]) {
    let key = |r: usize| u128::from_le_bytes(rk[r]);
    let mut s = u128::from_le_bytes(*block) ^ key(nr);
    for r in (1..nr).rev() {
        s = inv_mix_columns(inv_sub_bytes(shift_rows::<true>(s)) ^ key(r));
    }
    s = inv_sub_bytes(shift_rows::<true>(s)) ^ key(0);
    *block = s.to_le_bytes();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The S-box of FIPS 197 Figure 7, spot-checked, and InvSubBytes its inverse on all 256.
    #[test]
    fn sbox_matches_figure_7_and_inverts() {
        let sb = |x: u8| sub_bytes(x as u128) as u8;
        assert_eq!(sb(0x00), 0x63);
        assert_eq!(sb(0x01), 0x7c);
        assert_eq!(sb(0x53), 0xed);
        assert_eq!(sb(0xff), 0x16);
        assert_eq!(sb(0x9a), 0xb8);
        let mut seen = [false; 256];
        for x in 0..=255u8 {
            let y = sb(x);
            seen[y as usize] = true;
            assert_eq!(inv_sub_bytes(y as u128) as u8, x);
        }
        assert!(seen.iter().all(|&s| s));
    }

    /// Section 4.2.1's example: {57} * {13} = {fe}; and the columns of section 5.1.3 undo.
    #[test]
    fn field_and_mixing() {
        assert_eq!(gmul(0x57, 0x13), 0xfe);
        let x = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        assert_eq!(inv_mix_columns(mix_columns(x)), x);
        assert_eq!(shift_rows::<true>(shift_rows::<false>(x)), x);
        // MixColumns of the column db 13 53 45 is 8e 4d a1 bc (a common worked example).
        assert_eq!(mix_columns(0x4553_13db) as u32, 0xbca1_4d8e);
    }
}
