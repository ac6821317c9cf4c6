//! Key validation on import and on generation (RFC 8017 sections 3.1 and 3.2): checks on
//! numbers only. What this file accepts, the key's constructor (`key.rs`,
//! `RsaPrivateKey::assemble`) turns into a key with its precomputations.
//!
//! ```
//! use cryptocard::bignum::Nat;
//! use cryptocard::rsa::RsaPublicKey;
//!
//! // An even modulus is not an RSA modulus, whatever its size.
//! let n = Nat::from_be_bytes(&[0xc0; 256]);
//! assert!(RsaPublicKey::new(n, Nat::from_u64(65537)).is_err());
//! ```
//!
//! Public key: n odd of [`MIN_BITS`] to [`MAX_BITS`] bits; e odd, 3 <= e < n, at most
//! 64 bits when n has more than 3072 bits (OpenSSL's `RSA_MAX_PUBEXP_BITS` rule, which
//! keeps verification cheap).
//!
//! Private key with primes r_1 = p, r_2 = q, ..., r_u (2 <= u <= [`MAX_PRIMES`]):
//!
//! * every r_i odd and > 1, and n = r_1 * r_2 * ... * r_u;
//! * 1 < d < n and e*d = 1 mod lambda(n), lambda(n) = lcm(r_1 - 1, ..., r_u - 1) (RFC 8017
//!   3.2: "e * d == 1 (mod lambda(n))");
//! * d_i = d mod (r_i - 1) for every i (dP, dQ, then the d_i of otherPrimeInfos);
//! * qInv < p with q * qInv = 1 mod p, and t_i < r_i with (r_1 ... r_{i-1}) * t_i = 1
//!   mod r_i. These also prove the primes pairwise coprime (a repeated prime has no
//!   inverse), which the CRT needs.
//!
//! Missing CRT values (a caller that has only the primes) are computed; a key with no
//! primes at all goes through the recovery of `components.rs` first. Primality of the r_i is not
//! tested (it would cost more than the import is worth); a composite "prime" that passes
//! the checks above still cannot produce a wrong result, since every private-key result
//! is checked with e before it leaves (the fault check of the private operation).
//!
//! Timing: these checks use `Nat` arithmetic (products, division, gcd), which is variable
//! time in the values; they run once per key, on data the caller just handed over.

use crate::bignum::Nat;
use crate::modular::Modulus;
use crate::{Error, Result};

/// The smallest modulus accepted on import, in bits (existing 512-bit keys still verify
/// old signatures; new keys are at least [`MIN_NEW_KEY_BITS`]).
pub const MIN_BITS: usize = 512;
/// The largest modulus, in bits (the modular layer's limit).
pub const MAX_BITS: usize = 16384;
/// The smallest key [`super::keygen`] makes unless asked explicitly.
pub const MIN_NEW_KEY_BITS: usize = 1024;
/// The most primes a key may have (OpenSSL's `RSA_MAX_PRIME_NUM`).
pub const MAX_PRIMES: usize = 5;
/// Moduli above this size take public exponents of at most [`MAX_LARGE_PUBEXP_BITS`]
/// (OpenSSL's `OPENSSL_RSA_SMALL_MODULUS_BITS` and `OPENSSL_RSA_MAX_PUBEXP_BITS`).
const SMALL_MODULUS_BITS: usize = 3072;
const MAX_LARGE_PUBEXP_BITS: usize = 64;

/// Checks a public key (n, e).
pub(crate) fn public_key(n: &Nat, e: &Nat) -> Result<()> {
    let bits = n.bits();
    if bits < MIN_BITS {
        return Err(Error::InvalidKey("modulus smaller than 512 bits"));
    }
    if bits > MAX_BITS {
        return Err(Error::InvalidKey("modulus larger than 16384 bits"));
    }
    if n.is_even() {
        return Err(Error::InvalidKey("modulus is even"));
    }
    if e.is_even() {
        return Err(Error::InvalidKey("public exponent is even"));
    }
    if e.is_one() {
        return Err(Error::InvalidKey("public exponent is 1"));
    }
    if e >= n {
        return Err(Error::InvalidKey("public exponent is not less than the modulus"));
    }
    if bits > SMALL_MODULUS_BITS && e.bits() > MAX_LARGE_PUBEXP_BITS {
        return Err(Error::InvalidKey("public exponent over 64 bits for a modulus over 3072 bits"));
    }
    Ok(())
}

/// The parts of a private key as they arrive from a file or a caller.
pub(crate) struct Parts {
    pub n: Nat,
    pub e: Nat,
    pub d: Nat,
    pub primes: Vec<Nat>,
    /// d_i, or `None` to compute them.
    pub exponents: Option<Vec<Nat>>,
    /// qInv and the t_i, or `None` to compute them.
    pub coefficients: Option<Vec<Nat>>,
}

/// The values of a private key, every one present: checked by [`private_key`], or right by
/// construction (key generation).
pub(crate) struct PrivateValues {
    pub n: Nat,
    pub e: Nat,
    pub d: Nat,
    /// r_1 = p, r_2 = q, r_3, ..., r_u.
    pub primes: Vec<Nat>,
    /// d_i = d mod (r_i - 1), in the order of `primes`.
    pub exponents: Vec<Nat>,
    /// qInv, then t_3, ..., t_u.
    pub coefficients: Vec<Nat>,
}

/// Validates `parts` (see the module docs) and computes the CRT values it lacks.
pub(crate) fn private_key(parts: Parts) -> Result<PrivateValues> {
    let Parts { n, e, d, primes, exponents, coefficients } = parts;
    public_key(&n, &e)?;
    let u = primes.len();
    if !(2..=MAX_PRIMES).contains(&u) {
        return Err(Error::InvalidKey("a key has 2 to 5 primes"));
    }
    let mut product = Nat::one();
    for r in &primes {
        if r.is_even() || r.is_one() || r.is_zero() {
            return Err(Error::InvalidKey("a prime factor is even or 1"));
        }
        if r.bits() >= n.bits() {
            return Err(Error::InvalidKey("a prime factor is as large as the modulus"));
        }
        product *= r;
    }
    if product != n {
        return Err(Error::InvalidKey("the primes do not multiply to the modulus"));
    }
    if d.is_zero() || d.is_one() || d >= n {
        return Err(Error::InvalidKey("private exponent out of range"));
    }
    // lambda(n) = lcm(r_i - 1); e*d = 1 mod lambda(n).
    let mut lambda = Nat::one();
    let mut r_minus_1 = Vec::with_capacity(u);
    for r in &primes {
        let rm1 = r.sub(&Nat::one())?;
        lambda = lambda.lcm(&rm1);
        r_minus_1.push(rm1);
    }
    let ed = (&e * &d).rem(&lambda)?;
    if !ed.is_one() {
        return Err(Error::InvalidKey("e*d is not 1 mod lcm(r_i - 1): wrong private exponent"));
    }
    let expected: Vec<Nat> =
        r_minus_1.iter().map(|rm1| d.rem(rm1)).collect::<Result<Vec<Nat>>>()?;
    let exponents = match exponents {
        None => expected,
        Some(given) => {
            if given.len() != u || given != expected {
                return Err(Error::InvalidKey("a CRT exponent is not d mod (r_i - 1)"));
            }
            given
        }
    };
    let coefficients = match coefficients {
        None => compute_coefficients(&primes)?,
        Some(given) => {
            check_coefficients(&primes, &given)?;
            given
        }
    };
    Ok(PrivateValues { n, e, d, primes, exponents, coefficients })
}

/// qInv = q^-1 mod p and t_i = (r_1 ... r_{i-1})^-1 mod r_i, by the constant-time
/// inverse after a constant-time reduction (key generation uses it too).
pub(crate) fn compute_coefficients(primes: &[Nat]) -> Result<Vec<Nat>> {
    const NOT_COPRIME: Error = Error::InvalidKey("the primes are not pairwise coprime");
    let inverse = |x: &Nat, m: &Nat| -> Result<Nat> {
        let modulus: Modulus = Modulus::from_nat(m).map_err(|_| NOT_COPRIME)?;
        let reduced = modulus.elem_reduce(x).to_nat();
        reduced.mod_inverse_odd(m).map_err(|_| NOT_COPRIME)
    };
    let mut out = vec![inverse(&primes[1], &primes[0])?];
    let mut prefix = &primes[0] * &primes[1];
    for r in &primes[2..] {
        out.push(inverse(&prefix, r)?);
        prefix *= r;
    }
    Ok(out)
}

/// Checks given CRT coefficients (see the module docs).
fn check_coefficients(primes: &[Nat], given: &[Nat]) -> Result<()> {
    const BAD: Error = Error::InvalidKey("a CRT coefficient (qInv or t_i) is wrong");
    // c < m and value * c = 1 mod m.
    let inverts = |c: &Nat, value: &Nat, m: &Nat| -> Result<bool> {
        Ok(c < m && (value * c).rem(m)?.is_one())
    };
    if given.len() != primes.len() - 1 || !inverts(&given[0], &primes[1], &primes[0])? {
        return Err(BAD);
    }
    let mut prefix = &primes[0] * &primes[1];
    for (t, r) in given[1..].iter().zip(&primes[2..]) {
        if !inverts(t, &prefix, r)? {
            return Err(BAD);
        }
        prefix *= r;
    }
    Ok(())
}
