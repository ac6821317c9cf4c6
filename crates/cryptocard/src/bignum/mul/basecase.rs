//! Single-limb kernels and the schoolbook basecase.
//!
//! For `a` of `n` limbs and `b` of `m` limbs in radix `B = 2^64`, Kaliski ("The Z80180 and
//! big-number arithmetic", Dr. Dobb's 1993, figure 3) writes the product two ways:
//!
//! ```text
//! operand scanning:  a·b = Σ_j (a · b_j) B^j             one row a·b_j per limb of b
//! product scanning:  a·b = Σ_k (Σ_{i+j=k} a_i b_j) B^k    one column per limb of a·b
//! ```
//!
//! Operand scanning (`addmul_1` row by row, [`mul_basecase_rows`]) loads and stores every
//! product limb once per row. Product scanning ([`mul_basecase`]), "like convolution in
//! signal processing", sums each column in a three-limb accumulator and stores each
//! product limb once; Kaliski counts about a third fewer memory references, and it is the
//! loop the DSP56000 (Dusse and Kaliski, EUROCRYPT '90) ran in its 56-bit accumulator.
//! Comba's multiplier is the same idea. With two columns summed together (below), product
//! scanning beats `addmul_1` rows in portable Rust (`u128` arithmetic, measured on Zen 4
//! with `crates/bench`'s `bignum` benchmark); one column at a time it was no faster than
//! the rows.
//!
//! Carry bound for a column: it holds at most `min(n, m)` products, each at most
//! `(B - 1)^2 < B^2`, plus the carry in from the previous column, which is less than
//! `(min(n, m) + 1)·B`. So the column sum is below `(min(n, m) + 2)·B^2` and fits in three
//! limbs (`B^3`) for any length below `2^64 - 2`; the accumulator is a `u128` for the low
//! two limbs and a `u64` counting overflows of it.
//!
//! Every function here runs in time that depends only on the lengths.

use crate::limb::{LIMB_BITS, Limb, WideLimb, mac, sbb};

/// `r = a * b`, returning the high limb. `r.len() == a.len()`.
#[inline]
pub fn mul_1(r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
    assert_eq!(r.len(), a.len(), "internal error: mul_1 lengths");
    let mut carry = 0;
    for (r, &a) in r.iter_mut().zip(a) {
        (*r, carry) = mac(0, a, b, carry);
    }
    carry
}

/// `r += a * b` over `a.len()` limbs of `r`, returning the high limb (the carry out of
/// `r[a.len() - 1]`). `r.len() >= a.len()`; limbs of `r` beyond `a.len()` are untouched.
#[inline]
pub fn addmul_1(r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
    assert!(r.len() >= a.len(), "internal error: addmul_1 lengths");
    let mut carry = 0;
    for (r, &a) in r.iter_mut().zip(a) {
        (*r, carry) = mac(*r, a, b, carry);
    }
    carry
}

/// `r -= a * b` over `a.len()` limbs of `r`, returning the limb still to be subtracted
/// from `r[a.len()]` (high limb of the product plus the borrow). `r.len() >= a.len()`;
/// limbs of `r` beyond `a.len()` are untouched.
///
/// Bound: the carried limb `c` stays at most `b`. If `c <= b` then
/// `p = a_i·b + c <= (B - 1)·b + b = B·b`, so `hi(p) <= b`, and `hi(p) = b` forces
/// `lo(p) = 0`, which cannot borrow; hence `hi(p) + borrow <= b`.
#[inline]
pub fn submul_1(r: &mut [Limb], a: &[Limb], b: Limb) -> Limb {
    assert!(r.len() >= a.len(), "internal error: submul_1 lengths");
    let mut carry = 0;
    for (r, &a) in r.iter_mut().zip(a) {
        // p = a·b + carry <= B·b < B^2 (bound above).
        let p = (a as WideLimb) * (b as WideLimb) + carry as WideLimb;
        let (d, borrow) = sbb(*r, p as Limb, 0);
        *r = d;
        carry = ((p >> LIMB_BITS) as Limb) + borrow;
    }
    carry
}

/// Adds a double limb to a three-limb accumulator `(top, acc)`.
#[inline(always)]
pub(super) fn accumulate(acc: &mut WideLimb, top: &mut Limb, p: WideLimb) {
    let (s, o) = acc.overflowing_add(p);
    *acc = s;
    *top += o as Limb;
}

/// The two-limb carry out of a finished column `(top, acc)`: `floor(column / B)`.
#[inline(always)]
pub(super) fn carry_out(acc: WideLimb, top: Limb) -> WideLimb {
    (acc >> LIMB_BITS) | ((top as WideLimb) << LIMB_BITS)
}

/// `r = a * b` by product scanning (column-wise, three-limb accumulators).
///
/// Columns are summed two at a time: for each `a_i` in both columns `k` and `k + 1`, the
/// products `a_i b_(k-i)` and `a_i b_(k+1-i)` go into two independent accumulators, and
/// `b_(k+1-i)` is the `b` limb loaded one step before, so each step loads two limbs for two
/// products and the two carry chains overlap in the pipeline. Column `k`'s carry joins
/// column `k + 1` before that column's limb is stored.
///
/// Contract: `r.len() == a.len() + b.len()`, neither input is empty, any length order.
/// `r` is written, never read. Time depends only on the lengths. The recursive
/// algorithms call it with `a.len() >= b.len()`.
pub fn mul_basecase(r: &mut [Limb], a: &[Limb], b: &[Limb]) {
    assert!(!a.is_empty() && !b.is_empty(), "internal error: mul_basecase empty input");
    assert_eq!(r.len(), a.len() + b.len(), "internal error: mul_basecase lengths");
    let (n, m) = (a.len(), b.len());
    // Column k holds a_i b_(k-i) for lo(k) <= i <= hi(k).
    let lo = |k: usize| k.saturating_sub(m - 1);
    let hi = |k: usize| k.min(n - 1);
    let last = n + m - 2;
    let mut carry: WideLimb = 0;
    let mut k = 0;
    while k < last {
        let (mut acc0, mut top0) = (carry, 0);
        let (mut acc1, mut top1) = (0, 0);
        // i = lo(k) may belong to column k only, i = hi(k + 1) to column k + 1 only.
        if lo(k) < lo(k + 1) {
            accumulate(&mut acc0, &mut top0, (a[lo(k)] as WideLimb) * (b[k - lo(k)] as WideLimb));
        }
        if lo(k + 1) <= hi(k) {
            let xs = &a[lo(k + 1)..=hi(k)];
            // b[k - hi(k) ..= k + 1 - lo(k + 1)], one limb longer than xs.
            let (ys, first) = b[k - hi(k)..=k + 1 - lo(k + 1)].split_at(xs.len());
            let mut y1 = first[0];
            for (&x, &y0) in xs.iter().zip(ys.iter().rev()) {
                accumulate(&mut acc1, &mut top1, (x as WideLimb) * (y1 as WideLimb));
                accumulate(&mut acc0, &mut top0, (x as WideLimb) * (y0 as WideLimb));
                y1 = y0;
            }
        }
        if hi(k + 1) > hi(k) {
            let i = hi(k + 1);
            accumulate(&mut acc1, &mut top1, (a[i] as WideLimb) * (b[k + 1 - i] as WideLimb));
        }
        r[k] = acc0 as Limb;
        accumulate(&mut acc1, &mut top1, carry_out(acc0, top0));
        r[k + 1] = acc1 as Limb;
        carry = carry_out(acc1, top1);
        k += 2;
    }
    if k == last {
        let (mut acc, mut top) = (carry, 0);
        let (l, h) = (lo(k), hi(k));
        for (&x, &y) in a[l..=h].iter().zip(b[k - h..=k - l].iter().rev()) {
            accumulate(&mut acc, &mut top, (x as WideLimb) * (y as WideLimb));
        }
        r[k] = acc as Limb;
        carry = carry_out(acc, top);
    }
    // The last carry is the top limb: the product is below B^(n + m).
    r[n + m - 1] = carry as Limb;
}

/// `r = a * b` by operand scanning (`addmul_1` row by row): the twin of
/// [`mul_basecase`] with the same contract, kept as its test reference.
pub fn mul_basecase_rows(r: &mut [Limb], a: &[Limb], b: &[Limb]) {
    assert!(!a.is_empty() && !b.is_empty(), "internal error: mul_basecase empty input");
    assert_eq!(r.len(), a.len() + b.len(), "internal error: mul_basecase lengths");
    let n = a.len();
    r[n] = mul_1(&mut r[..n], a, b[0]);
    for (j, &bj) in b.iter().enumerate().skip(1) {
        r[n + j] = addmul_1(&mut r[j..j + n], a, bj);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_products() {
        for f in [mul_basecase, mul_basecase_rows] {
            let mut r = [0; 4];
            f(&mut r, &[!0, !0], &[!0, !0]);
            // (2^128 - 1)^2 = 2^256 - 2^129 + 1
            assert_eq!(r, [1, 0, !0 - 1, !0]);
            let mut r = [0; 3];
            f(&mut r, &[3, 0], &[5]);
            assert_eq!(r, [15, 0, 0]);
            f(&mut r, &[5], &[3, 0]);
            assert_eq!(r, [15, 0, 0]);
        }
    }

    #[test]
    fn scanning_orders_agree() {
        // All-ones limbs maximise every column (the carry bound's worst case).
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in 1..24 {
            for m in 1..24 {
                let a: Vec<Limb> = (0..n)
                    .map(|i| {
                        if i % 3 == 0 {
                            !0
                        } else {
                            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                            x
                        }
                    })
                    .collect();
                let b: Vec<Limb> = (0..m).map(|_| !0).collect();
                let mut r1 = vec![0; n + m];
                let mut r2 = vec![1; n + m];
                mul_basecase(&mut r1, &a, &b);
                mul_basecase_rows(&mut r2, &a, &b);
                assert_eq!(r1, r2, "n = {n}, m = {m}");
            }
        }
    }

    #[test]
    fn submul_1_is_the_inverse_of_addmul_1() {
        let a = [!0, 12345, !0];
        let mut r = [7, 8, 9, 10];
        let orig = r;
        let hi = addmul_1(&mut r, &a, !0 - 3);
        let back = submul_1(&mut r, &a, !0 - 3);
        assert_eq!(hi, back);
        assert_eq!(r, orig);
        // 0 - 1·1 borrows one out of the top.
        let mut r = [0];
        assert_eq!(submul_1(&mut r, &[1], 1), 1);
        assert_eq!(r, [!0]);
    }
}
