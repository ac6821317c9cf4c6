//! RSA key generation: FIPS 186-5 appendix A.1.3 ("probable primes") for two primes, and
//! RFC 8017 multi-prime keys with OpenSSL's limits.
//!
//! ```
//! use cryptocard::rng::OsRng;
//! use cryptocard::rsa::{KeyGenOptions, RsaPrivateKey};
//!
//! let opts = KeyGenOptions { primes: 3, ..KeyGenOptions::new(2048) };
//! let key = RsaPrivateKey::generate_with(&opts, &mut OsRng)?;
//! assert_eq!((key.bits(), key.primes().len()), (2048, 3));
//! # Ok::<(), cryptocard::Error>(())
//! ```
//!
//! For an nlen-bit key with u primes (OpenSSL's split: r_i of nlen/u bits, the first
//! nlen mod u of them one bit longer):
//!
//! 1. each r_i is a random probable prime ([`generate_prime`]: sieve, then Miller-Rabin
//!    with the rounds of FIPS 186-5 table B.1) with its top two bits set, so
//!    r_i >= 1.5 * 2^(b-1) > sqrt(2) * 2^(b-1): the A.1.3 step 4.4 / 5.5 lower bound, and a
//!    two-prime product of exactly nlen bits;
//! 2. gcd(e, r_i - 1) = 1 is checked on each sieve survivor before Miller-Rabin (A.1.3
//!    steps 4.5 / 5.6): for e < 2^64 one division by e and a constant-time gcd of two
//!    words, so a candidate that fails costs no exponentiation;
//! 3. for two primes, |p - q| > 2^(nlen/2 - 100) (A.1.3 step 5.4), else q is drawn again;
//!    for u > 2 (outside FIPS 186-5) the primes must differ and the last one is drawn
//!    again until the product has exactly nlen bits;
//! 4. d = e^-1 mod lambda(n), lambda(n) = lcm(r_i - 1) (FIPS 186-5 A.1.1 / B.3.1 3(b)),
//!    and d > 2^(nlen/2) (B.3.1 3(a)), else start over (probability about 2^-(nlen/2));
//! 5. the CRT values d_i = e^-1 mod (r_i - 1), qInv, t_i.
//!
//! Secrets are handled in constant time where the values could leak: the sieve and
//! Miller-Rabin (see [`crate::modular::prime`]), the gcd and lcm of `keygen_arith.rs`,
//! the inverses of e by the small-exponent identity there, qInv and t_i by the
//! constant-time inverse after a Montgomery reduction, the comparisons of steps 3 and 4
//! by masks. What remains visible is how many candidates were tried, which verdict
//! discarded each (a discarded value was drawn from fresh randomness: see
//! `discarded`), and v2(r_i - 1). `crates/ct-valgrind/tests/ct_valgrind.rs` checks it
//! under memcheck.

use super::key::RsaPrivateKey;
use super::keygen_arith::{above_pow2, inverse_small, lcm};
use super::validate::{self, MAX_BITS, MIN_BITS, MIN_NEW_KEY_BITS, PrivateValues};
use crate::bignum::{Nat, abs_diff};
use crate::ct::{self, Choice};
use crate::modular::prime::{PrimeOptions, generate_prime};
use crate::rng::RandomSource;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// The default public exponent, F4 = 2^16 + 1.
pub const DEFAULT_PUBLIC_EXPONENT: u64 = 65537;

/// Attempts at a full key before giving up (each fails with probability ~2^-(nlen/2)).
const MAX_ATTEMPTS: usize = 8;

/// The most primes a key of `bits` bits may have: OpenSSL's `ossl_rsa_multip_cap`
/// (2 below 1024 bits, 3 below 4096, 4 below 8192, then 5).
pub fn max_primes(bits: usize) -> usize {
    match bits {
        0..1024 => 2,
        1024..4096 => 3,
        4096..8192 => 4,
        _ => 5,
    }
}

/// What [`RsaPrivateKey::generate_with`] makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyGenOptions {
    /// The modulus size in bits, 1024 to 16384 (512 with `allow_small`).
    pub bits: usize,
    /// The public exponent: odd, at least 3 (default 65537).
    pub public_exponent: u64,
    /// The number of primes, 2 to [`max_primes`] (default 2).
    pub primes: usize,
    /// Allow keys of 512 to 1023 bits (too small to be secure; for tests and old
    /// systems only).
    pub allow_small: bool,
}

impl KeyGenOptions {
    /// `bits`-bit keys with e = 65537 and two primes.
    pub fn new(bits: usize) -> KeyGenOptions {
        KeyGenOptions {
            bits,
            public_exponent: DEFAULT_PUBLIC_EXPONENT,
            primes: 2,
            allow_small: false,
        }
    }

    fn check(&self) -> Result<()> {
        let min = if self.allow_small { MIN_BITS } else { MIN_NEW_KEY_BITS };
        if !(min..=MAX_BITS).contains(&self.bits) {
            return Err(Error::InvalidArgument(
                "key size must be 1024 to 16384 bits (512 with allow_small)",
            ));
        }
        let e = self.public_exponent;
        if e < 3 || e.is_multiple_of(2) {
            return Err(Error::InvalidArgument("public exponent must be odd and at least 3"));
        }
        if !(2..=max_primes(self.bits)).contains(&self.primes) {
            return Err(Error::InvalidArgument("too many primes for this key size"));
        }
        Ok(())
    }
}

impl RsaPrivateKey {
    /// A new two-prime `bits`-bit key with e = 65537.
    pub fn generate(bits: usize, rng: &mut dyn RandomSource) -> Result<RsaPrivateKey> {
        RsaPrivateKey::generate_with(&KeyGenOptions::new(bits), rng)
    }

    /// A new key as `opts` says (see the module docs for the method).
    pub fn generate_with(
        opts: &KeyGenOptions,
        rng: &mut dyn RandomSource,
    ) -> Result<RsaPrivateKey> {
        opts.check()?;
        for _ in 0..MAX_ATTEMPTS {
            if let Some(key) = attempt(opts, rng)? {
                return Ok(key);
            }
        }
        Err(Error::InvalidArgument("key generation failed repeatedly"))
    }
}

/// gcd(e, r - 1) == 1 for a candidate r, as the prime search's acceptance check: one
/// division of r - 1 by e and a constant-time binary gcd of two words.
fn coprime_to_e(e: u64, r: &Nat) -> bool {
    // r is odd, so r - 1 is r with its low bit cleared; (r - 1) mod e from r mod e.
    let Ok(r_mod) = r.rem_u64(e) else { return false };
    // r_mod - 1, or e - 1 when r_mod = 0, without a branch; `r_mod + e - 1` would
    // overflow for e near 2^64.
    let wrap = 0u64.wrapping_sub(u64::from(r_mod == 0));
    let r1_mod = r_mod.wrapping_sub(1).wrapping_add(e & wrap);
    gcd_u64_ct(r1_mod, e) == 1
}

/// gcd(a, b) for odd b by masked binary steps (a fixed 128 iterations).
fn gcd_u64_ct(mut a: u64, mut b: u64) -> u64 {
    for _ in 0..128 {
        let odd = (a & 1).wrapping_neg();
        let (diff, borrow) = a.overflowing_sub(b & odd);
        let swap = (borrow as u64).wrapping_neg();
        b = b.wrapping_add(diff & swap);
        a = (diff ^ swap).wrapping_sub(swap);
        a >>= 1;
    }
    b
}

/// The prime sizes: OpenSSL's split of `bits` over `u` primes.
fn prime_sizes(bits: usize, u: usize) -> Vec<usize> {
    (0..u).map(|i| bits / u + usize::from(i < bits % u)).collect()
}

/// One attempt; `None` when d came out too small (start over).
fn attempt(opts: &KeyGenOptions, rng: &mut dyn RandomSource) -> Result<Option<RsaPrivateKey>> {
    let e = opts.public_exponent;
    let accept = |r: &Nat| coprime_to_e(e, r);
    let prime_opts = PrimeOptions { accept: Some(&accept), ..PrimeOptions::default() };
    let sizes = prime_sizes(opts.bits, opts.primes);
    let mut primes: Vec<Nat> = Vec::with_capacity(opts.primes);
    let mut product = Nat::one();
    for (i, &size) in sizes.iter().enumerate() {
        let last = i + 1 == sizes.len();
        let r = loop {
            let r = generate_prime(size, &prime_opts, rng)?;
            if opts.primes == 2 && i == 1 && !far_apart(&primes[0], &r, opts.bits) {
                continue;
            }
            if repeats(&primes, &r) || (last && (&product * &r).bits() != opts.bits) {
                continue;
            }
            break r;
        };
        product *= &r;
        primes.push(r);
    }
    // lambda(n) = lcm(r_i - 1) and d = e^-1 mod lambda(n).
    let minus_one: Vec<Nat> = primes.iter().map(|r| r >> 1 << 1).collect();
    let mut lambda = minus_one[0].clone();
    for rm1 in &minus_one[1..] {
        lambda = lcm(&lambda, rm1)?;
    }
    let d = inverse_small(e, &lambda)?;
    if discarded(!above_pow2(d.as_limbs(), opts.bits / 2)) {
        return Ok(None);
    }
    let exponents =
        minus_one.iter().map(|rm1| inverse_small(e, rm1)).collect::<Result<Vec<Nat>>>()?;
    let coefficients = validate::compute_coefficients(&primes)?;
    let values =
        PrivateValues { n: product, e: Nat::from_u64(e), d, primes, exponents, coefficients };
    RsaPrivateKey::assemble(values).map(Some)
}

/// |p - q| > 2^(nlen/2 - 100), in constant time (A.1.3 step 5.4); the verdict is public.
fn far_apart(p: &Nat, q: &Nat, nlen: usize) -> bool {
    let width = p.limb_len().max(q.limb_len());
    let (Ok(p), Ok(q)) = (p.to_limbs_padded(width), q.to_limbs_padded(width)) else {
        return false;
    };
    let (p, q) = (Zeroizing::new(p), Zeroizing::new(q));
    let mut diff = Zeroizing::new(vec![0; width]);
    abs_diff(&mut diff, &p, &q);
    !discarded(!above_pow2(&diff, nlen / 2 - 100))
}

/// Whether `r` equals one of `primes`, in constant time; the verdict is public.
fn repeats(primes: &[Nat], r: &Nat) -> bool {
    let same = |x: &Nat| match x.limb_len() == r.limb_len() {
        true => ct::limbs_eq(x.as_limbs(), r.as_limbs()),
        false => Choice::FALSE,
    };
    discarded(primes.iter().fold(Choice::FALSE, |any, x| any | same(x)))
}

/// A verdict that discards a prime or a whole attempt, made public: the one
/// declassification of those verdicts here. What is discarded is drawn again from fresh
/// randomness, so the verdict says nothing of the key that is kept.
fn discarded(verdict: Choice) -> bool {
    verdict.declassify()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gcd(e, r - 1) for e near 2^64, where `r mod e + e - 1` overflows: against the
    /// bignum gcd, for r mod e of 0, 1, 2 and e - 1.
    #[test]
    fn coprime_to_e_near_two_to_the_64() {
        for e in [u64::MAX, (1 << 63) + 1, 65537] {
            let e_nat = Nat::from_u64(e);
            for k in [0u64, 1, 2, e - 1] {
                // r = 3e + k (made odd by adding 2e when e + k is even; e is odd).
                let mut r = &(&e_nat * &Nat::from_u64(3)) + &Nat::from_u64(k);
                if !r.bit(0) {
                    r = &r + &(&e_nat * &Nat::from_u64(2));
                }
                let r1 = r.sub(&Nat::one()).unwrap();
                let want = r1.gcd(&e_nat) == Nat::one();
                assert_eq!(coprime_to_e(e, &r), want, "e = {e}, r mod e = {k}");
            }
        }
    }

    /// Keys with e = 2^64 - 1 and e = 2^63 + 1 (the largest exponents the options take)
    /// generate, sign and verify, and import: whatever key generation makes is within
    /// the import's bound on e.
    #[test]
    fn largest_public_exponents() {
        let mut rng = crate::rng::OsRng;
        for e in [u64::MAX, (1 << 63) + 1] {
            let opts = KeyGenOptions { public_exponent: e, ..KeyGenOptions::new(1024) };
            let key = RsaPrivateKey::generate_with(&opts, &mut rng).unwrap();
            assert_eq!(key.public_key().e(), &Nat::from_u64(e));
            let hash = crate::digest::HashAlg::Sha256;
            let sig = key.sign_pkcs1v15(hash, b"e near 2^64", &mut rng).unwrap();
            key.public_key().verify_pkcs1v15(hash, b"e near 2^64", &sig).unwrap();
            assert_eq!(RsaPrivateKey::from_pkcs1_der(&key.to_pkcs1_der().unwrap()).unwrap(), key);
        }
    }

    #[test]
    fn small_helpers() {
        for (a, b) in [(0u64, 65537u64), (12, 9), (65536, 65537), (6, 3), (1 << 63, 3)] {
            assert_eq!(gcd_u64_ct(a, b), Nat::from_u64(a).gcd(&Nat::from_u64(b)).to_u64().unwrap());
        }
        assert_eq!(prime_sizes(2048, 2), vec![1024, 1024]);
        assert_eq!(prime_sizes(2048, 3), vec![683, 683, 682]);
        assert_eq!(prime_sizes(1025, 2), vec![513, 512]);
        assert_eq!(
            (max_primes(1023), max_primes(1024), max_primes(4096), max_primes(8192)),
            (2, 3, 4, 5)
        );
        // r = 7: r - 1 = 6, gcd(6, 3) = 3; r = 11: gcd(10, 3) = 1.
        assert!(!coprime_to_e(3, &Nat::from_u64(7)));
        assert!(coprime_to_e(3, &Nat::from_u64(11)));
        assert!(KeyGenOptions { primes: 3, ..KeyGenOptions::new(1023) }.check().is_err());
        assert!(KeyGenOptions { public_exponent: 4, ..KeyGenOptions::new(2048) }.check().is_err());
        assert!(KeyGenOptions::new(512).check().is_err());
        assert!(KeyGenOptions { allow_small: true, ..KeyGenOptions::new(512) }.check().is_ok());
    }
}
