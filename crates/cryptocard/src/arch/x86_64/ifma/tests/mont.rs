//! The lane products in the modular core's Montgomery form (`mont_mb8`, through
//! `sized::mont_mul_mb8`) against num-bigint: `out = x y / 2^(64 L) mod n`, fully
//! reduced, in every mb8 class, with full-length and shorter moduli, operands at the
//! extremes, partial batches, and lanes that break the contract.

use super::{Rng, from_limbs, ifma_or_skip, to_limbs};
use crate::Error;
use crate::arch::x86_64::ifma::LaneStatus;
use crate::arch::x86_64::ifma::radix52::max_modulus_bits;
use crate::arch::x86_64::ifma::sized::{DIGITS, ProductLane, SecretParams52, mont_mul_mb8};
use num_bigint::BigUint;
use num_traits::One;

/// The core's product: `x y / 2^(64 limbs) mod n`.
fn want(x: &BigUint, y: &BigUint, n: &BigUint, limbs: usize) -> BigUint {
    let r_inv = (BigUint::one() << (64 * limbs)).modinv(n).unwrap();
    x * y % n * r_inv % n
}

/// `x` of a case: the extremes 0, n - 1 and 2^(64 limbs) - 1 (`x` need not be below n),
/// else random below n.
fn x_case(rng: &mut Rng, n: &BigUint, limbs: usize, case: usize) -> BigUint {
    match case % 6 {
        0 => BigUint::from(0u32),
        1 => n - 1u32,
        2 => (BigUint::one() << (64 * limbs)) - 1u32,
        _ => rng.below(n),
    }
}

#[test]
fn lane_products_match_num_bigint_in_every_class() {
    let Some(ifma) = ifma_or_skip("lane_products_match_num_bigint_in_every_class") else {
        return;
    };
    let mut rng = Rng(11);
    for digits in DIGITS.into_iter().filter(|&d| d != 79) {
        // The most limbs the count holds: 8, 16, 24, 32, 48.
        let class_limbs = max_modulus_bits(digits) / 64;
        for round in 0..4 {
            // Lanes of the class's limb count and shorter ones (each a different shift),
            // moduli of the full length (top bit set) and shorter (but as many limbs).
            let limbs: Vec<usize> = (0..8).map(|l| class_limbs - (l + round) % 3).collect();
            let ns: Vec<BigUint> = (0..8)
                .map(|l| rng.odd_modulus(64 * limbs[l] - [0, 1, 7, 40][(l + round) % 4]))
                .collect();
            let params: Vec<SecretParams52> = ns
                .iter()
                .zip(&limbs)
                .map(|(n, &len)| SecretParams52::new(&to_limbs(n, len), &[], digits).unwrap())
                .collect();
            let xs: Vec<BigUint> =
                (0..8).map(|l| x_case(&mut rng, &ns[l], limbs[l], l + round)).collect();
            let ys: Vec<BigUint> = ns
                .iter()
                .enumerate()
                .map(|(l, n)| if (l + round) % 5 == 4 { n - 1u32 } else { rng.below(n) })
                .collect();
            let (xl, yl): (Vec<Vec<u64>>, Vec<Vec<u64>>) =
                (0..8).map(|l| (to_limbs(&xs[l], limbs[l]), to_limbs(&ys[l], limbs[l]))).unzip();
            // Lanes 0..used hold products; a partial batch in the last rounds.
            let used = [8, 8, 5, 1][round];
            let mut outs: Vec<Vec<u64>> = limbs.iter().map(|&len| vec![u64::MAX; len]).collect();
            let status = {
                let mut lanes: [Option<ProductLane<'_>>; 8] = Default::default();
                for (l, (slot, out)) in lanes.iter_mut().zip(outs.iter_mut()).enumerate() {
                    if l < used {
                        *slot = Some(ProductLane { params: &params[l], x: &xl[l], y: &yl[l], out });
                    }
                }
                mont_mul_mb8(ifma, lanes)
            };
            for l in 0..8 {
                if l >= used {
                    assert_eq!(status[l], LaneStatus::Empty);
                    assert!(outs[l].iter().all(|&w| w == u64::MAX), "empty lane written");
                    continue;
                }
                assert_eq!(status[l], LaneStatus::Done, "{digits} digits lane {l}");
                let got = from_limbs(&outs[l]);
                let want = want(&xs[l], &ys[l], &ns[l], limbs[l]);
                assert_eq!(got, want, "{digits} digits, lane {l} of {} limbs", limbs[l]);
            }
        }
    }
}

#[test]
fn lane_products_fail_alone() {
    let Some(ifma) = ifma_or_skip("lane_products_fail_alone") else { return };
    let mut rng = Rng(12);
    let (limbs, digits) = (32, 40);
    let n = rng.odd_modulus(64 * limbs);
    let params = SecretParams52::new(&to_limbs(&n, limbs), &[], digits).unwrap();
    // A modulus of another class in the same batch.
    let n20 = rng.odd_modulus(1024);
    let params20 = SecretParams52::new(&to_limbs(&n20, 16), &[], 20).unwrap();
    let (x, y) = (rng.below(&n), rng.below(&n));
    let (xl, yl, nl) = (to_limbs(&x, limbs), to_limbs(&y, limbs), to_limbs(&n, limbs));
    let short = &xl[..limbs - 1];
    let x20 = to_limbs(&rng.below(&n20), 16);
    let mut outs = vec![vec![7u64; limbs]; 8];
    let status = {
        let mut it = outs.iter_mut();
        let mut next = || it.next().unwrap();
        [
            Some(ProductLane { params: &params, x: &xl, y: &yl, out: next() }),
            // y = n breaks y < n.
            Some(ProductLane { params: &params, x: &xl, y: &nl, out: next() }),
            // x one limb short.
            Some(ProductLane { params: &params, x: short, y: &yl, out: next() }),
            Some(ProductLane { params: &params20, x: &x20, y: &x20, out: next() }),
            Some(ProductLane { params: &params, x: &yl, y: &xl, out: next() }),
            None,
            None,
            None,
        ]
    };
    let status = mont_mul_mb8(ifma, status);
    let product = want(&x, &y, &n, limbs);
    assert_eq!(status[0], LaneStatus::Done);
    assert_eq!(from_limbs(&outs[0]), product);
    assert!(matches!(status[1], LaneStatus::Failed(Error::InvalidArgument(_))));
    assert!(matches!(status[2], LaneStatus::Failed(Error::InvalidArgument(_))));
    assert!(matches!(status[3], LaneStatus::Failed(Error::Internal(_))));
    for (l, out) in outs.iter().enumerate().take(3).skip(1) {
        assert!(out.iter().all(|&w| w == 0), "failed lane {l} not zero-filled");
    }
    assert_eq!(status[4], LaneStatus::Done);
    assert_eq!(from_limbs(&outs[4]), product);
    assert_eq!(status[5..], [LaneStatus::Empty; 3]);

    // A modulus given in 33 limbs (its top one zero) fits 40 digits, but a number of 33
    // limbs shifted into the products' form does not: that lane alone fails.
    let params33 = SecretParams52::new(&to_limbs(&n, 33), &[], digits).unwrap();
    let (x33, y33) = (to_limbs(&x, 33), to_limbs(&y, 33));
    let (mut out33, mut out32) = (vec![7u64; 33], vec![7u64; limbs]);
    let status = mont_mul_mb8(
        ifma,
        [
            Some(ProductLane { params: &params33, x: &x33, y: &y33, out: &mut out33 }),
            Some(ProductLane { params: &params, x: &xl, y: &yl, out: &mut out32 }),
            None,
            None,
            None,
            None,
            None,
            None,
        ],
    );
    assert!(matches!(status[0], LaneStatus::Failed(Error::Unsupported(_))));
    assert!(out33.iter().all(|&w| w == 0));
    assert_eq!(status[1], LaneStatus::Done);
    assert_eq!(from_limbs(&out32), product);
}
