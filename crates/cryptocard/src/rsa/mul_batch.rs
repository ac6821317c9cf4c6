//! The products modulo n of a batch of private operations: blinding c' = c A, unblinding
//! m = m' Ai, and the squarings A^2, Ai^2 that renew a blinding pair ([`super::blinding`]).
//!
//! One operation makes four of them, each a Montgomery product of the modular core
//! (`Modulus::mul`), which at 2048 bits takes about 0.9 us on the ADX kernel (AMD Zen 4):
//! 3% of an operation in a `private_batch`. [`mul_all`] runs the products of keys on the
//! IFMA backend eight to an mb8 call instead (`arch/x86_64/ifma/mont_mb8.rs`, moduli may
//! differ within a call): eight 2048-bit products take 3.3 us against 7.3 us on the core
//! (`crates/bench`, `rsa_products`), the kernel 1.7 us of it and the lanes' conversions and
//! buffers the rest. The numbers
//! stay in the core's Montgomery form, so each product is exactly the core's and the
//! operation's numbers are the same whichever path multiplies them. A group of one class
//! smaller than [`MIN_LANES`] runs on the core, as do the keys on other backends and the
//! moduli without an mb8 class (4096-bit and longer, below 1024 bits).
//!
//! The products are constant time on either path: fixed-length Montgomery products whose
//! only data-dependent step is a masked final subtraction.

use super::RsaPrivateKey;
use super::tags::N;
use crate::modular::{Elem, Mont};

/// The fewest products of one class worth an mb8 call. A call costs about two core
/// products for its kernel, whatever the lanes used, and a fifth of one a lane for the
/// rest (2048 bits: 1.7 us, 0.2 us a lane, 0.9 us a core product); at 1024 bits the
/// ratios are alike. So two products are about even, and three gain.
pub(crate) const MIN_LANES: usize = 3;

/// One product of a batch: `key.public.n.mul(a, b)`.
pub(crate) struct MulJob<'a, E> {
    pub(crate) key: &'a RsaPrivateKey,
    pub(crate) a: &'a Elem<N, Mont>,
    pub(crate) b: &'a Elem<N, E>,
}

/// Every job's product, in order (see the module docs for where each runs).
pub(crate) fn mul_all<E>(jobs: &[MulJob<'_, E>]) -> Vec<Elem<N, E>> {
    run_all(jobs, |job| job.key.public.n.mul(job.a, job.b))
}

/// `key.public.n.sqr(a)` for each `(key, a)`, in order: in lanes as [`mul_all`], and on
/// the core by its dedicated squaring.
pub(crate) fn sqr_all(jobs: &[(&RsaPrivateKey, &Elem<N, Mont>)]) -> Vec<Elem<N, Mont>> {
    let jobs: Vec<MulJob<'_, Mont>> =
        jobs.iter().map(|&(key, a)| MulJob { key, a, b: a }).collect();
    run_all(&jobs, |job| job.key.public.n.sqr(job.a))
}

/// The jobs in lanes where they can run there, the others by `core`.
fn run_all<E>(
    jobs: &[MulJob<'_, E>],
    core: impl Fn(&MulJob<'_, E>) -> Elem<N, E>,
) -> Vec<Elem<N, E>> {
    let mut out: Vec<Option<Elem<N, E>>> = (0..jobs.len()).map(|_| None).collect();
    #[cfg(target_arch = "x86_64")]
    lanes::mul_in_lanes(jobs, &mut out);
    jobs.iter().zip(out).map(|(job, done)| done.unwrap_or_else(|| core(job))).collect()
}

/// Random products modulo one key's n, to time `mul_all` against the core's products
/// (`crate::hazmat`, feature `hazmat`; the benchmark crate's user).
#[cfg(feature = "hazmat")]
pub struct ProductJobs<'k> {
    key: &'k RsaPrivateKey,
    a: Vec<Elem<N, Mont>>,
    b: Vec<Elem<N, crate::modular::Plain>>,
}

#[cfg(feature = "hazmat")]
impl core::fmt::Debug for ProductJobs<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ProductJobs").field("count", &self.a.len()).finish_non_exhaustive()
    }
}

#[cfg(feature = "hazmat")]
impl<'k> ProductJobs<'k> {
    /// `count` products of random elements below the key's n (from `rng`).
    pub fn random(
        key: &'k RsaPrivateKey,
        count: usize,
        rng: &mut dyn crate::rng::RandomSource,
    ) -> crate::Result<Self> {
        let n = &key.public.n;
        let mut elem = || -> crate::Result<Vec<crate::bignum::Limb>> {
            let x = crate::bignum::Nat::random_below(&n.to_nat(), rng)?;
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

    fn jobs(&self) -> Vec<MulJob<'_, crate::modular::Plain>> {
        self.a.iter().zip(&self.b).map(|(a, b)| MulJob { key: self.key, a, b }).collect()
    }

    /// The products one by one on the core (`Modulus::mul`).
    pub fn run_on_core(&self) {
        for j in self.jobs() {
            core::hint::black_box(self.key.public.n.mul(j.a, j.b));
        }
    }

    /// The products in one `mul_all` call (in lanes where the key's backend has them).
    pub fn run_batched(&self) {
        core::hint::black_box(mul_all(&self.jobs()));
    }
}

#[cfg(target_arch = "x86_64")]
mod lanes {
    use super::{MIN_LANES, MulJob};
    use crate::arch::x86_64::cpu::Ifma;
    use crate::arch::x86_64::ifma::LaneStatus;
    use crate::arch::x86_64::ifma::rsa_glue::{ProductLane, SecretParams52, mont_mul_mb8};
    use crate::modular::Elem;
    use crate::rsa::backend::Resolved;
    use crate::rsa::backend_ifma::{Run, schedule};
    use crate::rsa::tags::N;

    /// The products of IFMA keys with an mb8 class, by class in calls of up to eight;
    /// `out[i]` is left `None` for the others (and for a lane that fails, which cannot
    /// happen for reduced operands).
    pub(super) fn mul_in_lanes<E>(jobs: &[MulJob<'_, E>], out: &mut [Option<Elem<N, E>>]) {
        // Each job's CPU token and n's lane parameters, where it has them.
        let lanes: Vec<Option<(Ifma, &SecretParams52)>> = jobs
            .iter()
            .map(|job| {
                let Ok(Resolved::Ifma(ifma)) = job.key.backend().and_then(|b| b.resolve()) else {
                    return None;
                };
                Some((ifma, job.key.blinding.lane_params(&job.key.public.n)?))
            })
            .collect();
        let classes = lanes.iter().map(|l| l.map(|(_, params)| (params.digits(), ())));
        for run in schedule(classes, 8, |_| MIN_LANES) {
            // A job alone runs on the core.
            let Run::Mb8(call) = run else { continue };
            let Some((ifma, _)) = lanes[call[0]] else { continue };
            let mut outs: Vec<Box<[u64]>> =
                call.iter().map(|&i| vec![0; jobs[i].b.as_limbs().len()].into()).collect();
            let status = {
                let mut slots: [Option<ProductLane<'_>>; 8] = Default::default();
                for ((slot, &i), o) in slots.iter_mut().zip(&call).zip(&mut outs) {
                    let Some((_, params)) = lanes[i] else { continue };
                    let (x, y) = (jobs[i].b.as_limbs(), jobs[i].a.as_limbs());
                    *slot = Some(ProductLane { params, x, y, out: o });
                }
                mont_mul_mb8(ifma, slots)
            };
            for ((&i, o), s) in call.iter().zip(outs).zip(status) {
                if s == LaneStatus::Done {
                    out[i] = Some(Elem::from_boxed(o));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modular::Plain;
    use crate::rsa::Backend;
    use crate::rsa::key::test_key_2048;

    /// A random element mod the key's n, in either form.
    fn random_elem<E>(key: &RsaPrivateKey) -> Elem<N, E> {
        let n = &key.public.n;
        let x = crate::bignum::Nat::random_below(&n.to_nat(), &mut crate::rng::OsRng).unwrap();
        Elem::from_boxed(n.elem_from_nat(&x).unwrap().as_limbs().into())
    }

    /// `mul_all` and `sqr_all` give exactly the core's products, in order, for batches of
    /// 1 to 19 products mixing an IFMA key of 2048 bits, one of 1024 bits (another class),
    /// and the 2048-bit key on the scalar backend, with the extremes 0 and n - 1 among the
    /// operands. (Without IFMA every product runs on the core and this still holds.)
    #[test]
    fn products_are_the_cores() {
        let mut rng = crate::rng::OsRng;
        let keys = [
            test_key_2048(),
            RsaPrivateKey::generate(1024, &mut rng).unwrap(),
            test_key_2048().with_backend(Backend::Scalar).unwrap(),
        ];
        for count in (1..=10).chain([16, 17, 19]) {
            let owners: Vec<&RsaPrivateKey> =
                (0..count).map(|i| &keys[[0, 0, 1, 0, 2, 1][i % 6]]).collect();
            let a: Vec<Elem<N, Mont>> = owners.iter().map(|k| random_elem(k)).collect();
            let b: Vec<Elem<N, Plain>> = owners
                .iter()
                .enumerate()
                .map(|(i, k)| match i % 7 {
                    3 => k.public.n.elem_from_nat(&crate::bignum::Nat::zero()).unwrap(),
                    5 => {
                        let n1 = k.public.n.to_nat().sub(&crate::bignum::Nat::one()).unwrap();
                        k.public.n.elem_from_nat(&n1).unwrap()
                    }
                    _ => random_elem(k),
                })
                .collect();
            let jobs: Vec<MulJob<'_, Plain>> = owners
                .iter()
                .zip(a.iter().zip(&b))
                .map(|(key, (a, b))| MulJob { key, a, b })
                .collect();
            let got = mul_all(&jobs);
            assert_eq!(got.len(), count);
            for (i, (job, got)) in jobs.iter().zip(&got).enumerate() {
                let want = job.key.public.n.mul(job.a, job.b);
                assert!(got.ct_eq(&want).declassify(), "product {i} of {count}");
            }
            let squares: Vec<(&RsaPrivateKey, &Elem<N, Mont>)> =
                owners.iter().copied().zip(&a).collect();
            for (i, ((key, a), got)) in squares.iter().zip(sqr_all(&squares)).enumerate() {
                let want = key.public.n.sqr(a);
                assert!(got.ct_eq(&want).declassify(), "square {i} of {count}");
            }
        }
    }
}
