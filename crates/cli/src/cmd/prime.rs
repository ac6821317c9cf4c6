//! `cryptocard prime`: primality tests and prime generation, as `openssl prime`.
//!
//! ```text
//! cryptocard prime [-hex] [-checks N] NUMBER ...
//! cryptocard prime -generate -bits N [-safe] [-hex]
//! ```
//!
//! Tests print `HEX (input) is prime` or `... is not prime` (the number in upper-case hex,
//! then as typed), as OpenSSL does; numbers are decimal, or hex with `-hex`. The test is
//! trial division then Miller-Rabin with random bases (`modular::prime`), `-checks` rounds
//! (default 64: error at most 2^-128 even for a number chosen to fool the test).
//!
//! Generation prints a random prime of exactly N bits (top two bits set, as OpenSSL's
//! `BN_generate_prime_ex`) in decimal, or upper-case hex with `-hex`; `-safe` asks for a
//! safe prime p = 2q + 1 with q prime. From 32 bits on this is
//! `modular::prime::generate_prime` (sieve, then FIPS 186-5 Miller-Rabin rounds, with the
//! test of q as its acceptance check); below, the few candidates are drawn and tested here.

use super::{Spec, no_positional};
use crate::args::Flag;
use crate::fail::{CmdResult, Fail};
use cryptocard::bignum::Nat;
use cryptocard::modular::prime::{
    ADVERSARIAL_ROUNDS, MIN_PRIME_BITS, PrimeOptions, generate_prime, is_probable_prime_vartime,
};
use cryptocard::rng::{OsRng, RandomSource};
use std::fmt::Write as _;

const SPEC: Spec = Spec {
    usage: "prime [options] [NUMBER ...]",
    flags: &[
        Flag::switch("hex").about("Hex input and output"),
        Flag::switch("generate").about("Generate a prime"),
        Flag::value("bits", "N").about("Size of the generated prime in bits"),
        Flag::switch("safe").about("With -generate, a safe prime (p = 2q + 1, q prime)"),
        Flag::value("checks", "N").about("Miller-Rabin rounds for tests (default 64)"),
    ],
    notes: "",
    more: None,
};

/// The largest prime `-generate` makes (the library's modulus limit).
const MAX_BITS: usize = 16384;
/// Safe-prime searches before giving up (each walks many candidates).
const SAFE_ATTEMPTS: usize = 200;

/// Runs `prime`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse(argv)? else { return Ok(()) };
    let hex = a.has("hex");
    if a.has("generate") {
        no_positional(&a)?;
        let bits = a
            .parsed::<usize>("bits")?
            .ok_or_else(|| Fail::msg("specify the number of bits with -bits N"))?;
        if !(2..=MAX_BITS).contains(&bits) || (a.has("safe") && bits < 3) {
            return Err(Fail::msg(format!(
                "cannot generate a {bits}-bit prime (2 to {MAX_BITS} bits; safe primes from 3)"
            )));
        }
        let p =
            generate(bits, a.has("safe")).map_err(|e| Fail::lib("failed to generate prime", e))?;
        let text = if hex { format!("{p:X}") } else { p.to_dec() };
        super::print_text(&format!("{text}\n"));
        return Ok(());
    }
    if a.has("safe") || a.has("bits") {
        return Err(Fail::msg("-bits and -safe need -generate"));
    }
    let rounds = match a.parsed::<usize>("checks")? {
        Some(0) => return Err(Fail::msg("-checks: must be at least 1")),
        Some(n) => n.min(1000),
        None => ADVERSARIAL_ROUNDS,
    };
    if a.positional.is_empty() {
        return Err(Fail::msg("no number given (see -help)"));
    }
    let mut text = String::new();
    for word in &a.positional {
        let (negative, digits) = match word.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, word.as_str()),
        };
        let n = if hex { Nat::from_hex(digits) } else { Nat::from_dec(digits) }
            .map_err(|_| Fail::msg(format!("failed to process value ({})", shown(word))))?;
        if n.bits() > MAX_BITS {
            return Err(Fail::msg(format!("{}: more than {MAX_BITS} bits", shown(word))));
        }
        let prime = !negative
            && is_probable_prime_vartime(&n, rounds, &mut OsRng)
                .map_err(|e| Fail::lib("prime", e))?;
        let sign = if negative && !n.is_zero() { "-" } else { "" };
        let verdict = if prime { "is prime" } else { "is not prime" };
        let _ = writeln!(text, "{sign}{n:X} ({word}) {verdict}");
    }
    super::print_text(&text);
    Ok(())
}

/// `word` for an error message: whole if short, else its ends and its length (a number
/// of 25,000 digits is no help on a terminal).
fn shown(word: &str) -> String {
    match (word.get(..12), word.get(word.len().saturating_sub(12)..)) {
        (Some(head), Some(tail)) if word.len() > 40 => {
            format!("{head}...{tail}, {} characters", word.len())
        }
        _ => word.to_string(),
    }
}

/// A random `bits`-bit prime with its top two bits set (a safe prime if `safe`).
fn generate(bits: usize, safe: bool) -> cryptocard::Result<Nat> {
    let q_is_prime = |p: &Nat| -> bool {
        is_probable_prime_vartime(&(p >> 1usize), ADVERSARIAL_ROUNDS, &mut OsRng).unwrap_or(false)
    };
    if bits < MIN_PRIME_BITS {
        return generate_small(bits, safe.then_some(&q_is_prime as &dyn Fn(&Nat) -> bool));
    }
    let opts = PrimeOptions {
        accept: safe.then_some(&q_is_prime as &dyn Fn(&Nat) -> bool),
        ..PrimeOptions::default()
    };
    let mut last = cryptocard::Error::InvalidArgument("no safe prime found");
    for _ in 0..if safe { SAFE_ATTEMPTS } else { 1 } {
        match generate_prime(bits, &opts, &mut OsRng) {
            Ok(p) => return Ok(p),
            // An acceptance check that rejected a whole search: search again.
            Err(e @ cryptocard::Error::InvalidArgument(_)) => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Primes below 32 bits: draw odd candidates with the top two bits set and test them.
fn generate_small(bits: usize, accept: Option<&dyn Fn(&Nat) -> bool>) -> cryptocard::Result<Nat> {
    let top = if bits >= 2 { 0b11u64 << (bits - 2) } else { 1 };
    for _ in 0..100_000 {
        let r = OsRng.next_u64()? & ((1u64 << bits) - 1);
        let c = Nat::from_u64(r | top | 1);
        if is_probable_prime_vartime(&c, ADVERSARIAL_ROUNDS, &mut OsRng)?
            && accept.is_none_or(|f| f(&c))
        {
            return Ok(c);
        }
    }
    Err(cryptocard::Error::InvalidArgument("no prime of that size found"))
}
