//! Cycle counts of the kernels (`#[ignore]`d; run with
//! `cargo test -p cryptocard --lib ifma::bench -- --ignored --nocapture`).
//!
//! Each figure is the minimum over many runs of `rdtsc` ticks per call: the cores are
//! shared, and the minimum is the run nobody interrupted. The TSC of the development
//! machine ticks at 2.6 GHz while the core runs at about 3.7 GHz, so core cycles are about
//! 1.42 times the ticks; both are printed.

use super::amm::{amm_mb8, amm_x2};
use super::ams::{ams_mb8, ams_x2};
use super::tests::{Job, Rng, ifma_or_skip};
use super::vec52::{Mb8, X2};
use core::arch::x86_64::{__m128i, __m512i, _mm_set1_epi64x, _mm512_set1_epi64, _rdtsc};

/// Core cycles per TSC tick on the development machine (Zen 4, 3.7 GHz core, 2.6 GHz TSC).
const CORE_PER_TSC: f64 = 3.7 / 2.596;

fn min_ticks(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut best = u64::MAX;
    for _ in 0..reps {
        // SAFETY: rdtsc has no preconditions on x86-64.
        let t = unsafe { _rdtsc() };
        f();
        // SAFETY: as above.
        let d = unsafe { _rdtsc() } - t;
        best = best.min(d);
    }
    best as f64
}

fn report(what: &str, ticks: f64) {
    println!("{what:<28} {:>10.0} ticks {:>10.0} cycles", ticks, ticks * CORE_PER_TSC);
}

fn bench_amm<const D: usize>() {
    let Some(_ifma) = ifma_or_skip("bench") else { return };
    let mut rng = Rng(9);
    let mut a = Mb8::<D>::ZERO;
    let mut n = Mb8::<D>::ZERO;
    for k in 0..D {
        for l in 0..8 {
            // Values below 2^(52 D - 2), as the kernels' contracts want.
            let top = if k + 1 == D { 2 } else { 0 };
            a.0[k][l] = rng.next() >> (12 + top);
            n.0[k][l] = rng.next() >> (12 + top);
        }
    }
    let k0: __m512i = unsafe_k0();
    let mut out = Mb8::<D>::ZERO;
    // SAFETY: the IFMA token was detected above.
    let t = min_ticks(2000, || unsafe { amm_mb8(&a, &a, &n, k0, &mut out) });
    report(&format!("amm52x{D} mb8"), t);
    // SAFETY: as above.
    let t = min_ticks(2000, || unsafe { ams_mb8(&a, &n, k0, &mut out) });
    report(&format!("ams52x{D} mb8"), t);

    let mut ax = X2::<D>::ZERO;
    let mut nx = X2::<D>::ZERO;
    for k in 0..D {
        let top = if k + 1 == D { 2 } else { 0 };
        ax.d[k] = [rng.next() >> (12 + top), rng.next() >> (12 + top)];
        nx.d[k] = [rng.next() >> (12 + top), rng.next() >> (12 + top)];
    }
    let mut outx = X2::<D>::ZERO;
    // SAFETY: as above.
    // SAFETY: as above.
    let k0x: __m128i = unsafe { _mm_set1_epi64x(12345) };
    let t = min_ticks(2000, || unsafe { amm_x2(&ax, &ax, &nx, k0x, &mut outx) });
    report(&format!("amm52x{D} x2"), t);
    // SAFETY: as above.
    let t = min_ticks(2000, || unsafe { ams_x2(&ax, &nx, k0x, &mut outx) });
    report(&format!("ams52x{D} x2"), t);
}

fn unsafe_k0() -> __m512i {
    // SAFETY: the callers checked for AVX-512.
    unsafe { _mm512_set1_epi64(12345) }
}

fn bench_exp_mb8<const D: usize>(bits: usize) {
    let Some(ifma) = ifma_or_skip("bench") else { return };
    let mut rng = Rng(10);
    let jobs: Vec<Job> = (0..8).map(|_| Job::random(&mut rng, D, bits, bits / 64)).collect();
    let mut outs = vec![vec![0u64; super::tests::limbs_for(D)]; 8];
    let t = min_ticks(5, || {
        let mut it = outs.iter_mut();
        let lanes = core::array::from_fn(|l| {
            let j = &jobs[l];
            Some(super::exp_mb8::Mb8Lane {
                modulus: &j.n,
                rr: &j.rr,
                base: &j.base,
                exp: &j.exp,
                out: it.next().unwrap(),
            })
        });
        super::exp_mb8::exp_mb8::<D>(ifma, lanes);
    });
    report(&format!("exp {bits}-bit mb8 (8 lanes)"), t);
}

#[test]
#[ignore]
fn cycles() {
    bench_amm::<20>();
    bench_amm::<40>();
    bench_exp_mb8::<20>(1024);
}
