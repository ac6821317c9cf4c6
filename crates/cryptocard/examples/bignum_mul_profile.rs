//! Runs one multiplication size in a loop, for a profiler: `perf record` or
//! `valgrind --tool=callgrind target/release/examples/bignum_mul_profile 64`.
use cryptocard::bignum::mul;
use std::hint::black_box;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(64);
    let reps: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let a: Vec<u64> = (0..n as u64).map(|i| (i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    let b: Vec<u64> = a.iter().map(|x| !x).collect();
    let mut r = vec![0; 2 * n];
    let mut s = vec![0; mul::mul_scratch_len(n, n)];
    for _ in 0..reps {
        mul::mul_with_scratch(&mut r, black_box(&a), black_box(&b), &mut s);
        black_box(&r);
    }
}
