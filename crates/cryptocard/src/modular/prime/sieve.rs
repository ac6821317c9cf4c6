//! Trial division by the first 2048 odd primes, and the incremental sieve that walks a
//! run of odd candidates x, x + 2, x + 4, ... with it.
//!
//! The residues x mod p of the start are computed once (a Barrett reduction per 16-bit
//! digit, no division instruction); moving to the next candidate adds 2 to each residue
//! and subtracts p where it reaches p. A candidate survives if no residue is 0. OpenSSL's
//! `probable_prime` walks candidates the same way; unlike it, every step here updates and
//! checks the whole table with masks and no early exit, so the work per candidate does
//! not depend on its value, and all that timing reveals is which candidates were
//! rejected (BoringSSL's constant-time trial division has the same aim). The survival
//! rate is about 2 e^-gamma / ln(17881) = 11.5% of odd numbers (Mertens), which spares
//! 88% of the Miller-Rabin tests.

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

/// The residues of an odd number modulo the table primes, updated as the number moves on.
pub(crate) struct Residues {
    r: Vec<u32>,
}

impl Residues {
    /// Residues of the little-endian `x` (time depends only on its length).
    pub(crate) fn new(x: &[Limb]) -> Residues {
        let r = SMALL_PRIMES
            .iter()
            .zip(&BARRETT)
            .map(|(&p, &mu)| {
                x.iter().rev().fold(0u32, |acc, &limb| {
                    (0..4).rev().fold(acc, |acc, d| {
                        barrett((acc << 16) | ((limb >> (16 * d)) & 0xffff) as u32, p, mu)
                    })
                })
            })
            .collect();
        Residues { r }
    }

    /// Adds `step` (at most 2) to the number.
    pub(crate) fn advance(&mut self, step: u32) {
        for (r, &p) in self.r.iter_mut().zip(&SMALL_PRIMES) {
            let s = *r + step;
            let t = s.wrapping_sub(p);
            let keep_s = 0u32.wrapping_sub(t >> 31);
            *r = (s & keep_s) | (t & !keep_s);
        }
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
    fn residues_follow_the_number() {
        let x: [Limb; 3] = [0xdead_beef_0123_4567, !0, 0x8000_0000_0000_0001];
        let big = |v: &[Limb], p: u32| {
            v.iter().rev().fold(0u128, |acc, &l| ((acc << 64) | u128::from(l)) % u128::from(p))
        };
        let mut res = Residues::new(&x);
        let mut y = x;
        for step in 0..40 {
            for (i, &p) in SMALL_PRIMES.iter().enumerate().step_by(13) {
                assert_eq!(u128::from(res.r[i]), big(&y, p), "step {step}, p = {p}");
            }
            res.advance(2);
            y[0] += 2;
        }
        assert!(Residues::new(&[3 * 17881]).has_small_factor());
        assert!(!Residues::new(&[17891 * 17903]).has_small_factor());
    }
}
