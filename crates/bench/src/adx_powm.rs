//! A constant-time modular exponentiation built on the raw ADX kernels alone (fixed 5-bit
//! window, almost-Montgomery inside the loop), to compare the kernels' estimate with a
//! whole exponentiation and with GMP's `mpz_powm_sec` (`benches/adx.rs`).

use cryptocard::bignum::Limb;
use cryptocard::ct::{Choice, conditional_copy, select_from_table};
use cryptocard::hazmat::adx::{Adx, mont_mul_raw, mont_sqr_raw};
use cryptocard::hazmat::{sbb, sub_n};
use num_bigint::BigUint;

/// The number with little-endian limbs `x`.
pub fn to_big(x: &[Limb]) -> BigUint {
    BigUint::from_slice(&x.iter().flat_map(|&l| [l as u32, (l >> 32) as u32]).collect::<Vec<_>>())
}

/// `x` as `k` little-endian limbs.
pub fn from_big(x: &BigUint, k: usize) -> Vec<Limb> {
    let mut v = x.to_u64_digits();
    v.resize(k, 0);
    v
}

/// `x`'s limbs as big-endian bytes (for the byte-oriented peers).
pub fn to_be_bytes(x: &[Limb]) -> Vec<u8> {
    x.iter().rev().flat_map(|l| l.to_be_bytes()).collect()
}

/// A random odd `k`-limb modulus with its top bit set (from `seed`), with
/// `n0 = -n^-1 mod 2^64` and `rr = R^2 mod n`.
pub fn setup(k: usize, seed: &mut u64) -> (Vec<Limb>, Limb, Vec<Limb>) {
    let mut n = crate::workload::random_limbs(seed, k);
    n[0] |= 1;
    n[k - 1] |= 1 << 63;
    let mut x = n[0];
    for _ in 0..6 {
        x = x.wrapping_mul(2u64.wrapping_sub(n[0].wrapping_mul(x)));
    }
    let rr = (BigUint::from(1u8) << (128 * k)) % to_big(&n);
    (n.clone(), x.wrapping_neg(), from_big(&rr, k))
}

/// `r = (c*R + r) mod n` for `c*R + r < 2n`: subtract `n` unless that borrows past `c`.
fn reduce_once(r: &mut [Limb], c: Limb, n: &[Limb], scratch: &mut [Limb]) {
    let borrow = sub_n(scratch, r, n);
    conditional_copy(Choice::from_bit(c | (borrow ^ 1)), r, scratch);
}

/// Brings `c*R + r < R + n` back below `R` (not necessarily below `n`): subtract `n`
/// exactly when `c` is 1, with a mask (almost-Montgomery form, Dusse-Kaliski Theorem 2).
fn fold_carry(r: &mut [Limb], c: Limb, n: &[Limb]) {
    let m = Choice::from_bit(c).mask();
    let mut borrow = 0;
    for (r, &n) in r.iter_mut().zip(n) {
        (*r, borrow) = sbb(*r, n & m, borrow);
    }
}

/// `base^e mod n` with a fixed 5-bit window over all `64k` exponent bits, in Montgomery
/// form throughout: `rr` = R^2 mod n. Inside the loop values stay below `R` only (the
/// carry is folded back with a masked subtraction); the result is reduced fully.
pub fn ct_powm(
    adx: Adx,
    base: &[Limb],
    e: &[Limb],
    n: &[Limb],
    n0: Limb,
    rr: &[Limb],
) -> Vec<Limb> {
    const W: usize = 5;
    let k = n.len();
    let mut s = vec![0; k];
    let mut table = vec![0; k << W];
    let mut one = vec![0; k];
    one[0] = 1;
    let c = mont_mul_raw(adx, &mut table[..k], &one, rr, n, n0); // R mod n
    reduce_once(&mut table[..k], c, n, &mut s);
    let c = mont_mul_raw(adx, &mut table[k..2 * k], base, rr, n, n0);
    reduce_once(&mut table[k..2 * k], c, n, &mut s);
    for i in 2..1 << W {
        let (lo, hi) = table.split_at_mut(i * k);
        let c = mont_mul_raw(adx, &mut hi[..k], &lo[(i - 1) * k..], &lo[k..2 * k], n, n0);
        reduce_once(&mut hi[..k], c, n, &mut s);
    }
    let bits = 64 * k;
    let window = |top: usize, w: usize| -> usize {
        (0..w).fold(0, |acc, j| acc << 1 | (e[(top - j) / 64] >> ((top - j) % 64) & 1) as usize)
    };
    let first = bits % W;
    let first = if first == 0 { W } else { first };
    let mut acc = vec![0; k];
    let mut tmp = vec![0; k];
    let mut sel = vec![0; k];
    select_from_table(&mut acc, &table, window(bits - 1, first));
    let mut top = bits - first;
    while top > 0 {
        for _ in 0..W {
            let c = mont_sqr_raw(adx, &mut tmp, &acc, n, n0);
            fold_carry(&mut tmp, c, n);
            std::mem::swap(&mut acc, &mut tmp);
        }
        select_from_table(&mut sel, &table, window(top - 1, W));
        let c = mont_mul_raw(adx, &mut tmp, &acc, &sel, n, n0);
        fold_carry(&mut tmp, c, n);
        std::mem::swap(&mut acc, &mut tmp);
        top -= W;
    }
    let c = mont_mul_raw(adx, &mut tmp, &acc, &one, n, n0);
    reduce_once(&mut tmp, c, n, &mut s);
    tmp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::random_limbs;

    #[test]
    fn ct_powm_matches_num_bigint() {
        let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
        let mut seed = 5;
        for k in [1, 2, 3, 8, 16, 17] {
            let (n, n0, rr) = setup(k, &mut seed);
            let b = from_big(&(to_big(&random_limbs(&mut seed, k)) % to_big(&n)), k);
            let e = random_limbs(&mut seed, k);
            let want = to_big(&b).modpow(&to_big(&e), &to_big(&n));
            assert_eq!(to_big(&ct_powm(adx, &b, &e, &n, n0, &rr)), want, "k = {k}");
        }
    }

    #[test]
    fn byte_conversion_is_big_endian() {
        assert_eq!(to_be_bytes(&[0x0102, 0x03]), [0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 1, 2]);
    }
}
