//! Cycle counts of the BMI2/ADX kernels, the multiplication recursion over them, and a
//! constant-time exponentiation built on them, beside GMP, for tuning on a quiet machine:
//!
//! ```text
//! cargo bench -p cryptocard-bench --bench adx [-- kernels chain tune_karatsuba tune_toom3
//!     products_gmp profile_65536 linear karatsuba_middle]
//! ```
//!
//! Counts are TSC ticks, the minimum over many calls (robust when other processes share
//! the cores); the core clock is measured against a chain of dependent `add`s (one cycle
//! each) and printed beside them. GMP is the `compare` crate's bundled GMP 6.3.
//! `tune_toom3` reads `KARATSUBA=...` or `TOOM4=...` (comma-separated cut-overs) to
//! compare those instead of the Toom-3 list.

use compare::gmp::Gmp;
use cryptocard::bignum::Limb;
use cryptocard::ct::select_from_table;
use cryptocard::hazmat::adx::{
    Adx, chain_scratch_len, karatsuba_middle, mont_mul_cios, mont_mul_raw, mont_sqr_raw,
    mul_almost, mul_basecase, redc_raw, sqr_basecase, sqr_n_almost,
};
use cryptocard::hazmat::mul::{
    ADX_BASECASE_THRESHOLDS as BASECASE_THRESHOLDS, AdxBasecase, Multiplier, Portable, Thresholds,
    abs_diff, thresholds,
};
use cryptocard::hazmat::{Avx2, select_from_table_avx2};
use cryptocard_bench::adx_powm::{ct_powm, from_big, setup, to_be_bytes, to_big};
use cryptocard_bench::timing::{
    min_ticks, thread_cpu_ns, ticks, ticks_per_call, ticks_per_cycle, tsc_hz,
};
use cryptocard_bench::workload::random_limbs as random;

fn main() {
    cryptocard_bench::run_selected(&[
        ("kernels", kernels_and_powm),
        ("chain", chain_kernels),
        ("tune_karatsuba", tune_karatsuba),
        ("tune_toom3", tune_toom3),
        ("products_gmp", products_against_gmp),
        ("profile_65536", profile_product_65536),
        ("linear", linear_portable),
        ("karatsuba_middle", karatsuba_middle_cost),
    ]);
}

fn adx_or_skip(what: &str) -> Option<Adx> {
    let t = Adx::detect();
    if t.is_none() {
        println!("{what}: skipped, this CPU has no BMI2/ADX");
    }
    t
}

fn kernels_and_powm() {
    let Some(adx) = adx_or_skip("kernels") else { return };
    let (tpc, hz) = (ticks_per_cycle(), tsc_hz());
    println!(
        "TSC {:.3} GHz, {tpc:.3} ticks per core cycle (core ~{:.2} GHz)",
        hz / 1e9,
        hz / tpc / 1e9
    );
    println!("ticks per call (core cycles in brackets), min over calls");
    println!(
        "   k   mont_mul        mont_sqr        mul_basecase    sqr_basecase    redc            cios"
    );
    let mut seed = 1;
    for k in [8, 16, 24, 32, 48, 64, 12, 20, 40, 56] {
        if k == 12 {
            println!("  sizes without an unrolled kernel (loop kernels):");
        }
        let (n, n0, _) = setup(k, &mut seed);
        let (a, b) = (random(&mut seed, k), random(&mut seed, k));
        let (mut r, mut t) = (vec![0; k], vec![0; 2 * k]);
        let reps = 20_000 / k;
        let mm = ticks_per_call(reps, 16, || _ = mont_mul_raw(adx, &mut r, &a, &b, &n, n0));
        let ms = ticks_per_call(reps, 16, || _ = mont_sqr_raw(adx, &mut r, &a, &n, n0));
        let mb = ticks_per_call(reps, 16, || mul_basecase(adx, &mut t, &a, &b));
        let sb = ticks_per_call(reps, 16, || sqr_basecase(adx, &mut t, &a));
        let rd = ticks_per_call(reps, 16, || _ = redc_raw(adx, &mut r, &mut t, &n, n0));
        let ci = ticks_per_call(reps, 16, || _ = mont_mul_cios(adx, &mut r, &a, &b, &n, n0));
        let cyc = |x: f64| format!("{x:>6.0} ({:>6.0})", x / tpc);
        let row = [mm, ms, mb, sb, rd, ci].map(cyc).join(" ");
        println!("{k:>4} {row}");
    }
    println!("constant-time 5-bit fixed-window modexp, full-length exponent");
    let gmp = Gmp::bundled();
    for bits in [1024, 2048, 4096] {
        let k = bits / 64;
        let (n, n0, rr) = setup(k, &mut seed);
        let b = from_big(&(to_big(&random(&mut seed, k)) % to_big(&n)), k);
        let e = random(&mut seed, k);
        let (a, mut r) = (random(&mut seed, k), vec![0; k]);
        let mm = ticks_per_call(500, 16, || _ = mont_mul_raw(adx, &mut r, &a, &b, &n, n0));
        let ms = ticks_per_call(500, 16, || _ = mont_sqr_raw(adx, &mut r, &a, &n, n0));
        let est = bits as f64 * ms + (bits as f64 / 5.0 + 32.0) * mm;
        let table = random(&mut seed, 32 * k);
        let mut sel = vec![0; k];
        let mut idx = 0;
        let scan = ticks_per_call(500, 16, || {
            idx = (idx + 7) % 32;
            select_from_table(&mut sel, &table, idx)
        });
        let scan_avx2 = Avx2::detect().map_or(f64::NAN, |avx2| {
            ticks_per_call(500, 16, || {
                idx = (idx + 7) % 32;
                select_from_table_avx2(avx2, &mut sel, &table, idx)
            })
        });
        println!(
            "{bits:>5} bits: one 32-entry ct::select_from_table scan {:.0} cycles, {:.0}% of \
             the estimated exponentiation; AVX2 scan {:.0} cycles",
            scan / tpc,
            100.0 * scan * (bits as f64 / 5.0) / est,
            scan_avx2 / tpc,
        );
        let reps = [200, 60, 40][k / 32];
        // Ours and GMP's in turn, so that both see the same load; minimum per call.
        let mut g = gmp
            .as_ref()
            .ok()
            .and_then(|gmp| gmp.modexp(&to_be_bytes(&b), &to_be_bytes(&e), &to_be_bytes(&n)).ok());
        let (mut t, mut tg) = (u64::MAX, u64::MAX);
        for _ in 0..reps {
            t = t.min(min_ticks(1, || _ = ct_powm(adx, &b, &e, &n, n0, &rr)));
            if let Some(g) = g.as_mut() {
                tg = tg.min(min_ticks(1, || g.run_sec()));
            }
        }
        let calls = (hz / est * 0.6) as usize + 1;
        let cpu0 = thread_cpu_ns();
        (0..calls).for_each(|_| _ = ct_powm(adx, &b, &e, &n, n0, &rr));
        let cpu = (thread_cpu_ns() - cpu0) as f64 / 1e9;
        let gmp_rate = if g.is_some() { format!("{:.0}", hz / tg as f64) } else { "-".into() };
        println!(
            "{bits:>5} bits: estimated {:>5.0} ops/s from kernels, measured {:>5.0} ops/s \
             (min {t} ticks), {:>5.0} ops/s (thread CPU time of {calls} calls); \
             GMP mpz_powm_sec {gmp_rate} ops/s (min {tg} ticks): {:.2}x",
            hz / est,
            hz / t as f64,
            calls as f64 / cpu,
            tg as f64 / t as f64,
        );
    }
}

/// The fused chain kernels against the separate ones they replace, per product.
fn chain_kernels() {
    let Some(adx) = adx_or_skip("chain") else { return };
    let tpc = ticks_per_cycle();
    println!(
        "core cycles per product: sqr_n_almost (w = 5) / 5, mul_almost; mont_sqr_raw, mont_mul_raw"
    );
    let mut seed = 3;
    for k in [8, 16, 24, 32, 48, 64] {
        let (n, n0, _) = setup(k, &mut seed);
        let (mut a, b) = (random(&mut seed, k), random(&mut seed, k));
        let mut s = vec![0; chain_scratch_len(k)];
        let mut r = vec![0; k];
        let reps = 40_000 / k;
        let sq = ticks_per_call(reps, 16, || sqr_n_almost(adx, &mut a, 5, &n, n0, &mut s)) / 5.0;
        let mu = ticks_per_call(reps, 16, || mul_almost(adx, &mut a, &b, &n, n0, &mut s));
        let rs = ticks_per_call(reps, 16, || _ = mont_sqr_raw(adx, &mut r, &a, &n, n0));
        let rm = ticks_per_call(reps, 16, || _ = mont_mul_raw(adx, &mut r, &a, &b, &n, n0));
        println!(
            "{k:>4} {:>8.0} {:>8.0}   {:>8.0} {:>8.0}",
            sq / tpc,
            mu / tpc,
            rs / tpc,
            rm / tpc
        );
    }
}

/// A timed call, given the result and scratch buffers.
type Job<'a> = &'a dyn Fn(&mut [Limb], &mut [Limb]);

/// Ticks per call of each `(result, scratch)` job, the minimum over `rounds` interleaved
/// samples of 8 calls.
fn race(rounds: usize, r: &mut [Limb], s: &mut [Limb], fs: &[Job<'_>]) -> Vec<f64> {
    let mut best = vec![f64::INFINITY; fs.len()];
    for _ in 0..rounds {
        for (f, b) in fs.iter().zip(best.iter_mut()) {
            *b = b.min(ticks_per_call(1, 8, || f(r, s)));
        }
    }
    best
}

fn tune_karatsuba() {
    let Some(adx) = adx_or_skip("tune_karatsuba") else { return };
    let kernel = AdxBasecase(adx);
    let tpc = ticks_per_cycle();
    let mut seed = 9;
    let at = |m, t| Thresholds {
        mul_karatsuba: m,
        sqr_karatsuba: m,
        mul_toom3: t,
        sqr_toom3: t,
        ..BASECASE_THRESHOLDS
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
    let th = BASECASE_THRESHOLDS;
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

fn products_against_gmp() {
    let Some(adx) = adx_or_skip("products_gmp") else { return };
    let Ok(gmp) = Gmp::bundled() else {
        println!("products_gmp: skipped, the bundled GMP was not built (it needs m4)");
        return;
    };
    let (kernel, tpc) = (AdxBasecase(adx), ticks_per_cycle());
    let adx_mul = Multiplier { kernel: &kernel, thresholds: &BASECASE_THRESHOLDS };
    let portable = Multiplier { kernel: &Portable, thresholds: &thresholds::PORTABLE };
    let mut seed = 11;
    println!("core cycles per n x n-limb product (min of interleaved samples)");
    println!("   bits    GMP mpz_mul   ADX basecase + recursion   portable   ADX/GMP");
    for bits in [1024, 2048, 4096, 8192, 16384, 65536] {
        let n = bits / 64;
        let (a, b) = (random(&mut seed, n), random(&mut seed, n));
        let len = adx_mul.mul_scratch_len(n, n).max(portable.mul_scratch_len(n, n)) + 1;
        let (mut s, mut r) = (vec![0; len], vec![0; 2 * n]);
        let mut g = gmp.mul(&to_be_bytes(&a), &to_be_bytes(&b));
        let rounds = 2_000_000 / (n * n) + 20;
        let mut best_g = f64::INFINITY;
        let mut best = [f64::INFINITY; 2];
        for _ in 0..rounds {
            let t = ticks();
            (0..4).for_each(|_| g.run());
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

/// A 65536-bit product in a loop for four seconds, for a profiler (`perf record`).
fn profile_product_65536() {
    let Some(adx) = adx_or_skip("profile_65536") else { return };
    let kernel = AdxBasecase(adx);
    let m = Multiplier { kernel: &kernel, thresholds: &BASECASE_THRESHOLDS };
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

fn linear_portable() {
    use cryptocard::hazmat::adx::{add_1 as adx_add_1, add_n as adx_add_n};
    use cryptocard::hazmat::{abs_diff, add_1, add_n, sub_n};
    let Some(adx) = adx_or_skip("linear") else { return };
    let tpc = ticks_per_cycle();
    let mut seed = 5;
    for n in [16usize, 64, 256, 512] {
        let (a, b) = (random(&mut seed, n), random(&mut seed, n));
        let mut r = vec![0; n];
        let bb = std::hint::black_box;
        let t = [
            min_ticks(2000, || _ = bb(add_n(&mut r, &a, &b))),
            min_ticks(2000, || _ = bb(sub_n(&mut r, &a, &b))),
            min_ticks(2000, || _ = bb(abs_diff(&mut r, &a, &b))),
            min_ticks(2000, || _ = bb(add_1(&mut r, &b))),
            min_ticks(2000, || _ = bb(adx_add_n(adx, &mut r, &a, &b, 0))),
            min_ticks(2000, || _ = bb(adx_add_1(adx, &mut r, &b))),
        ];
        let c: Vec<String> =
            t.iter().map(|&x| format!("{:.2}", x as f64 / tpc / n as f64)).collect();
        println!(
            "n={n}: cycles/limb add_n {} sub_n {} abs_diff {} add_1 {}  asm add_n {} add_1 {}",
            c[0], c[1], c[2], c[3], c[4], c[5]
        );
    }
}

/// Whole products of `n` limbs under a few Toom-3 cut-overs (the Karatsuba ones fixed).
fn tune_toom3() {
    let Some(adx) = adx_or_skip("tune_toom3") else { return };
    let kernel = AdxBasecase(adx);
    let tpc = ticks_per_cycle();
    let th = BASECASE_THRESHOLDS;
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
        let ths: Vec<Thresholds> = cuts
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
            ths.iter().map(|t| Multiplier { kernel: &kernel, thresholds: t }).collect();
        let len =
            ms.iter().map(|m| m.mul_scratch_len(n, n).max(m.sqr_scratch_len(n))).max().unwrap_or(0);
        let (mut s, mut r) = (vec![0; len], vec![0; 2 * n]);
        type Boxed<'a> = Box<dyn Fn(&mut [Limb], &mut [Limb]) + 'a>;
        let jobs: Vec<Boxed<'_>> = ms
            .iter()
            .map(|m| Box::new(move |r: &mut [Limb], s: &mut [Limb]| m.mul(r, a, b, s)) as Boxed<'_>)
            .chain(ms.iter().map(|m| {
                Box::new(move |r: &mut [Limb], s: &mut [Limb]| m.sqr(r, a, s)) as Boxed<'_>
            }))
            .collect();
        let refs: Vec<Job<'_>> = jobs.iter().map(|j| j.as_ref()).collect();
        let t = race((40_000_000 / (n * n)).max(30), &mut r, &mut s, &refs);
        let c: Vec<String> = t.iter().map(|x| format!("{:>7.0}", x / tpc / 1000.0)).collect();
        println!(
            "{n:>5} mul {}  sqr {} (kcycles)",
            c[..cuts.len()].join(""),
            c[cuts.len()..].join("")
        );
    }
}

fn karatsuba_middle_cost() {
    let Some(adx) = adx_or_skip("karatsuba_middle") else { return };
    let tpc = ticks_per_cycle();
    let mut seed = 5;
    for h in [16usize, 64, 256] {
        let mut r = random(&mut seed, 4 * h);
        let zx = random(&mut seed, 2 * h);
        let a = random(&mut seed, h);
        let b = random(&mut seed, h);
        let mut d = vec![0; h];
        let kern = AdxBasecase(adx);
        let (mut best, mut best_abs) = (u64::MAX, u64::MAX);
        for _ in 0..3000 {
            best = best.min(min_ticks(1, || karatsuba_middle(adx, &mut r, &zx, h, !0)));
            best_abs = best_abs
                .min(min_ticks(1, || _ = std::hint::black_box(abs_diff(&kern, &mut d, &a, &b))));
        }
        println!(
            "h = {h}: middle {:.2} cycles per h, abs_diff {:.2} per limb",
            best as f64 / tpc / h as f64,
            best_abs as f64 / tpc / h as f64
        );
    }
}
