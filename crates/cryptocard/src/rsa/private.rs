//! The private-key operation RSADP / RSASP1 (RFC 8017 sections 5.1.2 and 5.2.1) in three
//! phases, with blinding and a fault check.
//!
//! (a) `prepare_all`: take a blinding pair (A, Ai) = (r^e, r^-1)
//!     ([`super::blinding`]), c' = c * A mod n, and reduce c' mod every prime
//!     (RSADP step 2.b's inputs).
//! (b) the key's unit ([`super::accel`]) raises each residue to its CRT exponent (step
//!     2.b.i-ii).
//! (c) `finish_all`: Garner's recombination m' (step 2.b.iii-v), the fault
//!     check m'^e = c' mod n, and unblinding m = m' * Ai.
//!
//! # The fault check
//!
//! Boneh, DeMillo and Lipton ("On the importance of checking cryptographic protocols for
//! faults", 1997, the "Bellcore attack") and Lenstra's one-signature refinement: if one
//! CRT half is wrong (a glitch, a bit flip in memory, a miscomputing backend), then
//! s^e - m is divisible by exactly one of p, q, and gcd(s^e - m, n) factors n. So every
//! result is raised to e (cheap: 17 products for e = 65537, done modulo each prime, which
//! is the same test at half the cost) and compared with c' before unblinding; on a mismatch the result is dropped and the caller gets
//! [`Error::FaultDetected`]. The same check makes a wrong key value (a composite "prime",
//! inconsistent CRT values that slipped past validation) harmless.
//!
//! # What leaks
//!
//! Nothing about c, m or the key beyond the public sizes: blinding and reduction are
//! Montgomery products, the exponentiations are fixed-window with masked table reads over
//! exponents padded to their prime's limb length, Garner's steps are constant time, and
//! the fault check runs on every call (its timing depends on e only). A fault is
//! reported, which reveals that one happened and nothing else.

use super::accel::{self, AccelKey, MulOp, SqrOp, Unit};
use super::blinding::Blinder;
use super::crt::CrtResidues;
use super::key::RsaPrivateKey;
use super::tags::N;
use crate::ct::Choice;
use crate::modular::{Elem, Plain};
use crate::rng::RandomSource;
use crate::{Error, Result};

/// An operation between phases (a) and (c): the unit it runs on, the residues phase (b)
/// works on, and what phase (c) needs to finish.
pub(crate) struct PreparedOp {
    unit: Unit,
    residues: CrtResidues,
    /// c' = c * r^e mod every prime (the residues before phase (b)), for the fault check.
    blinded: CrtResidues,
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

    /// For tests of the fault check only: the private operation on the key's unit, with
    /// its half modulo the first (`prime == 0`) or second prime computed wrongly
    /// (m_i + 1 mod r_i), as a glitch would; the check runs on the key's unit too. Must
    /// fail with [`Error::FaultDetected`] and return nothing. Behind the
    /// `fault-injection` feature, which only the crate's own tests enable.
    #[cfg(feature = "fault-injection")]
    pub fn raw_private_with_injected_fault(
        &self,
        input: &[u8],
        prime: usize,
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        let c = self.public.elem_from_be_bytes(input)?;
        let mut ops = prepare_all(vec![(self, Ok(c))], rng);
        exponentiate_all(&mut ops);
        for (key, op) in ops.iter_mut() {
            let Ok(op) = op else { continue };
            let (p, q) = (&key.crt.p.modulus, &key.crt.q.modulus);
            match prime {
                0 => op.residues.p = p.add(&op.residues.p, &p.one()),
                _ => op.residues.q = q.add(&op.residues.q, &q.one()),
            }
        }
        let m = finish_all(ops).pop().expect("internal error: one operation run")?;
        Ok(self.public.n.to_be_bytes(&m))
    }
}

/// An operation after Garner's recombination: what is left of it, and m'.
type Recombined = (PreparedOp, Elem<N, Plain>);

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
    let mut prepared = prepare_all(ops, rng);
    exponentiate_all(&mut prepared);
    finish_all(prepared)
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
            let prepared = taken.map(|(unit, _, blinder)| {
                let c = blinded.next().expect("internal error: one product per operation");
                let residues = key.crt.reduce(&c);
                PreparedOp { unit, blinded: residues.clone(), residues, blinder }
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
}

/// Phase (c): Garner's recombination of each operation, the fault checks together on the
/// units ([`Error::FaultDetected`] for a failed one, whose result is withheld), and the
/// unblinding products together ([`unblind_all`]).
fn finish_all(ops: Ops<'_, PreparedOp>) -> Vec<Result<Elem<N, Plain>>> {
    let staged: Ops<'_, Recombined> = ops
        .into_iter()
        .map(|(key, op)| {
            let recombined = op.and_then(|op| {
                let m = key.crt.recombine(&op.residues, &key.public.n)?;
                Ok((op, m))
            });
            (key, recombined)
        })
        .collect();
    let verdicts = {
        let jobs: Vec<(AccelKey<'_>, &Elem<N, Plain>, &CrtResidues)> = staged
            .iter()
            .filter_map(|(key, s)| {
                s.as_ref().ok().map(|(op, m)| (key.accel_key(op.unit), m, &op.blinded))
            })
            .collect();
        accel::check(&jobs)
    };
    let mut verdicts = verdicts.into_iter();
    let checked = staged
        .into_iter()
        .map(|(key, staged)| {
            let checked = staged.map(|(op, m)| {
                let ok = verdicts.next().expect("internal error: one verdict per operation");
                (op, m, ok)
            });
            (key, checked)
        })
        .collect();
    unblind_all(checked)
}

/// Phase (c)'s end for operations with their recombined m' and the fault check's verdict:
/// the unblinding products m = m' Ai, and the squarings that renew each pair (A^2, Ai^2,
/// whose successor goes back to the key's pool), each kind together on the units. A
/// failed check withholds its result ([`Error::FaultDetected`]) and drops its pair.
fn unblind_all(ops: Ops<'_, (PreparedOp, Elem<N, Plain>, Choice)>) -> Vec<Result<Elem<N, Plain>>> {
    let passed: Ops<'_, (Unit, Blinder, Elem<N, Plain>)> = ops
        .into_iter()
        .map(|(key, checked)| {
            let passed = checked.and_then(|(op, m, ok)| match ok.declassify() {
                true => Ok((op.unit, op.blinder, m)),
                // The pair is dropped with the faulty result.
                false => Err(Error::FaultDetected),
            });
            (key, passed)
        })
        .collect();
    let (unblinded, squares) = {
        let ok = || passed.iter().filter_map(|(key, p)| p.as_ref().ok().map(|p| (*key, p)));
        let unblind: Vec<MulOp<'_, Plain>> =
            ok().map(|(key, (u, b, m))| (key.accel_key(*u), b.ai(), m)).collect();
        let renew: Vec<SqrOp<'_>> = ok()
            .filter(|(_, (_, b, _))| b.renews())
            .flat_map(|(key, (u, b, _))| [(key.accel_key(*u), b.a()), (key.accel_key(*u), b.ai())])
            .collect();
        (accel::mul(&unblind), accel::sqr(&renew))
    };
    let (mut unblinded, mut squares) = (unblinded.into_iter(), squares.into_iter());
    const ONE_EACH: &str = "internal error: the products of an operation";
    passed
        .into_iter()
        .map(|(key, passed)| {
            let (_, blinder, _) = passed?;
            let m = unblinded.next().expect(ONE_EACH);
            if blinder.renews() {
                let (a2, ai2) = (squares.next().expect(ONE_EACH), squares.next().expect(ONE_EACH));
                key.blinding.put(blinder.renewed(a2, ai2));
            }
            Ok(m)
        })
        .collect()
}
