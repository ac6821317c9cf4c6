//! Every kernel against a plain-Rust reference (u128 schoolbook, bit-serial-free REDC).

use super::*;
use crate::bignum::{Limb, mac};

fn adx() -> Option<Adx> {
    let t = Adx::detect();
    if t.is_none() {
        eprintln!("skipped: this CPU lacks BMI2/ADX");
    }
    t
}

/// The crate's xorshift64*, so failures reproduce.
use crate::test_rng::XorShift64Star as Rng;

impl Rng {
    fn limbs(&mut self, k: usize) -> Vec<Limb> {
        (0..k).map(|_| self.next_u64()).collect()
    }
}

fn ref_mul(a: &[Limb], b: &[Limb]) -> Vec<Limb> {
    let mut r = vec![0; a.len() + b.len()];
    for (i, &bi) in b.iter().enumerate() {
        let mut c = 0;
        for (j, &aj) in a.iter().enumerate() {
            (r[i + j], c) = mac(r[i + j], aj, bi, c);
        }
        r[i + a.len()] = c;
    }
    r
}

/// `(c, r)` with `c*R + r = (t + m n)/R`, by the textbook digit loop with full carries.
fn ref_redc(t: &[Limb], n: &[Limb], n0: Limb) -> (Limb, Vec<Limb>) {
    let k = n.len();
    let mut t = t.to_vec();
    t.push(0);
    for i in 0..k {
        let m = t[i].wrapping_mul(n0);
        let mut c = 0;
        for j in 0..k {
            (t[i + j], c) = mac(t[i + j], m, n[j], c);
        }
        for x in &mut t[i + k..] {
            let (s, o) = x.overflowing_add(c);
            *x = s;
            c = o as Limb;
        }
        assert_eq!(t[i], 0);
    }
    (t[2 * k], t[k..2 * k].to_vec())
}

fn neg_inv(n0: Limb) -> Limb {
    // Newton: x <- x (2 - n0 x) doubles the correct low bits; x = n0 is right to 3 bits.
    let mut x = n0;
    for _ in 0..6 {
        x = x.wrapping_mul(2u64.wrapping_sub(n0.wrapping_mul(x)));
    }
    x.wrapping_neg()
}

/// Interesting limb vectors of length k: random, zero, all-ones, and mixtures.
fn operands(rng: &mut Rng, k: usize) -> Vec<Vec<Limb>> {
    let mut v = vec![rng.limbs(k), rng.limbs(k), vec![0; k], vec![!0; k]];
    let mut x = rng.limbs(k);
    x[k - 1] = !0;
    x[0] = 0;
    v.push(x);
    let mut y = vec![!0; k];
    y[k / 2] = 0;
    v.push(y);
    v
}

/// Moduli of length k: random odd with a full top limb, top limb 1, 2^(64k) - 1, and
/// odd random with a small top limb.
fn moduli(rng: &mut Rng, k: usize) -> Vec<Vec<Limb>> {
    let mut a = rng.limbs(k);
    a[0] |= 1;
    a[k - 1] |= 1 << 63;
    let mut b = rng.limbs(k);
    b[0] |= 1;
    b[k - 1] = 1;
    let c = vec![!0; k];
    let mut d = rng.limbs(k);
    d[k - 1] >>= 40;
    d[0] |= 1;
    vec![a, b, c, d]
}

const SIZES: &[usize] = &[96, 128, 129, 200];

fn all_sizes() -> impl Iterator<Item = usize> {
    (1..=80).chain(SIZES.iter().copied())
}

#[test]
fn mul_basecase_matches_reference() {
    let Some(adx) = adx() else { return };
    let mut rng = Rng(1);
    for k in all_sizes() {
        for a in operands(&mut rng, k) {
            for b in [rng.limbs(k), a.clone(), vec![!0; k]] {
                let mut r = vec![0x5a5a; 2 * k];
                mul_basecase(adx, &mut r, &a, &b);
                assert_eq!(r, ref_mul(&a, &b), "k = {k}");
            }
        }
        // Unequal lengths, both orders.
        for m in [1, 2, 3, 5, k.div_ceil(2), k + 1, k + 7] {
            let (a, b) = (rng.limbs(k), rng.limbs(m));
            let mut r = vec![0x5a5a; k + m];
            mul_basecase(adx, &mut r, &a, &b);
            assert_eq!(r, ref_mul(&a, &b), "{k} x {m}");
            mul_basecase(adx, &mut r, &b, &a);
            assert_eq!(r, ref_mul(&b, &a), "{m} x {k}");
        }
    }
}

#[test]
fn sqr_basecase_matches_reference() {
    let Some(adx) = adx() else { return };
    let mut rng = Rng(2);
    for k in all_sizes() {
        for a in operands(&mut rng, k) {
            let mut r = vec![0x5a5a; 2 * k];
            sqr_basecase(adx, &mut r, &a);
            assert_eq!(r, ref_mul(&a, &a), "k = {k}");
        }
    }
}

#[test]
fn redc_matches_reference() {
    let Some(adx) = adx() else { return };
    let mut rng = Rng(3);
    for k in all_sizes() {
        for n in moduli(&mut rng, k) {
            let n0 = neg_inv(n[0]);
            assert_eq!(n[0].wrapping_mul(n0), !0);
            let mut ts = vec![rng.limbs(2 * k), vec![!0; 2 * k], vec![0; 2 * k]];
            let mut x = rng.limbs(2 * k);
            x[2 * k - 1] = !0;
            ts.push(x);
            for t in ts {
                let mut r = vec![0x5a5a; k];
                let mut tt = t.clone();
                let c = redc_raw(adx, &mut r, &mut tt, &n, n0);
                assert_eq!((c, r), ref_redc(&t, &n, n0), "k = {k}");
            }
        }
    }
}

#[test]
fn mont_mul_and_sqr_match_reference() {
    let Some(adx) = adx() else { return };
    let mut rng = Rng(4);
    for k in all_sizes() {
        for n in moduli(&mut rng, k) {
            let n0 = neg_inv(n[0]);
            let ops = operands(&mut rng, k);
            for a in &ops {
                for b in [&ops[0], &ops[3], a] {
                    let mut r = vec![0x5a5a; k];
                    let c = mont_mul_raw(adx, &mut r, a, b, &n, n0);
                    let want = ref_redc(&ref_mul(a, b), &n, n0);
                    assert!(want.0 <= 1);
                    assert_eq!((c, r), want, "mont_mul k = {k}");
                }
                let mut r = vec![0x5a5a; k];
                let c = mont_sqr_raw(adx, &mut r, a, &n, n0);
                assert_eq!((c, r), ref_redc(&ref_mul(a, a), &n, n0), "mont_sqr k = {k}");
            }
        }
    }
}

/// One almost-Montgomery product by the references: REDC, then subtract n if the carry
/// is set.
fn ref_almost(a: &[Limb], b: &[Limb], n: &[Limb], n0: Limb) -> Vec<Limb> {
    let (c, mut r) = ref_redc(&ref_mul(a, b), n, n0);
    let mut borrow = 0;
    for (x, &y) in r.iter_mut().zip(n) {
        (*x, borrow) = crate::bignum::sbb(*x, y & c.wrapping_neg(), borrow);
    }
    assert_eq!(borrow, c, "the almost result is below R");
    r
}

#[test]
fn chain_kernels_match_reference() {
    let Some(adx) = adx() else { return };
    let mut rng = Rng(7);
    for k in (1..=40).chain([48, 64, 65]) {
        for n in moduli(&mut rng, k) {
            let n0 = neg_inv(n[0]);
            let ops = operands(&mut rng, k);
            for a in &ops {
                for w in [1, 2, 5] {
                    let mut want = a.clone();
                    for _ in 0..w {
                        want = ref_almost(&want, &want, &n, n0);
                    }
                    let mut acc = a.clone();
                    let mut s = vec![0x5a5a; chain_scratch_len(k)];
                    sqr_n_almost(adx, &mut acc, w, &n, n0, &mut s);
                    assert_eq!(acc, want, "sqr_n_almost k = {k}, w = {w}");
                }
                for b in [&ops[0], &ops[3], a] {
                    let mut acc = a.clone();
                    let mut s = vec![0x5a5a; chain_scratch_len(k)];
                    mul_almost(adx, &mut acc, b, &n, n0, &mut s);
                    assert_eq!(acc, ref_almost(a, b, &n, n0), "mul_almost k = {k}");
                }
            }
        }
    }
}

#[test]
fn cios_matches_reference() {
    let Some(adx) = adx() else { return };
    let mut rng = Rng(5);
    for k in all_sizes().skip(1) {
        for n in moduli(&mut rng, k) {
            let n0 = neg_inv(n[0]);
            let ops = operands(&mut rng, k);
            for a in &ops {
                for b in [&ops[1], &ops[3], a] {
                    let mut r = vec![0x5a5a; k];
                    let c = cios::mont_mul_cios(adx, &mut r, a, b, &n, n0);
                    assert_eq!((c, r), ref_redc(&ref_mul(a, b), &n, n0), "cios k = {k}");
                }
            }
        }
    }
}

#[test]
fn recursion_over_the_adx_basecase_matches_reference() {
    use crate::bignum::mul::{Multiplier, thresholds};
    let Some(adx) = adx() else { return };
    let kernel = AdxBasecase(adx);
    let mut rng = Rng(6);
    for th in [&thresholds::MINIMUM, &BASECASE_THRESHOLDS] {
        let m = Multiplier { kernel: &kernel, thresholds: th };
        let big = [(1024, 1024), (1000, 700), (900, 800), (517, 517), (301, 300)];
        for (n, k) in [(2, 2), (3, 2), (7, 7), (9, 4), (33, 17), (64, 64), (100, 45), (130, 130)]
            .into_iter()
            .chain(big)
        {
            let (a, b) = (rng.limbs(n), rng.limbs(k));
            let mut s = vec![0; m.mul_scratch_len(n, k).max(m.sqr_scratch_len(n))];
            let mut r = vec![0x5a5a; n + k];
            m.mul(&mut r, &a, &b, &mut s);
            assert_eq!(r, ref_mul(&a, &b), "{n} x {k}");
            let mut r = vec![0x5a5a; 2 * n];
            m.sqr(&mut r, &a, &mut s);
            assert_eq!(r, ref_mul(&a, &a), "{n}^2");
        }
    }
}

mod differential {
    //! Against num-bigint, on random lengths and values.
    use super::super::*;
    use num_bigint::BigUint;
    use proptest::collection::vec;
    use proptest::prelude::*;

    fn big(x: &[Limb]) -> BigUint {
        BigUint::from_slice(
            &x.iter().flat_map(|&l| [l as u32, (l >> 32) as u32]).collect::<Vec<_>>(),
        )
    }

    /// `(c*R + r) R = a b + m n` with `0 <= m < R`: the Montgomery contract, checked
    /// without an inverse.
    fn check_mont(c: Limb, r: &[Limb], ab: &BigUint, n: &[Limb]) -> Result<(), TestCaseError> {
        let k = n.len();
        let rr = BigUint::from(1u8) << (64 * k);
        let v = (BigUint::from(c) << (64 * k)) + big(r);
        prop_assert!(c <= 1);
        prop_assert!(v < &rr + big(n));
        let lhs = &v * &rr;
        prop_assert!(lhs >= *ab);
        let mn = lhs - ab;
        prop_assert_eq!(&mn % big(n), BigUint::from(0u8));
        prop_assert!(mn / big(n) < rr);
        Ok(())
    }

    fn odd(mut n: Vec<Limb>) -> Vec<Limb> {
        n[0] |= 1;
        n
    }

    fn n0_of(n: &[Limb]) -> Limb {
        super::neg_inv(n[0])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn mul_basecase_is_the_product(a in vec(any::<Limb>(), 1..72), b in vec(any::<Limb>(), 1..72)) {
            let Some(adx) = Adx::detect() else { return Ok(()) };
            let mut r = vec![0; a.len() + b.len()];
            mul_basecase(adx, &mut r, &a, &b);
            prop_assert_eq!(big(&r), big(&a) * big(&b));
        }

        #[test]
        fn the_tuned_recursion_is_the_product(
            a in vec(any::<Limb>(), 280..700),
            b in vec(any::<Limb>(), 200..700),
        ) {
            use crate::bignum::mul::Multiplier;
            let Some(adx) = Adx::detect() else { return Ok(()) };
            let kernel = AdxBasecase(adx);
            let m = Multiplier { kernel: &kernel, thresholds: &BASECASE_THRESHOLDS };
            let mut s = vec![0; m.mul_scratch_len(a.len(), b.len()).max(m.sqr_scratch_len(a.len()))];
            let mut r = vec![0; a.len() + b.len()];
            m.mul(&mut r, &a, &b, &mut s);
            prop_assert_eq!(big(&r), big(&a) * big(&b));
            let mut r = vec![0; 2 * a.len()];
            m.sqr(&mut r, &a, &mut s);
            prop_assert_eq!(big(&r), big(&a) * big(&a));
        }

        #[test]
        fn sqr_basecase_is_the_square(a in vec(any::<Limb>(), 1..72)) {
            let Some(adx) = Adx::detect() else { return Ok(()) };
            let mut r = vec![0; 2 * a.len()];
            sqr_basecase(adx, &mut r, &a);
            prop_assert_eq!(big(&r), big(&a) * big(&a));
        }

        #[test]
        fn montgomery_contract_holds(
            (n, a, b) in (1usize..72).prop_flat_map(|k| (
                vec(any::<Limb>(), k).prop_map(odd),
                vec(any::<Limb>(), k),
                vec(any::<Limb>(), k),
            )),
        ) {
            let Some(adx) = Adx::detect() else { return Ok(()) };
            let (k, n0) = (n.len(), n0_of(&n));
            let mut r = vec![0; k];
            let c = mont_mul_raw(adx, &mut r, &a, &b, &n, n0);
            check_mont(c, &r, &(big(&a) * big(&b)), &n)?;
            let c = mont_sqr_raw(adx, &mut r, &a, &n, n0);
            check_mont(c, &r, &(big(&a) * big(&a)), &n)?;
            let mut t: Vec<Limb> = a.iter().chain(&b).copied().collect();
            let tv = big(&t);
            let c = redc_raw(adx, &mut r, &mut t, &n, n0);
            check_mont(c, &r, &tv, &n)?;
        }
    }
}

#[test]
#[should_panic(expected = "internal error")]
fn mont_mul_rejects_mismatched_lengths() {
    let Some(adx) = Adx::detect() else { panic!("internal error: (skipped: no BMI2/ADX)") };
    let mut r = [0; 2];
    mont_mul_raw(adx, &mut r, &[1, 2], &[3], &[5, 7], 3);
}

#[test]
#[should_panic(expected = "internal error")]
fn mul_basecase_rejects_a_short_product() {
    let Some(adx) = Adx::detect() else { panic!("internal error: (skipped: no BMI2/ADX)") };
    let mut r = [0; 3];
    mul_basecase(adx, &mut r, &[1, 2], &[3, 4]);
}
