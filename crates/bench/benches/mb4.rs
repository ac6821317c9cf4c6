//! Cycle counts of the four-lane AVX2 kernels (radix 2^28) beside the scalar BMI2/ADX
//! chain kernels they replace in batches on CPUs without IFMA, and exponentiation rates:
//!
//! ```text
//! cargo bench -p cryptocard-bench --bench mb4 [-- cycles exp]
//! ```
//!
//! Figures are minimums over many calls, timed with `rdtsc`, in core cycles (TSC ticks
//! times the measured ratio of core clock to TSC). Per-lane figures divide a four-lane call
//! by four. IFMA is not used, whether the CPU has it or not.

use cryptocard::hazmat::adx::{chain_scratch_len, mul_almost, sqr_n_almost};
use cryptocard::hazmat::mb4::{self as hz, DIGIT_BITS, Mb4};
use cryptocard::hazmat::{Adx, Avx2};
use cryptocard_bench::adx_powm::{ct_powm, setup};
use cryptocard_bench::timing::{min_ticks, ticks_per_call, ticks_per_cycle};
use cryptocard_bench::workload::{Rng, random_limbs, to_limbs};
use num_bigint::BigUint;

fn main() {
    cryptocard_bench::run_selected(&[("cycles", cycles), ("exp", exp)]);
}

fn tokens(what: &str) -> Option<(Avx2, Adx)> {
    let t = Avx2::detect().zip(Adx::detect());
    if t.is_none() {
        println!("{what}: skipped, this CPU lacks AVX2 or BMI2/ADX");
    }
    t
}

/// Four random odd moduli of `bits` bits, their digits and `k0`.
fn moduli<const D: usize>(rng: &mut Rng, bits: usize) -> (Vec<BigUint>, Mb4<D>, [u64; 4]) {
    let n: Vec<BigUint> = (0..4).map(|_| rng.odd_modulus(bits)).collect();
    let mut rows = [[0u64; 4]; D];
    let mut k0 = [0u64; 4];
    for (l, m) in n.iter().enumerate() {
        let mut x = m.clone();
        for row in rows.iter_mut() {
            row[l] = (&x & BigUint::from((1u64 << DIGIT_BITS) - 1)).try_into().unwrap();
            x >>= DIGIT_BITS;
        }
        k0[l] = hz::neg_inv28(m.to_u64_digits()[0]);
    }
    (n, Mb4::from_rows(rows), k0)
}

fn random_mb4<const D: usize>(rng: &mut Rng) -> Mb4<D> {
    // Values below 2^(28 D - 2), as the contracts want.
    Mb4::from_rows(core::array::from_fn(|k| {
        let top = if k + 1 == D { 2 } else { 0 };
        core::array::from_fn(|_| rng.next_u64() >> (36 + top))
    }))
}

/// Ticks per call of `step` applied 64 times in a dependent chain.
fn chained<T: Clone>(x0: &T, mut step: impl FnMut(&T, &mut T)) -> f64 {
    let (mut x, mut y) = (x0.clone(), x0.clone());
    min_ticks(200, || {
        for _ in 0..32 {
            step(&x, &mut y);
            step(&y, &mut x);
        }
    }) as f64
        / 64.0
}

fn kernels<const D: usize>(avx2: Avx2, adx: Adx, limbs: usize, tpc: f64) {
    let mut rng = Rng(3);
    let (_, n, k0) = moduli::<D>(&mut rng, 64 * limbs);
    let (a, b) = (random_mb4::<D>(&mut rng), random_mb4::<D>(&mut rng));
    let mut s = Mb4::<D>::ZERO;
    let amm = chained(&a, |x, y| hz::amm_mb4(avx2, x, &b, &n, &k0, y)) / tpc;
    let ams = chained(&a, |x, y| hz::ams_mb4(avx2, x, &n, &k0, y, &mut s)) / tpc;
    let mut seed = 5;
    let (sn, n0, _) = setup(limbs, &mut seed);
    let (mut x, y) = (random_limbs(&mut seed, limbs), random_limbs(&mut seed, limbs));
    let mut scratch = vec![0; chain_scratch_len(limbs)];
    let reps = 40_000 / limbs;
    let sq = ticks_per_call(reps, 16, || sqr_n_almost(adx, &mut x, 5, &sn, n0, &mut scratch))
        / 5.0
        / tpc;
    let mu = ticks_per_call(reps, 16, || mul_almost(adx, &mut x, &y, &sn, n0, &mut scratch)) / tpc;
    println!(
        "{:>5} {D:>4} {:>9.0} {:>9.0} {:>9.0} {:>9.0} {:>7.0} {:>7.0}   {:>5.2} {:>5.2}",
        64 * limbs,
        amm,
        ams,
        amm / 4.0,
        ams / 4.0,
        mu,
        sq,
        mu / (amm / 4.0),
        sq / (ams / 4.0)
    );
}

fn cycles() {
    let Some((avx2, adx)) = tokens("cycles") else { return };
    let tpc = ticks_per_cycle();
    println!(
        "core cycles per product in a dependent chain; mb4 per call and per lane, scalar chain kernels per product"
    );
    println!(
        "{:>5} {:>4} {:>9} {:>9} {:>9} {:>9} {:>7} {:>7}   {:>5} {:>5}",
        "bits", "D", "amm_mb4", "ams_mb4", "amm/lane", "ams/lane", "mul", "sqr", "mul x", "sqr x"
    );
    kernels::<20>(avx2, adx, 8, tpc);
    kernels::<38>(avx2, adx, 16, tpc);
    kernels::<56>(avx2, adx, 24, tpc);
    kernels::<74>(avx2, adx, 32, tpc);
}

fn exp_at<const D: usize>(avx2: Avx2, adx: Adx, limbs: usize, tpc: f64) {
    let mut rng = Rng(11);
    let (n, _, _) = moduli::<D>(&mut rng, 64 * limbs);
    let nl: Vec<Vec<u64>> = n.iter().map(|m| to_limbs(m, limbs)).collect();
    let r2 = BigUint::from(1u8) << (2 * DIGIT_BITS as usize * D);
    let rr: Vec<Vec<u64>> = n.iter().map(|m| to_limbs(&(&r2 % m), limbs)).collect();
    let base: Vec<Vec<u64>> = n.iter().map(|m| to_limbs(&rng.below(m), limbs)).collect();
    let exps: Vec<Vec<u64>> =
        (0..4).map(|_| (0..limbs).map(|_| rng.next_u64()).collect()).collect();
    let mut outs = vec![vec![0u64; limbs]; 4];
    let lanes4 = |outs: &mut Vec<Vec<u64>>| {
        let mut it = outs.iter_mut();
        let lanes: [hz::ExpLane<'_>; 4] = core::array::from_fn(|l| {
            (&nl[l][..], &rr[l][..], &base[l][..], &exps[l][..], &mut it.next().unwrap()[..])
        });
        assert_eq!(hz::exp_mb4::<D>(avx2, lanes).unwrap(), [true; 4]);
    };
    lanes4(&mut outs);
    for l in 0..4 {
        let want = to_big(&base[l]).modpow(&to_big(&exps[l]), &n[l]);
        assert_eq!(to_big(&outs[l]), want, "mb4 lane {l}");
    }
    let mb4 = min_ticks(20, || lanes4(&mut outs)) as f64 / tpc / 4.0;
    let mut seed = 7;
    let (sn, n0, rr) = setup(limbs, &mut seed);
    let (b, e) = (random_limbs(&mut seed, limbs), random_limbs(&mut seed, limbs));
    let scalar = min_ticks(20, || _ = ct_powm(adx, &b, &e, &sn, n0, &rr)) as f64 / tpc;
    println!("{:>5} {D:>4} {:>12.0} {:>12.0} {:>7.2}", 64 * limbs, mb4, scalar, scalar / mb4);
}

fn to_big(x: &[u64]) -> BigUint {
    cryptocard_bench::workload::from_limbs(x)
}

fn exp() {
    let Some((avx2, adx)) = tokens("exp") else { return };
    let tpc = ticks_per_cycle();
    println!("core cycles per exponentiation, full-length exponent, 5-bit windows");
    println!("{:>5} {:>4} {:>12} {:>12} {:>7}", "bits", "D", "mb4 / lane", "adx ct_powm", "ratio");
    exp_at::<20>(avx2, adx, 8, tpc);
    exp_at::<38>(avx2, adx, 16, tpc);
    exp_at::<56>(avx2, adx, 24, tpc);
    exp_at::<74>(avx2, adx, 32, tpc);
}
