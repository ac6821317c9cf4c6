//! The private-key operation RSADP / RSASP1 (RFC 8017 sections 5.1.2 and 5.2.1) in three
//! phases, with blinding and a fault check.
//!
//! (a) `prepare_all`: take a blinding pair (A, Ai) = (r^e, r^-1)
//!     ([`super::blinding`]), c' = c * A mod n, and reduce c' mod every prime
//!     (RSADP step 2.b's inputs).
//! (b) the key's unit ([`super::accel`]) raises each residue to its CRT exponent (step
//!     2.b.i-ii).
//! (c) `finish_all`: Garner's recombination m' (step 2.b.iii-v), unblinding m = m' * Ai,
//!     the renewal of the pair, and the fault check m^e = c mod n.
//!
//! # The fault check
//!
//! Boneh, DeMillo and Lipton ("On the importance of checking cryptographic protocols for
//! faults", 1997, the "Bellcore attack") and Lenstra's one-signature refinement: if one
//! CRT half is wrong (a glitch, a bit flip in memory, a miscomputing unit), then s^e - c
//! is divisible by exactly one of p, q, and gcd(s^e - c, n) factors n. So every result
//! is raised to e (cheap: 17 products modulo n for e = 65537) and compared with the
//! caller's c; on a mismatch the result is dropped and the caller gets
//! [`Error::FaultDetected`].
//!
//! The check is Go's order (`crypto/rsa`, `decrypt`): the final m, after unblinding,
//! against the input c itself, modulo the public n (on the IFMA unit, as the two
//! congruences modulo p and q that together are that one, with c reduced afresh for
//! them: `accel/ifma.rs`'s `check_x2`; on the GPU, by the device, which reports it in
//! each operation's status). Both sides are independent of every
//! intermediate value, so the check covers the whole operation: the blinding product,
//! the reductions of c' (a fault there, checked against residues of the same reduction,
//! would corrupt both sides of a check modulo the primes), both exponentiations in
//! whatever unit or lane ran them, Garner's recombination, unblinding, and the blinding
//! pair itself (a wrong pair, from a fault in the making of a set or in a renewal, gives
//! m^e = c A Ai^e != c). BoringSSL's order (the blinded result against c' before
//! unblinding) leaves unblinding and the pair unchecked. A failed check drops the
//! operation's pair and the key's pooled ones, so a wrong set of pairs costs one failed
//! operation, not one per pair. The same check makes a wrong key value (a composite
//! "prime", inconsistent CRT values that slipped past validation) harmless. The tests
//! (`tests/rsa_faults.rs`, with `rsa::fault`, feature `fault-injection`) flip a bit in
//! each phase on every path.
//!
//! # What leaks
//!
//! Nothing about c, m or the key beyond the public sizes: blinding and reduction are
//! Montgomery products, the exponentiations are fixed-window with masked table reads over
//! exponents padded to their prime's limb length, Garner's steps are constant time, and
//! the fault check runs on every call with Montgomery products whose sequence depends on
//! e only. A fault is reported, which reveals that one happened and nothing else.

use super::accel::{self, AccelKey, CheckOp, MulOp, SqrOp, Unit};
use super::blinding::Blinder;
use super::crt::CrtResidues;
use super::key::RsaPrivateKey;
use super::tags::N;
use crate::ct::Choice;
use crate::modular::{Elem, Mont, Plain};
use crate::rng::RandomSource;
use crate::{Error, Result};

/// An operation between phases (a) and (c): the unit it runs on, its input, the residues
/// phase (b) works on, and its blinding pair.
pub(crate) struct PreparedOp {
    unit: Unit,
    /// c, which the fault check compares the result's e-th power with.
    c: Elem<N, Plain>,
    residues: CrtResidues,
    blinder: Blinder,
}

impl RsaPrivateKey {
    /// The private operation on the key's unit: c^d mod n for c < n ([`private_all`] of
    /// one).
    pub(crate) fn private_elem(
        &self,
        c: &Elem<N, Plain>,
        rng: &mut dyn RandomSource,
    ) -> Result<Elem<N, Plain>> {
        let mut one = private_all(vec![(self, Ok(c.clone()))], rng);
        one.pop().expect("internal error: one operation run")
    }
}

/// Operations of a batch, each with its key and its state or the error it failed with.
pub(crate) type Ops<'a, T> = Vec<(&'a RsaPrivateKey, Result<T>)>;

/// The private operation c^d mod n of several operations (keys may differ), each given
/// its c (< n) or the error it already failed with: each phase for all of them together,
/// so that units with lanes fill them. Results in order; a failure stays with its
/// operation.
pub(crate) fn private_all(
    ops: Ops<'_, Elem<N, Plain>>,
    rng: &mut dyn RandomSource,
) -> Vec<Result<Elem<N, Plain>>> {
    #[cfg(feature = "gpu")]
    let ops = match whole_on_gpu(ops, None, rng) {
        Ok(done) => return done,
        Err(ops) => ops,
    };
    phased(ops, rng)
}

/// [`private_all`] with every key the GPU kernel takes on the GPU `gpu`, whatever the
/// key's own backend (the engine's offload unit); the others on their own units.
#[cfg(feature = "gpu")]
pub(crate) fn private_all_on_gpu(
    ops: Ops<'_, Elem<N, Plain>>,
    gpu: Unit,
    rng: &mut dyn RandomSource,
) -> Vec<Result<Elem<N, Plain>>> {
    match whole_on_gpu(ops, Some(gpu), rng) {
        Ok(done) => done,
        Err(ops) => phased(ops, rng),
    }
}

/// The three phases of the module docs, each for all of `ops` together.
fn phased(ops: Ops<'_, Elem<N, Plain>>, rng: &mut dyn RandomSource) -> Vec<Result<Elem<N, Plain>>> {
    let mut prepared = prepare_all(ops, rng);
    exponentiate_all(&mut prepared);
    finish_all(prepared)
}

/// The inputs of [`private_all`].
#[cfg(feature = "gpu")]
type Inputs<'k> = Ops<'k, Elem<N, Plain>>;

/// The operations whose key runs on the GPU (`accel/gpu/unit.rs`; every key the kernel
/// takes if `gpu` names the unit) go to the device whole, in one launch; the others take
/// the phased path. `Err(ops)` (untouched) when there are none on the GPU, else every
/// result in order.
#[cfg(feature = "gpu")]
fn whole_on_gpu<'k>(
    ops: Ops<'k, Elem<N, Plain>>,
    gpu: Option<Unit>,
    rng: &mut dyn RandomSource,
) -> core::result::Result<Vec<Result<Elem<N, Plain>>>, Inputs<'k>> {
    use super::accel::gpu::whole::{WholeOp, private_whole};
    let on_gpu = |key: &'k RsaPrivateKey| {
        gpu.or_else(|| key.accel.unit().ok()).and_then(|u| key.accel_key(u).whole_on_gpu())
    };
    if !ops.iter().any(|(key, c)| c.is_ok() && on_gpu(key).is_some()) {
        return Err(ops);
    }
    let len = ops.len();
    let (mut whole, mut whole_at, mut rest, mut rest_at) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut unit = None;
    for (i, (key, c)) in ops.into_iter().enumerate() {
        match (c, on_gpu(key)) {
            (Ok(c), Some((u, image))) => {
                unit = Some(u);
                let (n, e, pool) = (&key.public.n, &key.public.e, &key.blinding);
                whole.push(WholeOp { pool, n, e, image, c });
                whole_at.push(i);
            }
            (c, _) => {
                rest.push((key, c));
                rest_at.push(i);
            }
        }
    }
    let unit = unit.expect("internal error: an operation on the GPU");
    let mut out: Vec<Option<Result<Elem<N, Plain>>>> = (0..len).map(|_| None).collect();
    for (i, r) in whole_at.into_iter().zip(private_whole(unit.0, &whole, rng)) {
        out[i] = Some(r);
    }
    if !rest.is_empty() {
        for (i, r) in rest_at.into_iter().zip(phased(rest, rng)) {
            out[i] = Some(r);
        }
    }
    Ok(out.into_iter().map(|r| r.expect("internal error: an operation without a result")).collect())
}

/// Phase (a): for each operation its key's unit (an unusable backend choice fails it), a
/// blinding pair, the blinding products c' = c A together (on the units), and the
/// reductions of c' mod every prime.
fn prepare_all<'k>(
    ops: Ops<'k, Elem<N, Plain>>,
    rng: &mut dyn RandomSource,
) -> Ops<'k, PreparedOp> {
    let taken: Ops<'_, (Unit, Elem<N, Plain>, Blinder)> = ops
        .into_iter()
        .map(|(key, c)| {
            let taken = c.and_then(|c| {
                let unit = key.accel.unit()?;
                let blinder = key.blinding.take(&key.public.n, &key.public.e, rng)?;
                Ok((unit, c, blinder))
            });
            (key, taken)
        })
        .collect();
    let blinded = {
        let jobs: Vec<MulOp<'_, Plain>> = taken
            .iter()
            .filter_map(|(key, t)| t.as_ref().ok().map(|(u, c, b)| (key.accel_key(*u), b.a(), c)))
            .collect();
        accel::mul(&jobs)
    };
    let mut blinded = blinded.into_iter();
    taken
        .into_iter()
        .map(|(key, taken)| {
            let prepared = taken.map(|(unit, c, blinder)| {
                let blinded = blinded.next().expect("internal error: one product per operation");
                let blinded = faulted!(Blind, blinded);
                let residues = key.crt.reduce(&blinded);
                let residues = CrtResidues {
                    p: faulted!(ReduceP, residues.p),
                    q: faulted!(ReduceQ, residues.q),
                    ..residues
                };
                PreparedOp { unit, c, residues, blinder }
            });
            (key, prepared)
        })
        .collect()
}

/// Phase (b): the exponentiations of every prepared operation, on its unit.
fn exponentiate_all(ops: &mut Ops<'_, PreparedOp>) {
    let mut jobs: Vec<(AccelKey<'_>, &mut CrtResidues)> = ops
        .iter_mut()
        .filter_map(|(key, op)| {
            op.as_mut().ok().map(|op| (key.accel_key(op.unit), &mut op.residues))
        })
        .collect();
    accel::exponentiate(&mut jobs);
    #[cfg(feature = "fault-injection")]
    for (_, r) in jobs {
        super::fault::strike(super::fault::Phase::PowerP, &mut r.p.limbs);
        super::fault::strike(super::fault::Phase::PowerQ, &mut r.q.limbs);
    }
}

/// An operation past unblinding: its unit, its input c, its result m, and its blinding
/// pair's successor (`None` when the pair is due for a fresh r).
struct Unblinded {
    unit: Unit,
    c: Elem<N, Plain>,
    m: Elem<N, Plain>,
    next_pair: Option<Blinder>,
}

/// Phase (c): Garner's recombination of each operation, the unblinding products and the
/// renewals of the pairs together on the units ([`unblind_all`]), then the fault checks
/// m^e = c mod n together on the units. A result is released only if its check passes;
/// a failed one gives [`Error::FaultDetected`] (see [`release`]).
fn finish_all(ops: Ops<'_, PreparedOp>) -> Vec<Result<Elem<N, Plain>>> {
    let recombined: Ops<'_, (PreparedOp, Elem<N, Plain>)> = ops
        .into_iter()
        .map(|(key, op)| {
            let recombined = op.and_then(|op| {
                let m = key.crt.recombine(&op.residues, &key.public.n)?;
                Ok((op, faulted!(Garner, m)))
            });
            (key, recombined)
        })
        .collect();
    let unblinded = unblind_all(recombined);
    let verdicts = {
        let jobs: Vec<CheckOp<'_>> = unblinded
            .iter()
            .filter_map(|(key, u)| u.as_ref().ok().map(|u| (key.accel_key(u.unit), &u.m, &u.c)))
            .collect();
        accel::check(&jobs)
    };
    let mut verdicts = verdicts.into_iter();
    unblinded
        .into_iter()
        .map(|(key, u)| {
            let u = u?;
            let ok = verdicts.next().expect("internal error: one verdict per operation");
            release(key, u, ok)
        })
        .collect()
}

/// The products that end each operation: m = m' Ai mod n, and the squarings that renew
/// its pair (A^2, Ai^2), each kind together on the units.
fn unblind_all(ops: Ops<'_, (PreparedOp, Elem<N, Plain>)>) -> Ops<'_, Unblinded> {
    let (unblinded, squares) = {
        let ok = || ops.iter().filter_map(|(key, r)| r.as_ref().ok().map(|r| (*key, r)));
        let unblind: Vec<MulOp<'_, Plain>> =
            ok().map(|(key, (op, m))| (key.accel_key(op.unit), op.blinder.ai(), m)).collect();
        let renew: Vec<SqrOp<'_>> = ok()
            .filter(|(_, (op, _))| op.blinder.renews())
            .flat_map(|(key, (op, _))| {
                let on = key.accel_key(op.unit);
                [(on, op.blinder.a()), (on, op.blinder.ai())]
            })
            .collect();
        (accel::mul(&unblind), accel::sqr(&renew))
    };
    let (mut unblinded, mut squares) = (unblinded.into_iter(), squares.into_iter());
    const ONE_EACH: &str = "internal error: the products of an operation";
    let mut next_square = || -> Elem<N, Mont> { squares.next().expect(ONE_EACH) };
    ops.into_iter()
        .map(|(key, r)| {
            let u = r.map(|(op, _)| {
                let m = faulted!(Unblind, unblinded.next().expect(ONE_EACH));
                let next_pair = op.blinder.renews().then(|| {
                    let (a2, ai2) = (next_square(), next_square());
                    op.blinder.renewed(faulted!(Renew, a2), ai2)
                });
                Unblinded { unit: op.unit, c: op.c, m, next_pair }
            });
            (key, u)
        })
        .collect()
}

/// The end of an operation whose fault check gave `ok`: its result, and its pair's
/// successor back to the key's pool; or, for a failed check, [`Error::FaultDetected`],
/// the result and the pair dropped, and the key's other pooled pairs with them (a fault
/// in the making of a set of pairs makes every pair of the set wrong; each would fail
/// its operation's check in turn).
fn release(key: &RsaPrivateKey, u: Unblinded, ok: Choice) -> Result<Elem<N, Plain>> {
    if !ok.declassify() {
        key.blinding.clear();
        return Err(Error::FaultDetected);
    }
    if let Some(pair) = u.next_pair {
        key.blinding.put(pair);
    }
    Ok(u.m)
}
