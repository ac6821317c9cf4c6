//! Cycle counts of the AVX-512 IFMA kernels and exponentiation rates beside OpenSSL:
//!
//! ```text
//! cargo bench -p cryptocard-bench --bench ifma [-- cycles windows select ams40 products40 fused x2_pair x2_kernels]
//! ```
//!
//! Every kernel figure is the minimum over many single calls, timed with `rdtsc`: the
//! machine's cores are shared, and the minimum is a call nobody interrupted. OpenSSL's RSA
//! private operation (libcrypto through the `openssl` crate) is timed in thread CPU time,
//! interleaved with ours. Core cycles are TSC ticks times the measured ratio of core clock
//! to TSC. On a CPU without IFMA every measurement prints a skip line.

use cryptocard::hazmat::Ifma;
use cryptocard::hazmat::ifma::{self as hz, Mb8, Mb8Lane, Params52, X2, max_modulus_bits};
use cryptocard_bench::timing::{cpu_us, min_ticks, ticks_per_cycle, ticks_per_ifma, tsc_hz};
use cryptocard_bench::workload::{Job, Rng, limbs_for};
use openssl::rsa::{Padding, Rsa};

fn main() {
    cryptocard_bench::run_selected(&[
        ("cycles", cycles),
        ("windows", windows),
        ("select", select),
        ("ams40", ams40),
        ("products40", products40),
        ("fused", fused),
        ("x2_pair", x2_pair),
        ("x2_kernels", x2_kernels),
    ]);
}

fn ifma_or_skip(what: &str) -> Option<Ifma> {
    let t = Ifma::detect();
    if t.is_none() {
        println!("{what}: skipped, this CPU has no AVX-512 IFMA");
    }
    t
}

/// Core cycles per TSC tick.
fn core_per_tick() -> f64 {
    1.0 / ticks_per_cycle()
}

fn mticks(reps: usize, f: impl FnMut()) -> f64 {
    min_ticks(reps, f) as f64
}

fn random_mb8<const D: usize>(rng: &mut Rng) -> Mb8<D> {
    // Values below 2^(52 D - 2), as the kernels' contracts want.
    Mb8::from_rows(core::array::from_fn(|k| {
        let top = if k + 1 == D { 2 } else { 0 };
        core::array::from_fn(|_| rng.next_u64() >> (12 + top))
    }))
}

fn random_x2<const D: usize>(rng: &mut Rng) -> X2<D> {
    X2::from_pairs(core::array::from_fn(|k| {
        let top = if k + 1 == D { 2 } else { 0 };
        core::array::from_fn(|_| rng.next_u64() >> (12 + top))
    }))
}

/// Ticks per call of `step` applied 64 times in a dependent chain (each output the next
/// input, as in an exponentiation: a call's latency counts, not only its throughput).
fn chained<T: Clone>(x0: &T, mut step: impl FnMut(&T, &mut T)) -> f64 {
    let (mut x, mut y) = (x0.clone(), x0.clone());
    mticks(200, || {
        for _ in 0..32 {
            step(&x, &mut y);
            step(&y, &mut x);
        }
    }) / 64.0
}

/// Cycles of one AMM and one AMS in a dependent chain, x2 and (for the transposed sizes)
/// mb8.
fn kernels<const D: usize>(ifma: Ifma, cpt: f64) {
    let mut rng = Rng(9);
    let (a, n) = (random_x2::<D>(&mut rng), random_x2::<D>(&mut rng));
    let k0 = [rng.next_u64() >> 12, rng.next_u64() >> 12];
    let amm = chained(&a, |x, y| hz::amm_x2(ifma, x, x, &n, &k0, y));
    let ams = chained(&a, |x, y| hz::ams_x2(ifma, x, &n, &k0, y));
    print!("D={D:>2} x2 : amm {:>6.0}  ams {:>6.0} cycles", amm * cpt, ams * cpt);
    if D <= hz::MB8_TRANSPOSED_MAX_DIGITS {
        let (a, n) = (random_mb8::<D>(&mut rng), random_mb8::<D>(&mut rng));
        let k0 = [rng.next_u64() >> 12; 8];
        let amm = chained(&a, |x, y| hz::amm_mb8(ifma, x, x, &n, &k0, y));
        let mut scratch = Mb8::<D>::ZERO;
        let ams = chained(&a, |x, y| hz::ams_mb8(ifma, x, &n, &k0, y, &mut scratch));
        print!("   mb8: amm {:>6.0}  ams {:>6.0} cycles", amm * cpt, ams * cpt);
    }
    ps::<D, 10>(ifma, cpt, &mut rng);
    ps::<D, 8>(ifma, cpt, &mut rng);
    ps::<D, 6>(ifma, cpt, &mut rng);
    ps::<D, 4>(ifma, cpt, &mut rng);
    ps::<D, 2>(ifma, cpt, &mut rng);
    println!();
}

fn ps<const D: usize, const W: usize>(ifma: Ifma, cpt: f64, rng: &mut Rng) {
    if hz::ps_width_ok::<D, W>() {
        let (a, n) = (random_mb8::<D>(rng), random_mb8::<D>(rng));
        let k0 = [rng.next_u64() >> 12; 8];
        let mut y = Mb8::<D>::ZERO;
        let amm = chained(&a, |x, o| hz::amm_mb8_ps::<D, W>(ifma, x, x, &n, &k0, o, &mut y));
        let ams = chained(&a, |x, o| hz::ams_mb8_ps::<D, W>(ifma, x, &n, &k0, o, &mut y, || {}));
        let tpi = ticks_per_ifma(ifma);
        print!(
            "   ps{W}: amm {:>6.0} ({:.1}%) ams {:>6.0} ({:.1}%)",
            amm * cpt,
            400.0 * (D * D) as f64 * tpi / amm,
            ams * cpt,
            100.0 * (3 * D * D + D) as f64 * tpi / ams
        );
        if hz::ks_fits::<D, W>() {
            let mut s = [Mb8::<D>::ZERO, Mb8::<D>::ZERO, Mb8::<D>::ZERO];
            let ks = chained(&a, |x, o| {
                hz::ams_mb8_ks::<D, W>(ifma, x, &n, &k0, o, &mut y, &mut s, || {})
            });
            let km =
                chained(&a, |x, o| hz::amm_mb8_ks::<D, W>(ifma, x, x, &n, &k0, o, &mut y, &mut s));
            print!(" ks: amm {:>6.0} ams {:>6.0}", km * cpt, ks * cpt);
        }
    }
}

/// The eight lanes of an mb8 call over `jobs`, writing into `outs`.
fn lanes<'a>(jobs: &'a [Job], outs: &'a mut [Vec<u64>]) -> [Option<Mb8Lane<'a>>; 8] {
    let mut it = outs.iter_mut();
    core::array::from_fn(|l| {
        let j = &jobs[l];
        let out = it.next().expect("eight outputs");
        Some(Mb8Lane::new(&j.n, &j.rr, &j.base, &j.exp, out))
    })
}

/// One RSA private operation of `2 * half` bits: our x2 exponentiation pair and mb8 batch
/// against OpenSSL's whole private operation (CRT, blinding, checks included).
fn rsa<const D: usize>(ifma: Ifma, half: usize, cpt: f64, tps: f64) {
    assert!(half <= max_modulus_bits(D));
    let mut rng = Rng(10);
    let jobs: Vec<Job> = (0..8).map(|_| Job::random(&mut rng, D, half, half / 64)).collect();
    let params: Vec<Params52<D>> =
        jobs.iter().map(|j| Params52::<D>::new(&j.n, &j.rr).unwrap()).collect();
    let key = Rsa::generate(2 * half as u32).unwrap();
    let msg = {
        let mut m = vec![0x5au8; 2 * half / 8];
        m[0] = 0;
        m
    };
    let mut sig = vec![0u8; 2 * half / 8];
    let (mut o0, mut o1) = (vec![0u64; limbs_for(D)], vec![0u64; limbs_for(D)]);
    let mut outs = vec![vec![0u64; limbs_for(D)]; 8];
    let (mut x2, mut mb8, mut ossl) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..3 {
        x2 = x2.min(cpu_us(1, 300, || {
            hz::exp_x2::<D>(
                ifma,
                [&mut o0, &mut o1],
                [&jobs[0].base, &jobs[1].base],
                [&jobs[0].exp, &jobs[1].exp],
                [&params[0], &params[1]],
            )
            .unwrap();
        }));
        mb8 = mb8.min(cpu_us(1, 300, || {
            hz::exp_mb8::<D>(ifma, lanes(&jobs, &mut outs));
        }));
        ossl = ossl.min(cpu_us(1, 300, || {
            key.private_encrypt(&msg, &mut sig, Padding::NONE).unwrap();
        }));
    }
    assert_eq!(o0, jobs[0].want);
    // An x2 pair is one RSA operation's exponentiations; a batch of 8 is four operations.
    println!(
        "RSA-{:<4} (D={D:>2}) x2 pair {:>7.0} us {:>8.0} cyc {:>6.0}/s | mb8 batch {:>7.0} us \
         {:>6.0} RSA/s | OpenSSL {:>6.0} us {:>6.0}/s | x2 {:.2}x  mb8 {:.2}x",
        2 * half,
        x2,
        x2 * 1e-6 * tps * cpt,
        1e6 / x2,
        mb8,
        4e6 / mb8,
        ossl,
        1e6 / ossl,
        ossl / x2,
        4.0 * ossl / mb8,
    );
}

fn cycles() {
    let Some(ifma) = ifma_or_skip("cycles") else { return };
    let (cpt, tps) = (core_per_tick(), tsc_hz());
    println!("TSC {:.3} GHz, core {:.3} GHz", tps / 1e9, tps * cpt / 1e9);
    kernels::<10>(ifma, cpt);
    kernels::<20>(ifma, cpt);
    kernels::<30>(ifma, cpt);
    kernels::<40>(ifma, cpt);
    kernels::<60>(ifma, cpt);
    kernels::<79>(ifma, cpt);
    rsa::<10>(ifma, 512, cpt, tps);
    rsa::<20>(ifma, 1024, cpt, tps);
    rsa::<30>(ifma, 1536, cpt, tps);
    rsa::<40>(ifma, 2048, cpt, tps);
    rsa::<79>(ifma, 4096, cpt, tps);
}

/// Exponentiation time with windows of 4 and 5 bits, interleaved (the tuning of
/// `MB8_WINDOW` and `X2_WINDOW`).
fn window_widths<const D: usize>(ifma: Ifma, half: usize) {
    let mut rng = Rng(11);
    let jobs: Vec<Job> = (0..8).map(|_| Job::random(&mut rng, D, half, half / 64)).collect();
    let mut outs = vec![vec![0u64; limbs_for(D)]; 8];
    let mut run = |w: usize| {
        let lanes = lanes(&jobs, &mut outs);
        if w == 4 {
            hz::exp_mb8_window::<D, 4>(ifma, lanes);
        } else {
            hz::exp_mb8_window::<D, 5>(ifma, lanes);
        }
    };
    let (mut w4, mut w5) = (f64::MAX, f64::MAX);
    let us = 1e6 / tsc_hz();
    for _ in 0..40 {
        w4 = w4.min(mticks(1, || run(4)) * us);
        w5 = w5.min(mticks(1, || run(5)) * us);
    }
    println!("mb8 D={D:>2} {half}-bit: window 4 {w4:>7.0} us, window 5 {w5:>7.0} us per batch");
}

fn windows() {
    let Some(ifma) = ifma_or_skip("windows") else { return };
    window_widths::<10>(ifma, 512);
    window_widths::<20>(ifma, 1024);
    window_widths::<30>(ifma, 1536);
    window_widths::<40>(ifma, 2048);
}

fn select_cost<const D: usize>(ifma: Ifma, cpt: f64) {
    let mut rng = Rng(12);
    let table: Vec<Mb8<D>> = (0..32).map(|_| random_mb8::<D>(&mut rng)).collect();
    let mut out = Mb8::<D>::ZERO;
    let idx = [3, 7, 0, 31, 15, 16, 9, 1];
    for entries in [16, 32] {
        let t = mticks(2000, || hz::select_mb8(ifma, &table[..entries], &idx, &mut out));
        println!("select mb8 D={D} {entries} entries: {:.0} cycles", t * cpt);
    }
}

fn select() {
    let Some(ifma) = ifma_or_skip("select") else { return };
    let cpt = core_per_tick();
    select_cost::<20>(ifma, cpt);
    select_cost::<30>(ifma, cpt);
    select_cost::<40>(ifma, cpt);
}

fn ams40() {
    let Some(ifma) = ifma_or_skip("ams40") else { return };
    let mut rng = Rng(13);
    let (a, n) = (random_mb8::<40>(&mut rng), random_mb8::<40>(&mut rng));
    let k0 = [rng.next_u64() >> 12; 8];
    let mut y = Mb8::<40>::ZERO;
    let cpt = core_per_tick();
    for _ in 0..20 {
        let t = chained(&a, |x, o| hz::ams_mb8_ps::<40, 4>(ifma, x, &n, &k0, o, &mut y, || {}));
        println!("ams40 {:.0}", t * cpt);
    }
}

/// The 40-digit products by column groups of 4, plain and Karatsuba (RSA-4096's
/// halves), five times: the quick check for a change to either.
fn products40() {
    let Some(ifma) = ifma_or_skip("products40") else { return };
    let (cpt, mut rng) = (core_per_tick(), Rng(17));
    for _ in 0..5 {
        ps::<40, 4>(ifma, cpt, &mut rng);
        println!();
    }
}

/// A window's five squarings and its selection, separate and fused.
fn fused_cost<const D: usize, const G: usize>(ifma: Ifma) {
    let mut rng = Rng(14);
    let (a, n) = (random_mb8::<D>(&mut rng), random_mb8::<D>(&mut rng));
    let k0 = [rng.next_u64() >> 12; 8];
    let table: Vec<Mb8<D>> = (0..32).map(|_| random_mb8::<D>(&mut rng)).collect();
    let idx = [3, 7, 0, 31, 15, 16, 9, 1];
    let masks: Vec<[u64; 8]> = (0..32).map(|k| idx.map(|i| if i == k { !0 } else { 0 })).collect();
    let (mut y, mut t) = (Mb8::<D>::ZERO, Mb8::<D>::ZERO);
    let (mut x, mut o) = (a.clone(), a.clone());
    for _ in 0..3 {
        let sep = mticks(300, || {
            for _ in 0..5 {
                hz::ams_mb8_ps::<D, G>(ifma, &x, &n, &k0, &mut o, &mut y, || {});
                core::mem::swap(&mut x, &mut o);
            }
            hz::select_mb8(ifma, &table, &idx, &mut t);
        });
        let fused = mticks(300, || {
            let mut j = 0;
            for p in 0..5 {
                let end = D.min((p + 1) * D.div_ceil(5));
                let mut side = || {
                    if j < end {
                        hz::select_rows(ifma, &table, &masks, &mut t, j);
                        j += 2;
                    }
                };
                hz::ams_mb8_ps::<D, G>(ifma, &x, &n, &k0, &mut o, &mut y, &mut side);
                core::mem::swap(&mut x, &mut o);
            }
        });
        let sq = mticks(300, || {
            for _ in 0..5 {
                hz::ams_mb8_ps::<D, G>(ifma, &x, &n, &k0, &mut o, &mut y, || {});
                core::mem::swap(&mut x, &mut o);
            }
        });
        let ch = chained(&a, |x, o| hz::ams_mb8_ps::<D, G>(ifma, x, &n, &k0, o, &mut y, || {}));
        let tpi = ticks_per_ifma(ifma);
        println!(
            "D={D}: 5 ams {:.0} (chained {:.0}), + select {:.0}, fused {:.0} IFMA-cycles (ams {:.1}%)",
            sq / tpi,
            5.0 * ch / tpi,
            sep / tpi,
            fused / tpi,
            500.0 * (3 * D * D + D) as f64 * tpi / sq
        );
    }
}

fn fused() {
    let Some(ifma) = ifma_or_skip("fused") else { return };
    fused_cost::<20, 4>(ifma);
    fused_cost::<40, 4>(ifma);
}

/// Cycles of one x2 exponentiation pair with full-length exponents (one RSA operation's
/// two halves), minimum over many calls: the figure the x2 tuning goes by.
fn x2_pair_cycles<const D: usize>(ifma: Ifma, half: usize, cpt: f64) {
    let mut rng = Rng(15);
    let jobs: Vec<Job> = (0..2).map(|_| Job::random(&mut rng, D, half, half / 64)).collect();
    let params: Vec<Params52<D>> =
        jobs.iter().map(|j| Params52::<D>::new(&j.n, &j.rr).unwrap()).collect();
    let (mut o0, mut o1) = (vec![0u64; limbs_for(D)], vec![0u64; limbs_for(D)]);
    let t = mticks(400, || {
        hz::exp_x2::<D>(
            ifma,
            [&mut o0, &mut o1],
            [&jobs[0].base, &jobs[1].base],
            [&jobs[0].exp, &jobs[1].exp],
            [&params[0], &params[1]],
        )
        .unwrap();
    });
    assert_eq!((&o0, &o1), (&jobs[0].want, &jobs[1].want));
    println!("x2 pair D={D:>2}: {:>9.0} cycles", t * cpt);
}

fn x2_pair() {
    let Some(ifma) = ifma_or_skip("x2_pair") else { return };
    let cpt = core_per_tick();
    x2_pair_cycles::<20>(ifma, 1024, cpt);
    x2_pair_cycles::<30>(ifma, 1536, cpt);
    x2_pair_cycles::<40>(ifma, 2048, cpt);
}

fn x2_kernels() {
    let Some(ifma) = ifma_or_skip("x2_kernels") else { return };
    let cpt = core_per_tick();
    x2_contiguous::<20>(ifma, cpt);
    x2_strided::<20, 20>(ifma, cpt);
    x2_contiguous::<30>(ifma, cpt);
    x2_strided::<30, 32>(ifma, cpt);
    x2_contiguous::<40>(ifma, cpt);
    x2_strided::<40, 40>(ifma, cpt);
}

/// Cycles of the contiguous x2 product and square at `D` digits, chained.
fn x2_contiguous<const D: usize>(ifma: Ifma, cpt: f64) {
    let mut rng = Rng(16);
    let (a, n) = (random_x2::<D>(&mut rng), random_x2::<D>(&mut rng));
    let k0 = [rng.next_u64() >> 12, rng.next_u64() >> 12];
    let amm = chained(&a, |x, y| hz::amm_x2(ifma, x, x, &n, &k0, y));
    let ams = chained(&a, |x, y| hz::ams_x2(ifma, x, &n, &k0, y));
    println!("D={D} x2 contiguous: amm {:>6.0} ams {:>6.0} cycles", amm * cpt, ams * cpt);
}

/// Cycles of the strided x2 product and square at `D` digits in `P` slots, chained.
fn x2_strided<const D: usize, const P: usize>(ifma: Ifma, cpt: f64) {
    let mut rng = Rng(16);
    let (a, n) = (random_x2::<P>(&mut rng), random_x2::<P>(&mut rng));
    let k0 = [rng.next_u64() >> 12, rng.next_u64() >> 12];
    let amm = chained(&a, |x, y| hz::amm_x2s::<D, P>(ifma, x, x, &n, &k0, y));
    let ams = chained(&a, |x, y| hz::ams_x2s::<D, P>(ifma, x, &n, &k0, y));
    println!("D={D} x2 strided:    amm {:>6.0} ams {:>6.0} cycles", amm * cpt, ams * cpt);
}
