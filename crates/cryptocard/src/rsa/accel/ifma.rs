//! The IFMA unit: the private operation's arithmetic on the AVX-512 IFMA kernels in
//! radix 2^52 (`arch/x86_64/ifma`).
//!
//! * One operation: both CRT halves interleaved in one register set (`exp_x2`, OpenSSL's
//!   `ossl_rsaz_mod_exp_avx512_x2` organisation), in the class of the longer prime; its
//!   fault check, m^e mod n, as m^e mod p and mod q on x2 against c reduced afresh
//!   (`exp_public_x2`: 17 products of the pair for e = 65537).
//! * Several: operations of one class in 8-lane mb8 calls (Intel crypto_mb's `mb8`,
//!   `ifma_mb8.rs`), four to a call, keys may differ; the fault checks m^e mod n of one
//!   class of n and one e, and the products modulo n of blinding, eight to a call. Groups
//!   too small for a call ([`mb8_min_ops`], [`MIN_PRODUCT_LANES`]) run one by one on x2
//!   or the core.
//!
//! Which keys run here and in which class is `ifma_key.rs`; keys without a class run on
//! the scalar core. Results are exactly the scalar unit's: every path computes
//! c^(d_i) mod r_i fully reduced, and the core's Montgomery products. Should a kernel
//! refuse an operation (it cannot, for residues below their primes), it is recomputed on
//! the core; a wrong result would be caught by the fault check of phase (c).

use super::ifma_key::{IfmaKey, MB8_OPS, MIN_PRODUCT_LANES, mb8_min_ops};
use super::ifma_mb8::{self, Run, schedule};
use super::{Accelerator, Check, Key, Lanes, Product, Square};
use crate::arch::x86_64::cpu::Ifma;
use crate::arch::x86_64::ifma::sized::SecretParams52;
use crate::bignum::Limb;
use crate::ct::Choice;
use crate::modular::{Elem, Modulus, Mont, Plain};
use crate::rsa::crt::{CrtKey, CrtResidues};
use crate::rsa::tags::{N, P, Q};

/// The IFMA unit, bound to the CPU's proof of IFMA.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IfmaUnit(pub(crate) Ifma);

impl Accelerator for IfmaUnit {
    type State = IfmaKey;

    fn state(self, crt: &CrtKey, n: &Modulus<N>) -> IfmaKey {
        IfmaKey::new(crt, n)
    }

    fn kernel_name(self, key: Key<'_, IfmaKey>) -> &'static str {
        match key.state.primes() {
            Some(_) => "ifma-x2",
            None => "scalar",
        }
    }

    fn lanes(self, key: Key<'_, IfmaKey>) -> Option<Lanes> {
        let class = key.state.mb8_class()?;
        Some(Lanes { class, per_call: MB8_OPS, min_ops: mb8_min_ops(class) })
    }

    fn exponentiate(self, ops: &mut [(Key<'_, IfmaKey>, &mut CrtResidues)]) {
        let classes = ops.iter().map(|(key, _)| key.state.mb8_class().map(|d| (d, ())));
        for run in schedule(classes, MB8_OPS, mb8_min_ops) {
            match run {
                Run::Call(at) => ifma_mb8::exponentiate(self.0, ops, &at),
                Run::One(i) => self.exponentiate_x2(ops[i].0, ops[i].1),
            }
        }
    }

    /// The checks of one class of n and one e in mb8 calls, eight to a call (17 products
    /// of eight lanes for e = 65537, where the core makes 17 per operation); groups too
    /// small for a call one by one on x2, keys without IFMA primes on the core.
    fn check(self, ops: &[Check<'_, IfmaKey>]) -> Vec<Choice> {
        let mut ok: Vec<Choice> = vec![Choice::FALSE; ops.len()];
        let classes = ops.iter().map(|op| op.key.state.n().map(|n| (n.digits(), op.key.e)));
        for run in schedule(classes, 8, |_| MIN_PRODUCT_LANES) {
            match run {
                Run::Call(at) => ifma_mb8::check(self.0, ops, &at, &mut ok),
                Run::One(i) => ok[i] = self.check_x2(&ops[i]),
            }
        }
        ok
    }

    fn mul<E>(self, ops: &[Product<'_, IfmaKey, E>]) -> Vec<Elem<N, E>> {
        let lanes = ops.iter().map(|op| (op.key, op.b.as_limbs(), op.a.as_limbs()));
        let mut done = self.products(lanes).into_iter();
        ops.iter()
            .map(|op| match done.next().flatten() {
                Some(limbs) => Elem::from_boxed(limbs),
                None => op.key.n.mul(op.a, op.b),
            })
            .collect()
    }

    fn sqr(self, ops: &[Square<'_, IfmaKey>]) -> Vec<Elem<N, Mont>> {
        let lanes = ops.iter().map(|(key, a)| (*key, a.as_limbs(), a.as_limbs()));
        let mut done = self.products(lanes).into_iter();
        ops.iter()
            .map(|(key, a)| match done.next().flatten() {
                Some(limbs) => Elem::from_boxed(limbs),
                None => key.n.sqr(a),
            })
            .collect()
    }
}

impl IfmaUnit {
    /// Phase (b) of one operation on x2; keys without IFMA primes on the core.
    fn exponentiate_x2(self, key: Key<'_, IfmaKey>, r: &mut CrtResidues) {
        let Some(pair) = key.state.primes() else { return key.crt.power(r) };
        let (p, q) = (&key.crt.p, &key.crt.q);
        let mut mp = vec![0; p.modulus.limbs()].into_boxed_slice();
        let mut mq = vec![0; q.modulus.limbs()].into_boxed_slice();
        let (bp, bq) = (r.p.as_limbs(), r.q.as_limbs());
        let exps = [&p.exponent[..], &q.exponent[..]];
        let params = [&pair[0], &pair[1]];
        match SecretParams52::exp_x2(self.0, [&mut mp, &mut mq], [bp, bq], exps, params) {
            Ok(()) => (r.p, r.q) = (Elem::from_boxed(mp), Elem::from_boxed(mq)),
            // Zero-filled by the kernel.
            Err(_) => key.crt.power(r),
        }
    }

    /// One fault check on x2: m^e mod p and mod q in one pass (`exp_public_x2`), each
    /// compared with the caller's c reduced mod p and mod q here, not with the residues
    /// the exponentiations started from (a fault in those must not reach both sides).
    /// Both congruences hold exactly when m^e mod n == c (CRT), so this is the core's
    /// check, [`Check::on_core`], in about a third of its time at 2048 bits. Keys without
    /// IFMA primes (multi-prime keys among them) take the core's.
    fn check_x2(self, op: &Check<'_, IfmaKey>) -> Choice {
        let Some(pair) = op.key.state.primes() else { return op.on_core() };
        let (p, q) = (&op.key.crt.p, &op.key.crt.q);
        let (m, c) = (op.m.as_limbs(), op.c.as_limbs());
        let mut mp = vec![0; p.modulus.limbs()].into_boxed_slice();
        let mut mq = vec![0; q.modulus.limbs()].into_boxed_slice();
        let (bp, bq) = (p.reduce(m), q.reduce(m));
        let bases = [bp.as_limbs(), bq.as_limbs()];
        let params = [&pair[0], &pair[1]];
        let e = op.key.e.as_limbs();
        if SecretParams52::exp_public_x2(self.0, [&mut mp, &mut mq], bases, e, params).is_err() {
            return op.on_core();
        }
        let (mp, mq) = (Elem::<P, Plain>::from_boxed(mp), Elem::<Q, Plain>::from_boxed(mq));
        mp.ct_eq(&p.reduce(c)) & mq.ct_eq(&q.reduce(c))
    }

    /// Products `x y / R mod n` in mb8 calls by n's class where there are enough of one
    /// class; `None` for the others (which the caller runs on the core).
    fn products<'a>(
        self,
        lanes: impl Iterator<Item = (Key<'a, IfmaKey>, &'a [Limb], &'a [Limb])>,
    ) -> Vec<Option<Box<[Limb]>>> {
        let lanes: Vec<Option<ifma_mb8::Lane<'a>>> =
            lanes.map(|(key, x, y)| key.state.n().map(|params| (params, x, y))).collect();
        let mut out: Vec<Option<Box<[Limb]>>> = lanes.iter().map(|_| None).collect();
        let classes = lanes.iter().map(|l| l.map(|(params, _, _)| (params.digits(), ())));
        for run in schedule(classes, 8, |_| MIN_PRODUCT_LANES) {
            if let Run::Call(at) = run {
                ifma_mb8::products(self.0, &lanes, &at, &mut out);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bignum::Nat;
    use crate::rsa::key::test_key_2048;

    /// The batched fault check accepts exactly the right results: of eleven operations on
    /// a 2048-bit key (an mb8 call of eight, three more in a second call), each with m and
    /// c = m^e mod n, the one whose m is off by one fails and no other; then a batch of
    /// two (on x2), right, and wrong modulo one prime only.
    #[test]
    fn check_batch_finds_the_wrong_result() {
        let Some(ifma) = Ifma::detect() else {
            eprintln!("skipped: no AVX-512 IFMA on this CPU");
            return;
        };
        let unit = IfmaUnit(ifma);
        let key = test_key_2048();
        let (n, e) = (&key.public.n, &key.public.e);
        let state = unit.state(&key.crt, n);
        let view = Key { crt: &key.crt, n, e, state: &state };
        let mut rng = crate::rng::OsRng;
        let n_nat = n.to_nat();
        let mut ms = Vec::new();
        let mut cs = Vec::new();
        for _ in 0..11 {
            let m = n.elem_from_nat(&Nat::random_below(&n_nat, &mut rng).unwrap()).unwrap();
            cs.push(n.from_mont(&n.pow_vartime(&n.to_mont(&m), e)));
            ms.push(m);
        }
        for wrong in 0..11 {
            let mut ms = ms.clone();
            ms[wrong] = n.add(&ms[wrong], &n.one());
            let ops: Vec<Check<'_, IfmaKey>> =
                ms.iter().zip(&cs).map(|(m, c)| Check { key: view, m, c }).collect();
            let ok: Vec<bool> = unit.check(&ops).into_iter().map(Choice::declassify).collect();
            let want: Vec<bool> = (0..11).map(|i| i != wrong).collect();
            assert_eq!(ok, want, "wrong result in operation {wrong}");
        }
        let ops: Vec<Check<'_, IfmaKey>> =
            ms.iter().zip(&cs).take(2).map(|(m, c)| Check { key: view, m, c }).collect();
        assert!(unit.check(&ops).into_iter().all(Choice::declassify));
        // Groups of two run one by one on x2: a result wrong modulo p only (m + q) or
        // modulo q only (m + p) fails there too, and only its own check.
        let p = n.elem_from_nat(&key.crt.p.modulus.to_nat()).unwrap();
        let q = n.elem_from_nat(&key.crt.q.modulus.to_nat()).unwrap();
        for (wrong, off) in [(0, &q), (1, &q), (0, &p), (1, &p)] {
            let mut ms: Vec<_> = ms.iter().take(2).cloned().collect();
            ms[wrong] = n.add(&ms[wrong], off);
            let ops: Vec<Check<'_, IfmaKey>> =
                ms.iter().zip(&cs).map(|(m, c)| Check { key: view, m, c }).collect();
            let ok: Vec<bool> = unit.check(&ops).into_iter().map(Choice::declassify).collect();
            assert_eq!(ok, [wrong != 0, wrong != 1], "pair, wrong result in operation {wrong}");
        }
    }
}
