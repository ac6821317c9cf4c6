//! The recovery of p and q from (n, e, d): opt-in, and bounded.
//!
//! RFC 8017 section 3.2 allows a private key as (n, d) alone; it does not say how to get
//! the CRT form back. NIST SP 800-56B rev. 2, appendix C.2 does ("probabilistic prime
//! factor recovery"), after Miller's observation that knowing d factors n:
//!
//! 1. k = d*e - 1 is a multiple of lambda(n), so even; write k = 2^t * r with r odd.
//! 2. For g = 2, 3, 4, ...: y = g^r mod n. If y is 1 or n - 1, try the next g. Else
//!    square y up to t times: if some y^2 = 1 while y != +-1, then y is a non-trivial
//!    square root of 1 and p = gcd(y - 1, n); if y^2 = n - 1, try the next g.
//!
//! # Why it is opt-in, and its bounds
//!
//! Each try costs an exponentiation modulo n with an exponent as long as n, and a file
//! chooses n: before these bounds, a key with n = p^32 (16,381 bits) and zero CRT fields
//! cost every command that read it a hundred exponentiations of that size. So a parser
//! recovers only when asked ([`super::KeyParseOptions::recover_primes`]), and
//! [`RsaPrivateKey::from_n_e_d`], the function that does it, caps the work before it
//! starts:
//!
//! * n of at most [`MAX_RECOVERY_BITS`] bits (8192, twice the largest key in common use),
//!   so one try is at most one 8192-bit exponentiation;
//! * n not a perfect power (`bignum::root`, a test on the public n): for n = p^k the
//!   group of units is cyclic, 1 has no square root but +-1, and every try fails; the
//!   test sends such a key away with its own error before the first try;
//! * at most [`RECOVERY_TRIES`] = 40 bases. SP 800-56B rev. 2, appendix C.2, argues that
//!   each random g succeeds with probability at least 1/2 for a two-prime n with a right
//!   d, so 40 tries fail with probability at most 2^-40. The bases here are the fixed
//!   2, 3, ..., 41, so a key made on purpose can make them all fail (p and q that agree on
//!   every small base's Legendre symbol); the cap, not the probability, is then what
//!   bounds the work: 40 exponentiations modulo an n of at most 8192 bits.
//!
//! # What it shows
//!
//! g^r is the constant-time exponentiation and gcd(y - 1, n) the constant-time binary
//! gcd of `keygen_arith.rs`; q = n / p comes from the constant-time division of
//! `bignum::div_ct`. What the timing shows is the number of tries and, within a try, the
//! number of squarings before y^2 = 1: that is t and the 2-adic valuations of the
//! orders of g mod p and mod q, the same v2(p - 1), v2(q - 1) that Miller-Rabin's timing
//! shows during key generation and `pkey -check`, and a few bits at most. The caller
//! asked for this recovery, once, on a key file that held d in the clear.

use super::key::RsaPrivateKey;
use super::keygen_arith::gcd_odd;
use super::validate::{self, MAX_RECOVERY_BITS};
use crate::bignum::{Nat, div_rem_ct, lt_n};
use crate::ct;
use crate::modular::{Modulus, Mont};
use crate::{Error, Result};
use zeroize::Zeroizing;

/// The most bases g tried (see the module docs).
pub(crate) const RECOVERY_TRIES: u64 = 40;

impl RsaPrivateKey {
    /// A two-prime key from (n, e, d) alone: p and q are recovered (NIST SP 800-56B
    /// rev. 2, appendix C.2) and the key is checked as
    /// [`RsaPrivateKey::from_components`]. The work is bounded: n of at most
    /// [`MAX_RECOVERY_BITS`] bits, not a perfect power, at most 40 tries; see
    /// `recover.rs` for why. A key with more than two primes cannot be recovered this way.
    /// Fails with [`Error::InvalidKey`] (or [`Error::Unsupported`] for too large an n).
    pub fn from_n_e_d(n: Nat, e: Nat, d: Nat) -> Result<RsaPrivateKey> {
        validate::public_key(&n, &e)?;
        if n.bits() > MAX_RECOVERY_BITS {
            return Err(Error::Unsupported(
                "recovering p and q of a modulus over 8192 bits (give the CRT values)",
            ));
        }
        if d.is_zero() || d.is_one() || d >= n {
            return Err(Error::InvalidKey("private exponent out of range"));
        }
        if n.is_perfect_power_vartime() {
            return Err(Error::InvalidKey("the modulus is a perfect power, not p*q"));
        }
        let (p, q) = recover_primes(&n, &e, &d)?;
        RsaPrivateKey::from_components(n, e, d, vec![p, q])
    }
}

/// p > q with p*q = n, from (n, e, d) by SP 800-56B rev. 2 C.2.
fn recover_primes(n: &Nat, e: &Nat, d: &Nat) -> Result<(Nat, Nat)> {
    const FAILED: Error =
        Error::InvalidKey("cannot factor the modulus with this d: wrong d or not two primes");
    let k = (d * e).sub(&Nat::one())?;
    let t = k.trailing_zeros().ok_or(FAILED)?;
    if t == 0 {
        return Err(FAILED);
    }
    let r = &k >> t;
    let m: Modulus = Modulus::from_nat(n)?;
    let one = m.one::<Mont>();
    let minus_one = m.neg(&one);
    // A cheap first test: for a right d, 2^(e*d - 1) = 1 mod n. A wrong d then costs one
    // exponentiation instead of RECOVERY_TRIES of them.
    let two = m.to_mont(&m.elem_from_nat(&Nat::from_u64(2))?);
    if !m.pow(&two, &k).ct_eq(&one).declassify() {
        return Err(FAILED);
    }
    for g in 2..2 + RECOVERY_TRIES {
        let base = m.to_mont(&m.elem_from_nat(&Nat::from_u64(g))?);
        let mut y = m.pow(&base, &r);
        if y.ct_eq(&one).declassify() || y.ct_eq(&minus_one).declassify() {
            continue;
        }
        for _ in 0..t {
            let x = m.sqr(&y);
            if x.ct_eq(&one).declassify() {
                // y^2 = 1 and y != +-1: gcd(y - 1, n) is a proper factor.
                let y_minus_1 = m.from_mont(&m.sub(&y, &one)).to_nat();
                return split(n, &gcd_odd(&y_minus_1, n)).ok_or(FAILED);
            }
            if x.ct_eq(&minus_one).declassify() {
                break;
            }
            y = x;
        }
    }
    Err(FAILED)
}

/// (max(p, q), min(p, q)) for a proper factor p of n and q = n / p, by the constant-time
/// division; `None` if p is not a proper factor.
fn split(n: &Nat, p: &Nat) -> Option<(Nat, Nat)> {
    if p.is_zero() || p.is_one() || p == n {
        return None;
    }
    let (q, rem) = div_rem_ct(n.as_limbs(), p.as_limbs());
    if !ct::is_zero(rem.iter().fold(0, |acc, &l| acc | l)).declassify() {
        return None;
    }
    // Which of the two gcd(y - 1, n) found is one public bit; their values stay hidden.
    let p_padded = Zeroizing::new(p.to_limbs_padded(q.len()).ok()?);
    let p_larger = lt_n(&q, &p_padded).declassify();
    let q = Nat::from_slice(&q);
    Some(if p_larger { (p.clone(), q) } else { (q, p.clone()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_checks_the_factor() {
        let n = Nat::from_u64(3 * 5 * 7);
        assert_eq!(split(&n, &Nat::from_u64(7)), Some((Nat::from_u64(15), Nat::from_u64(7))));
        assert_eq!(split(&n, &Nat::from_u64(35)), Some((Nat::from_u64(35), Nat::from_u64(3))));
        assert_eq!(split(&n, &Nat::from_u64(11)), None);
        assert_eq!(split(&n, &Nat::one()), None);
        assert_eq!(split(&n, &n), None);
        assert_eq!(split(&n, &Nat::zero()), None);
    }
}
