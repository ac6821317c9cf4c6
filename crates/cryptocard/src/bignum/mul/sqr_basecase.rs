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

use super::basecase::{accumulate, carry_out};
use crate::limb::{LIMB_BITS, Limb, WideLimb};

/// `r = a^2`. Contract: `r.len() == 2 * a.len()`, `a` not empty; `r` is written, never
/// read. Time depends only on the length.
///
/// Like [`super::mul_basecase`], columns go two at a time, `k` and `k + 1`, sharing the
/// loads of `a_i` over the off-diagonal triangle `i < j`.
pub fn sqr_basecase(r: &mut [Limb], a: &[Limb]) {
    assert!(!a.is_empty(), "internal error: sqr_basecase empty input");
    assert_eq!(r.len(), 2 * a.len(), "internal error: sqr_basecase lengths");
    let n = a.len();
    // Off-diagonal terms of column k: a_i a_(k-i) for lo(k) <= i < k - i, that is
    // i <= top(k) = (k - 1) / 2 (none for k = 0).
    let lo = |k: usize| k.saturating_sub(n - 1);
    let square = |i: usize| (a[i] as WideLimb) * (a[i] as WideLimb);
    let last = 2 * n - 2;
    let mut carry: WideLimb = 0;
    let mut k = 0;
    while k < last {
        let (mut h0, mut t0): (WideLimb, Limb) = (0, 0);
        let (mut h1, mut t1): (WideLimb, Limb) = (0, 0);
        // Column k + 1 reaches i = k / 2, column k only (k - 1) / 2 (when k >= 1).
        let top1 = k / 2;
        if k >= 1 {
            let top0 = (k - 1) / 2;
            if lo(k) < lo(k + 1) && lo(k) <= top0 {
                let i = lo(k);
                accumulate(&mut h0, &mut t0, (a[i] as WideLimb) * (a[k - i] as WideLimb));
            }
            if lo(k + 1) <= top0 {
                let xs = &a[lo(k + 1)..=top0];
                // a[k - top0 ..= k + 1 - lo(k + 1)], one limb longer than xs.
                let (ys, first) = a[k - top0..=k + 1 - lo(k + 1)].split_at(xs.len());
                let mut y1 = first[0];
                for (&x, &y0) in xs.iter().zip(ys.iter().rev()) {
                    accumulate(&mut h1, &mut t1, (x as WideLimb) * (y1 as WideLimb));
                    accumulate(&mut h0, &mut t0, (x as WideLimb) * (y0 as WideLimb));
                    y1 = y0;
                }
            }
            if top1 > top0 && lo(k + 1) <= top1 {
                accumulate(&mut h1, &mut t1, (a[top1] as WideLimb) * (a[k + 1 - top1] as WideLimb));
            }
        } else {
            // k = 0 (the loop runs only for n >= 2): column 1's one term, a_0 a_1.
            accumulate(&mut h1, &mut t1, (a[0] as WideLimb) * (a[1] as WideLimb));
        }
        // Double the off-diagonal sums, add the diagonal squares and the carries.
        let (mut acc0, mut top0) = double(h0, t0);
        if k % 2 == 0 {
            accumulate(&mut acc0, &mut top0, square(k / 2));
        }
        accumulate(&mut acc0, &mut top0, carry);
        r[k] = acc0 as Limb;
        let (mut acc1, mut top1) = double(h1, t1);
        if k % 2 == 1 {
            accumulate(&mut acc1, &mut top1, square(k / 2 + 1));
        }
        accumulate(&mut acc1, &mut top1, carry_out(acc0, top0));
        r[k + 1] = acc1 as Limb;
        carry = carry_out(acc1, top1);
        k += 2;
    }
    // k = 2n - 2 (the pairs stop one short, as 2n - 1 columns is odd): only a_(n-1)^2.
    let (mut acc, mut top) = (carry, 0);
    accumulate(&mut acc, &mut top, square(n - 1));
    r[k] = acc as Limb;
    r[k + 1] = carry_out(acc, top) as Limb;
}

/// `2·(top, half)`: the doubled three-limb off-diagonal sum.
#[inline(always)]
fn double(half: WideLimb, top: Limb) -> (WideLimb, Limb) {
    (half << 1, (top << 1) | (half >> (2 * LIMB_BITS - 1)) as Limb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bignum::mul::basecase::mul_basecase_rows;

    #[test]
    fn squares_match_products() {
        let mut x = crate::test_rng::XorShift64(0x2545_f491_4f6c_dd1d);
        for n in 1..40 {
            for fill in 0..3 {
                let a: Vec<Limb> = (0..n)
                    .map(|i| match fill {
                        0 => !0,
                        1 if i == n - 1 => 1,
                        _ => x.next_u64(),
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
