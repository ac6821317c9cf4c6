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
//! [`generate_prime`] follows the shape of FIPS 186-5 B.3.3 (random candidates of the
//! exact length, top bits set, then Miller-Rabin with the round counts of Table B.1 /
//! C.1) with the incremental search every fast implementation uses (OpenSSL's
//! `probable_prime`, Go's `crypto/rand.Prime`): from a random odd start x it walks
//! x, x + 2, x + 4, ..., dropping candidates with a factor below 17882 by updating their
//! residues ([`sieve`]), and runs the caller's acceptance check and then Miller-Rabin
//! only on the ~11% that survive. A 1024-bit prime takes on average ln(2^1024)/2 = 355
//! odd candidates, ~41 sieve survivors, so ~41 exponentiations plus the extra rounds on
//! the prime itself. Walking from a random start picks primes that follow long prime
//! gaps slightly more often than others; this bias is well known and harmless for RSA
//! (Brandt and Damgård, "On generation of probable primes by incremental search", 1992).
//!
//! What leaks: the sieve and the Miller-Rabin rounds on a candidate are constant time
//! (masked residue updates, fixed-window exponentiation), so timing shows how many
//! candidates were rejected and, for the prime found, a = v2(p - 1) (see
//! [`miller_rabin`]). Rejected candidates are discarded, so what their tests leak does
//! not matter; but the candidate that passes is the secret prime, and a variable-time
//! exponentiation on it would show the bit pattern of (p - 1) / 2^a to a timing or
//! cache observer of key generation. The fixed window costs only a little more than the
//! sliding one (`crates/bench`'s `modexp -- primes` times a Miller-Rabin round on a
//! 1024-bit prime both ways), so key generation pays it (BoringSSL does the same);
//! [`is_probable_prime_vartime`] keeps the sliding window for public numbers.

pub mod miller_rabin;
pub mod rounds;
pub mod sieve;

pub use miller_rabin::MillerRabin;
pub use rounds::{ADVERSARIAL_ROUNDS, generation_error_log2, mr_rounds};
pub use sieve::{SMALL_PRIME_COUNT, SMALL_PRIMES};

use super::MAX_BITS;
use crate::bignum::{LIMB_BITS, Limb, Nat, add_1, bit_length};
use crate::rng::RandomSource;
use crate::{Error, Result};
use sieve::Residues;
use zeroize::Zeroize;

/// The smallest prime size [`generate_prime`] makes; below it every candidate would be
/// within reach of the trial-division table.
pub const MIN_PRIME_BITS: usize = 32;

/// Odd candidates walked from one random start, per bit of the prime, before drawing a
/// new start: 8 * bits is 23 times the expected gap between primes, ln(2^bits)/2 odd
/// numbers, so a window without a prime is an e^-23 event.
const SEARCH_WINDOW_PER_BIT: usize = 8;

/// Random starts tried before giving up; only an acceptance check that (almost) never
/// accepts gets here.
const MAX_STARTS: usize = 64;

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
    for _ in 0..MAX_STARTS {
        let mut start = random_odd(bits, opts.top_two_bits, rng)?;
        let found = search_from(&start, bits, rounds, opts, rng);
        start.zeroize();
        if let Some(p) = found? {
            return Ok(p);
        }
    }
    Err(Error::InvalidArgument("no candidate passed the acceptance check"))
}

/// Walks the odd numbers from `start`; the first that passes everything, or `None` if
/// the window or the size runs out.
fn search_from(
    start: &[Limb],
    bits: usize,
    rounds: usize,
    opts: &PrimeOptions<'_>,
    rng: &mut dyn RandomSource,
) -> Result<Option<Nat>> {
    let mut residues = Residues::new(start);
    let mut cand = start.to_vec();
    for step in 0..SEARCH_WINDOW_PER_BIT * bits {
        if step > 0 {
            residues.advance(2);
            if add_1(&mut cand, &[2]) != 0 || bit_length(&cand) != bits {
                // Ran past 2^bits: draw a new start.
                cand.zeroize();
                return Ok(None);
            }
        }
        if residues.has_small_factor() {
            continue;
        }
        let n = Nat::from_slice(&cand);
        if opts.accept.is_some_and(|accept| !accept(&n)) {
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
            cand.zeroize();
            return Ok(Some(n));
        }
    }
    cand.zeroize();
    Ok(None)
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
