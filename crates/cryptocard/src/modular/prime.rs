//! Probable primes: trial division, Miller-Rabin, and random primes of an exact size.
//!
//! ```
//! use cryptocard::modular::prime::{PrimeOptions, generate_prime, is_probable_prime};
//! use cryptocard::rng::OsRng;
//!
//! let p = generate_prime(512, &PrimeOptions::default(), &mut OsRng)?;
//! assert_eq!(p.bits(), 512);
//! assert!(is_probable_prime(&p, 40, &mut OsRng)?);
//! # Ok::<(), cryptocard::Error>(())
//! ```
//!
//! [`generate_prime`] follows FIPS 186-5 B.3.3: random odd candidates of the exact
//! length, top bits set, each drawn afresh; trial division by the first small primes
//! ([`sieve`], constant time), the caller's acceptance check, then Miller-Rabin with the
//! round counts of Table B.1 / C.1. A 1024-bit prime takes on average ln(2^1024)/2 = 355
//! odd candidates, of which the sieve passes about one in seven to Miller-Rabin.
//!
//! Why fresh candidates rather than the incremental search of OpenSSL's `probable_prime`
//! or Go's `crypto/rand.Prime` (walk x, x + 2, x + 4, ... from one random start,
//! updating the residues): there the rejected candidates are p - 2, p - 4, ..., and
//! which of them the sieve rejects is a function of p modulo every small prime. A timing
//! or power observer who sees which steps reached Miller-Rabin learns p mod 3, 5, 7, ...
//! (Finke, Gebhardt and Schindler, "A new side-channel attack on RSA prime generation",
//! CHES 2009). With independent candidates, as in BoringSSL, a rejection concerns a
//! number that is thrown away and says nothing of the prime kept, so the verdicts may be
//! public; the walk's speed (a residue update per step instead of a trial division) is
//! partly won back by sieving with a shorter table (`sieve::generation_primes`).
//!
//! What leaks: the verdict on each discarded candidate, how many there were, and, for
//! the prime found, a = v2(p - 1) (see [`miller_rabin`]). The sieve, the acceptance check
//! and the Miller-Rabin rounds on a candidate are otherwise constant time (masked
//! residues, fixed-window exponentiation): the candidate that passes is the secret
//! prime, and a variable-time exponentiation on it would show the bit pattern of
//! (p - 1) / 2^a to a timing or cache observer of key generation. The fixed window costs
//! only a little more than the sliding one (`crates/bench`'s `modexp -- primes` times a
//! Miller-Rabin round on a 1024-bit prime both ways), so key generation pays it;
//! [`is_probable_prime_vartime`] keeps the sliding window for public numbers.
//! `crates/ct-valgrind/tests/ct_valgrind.rs` checks all of this under memcheck.

pub mod miller_rabin;
pub mod rounds;
pub mod sieve;

pub use miller_rabin::MillerRabin;
pub use rounds::{ADVERSARIAL_ROUNDS, generation_error_log2, mr_rounds};
pub use sieve::{SMALL_PRIME_COUNT, SMALL_PRIMES};

use super::MAX_BITS;
use crate::bignum::{LIMB_BITS, Limb, Nat};
use crate::rng::RandomSource;
use crate::{Error, Result};
use sieve::Residues;
use zeroize::Zeroize;

/// The smallest prime size [`generate_prime`] makes; below it every candidate would be
/// within reach of the trial-division table.
pub const MIN_PRIME_BITS: usize = 32;

/// Candidates drawn per bit of the prime before giving up: 64 * bits is about 180 times
/// the expected ln(2^bits)/2 odd candidates per prime, so only an acceptance check that
/// (almost) never accepts runs out.
const CANDIDATES_PER_BIT: usize = 64;

/// Options for [`generate_prime`].
#[derive(Clone, Copy)]
pub struct PrimeOptions<'a> {
    /// Set the two top bits (default), so that the product of two such `bits`-bit primes
    /// has exactly 2 * `bits` bits; otherwise only the top bit.
    pub top_two_bits: bool,
    /// A check the prime must also pass, run on each sieve survivor before
    /// Miller-Rabin (RSA: gcd(p - 1, e) = 1). It sees secret candidates: it should be
    /// constant time or leak no more than whether it accepts.
    pub accept: Option<&'a dyn Fn(&Nat) -> bool>,
    /// Miller-Rabin rounds; `None` means FIPS 186-5 Table B.1 / C.1 for the size
    /// ([`mr_rounds`] at [`generation_error_log2`]).
    pub rounds: Option<usize>,
}

impl Default for PrimeOptions<'_> {
    fn default() -> Self {
        PrimeOptions { top_two_bits: true, accept: None, rounds: None }
    }
}

impl core::fmt::Debug for PrimeOptions<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PrimeOptions")
            .field("top_two_bits", &self.top_two_bits)
            .field("accept", &self.accept.is_some())
            .field("rounds", &self.rounds)
            .finish()
    }
}

/// The Miller-Rabin rounds key generation runs on a random `bits`-bit candidate.
pub fn generation_rounds(bits: usize) -> usize {
    let err = generation_error_log2(bits);
    mr_rounds(bits, err).unwrap_or(err.div_ceil(2) as usize)
}

/// A random probable prime of exactly `bits` bits (`MIN_PRIME_BITS..=MAX_BITS`), with
/// the options' top bits set and its acceptance check passed. Fails with
/// [`Error::InvalidArgument`] for a size out of range or an acceptance check that
/// rejects everything it is shown, or [`Error::Rng`].
pub fn generate_prime(
    bits: usize,
    opts: &PrimeOptions<'_>,
    rng: &mut dyn RandomSource,
) -> Result<Nat> {
    if !(MIN_PRIME_BITS..=MAX_BITS).contains(&bits) {
        return Err(Error::InvalidArgument("prime size must be 32 to 16384 bits"));
    }
    let rounds = opts.rounds.unwrap_or_else(|| generation_rounds(bits));
    let sieve = sieve::generation_primes(bits);
    for _ in 0..CANDIDATES_PER_BIT * bits {
        let n = Nat::from_limbs(random_odd(bits, opts.top_two_bits, rng)?);
        if rejected(Residues::first(n.as_limbs(), sieve).has_small_factor()) {
            continue;
        }
        if opts.accept.is_some_and(|accept| rejected(!accept(&n))) {
            continue;
        }
        let mr = MillerRabin::new(&n)?;
        let mut passes = true;
        for _ in 0..rounds {
            if !mr.passes_random_round(rng)? {
                passes = false;
                break;
            }
        }
        if passes {
            return Ok(n);
        }
    }
    Err(Error::InvalidArgument("no candidate passed the acceptance check"))
}

/// A candidate's rejection (by the sieve or the acceptance check), made public: the one
/// declassification of those verdicts. Every candidate is drawn afresh and a rejected
/// one is discarded, so the verdict says nothing of the prime that is kept (see the
/// module docs). Miller-Rabin's verdict is declassified in the same spirit by
/// [`MillerRabin::is_witness`].
fn rejected(verdict: bool) -> bool {
    crate::ct::declassify(verdict)
}

/// Random `bits`-bit odd limbs with the top bit (and the one below it) set.
fn random_odd(bits: usize, top_two: bool, rng: &mut dyn RandomSource) -> Result<Vec<Limb>> {
    let k = bits.div_ceil(LIMB_BITS);
    let mut bytes = vec![0u8; k * 8];
    rng.fill_bytes(&mut bytes)?;
    let mut x: Vec<Limb> = bytes
        .chunks_exact(8)
        .map(|c| Limb::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    bytes.zeroize();
    let top = (bits - 1) % LIMB_BITS;
    x[k - 1] &= Limb::MAX >> (LIMB_BITS - 1 - top);
    x[k - 1] |= 1 << top;
    if top_two {
        let below = bits - 2;
        x[below / LIMB_BITS] |= 1 << (below % LIMB_BITS);
    }
    x[0] |= 1;
    Ok(x)
}

/// True when `n` is prime with error at most 4^-`rounds` for any n (Miller-Rabin with
/// random bases after trial division; exact below 17881^2). Constant-time
/// exponentiation: for secret numbers. Fails only with [`Error::Rng`] (or for `n` above
/// [`MAX_BITS`] bits).
pub fn is_probable_prime(n: &Nat, rounds: usize, rng: &mut dyn RandomSource) -> Result<bool> {
    probable_prime_with(n, rounds, rng, false)
}

/// As [`is_probable_prime`], with variable-time exponentiation: for public numbers (it
/// leaks `n` through timing).
pub fn is_probable_prime_vartime(
    n: &Nat,
    rounds: usize,
    rng: &mut dyn RandomSource,
) -> Result<bool> {
    probable_prime_with(n, rounds, rng, true)
}

fn probable_prime_with(
    n: &Nat,
    rounds: usize,
    rng: &mut dyn RandomSource,
    vartime: bool,
) -> Result<bool> {
    if let Some(small) = n.to_u64() {
        if small <= 2 {
            return Ok(small == 2);
        }
        if small <= u64::from(SMALL_PRIMES[SMALL_PRIME_COUNT - 1]) {
            return Ok(small % 2 == 1 && SMALL_PRIMES.binary_search(&(small as u32)).is_ok());
        }
    }
    if !n.is_odd() || Residues::new(n.as_limbs()).has_small_factor() {
        return Ok(false);
    }
    let largest = u64::from(SMALL_PRIMES[SMALL_PRIME_COUNT - 1]);
    if n.to_u64().is_some_and(|v| v < largest * largest) {
        return Ok(true);
    }
    let mr = MillerRabin::new(n)?;
    for _ in 0..rounds {
        let passes = if vartime {
            mr.passes_random_round_vartime(rng)?
        } else {
            mr.passes_random_round(rng)?
        };
        if !passes {
            return Ok(false);
        }
    }
    Ok(true)
}
