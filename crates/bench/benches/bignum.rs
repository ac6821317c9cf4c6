//! Time per multiplication and squaring at 256..65536 bits, for tuning the thresholds in
//! `bignum/mul/thresholds.rs`, and a loop for a profiler:
//!
//! ```text
//! cargo bench -p cryptocard-bench --bench bignum [-- time_per_product nat_mul tune]
//! cargo bench -p cryptocard-bench --bench bignum -- profile [LIMBS [REPS]]
//! ```
//!
//! Scratch space is allocated outside the timed loop: the figures compare the algorithms,
//! not the allocator. Each figure is the minimum over many batches, the batches of the
//! algorithms being compared interleaved (`timing::race_ns`), so that noise from other
//! processes on the machine hits them alike. `tune` prints, for each size, the basecase
//! against one level of Karatsuba, and Karatsuba against one level of Toom-3, which is how
//! the thresholds were chosen. `profile` runs one product size in a loop (`perf record`,
//! `valgrind --tool=callgrind`); it is the only benchmark that takes arguments after its
//! name, and runs only when named.

use cryptocard::bignum::Limb;
use cryptocard::bignum::mul::{mul_basecase_rows, mul_scratch_len, mul_with_scratch};
use cryptocard::hazmat::mul::{Multiplier, Portable, Thresholds, thresholds};
use cryptocard_bench::timing::race_ns;
use cryptocard_bench::workload::xorshift_limbs as operand;
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    if args.first().map(String::as_str) == Some("profile") {
        return profile(&args[1..]);
    }
    cryptocard_bench::run_selected(&[
        ("time_per_product", time_per_product),
        ("nat_mul", nat_mul),
        ("tune", tune),
    ]);
}

/// One product size in a loop: `LIMBS` (64) limbs, `REPS` (100000) times.
fn profile(args: &[String]) {
    let n: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(64);
    let reps: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let a: Vec<u64> = (0..n as u64).map(|i| (i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    let b: Vec<u64> = a.iter().map(|x| !x).collect();
    let mut r = vec![0; 2 * n];
    let mut s = vec![0; mul_scratch_len(n, n)];
    for _ in 0..reps {
        mul_with_scratch(&mut r, black_box(&a), black_box(&b), &mut s);
        black_box(&r);
    }
    println!("profile: {reps} products of {n} limbs");
}

/// Nanoseconds per call of each closure (see `timing::race_ns`).
fn race(rounds: usize, mut fs: Vec<Box<dyn FnMut() + '_>>) -> Vec<f64> {
    let mut refs: Vec<&mut dyn FnMut()> =
        fs.iter_mut().map(|f| f.as_mut() as &mut dyn FnMut()).collect();
    race_ns(rounds, &mut refs)
}

fn timed_mul<'a>(th: Thresholds, a: &'a [Limb], b: &'a [Limb]) -> impl FnMut() + 'a {
    let mut r = vec![0; a.len() + b.len()];
    let mut s = vec![
        0;
        Multiplier { kernel: &Portable, thresholds: &th }
            .mul_scratch_len(a.len(), b.len())
    ];
    move || {
        let ctx = Multiplier { kernel: &Portable, thresholds: &th };
        ctx.mul(&mut r, black_box(a), black_box(b), &mut s);
        black_box(&r);
    }
}

fn timed_sqr(th: Thresholds, a: &[Limb]) -> impl FnMut() + '_ {
    let mut r = vec![0; 2 * a.len()];
    let mut s = vec![0; Multiplier { kernel: &Portable, thresholds: &th }.sqr_scratch_len(a.len())];
    move || {
        let ctx = Multiplier { kernel: &Portable, thresholds: &th };
        ctx.sqr(&mut r, black_box(a), &mut s);
        black_box(&r);
    }
}

const NEVER: usize = usize::MAX;

fn time_per_product() {
    let tuned = thresholds::PORTABLE;
    let school = Thresholds {
        mul_karatsuba: NEVER,
        mul_toom3: NEVER,
        sqr_karatsuba: NEVER,
        sqr_toom3: NEVER,
        mul_toom4: NEVER,
        sqr_toom4: NEVER,
    };
    println!("bits    rows(ns)  columns(ns)  tuned mul(ns)  school sqr(ns)  tuned sqr(ns)");
    for bits in [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536] {
        let n = bits / 64;
        let (a, b) = (operand(n, 1), operand(n, 2));
        let mut r1 = vec![0; 2 * n];
        let rows = move || {
            mul_basecase_rows(&mut r1, black_box(&a), black_box(&b));
            black_box(&r1);
        };
        let (a, b) = (operand(n, 1), operand(n, 2));
        let rounds = if bits >= 16384 { 10 } else { 40 };
        let t = race(
            rounds,
            vec![
                Box::new(rows),
                Box::new(timed_mul(school, &a, &b)),
                Box::new(timed_mul(tuned, &a, &b)),
                Box::new(timed_sqr(school, &a)),
                Box::new(timed_sqr(tuned, &a)),
            ],
        );
        println!("{bits:6} {:10.0} {:12.0} {:14.0} {:15.0} {:14.0}", t[0], t[1], t[2], t[3], t[4]);
    }
}

/// `Nat * Nat`, allocation included, at the sizes `cryptocard speed mul4096 mul65536`
/// compares with GMP's `mpz_mul`.
fn nat_mul() {
    use cryptocard::bignum::Nat;
    for bits in [1024, 2048, 4096, 8192, 16384, 65536] {
        let a = Nat::from_limbs(operand(bits / 64, 7));
        let b = Nat::from_limbs(operand(bits / 64, 8));
        let t = race(
            if bits > 8192 { 20 } else { 60 },
            vec![
                Box::new(|| {
                    black_box(black_box(&a) * black_box(&b));
                }),
                Box::new(|| {
                    black_box(black_box(&a).square());
                }),
            ],
        );
        println!("{bits:6} bits: Nat mul {:9.0} ns, Nat square {:9.0} ns", t[0], t[1]);
    }
}

fn tune() {
    let base = thresholds::PORTABLE;
    println!("limbs  mul: school  kara1 | sqr: school  kara1");
    for n in (8..=64).step_by(4) {
        let (a, b) = (operand(n, 3), operand(n, 4));
        let school = Thresholds { mul_karatsuba: n + 1, sqr_karatsuba: n + 1, ..base };
        let kara = Thresholds {
            mul_karatsuba: n,
            sqr_karatsuba: n,
            mul_toom3: NEVER,
            sqr_toom3: NEVER,
            ..base
        };
        let t = race(
            60,
            vec![
                Box::new(timed_mul(school, &a, &b)),
                Box::new(timed_mul(kara, &a, &b)),
                Box::new(timed_sqr(school, &a)),
                Box::new(timed_sqr(kara, &a)),
            ],
        );
        println!("{n:5} {:12.0} {:6.0} | {:11.0} {:6.0}", t[0], t[1], t[2], t[3]);
    }
    println!("limbs  mul: kara  toom1 | sqr: kara  toom1");
    for n in (60..=360).step_by(30) {
        let (a, b) = (operand(n, 5), operand(n, 6));
        let kara = Thresholds { mul_toom3: n + 1, sqr_toom3: n + 1, ..base };
        let toom = Thresholds { mul_toom3: n, sqr_toom3: n, ..base };
        let t = race(
            30,
            vec![
                Box::new(timed_mul(kara, &a, &b)),
                Box::new(timed_mul(toom, &a, &b)),
                Box::new(timed_sqr(kara, &a)),
                Box::new(timed_sqr(toom, &a)),
            ],
        );
        println!("{n:5} {:10.0} {:6.0} | {:9.0} {:6.0}", t[0], t[1], t[2], t[3]);
    }
}
