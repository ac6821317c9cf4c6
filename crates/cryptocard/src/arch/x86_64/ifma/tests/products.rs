//! AMM and AMS, every layout and kernel (x2; mb8 by rows and by column groups of every
//! width that fits), against num-bigint at every size: random operands below `2n` and the
//! extremes 0, 1, `2n - 1`, moduli with the top bit set and smaller ones.

use super::{Rng, digits, from_digits, ifma_or_skip};
use crate::arch::x86_64::ifma::amm::{amm_mb8, amm_x2};
use crate::arch::x86_64::ifma::amm_x2_strided::{
    amm_x2s, from_strided, to_strided, with_strided_slots,
};
use crate::arch::x86_64::ifma::ams::{ams_mb8, ams_x2};
use crate::arch::x86_64::ifma::ams_x2_strided::ams_x2s;
use crate::arch::x86_64::ifma::mb8_columns::{amm_mb8_ps, ams_mb8_ps, width_ok};
use crate::arch::x86_64::ifma::mb8_karatsuba::{amm_mb8_ks, ams_mb8_ks, ks_fits};
use crate::arch::x86_64::ifma::radix52::{self, max_modulus_bits};
use crate::arch::x86_64::ifma::vec52::{Mb8, X2};
use num_bigint::BigUint;
use num_traits::{One, Zero};

/// Operands for the product tests: random ones below 2n, and the extremes 0, 1, 2n - 1.
fn operand(rng: &mut Rng, n: &BigUint, case: usize) -> BigUint {
    let two_n: BigUint = n << 1;
    match case % 5 {
        0 => BigUint::zero(),
        1 => BigUint::one(),
        2 => &two_n - 1u32,
        _ => rng.below(&two_n),
    }
}

/// Checks `out = a b / R mod n` with `out < 2n` and normalised digits.
pub(super) fn check_amm(a: &BigUint, b: &BigUint, n: &BigUint, digits: usize, out: &[u64]) {
    assert!(out.iter().all(|&d| d <= radix52::DIGIT_MASK), "unnormalised digit");
    let r = BigUint::one() << (52 * digits);
    let got = from_digits(out);
    assert!(got < (n << 1), "result not below 2n");
    assert_eq!((&got * &r) % n, (a * b) % n, "wrong residue");
}

fn amm_matches<const D: usize>(rng: &mut Rng, square: bool) {
    let Some(_ifma) = ifma_or_skip("amm_matches") else { return };
    for round in 0..6 {
        // Eight moduli: full size (top bit set) and smaller ones.
        let ns: Vec<BigUint> = (0..8)
            .map(|l| rng.odd_modulus(max_modulus_bits(D) - [0, 0, 1, 5, 40, 51, 0, 3][l]))
            .collect();
        let xs: Vec<BigUint> = (0..8).map(|l| operand(rng, &ns[l], round + l)).collect();
        let ys: Vec<BigUint> = if square {
            xs.clone()
        } else {
            (0..8).map(|l| operand(rng, &ns[l], 2 * round + 3 * l)).collect()
        };
        let (mut a, mut b, mut n) = (Mb8::<D>::ZERO, Mb8::<D>::ZERO, Mb8::<D>::ZERO);
        let mut k0 = [0u64; 8];
        for l in 0..8 {
            let (da, db, dn) = (digits::<D>(&xs[l]), digits::<D>(&ys[l]), digits::<D>(&ns[l]));
            for k in 0..D {
                (a.0[k][l], b.0[k][l], n.0[k][l]) = (da[k], db[k], dn[k]);
            }
            k0[l] = radix52::neg_inv52(dn[0]);
        }
        let (mut out, mut scratch) = (Mb8::<D>::ZERO, Mb8::<D>::ZERO);
        // SAFETY: IFMA was detected above.
        unsafe {
            if square {
                ams_mb8(&a, &n, &k0, &mut out, &mut scratch);
            } else {
                amm_mb8(&a, &b, &n, &k0, &mut out);
            }
        }
        for l in 0..8 {
            let o: Vec<u64> = (0..D).map(|k| out.0[k][l]).collect();
            check_amm(&xs[l], &ys[l], &ns[l], D, &o);
        }
        // The column-group kernels at every width that fits D.
        ps_matches::<D, 2>(&a, &b, &n, &k0, square, &xs, &ys, &ns);
        ps_matches::<D, 4>(&a, &b, &n, &k0, square, &xs, &ys, &ns);
        ps_matches::<D, 6>(&a, &b, &n, &k0, square, &xs, &ys, &ns);
        ps_matches::<D, 8>(&a, &b, &n, &k0, square, &xs, &ys, &ns);
        ps_matches::<D, 10>(&a, &b, &n, &k0, square, &xs, &ys, &ns);
        // x2: lanes (0, 1), (2, 3), ... as pairs.
        for p in 0..4 {
            let (mut a, mut b, mut n) = (X2::<D>::ZERO, X2::<D>::ZERO, X2::<D>::ZERO);
            for s in 0..2 {
                let l = 2 * p + s;
                let (da, db, dn) = (digits::<D>(&xs[l]), digits::<D>(&ys[l]), digits::<D>(&ns[l]));
                for k in 0..D {
                    (a.d[k][s], b.d[k][s], n.d[k][s]) = (da[k], db[k], dn[k]);
                }
            }
            let mut out = X2::<D>::ZERO;
            // SAFETY: IFMA was detected above.
            unsafe {
                let k = &[k0[2 * p], k0[2 * p + 1]];
                if square {
                    ams_x2(&a, &n, k, &mut out);
                } else {
                    amm_x2(&a, &b, &n, k, &mut out);
                }
            }
            for s in 0..2 {
                let l = 2 * p + s;
                let o: Vec<u64> = (0..D).map(|k| out.d[k][s]).collect();
                check_amm(&xs[l], &ys[l], &ns[l], D, &o);
            }
            let k = [k0[2 * p], k0[2 * p + 1]];
            let lanes = [2 * p, 2 * p + 1].map(|l| [&xs[l], &ys[l], &ns[l]]);
            with_strided_slots!(D, P => strided_matches::<D, P>(&a, &b, &n, &k, square, lanes),
                else => ());
        }
    }
}

/// `amm_x2s` (and `ams_x2s` if `square`) in the strided layout of `P` slots against
/// num-bigint: operands `a`, `b`, `n` contiguous, `lanes[s]` number `s`'s `[x, y, n]`.
fn strided_matches<const D: usize, const P: usize>(
    a: &X2<D>,
    b: &X2<D>,
    n: &X2<D>,
    k0: &[u64; 2],
    square: bool,
    lanes: [[&BigUint; 3]; 2],
) {
    let (sa, sb, sn) = (to_strided::<D, P>(a), to_strided::<D, P>(b), to_strided::<D, P>(n));
    let check = |so: &X2<P>, square: bool| {
        let out = from_strided::<D, P>(so);
        for (s, [x, y, n]) in lanes.into_iter().enumerate() {
            let o: Vec<u64> = (0..D).map(|k| out.d[k][s]).collect();
            check_amm(x, if square { x } else { y }, n, D, &o);
        }
    };
    let mut so = X2::<P>::ZERO;
    // SAFETY: the caller detected IFMA.
    unsafe { amm_x2s::<D, P>(&sa, if square { &sa } else { &sb }, &sn, k0, &mut so) };
    check(&so, square);
    if square {
        // SAFETY: as above.
        unsafe { ams_x2s::<D, P>(&sa, &sn, k0, &mut so) };
        check(&so, true);
    }
}

/// `amm_mb8_ps` / `ams_mb8_ps` with groups of `W` columns, if `W` fits `D`, and the
/// Karatsuba `amm_mb8_ks` / `ams_mb8_ks` where they fit.
#[allow(clippy::too_many_arguments)]
fn ps_matches<const D: usize, const W: usize>(
    a: &Mb8<D>,
    b: &Mb8<D>,
    n: &Mb8<D>,
    k0: &[u64; 8],
    square: bool,
    xs: &[BigUint],
    ys: &[BigUint],
    ns: &[BigUint],
) {
    if const { !width_ok::<D, W>() } {
        return;
    }
    let (mut out, mut y) = (Mb8::<D>::ZERO, Mb8::<D>::ZERO);
    // SAFETY: the caller detected IFMA.
    unsafe {
        if square {
            ams_mb8_ps::<D, W>(a, n, k0, &mut out, &mut y, || {});
        } else {
            amm_mb8_ps::<D, W>(a, b, n, k0, &mut out, &mut y);
        }
    }
    for l in 0..8 {
        let o: Vec<u64> = (0..D).map(|k| out.0[k][l]).collect();
        check_amm(&xs[l], &ys[l], &ns[l], D, &o);
    }
    if const { ks_fits::<D, W>() } {
        let mut scratch = [Mb8::<D>::ZERO, Mb8::<D>::ZERO, Mb8::<D>::ZERO];
        // SAFETY: the caller detected IFMA.
        unsafe {
            if square {
                ams_mb8_ks::<D, W>(a, n, k0, &mut out, &mut y, &mut scratch, || {});
            } else {
                amm_mb8_ks::<D, W>(a, b, n, k0, &mut out, &mut y, &mut scratch);
            }
        }
        for l in 0..8 {
            let o: Vec<u64> = (0..D).map(|k| out.0[k][l]).collect();
            check_amm(&xs[l], &ys[l], &ns[l], D, &o);
        }
    }
}

#[test]
fn amm_matches_num_bigint_at_every_size() {
    let mut rng = Rng(3);
    amm_matches::<10>(&mut rng, false);
    amm_matches::<20>(&mut rng, false);
    amm_matches::<21>(&mut rng, false);
    amm_matches::<30>(&mut rng, false);
    amm_matches::<24>(&mut rng, false);
    amm_matches::<17>(&mut rng, false);
    amm_matches::<8>(&mut rng, false);
    amm_matches::<16>(&mut rng, false);
    amm_matches::<28>(&mut rng, false);
    amm_matches::<32>(&mut rng, false);
    amm_matches::<36>(&mut rng, false);
    amm_matches::<40>(&mut rng, false);
    amm_matches::<60>(&mut rng, false);
    amm_matches::<79>(&mut rng, false);
    amm_matches::<80>(&mut rng, false);
}

#[test]
fn ams_matches_num_bigint_at_every_size() {
    let mut rng = Rng(4);
    amm_matches::<10>(&mut rng, true);
    amm_matches::<20>(&mut rng, true);
    amm_matches::<21>(&mut rng, true);
    amm_matches::<30>(&mut rng, true);
    amm_matches::<24>(&mut rng, true);
    amm_matches::<17>(&mut rng, true);
    amm_matches::<28>(&mut rng, true);
    amm_matches::<32>(&mut rng, true);
    amm_matches::<36>(&mut rng, true);
    amm_matches::<40>(&mut rng, true);
    amm_matches::<60>(&mut rng, true);
    amm_matches::<79>(&mut rng, true);
    amm_matches::<80>(&mut rng, true);
}
