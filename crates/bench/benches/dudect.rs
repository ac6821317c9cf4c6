//! A statistical timing test of the secret-exponent exponentiations, by dudect's method
//! (Reparaz, Balasch and Verbauwhede, "Dude, is my code constant time?", DATE 2017):
//!
//! ```text
//! cargo bench -p cryptocard-bench --bench dudect [-- x2 mb8 scalar]   # DUDECT_SAMPLES=N
//! ```
//!
//! Two classes of calls, interleaved in a random order: exponents fixed at 2^(b-1) (the
//! top bit alone, so that every window but the first reads table entry 0) and uniformly
//! random exponents of the same length (top bit set); the bases are random in both. Each
//! call is timed with the TSC. Welch's t-test compares the two classes' times, on all
//! samples and on the samples below each of a few percentiles (dudect's cropping, which
//! keeps interrupts from hiding a difference). |t| above 4.5 means the timing depends on
//! the exponent; below, none was found at this sample size. Valgrind cannot run AVX-512,
//! so this is the check of the IFMA kernels (x2, mb8) that `scripts/ct-valgrind` gives
//! the scalar code; the scalar exponentiation is measured too, for comparison.
//!
//! Not part of the test suite (it measures, and its verdict needs a quiet machine).

use cryptocard::bignum::Nat;
use cryptocard::hazmat::Ifma;
use cryptocard::hazmat::ifma::{self as hz, Mb8Lane, Params52};
use cryptocard::modular::Modulus;
use cryptocard_bench::timing::ticks;
use cryptocard_bench::workload::{Rng, from_limbs, limbs_for, to_limbs};
use num_bigint::BigUint;
use num_traits::One;

fn main() {
    cryptocard_bench::run_selected(&[("x2", x2), ("mb8", mb8), ("scalar", scalar)]);
}

/// Samples per run (both classes together).
fn samples() -> usize {
    std::env::var("DUDECT_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(20_000)
}

/// An exponent of `limbs` limbs with its top bit set: the fixed class's (top bit alone)
/// or a random one.
fn exponent(rng: &mut Rng, limbs: usize, fixed: bool) -> Vec<u64> {
    let mut e: Vec<u64> = (0..limbs).map(|_| if fixed { 0 } else { rng.next_u64() }).collect();
    e[limbs - 1] |= 1 << 63;
    e
}

/// Times `call(class, input)` over the interleaved classes and prints Welch's t on all
/// samples and on those below the 50th, 75th and 90th percentiles of all times.
fn measure(name: &str, rng: &mut Rng, mut call: impl FnMut(bool, &mut Rng) -> u64) {
    let n = samples();
    let classes: Vec<bool> = (0..n).map(|_| rng.next_u64() & 1 == 1).collect();
    let times: Vec<(bool, f64)> = classes.iter().map(|&c| (c, call(c, rng) as f64)).collect();
    let mut sorted: Vec<f64> = times.iter().map(|t| t.1).collect();
    sorted.sort_by(f64::total_cmp);
    let mut line = format!("{name:<28} {n} samples:");
    let mut worst: f64 = 0.0;
    for (label, pct) in [("all", 100), ("p90", 90), ("p75", 75), ("p50", 50)] {
        let cut = sorted[(n * pct / 100).min(n - 1)];
        let t = welch_t(times.iter().filter(|t| t.1 <= cut));
        worst = worst.max(t.abs());
        line += &format!("  t({label}) {t:>6.2}");
    }
    let verdict =
        if worst > 4.5 { "LEAK: the time depends on the exponent" } else { "no leak found" };
    println!("{line}  max |t| {worst:.2}: {verdict}");
}

/// Welch's t statistic of the class-true times against the class-false times.
fn welch_t<'a>(times: impl Iterator<Item = &'a (bool, f64)>) -> f64 {
    let mut stats = [(0.0f64, 0.0f64, 0.0f64); 2]; // (count, mean, M2), Welford
    for &(class, x) in times {
        let s = &mut stats[class as usize];
        s.0 += 1.0;
        let d = x - s.1;
        s.1 += d / s.0;
        s.2 += d * (x - s.1);
    }
    let var = |s: (f64, f64, f64)| s.2 / (s.0 - 1.0).max(1.0);
    let (a, b) = (stats[0], stats[1]);
    (a.1 - b.1) / (var(a) / a.0 + var(b) / b.0).sqrt()
}

fn ifma_or_skip(what: &str) -> Option<Ifma> {
    let t = Ifma::detect();
    if t.is_none() {
        println!("{what}: skipped, this CPU has no AVX-512 IFMA");
    }
    t
}

/// A modulus of `bits` bits for `D` digits with its radix-2^52 parameters.
fn params<const D: usize>(rng: &mut Rng, bits: usize) -> (BigUint, Params52<D>) {
    let n = rng.odd_modulus(bits);
    let rr = (BigUint::one() << (104 * D)) % &n;
    let len = limbs_for(D);
    let p = Params52::<D>::new(&to_limbs(&n, len), &to_limbs(&rr, len)).unwrap();
    (n, p)
}

/// The x2 kernel at RSA-2048's prime size (20 digits, 1024-bit primes): both halves'
/// exponents in the class.
fn x2() {
    let Some(ifma) = ifma_or_skip("x2") else { return };
    let mut rng = Rng(21);
    let len = limbs_for(20);
    let (n0, p0) = params::<20>(&mut rng, 1024);
    let (n1, p1) = params::<20>(&mut rng, 1024);
    let (mut o0, mut o1) = (vec![0u64; len], vec![0u64; len]);
    measure("x2, 1024-bit primes", &mut rng, |fixed, rng| {
        let (b0, b1) = (to_limbs(&rng.below(&n0), len), to_limbs(&rng.below(&n1), len));
        let (e0, e1) = (exponent(rng, 16, fixed), exponent(rng, 16, fixed));
        let t = ticks();
        hz::exp_x2::<20>(ifma, [&mut o0, &mut o1], [&b0, &b1], [&e0, &e1], [&p0, &p1]).unwrap();
        ticks() - t
    });
}

/// The mb8 kernel at 20 digits: all eight lanes' exponents in the class.
fn mb8() {
    let Some(ifma) = ifma_or_skip("mb8") else { return };
    let mut rng = Rng(22);
    let len = limbs_for(20);
    let mods: Vec<BigUint> = (0..8).map(|_| rng.odd_modulus(1024)).collect();
    let rrs: Vec<Vec<u64>> =
        mods.iter().map(|n| to_limbs(&((BigUint::one() << (104 * 20)) % n), len)).collect();
    let ns: Vec<Vec<u64>> = mods.iter().map(|n| to_limbs(n, len)).collect();
    let mut outs = vec![vec![0u64; len]; 8];
    measure("mb8, 8 x 1024-bit moduli", &mut rng, |fixed, rng| {
        let bases: Vec<Vec<u64>> = mods.iter().map(|n| to_limbs(&rng.below(n), len)).collect();
        let exps: Vec<Vec<u64>> = (0..8).map(|_| exponent(rng, 16, fixed)).collect();
        let mut lanes: [Option<Mb8Lane<'_>>; 8] = Default::default();
        for (l, ((slot, out), i)) in lanes.iter_mut().zip(outs.iter_mut()).zip(0..).enumerate() {
            debug_assert_eq!(l, i);
            *slot = Some(Mb8Lane::new(&ns[i], &rrs[i], &bases[i], &exps[i], out));
        }
        let t = ticks();
        assert!(hz::exp_mb8::<20>(ifma, lanes));
        ticks() - t
    });
}

/// The modular core's constant-time exponentiation (the scalar backend's phase (b)) at
/// 1024 bits, on the kernels this CPU has.
fn scalar() {
    let mut rng = Rng(23);
    let n = rng.odd_modulus(1024);
    let m = Modulus::<()>::from_limbs(&to_limbs(&n, 16)).unwrap();
    measure("scalar, 1024-bit modulus", &mut rng, |fixed, rng| {
        let base = m.to_mont(&m.elem_from_limbs(&to_limbs(&rng.below(&n), 16)).unwrap());
        let e = Nat::from_limbs(exponent(rng, 16, fixed));
        debug_assert_eq!(from_limbs(e.as_limbs()).bits(), 1024);
        let t = ticks();
        std::hint::black_box(m.pow(&base, &e));
        ticks() - t
    });
}
