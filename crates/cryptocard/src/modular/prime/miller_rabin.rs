//! The Miller-Rabin test, as FIPS 186-5 B.3.1 states it.
//!
//! Write w - 1 = 2^a m with m odd. A base b is a *witness* that w is composite unless
//! b^m = 1 or b^(m 2^j) = -1 (mod w) for some 0 <= j < a: for a prime w, the sequence
//! b^m, b^2m, ..., b^(w-1) = 1 reaches 1, and the only square roots of 1 mod a prime are
//! +-1, so the element before the first 1 is -1 (or the sequence starts at 1). At most a
//! quarter of the bases in [1, w-1] are non-witnesses for an odd composite w (Rabin).
//!
//! [`MillerRabin::is_witness`] is constant time: b^m by the fixed-window
//! [`Modulus::pow`] (or, on a CPU with AVX-512 IFMA and for w of 512 to 4096 bits, by
//! the IFMA kernels' fixed window, `exp_one`: one slot of x2, faster than the scalar
//! core even with the other slot's work wasted), then all a - 1 squarings
//! with the outcome collected in masks. Both give the same result. It
//! leaks a, the number of trailing zero bits of w - 1 (on average 2 bits of w), and the
//! final verdict. Key generation uses it, so a candidate that becomes a prime leaks no
//! more than that through the test. [`MillerRabin::is_witness_vartime`] uses the
//! sliding-window [`Modulus::pow_vartime`] and stops early: for public numbers.

#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{
    cpu::Ifma,
    ifma::sized::{SecretParams52, digits_for_limbs},
};
use crate::bignum::{LIMB_BITS, Limb, Nat, lt_n};
use crate::ct::{self, Choice};
use crate::modular::{Elem, Modulus, Mont};
use crate::rng::RandomSource;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// Miller-Rabin state for one odd w >= 3: the modulus, m and a with w - 1 = 2^a m, and
/// the Montgomery forms of 1 and -1. Its `Debug` shows the size of w only: w is often a
/// candidate for a secret prime.
pub struct MillerRabin {
    w: Modulus,
    bits: usize,
    m: Nat,
    a: usize,
    one: Elem<crate::modular::Anon, Mont>,
    minus_one: Elem<crate::modular::Anon, Mont>,
    /// w's parameters for the IFMA kernels (zeroized on drop, as a secret prime's) and m
    /// padded to w's length (the kernel's window count follows the slice's, so it shows
    /// no more than w's length), where the CPU has them and w's length has a digit count.
    #[cfg(target_arch = "x86_64")]
    ifma: Option<(Ifma, SecretParams52, Zeroizing<Vec<Limb>>)>,
}

impl core::fmt::Debug for MillerRabin {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MillerRabin").field("bits", &self.bits).finish_non_exhaustive()
    }
}

impl MillerRabin {
    /// Prepares the test of `w`; fails with [`Error::InvalidArgument`] unless w is odd
    /// and at least 3 (and at most [`crate::modular::MAX_BITS`] bits).
    pub fn new(w: &Nat) -> Result<MillerRabin> {
        let modulus: Modulus = Modulus::from_nat(w)?;
        let limbs = w.as_limbs();
        // w is odd, so w - 1 only clears bit 0: a >= 1 counts the zeros from bit 1 up.
        // w - 1 of a candidate that may become a secret prime: wiped on drop.
        let mut w1 = Zeroizing::new(limbs.to_vec());
        w1[0] &= !1;
        let a = two_adic_order(&w1);
        let m = Nat::from_limbs(shift_right(&w1, a));
        let one = modulus.one::<Mont>();
        let minus_one = modulus.neg(&one);
        #[cfg(target_arch = "x86_64")]
        let ifma = Ifma::detect().and_then(|token| {
            let d = digits_for_limbs(modulus.limbs())?;
            let rr = modulus.radix_square(52 * d);
            let params = SecretParams52::new(modulus.as_limbs(), rr.as_limbs(), d).ok()?;
            let mut m = Zeroizing::new(m.as_limbs().to_vec());
            m.resize(modulus.limbs(), 0);
            Some((token, params, m))
        });
        Ok(MillerRabin {
            bits: w.bits(),
            w: modulus,
            m,
            a,
            one,
            minus_one,
            #[cfg(target_arch = "x86_64")]
            ifma,
        })
    }

    /// a, the exponent of 2 in w - 1 = 2^a m.
    pub fn two_adic_order(&self) -> usize {
        self.a
    }

    /// True when `b` is a witness that w is composite. `b` is reduced mod w first and
    /// should not be 0 mod w (0 counts as a witness: 0^m = 0 is neither 1 nor -1); +-1
    /// are never witnesses. Constant time except for a (see the module docs).
    pub fn is_witness(&self, b: &Nat) -> bool {
        let b = self.w.elem_reduce(b);
        let mut z = self.pow_m(&b);
        let mut passes = z.ct_eq(&self.one) | z.ct_eq(&self.minus_one);
        for _ in 1..self.a {
            z = self.w.sqr(&z);
            passes = passes | z.ct_eq(&self.minus_one);
        }
        !passes.declassify()
    }

    /// b^m in Montgomery form, in constant time: on the IFMA kernels where w has
    /// parameters there, else on the core.
    fn pow_m(
        &self,
        b: &Elem<crate::modular::Anon, crate::modular::Plain>,
    ) -> Elem<crate::modular::Anon, Mont> {
        #[cfg(target_arch = "x86_64")]
        if let Some((ifma, params, m)) = &self.ifma {
            let mut z = vec![0; self.w.limbs()].into_boxed_slice();
            if params.exp_one(*ifma, &mut z, b.as_limbs(), m).is_ok() {
                // An `Elem` wipes its limbs when dropped.
                return self.w.to_mont(&Elem::from_boxed(z));
            }
        }
        self.w.pow(&self.w.to_mont(b), &self.m)
    }

    /// True when `b` is a witness that w is composite, by variable-time exponentiation;
    /// leaks w, b and the verdict through timing. For public numbers only.
    pub fn is_witness_vartime(&self, b: &Nat) -> bool {
        let base = self.w.to_mont(&self.w.elem_reduce(b));
        let mut z = self.w.pow_vartime(&base, &self.m);
        if (z.ct_eq(&self.one) | z.ct_eq(&self.minus_one)).declassify() {
            return false;
        }
        for _ in 1..self.a {
            z = self.w.sqr(&z);
            if z.ct_eq(&self.minus_one).declassify() {
                return false;
            }
            if z.ct_eq(&self.one).declassify() {
                return true;
            }
        }
        true
    }

    /// One round with a uniformly random base in [2, w - 2] (FIPS 186-5 B.3.1 step 4):
    /// true when w passes (is a probable prime so far). For w = 3 there is no such base
    /// and 3 passes.
    pub fn passes_random_round(&self, rng: &mut dyn RandomSource) -> Result<bool> {
        Ok(match self.random_base(rng)? {
            Some(b) => !self.is_witness(&b),
            None => true,
        })
    }

    /// As [`MillerRabin::passes_random_round`], by [`MillerRabin::is_witness_vartime`].
    pub fn passes_random_round_vartime(&self, rng: &mut dyn RandomSource) -> Result<bool> {
        Ok(match self.random_base(rng)? {
            Some(b) => !self.is_witness_vartime(&b),
            None => true,
        })
    }

    /// A uniformly random b with 1 < b < w - 1 (`None` for w = 3), by rejection from
    /// strings of w's bit length (FIPS 186-5 B.3.1 steps 4.1-4.2).
    fn random_base(&self, rng: &mut dyn RandomSource) -> Result<Option<Nat>> {
        if self.bits <= 2 {
            return Ok(None);
        }
        let bytes = self.bits.div_ceil(8);
        let mut buf = vec![0u8; bytes];
        let mut w_minus_1 = self.w.as_limbs().to_vec();
        w_minus_1[0] -= 1; // w is odd
        let w_minus_1 = Nat::from_limbs(w_minus_1);
        // Each draw succeeds with probability above 1/2 - 2^-(bits-2); 256 failures in a
        // row mean the source is broken.
        for _ in 0..256 {
            rng.fill_bytes(&mut buf)?;
            buf[0] &= 0xff >> (8 * bytes - self.bits);
            let b = Nat::from_be_bytes(&buf);
            if in_range(&b, &w_minus_1) {
                return Ok(Some(b));
            }
        }
        Err(Error::Rng)
    }
}

/// The 2-adic order of a non-zero even x = w - 1 (its trailing zero bits), computed in
/// constant time and made public: the one declassification of a, which the test's
/// squarings show anyway (see the module docs). Key generation's lcm(p - 1, q - 1)
/// takes the same value from here.
pub(crate) fn two_adic_order(x: &[Limb]) -> usize {
    let (mut order, mut found) = (0, Choice::FALSE);
    for (i, &l) in x.iter().enumerate() {
        let here = (i * LIMB_BITS) as Limb + Limb::from(l.trailing_zeros());
        let first = !found & !ct::is_zero(l);
        order = first.select(here, order);
        found = found | first;
    }
    ct::declassify(order) as usize
}

/// 1 < b < w - 1, in constant time: the verdict of the base's rejection sampling, made
/// public. A redrawn base shows only that a random string fell outside the range (an
/// event whose probability, below 1/2, depends on w's top bits, which its size fixes).
fn in_range(b: &Nat, w_minus_1: &Nat) -> bool {
    let width = w_minus_1.limb_len();
    let Ok(b) = b.to_limbs_padded(width).map(Zeroizing::new) else { return false };
    let above_one = !ct::is_zero(b[1..].iter().fold(b[0] & !1, |acc, &l| acc | l));
    (above_one & lt_n(&b, w_minus_1.as_limbs())).declassify()
}

/// x >> s for `s` below the bit length of x.
fn shift_right(x: &[Limb], s: usize) -> Vec<Limb> {
    let (limbs, bits) = (s / LIMB_BITS, s % LIMB_BITS);
    let src = &x[limbs..];
    (0..src.len())
        .map(|i| {
            let lo = src[i] >> bits;
            let hi =
                if bits > 0 { src.get(i + 1).map_or(0, |&h| h << (LIMB_BITS - bits)) } else { 0 };
            lo | hi
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// b^m on the IFMA kernels is the core's, for w of every digit count and lengths
    /// between them, primes and composites, at b = 0, 1, w - 1 and random b; and the
    /// verdicts are right on a prime and on a product of two primes.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn ifma_power_matches_the_core() {
        if Ifma::detect().is_none() {
            eprintln!("skipped: no AVX-512 IFMA on this CPU");
            return;
        }
        let mut rng = crate::rng::OsRng;
        for bits in [512, 700, 1024, 1536, 2048, 2560, 3072, 4096] {
            let mut w = Nat::random_bits(bits, &mut rng).unwrap();
            w.set_bit(0, true);
            w.set_bit(bits - 1, true);
            let mr = MillerRabin::new(&w).unwrap();
            assert!(mr.ifma.is_some(), "{bits} bits have a digit count");
            let w1 = w.sub(&Nat::one()).unwrap();
            let mut bases = vec![Nat::zero(), Nat::one(), w1];
            bases.extend((0..3).map(|_| Nat::random_below(&w, &mut rng).unwrap()));
            for b in &bases {
                let b = mr.w.elem_reduce(b);
                let want = mr.w.pow(&mr.w.to_mont(&b), &mr.m);
                assert_eq!(mr.pow_m(&b).as_limbs(), want.as_limbs(), "{bits} bits");
            }
        }
        let p = crate::modular::prime::generate_prime(1024, &Default::default(), &mut rng).unwrap();
        let q = crate::modular::prime::generate_prime(1024, &Default::default(), &mut rng).unwrap();
        let (prime, composite) =
            (MillerRabin::new(&p).unwrap(), MillerRabin::new(&(&p * &q)).unwrap());
        for _ in 0..4 {
            let b = Nat::random_below(&p, &mut rng).unwrap();
            assert!(!prime.is_witness(&b));
            assert!(composite.is_witness(&b));
        }
        // Past 4096 bits the core runs it.
        let mut w = Nat::random_bits(4160, &mut rng).unwrap();
        w.set_bit(0, true);
        assert!(MillerRabin::new(&w).unwrap().ifma.is_none());
    }

    #[test]
    fn small_numbers_by_every_base() {
        // w is prime exactly when no base in [1, w-1] is a witness.
        for w in (3u64..400).step_by(2) {
            let mr = MillerRabin::new(&Nat::from_u64(w)).unwrap();
            let is_prime = (2..w).take_while(|d| d * d <= w).all(|d| w % d != 0);
            let witnesses = (1..w).filter(|&b| mr.is_witness(&Nat::from_u64(b))).count();
            assert_eq!(witnesses == 0, is_prime, "w = {w}");
            for b in 1..w {
                let b = Nat::from_u64(b);
                assert_eq!(mr.is_witness(&b), mr.is_witness_vartime(&b), "w = {w}");
            }
        }
    }

    #[test]
    fn decomposes_w_minus_1() {
        let mr = MillerRabin::new(&Nat::from_limbs(vec![1, 1 << 5])).unwrap();
        // w - 1 = 2^69: a = 69, m = 1.
        assert_eq!(mr.two_adic_order(), 69);
        assert!(mr.m.is_one());
        assert!(MillerRabin::new(&Nat::from_u64(9)).is_ok());
        assert!(MillerRabin::new(&Nat::from_u64(10)).is_err());
        assert!(MillerRabin::new(&Nat::from_u64(1)).is_err());
    }
}
