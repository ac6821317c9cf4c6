//! Cycle counts per kernel call and a constant-time modular exponentiation built on the raw
//! kernels, for tuning on a quiet machine:
//!
//! ```text
//! cargo test --release -p cryptocard --lib adx::bench:: -- --ignored --nocapture --test-threads=1
//! ```
//!
//! Counts are TSC ticks, the minimum over many calls (robust when other processes share
//! the cores); the core clock is measured against a chain of dependent `add`s (one cycle
//! each) and printed beside them.

use super::*;
use crate::bignum::{Limb, sub_n};
use crate::ct::{Choice, conditional_copy, select_from_table};
use num_bigint::BigUint;
use std::time::Instant;

pub(super) fn ticks() -> u64 {
    // SAFETY: `rdtsc` exists on every x86-64 CPU and has no memory effects.
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// Minimum ticks of `f` over `reps` calls.
pub(super) fn min_ticks(reps: usize, mut f: impl FnMut()) -> u64 {
    let mut best = u64::MAX;
    for _ in 0..reps {
        let t = ticks();
        f();
        best = best.min(ticks() - t);
    }
    best
}

/// Ticks per call of `f`, the minimum over `reps` samples of 16 back-to-back calls (the
/// TSC of this virtual machine ticks in steps of about 26).
fn ticks_per_call(reps: usize, mut f: impl FnMut()) -> f64 {
    min_ticks(reps, || (0..16).for_each(|_| f())) as f64 / 16.0
}

/// TSC ticks per core cycle: 1000 dependent `add`s take 1000 cycles.
pub(super) fn ticks_per_cycle() -> f64 {
    let t = min_ticks(2000, || {
        let mut x: u64 = 1;
        // SAFETY: register arithmetic only.
        unsafe {
            core::arch::asm!(".rept 1000", "add {x}, {x}", ".endr", x = inout(reg) x, options(nomem, nostack));
        }
        std::hint::black_box(x);
    });
    t as f64 / 1000.0
}

/// CPU time this thread has used, in seconds (`utime + stime` from Linux's
/// `/proc/thread-self/stat`, in 10 ms ticks): unlike wall time it leaves out the time
/// other processes held the core, so it can rate long runs on a busy machine.
fn thread_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
    (field(11) + field(12)) as f64 / 100.0
}

fn tsc_hz() -> f64 {
    let (t0, c0) = (Instant::now(), ticks());
    while t0.elapsed().as_millis() < 200 {}
    (ticks() - c0) as f64 / t0.elapsed().as_secs_f64()
}

pub(super) fn random(seed: &mut u64, k: usize) -> Vec<Limb> {
    (0..k)
        .map(|_| {
            *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            *seed ^ (*seed >> 29)
        })
        .collect()
}

fn to_big(x: &[Limb]) -> BigUint {
    BigUint::from_slice(&x.iter().flat_map(|&l| [l as u32, (l >> 32) as u32]).collect::<Vec<_>>())
}

fn from_big(x: &BigUint, k: usize) -> Vec<Limb> {
    let mut v = x.to_u64_digits();
    v.resize(k, 0);
    v
}

/// `r = (c*R + r) mod n` for `c*R + r < 2n`: subtract `n` unless that borrows past `c`.
fn reduce_once(r: &mut [Limb], c: Limb, n: &[Limb], scratch: &mut [Limb]) {
    let borrow = sub_n(scratch, r, n);
    conditional_copy(Choice::from_bit(c | (borrow ^ 1)), r, scratch);
}

/// Brings `c*R + r < R + n` back below `R` (not necessarily below `n`): subtract `n`
/// exactly when `c` is 1, with a mask (almost-Montgomery form, Dusse-Kaliski Theorem 2).
fn fold_carry(r: &mut [Limb], c: Limb, n: &[Limb]) {
    let m = Choice::from_bit(c).mask();
    let mut borrow = 0;
    for (r, &n) in r.iter_mut().zip(n) {
        (*r, borrow) = crate::bignum::sbb(*r, n & m, borrow);
    }
}

/// `base^e mod n` with a fixed 5-bit window over all `64k` exponent bits, in Montgomery
/// form throughout: `rr` = R^2 mod n. Inside the loop values stay below `R` only (the
/// carry is folded back with a masked subtraction); the result is reduced fully.
fn ct_powm(adx: Adx, base: &[Limb], e: &[Limb], n: &[Limb], n0: Limb, rr: &[Limb]) -> Vec<Limb> {
    const W: usize = 5;
    let k = n.len();
    let mut s = vec![0; k];
    let mut table = vec![0; k << W];
    let mut one = vec![0; k];
    one[0] = 1;
    let c = mont_mul_raw(adx, &mut table[..k], &one, rr, n, n0); // R mod n
    reduce_once(&mut table[..k], c, n, &mut s);
    let c = mont_mul_raw(adx, &mut table[k..2 * k], base, rr, n, n0);
    reduce_once(&mut table[k..2 * k], c, n, &mut s);
    for i in 2..1 << W {
        let (lo, hi) = table.split_at_mut(i * k);
        let c = mont_mul_raw(adx, &mut hi[..k], &lo[(i - 1) * k..], &lo[k..2 * k], n, n0);
        reduce_once(&mut hi[..k], c, n, &mut s);
    }
    let bits = 64 * k;
    let window = |top: usize, w: usize| -> usize {
        (0..w).fold(0, |acc, j| acc << 1 | (e[(top - j) / 64] >> ((top - j) % 64) & 1) as usize)
    };
    let first = bits % W;
    let first = if first == 0 { W } else { first };
    let mut acc = vec![0; k];
    let mut tmp = vec![0; k];
    let mut sel = vec![0; k];
    select_from_table(&mut acc, &table, window(bits - 1, first));
    let mut top = bits - first;
    while top > 0 {
        for _ in 0..W {
            let c = mont_sqr_raw(adx, &mut tmp, &acc, n, n0);
            fold_carry(&mut tmp, c, n);
            std::mem::swap(&mut acc, &mut tmp);
        }
        select_from_table(&mut sel, &table, window(top - 1, W));
        let c = mont_mul_raw(adx, &mut tmp, &acc, &sel, n, n0);
        fold_carry(&mut tmp, c, n);
        std::mem::swap(&mut acc, &mut tmp);
        top -= W;
    }
    let c = mont_mul_raw(adx, &mut tmp, &acc, &one, n, n0);
    reduce_once(&mut tmp, c, n, &mut s);
    tmp
}

fn setup(k: usize, seed: &mut u64) -> (Vec<Limb>, Limb, Vec<Limb>) {
    let mut n = random(seed, k);
    n[0] |= 1;
    n[k - 1] |= 1 << 63;
    let mut x = n[0];
    for _ in 0..6 {
        x = x.wrapping_mul(2u64.wrapping_sub(n[0].wrapping_mul(x)));
    }
    let rr = (BigUint::from(1u8) << (128 * k)) % to_big(&n);
    (n.clone(), x.wrapping_neg(), from_big(&rr, k))
}

#[test]
fn ct_powm_matches_num_bigint() {
    let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
    let mut seed = 5;
    for k in [1, 2, 3, 8, 16, 17] {
        let (n, n0, rr) = setup(k, &mut seed);
        let b = from_big(&(to_big(&random(&mut seed, k)) % to_big(&n)), k);
        let e = random(&mut seed, k);
        let want = to_big(&b).modpow(&to_big(&e), &to_big(&n));
        assert_eq!(to_big(&ct_powm(adx, &b, &e, &n, n0, &rr)), want, "k = {k}");
    }
}

#[test]
#[ignore = "benchmark: run with --ignored --nocapture on a quiet machine"]
fn bench_kernels_and_powm() {
    let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
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
        let mm = ticks_per_call(reps, || _ = mont_mul_raw(adx, &mut r, &a, &b, &n, n0));
        let ms = ticks_per_call(reps, || _ = mont_sqr_raw(adx, &mut r, &a, &n, n0));
        let mb = ticks_per_call(reps, || mul_basecase(adx, &mut t, &a, &b));
        let sb = ticks_per_call(reps, || sqr_basecase(adx, &mut t, &a));
        let rd = ticks_per_call(reps, || _ = redc_raw(adx, &mut r, &mut t, &n, n0));
        let ci = ticks_per_call(reps, || _ = cios::mont_mul_cios(adx, &mut r, &a, &b, &n, n0));
        let cyc = |x: f64| format!("{x:>6.0} ({:>6.0})", x / tpc);
        let row = [mm, ms, mb, sb, rd, ci].map(cyc).join(" ");
        println!("{k:>4} {row}");
    }
    println!("constant-time 5-bit fixed-window modexp, full-length exponent");
    let gmp = super::bench_gmp::Gmp::load();
    if gmp.is_none() {
        println!("(libgmp.so.10 not found: no GMP column)");
    }
    for bits in [1024, 2048, 4096] {
        let k = bits / 64;
        let (n, n0, rr) = setup(k, &mut seed);
        let b = from_big(&(to_big(&random(&mut seed, k)) % to_big(&n)), k);
        let e = random(&mut seed, k);
        let (a, mut r) = (random(&mut seed, k), vec![0; k]);
        let mm = ticks_per_call(500, || _ = mont_mul_raw(adx, &mut r, &a, &b, &n, n0));
        let ms = ticks_per_call(500, || _ = mont_sqr_raw(adx, &mut r, &a, &n, n0));
        let est = bits as f64 * ms + (bits as f64 / 5.0 + 32.0) * mm;
        let table = random(&mut seed, 32 * k);
        let mut sel = vec![0; k];
        let mut idx = 0;
        let scan = ticks_per_call(500, || {
            idx = (idx + 7) % 32;
            select_from_table(&mut sel, &table, idx)
        });
        let scan_avx2 = crate::arch::x86_64::cpu::Avx2::detect().map_or(f64::NAN, |avx2| {
            ticks_per_call(500, || {
                idx = (idx + 7) % 32;
                crate::arch::x86_64::select::select_from_table(avx2, &mut sel, &table, idx)
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
        let mut gmp_call = gmp.as_ref().map(|g| g.powm_sec(&b, &e, &n));
        let (mut t, mut tg) = (u64::MAX, u64::MAX);
        for _ in 0..reps {
            t = t.min(min_ticks(1, || _ = ct_powm(adx, &b, &e, &n, n0, &rr)));
            if let Some(g) = gmp_call.as_mut() {
                tg = tg.min(min_ticks(1, || g.run()));
            }
        }
        let calls = (hz / est * 0.6) as usize + 1;
        let cpu0 = thread_cpu_seconds();
        (0..calls).for_each(|_| _ = ct_powm(adx, &b, &e, &n, n0, &rr));
        let cpu = thread_cpu_seconds() - cpu0;
        let gmp_rate =
            if gmp_call.is_some() { format!("{:.0}", hz / tg as f64) } else { "-".into() };
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
#[test]
#[ignore = "benchmark: run with --ignored --nocapture on a quiet machine"]
fn bench_chain_kernels() {
    let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
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
        let sq = ticks_per_call(reps, || sqr_n_almost(adx, &mut a, 5, &n, n0, &mut s)) / 5.0;
        let mu = ticks_per_call(reps, || mul_almost(adx, &mut a, &b, &n, n0, &mut s));
        let rs = ticks_per_call(reps, || _ = mont_sqr_raw(adx, &mut r, &a, &n, n0));
        let rm = ticks_per_call(reps, || _ = mont_mul_raw(adx, &mut r, &a, &b, &n, n0));
        println!(
            "{k:>4} {:>8.0} {:>8.0}   {:>8.0} {:>8.0}",
            sq / tpc,
            mu / tpc,
            rs / tpc,
            rm / tpc
        );
    }
}
