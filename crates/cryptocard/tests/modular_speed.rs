//! Speed of the portable modular exponentiation, for tuning and for the report; run with
//! `cargo test --release -p cryptocard --test modular_speed -- --ignored --nocapture`.
//! It prints operations per second and asserts nothing about time.
//!
//! Reference (same machine, AMD Zen 4 EPYC, GMP 6.2.1 `mpz_powm_sec` through a small C
//! program, full-length exponent, best of 7 runs): about 2550/s at 1024 bits, 350/s at
//! 2048 and 44/s at 4096. The project's `cryptocard speed modexp* --compare gmp` measures
//! both in one process.

mod modular_common;

use cryptocard::bignum::Nat;
use cryptocard::modular::{Elem, Modulus, Mont};
use std::time::Instant;

struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn limbs(&mut self, k: usize) -> Vec<u64> {
        let mut v: Vec<u64> = (0..k).map(|_| self.next()).collect();
        v[k - 1] |= 1 << 63;
        v
    }
}

/// Seconds of CPU time this thread has run (Linux `/proc/thread-self/schedstat`, which
/// may advance only at scheduler ticks), or `None` where that is not available.
fn thread_time() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<u64>().ok()? as f64 * 1e-9)
}

/// Operations per second of `f` on a shared, noisy machine. Short operations: the
/// fastest of many ~1 ms batches by the wall clock (the minimum is a batch that was not
/// preempted). Long ones (over 10 ms, which are rarely left alone that long): the fastest
/// of five batches of at least 200 ms of this thread's CPU time, so that time spent
/// preempted does not count and the scheduler tick is a small error.
fn ops_per_sec(mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    f();
    let one = t.elapsed().as_secs_f64().max(1e-8);
    if let Some(start) = thread_time().filter(|_| one > 0.01) {
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t0 = thread_time().unwrap_or(start);
            let mut reps = 0;
            while thread_time().unwrap_or(t0) - t0 < 0.2 {
                f();
                reps += 1;
            }
            best = best.min((thread_time().unwrap_or(t0) - t0) / reps as f64);
        }
        return 1.0 / best;
    }
    let reps = ((0.001 / one) as usize).max(1);
    let mut best = f64::MAX;
    for _ in 0..((0.4 / (one * reps as f64)) as usize).clamp(5, 400) {
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64);
    }
    1.0 / best
}

#[test]
#[ignore = "prints timings; run by hand"]
fn modexp_speed() {
    let mut rng = SplitMix(42);
    for bits in [1024usize, 2048, 4096] {
        let k = bits / 64;
        let mut n = rng.limbs(k);
        n[0] |= 1;
        let fast: Modulus = Modulus::from_limbs(&n).unwrap();
        let base_limbs = rng.limbs(k);
        let exp = Nat::from_limbs(rng.limbs(k));
        for m in [fast.clone(), fast.with_portable_kernels()] {
            let base: Elem<_, Mont> = m.to_mont(&m.reduce_limbs(&base_limbs));
            let ct = ops_per_sec(|| {
                std::hint::black_box(m.pow(&base, &exp));
            });
            let sliding = ops_per_sec(|| {
                std::hint::black_box(m.pow_vartime(&base, &exp));
            });
            let binary = ops_per_sec(|| {
                std::hint::black_box(m.pow_binary_vartime(&base, &exp));
            });
            println!(
                "modexp{bits} [{} kernels]: pow (ct, window {}) {ct:.0}/s, pow_vartime \
                 {sliding:.0}/s, pow_binary_vartime {binary:.0}/s",
                m.kernels(),
                cryptocard::hazmat::ct_window_bits(bits)
            );
            let kary: Vec<String> = (1..=7)
                .map(|w| {
                    let r = ops_per_sec(|| {
                        std::hint::black_box(m.pow_kary(&base, &exp, w).unwrap());
                    });
                    format!("w{w} {r:.0}")
                })
                .collect();
            println!("  pow_kary: {}", kary.join(", "));
            let a = base.clone();
            let mul = ops_per_sec(|| {
                std::hint::black_box(m.mul(&a, &base));
            });
            let sqr = ops_per_sec(|| {
                std::hint::black_box(m.sqr(&a));
            });
            println!("  mont mul {:.0} ns, mont sqr {:.0} ns", 1e9 / mul, 1e9 / sqr);
        }
    }
}

/// Key-generation-shaped work: two 1024-bit primes with gcd(p - 1, 65537) = 1, from the
/// operating system's RNG; prints the median and the fastest of 21 runs. Compare with
/// `openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048` run in a loop.
#[test]
#[ignore = "prints timings; run by hand"]
fn rsa2048_prime_pair_speed() {
    use cryptocard::bignum::prime::{MillerRabin, PrimeOptions, generate_prime};
    use cryptocard::rng::OsRng;
    // e = 65537 is prime, so gcd(p - 1, e) = 1 exactly when p mod e != 1.
    let e_ok = |p: &Nat| {
        p.as_limbs().iter().rev().fold(0u128, |acc, &l| ((acc << 64) | u128::from(l)) % 65537) != 1
    };
    let opts = PrimeOptions { accept: Some(&e_ok), ..Default::default() };
    let mut times = Vec::new();
    let mut p = Nat::zero();
    for _ in 0..21 {
        let t = Instant::now();
        p = generate_prime(1024, &opts, &mut OsRng).unwrap();
        let _q = generate_prime(1024, &opts, &mut OsRng).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!("two 1024-bit primes: median {:.1} ms, fastest {:.1} ms", times[10], times[0]);
    let mr = MillerRabin::new(&p).unwrap();
    let b = Nat::from_u64(3);
    let ct = ops_per_sec(|| {
        std::hint::black_box(mr.is_witness(&b));
    });
    let vt = ops_per_sec(|| {
        std::hint::black_box(mr.is_witness_vartime(&b));
    });
    println!("Miller-Rabin round on a 1024-bit prime: constant time {ct:.0}/s, vartime {vt:.0}/s");
}
