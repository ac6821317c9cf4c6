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
type BoxedJob<'a> = Box<dyn Fn(&mut [Limb], &mut [Limb]) + 'a>;
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
    let at = |m, t| Thresholds {
        mul_karatsuba: m,
        sqr_karatsuba: m,
        mul_toom3: t,
        sqr_toom3: t,
        ..super::BASECASE_THRESHOLDS
    };
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

/// A 65536-bit product in a loop for a profiler (`perf record -e cpu-clock`).
#[test]
#[ignore = "profiling aid: runs for several seconds"]
fn profile_product_65536() {
    use crate::bignum::mul::Multiplier;
    let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
    let kernel = AdxBasecase(adx);
    let m = Multiplier { kernel: &kernel, thresholds: &super::BASECASE_THRESHOLDS };
    let n = 1024;
    let mut seed = 5;
    let (a, b) = (random(&mut seed, n), random(&mut seed, n));
    let mut s = vec![0; m.mul_scratch_len(n, n)];
    let mut r = vec![0; 2 * n];
    let t = std::time::Instant::now();
    while t.elapsed().as_secs() < 4 {
        m.mul(&mut r, &a, &b, &mut s);
    }
}

#[test]
#[ignore = "benchmark"]
fn bench_linear_portable() {
    use crate::bignum::{add_n, sub_n};
    let tpc = ticks_per_cycle();
    let mut seed = 5;
    for n in [16usize, 64, 256, 512] {
        let (a, b) = (random(&mut seed, n), random(&mut seed, n));
        let mut r = vec![0; n];
        let mut best = [u64::MAX; 4];
        for _ in 0..2000 {
            let t = ticks();
            std::hint::black_box(add_n(&mut r, &a, &b));
            best[0] = best[0].min(ticks() - t);
            let t = ticks();
            std::hint::black_box(sub_n(&mut r, &a, &b));
            best[1] = best[1].min(ticks() - t);
            let t = ticks();
            std::hint::black_box(crate::bignum::abs_diff(&mut r, &a, &b));
            best[2] = best[2].min(ticks() - t);
            let t = ticks();
            std::hint::black_box(crate::bignum::add_1(&mut r, &b));
            best[3] = best[3].min(ticks() - t);
        }
        let adx = Adx::detect().unwrap();
        let mut best2 = [u64::MAX; 2];
        for _ in 0..2000 {
            let t = ticks();
            std::hint::black_box(super::linear::add_n(adx, &mut r, &a, &b, 0));
            best2[0] = best2[0].min(ticks() - t);
            let t = ticks();
            std::hint::black_box(super::linear::add_1(adx, &mut r, &b));
            best2[1] = best2[1].min(ticks() - t);
        }
        let c: Vec<String> = best
            .iter()
            .chain(&best2)
            .map(|&x| format!("{:.2}", x as f64 / tpc / n as f64))
            .collect();
        println!(
            "n={n}: cycles/limb add_n {} sub_n {} abs_diff {} add_1 {}  asm add_n {} add_1 {}",
            c[0], c[1], c[2], c[3], c[4], c[5]
        );
    }
}

/// Whole products of `n` limbs under a few Toom-3 cut-overs (the Karatsuba ones fixed).
#[test]
#[ignore = "tuning: run with --ignored --nocapture on a quiet machine"]
fn tune_toom3_over_adx() {
    use crate::bignum::mul::{Multiplier, Thresholds};
    let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
    let kernel = AdxBasecase(adx);
    let tpc = ticks_per_cycle();
    let th = super::BASECASE_THRESHOLDS;
    let list = |name: &str| -> Option<Vec<usize>> {
        Some(std::env::var(name).ok()?.split(',').filter_map(|x| x.parse().ok()).collect())
    };
    // (Karatsuba, Toom-3, Toom-4) cut-overs to compare, from KARATSUBA, TOOM4 or the
    // default Toom-3 list.
    let cuts: Vec<(usize, usize, usize)> = if let Some(v) = list("KARATSUBA") {
        v.into_iter().map(|k| (k, 5000, th.mul_toom4)).collect()
    } else if let Some(v) = list("TOOM4") {
        v.into_iter().map(|t| (th.mul_karatsuba, 5000, t)).collect()
    } else {
        [100, 150, 200, 300, 400, 600, 5000].map(|t| (th.mul_karatsuba, t, 5000)).to_vec()
    };
    println!("core cycles per n x n product and square; (Karatsuba, Toom-3, Toom-4) from {cuts:?}");
    let mut seed = 17;
    for n in [128usize, 192, 256, 384, 512, 768, 1024] {
        let (a, b) = (random(&mut seed, n), random(&mut seed, n));
        let (a, b) = (&a, &b);
        let ms: Vec<Thresholds> = cuts
            .iter()
            .map(|&(k, c, t4)| Thresholds {
                mul_karatsuba: k,
                sqr_karatsuba: k.max(th.sqr_karatsuba),
                mul_toom3: c,
                sqr_toom3: c,
                mul_toom4: t4,
                sqr_toom4: t4,
            })
            .collect();
        let ms: Vec<Multiplier<'_, AdxBasecase>> =
            ms.iter().map(|t| Multiplier { kernel: &kernel, thresholds: t }).collect();
        let len =
            ms.iter().map(|m| m.mul_scratch_len(n, n).max(m.sqr_scratch_len(n))).max().unwrap_or(0);
        let (mut s, mut r) = (vec![0; len], vec![0; 2 * n]);
        let jobs: Vec<BoxedJob<'_>> = ms
            .iter()
            .map(|m| {
                Box::new(move |r: &mut [Limb], s: &mut [Limb]| m.mul(r, a, b, s)) as BoxedJob<'_>
            })
            .chain(ms.iter().map(|m| {
                Box::new(move |r: &mut [Limb], s: &mut [Limb]| m.sqr(r, a, s)) as BoxedJob<'_>
            }))
            .collect();
        let refs: Vec<Job<'_>> = jobs.iter().map(|j| j.as_ref() as Job<'_>).collect();
        let t = race((40_000_000 / (n * n)).max(30), &mut r, &mut s, &refs);
        let c: Vec<String> = t.iter().map(|x| format!("{:>7.0}", x / tpc / 1000.0)).collect();
        println!(
            "{n:>5} mul {}  sqr {} (kcycles)",
            c[..cuts.len()].join(""),
            c[cuts.len()..].join("")
        );
    }
}

#[test]
#[ignore = "benchmark"]
fn bench_karatsuba_middle() {
    let Some(adx) = Adx::detect() else { return };
    let tpc = ticks_per_cycle();
    let mut seed = 5;
    for h in [16usize, 64, 256] {
        let mut r = random(&mut seed, 4 * h);
        let zx = random(&mut seed, 2 * h);
        let mut best = u64::MAX;
        let mut best_abs = u64::MAX;
        let a = random(&mut seed, h);
        let b = random(&mut seed, h);
        let mut d = vec![0; h];
        let kern = AdxBasecase(adx);
        for _ in 0..3000 {
            let t = ticks();
            super::linear::karatsuba_middle(adx, &mut r, &zx, h, !0);
            best = best.min(ticks() - t);
            let t = ticks();
            std::hint::black_box(crate::bignum::mul::abs_diff_for_bench(&kern, &mut d, &a, &b));
            best_abs = best_abs.min(ticks() - t);
        }
        println!(
            "h = {h}: middle {:.2} cycles per h, abs_diff {:.2} per limb",
            best as f64 / tpc / h as f64,
            best_abs as f64 / tpc / h as f64
        );
    }
}
