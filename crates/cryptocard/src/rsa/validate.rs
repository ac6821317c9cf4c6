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
//! # What is checked
//!
//! Public key: n odd of [`MIN_BITS`] to [`MAX_BITS`] bits; e odd, 3 <= e < n, of at most
//! [`MAX_PUBLIC_EXPONENT_BITS`] bits whatever the size of n.
//!
//! Private key with primes r_1 = p, r_2 = q, ..., r_u (2 <= u <= [`MAX_PRIMES`]):
//!
//! * every r_i odd, of at least [`MIN_PRIME_BITS`] bits and shorter than n, and
//!   n = r_1 * r_2 * ... * r_u;
//! * 1 < d < n and e*d = 1 mod lambda(n), lambda(n) = lcm(r_1 - 1, ..., r_u - 1) (RFC 8017
//!   3.2: "e * d == 1 (mod lambda(n))");
//! * d_i = d mod (r_i - 1) for every i (dP, dQ, then the d_i of otherPrimeInfos);
//! * qInv < p with q * qInv = 1 mod p, and t_i < r_i with (r_1 ... r_{i-1}) * t_i = 1
//!   mod r_i. These also prove the primes pairwise coprime (a repeated prime has no
//!   inverse), which the CRT needs.
//!
//! Missing CRT values (a caller that has only the primes) are computed; a key with no
//! primes at all can be read only by asking for the recovery of `recover.rs`
//! ([`super::RsaPrivateKey::from_n_e_d`]). Primality of the r_i is not tested (it would
//! cost more than the import is worth; `cryptocard pkey -check` tests it); a composite
//! "prime" that passes the checks above still cannot produce a wrong result, since every
//! private-key result is checked with e before it leaves (the fault check of the private
//! operation).
//!
//! # The bounds, and why
//!
//! * **e of at most 64 bits.** Verification costs one product per bit of e, and so does
//!   each r^e of the private operation's blinding pairs and the fault check on every
//!   result: a 3071-bit e on a 3072-bit key makes each of them as dear as a private
//!   exponentiation. BoringSSL and ring stop at 33 bits and Go at 2^31 - 1, which would
//!   refuse keys that OpenSSL (64 bits above 3072-bit moduli, no limit below) and our own
//!   key generation (any odd e < 2^64, [`super::KeyGenOptions::public_exponent`]) make;
//!   64 bits accepts every key those write, and bounds each use of e to 64 squarings and
//!   as many products. One bound for every size: OpenSSL's `RSA_MAX_PUBEXP_BITS`, which it
//!   applies above 3072 bits only.
//! * **Primes of at least 64 bits.** A prime of a few bits (p = 3) passes the algebra,
//!   but the key cannot work: a random blinding factor shares the factor p with
//!   probability 1/p, so blinding fails over and over. Each prime of 64 bits or more
//!   makes that 2^-63 per prime; the floor refuses no key a generator makes (512-bit
//!   keys have 2 primes of 256 bits, OpenSSL's multi-prime keys at least 1024/3 bits per
//!   prime), and does not try to judge strength, which is the modulus size's job.
//!
//! # Timing
//!
//! The private key's values are secret, so the checks on them run in time that depends
//! on their limb lengths only, and each check's verdict is declassified once:
//!
//! * the product of the primes and n, d's range, and every given value against the one
//!   computed here are compared with `ct::limbs_eq` and `lt_n`, over the reference's limb
//!   length;
//! * d_i = d mod (r_i - 1) and e*d_i mod (r_i - 1) come from the constant-time long
//!   division of `bignum::div_ct` (r_i - 1 is even, so Montgomery reduction does not
//!   apply; BoringSSL's `RSA_check_key` uses `bn_div_consttime` the same way). No lambda is
//!   formed, hence no gcd or lcm: e*d = 1 mod lcm(r_i - 1) exactly when e*d = 1 modulo
//!   every r_i - 1 (the lcm is the least common multiple), and e*d = e*d_i there;
//! * qInv and the t_i are computed by a Montgomery reduction and the constant-time
//!   inverse, then compared.
//!
//! What is not hidden: n and e (public); the bit length and the low bit of each prime
//! (the size and oddness checks; a `Nat` shows its length wherever it goes, and every
//! valid prime is odd); the limb lengths of d and of the given CRT values; which check
//! failed. The recovery of p and q (opt-in) says in `recover.rs` what it shows.

use crate::bignum::{Limb, Nat, div_rem_ct, lt_n, mul::mul_1, shape};
use crate::ct::{self, Choice};
use crate::modular::Modulus;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// The smallest modulus accepted on import, in bits (existing 512-bit keys still verify
/// old signatures; new keys are at least [`MIN_NEW_KEY_BITS`]).
pub const MIN_BITS: usize = 512;
/// The largest modulus, in bits (the modular layer's limit).
pub const MAX_BITS: usize = 16384;
/// The smallest key [`super::keygen`] makes unless asked explicitly.
pub const MIN_NEW_KEY_BITS: usize = 1024;
/// The most primes a key may have (OpenSSL's `RSA_MAX_PRIME_NUM`).
pub const MAX_PRIMES: usize = 5;
/// The longest public exponent, in bits, for every modulus size (see the module docs).
pub const MAX_PUBLIC_EXPONENT_BITS: usize = 64;
/// The shortest prime factor of a private key, in bits (see the module docs).
pub const MIN_PRIME_BITS: usize = 64;
/// The largest modulus whose primes [`super::RsaPrivateKey::from_n_e_d`] recovers, in
/// bits (the bounds of that recovery are argued in `recover.rs`).
pub const MAX_RECOVERY_BITS: usize = 8192;

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
    if e.bits() > MAX_PUBLIC_EXPONENT_BITS {
        return Err(Error::InvalidKey("public exponent longer than 64 bits"));
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
    for r in &primes {
        prime_size(r, &n)?;
    }
    let product = primes.iter().fold(Nat::one(), |acc, r| &acc * r);
    if !eq_padded(&product, n.as_limbs()).declassify() {
        return Err(Error::InvalidKey("the primes do not multiply to the modulus"));
    }
    const D_RANGE: Error = Error::InvalidKey("private exponent out of range");
    let d_limbs = Zeroizing::new(d.to_limbs_padded(n.limb_len()).map_err(|_| D_RANGE)?);
    if !(above_one(&d_limbs) & lt_n(&d_limbs, n.as_limbs())).declassify() {
        return Err(D_RANGE);
    }
    let e_limb = e.to_u64().ok_or(Error::InvalidKey("public exponent longer than 64 bits"))?;
    let expected = crt_exponents(&d_limbs, e_limb, &primes)?;
    let exponents = match exponents {
        Some(given) if !same_values(&given, &expected, primes.iter()) => {
            return Err(Error::InvalidKey("a CRT exponent is not d mod (r_i - 1)"));
        }
        _ => expected,
    };
    // qInv is modulo p, t_i modulo r_i (i >= 3).
    let computed = compute_coefficients(&primes)?;
    let moduli = primes[..1].iter().chain(&primes[2..]);
    let coefficients = match coefficients {
        Some(given) if !same_values(&given, &computed, moduli) => {
            return Err(Error::InvalidKey("a CRT coefficient (qInv or t_i) is wrong"));
        }
        _ => computed,
    };
    Ok(PrivateValues { n, e, d, primes, exponents, coefficients })
}

/// The public checks on one prime factor: odd, at least [`MIN_PRIME_BITS`], shorter
/// than n. They read its bit length and its low bit only.
fn prime_size(r: &Nat, n: &Nat) -> Result<()> {
    if !shape::odd(r.as_limbs()) {
        return Err(Error::InvalidKey("a prime factor is even"));
    }
    if r.bits() < MIN_PRIME_BITS {
        return Err(Error::InvalidKey("a prime factor is shorter than 64 bits"));
    }
    if r.bits() >= n.bits() {
        return Err(Error::InvalidKey("a prime factor is as large as the modulus"));
    }
    Ok(())
}

/// d_i = d mod (r_i - 1) for every prime, after checking e*d_i = 1 mod (r_i - 1) for
/// each (e*d = 1 mod lambda(n); see the module docs). Constant time in d and the r_i; one
/// verdict for all primes.
fn crt_exponents(d: &[Limb], e: Limb, primes: &[Nat]) -> Result<Vec<Nat>> {
    let mut inverts = Choice::TRUE;
    let mut out = Vec::with_capacity(primes.len());
    for r in primes {
        // r is odd: r - 1 is r with its low bit cleared.
        let mut m = Zeroizing::new(r.as_limbs().to_vec());
        m[0] &= !1;
        let (_, d_i) = div_rem_ct(d, &m);
        let mut ed = Zeroizing::new(vec![0; m.len() + 1]);
        ed[m.len()] = mul_1(&mut ed[..m.len()], &d_i, e);
        let (_, rem) = div_rem_ct(&ed, &m);
        inverts = inverts & ct::limbs_eq(&rem, one(rem.len()).as_slice());
        out.push(Nat::from_slice(&d_i));
    }
    if !inverts.declassify() {
        return Err(Error::InvalidKey("e*d is not 1 mod lcm(r_i - 1): wrong private exponent"));
    }
    Ok(out)
}

/// 1 in `len` limbs.
fn one(len: usize) -> Vec<Limb> {
    let mut v = vec![0; len];
    v[0] = 1;
    v
}

/// x > 1, in constant time.
fn above_one(x: &[Limb]) -> Choice {
    let high = x[1..].iter().fold(0, |acc, &l| acc | l);
    !(ct::is_zero(high) & ct::lt(x[0], 2))
}

/// x = reference, in constant time over the reference's length (a longer x is unequal,
/// which shows only that it is longer).
fn eq_padded(x: &Nat, reference: &[Limb]) -> Choice {
    match x.to_limbs_padded(reference.len()) {
        Ok(x) => ct::limbs_eq(&Zeroizing::new(x), reference),
        Err(_) => Choice::FALSE,
    }
}

/// Whether `given` holds the values of `computed`, each compared in constant time at the
/// limb width of its modulus (`moduli`, in order), with one verdict for all.
fn same_values<'a>(given: &[Nat], computed: &[Nat], moduli: impl Iterator<Item = &'a Nat>) -> bool {
    let at_width = |x: &Nat, width: usize| x.to_limbs_padded(width).map(Zeroizing::new);
    given.len() == computed.len()
        && given
            .iter()
            .zip(computed)
            .zip(moduli)
            .fold(Choice::TRUE, |ok, ((g, c), r)| match at_width(c, r.limb_len()) {
                Ok(c) => ok & eq_padded(g, &c),
                Err(_) => Choice::FALSE,
            })
            .declassify()
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
