//! Trial division by the first odd primes, in constant time.
//!
//! The residues x mod p are computed with a Barrett reduction per 16-bit digit (no
//! division instruction, no branch), and a candidate survives if none is 0; the whole
//! table is computed and checked with masks and no early exit, so the work per candidate
//! does not depend on its value, and all that timing reveals is the verdict (BoringSSL's
//! constant-time trial division has the same aim). With the whole table of 2048 primes
//! (3 to 17881) about 2 e^-gamma / ln(17881) = 11.5% of odd numbers survive (Mertens);
//! key generation, which divides every fresh candidate, uses a prefix of it
//! (`generation_primes`).

use crate::bignum::Limb;
use zeroize::Zeroize;

/// How many odd primes the table holds.
pub const SMALL_PRIME_COUNT: usize = 2048;

/// The first 2048 odd primes, 3 to 17881, computed at compile time.
pub static SMALL_PRIMES: [u32; SMALL_PRIME_COUNT] = odd_primes();

/// floor(2^32 / p) for each table prime: the Barrett constants.
static BARRETT: [u32; SMALL_PRIME_COUNT] = barrett_constants();

const SIEVE_LIMIT: usize = 17_882;

const fn odd_primes() -> [u32; SMALL_PRIME_COUNT] {
    let mut composite = [false; SIEVE_LIMIT];
    let mut out = [0u32; SMALL_PRIME_COUNT];
    let (mut i, mut count) = (3, 0);
    while i < SIEVE_LIMIT && count < SMALL_PRIME_COUNT {
        if !composite[i] {
            out[count] = i as u32;
            count += 1;
            let mut j = i * i;
            while j < SIEVE_LIMIT {
                composite[j] = true;
                j += i;
            }
        }
        i += 2;
    }
    assert!(count == SMALL_PRIME_COUNT, "internal error: sieve limit too small");
    out
}

const fn barrett_constants() -> [u32; SMALL_PRIME_COUNT] {
    let primes = odd_primes();
    let mut out = [0u32; SMALL_PRIME_COUNT];
    let mut i = 0;
    while i < SMALL_PRIME_COUNT {
        out[i] = ((1u64 << 32) / primes[i] as u64) as u32;
        i += 1;
    }
    out
}

/// How many table primes key generation divides a fresh `bits`-bit candidate by. Each
/// prime costs a fixed share of a candidate's sieving and saves the Miller-Rabin rounds
/// of the multiples it finds, which cost more the longer the candidate, hence more
/// primes for longer candidates. From a sweep of `cryptocard speed keygen2048` and
/// `keygen3072` over 128 to 2048 primes: flat within the noise from 256 to 512 primes
/// for 1024-bit candidates and from 512 to 1024 for 1536-bit ones, slower outside.
pub(crate) fn generation_primes(bits: usize) -> usize {
    match bits {
        ..=512 => 128,
        513..=1024 => 384,
        1025..=1536 => 768,
        _ => 1024,
    }
}

/// v mod p for v < p * 2^16, by Barrett: q = floor(v * mu / 2^32) is floor(v/p) or one
/// less, so v - q*p < 2p and one masked subtraction finishes.
#[inline(always)]
fn barrett(v: u32, p: u32, mu: u32) -> u32 {
    let q = ((u64::from(v) * u64::from(mu)) >> 32) as u32;
    let r = v.wrapping_sub(q.wrapping_mul(p));
    let t = r.wrapping_sub(p);
    // r < 2p < 2^17: t wrapped (top bit set) exactly when r < p.
    let keep_r = 0u32.wrapping_sub(t >> 31);
    (r & keep_r) | (t & !keep_r)
}

/// The residues of a number modulo the first table primes.
pub(crate) struct Residues {
    r: Vec<u32>,
}

impl Residues {
    /// Residues of the little-endian `x` (time depends only on its length).
    pub(crate) fn new(x: &[Limb]) -> Residues {
        Residues::first(x, SMALL_PRIME_COUNT)
    }

    /// The residues of x modulo the first `count` table primes (at most
    /// [`SMALL_PRIME_COUNT`]).
    pub(crate) fn first(x: &[Limb], count: usize) -> Residues {
        // Digit by digit from the top, every residue in turn: the residues are
        // independent, so the inner loop pipelines (and vectorises) where a prime-by-prime
        // Horner chain would wait on each reduction.
        let (primes, mus) = (&SMALL_PRIMES[..count], &BARRETT[..count]);
        let mut r = vec![0u32; count];
        for &limb in x.iter().rev() {
            for d in (0..4).rev() {
                let digit = ((limb >> (16 * d)) & 0xffff) as u32;
                for ((r, &p), &mu) in r.iter_mut().zip(primes).zip(mus) {
                    *r = barrett((*r << 16) | digit, p, mu);
                }
            }
        }
        Residues { r }
    }

    /// True when some table prime divides the number. Reads every residue; only the
    /// answer is revealed.
    pub(crate) fn has_small_factor(&self) -> bool {
        let any_zero = self.r.iter().fold(0u32, |acc, &r| acc | (r.wrapping_sub(1) >> 31));
        core::hint::black_box(any_zero) != 0
    }
}

impl Drop for Residues {
    fn drop(&mut self) {
        self.r.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_the_odd_primes() {
        assert_eq!(&SMALL_PRIMES[..8], &[3, 5, 7, 11, 13, 17, 19, 23]);
        assert_eq!(SMALL_PRIMES[SMALL_PRIME_COUNT - 1], 17881);
        for &p in SMALL_PRIMES.iter().step_by(97) {
            assert!((2..p).take_while(|d| d * d <= p).all(|d| p % d != 0), "{p}");
        }
    }

    #[test]
    fn residues_are_the_remainders() {
        let x: [Limb; 3] = [0xdead_beef_0123_4567, !0, 0x8000_0000_0000_0001];
        let big = |v: &[Limb], p: u32| {
            v.iter().rev().fold(0u128, |acc, &l| ((acc << 64) | u128::from(l)) % u128::from(p))
        };
        for (count, y) in [(SMALL_PRIME_COUNT, x), (100, [1, 2, 3]), (7, [!0, !0, !0])] {
            let res = Residues::first(&y, count);
            assert_eq!(res.r.len(), count);
            for (i, &p) in SMALL_PRIMES[..count].iter().enumerate() {
                assert_eq!(u128::from(res.r[i]), big(&y, p), "p = {p}");
            }
        }
        assert!(Residues::new(&[3 * 17881]).has_small_factor());
        assert!(!Residues::new(&[17891 * 17903]).has_small_factor());
    }
}
