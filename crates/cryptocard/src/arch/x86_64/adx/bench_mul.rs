//! Products through the bignum recursion over the ADX basecase: the Karatsuba and Toom-3
//! cut-overs (`basecase::THRESHOLDS`) and the comparison with GMP's `mpz_mul`, both in one
//! process:
//!
//! ```text
//! cargo test --release -p cryptocard --lib adx::bench_mul -- --ignored --nocapture --test-threads=1
//! ```

use super::bench::{random, ticks, ticks_per_cycle};
use super::*;

/// TSC ticks per call of each closure, the minimum over `rounds` interleaved samples of 8
/// calls; the closures get the result and scratch buffers.
type Job<'a> = &'a dyn Fn(&mut [Limb], &mut [Limb]);
fn race(rounds: usize, r: &mut [Limb], s: &mut [Limb], fs: &[Job<'_>]) -> Vec<f64> {
    let mut best = vec![f64::INFINITY; fs.len()];
    for _ in 0..rounds {
        for (f, b) in fs.iter().zip(best.iter_mut()) {
            let t = ticks();
            (0..8).for_each(|_| f(r, s));
            *b = b.min((ticks() - t) as f64 / 8.0);
        }
    }
    best
}

#[test]
#[ignore = "tuning: run with --ignored --nocapture on a quiet machine"]
fn tune_karatsuba_over_adx() {
    use crate::bignum::mul::{Multiplier, Thresholds};
    let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
    let kernel = AdxBasecase(adx);
    let tpc = ticks_per_cycle();
    let mut seed = 9;
    let at = |m, t| Thresholds { mul_karatsuba: m, sqr_karatsuba: m, mul_toom3: t, sqr_toom3: t };
    println!("core cycles per call: basecase against one Karatsuba level over it");
    println!("   n   mul basecase  mul karatsuba   sqr basecase  sqr karatsuba");
    for n in [16, 20, 24, 28, 32, 36, 40, 48, 56, 64, 80, 96] {
        let (a, b) = (random(&mut seed, n), random(&mut seed, n));
        let (tb, tk) = (at(n + 1, n + 1), at(n, n + 1));
        let mb = Multiplier { kernel: &kernel, thresholds: &tb };
        let mk = Multiplier { kernel: &kernel, thresholds: &tk };
        let mut s = vec![0; mk.mul_scratch_len(n, n).max(mk.sqr_scratch_len(n)) + 1];
        let mut r = vec![0; 2 * n];
        let t = race(
            300,
            &mut r,
            &mut s,
            &[
                &|r, s| mb.mul(r, &a, &b, s),
                &|r, s| mk.mul(r, &a, &b, s),
                &|r, s| mb.sqr(r, &a, s),
                &|r, s| mk.sqr(r, &a, s),
            ],
        );
        let c: Vec<String> = t.iter().map(|x| format!("{:>13.0}", x / tpc)).collect();
        println!("{n:>4} {}", c.join(" "));
    }
    println!("Karatsuba (over the tuned thresholds) against one Toom-3 level");
    let th = super::BASECASE_THRESHOLDS;
    for n in [90, 120, 180, 240, 300, 400, 500] {
        let (a, b) = (random(&mut seed, n), random(&mut seed, n));
        let tk = Thresholds { mul_toom3: n + 1, sqr_toom3: n + 1, ..th };
        let tt = Thresholds { mul_toom3: n, sqr_toom3: n, ..th };
        let mk = Multiplier { kernel: &kernel, thresholds: &tk };
        let mt = Multiplier { kernel: &kernel, thresholds: &tt };
        let len = [
            mk.mul_scratch_len(n, n),
            mt.mul_scratch_len(n, n),
            mk.sqr_scratch_len(n),
            mt.sqr_scratch_len(n),
        ];
        let mut s = vec![0; len.into_iter().max().unwrap_or(0) + 1];
        let mut r = vec![0; 2 * n];
        let t = race(
            100,
            &mut r,
            &mut s,
            &[
                &|r, s| mk.mul(r, &a, &b, s),
                &|r, s| mt.mul(r, &a, &b, s),
                &|r, s| mk.sqr(r, &a, s),
                &|r, s| mt.sqr(r, &a, s),
            ],
        );
        let c: Vec<String> = t.iter().map(|x| format!("{:>8.0}", x / tpc)).collect();
        println!(
            "{n:>4}  mul karatsuba {} toom3 {}   sqr karatsuba {} toom3 {}",
            c[0], c[1], c[2], c[3]
        );
    }
}

#[test]
#[ignore = "benchmark: run with --ignored --nocapture on a quiet machine"]
fn bench_products_against_gmp() {
    use crate::bignum::mul::{Multiplier, Portable, thresholds};
    let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
    let Some(gmp) = super::bench_gmp::Gmp::load() else { return eprintln!("skipped: no GMP") };
    let (kernel, tpc) = (AdxBasecase(adx), ticks_per_cycle());
    let adx_mul = Multiplier { kernel: &kernel, thresholds: &super::BASECASE_THRESHOLDS };
    let portable = Multiplier { kernel: &Portable, thresholds: &thresholds::PORTABLE };
    let mut seed = 11;
    println!("core cycles per n x n-limb product (min of interleaved samples)");
    println!("   bits    GMP mpz_mul   ADX basecase + recursion   portable   ADX/GMP");
    for bits in [1024, 2048, 4096, 8192, 16384, 65536] {
        let n = bits / 64;
        let (a, b) = (random(&mut seed, n), random(&mut seed, n));
        let len = adx_mul.mul_scratch_len(n, n).max(portable.mul_scratch_len(n, n)) + 1;
        let (mut s, mut r) = (vec![0; len], vec![0; 2 * n]);
        let mut g = gmp.powm_sec(&a, &b, &[1]);
        let rounds = 2_000_000 / (n * n) + 20;
        let mut best_g = f64::INFINITY;
        let mut best = [f64::INFINITY; 2];
        for _ in 0..rounds {
            let t = ticks();
            (0..4).for_each(|_| g.mul());
            best_g = best_g.min((ticks() - t) as f64 / 4.0);
            let t2 = race(
                1,
                &mut r,
                &mut s,
                &[&|r, s| adx_mul.mul(r, &a, &b, s), &|r, s| portable.mul(r, &a, &b, s)],
            );
            best = [best[0].min(t2[0]), best[1].min(t2[1])];
        }
        println!(
            "{bits:>7} {:>14.0} {:>26.0} {:>10.0} {:>9.2}",
            best_g / tpc,
            best[0] / tpc,
            best[1] / tpc,
            best[0] / best_g
        );
    }
}
