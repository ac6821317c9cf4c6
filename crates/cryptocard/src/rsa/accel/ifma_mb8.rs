//! The IFMA unit's 8-lane calls: which operations of a batch share a call ([`schedule`]),
//! and the calls themselves for phase (b) ([`exponentiate`]: both CRT halves of up to
//! four operations, one lane each, keys may differ), the fault checks ([`check`], m^e mod
//! n for eight operations, one lane each) and the products modulo n ([`products`], eight
//! to a call, moduli may differ). Lanes hold the modular core's numbers: residues and
//! products go in and come out exactly as the core has them.
//!
//! A lane the kernel refuses (it cannot, for inputs below their moduli) is redone on the
//! scalar core.

use super::ifma_key::IfmaKey;
use super::{Check, Key};
use crate::arch::x86_64::cpu::Ifma;
use crate::arch::x86_64::ifma::LaneStatus;
use crate::arch::x86_64::ifma::sized::{
    ProductLane, SecretLane, SecretParams52, exp_mb8_public, exp_mb8_secret, mont_mul_mb8,
};
use crate::bignum::Limb;
use crate::ct::Choice;
use crate::modular::{Elem, Plain};
use crate::rsa::crt::CrtResidues;
use crate::rsa::tags::N;
use zeroize::Zeroize;

/// One step of a batch in lanes: a kernel call (mb8, or the AVX2 unit's four lanes) for
/// the jobs at these indices (one class), or one job alone (on x2, or the core).
pub(crate) enum Run {
    Call(Vec<usize>),
    One(usize),
}

/// The steps of a batch whose jobs have these classes (the mb8 digit count and whatever
/// else must be shared within a call; `None`: no lanes): each class in calls of up to
/// `per_call` jobs, those of a call with fewer than `min_jobs(digits)` and the classless
/// ones alone.
pub(crate) fn schedule<K: PartialEq>(
    classes: impl Iterator<Item = Option<(usize, K)>>,
    per_call: usize,
    min_jobs: impl Fn(usize) -> usize,
) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut groups: Vec<((usize, K), Vec<usize>)> = Vec::new();
    for (i, class) in classes.enumerate() {
        let Some(class) = class else {
            runs.push(Run::One(i));
            continue;
        };
        match groups.iter_mut().find(|(c, _)| *c == class) {
            Some((_, members)) => members.push(i),
            None => groups.push((class, vec![i])),
        }
    }
    for ((d, _), members) in groups {
        for chunk in members.chunks(per_call) {
            if chunk.len() >= min_jobs(d) {
                runs.push(Run::Call(chunk.to_vec()));
            } else {
                runs.extend(chunk.iter().map(|&i| Run::One(i)));
            }
        }
    }
    runs
}

/// A key's p and q parameters; only keys with an mb8 class are scheduled into a call.
fn pair<'a>(key: &Key<'a, IfmaKey>) -> &'a [SecretParams52; 2] {
    key.state.primes().expect("internal error: an mb8 lane for a key without IFMA primes")
}

/// Zeroed outputs for the lanes of operations with these keys: p's, then q's, of each.
pub(crate) fn lane_outputs<'k, S: 'k>(keys: impl Iterator<Item = Key<'k, S>>) -> Vec<Box<[Limb]>> {
    keys.flat_map(|k| [k.crt.p.modulus.limbs(), k.crt.q.modulus.limbs()])
        .map(|l| vec![0; l].into_boxed_slice())
        .collect()
}

/// Puts a call's results in the residues of the operations `at` of `ops`, whose lanes
/// were p's then q's of each (`status` and `outs` in that order); an operation with a
/// lane that did not finish is redone on the core.
pub(crate) fn take_results<S>(
    ops: &mut [(Key<'_, S>, &mut CrtResidues)],
    at: &[usize],
    status: &[LaneStatus],
    outs: Vec<Box<[Limb]>>,
) {
    let mut outs = outs.into_iter();
    for (j, &i) in at.iter().enumerate() {
        let (key, residues) = &mut ops[i];
        match (status[2 * j], status[2 * j + 1], outs.next(), outs.next()) {
            (LaneStatus::Done, LaneStatus::Done, Some(mp), Some(mq)) => {
                residues.p = Elem::from_boxed(mp);
                residues.q = Elem::from_boxed(mq);
            }
            (_, _, mp, mq) => {
                // Zero-filled by a failed lane; a finished one is secret.
                for mut m in [mp, mq].into_iter().flatten() {
                    m.zeroize();
                }
                key.crt.power(residues);
            }
        }
    }
}

/// Phase (b) of the operations `at` (at most four, one class) of `ops` in one call.
pub(crate) fn exponentiate(
    ifma: Ifma,
    ops: &mut [(Key<'_, IfmaKey>, &mut CrtResidues)],
    at: &[usize],
) {
    let mut outs = lane_outputs(at.iter().map(|&i| ops[i].0));
    let status = {
        let mut lanes: [Option<SecretLane<'_>>; 8] = Default::default();
        for ((slot, out), lane) in lanes.iter_mut().zip(outs.iter_mut()).zip(0..) {
            let (key, residues) = &ops[at[lane / 2]];
            let [p, q] = pair(key);
            *slot = Some(match lane % 2 {
                0 => SecretLane {
                    params: p,
                    base: residues.p.as_limbs(),
                    exp: &key.crt.p.exponent,
                    out,
                },
                _ => SecretLane {
                    params: q,
                    base: residues.q.as_limbs(),
                    exp: &key.crt.q.exponent,
                    out,
                },
            });
        }
        exp_mb8_secret(ifma, lanes)
    };
    take_results(ops, at, &status, outs);
}

/// The fault checks of the operations `at` (at most eight, one class of n, one e) of
/// `ops` in one call, their verdicts in `ok`: m^e mod n, one lane each, compared with c.
pub(crate) fn check(ifma: Ifma, ops: &[Check<'_, IfmaKey>], at: &[usize], ok: &mut [Choice]) {
    let e = ops[at[0]].key.e;
    let mut outs: Vec<Box<[Limb]>> =
        at.iter().map(|&i| vec![0; ops[i].key.n.limbs()].into_boxed_slice()).collect();
    let status = {
        let mut lanes: [Option<SecretLane<'_>>; 8] = Default::default();
        for ((slot, out), &i) in lanes.iter_mut().zip(outs.iter_mut()).zip(at) {
            let op = &ops[i];
            let params = op.key.state.n().expect("internal error: a check lane without n");
            *slot = Some(SecretLane { params, base: op.m.as_limbs(), exp: e.as_limbs(), out });
        }
        exp_mb8_public(ifma, lanes, e.as_limbs())
    };
    for ((&i, out), status) in at.iter().zip(outs).zip(status) {
        let op = &ops[i];
        ok[i] = match status {
            LaneStatus::Done => Elem::<N, Plain>::from_boxed(out).ct_eq(op.c),
            _ => op.on_core(),
        };
    }
}

/// One product of [`products`]: `x y / 2^(64 L) mod n` for n's lane parameters, `x`
/// and `y` of n's limb length, `y < n`.
pub(crate) type Lane<'a> = (&'a SecretParams52, &'a [Limb], &'a [Limb]);

/// The products of the jobs at `at` (each with its lane, one class, at most eight) in one
/// call; `out[i]` is set for each lane that succeeds and left `None` for the others.
pub(crate) fn products(
    ifma: Ifma,
    jobs: &[Option<Lane<'_>>],
    at: &[usize],
    out: &mut [Option<Box<[Limb]>>],
) {
    let mut outs: Vec<(usize, Box<[Limb]>)> = Vec::with_capacity(at.len());
    let status = {
        let mut slots: [Option<ProductLane<'_>>; 8] = Default::default();
        for &i in at {
            if let Some((_, x, _)) = jobs[i] {
                outs.push((i, vec![0; x.len()].into()));
            }
        }
        for (slot, (i, o)) in slots.iter_mut().zip(&mut outs) {
            if let Some((params, x, y)) = jobs[*i] {
                *slot = Some(ProductLane { params, x, y, out: o });
            }
        }
        mont_mul_mb8(ifma, slots)
    };
    for ((i, o), s) in outs.into_iter().zip(status) {
        if s == LaneStatus::Done {
            out[i] = Some(o);
        }
    }
}
