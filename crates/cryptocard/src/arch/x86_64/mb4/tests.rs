//! Differential tests of the four-lane AVX2 kernels against num-bigint, at every digit
//! count compiled ([`DIGITS`]). Each skips itself, with a message, on a CPU without AVX2.

use super::amm::{amm_mb4, ams_mb4, pack_mb4, select_mb4};
use super::exp::{LANES, Mb4Lane, exp_mb4};
use super::{DIGIT_BITS, DIGITS, Mb4, Params28};
use crate::Error;
use crate::arch::x86_64::cpu::Avx2;
use crate::arch::x86_64::ifma::LaneStatus;
use crate::arch::x86_64::ifma::tests::{Rng, from_limbs, to_limbs};
use crate::arch::x86_64::radix::{self, max_modulus_bits};
use num_bigint::BigUint;
use num_traits::{One, Zero};

fn avx2_or_skip(test: &str) -> Option<Avx2> {
    let t = Avx2::detect();
    if t.is_none() {
        eprintln!("{test}: skipped, this CPU has no AVX2");
    }
    t
}

/// The limbs of a `D`-digit modulus of the largest size.
const fn limbs_for(digits: usize) -> usize {
    max_modulus_bits(digits, DIGIT_BITS).div_ceil(64)
}

fn digits<const D: usize>(x: &BigUint) -> [u64; D] {
    let mut d = [0u64; D];
    assert!(radix::to_radix(&mut d, &to_limbs(x, limbs_for(D) + 1), DIGIT_BITS).declassify());
    d
}

fn from_digits(d: &[u64]) -> BigUint {
    d.iter().rev().fold(BigUint::zero(), |acc, &w| (acc << DIGIT_BITS) + w)
}

fn transpose<const D: usize>(lanes: &[BigUint; LANES]) -> Mb4<D> {
    let mut m = Mb4::<D>::ZERO;
    for (l, x) in lanes.iter().enumerate() {
        for (k, d) in digits::<D>(x).into_iter().enumerate() {
            m.0[k][l] = d;
        }
    }
    m
}

fn lane<const D: usize>(m: &Mb4<D>, l: usize) -> BigUint {
    from_digits(&core::array::from_fn::<u64, D, _>(|k| m.0[k][l]))
}

/// Moduli of every lane-size mix: the largest `D` holds, a limb's worth shorter, and the
/// RSA prime sizes (a multiple of 64 bits) where they fit.
fn moduli<const D: usize>(rng: &mut Rng) -> [BigUint; LANES] {
    let top = max_modulus_bits(D, DIGIT_BITS);
    let rsa = 64 * (top / 64);
    [top, top - 1, rsa, top - 64].map(|bits| rng.odd_modulus(bits))
}

fn products_at<const D: usize>(avx2: Avx2, rng: &mut Rng) {
    let _ = avx2;
    let r = BigUint::one() << (DIGIT_BITS as usize * D);
    for round in 0..40 {
        let n = moduli::<D>(rng);
        let two_n: [BigUint; LANES] = core::array::from_fn(|l| &n[l] << 1u32);
        // Random values below 2n, and the extremes: 2n - 1, n - 1, 0, 1.
        let pick = |rng: &mut Rng, l: usize, k: usize| match (round + k + l) % 7 {
            0 => &two_n[l] - 1u32,
            1 => &n[l] - 1u32,
            2 if round > 3 => BigUint::zero(),
            3 if round > 3 => BigUint::one(),
            _ => rng.below(&two_n[l]),
        };
        let a: [BigUint; LANES] = core::array::from_fn(|l| pick(rng, l, 0));
        let b: [BigUint; LANES] = core::array::from_fn(|l| pick(rng, l, 3));
        let (ma, mb, mn) = (transpose::<D>(&a), transpose::<D>(&b), transpose::<D>(&n));
        let k0 = n.clone().map(|m| radix::neg_inv(m.to_u64_digits()[0], DIGIT_BITS) as i64);
        let (mut prod, mut sq, mut scratch) = (Mb4::<D>::ZERO, Mb4::<D>::ZERO, Mb4::<D>::ZERO);
        // SAFETY: the CPU has AVX2 (`avx2`).
        unsafe {
            let k0 = core::arch::x86_64::_mm256_setr_epi64x(k0[0], k0[1], k0[2], k0[3]);
            amm_mb4(&ma, &mb, &mn, k0, &mut prod);
            ams_mb4(&ma, &mn, k0, &mut sq, &mut scratch);
        }
        for l in 0..LANES {
            let (p, s) = (lane(&prod, l), lane(&sq, l));
            assert!(prod.0.iter().chain(&sq.0).all(|d| d[l] >> DIGIT_BITS == 0), "digits");
            assert!(p < two_n[l] && s < two_n[l], "D {D} round {round} lane {l}: above 2n");
            assert_eq!((p * &r) % &n[l], (&a[l] * &b[l]) % &n[l], "amm D {D} lane {l}");
            assert_eq!((s * &r) % &n[l], (&a[l] * &a[l]) % &n[l], "ams D {D} lane {l}");
        }
    }
}

#[test]
fn products_match_num_bigint() {
    let Some(avx2) = avx2_or_skip("products_match_num_bigint") else { return };
    let mut rng = Rng(0x6d62_3470);
    products_at::<20>(avx2, &mut rng);
    products_at::<38>(avx2, &mut rng);
    products_at::<56>(avx2, &mut rng);
    products_at::<74>(avx2, &mut rng);
}

/// Digits at their largest (all ones below 2n) make every product and carry as large as
/// the guard-bit budget allows.
#[test]
fn largest_digits_stay_in_budget() {
    let Some(_avx2) = avx2_or_skip("largest_digits_stay_in_budget") else { return };
    fn at<const D: usize>() {
        let bits = max_modulus_bits(D, DIGIT_BITS);
        // n = 2^bits - 1 (odd, the largest); a = b = 2n - 1 has nearly all digits full.
        let n = (BigUint::one() << bits) - 1u32;
        let a = (&n << 1u32) - 1u32;
        let ns: [BigUint; LANES] = core::array::from_fn(|_| n.clone());
        let m = transpose::<D>(&ns);
        let ma = transpose::<D>(&core::array::from_fn(|_| a.clone()));
        let k0 = radix::neg_inv(n.to_u64_digits()[0], DIGIT_BITS) as i64;
        let (mut p, mut s, mut t) = (Mb4::<D>::ZERO, Mb4::<D>::ZERO, Mb4::<D>::ZERO);
        // SAFETY: the CPU has AVX2 (checked by the caller).
        unsafe {
            let k0 = core::arch::x86_64::_mm256_set1_epi64x(k0);
            amm_mb4(&ma, &ma, &m, k0, &mut p);
            ams_mb4(&ma, &m, k0, &mut s, &mut t);
        }
        let r = BigUint::one() << (DIGIT_BITS as usize * D);
        let want = (&a * &a) % &n;
        for l in 0..LANES {
            assert_eq!((lane(&p, l) * &r) % &n, want, "amm D {D}");
            assert_eq!((lane(&s, l) * &r) % &n, want, "ams D {D}");
        }
    }
    at::<20>();
    at::<38>();
    at::<56>();
    at::<74>();
}

/// The packed scan gives each lane its own entry: digit `2k` in the low half of row `2k`
/// (what `vpmuludq` reads), digit `2k + 1` as row `2k + 1`; zero for an index past the end.
#[test]
fn select_reads_each_lanes_entry() {
    let Some(_avx2) = avx2_or_skip("select_reads_each_lanes_entry") else { return };
    let mut rng = Rng(5);
    let digits: Vec<Mb4<38>> = (0..32)
        .map(|_| {
            let mut m = Mb4::<38>::ZERO;
            m.0.iter_mut().flatten().for_each(|w| *w = rng.next() >> 36);
            m
        })
        .collect();
    let mut table = digits.clone();
    // SAFETY: the CPU has AVX2 (checked above).
    table.iter_mut().for_each(|e| unsafe { pack_mb4(e) });
    for idx in [[0, 1, 2, 3], [31, 0, 17, 31], [5, 5, 5, 5], [30, 29, 1, 0], [40, 3, 32, 2]] {
        let mut out = Mb4::<38>::ZERO;
        // SAFETY: as above.
        unsafe { select_mb4(&table, &idx, &mut out) };
        for (l, &i) in idx.iter().enumerate() {
            for k in 0..38 {
                let want = digits.get(i as usize).map_or(0, |e| e.0[k][l]);
                let got = out.0[k][l] & 0xffff_ffff;
                assert_eq!(got, want, "idx {idx:?} lane {l} digit {k}");
            }
        }
    }
}

fn exps_at<const D: usize>(avx2: Avx2, rng: &mut Rng) {
    let limbs = limbs_for(D);
    for round in 0..6 {
        let n = moduli::<D>(rng);
        let params: Vec<Params28<D>> = n
            .iter()
            .map(|m| Params28::<D>::from_modulus_vartime(&to_limbs(m, limbs)).unwrap())
            .collect();
        // Bases: random, 0, 1, n - 1; exponents of differing lengths, zero among them.
        let bases: [BigUint; LANES] = core::array::from_fn(|l| match (round + l) % 5 {
            0 => BigUint::zero(),
            1 => BigUint::one(),
            2 => &n[l] - 1u32,
            _ => rng.below(&n[l]),
        });
        let exp_len = [limbs, limbs / 2, 1, 0];
        let exps: Vec<Vec<u64>> = (0..LANES)
            .map(|l| (0..exp_len[(l + round) % LANES]).map(|_| rng.next()).collect())
            .collect();
        let base_limbs: Vec<Vec<u64>> = bases.iter().map(|b| to_limbs(b, limbs)).collect();
        let mut outs = vec![vec![0u64; limbs]; LANES];
        let status = {
            let mut it = outs.iter_mut();
            let lanes = core::array::from_fn(|l| {
                Some(Mb4Lane {
                    params: &params[l],
                    base: &base_limbs[l],
                    exp: &exps[l],
                    out: it.next().unwrap(),
                })
            });
            exp_mb4::<D>(avx2, lanes, None)
        };
        for l in 0..LANES {
            assert_eq!(status[l], LaneStatus::Done);
            let want = bases[l].modpow(&from_limbs(&exps[l]), &n[l]);
            assert_eq!(from_limbs(&outs[l]), want, "D {D} round {round} lane {l}");
        }

        // The same lanes with one public exponent.
        let e = [0x1_0001u64];
        let mut outs = vec![vec![0u64; limbs]; LANES];
        let status = {
            let mut it = outs.iter_mut();
            let lanes = core::array::from_fn(|l| {
                Some(Mb4Lane {
                    params: &params[l],
                    base: &base_limbs[l],
                    exp: &[],
                    out: it.next().unwrap(),
                })
            });
            exp_mb4::<D>(avx2, lanes, Some(&e))
        };
        for l in 0..LANES {
            assert_eq!(status[l], LaneStatus::Done);
            let want = bases[l].modpow(&BigUint::from(e[0]), &n[l]);
            assert_eq!(from_limbs(&outs[l]), want, "public D {D} lane {l}");
        }
    }
}

#[test]
fn exponentiations_match_num_bigint() {
    let Some(avx2) = avx2_or_skip("exponentiations_match_num_bigint") else { return };
    let mut rng = Rng(0x6578_7034);
    exps_at::<20>(avx2, &mut rng);
    exps_at::<38>(avx2, &mut rng);
    exps_at::<56>(avx2, &mut rng);
    exps_at::<74>(avx2, &mut rng);
}

/// A lane with a bad input fails alone: its output is zero-filled, an empty lane is left
/// untouched, and the others are right.
#[test]
fn a_bad_lane_fails_alone() {
    let Some(avx2) = avx2_or_skip("a_bad_lane_fails_alone") else { return };
    const D: usize = 38;
    let limbs = limbs_for(D);
    let mut rng = Rng(77);
    let n = moduli::<D>(&mut rng);
    let params: Vec<Params28<D>> = n
        .iter()
        .map(|m| Params28::<D>::from_modulus_vartime(&to_limbs(m, limbs)).unwrap())
        .collect();
    let base_ok = to_limbs(&rng.below(&n[0]), limbs);
    let base_big = to_limbs(&n[1], limbs);
    let short = vec![1u64; limbs - 1];
    let exp = [rng.next(), rng.next()];
    let (mut o0, mut o1, mut o2, mut o3) =
        (vec![7u64; limbs], vec![7u64; limbs], vec![7u64; limbs], vec![7u64; limbs]);
    let status = exp_mb4::<D>(
        avx2,
        [
            Some(Mb4Lane { params: &params[0], base: &base_ok, exp: &exp, out: &mut o0 }),
            Some(Mb4Lane { params: &params[1], base: &base_big, exp: &exp, out: &mut o1 }),
            Some(Mb4Lane { params: &params[2], base: &short, exp: &exp, out: &mut o2 }),
            None,
        ],
        None,
    );
    let _ = &mut o3;
    assert_eq!(status[0], LaneStatus::Done);
    assert_eq!(from_limbs(&o0), from_limbs(&base_ok).modpow(&from_limbs(&exp), &n[0]));
    assert!(matches!(status[1], LaneStatus::Failed(Error::InvalidArgument(_))));
    assert!(o1.iter().all(|&w| w == 0), "failed lane zero-filled");
    assert!(matches!(status[2], LaneStatus::Failed(_)));
    assert!(o2.iter().all(|&w| w == 0));
    assert_eq!(status[3], LaneStatus::Empty);
    assert!(o3.iter().all(|&w| w == 7), "empty lane untouched");
    assert!(DIGITS.contains(&D));
}
