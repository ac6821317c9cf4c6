//! The one place that decides which unit runs a key's operations, keeps the key's state on
//! it, and matches on the unit.
//!
//! A key carries a [`KeyAccel`]: its own unit choice and, per unit, the state that unit
//! keeps of it (made on the key's first operation there, shared by clones of the key).
//! An operation resolves its key's choice to a [`Unit`] once, in phase (a), and keeps it
//! to the end (`private.rs`), so an operation never changes units halfway, even when the
//! process default changes meanwhile. The functions here take the operations of a batch
//! (keys and units may differ), give each unit its own, and put the results back in
//! order.
//!
//! A new unit takes a [`Unit`] variant (`choice.rs`), a field of [`KeyAccel`], a [`Kept`]
//! implementation, and an arm in `with_unit!`.

#[cfg(target_arch = "x86_64")]
use super::avx2::Avx2Unit;
use super::choice::{Backend, Unit, default_backend};
#[cfg(feature = "gpu")]
use super::gpu::driver::DeviceKey;
#[cfg(feature = "gpu")]
use super::gpu::unit::{GpuKeyState, GpuUnit};
#[cfg(target_arch = "x86_64")]
use super::ifma::IfmaUnit;
use super::scalar::Scalar;
use super::{Accelerator, Check, Key, Lanes, Product, Square};
use crate::Result;
use crate::bignum::Nat;
use crate::ct::Choice;
use crate::modular::{Elem, Modulus, Mont, Plain};
use crate::rsa::crt::{CrtKey, CrtResidues};
use crate::rsa::tags::N;
#[cfg(any(target_arch = "x86_64", feature = "gpu"))]
use std::sync::{Arc, OnceLock};

/// A key's unit choice and its state on the units.
#[derive(Clone, Default)]
pub(crate) struct KeyAccel {
    /// The key's own choice (`RsaPrivateKey::with_backend`); `None` follows the process
    /// default.
    pub(crate) choice: Option<Backend>,
    /// The key's IFMA parameters (p, q and n in their digit counts), made on first use.
    #[cfg(target_arch = "x86_64")]
    ifma: OnceLock<Arc<<IfmaUnit as Accelerator>::State>>,
    /// The key's AVX2 parameters (p and q in radix 2^28), made on first use.
    #[cfg(target_arch = "x86_64")]
    avx2: OnceLock<Arc<<Avx2Unit as Accelerator>::State>>,
    /// The key's image on the GPU (or why it has none), uploaded on first use; the
    /// device copy is zeroed when the last clone of the key goes.
    #[cfg(feature = "gpu")]
    gpu: OnceLock<Arc<GpuKeyState>>,
}

impl KeyAccel {
    /// The key's backend: its own choice, else the process default (an error as
    /// [`default_backend`]).
    pub(crate) fn backend(&self) -> Result<Backend> {
        self.choice.map_or_else(default_backend, Ok)
    }

    /// The unit the key's operations run on here. [`crate::Error::Unsupported`] as
    /// [`KeyAccel::backend`] and [`Backend::resolve`].
    pub(crate) fn unit(&self) -> Result<Unit> {
        self.backend()?.resolve()
    }
}

/// A key as the dispatch sees it: the unit its operation runs on, and what a unit needs
/// of it.
#[derive(Clone, Copy)]
pub(crate) struct AccelKey<'a> {
    pub(crate) unit: Unit,
    pub(crate) crt: &'a CrtKey,
    pub(crate) n: &'a Modulus<N>,
    pub(crate) e: &'a Nat,
    pub(crate) accel: &'a KeyAccel,
}

/// Where [`KeyAccel`] keeps a unit's state.
trait Kept: Accelerator {
    fn kept<'a>(self, key: AccelKey<'a>) -> &'a Self::State;

    /// The key as this unit sees it.
    fn view<'a>(self, key: AccelKey<'a>) -> Key<'a, Self::State> {
        Key { crt: key.crt, n: key.n, e: key.e, state: self.kept(key) }
    }
}

impl Kept for Scalar {
    fn kept<'a>(self, _: AccelKey<'a>) -> &'a () {
        &()
    }
}

#[cfg(target_arch = "x86_64")]
impl Kept for IfmaUnit {
    fn kept<'a>(self, key: AccelKey<'a>) -> &'a <IfmaUnit as Accelerator>::State {
        key.accel.ifma.get_or_init(|| Arc::new(self.state(key.crt, key.n)))
    }
}

#[cfg(target_arch = "x86_64")]
impl Kept for Avx2Unit {
    fn kept<'a>(self, key: AccelKey<'a>) -> &'a <Avx2Unit as Accelerator>::State {
        key.accel.avx2.get_or_init(|| Arc::new(self.state(key.crt, key.n)))
    }
}

#[cfg(feature = "gpu")]
impl Kept for GpuUnit {
    fn kept<'a>(self, key: AccelKey<'a>) -> &'a GpuKeyState {
        key.accel.gpu.get_or_init(|| Arc::new(self.key_state(key.crt, key.n, key.e)))
    }
}

impl<'a> AccelKey<'a> {
    /// The GPU and the key's resident image, when the key's operations run whole on the
    /// device (`private.rs` hands them to `gpu::unit::private_whole`); `None` for every
    /// other unit and for keys the kernel does not take. Uploads the key on first use.
    #[cfg(feature = "gpu")]
    pub(crate) fn whole_on_gpu(self) -> Option<(GpuUnit, &'a DeviceKey)> {
        match self.unit {
            Unit::Gpu(u) => u.kept(self).key.as_ref().ok().map(|k| (u, k)),
            _ => None,
        }
    }
}

/// Runs `$body` with `$u` bound to the unit `$unit` (a different type in each arm).
macro_rules! with_unit {
    ($unit:expr, |$u:ident| $body:expr) => {
        match $unit {
            Unit::Scalar => {
                let $u = Scalar;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Unit::Ifma(token) => {
                let $u = IfmaUnit(token);
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Unit::Avx2(token) => {
                let $u = Avx2Unit(token);
                $body
            }
            #[cfg(feature = "gpu")]
            Unit::Gpu(gpu) => {
                let $u = gpu;
                $body
            }
        }
    };
}

impl AccelKey<'_> {
    /// The kernels the key's single operation runs on ([`Accelerator::kernel_name`]).
    pub(crate) fn kernel_name(self) -> &'static str {
        with_unit!(self.unit, |u| u.kernel_name(u.view(self)))
    }

    /// How the key's operations are batched ([`Accelerator::lanes`]).
    pub(crate) fn lanes(self) -> Option<Lanes> {
        with_unit!(self.unit, |u| u.lanes(u.view(self)))
    }
}

/// The units of a batch, each with the indices of its operations, in order of first
/// appearance.
fn groups(units: impl Iterator<Item = Unit>) -> Vec<(Unit, Vec<usize>)> {
    let mut groups: Vec<(Unit, Vec<usize>)> = Vec::new();
    for (i, unit) in units.enumerate() {
        match groups.iter_mut().find(|(u, _)| u.same(unit)) {
            Some((_, members)) => members.push(i),
            None => groups.push((unit, vec![i])),
        }
    }
    groups
}

/// Runs `run` once per unit of a batch of `len` operations, with the indices of that
/// unit's operations, and returns its results (one per index) in the batch's order.
fn per_unit<R>(
    len: usize,
    units: impl Iterator<Item = Unit>,
    mut run: impl FnMut(Unit, &[usize]) -> Vec<R>,
) -> Vec<R> {
    let mut out: Vec<Option<R>> = (0..len).map(|_| None).collect();
    for (unit, at) in groups(units) {
        let results = run(unit, &at);
        for (i, r) in at.into_iter().zip(results) {
            out[i] = Some(r);
        }
    }
    out.into_iter().map(|r| r.expect("internal error: a unit returned too few results")).collect()
}

/// A product of [`mul`]: a b / R mod n on the key's unit.
pub(crate) type MulOp<'a, E> = (AccelKey<'a>, &'a Elem<N, Mont>, &'a Elem<N, E>);

/// A squaring of [`sqr`]: a^2 / R mod n on the key's unit.
pub(crate) type SqrOp<'a> = (AccelKey<'a>, &'a Elem<N, Mont>);

/// A fault check of [`check`]: whether m^e = c mod n, on the key's unit.
pub(crate) type CheckOp<'a> = (AccelKey<'a>, &'a Elem<N, Plain>, &'a Elem<N, Plain>);

/// Phase (b) of every operation, on its unit ([`Accelerator::exponentiate`]).
pub(crate) fn exponentiate(ops: &mut [(AccelKey<'_>, &mut CrtResidues)]) {
    for (unit, _) in groups(ops.iter().map(|(k, _)| k.unit)) {
        with_unit!(unit, |u| {
            let mut mine: Vec<(Key<'_, _>, &mut CrtResidues)> = ops
                .iter_mut()
                .filter(|(k, _)| k.unit.same(unit))
                .map(|(k, r)| (u.view(*k), &mut **r))
                .collect();
            u.exponentiate(&mut mine);
        })
    }
}

/// The fault checks m^e = c of every operation, on its unit ([`Accelerator::check`]).
pub(crate) fn check(ops: &[CheckOp<'_>]) -> Vec<Choice> {
    per_unit(ops.len(), ops.iter().map(|(k, _, _)| k.unit), |unit, at| {
        with_unit!(unit, |u| {
            let mine: Vec<Check<'_, _>> = at
                .iter()
                .map(|&i| Check { key: u.view(ops[i].0), m: ops[i].1, c: ops[i].2 })
                .collect();
            u.check(&mine)
        })
    })
}

/// The products a b / R mod n of every operation, on its unit ([`Accelerator::mul`]).
pub(crate) fn mul<E>(ops: &[MulOp<'_, E>]) -> Vec<Elem<N, E>> {
    per_unit(ops.len(), ops.iter().map(|(k, _, _)| k.unit), |unit, at| {
        with_unit!(unit, |u| {
            let mine: Vec<Product<'_, _, E>> = at
                .iter()
                .map(|&i| Product { key: u.view(ops[i].0), a: ops[i].1, b: ops[i].2 })
                .collect();
            u.mul(&mine)
        })
    })
}

/// The squarings a^2 / R mod n of every operation, on its unit ([`Accelerator::sqr`]).
pub(crate) fn sqr(ops: &[SqrOp<'_>]) -> Vec<Elem<N, Mont>> {
    per_unit(ops.len(), ops.iter().map(|(k, _)| k.unit), |unit, at| {
        with_unit!(unit, |u| {
            let mine: Vec<Square<'_, _>> =
                at.iter().map(|&i| (u.view(ops[i].0), ops[i].1)).collect();
            u.sqr(&mine)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsa::RsaPrivateKey;
    use crate::rsa::key::test_key_2048;

    /// A random element mod the key's n, in either form.
    fn random_elem<E>(key: &RsaPrivateKey) -> Elem<N, E> {
        let n = &key.public.n;
        let x = Nat::random_below(&n.to_nat(), &mut crate::rng::OsRng).unwrap();
        Elem::from_boxed(n.elem_from_nat(&x).unwrap().as_limbs().into())
    }

    /// `mul` and `sqr` give exactly the core's products, in order, for batches of 1 to 19
    /// products mixing a 2048-bit key on the default unit (IFMA lanes where the CPU has
    /// them), a 1024-bit one (another digit count), and the 2048-bit key on the scalar
    /// unit, with the extremes 0 and n - 1 among the operands. (Without IFMA every product
    /// runs on the core and this still holds.)
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
                    3 => k.public.n.elem_from_nat(&Nat::zero()).unwrap(),
                    5 => {
                        let n1 = k.public.n.to_nat().sub(&Nat::one()).unwrap();
                        k.public.n.elem_from_nat(&n1).unwrap()
                    }
                    _ => random_elem(k),
                })
                .collect();
            fn on(k: &RsaPrivateKey) -> AccelKey<'_> {
                k.accel_key(k.accel.unit().unwrap())
            }
            let jobs: Vec<MulOp<'_, Plain>> =
                owners.iter().zip(a.iter().zip(&b)).map(|(&k, (a, b))| (on(k), a, b)).collect();
            let got = mul(&jobs);
            assert_eq!(got.len(), count);
            for (i, ((key, a, b), got)) in jobs.iter().zip(&got).enumerate() {
                assert!(got.ct_eq(&key.n.mul(a, b)).declassify(), "product {i} of {count}");
            }
            let squares: Vec<SqrOp<'_>> = owners.iter().zip(&a).map(|(&k, a)| (on(k), a)).collect();
            for (i, ((key, a), got)) in squares.iter().zip(sqr(&squares)).enumerate() {
                assert!(got.ct_eq(&key.n.sqr(a)).declassify(), "square {i} of {count}");
            }
        }
    }
}
