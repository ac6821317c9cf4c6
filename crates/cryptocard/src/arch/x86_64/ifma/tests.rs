//! Differential tests of the IFMA kernels against num-bigint.
//!
//! Every test skips itself, with a message, on a CPU without AVX-512 IFMA.

use super::LaneStatus;
use super::amm::{amm_mb8, amm_x2};
use super::ams::{ams_mb8, ams_x2};
use super::exp_mb8::{Mb8Lane, exp_mb8};
use super::exp_x2::{exp_x1, exp_x2};
use super::radix52::{self, Params52, max_modulus_bits};
use super::vec52::{Mb8, X2};
use crate::arch::x86_64::cpu::Ifma;
use num_bigint::BigUint;
use num_traits::{One, Zero};

pub(super) fn ifma_or_skip(test: &str) -> Option<Ifma> {
    let t = Ifma::detect();
    if t.is_none() {
        eprintln!("{test}: skipped, this CPU has no AVX-512 IFMA");
    }
    t
}

/// A small deterministic generator (SplitMix64); the tests need reproducible variety, not
/// cryptographic randomness.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number of exactly `bits` bits or fewer.
    pub(super) fn below_bits(&mut self, bits: usize) -> BigUint {
        let words: Vec<u64> = (0..bits.div_ceil(64)).map(|_| self.next()).collect();
        let x = from_limbs(&words);
        x & ((BigUint::one() << bits) - 1u32)
    }

    pub(super) fn below(&mut self, n: &BigUint) -> BigUint {
        self.below_bits(n.bits() as usize + 64) % n
    }

    /// An odd number with its top bit (bit `bits - 1`) set.
    pub(super) fn odd_modulus(&mut self, bits: usize) -> BigUint {
        self.below_bits(bits) | (BigUint::one() << (bits - 1)) | BigUint::one()
    }
}

pub(super) fn from_limbs(x: &[u64]) -> BigUint {
    x.iter().rev().fold(BigUint::zero(), |acc, &w| (acc << 64) + w)
}

pub(super) fn to_limbs(x: &BigUint, len: usize) -> Vec<u64> {
    let mut v = x.to_u64_digits();
    assert!(v.len() <= len, "test value does not fit {len} limbs");
    v.resize(len, 0);
    v
}

/// `2^(2 * 52 * D) mod n`, the RR of radix 2^52.
pub(super) fn rr52(n: &BigUint, digits: usize) -> BigUint {
    (BigUint::one() << (104 * digits)) % n
}

/// The limb length the tests use for a `D`-digit modulus: as many as its largest size needs.
pub(super) const fn limbs_for(digits: usize) -> usize {
    max_modulus_bits(digits).div_ceil(64)
}

/// One exponentiation job, with its expected answer.
pub(super) struct Job {
    pub(super) n: Vec<u64>,
    pub(super) rr: Vec<u64>,
    pub(super) base: Vec<u64>,
    pub(super) exp: Vec<u64>,
    pub(super) want: Vec<u64>,
}

impl Job {
    pub(super) fn new(digits: usize, n: &BigUint, base: &BigUint, exp: &[u64]) -> Job {
        let len = limbs_for(digits);
        let want = base.modpow(&from_limbs(exp), n);
        Job {
            n: to_limbs(n, len),
            rr: to_limbs(&rr52(n, digits), len),
            base: to_limbs(base, len),
            exp: exp.to_vec(),
            want: to_limbs(&want, len),
        }
    }

    /// A random job: modulus of `bits` bits, random base below it, exponent of `exp_limbs`
    /// random limbs.
    pub(super) fn random(rng: &mut Rng, digits: usize, bits: usize, exp_limbs: usize) -> Job {
        let n = rng.odd_modulus(bits);
        let base = rng.below(&n);
        let exp: Vec<u64> = (0..exp_limbs).map(|_| rng.next()).collect();
        Job::new(digits, &n, &base, &exp)
    }
}

/// Runs a batch of up to eight jobs (`None`: empty lane) and checks every live lane.
fn run_mb8<const D: usize>(ifma: Ifma, jobs: &[Option<&Job>; 8]) -> [LaneStatus; 8] {
    let mut outs: Vec<Vec<u64>> = (0..8).map(|_| vec![0xdead; limbs_for(D)]).collect();
    let lanes: [Option<Mb8Lane<'_>>; 8] = {
        let mut it = outs.iter_mut();
        core::array::from_fn(|l| {
            let out = it.next().unwrap();
            jobs[l].map(|j| Mb8Lane {
                modulus: &j.n,
                rr: &j.rr,
                base: &j.base,
                exp: &j.exp,
                out: out.as_mut_slice(),
            })
        })
    };
    let status = exp_mb8::<D>(ifma, lanes);
    for l in 0..8 {
        match (jobs[l], status[l]) {
            (None, s) => {
                assert_eq!(s, LaneStatus::Empty);
                assert!(outs[l].iter().all(|&w| w == 0xdead), "empty lane {l} was written");
            }
            (Some(j), LaneStatus::Done) => assert_eq!(outs[l], j.want, "D={D} lane {l}"),
            (Some(_), LaneStatus::Failed(_)) => {
                assert!(outs[l].iter().all(|&w| w == 0), "failed lane {l} not zeroed")
            }
            (Some(_), LaneStatus::Empty) => panic!("live lane {l} reported empty"),
        }
    }
    status
}

fn mb8_random_batches<const D: usize>(rng: &mut Rng) {
    let Some(ifma) = ifma_or_skip("mb8_random_batches") else { return };
    let top = max_modulus_bits(D);
    // Eight different moduli: full size, and smaller ones of the same digit count.
    let sizes = [top, top, top - 1, top - 2, top - 13, 52 * (D - 1) + 1, top - 64, top];
    let jobs: Vec<Job> =
        sizes.iter().map(|&bits| Job::random(rng, D, bits, bits.div_ceil(64))).collect();
    let batch: [Option<&Job>; 8] = core::array::from_fn(|l| Some(&jobs[l]));
    let status = run_mb8::<D>(ifma, &batch);
    assert!(status.iter().all(|s| *s == LaneStatus::Done));
}

#[test]
fn mb8_exp_matches_modpow_at_every_size() {
    let mut rng = Rng(1);
    mb8_random_batches::<10>(&mut rng);
    mb8_random_batches::<20>(&mut rng);
    mb8_random_batches::<30>(&mut rng);
    mb8_random_batches::<40>(&mut rng);
    mb8_random_batches::<60>(&mut rng);
    mb8_random_batches::<79>(&mut rng);
}

#[test]
fn mb8_edge_cases() {
    let Some(ifma) = ifma_or_skip("mb8_edge_cases") else { return };
    const D: usize = 20;
    let mut rng = Rng(2);
    let n = rng.odd_modulus(1024);
    let nm1 = &n - 1u32;
    let full = vec![!0u64; 16];
    let rand_exp: Vec<u64> = (0..16).map(|_| rng.next()).collect();
    let jobs = [
        Job::new(D, &n, &BigUint::zero(), &rand_exp),
        Job::new(D, &n, &BigUint::one(), &rand_exp),
        Job::new(D, &n, &nm1, &rand_exp),
        Job::new(D, &n, &nm1, &full),
        Job::new(D, &n, &rng.below(&n), &[]),
        Job::new(D, &n, &rng.below(&n), &[0, 0]),
        Job::new(D, &n, &rng.below(&n), &[1]),
        Job::new(D, &n, &BigUint::zero(), &[0]),
    ];
    let batch: [Option<&Job>; 8] = core::array::from_fn(|l| Some(&jobs[l]));
    run_mb8::<D>(ifma, &batch);
}

/// The radix-2^52 digits of `x` (which must fit `D` digits).
pub(super) fn digits<const D: usize>(x: &BigUint) -> [u64; D] {
    let limbs = to_limbs(x, (52 * D).div_ceil(64));
    let mut d = [0u64; D];
    assert!(radix52::to_radix52(&mut d, &limbs).declassify());
    d
}

pub(super) fn from_digits(d: &[u64]) -> BigUint {
    d.iter().rev().fold(BigUint::zero(), |acc, &w| (acc << 52) + w)
}

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
        let mut out = Mb8::<D>::ZERO;
        // SAFETY: IFMA was detected above.
        unsafe {
            if square {
                ams_mb8(&a, &n, &k0, &mut out);
            } else {
                amm_mb8(&a, &b, &n, &k0, &mut out);
            }
        }
        for l in 0..8 {
            let o: Vec<u64> = (0..D).map(|k| out.0[k][l]).collect();
            check_amm(&xs[l], &ys[l], &ns[l], D, &o);
        }
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
    amm_matches::<40>(&mut rng, true);
    amm_matches::<60>(&mut rng, true);
    amm_matches::<79>(&mut rng, true);
    amm_matches::<80>(&mut rng, true);
}

fn x2_random_pairs<const D: usize>(rng: &mut Rng) {
    let Some(ifma) = ifma_or_skip("x2_random_pairs") else { return };
    let top = max_modulus_bits(D);
    for (bits, exp_limbs) in
        [(top, [top.div_ceil(64); 2]), (top - 7, [3, 1]), (52 * D - 60, [0, 2])]
    {
        let jobs: Vec<Job> = (0..2).map(|s| Job::random(rng, D, bits, exp_limbs[s])).collect();
        let params: Vec<Params52<D>> =
            jobs.iter().map(|j| Params52::<D>::new(&j.n, &j.rr).unwrap()).collect();
        let (mut o0, mut o1) = (vec![7u64; limbs_for(D)], vec![7u64; limbs_for(D)]);
        exp_x2::<D>(
            ifma,
            [&mut o0, &mut o1],
            [&jobs[0].base, &jobs[1].base],
            [&jobs[0].exp, &jobs[1].exp],
            [&params[0], &params[1]],
        )
        .unwrap();
        assert_eq!(o0, jobs[0].want, "D={D} bits={bits} number 0");
        assert_eq!(o1, jobs[1].want, "D={D} bits={bits} number 1");
        let mut o = vec![7u64; limbs_for(D)];
        exp_x1::<D>(ifma, &mut o, &jobs[1].base, &jobs[1].exp, &params[1]).unwrap();
        assert_eq!(o, jobs[1].want, "D={D} bits={bits} x1");
    }
}

#[test]
fn x2_exp_matches_modpow_at_every_size() {
    let mut rng = Rng(5);
    x2_random_pairs::<10>(&mut rng);
    x2_random_pairs::<20>(&mut rng);
    x2_random_pairs::<30>(&mut rng);
    x2_random_pairs::<40>(&mut rng);
    x2_random_pairs::<60>(&mut rng);
    x2_random_pairs::<79>(&mut rng);
}

#[test]
fn x2_edge_cases_and_errors() {
    let Some(ifma) = ifma_or_skip("x2_edge_cases_and_errors") else { return };
    const D: usize = 20;
    let mut rng = Rng(6);
    let n = [rng.odd_modulus(1024), rng.odd_modulus(1023)];
    let nm1 = [&n[0] - 1u32, &n[1] - 1u32];
    let full = vec![!0u64; 16];
    let r: Vec<u64> = (0..16).map(|_| rng.next()).collect();
    let cases: [([BigUint; 2], [&[u64]; 2]); 6] = [
        ([BigUint::zero(), BigUint::one()], [&r, &r]),
        ([nm1[0].clone(), nm1[1].clone()], [&full, &r]),
        ([nm1[0].clone(), BigUint::zero()], [&[], &[1]]),
        ([BigUint::one(), nm1[1].clone()], [&[0, 0, 0], &full]),
        ([rng.below(&n[0]), rng.below(&n[1])], [&[1], &[0]]),
        ([rng.below(&n[0]), rng.below(&n[1])], [&full[..1], &r[..5]]),
    ];
    let params: Vec<Params52<D>> = (0..2)
        .map(|s| {
            let rr = to_limbs(&rr52(&n[s], D), 16);
            Params52::<D>::new(&to_limbs(&n[s], 16), &rr).unwrap()
        })
        .collect();
    for (bases, exps) in &cases {
        let b = [to_limbs(&bases[0], 16), to_limbs(&bases[1], 16)];
        let (mut o0, mut o1) = (vec![0u64; 16], vec![0u64; 16]);
        exp_x2::<D>(ifma, [&mut o0, &mut o1], [&b[0], &b[1]], *exps, [&params[0], &params[1]])
            .unwrap();
        for (s, o) in [o0, o1].iter().enumerate() {
            let want = bases[s].modpow(&from_limbs(exps[s]), &n[s]);
            assert_eq!(from_limbs(o), want, "number {s}");
        }
    }
    // base >= n, and a wrong length, fail and zero the outputs.
    let ok = to_limbs(&BigUint::one(), 16);
    let bad = to_limbs(&n[1], 16);
    let (mut o0, mut o1) = (vec![5u64; 16], vec![5u64; 16]);
    let e = exp_x2::<D>(ifma, [&mut o0, &mut o1], [&ok, &bad], [&r, &r], [&params[0], &params[1]]);
    assert!(e.is_err());
    assert!(o0.iter().chain(&o1).all(|&w| w == 0));
    let short = vec![1u64; 15];
    let (mut o0, mut o1) = (vec![5u64; 16], vec![5u64; 16]);
    let e =
        exp_x2::<D>(ifma, [&mut o0, &mut o1], [&short, &ok], [&r, &r], [&params[0], &params[1]]);
    assert!(e.is_err());
}

#[test]
fn mb8_partial_duplicate_and_invalid_lanes() {
    let Some(ifma) = ifma_or_skip("mb8_partial_duplicate_and_invalid_lanes") else { return };
    const D: usize = 20;
    let mut rng = Rng(7);
    let good: Vec<Job> = (0..8).map(|l| Job::random(&mut rng, D, 1024 - l, 16 - l)).collect();
    // Partial batches: 1..7 live lanes in varying positions; dead lanes are left untouched.
    for live in 1..8 {
        let batch: [Option<&Job>; 8] =
            core::array::from_fn(|l| ((l * 3 + live) % 8 < live).then_some(&good[l]));
        assert_eq!(batch.iter().filter(|j| j.is_some()).count(), live);
        run_mb8::<D>(ifma, &batch);
    }
    // The same job in several lanes.
    let batch = [
        Some(&good[0]),
        Some(&good[0]),
        Some(&good[1]),
        Some(&good[0]),
        None,
        Some(&good[1]),
        Some(&good[0]),
        Some(&good[0]),
    ];
    run_mb8::<D>(ifma, &batch);
    // Invalid lanes fail alone: even modulus, zero modulus, base >= n, base == n, too
    // large a modulus for D, wrong base length, rr >= n.
    let mut bad: Vec<Job> = (0..7).map(|l| Job::random(&mut rng, D, 1000 + l, 4)).collect();
    bad[0].n[0] &= !1;
    bad[1].n.iter_mut().for_each(|w| *w = 0);
    bad[2].base = bad[2].n.clone();
    bad[2].base[0] += 1;
    bad[3].base = bad[3].n.clone();
    bad[4].n = to_limbs(&rng.odd_modulus(max_modulus_bits(D) + 1), 17);
    bad[4].base = vec![0; 17];
    bad[5].base.pop();
    bad[6].rr = bad[6].n.clone();
    for (k, b) in bad.iter().enumerate() {
        let mut batch: [Option<&Job>; 8] = core::array::from_fn(|l| Some(&good[l]));
        batch[(k * 5) % 8] = Some(b);
        batch[(k * 5 + 3) % 8] = None;
        let status = run_mb8::<D>(ifma, &batch);
        for (l, s) in status.iter().enumerate() {
            let want_failed = l == (k * 5) % 8;
            assert_eq!(matches!(s, LaneStatus::Failed(_)), want_failed, "bad {k} lane {l}");
        }
    }
}

#[test]
fn mb8_large_digit_counts_run_as_x2_pairs_with_lane_failures() {
    let Some(ifma) = ifma_or_skip("mb8_large_digit_counts") else { return };
    const D: usize = 40;
    let mut rng = Rng(8);
    let jobs: Vec<Job> =
        (0..8).map(|l| Job::random(&mut rng, D, 2048 - 3 * l, 32 - 4 * l)).collect();
    let mut bad = Job::random(&mut rng, D, 2048, 32);
    bad.n[0] &= !1;
    let batch: [Option<&Job>; 8] = [
        Some(&jobs[0]),
        Some(&bad),
        Some(&jobs[2]),
        None,
        Some(&jobs[4]),
        Some(&jobs[5]),
        Some(&jobs[6]),
        Some(&jobs[0]),
    ];
    let status = run_mb8::<D>(ifma, &batch);
    assert!(matches!(status[1], LaneStatus::Failed(_)));
    assert_eq!(status.iter().filter(|s| **s == LaneStatus::Done).count(), 6);
}
