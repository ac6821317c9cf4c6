//! The one timing kit of the benchmarks: TSC ticks for kernel cycle counts, the wall clock
//! for whole operations, and thread CPU time for rates on a shared machine.
//!
//! * Kernels: [`min_ticks`], [`ticks_per_call`], [`race_ticks`] time single calls or short
//!   batches with `rdtsc` and keep the minimum: the machine's cores are shared, and the
//!   minimum is a call nobody interrupted. [`ticks_per_cycle`] converts TSC ticks to core
//!   cycles (a chain of dependent `add`s takes one cycle each), [`tsc_hz`] to seconds.
//! * Operations: [`race_ns`] interleaves closures in calibrated batches (noise hits them
//!   alike) and keeps each one's minimum; [`rate`] is calls per second of the wall clock,
//!   the median of several runs; [`cpu_us`] uses this thread's CPU time, which leaves out
//!   the time other processes held the core.
//!
//! The CPU probes (the TSC, the chains of known length) are the library's, in `arch/`
//! (`hazmat::clock`); the crate's one `unsafe` is the libc call that reads this thread's
//! CPU time, the operating system's clock, with its SAFETY line. Everything is x86-64
//! Linux, as the kernels are.

#![allow(unsafe_code)]

use cryptocard::hazmat::clock;
use std::time::Instant;

/// The time-stamp counter.
pub fn ticks() -> u64 {
    clock::ticks()
}

/// Minimum TSC ticks of one call of `f` over `reps` calls.
pub fn min_ticks(reps: usize, mut f: impl FnMut()) -> u64 {
    let mut best = u64::MAX;
    for _ in 0..reps {
        let t = ticks();
        f();
        best = best.min(ticks() - t);
    }
    best
}

/// Ticks per call of `f`: the minimum over `reps` samples of `batch` back-to-back calls,
/// divided by `batch` (the TSC of a virtual machine may tick in steps of about 26).
pub fn ticks_per_call(reps: usize, batch: usize, mut f: impl FnMut()) -> f64 {
    min_ticks(reps, || (0..batch).for_each(|_| f())) as f64 / batch as f64
}

/// Ticks per call of each closure, the minimum over `rounds` interleaved samples of
/// `batch` calls each.
pub fn race_ticks(rounds: usize, batch: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let mut best = vec![f64::INFINITY; fs.len()];
    for _ in 0..rounds {
        for (f, b) in fs.iter_mut().zip(best.iter_mut()) {
            let t = ticks();
            (0..batch).for_each(|_| f());
            *b = b.min((ticks() - t) as f64 / batch as f64);
        }
    }
    best
}

/// TSC ticks per core cycle: 1000 dependent `add`s take 1000 cycles.
pub fn ticks_per_cycle() -> f64 {
    let t = min_ticks(2000, clock::add_chain_1000);
    t as f64 / 1000.0
}

/// TSC ticks per second, from the wall clock over 200 ms.
pub fn tsc_hz() -> f64 {
    let (t0, c0) = (Instant::now(), ticks());
    while t0.elapsed().as_millis() < 200 {}
    (ticks() - c0) as f64 / t0.elapsed().as_secs_f64()
}

/// TSC ticks per IFMA at full throughput (one `zmm` IFMA per cycle on Zen 4), measured on
/// eight independent chains: the reference kernel efficiencies are quoted against, taken
/// next to each measurement so that clock changes cancel.
pub fn ticks_per_ifma(ifma: cryptocard::hazmat::Ifma) -> f64 {
    let t = min_ticks(2000, || clock::ifma_chains_2048(ifma));
    t as f64 / 2048.0
}

/// This thread's CPU time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`): time the thread was
/// not running does not count, as in `openssl speed`'s default.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a Linux constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Mean CPU microseconds of one call of `f`, over calls for at least `budget_ms` of CPU
/// time; the best of `rounds` such means.
pub fn cpu_us(rounds: usize, budget_ms: u64, mut f: impl FnMut()) -> f64 {
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

/// Nanoseconds per call of each closure: the minimum over `rounds` interleaved batches,
/// the batch calibrated so that one of the first closure takes about 50 us.
pub fn race_ns(rounds: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let mut reps = 1;
    loop {
        let t = Instant::now();
        (0..reps).for_each(|_| fs[0]());
        if t.elapsed().as_micros() >= 50 || reps >= 1 << 20 {
            break;
        }
        reps *= 2;
    }
    let mut best = vec![f64::INFINITY; fs.len()];
    for _ in 0..rounds {
        for (f, b) in fs.iter_mut().zip(best.iter_mut()) {
            let t = Instant::now();
            (0..reps).for_each(|_| f());
            *b = b.min(t.elapsed().as_nanos() as f64 / reps as f64);
        }
    }
    best
}

/// Operations per second by the wall clock of one run of `f` (which does `ops`
/// operations a call), called until `min_secs` have passed.
pub fn run_rate(ops: usize, min_secs: f64, f: &mut dyn FnMut()) -> f64 {
    let (t, mut done) = (Instant::now(), 0usize);
    loop {
        f();
        done += ops;
        let s = t.elapsed().as_secs_f64();
        if s >= min_secs {
            return done as f64 / s;
        }
    }
}

/// Calls per second of `f` by the wall clock: the median of `runs` runs of at least
/// `min_secs` each (after one warm-up call).
pub fn rate(runs: usize, min_secs: f64, mut f: impl FnMut()) -> f64 {
    f();
    let mut rates: Vec<f64> = (0..runs.max(1)).map(|_| run_rate(1, min_secs, &mut f)).collect();
    median(&mut rates)
}

/// Runs of each closure `(ops per call, call)` interleaved, `rounds` times, each run
/// [`run_rate`] for `min_secs`: per closure, its rates sorted from the best down (so
/// `[0]` is the least disturbed run and `[rounds / 2]` the median).
pub fn race_rates(
    rounds: usize,
    min_secs: f64,
    fs: &mut [(usize, &mut dyn FnMut())],
) -> Vec<Vec<f64>> {
    let mut rates = vec![Vec::with_capacity(rounds); fs.len()];
    for _ in 0..rounds {
        for (r, (ops, f)) in rates.iter_mut().zip(fs.iter_mut()) {
            r.push(run_rate(*ops, min_secs, &mut **f));
        }
    }
    for r in &mut rates {
        r.sort_by(|a, b| b.total_cmp(a));
    }
    rates
}

/// Seconds one call of `f` takes by the wall clock: the median of `runs` calls.
pub fn seconds(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    median(&mut t)
}

/// The median of `xs` (the mean of the middle two for an even count); NaN when empty.
pub fn median(xs: &mut [f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let m = xs.len() / 2;
    if xs.len() % 2 == 1 { xs[m] } else { (xs[m - 1] + xs[m]) / 2.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn clocks_advance() {
        let t = ticks();
        assert!(ticks() >= t);
        let c = thread_cpu_ns();
        std::hint::black_box((0..100_000u64).sum::<u64>());
        assert!(thread_cpu_ns() >= c);
        assert!(min_ticks(10, || {}) < 1_000_000);
    }
}
