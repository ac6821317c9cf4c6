//! Exponentiations (x1, x2, mb8) against `modpow`: every size, edge cases, partial and
//! mixed batches, invalid lanes.

use super::{Job, Rng, from_limbs, ifma_or_skip, limbs_for, rr52, to_limbs};
use crate::arch::x86_64::cpu::Ifma;
use crate::arch::x86_64::ifma::LaneStatus;
use crate::arch::x86_64::ifma::exp_mb8::{Mb8Lane, exp_mb8};
use crate::arch::x86_64::ifma::exp_x2::{exp_public_x2, exp_x2};
use crate::arch::x86_64::ifma::radix52::{Params52, max_modulus_bits};
use num_bigint::BigUint;
use num_traits::{One, Zero};

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
    mb8_random_batches::<21>(&mut rng);
    mb8_random_batches::<60>(&mut rng);
    mb8_random_batches::<79>(&mut rng);
    mb8_random_batches::<80>(&mut rng);
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

fn x2_random_pairs<const D: usize>(rng: &mut Rng) {
    let Some(ifma) = ifma_or_skip("x2_random_pairs") else { return };
    let top = max_modulus_bits(D);
    for (bits, exp_limbs) in
        [(top, [top.div_ceil(64); 2]), (top - 7, [3, 1]), (52 * D - 60, [0, 2])]
    {
        let jobs: Vec<Job> = (0..2).map(|s| Job::random(rng, D, bits, exp_limbs[s])).collect();
        let params: Vec<Params52<D>> =
            jobs.iter().map(|j| Params52::<D>::new(&j.n, &j.rr).unwrap()).collect();
        // The constructor that computes RR itself agrees with num-bigint's.
        let own = Params52::<D>::from_modulus_vartime(&jobs[0].n).unwrap();
        assert_eq!(own.rr, params[0].rr);
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
    }
}

#[test]
fn x2_exp_matches_modpow_at_every_size() {
    let mut rng = Rng(5);
    x2_random_pairs::<10>(&mut rng);
    x2_random_pairs::<20>(&mut rng);
    x2_random_pairs::<16>(&mut rng);
    x2_random_pairs::<28>(&mut rng);
    x2_random_pairs::<30>(&mut rng);
    x2_random_pairs::<40>(&mut rng);
    x2_random_pairs::<60>(&mut rng);
    x2_random_pairs::<79>(&mut rng);
}

/// The public-exponent pair (the RSA fault check) at `D` digits: public exponents of the
/// shapes RSA uses and the edges (0, 1, 2, 3, 65537, a long one), bases 0, 1, n - 1 and
/// random, moduli at the top of the class and shorter.
fn x2_public_pairs<const D: usize>(rng: &mut Rng) {
    let Some(ifma) = ifma_or_skip("x2_public_pairs") else { return };
    let top = max_modulus_bits(D);
    let len = limbs_for(D);
    let long: Vec<u64> = (0..3).map(|_| rng.next()).collect();
    let exps: [&[u64]; 8] = [&[], &[0, 0], &[1], &[2], &[3], &[65537], &[0, 1], &long];
    for bits in [top, top - 9] {
        let n = [rng.odd_modulus(bits), rng.odd_modulus(bits)];
        let params: Vec<Params52<D>> = n
            .iter()
            .map(|n| Params52::<D>::new(&to_limbs(n, len), &to_limbs(&rr52(n, D), len)).unwrap())
            .collect();
        let bases = [
            [BigUint::zero(), rng.below(&n[1])],
            [&n[0] - 1u32, BigUint::one()],
            [rng.below(&n[0]), rng.below(&n[1])],
        ];
        for e in exps {
            for b in &bases {
                let limbs = [to_limbs(&b[0], len), to_limbs(&b[1], len)];
                let (mut o0, mut o1) = (vec![7u64; len], vec![7u64; len]);
                let (p0, p1) = (&params[0], &params[1]);
                exp_public_x2::<D>(ifma, [&mut o0, &mut o1], [&limbs[0], &limbs[1]], e, [p0, p1])
                    .unwrap();
                for (s, o) in [&o0, &o1].into_iter().enumerate() {
                    let want = b[s].modpow(&from_limbs(e), &n[s]);
                    assert_eq!(from_limbs(o), want, "D={D} bits={bits} e={e:?} number {s}");
                }
            }
        }
        // A base not below its modulus fails and zeroes both outputs.
        let (ok, bad) = (to_limbs(&BigUint::one(), len), to_limbs(&n[1], len));
        let (mut o0, mut o1) = (vec![5u64; len], vec![5u64; len]);
        let r = exp_public_x2::<D>(
            ifma,
            [&mut o0, &mut o1],
            [&ok, &bad],
            &[65537],
            [&params[0], &params[1]],
        );
        assert!(r.is_err());
        assert!(o0.iter().chain(&o1).all(|&w| w == 0));
    }
}

#[test]
fn x2_public_exp_matches_modpow_at_every_size() {
    let mut rng = Rng(11);
    x2_public_pairs::<10>(&mut rng);
    x2_public_pairs::<20>(&mut rng);
    x2_public_pairs::<30>(&mut rng);
    x2_public_pairs::<40>(&mut rng);
    x2_public_pairs::<60>(&mut rng);
    x2_public_pairs::<79>(&mut rng);
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

/// Partial batches, the same job in several lanes, and invalid lanes that fail alone, at
/// `D` digits.
fn mb8_partial_and_invalid_lanes<const D: usize>(rng: &mut Rng) {
    let Some(ifma) = ifma_or_skip("mb8_partial_and_invalid_lanes") else { return };
    let top = max_modulus_bits(D);
    let good: Vec<Job> = (0..8).map(|l| Job::random(rng, D, top - 3 * l, 4 + l)).collect();
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
    let mut bad: Vec<Job> = (0..7).map(|l| Job::random(rng, D, top - 20 + l, 4)).collect();
    bad[0].n[0] &= !1;
    bad[1].n.iter_mut().for_each(|w| *w = 0);
    bad[2].base = bad[2].n.clone();
    bad[2].base[0] += 1;
    bad[3].base = bad[3].n.clone();
    bad[4].n = to_limbs(&rng.odd_modulus(top + 1), limbs_for(D + 1));
    bad[4].base = vec![0; limbs_for(D + 1)];
    bad[5].base.pop();
    bad[6].rr = bad[6].n.clone();
    for (k, b) in bad.iter().enumerate() {
        let mut batch: [Option<&Job>; 8] = core::array::from_fn(|l| Some(&good[l]));
        batch[(k * 5) % 8] = Some(b);
        batch[(k * 5 + 3) % 8] = None;
        let status = run_mb8::<D>(ifma, &batch);
        for (l, s) in status.iter().enumerate() {
            let want_failed = l == (k * 5) % 8;
            assert_eq!(matches!(s, LaneStatus::Failed(_)), want_failed, "D={D} bad {k} lane {l}");
        }
    }
}

/// Every way a batch runs: by column groups of 4 (20, 40 digits), 6 (30) and 10 (10), by
/// rows (21 digits), and as x2 pairs (79 digits).
#[test]
fn mb8_partial_duplicate_and_invalid_lanes() {
    let mut rng = Rng(7);
    mb8_partial_and_invalid_lanes::<10>(&mut rng);
    mb8_partial_and_invalid_lanes::<20>(&mut rng);
    mb8_partial_and_invalid_lanes::<21>(&mut rng);
    mb8_partial_and_invalid_lanes::<30>(&mut rng);
    mb8_partial_and_invalid_lanes::<40>(&mut rng);
    mb8_partial_and_invalid_lanes::<79>(&mut rng);
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(24))]

    /// exp_x2 against modpow on arbitrary 1024-bit-class moduli (any odd size that 20
    /// digits take), bases and exponents of up to 17 limbs.
    #[test]
    fn x2_exp_matches_modpow_on_arbitrary_inputs(
        n0 in proptest::collection::vec(proptest::prelude::any::<u64>(), 1..=17),
        n1 in proptest::collection::vec(proptest::prelude::any::<u64>(), 1..=17),
        b in proptest::collection::vec(proptest::prelude::any::<u64>(), 2),
        e0 in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..=17),
        e1 in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..=17),
    ) {
        let Some(ifma) = ifma_or_skip("x2_exp_matches_modpow_on_arbitrary_inputs") else {
            return Ok(());
        };
        const D: usize = 20;
        let fit = |x: BigUint| (x % (BigUint::one() << max_modulus_bits(D))) | BigUint::one();
        let n = [fit(from_limbs(&n0)), fit(from_limbs(&n1))];
        let jobs = [
            Job::new(D, &n[0], &(BigUint::from(b[0]) % &n[0]), &e0),
            Job::new(D, &n[1], &(from_limbs(&b) % &n[1]), &e1),
        ];
        let params: Vec<Params52<D>> =
            jobs.iter().map(|j| Params52::<D>::new(&j.n, &j.rr).unwrap()).collect();
        let (mut o0, mut o1) = (vec![0u64; limbs_for(D)], vec![0u64; limbs_for(D)]);
        exp_x2::<D>(
            ifma,
            [&mut o0, &mut o1],
            [&jobs[0].base, &jobs[1].base],
            [&jobs[0].exp, &jobs[1].exp],
            [&params[0], &params[1]],
        )
        .unwrap();
        proptest::prop_assert_eq!(&o0, &jobs[0].want);
        proptest::prop_assert_eq!(&o1, &jobs[1].want);
    }
}

/// The prepared-parameter entry point: lanes on `Params52` built once, one empty lane and
/// one lane with `base = n` (refused), against `modpow`.
fn mb8_prepared_batch<const D: usize>(rng: &mut Rng) {
    use crate::arch::x86_64::ifma::exp_mb8::{Mb8PreparedLane, exp_mb8_prepared};
    let Some(ifma) = ifma_or_skip("mb8_prepared_batch") else { return };
    let top = max_modulus_bits(D);
    let jobs: Vec<Job> = (0..8).map(|l| Job::random(rng, D, top - l, top.div_ceil(64))).collect();
    let params: Vec<Params52<D>> =
        jobs.iter().map(|j| Params52::<D>::new(&j.n, &j.rr).unwrap()).collect();
    let mut outs: Vec<Vec<u64>> = (0..8).map(|_| vec![0xdead; limbs_for(D)]).collect();
    let (empty, invalid) = (3, 6);
    let status = {
        let mut it = outs.iter_mut();
        let lanes: [Option<Mb8PreparedLane<'_, D>>; 8] = core::array::from_fn(|l| {
            let out = it.next().unwrap().as_mut_slice();
            let base = if l == invalid { &jobs[l].n } else { &jobs[l].base };
            (l != empty).then(|| Mb8PreparedLane {
                params: &params[l],
                base,
                exp: &jobs[l].exp,
                out,
            })
        });
        exp_mb8_prepared::<D>(ifma, lanes)
    };
    for l in 0..8 {
        if l == empty {
            assert_eq!(status[l], LaneStatus::Empty);
            assert!(outs[l].iter().all(|&w| w == 0xdead), "empty lane {l} was written");
        } else if l == invalid {
            assert!(matches!(status[l], LaneStatus::Failed(_)), "D={D} lane {l}");
            assert!(outs[l].iter().all(|&w| w == 0), "failed lane {l} not zeroed");
        } else {
            assert_eq!(status[l], LaneStatus::Done, "D={D} lane {l}");
            assert_eq!(outs[l], jobs[l].want, "D={D} lane {l}");
        }
    }
}

#[test]
fn mb8_prepared_matches_modpow() {
    let mut rng = Rng(21);
    mb8_prepared_batch::<10>(&mut rng);
    mb8_prepared_batch::<20>(&mut rng);
    mb8_prepared_batch::<30>(&mut rng);
    mb8_prepared_batch::<40>(&mut rng);
    mb8_prepared_batch::<60>(&mut rng);
}
