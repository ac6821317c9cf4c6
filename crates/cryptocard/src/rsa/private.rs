//! The private-key operation RSADP / RSASP1 (RFC 8017 sections 5.1.2 and 5.2.1) in three
//! phases, with blinding and a fault check.
//!
//! (a) [`RsaPrivateKey::prepare`]: take a blinding pair (A, Ai) = (r^e, r^-1)
//!     ([`super::blinding`]), c' = c * A mod n, and reduce c' mod every prime
//!     (RSADP step 2.b's inputs).
//! (b) a [`CrtBackend`] raises each residue to its CRT exponent (step 2.b.i-ii).
//! (c) [`RsaPrivateKey::finish`]: Garner's recombination m' (step 2.b.iii-v), the fault
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

use super::backend::Resolved;
use super::blinding::Blinder;
use super::crt::{CrtBackend, CrtResidues, ScalarBackend};
use super::key::RsaPrivateKey;
use super::mul_batch::{MulJob, mul_all, sqr_all};
use super::tags::N;
use crate::ct::Choice;
use crate::modular::{Elem, Mont, Plain};
use crate::rng::RandomSource;
use crate::{Error, Result};

/// A request between phases (a) and (c): the residues phase (b) works on, and what
/// phase (c) needs to finish.
pub(crate) struct PreparedOp {
    pub(crate) residues: CrtResidues,
    /// c' = c * r^e mod every prime (the residues before phase (b)), for the fault check.
    blinded: CrtResidues,
    blinder: Blinder,
}

impl RsaPrivateKey {
    /// Phase (a): blinds c (< n) and reduces it mod every prime ([`prepare_all`] of one).
    pub(crate) fn prepare(
        &self,
        c: Elem<N, Plain>,
        rng: &mut dyn RandomSource,
    ) -> Result<PreparedOp> {
        let mut one = prepare_all(vec![(self, Ok(c))], rng);
        one.pop().expect("internal error: one operation prepared")
    }

    /// Phase (c): recombines, checks with e (on `backend`), unblinds ([`finish_all`]'s
    /// steps for one operation, the check on the given backend).
    /// [`Error::FaultDetected`] if the check fails; the result is then withheld.
    pub(crate) fn finish(
        &self,
        backend: &dyn CrtBackend,
        op: PreparedOp,
    ) -> Result<Elem<N, Plain>> {
        let checked = self.crt.recombine(&op.residues, &self.public.n).map(|m| {
            let ok = backend.check(&self.crt, &m, &op.blinded, &self.public.e);
            (op, m, ok)
        });
        let mut one = unblind_all(vec![(self, checked)]);
        one.pop().expect("internal error: one operation finished")
    }

    /// The whole private operation on a backend: c^d mod n for c < n.
    pub(crate) fn private_elem_with(
        &self,
        backend: &dyn CrtBackend,
        c: &Elem<N, Plain>,
        rng: &mut dyn RandomSource,
    ) -> Result<Elem<N, Plain>> {
        let mut op = self.prepare(c.clone(), rng)?;
        backend.exponentiate(&self.crt, &mut op.residues);
        self.finish(backend, op)
    }

    /// The private operation on the key's backend ([`super::backend`]).
    pub(crate) fn private_elem(
        &self,
        c: &Elem<N, Plain>,
        rng: &mut dyn RandomSource,
    ) -> Result<Elem<N, Plain>> {
        self.with_crt_backend(|b| self.private_elem_with(b, c, rng))?
    }

    /// Runs `f` with the CRT backend this key's choice resolves to here; fails as
    /// [`RsaPrivateKey::backend`].
    pub(crate) fn with_crt_backend<R>(&self, f: impl FnOnce(&dyn CrtBackend) -> R) -> Result<R> {
        Ok(match self.backend()?.resolve()? {
            Resolved::Scalar => f(&ScalarBackend),
            #[cfg(target_arch = "x86_64")]
            Resolved::Ifma(t) => f(&super::backend_ifma::IfmaBackend(t)),
        })
    }

    /// For tests of the fault check only: the private operation on the key's backend,
    /// with its half modulo the first (`prime == 0`) or second prime computed wrongly
    /// (m_i + 1 mod r_i), as a glitch would; the check runs on the key's backend too. Must
    /// fail with [`Error::FaultDetected`] and return nothing. Behind the
    /// `fault-injection` feature, which only the crate's own tests enable.
    #[cfg(feature = "fault-injection")]
    pub fn raw_private_with_injected_fault(
        &self,
        input: &[u8],
        prime: usize,
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        struct Faulty<'a>(&'a dyn CrtBackend, usize);
        impl CrtBackend for Faulty<'_> {
            fn name(&self) -> &'static str {
                "faulty"
            }
            fn exponentiate(&self, key: &super::crt::CrtKey, r: &mut CrtResidues) {
                self.0.exponentiate(key, r);
                if self.1 == 0 {
                    r.p = key.p.modulus.add(&r.p, &key.p.modulus.one());
                } else {
                    r.q = key.q.modulus.add(&r.q, &key.q.modulus.one());
                }
            }
            fn check(
                &self,
                key: &super::crt::CrtKey,
                m: &Elem<N, Plain>,
                c: &CrtResidues,
                e: &crate::bignum::Nat,
            ) -> crate::ct::Choice {
                self.0.check(key, m, c, e)
            }
        }
        let c = self.public.elem_from_be_bytes(input)?;
        let m = self.with_crt_backend(|b| self.private_elem_with(&Faulty(b, prime), &c, rng))??;
        Ok(self.public.n.to_be_bytes(&m))
    }
}

/// An operation after Garner's recombination: what is left of it, and m'.
type Recombined = (PreparedOp, Elem<N, Plain>);

/// Operations of a batch, each with its key and its state or the error it failed with.
type Ops<'a, T> = Vec<(&'a RsaPrivateKey, Result<T>)>;

/// Phase (a) of several operations (keys may differ), each given its c (< n) or the
/// error it already failed with: a blinding pair each, the blinding products c' = c A
/// together (`mul_batch`: mb8 calls for IFMA keys), and the reductions of c' mod every
/// prime.
pub(crate) fn prepare_all(
    ops: Ops<'_, Elem<N, Plain>>,
    rng: &mut dyn RandomSource,
) -> Vec<Result<PreparedOp>> {
    let taken: Ops<'_, (Elem<N, Plain>, Blinder)> = ops
        .into_iter()
        .map(|(key, c)| {
            let pair = c.and_then(|c| {
                let blinder = key.blinding.take(&key.public.n, &key.public.e, rng)?;
                Ok((c, blinder))
            });
            (key, pair)
        })
        .collect();
    let blinded = {
        let jobs: Vec<MulJob<'_, Plain>> = taken
            .iter()
            .filter_map(|(key, t)| t.as_ref().ok().map(|(c, b)| MulJob { key, a: b.a(), b: c }))
            .collect();
        mul_all(&jobs)
    };
    let mut blinded = blinded.into_iter();
    taken
        .into_iter()
        .map(|(key, taken)| {
            let (_, blinder) = taken?;
            let c = blinded.next().expect("internal error: one product per operation");
            let residues = key.crt.reduce(&c);
            Ok(PreparedOp { blinded: residues.clone(), residues, blinder })
        })
        .collect()
}

/// Phase (c) of several operations (keys may differ), each as [`RsaPrivateKey::finish`]
/// on its key's backend, with the fault checks of the IFMA keys run together
/// (`IfmaBackend::check_batch`: 8-lane batches) and the unblinding products together
/// ([`unblind_all`]). An operation that failed before keeps its error.
pub(crate) fn finish_all(ops: Ops<'_, PreparedOp>) -> Vec<Result<Elem<N, Plain>>> {
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
    // The verdicts: the IFMA keys' together, the others' one by one on their backends.
    let mut verdicts: Vec<Result<Choice>> = vec![Ok(Choice::FALSE); staged.len()];
    {
        #[cfg(target_arch = "x86_64")]
        let (mut ifma, mut jobs, mut at) = (None, Vec::new(), Vec::new());
        for (i, (key, staged)) in staged.iter().enumerate() {
            let Ok((op, m)) = staged else { continue };
            let e = &key.public.e;
            match key.backend().and_then(|b| b.resolve()) {
                #[cfg(target_arch = "x86_64")]
                Ok(Resolved::Ifma(t)) => {
                    ifma = Some(super::backend_ifma::IfmaBackend(t));
                    jobs.push((&key.crt, m, &op.blinded, e));
                    at.push(i);
                }
                _ => verdicts[i] = key.with_crt_backend(|b| b.check(&key.crt, m, &op.blinded, e)),
            }
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(backend) = ifma {
            for (i, ok) in at.into_iter().zip(backend.check_batch(&jobs)) {
                verdicts[i] = Ok(ok);
            }
        }
    }
    let checked = staged
        .into_iter()
        .zip(verdicts)
        .map(|((key, staged), verdict)| {
            let checked = staged.and_then(|(op, m)| Ok((op, m, verdict?)));
            (key, checked)
        })
        .collect();
    unblind_all(checked)
}

/// Phase (c)'s end for operations with their recombined m' and the fault check's verdict:
/// the unblinding products m = m' Ai, and the squarings that renew each pair (A^2, Ai^2,
/// whose successor goes back to the key's pool), each kind together (`mul_batch`). A
/// failed check withholds its result ([`Error::FaultDetected`]) and drops its pair.
fn unblind_all(ops: Ops<'_, (PreparedOp, Elem<N, Plain>, Choice)>) -> Vec<Result<Elem<N, Plain>>> {
    let passed: Ops<'_, (Blinder, Elem<N, Plain>)> = ops
        .into_iter()
        .map(|(key, checked)| {
            let passed = checked.and_then(|(op, m, ok)| match ok.declassify() {
                true => Ok((op.blinder, m)),
                // The pair is dropped with the faulty result.
                false => Err(Error::FaultDetected),
            });
            (key, passed)
        })
        .collect();
    let (unblinded, squares) = {
        let ok = || passed.iter().filter_map(|(key, p)| p.as_ref().ok().map(|p| (*key, p)));
        let unblind: Vec<MulJob<'_, Plain>> =
            ok().map(|(key, (b, m))| MulJob { key, a: b.ai(), b: m }).collect();
        let renew: Vec<(&RsaPrivateKey, &Elem<N, Mont>)> = ok()
            .filter(|(_, (b, _))| b.renews())
            .flat_map(|(key, (b, _))| [(key, b.a()), (key, b.ai())])
            .collect();
        (mul_all(&unblind), sqr_all(&renew))
    };
    let (mut unblinded, mut squares) = (unblinded.into_iter(), squares.into_iter());
    const ONE_EACH: &str = "internal error: the products of an operation";
    passed
        .into_iter()
        .map(|(key, passed)| {
            let (blinder, _) = passed?;
            let m = unblinded.next().expect(ONE_EACH);
            if blinder.renews() {
                let (a2, ai2) = (squares.next().expect(ONE_EACH), squares.next().expect(ONE_EACH));
                key.blinding.put(blinder.renewed(a2, ai2));
            }
            Ok(m)
        })
        .collect()
}
