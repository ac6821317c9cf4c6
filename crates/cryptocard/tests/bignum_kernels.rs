//! The limb-slice kernels: Karatsuba and Toom-3 against the schoolbook at and around the
//! tuned thresholds, the `Basecase` seam, and the linear kernels against num-bigint.

use cryptocard::bignum::mul::{
    self, Basecase, Multiplier, Portable, Thresholds, thresholds::PORTABLE,
};
use cryptocard::bignum::{Limb, Nat};
use cryptocard::ct::Choice;
use cryptocard::hazmat::{cnd_add_n, cnd_sub_n, divrem_1, lshift, rshift, sub_n};
use num_bigint::BigUint;
use proptest::prelude::*;
use std::cell::Cell;

fn big(limbs: &[Limb]) -> BigUint {
    BigUint::new(limbs.iter().flat_map(|&l| [l as u32, (l >> 32) as u32]).collect())
}

fn limbs(n: usize) -> impl Strategy<Value = Vec<Limb>> {
    proptest::collection::vec(
        prop_oneof![3 => any::<u64>(), 1 => Just(u64::MAX), 1 => Just(0u64)],
        n,
    )
}

/// Lengths around each threshold of the tuned table, and around its halves and doubles
/// (where the recursion's sub-products cross them).
fn threshold_lengths() -> Vec<usize> {
    let t = PORTABLE;
    [t.mul_karatsuba, t.sqr_karatsuba, t.mul_toom3, t.sqr_toom3]
        .iter()
        .flat_map(|&x| [x / 2, x - 1, x, x + 1, 2 * x - 1, 2 * x + 1])
        .collect()
}

fn schoolbook(a: &[Limb], b: &[Limb]) -> Vec<Limb> {
    let mut r = vec![0; a.len() + b.len()];
    mul::mul_basecase_rows(&mut r, a, b);
    r
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The tuned recursion (Karatsuba, Toom-3, unbalanced chunks) against the rows.
    #[test]
    fn recursion_at_the_thresholds(
        (a, b) in (proptest::sample::select(threshold_lengths()), 1usize..=3)
            .prop_flat_map(|(n, div)| (limbs(n), limbs((n / div).max(1))))
    ) {
        let want = schoolbook(&a, &b);
        let mut r = vec![0; a.len() + b.len()];
        mul::mul(&mut r, &a, &b);
        prop_assert_eq!(&r, &want);
        mul::mul(&mut r, &b, &a);
        prop_assert_eq!(&r, &want);
        let mut s = vec![0; 2 * a.len()];
        mul::sqr(&mut s, &a);
        prop_assert_eq!(s, schoolbook(&a, &a));
        // The product scanning basecase itself at the same sizes.
        mul::mul_basecase(&mut r, &a, &b);
        prop_assert_eq!(&r, &want);
    }

    #[test]
    fn linear_kernels(a in limbs(9), b in limbs(9), s in 0u32..64, c in any::<bool>(), d in 1u64..) {
        let (x, y) = (big(&a), big(&b));
        let m = BigUint::from(1u8) << (64 * 9);
        let mut r = vec![0; 9];
        let out = lshift(&mut r, &a, s);
        prop_assert_eq!(big(&r) + (BigUint::from(out) << (64 * 9)), &x << s);
        let out = rshift(&mut r, &a, s);
        prop_assert_eq!(big(&r), &x >> s);
        prop_assert_eq!(out, if s == 0 { 0 } else { a[0] << (64 - s) });
        let mut t = a.clone();
        let carry = cnd_add_n(Choice::from_bool_public(c), &mut t, &b);
        let want = if c { &x + &y } else { x.clone() };
        prop_assert_eq!(big(&t) + (BigUint::from(carry) << (64 * 9)), want);
        let mut t = a.clone();
        let borrow = cnd_sub_n(Choice::from_bool_public(c), &mut t, &b);
        let want = if c { (&x + &m - &y) % &m } else { x.clone() };
        prop_assert_eq!(big(&t), want);
        prop_assert_eq!(borrow == 1, c && x < y);
        let mut q = vec![0; 9];
        let rem = divrem_1(&mut q, &a, d);
        prop_assert_eq!(big(&q), &x / d);
        prop_assert_eq!(BigUint::from(rem), &x % d);
        let borrow = sub_n(&mut r, &a, &b);
        prop_assert_eq!(borrow == 1, x < y);
    }
}

/// A kernel that counts its calls: the recursion must reach the basecase only through
/// the `Basecase` trait, so a faster kernel dropped in there is used everywhere.
struct Counting {
    muls: Cell<usize>,
    sqrs: Cell<usize>,
}

impl Basecase for Counting {
    fn mul_basecase(&self, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
        assert!(a.len() >= b.len(), "the recursion passes the longer operand first");
        self.muls.set(self.muls.get() + 1);
        mul::mul_basecase_rows(r, a, b);
    }
    fn sqr_basecase(&self, r: &mut [Limb], a: &[Limb]) {
        self.sqrs.set(self.sqrs.get() + 1);
        Portable.sqr_basecase(r, a);
    }
}

#[test]
fn the_basecase_seam() {
    let k = Counting { muls: Cell::new(0), sqrs: Cell::new(0) };
    let th = Thresholds {
        mul_karatsuba: 8,
        mul_toom3: 30,
        sqr_karatsuba: 8,
        sqr_toom3: 30,
        mul_toom4: 48,
        sqr_toom4: 48,
    };
    let ctx = Multiplier { kernel: &k, thresholds: &th };
    let a: Vec<Limb> = (1..=64u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    let b: Vec<Limb> = a.iter().map(|x| !x).collect();
    let mut r = vec![0; 128];
    mul::mul_with(&ctx, &mut r, &a, &b);
    assert_eq!(r, schoolbook(&a, &b));
    // 64 limbs: Toom-4 (7 products of 16 limbs with small corrections), then Karatsuba.
    assert!(k.muls.get() > 5, "{} basecase calls", k.muls.get());
    mul::sqr_with(&ctx, &mut r, &a);
    assert_eq!(r, schoolbook(&a, &a));
    assert!(k.sqrs.get() > 5);
    // Unbalanced: a 64 x 5 product is a single basecase call (5 < 8).
    let before = k.muls.get();
    let mut r = vec![0; 69];
    mul::mul_with(&ctx, &mut r, &a, &b[..5]);
    assert_eq!(r, schoolbook(&a, &b[..5]));
    assert_eq!(k.muls.get(), before + 1);
    assert_eq!(Nat::from_slice(&r), Nat::from_slice(&a) * Nat::from_slice(&b[..5]));
}
