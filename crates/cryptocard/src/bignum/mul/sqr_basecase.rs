//! Dedicated schoolbook squaring by product scanning.
//!
//! In a square every off-diagonal product appears twice, `a_i a_j = a_j a_i`, so column
//! `k` of `a^2` is
//!
//! ```text
//! c_k = 2 · Σ_{i<j, i+j=k} a_i a_j  +  (a_{k/2})^2 if k is even
//! ```
//!
//! Computing each off-diagonal product once and doubling the column sum costs
//! `n(n-1)/2 + n` multiplications instead of `n^2`: about half, which is the saving
//! Markovic, Unkasevic and Djordjevic measure on the TMS320C54x ("RSA algorithm
//! optimization on assembler of TI TMS320C54x", section 3) and Dusse and Kaliski use for
//! Montgomery squaring on the DSP56000.
//!
//! Carry bound: the off-diagonal half-sum of a column has at most `n/2` products below
//! `B^2`; doubled, plus one diagonal square, plus the carry in from the previous column
//! (below `(n + 2)·B`) it stays below `(n + 2)·B^2`, three limbs for any `n < 2^64 - 2`.
//! The doubling is a one-bit shift of the three-limb half-sum, done before the diagonal
//! and the carry are added (the carry must not be doubled).
//!
//! Time depends only on the length.

use crate::bignum::limb::{LIMB_BITS, Limb, WideLimb};

/// `r = a^2`. Contract: `r.len() == 2 * a.len()`, `a` not empty; `r` is written, never
/// read. Time depends only on the length.
pub fn sqr_basecase(r: &mut [Limb], a: &[Limb]) {
    assert!(!a.is_empty(), "internal error: sqr_basecase empty input");
    assert_eq!(r.len(), 2 * a.len(), "internal error: sqr_basecase lengths");
    let n = a.len();
    // Carry into the current column: a two-limb value (see the bound above).
    let mut carry: WideLimb = 0;
    for (k, rk) in r[..2 * n - 1].iter_mut().enumerate() {
        // Off-diagonal products a_i a_j with i < j, i + j = k.
        let lo = k.saturating_sub(n - 1);
        let hi = k.div_ceil(2); // exclusive: i < k - i
        let mut half: WideLimb = 0;
        let mut top: Limb = 0;
        if lo < hi {
            let ai = &a[lo..hi];
            let aj = &a[k + 1 - hi..=k - lo];
            for (&x, &y) in ai.iter().zip(aj.iter().rev()) {
                let (s, o) = half.overflowing_add((x as WideLimb) * (y as WideLimb));
                half = s;
                top += o as Limb;
            }
        }
        // Double the half-sum: (top, half) <<= 1.
        top = (top << 1) | (half >> (2 * LIMB_BITS - 1)) as Limb;
        let mut acc = half << 1;
        if k % 2 == 0 {
            let d = a[k / 2] as WideLimb;
            let (s, o) = acc.overflowing_add(d * d);
            acc = s;
            top += o as Limb;
        }
        let (s, o) = acc.overflowing_add(carry);
        acc = s;
        top += o as Limb;
        *rk = acc as Limb;
        carry = (acc >> LIMB_BITS) | ((top as WideLimb) << LIMB_BITS);
    }
    r[2 * n - 1] = carry as Limb;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bignum::mul::basecase::mul_basecase_rows;

    #[test]
    fn squares_match_products() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for n in 1..40 {
            for fill in 0..3 {
                let a: Vec<Limb> = (0..n)
                    .map(|i| match fill {
                        0 => !0,
                        1 if i == n - 1 => 1,
                        _ => {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            x
                        }
                    })
                    .collect();
                let mut want = vec![0; 2 * n];
                let mut got = vec![!0; 2 * n];
                mul_basecase_rows(&mut want, &a, &a);
                sqr_basecase(&mut got, &a);
                assert_eq!(got, want, "n = {n}, fill = {fill}");
            }
        }
    }
}
