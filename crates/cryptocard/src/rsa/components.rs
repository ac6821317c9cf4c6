//! Private keys from their components, and the recovery of p and q from (n, e, d).
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
//! Each g succeeds with probability at least 1/2, so [`RECOVERY_TRIES`] attempts fail
//! with probability 2^-100 for a real key; a wrong d fails them all. The exponentiation
//! g^r is the constant-time one (r comes from d); the squarings' early exits and the gcd
//! are variable time, on an import that happens once.

use super::key::RsaPrivateKey;
use super::validate::{self, Parts};
use crate::bignum::Nat;
use crate::modular::Modulus;
use crate::{Error, Result};

/// The bases g tried by [`RsaPrivateKey::from_n_e_d`].
const RECOVERY_TRIES: u64 = 100;

impl RsaPrivateKey {
    /// A key from all its values: n, e, d, the primes r_1 = p, r_2 = q, r_3, ..., the CRT
    /// exponents d_i and the coefficients (qInv, then t_3, ...). Every value is checked
    /// ([`super::validate`]); [`Error::InvalidKey`] says which check failed.
    pub fn from_crt_components(
        n: Nat,
        e: Nat,
        d: Nat,
        primes: Vec<Nat>,
        exponents: Vec<Nat>,
        coefficients: Vec<Nat>,
    ) -> Result<RsaPrivateKey> {
        RsaPrivateKey::assemble(validate::private_key(Parts {
            n,
            e,
            d,
            primes,
            exponents: Some(exponents),
            coefficients: Some(coefficients),
        })?)
    }

    /// A key from n, e, d and its primes; the CRT values are computed. Checked as
    /// [`RsaPrivateKey::from_crt_components`].
    pub fn from_components(n: Nat, e: Nat, d: Nat, primes: Vec<Nat>) -> Result<RsaPrivateKey> {
        let parts = Parts { n, e, d, primes, exponents: None, coefficients: None };
        RsaPrivateKey::assemble(validate::private_key(parts)?)
    }

    /// A two-prime key from (n, e, d) alone: p and q are recovered (see the module docs)
    /// and the key is checked as [`RsaPrivateKey::from_components`]. A key with more than
    /// two primes cannot be recovered this way and fails with [`Error::InvalidKey`].
    pub fn from_n_e_d(n: Nat, e: Nat, d: Nat) -> Result<RsaPrivateKey> {
        validate::public_key(&n, &e)?;
        if d.is_zero() || d.is_one() || d >= n {
            return Err(Error::InvalidKey("private exponent out of range"));
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
    let one = m.one::<crate::modular::Mont>();
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
                let p = y_minus_1.gcd(n);
                let (q, rem) = n.div_rem(&p)?;
                if p.is_one() || q.is_one() || !rem.is_zero() {
                    return Err(FAILED);
                }
                return Ok(if p > q { (p, q) } else { (q, p) });
            }
            if x.ct_eq(&minus_one).declassify() {
                break;
            }
            y = x;
        }
    }
    Err(FAILED)
}
