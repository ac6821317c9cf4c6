//! Differential tests of the IFMA kernels against num-bigint (`modpow`, products checked
//! through `x R = a b mod n`), and their shared helpers.
//!
//! Every test skips itself, with a message, on a CPU without AVX-512 IFMA.

mod exp;
mod mont;
mod normalize;
mod products;

use super::radix52::{self, max_modulus_bits};
use crate::arch::x86_64::cpu::Ifma;
use num_bigint::BigUint;
use num_traits::{One, Zero};

pub(crate) fn ifma_or_skip(test: &str) -> Option<Ifma> {
    let t = Ifma::detect();
    if t.is_none() {
        eprintln!("{test}: skipped, this CPU has no AVX-512 IFMA");
    }
    t
}

/// The crate's SplitMix64 with the big-number draws these tests need; reproducible
/// variety, not cryptographic randomness.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        let mut g = crate::test_rng::SplitMix64(self.0);
        let z = g.next_u64();
        self.0 = g.0;
        z
    }

    /// A uniform number of exactly `bits` bits or fewer.
    pub(crate) fn below_bits(&mut self, bits: usize) -> BigUint {
        let words: Vec<u64> = (0..bits.div_ceil(64)).map(|_| self.next()).collect();
        let x = from_limbs(&words);
        x & ((BigUint::one() << bits) - 1u32)
    }

    pub(crate) fn below(&mut self, n: &BigUint) -> BigUint {
        self.below_bits(n.bits() as usize + 64) % n
    }

    /// An odd number with its top bit (bit `bits - 1`) set.
    pub(crate) fn odd_modulus(&mut self, bits: usize) -> BigUint {
        self.below_bits(bits) | (BigUint::one() << (bits - 1)) | BigUint::one()
    }
}

pub(crate) fn from_limbs(x: &[u64]) -> BigUint {
    x.iter().rev().fold(BigUint::zero(), |acc, &w| (acc << 64) + w)
}

pub(crate) fn to_limbs(x: &BigUint, len: usize) -> Vec<u64> {
    let mut v = x.to_u64_digits();
    assert!(v.len() <= len, "test value does not fit {len} limbs");
    v.resize(len, 0);
    v
}

/// `2^(2 * 52 * D) mod n`, the RR of radix 2^52.
pub(crate) fn rr52(n: &BigUint, digits: usize) -> BigUint {
    (BigUint::one() << (104 * digits)) % n
}

/// The limb length the tests use for a `D`-digit modulus: as many as its largest size needs.
pub(crate) const fn limbs_for(digits: usize) -> usize {
    max_modulus_bits(digits).div_ceil(64)
}

/// One exponentiation job, with its expected answer.
pub(crate) struct Job {
    pub(crate) n: Vec<u64>,
    pub(crate) rr: Vec<u64>,
    pub(crate) base: Vec<u64>,
    pub(crate) exp: Vec<u64>,
    pub(crate) want: Vec<u64>,
}

impl Job {
    pub(crate) fn new(digits: usize, n: &BigUint, base: &BigUint, exp: &[u64]) -> Job {
        let len = limbs_for(digits);
        let want = base.modpow(&from_limbs(exp), n);
        Job {
            n: to_limbs(n, len),
            rr: to_limbs(&rr52(n, digits), len),
            base: to_limbs(base, len),
            exp: exp.to_vec(),
            want: to_limbs(&want, len),
        }
    }

    /// A random job: modulus of `bits` bits, random base below it, exponent of `exp_limbs`
    /// random limbs.
    pub(crate) fn random(rng: &mut Rng, digits: usize, bits: usize, exp_limbs: usize) -> Job {
        let n = rng.odd_modulus(bits);
        let base = rng.below(&n);
        let exp: Vec<u64> = (0..exp_limbs).map(|_| rng.next()).collect();
        Job::new(digits, &n, &base, &exp)
    }
}

/// The radix-2^52 digits of `x` (which must fit `D` digits).
pub(crate) fn digits<const D: usize>(x: &BigUint) -> [u64; D] {
    let limbs = to_limbs(x, (52 * D).div_ceil(64));
    let mut d = [0u64; D];
    assert!(radix52::to_radix52(&mut d, &limbs).declassify());
    d
}

pub(crate) fn from_digits(d: &[u64]) -> BigUint {
    d.iter().rev().fold(BigUint::zero(), |acc, &w| (acc << 52) + w)
}
