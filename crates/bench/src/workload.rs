//! Seeded operands and jobs for the benchmarks: the same seed gives the same numbers on
//! every run, so that figures from two runs time the same work.

use num_bigint::BigUint;
use num_traits::{One, Zero};

/// `k` limbs from a 64-bit LCG (Knuth's MMIX constants) with its high bits folded in.
pub fn random_limbs(seed: &mut u64, k: usize) -> Vec<u64> {
    (0..k)
        .map(|_| {
            *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            *seed ^ (*seed >> 29)
        })
        .collect()
}

/// `len` bytes from the same LCG, its bits 33..41.
pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut s = seed;
    (0..len)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 33) as u8
        })
        .collect()
}

/// `n` limbs from xorshift64 (13, 7, 17), seeded with `seed | 1`.
pub fn xorshift_limbs(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

/// SplitMix64, with the big-number draws of the IFMA kernels' tests.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number of `bits` bits or fewer.
    pub fn below_bits(&mut self, bits: usize) -> BigUint {
        let words: Vec<u64> = (0..bits.div_ceil(64)).map(|_| self.next_u64()).collect();
        from_limbs(&words) & ((BigUint::one() << bits) - 1u32)
    }

    /// A number below `n` (bias below 2^-64).
    pub fn below(&mut self, n: &BigUint) -> BigUint {
        self.below_bits(n.bits() as usize + 64) % n
    }

    /// An odd number with its top bit (bit `bits - 1`) set.
    pub fn odd_modulus(&mut self, bits: usize) -> BigUint {
        self.below_bits(bits) | (BigUint::one() << (bits - 1)) | BigUint::one()
    }
}

/// The number with little-endian limbs `x`.
pub fn from_limbs(x: &[u64]) -> BigUint {
    x.iter().rev().fold(BigUint::zero(), |acc, &w| (acc << 64) + w)
}

/// `x` as `len` little-endian limbs (it must fit).
pub fn to_limbs(x: &BigUint, len: usize) -> Vec<u64> {
    let mut v = x.to_u64_digits();
    assert!(v.len() <= len, "value does not fit {len} limbs");
    v.resize(len, 0);
    v
}

/// The limb length for a `D`-digit radix-2^52 modulus: as many as its largest size needs.
pub fn limbs_for(digits: usize) -> usize {
    cryptocard::hazmat::ifma::max_modulus_bits(digits).div_ceil(64)
}

/// One exponentiation for the IFMA kernels, with its expected answer (num-bigint).
#[derive(Debug, Clone)]
pub struct Job {
    /// The modulus, [`limbs_for`] limbs.
    pub n: Vec<u64>,
    /// `2^(104 D) mod n`, the RR of radix 2^52.
    pub rr: Vec<u64>,
    /// The base, below `n`.
    pub base: Vec<u64>,
    /// The exponent.
    pub exp: Vec<u64>,
    /// `base^exp mod n`.
    pub want: Vec<u64>,
}

impl Job {
    /// A random job: modulus of `bits` bits, base below it, exponent of `exp_limbs` limbs.
    pub fn random(rng: &mut Rng, digits: usize, bits: usize, exp_limbs: usize) -> Job {
        let n = rng.odd_modulus(bits);
        let base = rng.below(&n);
        let exp: Vec<u64> = (0..exp_limbs).map(|_| rng.next_u64()).collect();
        let len = limbs_for(digits);
        let want = base.modpow(&from_limbs(&exp), &n);
        let rr = (BigUint::one() << (104 * digits)) % &n;
        Job {
            n: to_limbs(&n, len),
            rr: to_limbs(&rr, len),
            base: to_limbs(&base, len),
            exp,
            want: to_limbs(&want, len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_are_deterministic() {
        let (mut s1, mut s2) = (5, 5);
        assert_eq!(random_limbs(&mut s1, 4), random_limbs(&mut s2, 4));
        // A stream moves on: two draws in a row differ.
        let (a, b) = (random_limbs(&mut s1, 4), random_limbs(&mut s1, 4));
        assert_ne!(a, b);
        assert_eq!(xorshift_limbs(3, 2), xorshift_limbs(3, 2));
        assert_eq!(random_bytes(9, 8), random_bytes(9, 8));
    }

    #[test]
    fn job_answer_is_the_modpow() {
        let job = Job::random(&mut Rng(3), 20, 1024, 2);
        let n = from_limbs(&job.n);
        assert_eq!(n.bits(), 1024);
        let want = from_limbs(&job.base).modpow(&from_limbs(&job.exp), &n);
        assert_eq!(from_limbs(&job.want), want);
    }
}
