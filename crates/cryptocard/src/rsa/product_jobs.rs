//! Random products modulo one key's n, to time the seam's batched products against the
//! core's one by one (`crate::hazmat`, feature `hazmat`; the benchmark crate's user).

use super::RsaPrivateKey;
use super::accel::{self, AccelKey};
use super::tags::N;
use crate::bignum::{Limb, Nat};
use crate::modular::{Elem, Mont, Plain};
use crate::rng::RandomSource;

/// `count` products `a b / R mod n` of random elements below one key's n.
pub struct ProductJobs<'k> {
    key: &'k RsaPrivateKey,
    a: Vec<Elem<N, Mont>>,
    b: Vec<Elem<N, Plain>>,
}

impl core::fmt::Debug for ProductJobs<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ProductJobs").field("count", &self.a.len()).finish_non_exhaustive()
    }
}

impl<'k> ProductJobs<'k> {
    /// `count` products of random elements below the key's n (from `rng`).
    pub fn random(
        key: &'k RsaPrivateKey,
        count: usize,
        rng: &mut dyn RandomSource,
    ) -> crate::Result<Self> {
        let n = &key.public.n;
        let mut elem = || -> crate::Result<Vec<Limb>> {
            let x = Nat::random_below(&n.to_nat(), rng)?;
            Ok(n.elem_from_nat(&x)?.as_limbs().to_vec())
        };
        let mut a = Vec::with_capacity(count);
        let mut b = Vec::with_capacity(count);
        for _ in 0..count {
            a.push(Elem::from_boxed(elem()?.into()));
            b.push(Elem::from_boxed(elem()?.into()));
        }
        Ok(ProductJobs { key, a, b })
    }

    /// The products one by one on the core (`Modulus::mul`).
    pub fn run_on_core(&self) {
        for (a, b) in self.a.iter().zip(&self.b) {
            core::hint::black_box(self.key.public.n.mul(a, b));
        }
    }

    /// The products in one batch on the key's unit (in lanes where it has them).
    /// [`crate::Error::Unsupported`] if the key's backend choice cannot run here.
    pub fn run_batched(&self) -> crate::Result<()> {
        let on: AccelKey<'_> = self.key.accel_key(self.key.accel.unit()?);
        let jobs: Vec<_> = self.a.iter().zip(&self.b).map(|(a, b)| (on, a, b)).collect();
        core::hint::black_box(accel::mul(&jobs));
        Ok(())
    }
}
