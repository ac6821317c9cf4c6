//! Cycle counts of the kernels and exponentiation rates beside OpenSSL (`#[ignore]`d; run
//! with `cargo test --release -p cryptocard --lib ifma::bench -- --ignored --nocapture
//! --test-threads 1`).
//!
//! Every figure is the minimum over many single calls, timed with `rdtsc`: the machine's
//! cores are shared, and the minimum is a call nobody interrupted (a rate over a long loop
//! measures the neighbours too). OpenSSL's RSA private operation (libcrypto through the
//! `openssl` crate, the system's 3.0.19) is timed the same way, interleaved with ours.
//! Core cycles are TSC ticks times the measured ratio of core clock to TSC.

use super::amm::{amm_mb8, amm_x2};
use super::ams::{ams_mb8, ams_x2};
use super::exp_mb8::{Mb8Lane, exp_mb8};
use super::exp_x2::exp_x2;
use super::radix52::{Params52, max_modulus_bits};
use super::tests::{Job, Rng, ifma_or_skip, limbs_for};
use super::vec52::{Mb8, X2};
use core::arch::x86_64::_rdtsc;
use openssl::rsa::{Padding, Rsa};
use std::time::Instant;

fn ticks() -> u64 {
    // SAFETY: rdtsc has no preconditions on x86-64.
    unsafe { _rdtsc() }
}

/// Minimum TSC ticks of one call of `f` over `reps` calls.
fn min_ticks(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut best = u64::MAX;
    for _ in 0..reps {
        let t = ticks();
        f();
        best = best.min(ticks() - t);
    }
    best as f64
}

/// This thread's CPU time in nanoseconds (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`): time
/// the thread was not running does not count, as in `openssl speed`'s default.
fn thread_cpu_ns() -> u64 {
    let mut ts = [0i64; 2];
    // SAFETY: Linux x86-64 syscall 228 (`clock_gettime`) with clock 3
    // (`CLOCK_THREAD_CPUTIME_ID`) writes two words to `ts`, a valid, writable buffer; the
    // syscall clobbers rcx and r11.
    unsafe {
        core::arch::asm!(
            "syscall",
            inlateout("rax") 228i64 => _,
            in("rdi") 3i64,
            in("rsi") ts.as_mut_ptr(),
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack)
        )
    };
    (ts[0] as u64) * 1_000_000_000 + ts[1] as u64
}

/// Mean CPU microseconds of one call of `f`, over calls for at least `budget_ms` of CPU
/// time; the best of `rounds` such means.
fn cpu_us(rounds: usize, budget_ms: u64, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let (t0, mut calls) = (thread_cpu_ns(), 0u64);
        while thread_cpu_ns() - t0 < budget_ms * 1_000_000 {
            f();
            calls += 1;
        }
        best = best.min((thread_cpu_ns() - t0) as f64 / 1e3 / calls as f64);
    }
    best
}

/// Core cycles per TSC tick: a chain of 4096 dependent additions takes 4096 cycles.
fn core_per_tick() -> f64 {
    let t = min_ticks(2000, || {
        let mut x = 1u64;
        // SAFETY: register-only arithmetic.
        unsafe {
            core::arch::asm!(
                ".rept 4096", "add {x}, {x}", ".endr",
                x = inout(reg) x, options(nomem, nostack, pure)
            )
        };
        core::hint::black_box(x);
    });
    4096.0 / t
}

/// TSC ticks per IFMA at full throughput (a `zmm` IFMA per cycle on Zen 4), measured on
/// independent IFMA chains: the reference that kernel efficiencies are quoted against,
/// taken next to each measurement so that clock changes cancel.
fn ticks_per_ifma() -> f64 {
    let t = min_ticks(2000, || {
        // SAFETY: the callers checked IFMA; register-only arithmetic.
        unsafe {
            core::arch::asm!(
                ".rept 256",
                "vpmadd52luq zmm0, zmm8, zmm9", "vpmadd52luq zmm1, zmm8, zmm9",
                "vpmadd52luq zmm2, zmm8, zmm9", "vpmadd52luq zmm3, zmm8, zmm9",
                "vpmadd52luq zmm4, zmm8, zmm9", "vpmadd52luq zmm5, zmm8, zmm9",
                "vpmadd52luq zmm6, zmm8, zmm9", "vpmadd52luq zmm7, zmm8, zmm9",
                ".endr",
                out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
                out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
                out("zmm8") _, out("zmm9") _, options(nomem, nostack)
            )
        };
    });
    t / 2048.0
}

/// TSC ticks per second, from the wall clock.
fn ticks_per_second() -> f64 {
    let (t0, i0) = (ticks(), Instant::now());
    std::thread::sleep(std::time::Duration::from_millis(200));
    (ticks() - t0) as f64 / i0.elapsed().as_secs_f64()
}

fn random_mb8<const D: usize>(rng: &mut Rng) -> Mb8<D> {
    let mut x = Mb8::<D>::ZERO;
    for (k, row) in x.0.iter_mut().enumerate() {
        // Values below 2^(52 D - 2), as the kernels' contracts want.
        let top = if k + 1 == D { 2 } else { 0 };
        row.iter_mut().for_each(|d| *d = rng.next() >> (12 + top));
    }
    x
}

fn random_x2<const D: usize>(rng: &mut Rng) -> X2<D> {
    let mut x = X2::<D>::ZERO;
    for (k, pair) in x.d.iter_mut().enumerate() {
        let top = if k + 1 == D { 2 } else { 0 };
        pair.iter_mut().for_each(|d| *d = rng.next() >> (12 + top));
    }
    x
}

/// Ticks per call of `step` applied 64 times in a dependent chain (each output the next
/// input, as in an exponentiation: a call's latency counts, not only its throughput).
fn chained<T: Clone>(x0: &T, mut step: impl FnMut(&T, &mut T)) -> f64 {
    let (mut x, mut y) = (x0.clone(), x0.clone());
    min_ticks(200, || {
        for _ in 0..32 {
            step(&x, &mut y);
            step(&y, &mut x);
        }
    }) / 64.0
}

/// Cycles of one AMM and one AMS in a dependent chain, x2 and (for the transposed sizes)
/// mb8.
fn kernels<const D: usize>(cpt: f64) {
    let Some(_ifma) = ifma_or_skip("bench") else { return };
    let mut rng = Rng(9);
    let (a, n) = (random_x2::<D>(&mut rng), random_x2::<D>(&mut rng));
    let k0 = [rng.next() >> 12, rng.next() >> 12];
    let amm = chained(&a, |x, y| {
        // SAFETY: IFMA was detected above.
        unsafe { amm_x2(x, x, &n, &k0, y) }
    });
    let ams = chained(&a, |x, y| {
        // SAFETY: IFMA was detected above.
        unsafe { ams_x2(x, &n, &k0, y) }
    });
    print!("D={D:>2} x2 : amm {:>6.0}  ams {:>6.0} cycles", amm * cpt, ams * cpt);
    if D <= super::exp_mb8::MB8_TRANSPOSED_MAX_DIGITS {
        let (a, n) = (random_mb8::<D>(&mut rng), random_mb8::<D>(&mut rng));
        let k0 = [rng.next() >> 12; 8];
        let amm = chained(&a, |x, y| {
            // SAFETY: IFMA was detected above.
            unsafe { amm_mb8(x, x, &n, &k0, y) }
        });
        let mut scratch = Mb8::<D>::ZERO;
        let ams = chained(&a, |x, y| {
            // SAFETY: IFMA was detected above.
            unsafe { ams_mb8(x, &n, &k0, y, &mut scratch) }
        });
        print!("   mb8: amm {:>6.0}  ams {:>6.0} cycles", amm * cpt, ams * cpt);
    }
    ps::<D, 10>(cpt, &mut rng);
    ps::<D, 8>(cpt, &mut rng);
    ps::<D, 6>(cpt, &mut rng);
    ps::<D, 4>(cpt, &mut rng);
    ps::<D, 2>(cpt, &mut rng);
    println!();
}

fn ps<const D: usize, const W: usize>(cpt: f64, rng: &mut Rng) {
    if super::ps::width_ok::<D, W>() {
        let (a, n) = (random_mb8::<D>(rng), random_mb8::<D>(rng));
        let k0 = [rng.next() >> 12; 8];
        let mut y = Mb8::<D>::ZERO;
        let amm = chained(&a, |x, o| {
            // SAFETY: IFMA was detected above.
            unsafe { super::ps::amm_mb8_ps::<D, W>(x, x, &n, &k0, o, &mut y) }
        });
        let ams = chained(&a, |x, o| {
            // SAFETY: IFMA was detected above.
            unsafe { super::ps::ams_mb8_ps::<D, W>(x, &n, &k0, o, &mut y, || {}) }
        });
        let tpi = ticks_per_ifma();
        print!(
            "   ps{W}: amm {:>6.0} ({:.1}%) ams {:>6.0} ({:.1}%)",
            amm * cpt,
            400.0 * (D * D) as f64 * tpi / amm,
            ams * cpt,
            100.0 * (3 * D * D + D) as f64 * tpi / ams
        );
        if super::ks::ks_fits::<D, W>() {
            let mut scratch = [Mb8::<D>::ZERO, Mb8::<D>::ZERO, Mb8::<D>::ZERO];
            let ks = chained(&a, |x, o| {
                // SAFETY: IFMA was detected above.
                unsafe { super::ks::ams_mb8_ks::<D, W>(x, &n, &k0, o, &mut y, &mut scratch, || {}) }
            });
            let km = chained(&a, |x, o| {
                // SAFETY: IFMA was detected above.
                unsafe { super::ks::amm_mb8_ks::<D, W>(x, x, &n, &k0, o, &mut y, &mut scratch) }
            });
            print!(" ks: amm {:>6.0} ams {:>6.0}", km * cpt, ks * cpt);
        }
    }
}

/// One RSA private operation of `2 * half` bits: our x2 exponentiation pair and mb8 batch
/// against OpenSSL's whole private operation (CRT, blinding, checks included).
fn rsa<const D: usize>(half: usize, cpt: f64, tps: f64) {
    let Some(ifma) = ifma_or_skip("bench") else { return };
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
            exp_x2::<D>(
                ifma,
                [&mut o0, &mut o1],
                [&jobs[0].base, &jobs[1].base],
                [&jobs[0].exp, &jobs[1].exp],
                [&params[0], &params[1]],
            )
            .unwrap();
        }));
        mb8 = mb8.min(cpu_us(1, 300, || {
            let mut it = outs.iter_mut();
            let lanes = core::array::from_fn(|l| {
                let j = &jobs[l];
                let out = it.next().unwrap();
                Some(Mb8Lane { modulus: &j.n, rr: &j.rr, base: &j.base, exp: &j.exp, out })
            });
            exp_mb8::<D>(ifma, lanes);
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

#[test]
#[ignore]
fn cycles() {
    let (cpt, tps) = (core_per_tick(), ticks_per_second());
    println!("TSC {:.3} GHz, core {:.3} GHz", tps / 1e9, tps * cpt / 1e9);
    kernels::<10>(cpt);
    kernels::<20>(cpt);
    kernels::<30>(cpt);
    kernels::<40>(cpt);
    kernels::<60>(cpt);
    kernels::<79>(cpt);
    rsa::<10>(512, cpt, tps);
    rsa::<20>(1024, cpt, tps);
    rsa::<30>(1536, cpt, tps);
    rsa::<40>(2048, cpt, tps);
    rsa::<79>(4096, cpt, tps);
}

/// Exponentiation time with windows of 4 and 5 bits, interleaved (the tuning of
/// `MB8_WINDOW` and `X2_WINDOW`).
fn window_widths<const D: usize>(half: usize) {
    let Some(ifma) = ifma_or_skip("bench") else { return };
    let mut rng = Rng(11);
    let jobs: Vec<Job> = (0..8).map(|_| Job::random(&mut rng, D, half, half / 64)).collect();
    let mut outs = vec![vec![0u64; limbs_for(D)]; 8];
    let mut run = |w: usize| {
        let mut it = outs.iter_mut();
        let lanes = core::array::from_fn(|l| {
            let j = &jobs[l];
            let out = it.next().unwrap();
            Some(Mb8Lane { modulus: &j.n, rr: &j.rr, base: &j.base, exp: &j.exp, out })
        });
        if w == 4 {
            super::exp_mb8::exp_mb8_window::<D, 4, _>(ifma, lanes);
        } else {
            super::exp_mb8::exp_mb8_window::<D, 5, _>(ifma, lanes);
        }
    };
    let (mut w4, mut w5) = (f64::MAX, f64::MAX);
    let us = 1e6 / ticks_per_second();
    for _ in 0..40 {
        w4 = w4.min(min_ticks(1, || run(4)) * us);
        w5 = w5.min(min_ticks(1, || run(5)) * us);
    }
    println!("mb8 D={D:>2} {half}-bit: window 4 {w4:>7.0} us, window 5 {w5:>7.0} us per batch");
}

#[test]
#[ignore]
fn windows() {
    window_widths::<10>(512);
    window_widths::<20>(1024);
    window_widths::<30>(1536);
    window_widths::<40>(2048);
}

fn select_cost<const D: usize>(cpt: f64) {
    let mut rng = Rng(12);
    let table: Vec<Mb8<D>> = (0..32).map(|_| random_mb8::<D>(&mut rng)).collect();
    let mut out = Mb8::<D>::ZERO;
    let idx = [3, 7, 0, 31, 15, 16, 9, 1];
    for entries in [16, 32] {
        let t = min_ticks(2000, || {
            // SAFETY: IFMA (so AVX-512F) was checked by the caller.
            unsafe { super::exp_mb8::select_mb8(&table[..entries], &idx, &mut out) }
        });
        println!("select mb8 D={D} {entries} entries: {:.0} cycles", t * cpt);
    }
}

#[test]
#[ignore]
fn select() {
    let Some(_ifma) = ifma_or_skip("bench") else { return };
    let cpt = core_per_tick();
    select_cost::<20>(cpt);
    select_cost::<30>(cpt);
    select_cost::<40>(cpt);
}

#[test]
#[ignore]
fn ams40() {
    let Some(_ifma) = ifma_or_skip("bench") else { return };
    let mut rng = Rng(13);
    let (a, n) = (random_mb8::<40>(&mut rng), random_mb8::<40>(&mut rng));
    let k0 = [rng.next() >> 12; 8];
    let mut y = Mb8::<40>::ZERO;
    let cpt = core_per_tick();
    for _ in 0..20 {
        let t = chained(&a, |x, o| {
            // SAFETY: IFMA was detected above.
            unsafe { super::ps::ams_mb8_ps::<40, 4>(x, &n, &k0, o, &mut y, || {}) }
        });
        println!("ams40 {:.0}", t * cpt);
    }
}

/// The 40-digit products by column groups of 4, plain and Karatsuba (RSA-4096's
/// halves), five times: the quick check for a change to either.
#[test]
#[ignore]
fn products40() {
    let Some(_ifma) = ifma_or_skip("bench") else { return };
    let (cpt, mut rng) = (core_per_tick(), Rng(17));
    for _ in 0..5 {
        ps::<40, 4>(cpt, &mut rng);
        println!();
    }
}

/// A window's five squarings and its selection, separate and fused.
fn fused_cost<const D: usize, const G: usize>() {
    let mut rng = Rng(14);
    let (a, n) = (random_mb8::<D>(&mut rng), random_mb8::<D>(&mut rng));
    let k0 = [rng.next() >> 12; 8];
    let table: Vec<Mb8<D>> = (0..32).map(|_| random_mb8::<D>(&mut rng)).collect();
    let idx = [3, 7, 0, 31, 15, 16, 9, 1];
    let masks: Vec<[u64; 8]> = (0..32).map(|k| idx.map(|i| if i == k { !0 } else { 0 })).collect();
    let (mut y, mut t) = (Mb8::<D>::ZERO, Mb8::<D>::ZERO);
    let (mut x, mut o) = (a.clone(), a.clone());
    for _ in 0..3 {
        let sep = min_ticks(300, || {
            for _ in 0..5 {
                // SAFETY: IFMA was detected by the caller.
                unsafe { super::ps::ams_mb8_ps::<D, G>(&x, &n, &k0, &mut o, &mut y, || {}) };
                core::mem::swap(&mut x, &mut o);
            }
            // SAFETY: as above.
            unsafe { super::exp_mb8::select_mb8(&table, &idx, &mut t) };
        });
        let fused = min_ticks(300, || {
            let mut j = 0;
            for p in 0..5 {
                let end = D.min((p + 1) * D.div_ceil(5));
                let mut side = || {
                    if j < end {
                        // SAFETY: as above.
                        unsafe { super::exp_mb8::select_rows(&table, &masks, &mut t, j) };
                        j += 2;
                    }
                };
                // SAFETY: as above.
                unsafe { super::ps::ams_mb8_ps::<D, G>(&x, &n, &k0, &mut o, &mut y, &mut side) };
                core::mem::swap(&mut x, &mut o);
            }
        });
        let sq = min_ticks(300, || {
            for _ in 0..5 {
                // SAFETY: as above.
                unsafe { super::ps::ams_mb8_ps::<D, G>(&x, &n, &k0, &mut o, &mut y, || {}) };
                core::mem::swap(&mut x, &mut o);
            }
        });
        let ch = chained(&a, |x, o| {
            // SAFETY: as above.
            unsafe { super::ps::ams_mb8_ps::<D, G>(x, &n, &k0, o, &mut y, || {}) }
        });
        let tpi = ticks_per_ifma();
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

#[test]
#[ignore]
fn fused() {
    let Some(_ifma) = ifma_or_skip("bench") else { return };
    fused_cost::<20, 4>();
    fused_cost::<40, 4>();
}

/// Cycles of one x2 exponentiation pair with full-length exponents (one RSA operation's
/// two halves), minimum over many calls: the figure the x2 tuning goes by.
fn x2_pair_cycles<const D: usize>(half: usize, cpt: f64) {
    let Some(ifma) = ifma_or_skip("bench") else { return };
    let mut rng = Rng(15);
    let jobs: Vec<Job> = (0..2).map(|_| Job::random(&mut rng, D, half, half / 64)).collect();
    let params: Vec<Params52<D>> =
        jobs.iter().map(|j| Params52::<D>::new(&j.n, &j.rr).unwrap()).collect();
    let (mut o0, mut o1) = (vec![0u64; limbs_for(D)], vec![0u64; limbs_for(D)]);
    let t = min_ticks(400, || {
        exp_x2::<D>(
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

#[test]
#[ignore]
fn x2_pair() {
    let cpt = core_per_tick();
    x2_pair_cycles::<20>(1024, cpt);
    x2_pair_cycles::<30>(1536, cpt);
    x2_pair_cycles::<40>(2048, cpt);
}

#[test]
#[ignore]
fn x2_kernels() {
    let Some(_ifma) = ifma_or_skip("bench") else { return };
    let cpt = core_per_tick();
    kernels::<20>(cpt);
    let mut rng = Rng(16);
    let (a, n) = (random_x2::<20>(&mut rng), random_x2::<20>(&mut rng));
    let k0 = [rng.next() >> 12, rng.next() >> 12];
    let amm = chained(&a, |x, y| {
        // SAFETY: IFMA was detected above.
        unsafe { super::amm_x2s::amm_x2s(x, x, &n, &k0, y) }
    });
    let ams = chained(&a, |x, y| {
        // SAFETY: IFMA was detected above.
        unsafe { super::ams_x2s::ams_x2s(x, &n, &k0, y) }
    });
    println!("D=20 x2 strided: amm {:>6.0} ams {:>6.0} cycles", amm * cpt, ams * cpt);
}
