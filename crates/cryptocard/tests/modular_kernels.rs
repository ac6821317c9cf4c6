//! Differential tests of the raw Montgomery kernels, the finishing steps, the modulus
//! constants and the reductions against num-bigint, at 1 to 128 limbs (64 to 8192 bits).

mod modular_common;

use cryptocard::Error;
use cryptocard::bignum::Limb;
use cryptocard::hazmat::{
    Finish, finish_almost, finish_full, mont_mul_raw, mont_sqr_raw, neg_inv_limb,
    neg_inv_limb_dusse_kaliski, normalize, redc_raw,
};
use cryptocard::modular::Modulus;
use modular_common::*;
use num_bigint::BigUint;
use proptest::prelude::*;

/// The exact REDC result (t + m*n) / R for the m in [0, R) that makes it exact.
fn redc_ref(t: &BigUint, n: &BigUint, k: usize) -> BigUint {
    let r = pow2(64 * k);
    let ninv = n.modinv(&r).expect("odd modulus");
    let m = (&r - (t % &r) * ninv % &r) % &r;
    let sum = t + m * n;
    assert_eq!(&sum % &r, BigUint::from(0u8));
    sum / r
}

/// `c*R + r` as a number.
fn with_carry(c: Limb, r: &[Limb]) -> BigUint {
    (BigUint::from(c) << (64 * r.len())) + big(r)
}

/// n0 for a modulus given as a BigUint.
fn n0_of(n: &BigUint) -> Limb {
    neg_inv_limb(n.to_u64_digits()[0])
}

fn modulus_and_two_below_r() -> impl Strategy<Value = (BigUint, BigUint, BigUint)> {
    modulus(128).prop_flat_map(|n| {
        let k = n.to_u64_digits().len();
        (Just(n), below_r(k), below_r(k))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn mont_mul_and_sqr_are_exact_redc((n, a, b) in modulus_and_two_below_r()) {
        let k = n.to_u64_digits().len();
        let (nl, al, bl) = (limbs(&n, k), limbs(&a, k), limbs(&b, k));
        let mut r = vec![0; k];
        let c = mont_mul_raw(&mut r, &al, &bl, &nl, n0_of(&n));
        let want = redc_ref(&(&a * &b), &n, k);
        prop_assert!(c <= 1);
        prop_assert_eq!(with_carry(c, &r), want);
        let c = mont_sqr_raw(&mut r, &al, &nl, n0_of(&n));
        prop_assert!(c <= 1);
        prop_assert_eq!(with_carry(c, &r), redc_ref(&(&a * &a), &n, k));
    }

    #[test]
    fn redc_is_exact((n, lo, hi) in modulus_and_two_below_r()) {
        let k = n.to_u64_digits().len();
        let t = (&hi << (64 * k)) + &lo;
        let mut tl = limbs(&t, 2 * k);
        let mut r = vec![0; k];
        let c = redc_raw(&mut r, &mut tl, &limbs(&n, k), n0_of(&n));
        prop_assert!(c <= 1);
        prop_assert_eq!(with_carry(c, &r), redc_ref(&t, &n, k));
    }

    #[test]
    fn full_finish_reduces_products_of_reduced_inputs(
        (n, a, b) in modulus(128).prop_flat_map(|n| (Just(n.clone()), below(&n), below(&n)))
    ) {
        let k = n.to_u64_digits().len();
        let nl = limbs(&n, k);
        let rinv = pow2(64 * k).modinv(&n).unwrap_or_default();
        let mut r = vec![0; k];
        let c = mont_mul_raw(&mut r, &limbs(&a, k), &limbs(&b, k), &nl, n0_of(&n));
        finish_full(&mut r, c, &nl);
        prop_assert_eq!(big(&r), &a * &b * &rinv % &n);
        let c = mont_sqr_raw(&mut r, &limbs(&a, k), &nl, n0_of(&n));
        finish_full(&mut r, c, &nl);
        prop_assert_eq!(big(&r), &a * &a * &rinv % &n);
    }

    #[test]
    fn almost_finish_stays_below_r_and_normalizes((n, a, b) in modulus_and_two_below_r()) {
        let k = n.to_u64_digits().len();
        let nl = limbs(&n, k);
        let rinv = pow2(64 * k).modinv(&n).unwrap_or_default();
        let mut r = vec![0; k];
        let c = mont_mul_raw(&mut r, &limbs(&a, k), &limbs(&b, k), &nl, n0_of(&n));
        finish_almost(&mut r, c, &nl);
        // r is k limbs, so < R by construction; it must be congruent to a*b/R.
        prop_assert_eq!(big(&r) % &n, &a * &b * &rinv % &n);
        if Finish::for_size(n.bits() as usize, k) == Finish::Almost {
            normalize(&mut r, &nl, Finish::Almost.bound_multiple());
            prop_assert_eq!(big(&r), &a * &b * &rinv % &n);
        }
    }

    #[test]
    fn redundant_products_stay_below_2n(
        (n, a, b) in modulus(128)
            .prop_filter("headroom", |n| n.bits() as usize + 2 <= 64 * n.to_u64_digits().len())
            .prop_flat_map(|n| {
                let n2 = &n * 2u8;
                (Just(n), below(&n2), below(&n2))
            })
    ) {
        let k = n.to_u64_digits().len();
        let nl = limbs(&n, k);
        let rinv = pow2(64 * k).modinv(&n).unwrap_or_default();
        let mut r = vec![0; k];
        let c = mont_mul_raw(&mut r, &limbs(&a, k), &limbs(&b, k), &nl, n0_of(&n));
        prop_assert_eq!(c, 0);
        prop_assert!(big(&r) < &n * 2u8);
        let c = mont_sqr_raw(&mut r, &limbs(&a, k), &nl, n0_of(&n));
        prop_assert_eq!(c, 0);
        prop_assert!(big(&r) < &n * 2u8);
        prop_assert_eq!(big(&r) % &n, &a * &a * &rinv % &n);
        normalize(&mut r, &nl, Finish::Redundant.bound_multiple());
        prop_assert_eq!(big(&r), &a * &a * &rinv % &n);
    }

    #[test]
    fn n0_inverse(x in any::<u64>()) {
        let odd = x | 1;
        let n0 = neg_inv_limb(odd);
        prop_assert_eq!(odd.wrapping_mul(n0), u64::MAX);
        prop_assert_eq!(n0, neg_inv_limb_dusse_kaliski(odd));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// R mod n, R^2 mod n and R^3 mod n, seen through what they are used for.
    #[test]
    fn modulus_constants_and_conversions(
        (n, x) in modulus(128).prop_flat_map(|n| (Just(n.clone()), below(&n)))
    ) {
        let k = n.to_u64_digits().len();
        let r = pow2(64 * k);
        let m: Modulus = Modulus::from_nat(&nat(&n)).unwrap();
        prop_assert_eq!(m.bits(), n.bits() as usize);
        prop_assert_eq!(m.limbs(), k);
        prop_assert_eq!(big(m.one::<cryptocard::modular::Mont>().as_limbs()), &r % &n);
        let e = m.elem_from_nat(&nat(&x)).unwrap();
        let xm = m.to_mont(&e);
        prop_assert_eq!(big(xm.as_limbs()), &x * &r % &n);
        prop_assert_eq!(big(m.from_mont(&xm).as_limbs()), x.clone());
        // R^3 through the wide reduction straight into Montgomery form.
        let wide = m.reduce_wide_mont(&limbs(&x, k)).unwrap();
        prop_assert_eq!(big(wide.as_limbs()), &x * &r % &n);
        prop_assert_eq!(m.to_be_bytes(&e), {
            let mut v = x.to_bytes_be();
            if x == BigUint::from(0u8) { v.clear(); }
            let mut padded = vec![0; m.byte_len() - v.len()];
            padded.extend(v);
            padded
        });
    }

    #[test]
    fn reductions_of_long_values(
        (n, xs) in modulus(64).prop_flat_map(|n| {
            let k = n.to_u64_digits().len();
            (Just(n), prop::collection::vec(limb(), 0..=4 * k + 3))
        })
    ) {
        let k = n.to_u64_digits().len();
        let m: Modulus = Modulus::from_nat(&nat(&n)).unwrap();
        let x = big(&xs);
        let r = pow2(64 * k);
        prop_assert_eq!(big(m.reduce_limbs(&xs).as_limbs()), &x % &n);
        prop_assert_eq!(big(m.reduce_limbs_mont(&xs).as_limbs()), &x * &r % &n);
        prop_assert_eq!(big(m.elem_reduce(&nat(&x)).as_limbs()), &x % &n);
        let wide = m.reduce_wide(&xs);
        if xs.len() <= 2 * k && x < &n * &r {
            prop_assert_eq!(big(wide.unwrap().as_limbs()), &x % &n);
        } else {
            prop_assert!(matches!(wide, Err(Error::InvalidArgument(_))));
        }
        let checked = m.elem_from_limbs(&xs);
        prop_assert_eq!(checked.is_ok(), x < n);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The CPU's kernel set (if any) against the portable one, through every `Modulus`
    /// operation that reaches a kernel: product, square, REDC (leaving Montgomery form)
    /// and the wide reduction.
    #[test]
    fn kernel_sets_agree((n, a, b) in modulus(128).prop_flat_map(|n| (Just(n.clone()), below(&n), below(&n)))) {
        let k = n.to_u64_digits().len();
        let fast: Modulus = Modulus::from_nat(&nat(&n)).unwrap();
        let portable = fast.clone().with_portable_kernels();
        prop_assert_eq!(portable.kernels(), "portable");
        let run = |m: &Modulus| {
            let am = m.to_mont(&m.elem_from_nat(&nat(&a)).unwrap());
            let bp = m.elem_from_nat(&nat(&b)).unwrap();
            let wide = limbs(&(&a * &b), 2 * k);
            (
                big(m.mul(&am, &bp).as_limbs()),
                big(m.sqr(&am).as_limbs()),
                big(m.from_mont(&am).as_limbs()),
                big(m.reduce_wide(&wide).unwrap().as_limbs()),
            )
        };
        let got = run(&fast);
        prop_assert_eq!(&got, &run(&portable));
        let r = pow2(64 * k);
        prop_assert_eq!(got.0, &a * &b % &n);
        prop_assert_eq!(got.1, &a * &a * &r % &n);
    }
}

#[test]
fn wide_reduction_of_a_crt_input() {
    // c < p*q reduced mod p with p's limbs: c < p*R since q < R.
    let p = pow2(1024) - BigUint::from(105u32);
    let q = pow2(1023) + BigUint::from(1155u32);
    let c = &p * &q - 12345u32;
    let m: Modulus = Modulus::from_nat(&nat(&p)).unwrap();
    let got = m.reduce_wide(&limbs(&c, 32)).unwrap();
    assert_eq!(big(got.as_limbs()), &c % &p);
}

#[test]
fn special_moduli_exhaustive_small() {
    // Every odd n < 200 against every a, b < n.
    for n in (3u64..200).step_by(2) {
        let m: Modulus = Modulus::from_limbs(&[n]).unwrap();
        for a in 0..n {
            let ea = m.to_mont(&m.elem_from_limbs(&[a]).unwrap());
            for b in (0..n).step_by(7) {
                let eb = m.elem_from_limbs(&[b]).unwrap();
                assert_eq!(m.mul(&ea, &eb).as_limbs(), &[a * b % n]);
                assert_eq!(m.add(&m.from_mont(&ea), &eb).as_limbs(), &[(a + b) % n]);
                assert_eq!(m.sub(&m.from_mont(&ea), &eb).as_limbs(), &[(a + n - b) % n]);
            }
            assert_eq!(m.from_mont(&m.sqr(&ea)).as_limbs(), &[a * a % n]);
            assert_eq!(m.neg(&m.from_mont(&ea)).as_limbs(), &[(n - a) % n]);
        }
    }
}
