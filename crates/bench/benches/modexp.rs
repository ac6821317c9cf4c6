//! Modular exponentiation: cycle counts of the constant-time `Modulus::pow` against
//! OpenSSL's `BN_mod_exp_mont_consttime` (what `RSA_sign` runs per CRT half), and the
//! rates of every exponentiation form on the dispatched and the portable kernels; plus the
//! prime generation of an RSA-2048 key:
//!
//! ```text
//! cargo bench -p cryptocard-bench --bench modexp [-- cycles speed primes]
//! OPENSSL_ia32cap=:~0x200000 cargo bench ... -- cycles   # OpenSSL without its IFMA code
//! WINDOWS=1 cargo bench ... -- cycles                    # also ours with windows of 4, 5, 6
//! ```
//!
//! `cycles`: both sides get the same odd modulus with its top bit set, a base below it and
//! a full-length exponent, and have the modulus's Montgomery constants ready; interleaved,
//! the minimum of many calls each. OpenSSL is the system libcrypto when there is one, else
//! the `compare` crate's vendored build (the header says which).

use compare::openssl::Openssl;
use cryptocard::bignum::Nat;
use cryptocard::modular::{Elem, Modulus, Mont};
use cryptocard_bench::timing::{cpu_us, min_ticks, race_ns, seconds, ticks_per_cycle};
use cryptocard_bench::workload::{Rng, random_bytes};

fn main() {
    cryptocard_bench::run_selected(&[
        ("cycles", modexp_against_openssl),
        ("speed", modexp_speed),
        ("primes", rsa2048_prime_pair_speed),
    ]);
}

fn modexp_against_openssl() {
    let ossl = match Openssl::system() {
        Ok(Some(lib)) => lib,
        _ => Openssl::vendored().expect("the vendored OpenSSL"),
    };
    let tpc = ticks_per_cycle();
    println!("OpenSSL: {:?}", ossl.info());
    println!("{tpc:.3} TSC ticks per core cycle; kcycles per call, minimum of interleaved calls");
    for bits in [1024usize, 1536, 2048, 3072, 4096] {
        let len = bits / 8;
        let mut m = random_bytes(bits as u64, len);
        m[0] |= 0x80;
        m[len - 1] |= 1;
        let mut a = random_bytes(bits as u64 + 1, len);
        a[0] &= 0x7f;
        let mut e = random_bytes(bits as u64 + 2, len);
        e[0] |= 0x80;

        let modulus: Modulus = Modulus::from_be_bytes(&m).unwrap();
        let base = modulus.to_mont(&modulus.elem_reduce_be_bytes(&a));
        let exp = Nat::from_be_bytes(&e);
        let ours = modulus.to_be_bytes(&modulus.from_mont(&modulus.pow(&base, &exp)));
        let mut theirs = ossl.modexp(&a, &e, &m).unwrap();
        theirs.run_consttime().unwrap();
        assert_eq!(ours, theirs.result().unwrap(), "{bits} bits: results differ");

        let reps = (2_000_000 / bits).clamp(20, 2000);
        let (mut t_ours, mut t_ossl) = (u64::MAX, u64::MAX);
        let mut t_win = [u64::MAX; 3];
        let sweep = std::env::var_os("WINDOWS").is_some();
        for _ in 0..reps {
            t_ours =
                t_ours.min(min_ticks(1, || _ = std::hint::black_box(modulus.pow(&base, &exp))));
            t_ossl = t_ossl.min(min_ticks(1, || theirs.run_consttime().unwrap()));
            for (w, best) in (4..).zip(t_win.iter_mut()).filter(|_| sweep) {
                let t = min_ticks(1, || {
                    std::hint::black_box(modulus.pow_kary(&base, &exp, w).unwrap());
                });
                *best = (*best).min(t);
            }
        }
        let kc = |t: u64| t as f64 / tpc / 1e3;
        println!(
            "{bits:>5} bits: ours {:>8.1}  OpenSSL {:>8.1}  ratio (OpenSSL time / ours) {:.3}",
            kc(t_ours),
            kc(t_ossl),
            t_ossl as f64 / t_ours as f64
        );
        if sweep {
            println!(
                "       windows 4/5/6: {:.1} / {:.1} / {:.1}",
                kc(t_win[0]),
                kc(t_win[1]),
                kc(t_win[2])
            );
        }
    }
}

/// Operations per second of `f` on a shared, noisy machine: short operations by the wall
/// clock (fastest of interleaved batches), long ones (over 10 ms, rarely left alone that
/// long) by the best of five 200 ms runs of this thread's CPU time.
fn ops_per_sec(mut f: impl FnMut()) -> f64 {
    let one = seconds(1, &mut f);
    if one > 0.01 {
        return 1e6 / cpu_us(5, 200, f);
    }
    let rounds = ((0.4 / one.max(5e-5)) as usize).clamp(5, 400);
    1e9 / race_ns(rounds, &mut [&mut f])[0]
}

/// `k` random limbs with the top bit set.
fn limbs(rng: &mut Rng, k: usize) -> Vec<u64> {
    let mut v: Vec<u64> = (0..k).map(|_| rng.next_u64()).collect();
    v[k - 1] |= 1 << 63;
    v
}

fn modexp_speed() {
    let mut rng = Rng(42);
    for bits in [1024usize, 2048, 4096] {
        let k = bits / 64;
        let mut n = limbs(&mut rng, k);
        n[0] |= 1;
        let fast: Modulus = Modulus::from_limbs(&n).unwrap();
        let base_limbs = limbs(&mut rng, k);
        let exp = Nat::from_limbs(limbs(&mut rng, k));
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
fn rsa2048_prime_pair_speed() {
    use cryptocard::modular::prime::{MillerRabin, PrimeOptions, generate_prime};
    use cryptocard::rng::OsRng;
    // e = 65537 is prime, so gcd(p - 1, e) = 1 exactly when p mod e != 1.
    let e_ok = |p: &Nat| {
        p.as_limbs().iter().rev().fold(0u128, |acc, &l| ((acc << 64) | u128::from(l)) % 65537) != 1
    };
    let opts = PrimeOptions { accept: Some(&e_ok), ..Default::default() };
    let mut times = Vec::new();
    let mut p = Nat::zero();
    for _ in 0..21 {
        times.push(
            seconds(1, || {
                p = generate_prime(1024, &opts, &mut OsRng).unwrap();
                let _q = generate_prime(1024, &opts, &mut OsRng).unwrap();
            }) * 1e3,
        );
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
