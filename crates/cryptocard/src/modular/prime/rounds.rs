//! How many Miller-Rabin rounds: FIPS 186-5 Appendix C.1 and Table B.1.
//!
//! For a k-bit candidate drawn at random, the probability that a composite passes t
//! rounds with random bases is far below the worst-case 4^-t (Damgård, Landrock and
//! Pomerance, "Average case error estimates for the strong probable prime test", 1993).
//! FIPS 186-5 C.1 turns their bound into a procedure: for 3 <= M <= 2 sqrt(k - 1) - 1,
//!
//! ```text
//! p_{k,t} <= 2.00743 ln(2) k 2^-k ( 2^(k - 2 - M t)
//!            + 8 (pi^2 - 6) / 3 * 2^(k - 2) * sum_{m=3..M} sum_{j=2..m} 2^(m - (m-1) t - j - (k-1)/j) )
//! ```
//!
//! and t is the least number of rounds for which some M brings the bound below the
//! target 2^-s. Table B.1 lists the results for RSA primes: p and q of 1024 bits need 4
//! rounds for 2^-100 and 5 for 2^-112; of 1536 bits, 3 and 4 (2^-128); of 2048 bits, 2
//! and 4 (2^-144); the tests check [`mr_rounds`] reproduces every entry, including the
//! auxiliary-prime rows (140 bits: 32 and 38; 170: 27 and 41; 200: 22 and 44).
//!
//! Key generation uses the right-hand column of Table B.1, the error probability that
//! matches the security strength of the modulus (SP 800-57): [`generation_error_log2`].
//! These bounds hold only for *random* candidates; a number chosen by an adversary needs
//! the worst-case bound, 4^-t ([`ADVERSARIAL_ROUNDS`]).

/// Rounds that bound the error on an adversarially chosen number by 4^-64 = 2^-128.
pub const ADVERSARIAL_ROUNDS: usize = 64;

/// log2 of the error probability key generation accepts for a prime of `bits` bits
/// (a modulus of about 2 * bits): -100 below 1024-bit primes, then -112, -128 and -144 as
/// in FIPS 186-5 Table B.1 for 1024-, 1536- and 2048-bit primes (and above).
pub fn generation_error_log2(bits: usize) -> u32 {
    match bits {
        0..1024 => 100,
        1024..1536 => 112,
        1536..2048 => 128,
        _ => 144,
    }
}

/// The least number of Miller-Rabin rounds with random bases that bounds the
/// probability a random `bits`-bit composite passes by 2^-`error_log2` (FIPS 186-5 C.1),
/// or `None` if no round count up to `error_log2 / 2` does (then 4^-t is the better
/// bound: use `error_log2.div_ceil(2)` rounds).
pub fn mr_rounds(bits: usize, error_log2: u32) -> Option<usize> {
    if bits < 3 {
        return None;
    }
    let k = bits as f64;
    let max_m = ((2.0 * (k - 1.0).sqrt()) - 1.0).floor() as i64;
    for t in 1..=error_log2.div_ceil(2) as i64 {
        for m in 3..=max_m {
            if log2_bound(k, t, m) < -f64::from(error_log2) {
                return Some(t as usize);
            }
        }
    }
    None
}

/// log2 of the C.1 bound for k bits, t rounds and parameter M, summed in the log domain
/// so that terms far below 2^-1022 neither underflow nor get lost.
fn log2_bound(k: f64, t: i64, big_m: i64) -> f64 {
    let c = 8.0 * (core::f64::consts::PI.powi(2) - 6.0) / 3.0;
    // After factoring out 2^(k - 2): 2^(-M t) + c * sum 2^(e_mj).
    let mut exps = vec![-(big_m * t) as f64];
    for m in 3..=big_m {
        for j in 2..=m {
            exps.push(c.log2() + (m - (m - 1) * t - j) as f64 - (k - 1.0) / j as f64);
        }
    }
    let top = exps.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = exps.iter().map(|e| (e - top).exp2()).sum();
    let lead = (2.00743 * core::f64::consts::LN_2 * k).log2() - 2.0;
    lead + top + sum.log2()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproduces_fips_186_5_table_b1() {
        // (bits, error log2, rounds) from FIPS 186-5 Table B.1.
        let table = [
            (140, 100, 32),
            (140, 112, 38),
            (1024, 100, 4),
            (1024, 112, 5),
            (170, 100, 27),
            (170, 128, 41),
            (1536, 100, 3),
            (1536, 128, 4),
            (200, 100, 22),
            (200, 144, 44),
            (2048, 100, 2),
            (2048, 144, 4),
        ];
        for (bits, err, rounds) in table {
            assert_eq!(mr_rounds(bits, err), Some(rounds), "{bits} bits, 2^-{err}");
        }
        assert_eq!(mr_rounds(2, 100), None);
        // A smaller error needs more rounds; a larger candidate no more.
        assert!(mr_rounds(1024, 128) > mr_rounds(1024, 112));
        assert!(mr_rounds(4096, 144) <= mr_rounds(2048, 144));
    }

    #[test]
    fn generation_rounds_by_size() {
        let rounds = |b| mr_rounds(b, generation_error_log2(b)).unwrap();
        assert_eq!((rounds(1024), rounds(1536), rounds(2048)), (5, 4, 4));
        // Larger primes need no more rounds than 2048-bit ones.
        assert!(rounds(4096) <= 4 && rounds(8192) <= 4);
    }
}
