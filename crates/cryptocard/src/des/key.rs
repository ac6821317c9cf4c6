//! DES key hygiene: odd parity (FIPS 46-3, "Key Schedule Calculation": bits 8, 16, ..., 64
//! make each byte's weight odd) and the weak and semi-weak keys (FIPS 74 section 3.6;
//! NIST SP 800-67 Rev. 2 section 3.3.2).
//!
//! Parity bits are ignored on use, so a key with wrong parity works exactly as the same key
//! with corrected parity (OpenSSL's `DES_set_key_unchecked`); [`has_odd_parity`] and
//! [`set_odd_parity`] are for callers that want to check or produce conforming keys.
//!
//! A weak key `K` makes encryption an involution (`E_K(E_K(x)) = x`): its sixteen round
//! keys are all equal. A semi-weak pair `K1, K2` has `E_K1(E_K2(x)) = x`. The comparison
//! ignores parity bits and runs in constant time; it leaks only the yes/no answer.

use crate::ct;

/// The four weak keys (SP 800-67 Rev. 2, section 3.3.2), with odd parity.
pub const WEAK_KEYS: [u64; 4] =
    [0x0101_0101_0101_0101, 0xfefe_fefe_fefe_fefe, 0xe0e0_e0e0_f1f1_f1f1, 0x1f1f_1f1f_0e0e_0e0e];

/// The twelve semi-weak keys, as six pairs `(K1, K2)` with `E_K1(E_K2(x)) = x`
/// (SP 800-67 Rev. 2, section 3.3.2), with odd parity.
pub const SEMI_WEAK_KEY_PAIRS: [(u64, u64); 6] = [
    (0x01fe_01fe_01fe_01fe, 0xfe01_fe01_fe01_fe01),
    (0x1fe0_1fe0_0ef1_0ef1, 0xe01f_e01f_f10e_f10e),
    (0x01e0_01e0_01f1_01f1, 0xe001_e001_f101_f101),
    (0x1ffe_1ffe_0efe_0efe, 0xfe1f_fe1f_fe0e_fe0e),
    (0x011f_011f_010e_010e, 0x1f01_1f01_0e01_0e01),
    (0xe0fe_e0fe_f1fe_f1fe, 0xfee0_fee0_fef1_fef1),
];

/// The bits of a DES key that take part in the cipher (all but the parity bits).
const KEY_BITS: u64 = 0xfefe_fefe_fefe_fefe;

/// True when `key` is one of the 4 weak or 12 semi-weak DES keys, whatever its parity
/// bits. Constant time: every list entry is compared.
pub fn is_weak_key(key: &[u8; 8]) -> bool {
    let k = u64::from_be_bytes(*key) & KEY_BITS;
    let mut hit = ct::Choice::FALSE;
    for &w in WEAK_KEYS.iter() {
        hit = hit | ct::eq(k, w & KEY_BITS);
    }
    for &(a, b) in SEMI_WEAK_KEY_PAIRS.iter() {
        hit = hit | ct::eq(k, a & KEY_BITS) | ct::eq(k, b & KEY_BITS);
    }
    hit.declassify()
}

/// True when every byte of `key` has an odd number of set bits (FIPS 46-3 odd parity).
pub fn has_odd_parity(key: &[u8]) -> bool {
    key.iter().fold(1u32, |ok, &b| ok & (b.count_ones() & 1)) == 1
}

/// Sets the low bit of every byte of `key` so that the byte has odd parity; the other seven
/// bits (the key bits proper) are unchanged.
pub fn set_odd_parity(key: &mut [u8]) {
    for b in key.iter_mut() {
        let high = *b & 0xfe;
        *b = high | (!high.count_ones() as u8 & 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_keys_have_odd_parity_and_parity_fix_is_idempotent() {
        for &w in &WEAK_KEYS {
            assert!(has_odd_parity(&w.to_be_bytes()));
        }
        for &(a, b) in &SEMI_WEAK_KEY_PAIRS {
            assert!(has_odd_parity(&a.to_be_bytes()) && has_odd_parity(&b.to_be_bytes()));
        }
        for v in 0..=255u8 {
            let mut k = [v; 3];
            set_odd_parity(&mut k);
            assert!(has_odd_parity(&k));
            assert_eq!(k[0] & 0xfe, v & 0xfe);
            assert_eq!(has_odd_parity(&[v]), v.count_ones() % 2 == 1);
        }
    }

    #[test]
    fn weak_keys_are_found_with_any_parity() {
        assert!(is_weak_key(&0x0101_0101_0101_0101u64.to_be_bytes()));
        assert!(is_weak_key(&0x0000_0000_0000_0000u64.to_be_bytes()));
        assert!(is_weak_key(&0xfe00_fe00_fe00_fe00u64.to_be_bytes()));
        assert!(!is_weak_key(&0x0123_4567_89ab_cdefu64.to_be_bytes()));
        assert!(!is_weak_key(&0x0101_0101_0101_0103u64.to_be_bytes()));
    }
}
