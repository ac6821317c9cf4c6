//! RSA's use of the IFMA kernels: which keys run on them, in which digit count, when an
//! 8-lane batch pays, and a key's parameters in radix 2^52 ([`IfmaKey`]).
//!
//! # Size classes
//!
//! The kernels are compiled for a few digit counts (`arch::x86_64::ifma::sized::DIGITS`);
//! a count of `D` digits holds a modulus of at most `52 D - 2` bits. A prime runs in the
//! fewest digits that hold every prime of its limb length ([`digits_for_limbs`]):
//!
//! | key bits | prime limbs | digits |
//! |---------:|------------:|-------:|
//! | 1024     |  8          | 10     |
//! | 2048     | 16          | 20     |
//! | 3072     | 24          | 30     |
//! | 4096     | 32          | 40     |
//! | 6144     | 48          | 60     |
//! | 8192     | 64          | 79     |
//!
//! A prime of another length between 8 and 64 limbs runs in the next class up
//! ([`digits_for_limbs`]: the primes of a 2560-bit key, 20 limbs, in 30 digits), which
//! costs what that class costs and is still faster than the scalar core. Two-prime keys
//! whose primes have a class run here; keys with more primes, or shorter or longer
//! primes, run on the scalar core. The products modulo n of blinding and the fault
//! checks m^e mod n run in lanes where n's length has a class with mb8 kernels (1024 to
//! 3072 bits).
//!
//! # Batches
//!
//! An mb8 call takes the two CRT halves of up to [`MB8_OPS`] = 4 operations (lanes 2i
//! and 2i + 1 hold p and q of operation i). Eight operations' p-halves then their
//! q-halves (two calls) would cost the same per operation, but need eight requests to fill
//! a call where this layout needs four, so a partial batch wastes fewer lanes and is ready
//! sooner, and one call finishes whole operations. Fewer than [`mb8_min_ops`] operations
//! run one by one on x2, which is faster there; fewer than [`MIN_PRODUCT_LANES`] products
//! run on the core.
//!
//! # Secrets
//!
//! The kernels need `RR = 2^(104 D) mod p` for each secret prime (and for n, public);
//! [`rr52`] computes it in constant time with the modular core (no division by p), once
//! per key, on its first operation. The parameters are zeroized on drop.

use crate::arch::x86_64::ifma::sized::{SecretParams52, digits_for_limbs};
use crate::bignum::Limb;
use crate::modular::{Elem, Modulus, Mont};
use crate::rsa::crt::CrtKey;
use crate::rsa::tags::N;

/// The prime limb lengths of the common key sizes and their digit counts (the module
/// docs' table, which the tests check [`digits_for_limbs`] against).
#[cfg(test)]
pub(crate) const CLASSES: [(usize, usize); 6] =
    [(8, 10), (16, 20), (24, 30), (32, 40), (48, 60), (64, 79)];

/// Operations in one mb8 call: two lanes each.
pub(crate) const MB8_OPS: usize = 4;

/// The smallest group of operations of one class that runs as an mb8 call; smaller ones
/// run one by one on x2. From the kernels' timings on AMD Zen 4 (`crates/bench`, `ifma`;
/// rerun it to retune): a call of 4 costs less than two x2 pairs at 10 digits, and
/// between two and three at the other classes.
pub(crate) fn mb8_min_ops(digits: usize) -> usize {
    match digits {
        10 => 2,
        _ => 3,
    }
}

/// The fewest products modulo n of one class worth an mb8 call. A call costs about two
/// core products for its kernel, whatever the lanes used, and a small part of one a lane
/// for the rest (2048 bits, `crates/bench`, `rsa -- products`); so two products are about
/// even, and three gain.
pub(crate) const MIN_PRODUCT_LANES: usize = 3;

/// `RR = 2^(104 D) mod p` for the IFMA kernels with `D` digits
/// ([`Modulus::radix_square`] with `R = 2^(52 D)`: constant time, no division by p).
pub(crate) fn rr52<T>(m: &Modulus<T>, digits: usize) -> Elem<T, Mont> {
    m.radix_square(52 * digits)
}

/// A key's IFMA parameters, each `None` where the key has no class.
pub(crate) struct IfmaKey {
    /// p and q in the class of the longer, for two-prime keys.
    primes: Option<[SecretParams52; 2]>,
    /// n, for the products of blinding and the fault checks, where its length has mb8
    /// kernels.
    n: Option<SecretParams52>,
}

impl IfmaKey {
    /// The parameters of a key.
    pub(crate) fn new(crt: &CrtKey, n: &Modulus<N>) -> IfmaKey {
        let primes = || {
            if !crt.others.is_empty() {
                return None;
            }
            let (p, q) = (&crt.p.modulus, &crt.q.modulus);
            let d = digits_for_limbs(p.limbs().max(q.limbs()))?;
            let params = |m: &[Limb], rr: &[Limb]| SecretParams52::new(m, rr, d).ok();
            let p = params(p.as_limbs(), rr52(p, d).as_limbs())?;
            Some([p, params(q.as_limbs(), rr52(q, d).as_limbs())?])
        };
        let n_lanes = || {
            let d = digits_for_limbs(n.limbs())?;
            let rr = rr52(n, d);
            SecretParams52::new(n.as_limbs(), rr.as_limbs(), d).ok().filter(SecretParams52::has_mb8)
        };
        IfmaKey { primes: primes(), n: n_lanes() }
    }

    /// p's and q's parameters, for keys that run on the IFMA kernels.
    pub(crate) fn primes(&self) -> Option<&[SecretParams52; 2]> {
        self.primes.as_ref()
    }

    /// The digit count of the key's mb8 calls, for keys whose operations run in them.
    pub(crate) fn mb8_class(&self) -> Option<usize> {
        let [p, _] = self.primes()?;
        p.has_mb8().then(|| p.digits())
    }

    /// n's parameters, where its products and fault checks run in lanes.
    pub(crate) fn n(&self) -> Option<&SecretParams52> {
        self.n.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::x86_64::ifma::radix52::max_modulus_bits;
    use crate::arch::x86_64::ifma::sized::DIGITS;
    use crate::bignum::Nat;

    /// Every prime length from 8 to 64 limbs gets the smallest compiled digit count that
    /// holds it; none outside.
    #[test]
    fn classes_cover_8_to_64_limbs() {
        for limbs in 0..80 {
            let got = digits_for_limbs(limbs);
            if !(8..=64).contains(&limbs) {
                assert_eq!(got, None, "{limbs} limbs");
                continue;
            }
            let d = got.unwrap();
            assert!(DIGITS.contains(&d), "{limbs} limbs in {d} digits, not compiled");
            assert!(64 * limbs <= max_modulus_bits(d), "{limbs} limbs in {d} digits");
            assert!(DIGITS.iter().all(|&c| c >= d || 64 * limbs > max_modulus_bits(c)));
        }
        for (limbs, digits) in CLASSES {
            assert_eq!(digits_for_limbs(limbs), Some(digits));
        }
    }

    /// `rr52` against the long division it replaces (variable time, fine for a test), for
    /// odd moduli of every class with the top bit set, clear, and short by a limb's worth,
    /// and for primes of lengths between the classes in the class above them.
    #[test]
    fn rr52_is_the_radix_square() {
        let mut rng = crate::rng::OsRng;
        let lengths = CLASSES.iter().map(|&(l, _)| l).chain([9, 12, 17, 20, 28, 33, 49]);
        for limbs in lengths {
            let digits = digits_for_limbs(limbs).unwrap();
            for top_bits in [64 * limbs, 64 * limbs - 1, 64 * limbs - 13] {
                let mut n = Nat::random_bits(top_bits, &mut rng).unwrap();
                n.set_bit(0, true);
                n.set_bit(top_bits - 1, true);
                let m = Modulus::<()>::from_limbs(&n.to_limbs_padded(limbs).unwrap()).unwrap();
                let mut r2 = Nat::zero();
                r2.set_bit(104 * digits, true);
                let want = r2.rem(&n).unwrap().to_limbs_padded(limbs).unwrap();
                assert_eq!(
                    rr52(&m, digits).as_limbs(),
                    &want[..],
                    "{limbs} limbs, {top_bits} bits"
                );
            }
        }
    }
}
