//! The CRT backend on the AVX-512 IFMA kernels (`arch/x86_64/ifma`): phase (b) of the
//! private operation in radix 2^52.
//!
//! * One operation: both CRT halves interleaved in one register set (`exp_x2`, OpenSSL's
//!   `ossl_rsaz_mod_exp_avx512_x2` organisation), in the class of the longer prime.
//! * A batch ([`CrtBackend::exponentiate_batch`]): requests of one class in 8-lane mb8
//!   batches (Intel crypto_mb's `mb8`), keys may differ. The lanes are the two CRT halves
//!   of up to [`MB8_OPS`] = 4 operations (lanes 2i and 2i + 1 hold p and q of operation
//!   i). Eight operations' p-halves then their q-halves (two batches) would cost the same
//!   per operation, but need eight requests to fill a batch where this layout needs four,
//!   so a partial batch wastes fewer lanes and a batch is ready sooner; and an operation's
//!   residues stay together, so one call finishes whole operations. A group smaller than
//!   [`mb8_min_ops`] runs its operations one by one on x2, which is faster there.
//!
//! Two-prime keys whose primes have 8 to 64 limbs (1024- to 8192-bit keys) run here, in
//! the size class (`rsa_glue::CLASSES`) of the longer prime or the next one up
//! ([`class_for_limbs`]); keys with more than two primes, or shorter or longer ones, run
//! on the scalar backend. The kernels need `RR = 2^(104 D) mod
//! p` for each secret prime; it is computed in constant time by the modular core
//! ([`rr52`]), once per key, on first use, and kept (zeroized on drop) in the key's
//! [`CrtKey`].
//!
//! # Speed
//!
//! PKCS#1 v1.5 signatures (digest given) beside OpenSSL 3.0.19 (its default code, which
//! has IFMA for RSA-2048 only) in the same process, interleaved, best of 31 runs of 30 ms
//! (`tests/rsa_accel_speed.rs`, ignored), ops/s (ratio to OpenSSL); AMD EPYC Zen 4, two
//! cores shared with other builds, so the figures move by 10% from run to run:
//!
//! | RSA  | OpenSSL 3.0 | scalar     | IFMA x2     | `private_batch` of 8 |
//! |------|------------:|-----------:|------------:|---------------------:|
//! | 2048 |        4046 | 1943 (0.48)| 4485 (1.11) |          6256 (1.55) |
//! | 3072 |         571 |  642 (1.12)| 1373 (2.41) |          2192 (3.84) |
//! | 4096 |         251 |  283 (1.13)|  654 (2.60) |           976 (3.88) |
//!
//! Sizes between the classes, in the class above (`rsa_private_between_classes`, a later
//! run, with the fault check on x2): the 1536-bit key's primes in 20 digits, 2560 in 30,
//! 7680 in 79:
//!
//! | RSA  | OpenSSL 3.0 | scalar     | IFMA x2     | `private_batch` of 8 |
//! |------|------------:|-----------:|------------:|---------------------:|
//! | 1536 |        2737 | 2611 (0.95)| 6018 (2.20) |          8784 (3.21) |
//! | 2560 |         691 |  771 (1.12)| 1661 (2.41) |          2573 (3.73) |
//! | 7680 |          28 |   39 (1.36)|   86 (3.05) |            86 (3.05) |
//!
//! The exponentiations are nearly all of it: the x2 pair alone is 202 us at 2048 bits,
//! 4.9k/s, and a 4-operation mb8 batch 545 us, 7.3k/s (`arch/x86_64/ifma`); the rest,
//! timed per phase in a `private_batch` of 8 at 2048 bits (`tests/rsa_accel_profile.rs`,
//! Zen 4, loaded machine): phase (a) 4.9 us an operation (blinding, whose fresh pairs
//! come 8 to an inversion, `blinding.rs`; reduction mod p and q), phase (c) 16 us
//! (Garner 1.6, the fault check 11.3, unblinding 1.0, the pair's squarings 1.7). The
//! fault check, m^e mod p and mod q, was then on the scalar core; it now runs on the x2
//! kernel ([`CrtBackend::check`] below: binary exponentiation of the pair, 17 products for
//! e = 65537), about 3 us, which took the `private_batch` of 8 from 6315 to 6606
//! operations a second and the single operation from 4376 to 4515 (same machine, runs
//! minutes apart). In a `private_batch` the checks of one class and one e now run
//! together, four operations to an mb8 call ([`IfmaBackend::check_batch`], 17 products
//! for four operations where x2 makes 17 for each), against the residues of c' that phase
//! (a) made (no second reduction of c'): a `private_batch` of 8 at 2048 bits went from
//! 7016 to 7149 operations a second (+1.9%, `tests/rsa_accel_profile.rs`, the two builds
//! alternated three times). The products modulo n of a batch (blinding, unblinding, the
//! pairs' squarings: four an operation, 3% of it on the ADX core) then went to mb8 calls
//! too (`mul_batch.rs`, 3.3 us for eight 2048-bit products against 7.3 us): 7135 to 7178
//! operations a second (+0.6%, same method).
//!
//! Results are exactly the scalar backend's: both compute c^(d_i) mod r_i fully reduced.
//! Should a kernel refuse a lane (it cannot, for residues below their primes), that half
//! is recomputed on the scalar backend; a wrong half would be caught by the fault check
//! of phase (c).

use super::crt::{CheckJob, CrtBackend, CrtKey, CrtResidues, ScalarBackend};
use super::tags::{N, P, Q};
use crate::arch::x86_64::cpu::Ifma;
use crate::arch::x86_64::ifma::LaneStatus;
use crate::arch::x86_64::ifma::rsa_glue::{
    SecretLane, SecretParams52, class_for_limbs, exp_mb8_public, exp_mb8_secret,
};
use crate::bignum::{LIMB_BITS, Limb, Nat};
use crate::ct::Choice;
use crate::modular::{Elem, Modulus, Mont, Plain};
use std::sync::Arc;
use zeroize::Zeroize;

/// Operations in one mb8 batch: two lanes each.
pub(crate) const MB8_OPS: usize = 4;

/// The smallest group of operations of one class that runs as an mb8 batch; smaller ones
/// run one by one on x2. From the kernels' timings on AMD Zen 4 (`arch/x86_64/ifma`):
/// a batch of 4 costs 1.6 x2 pairs at 10 digits, 2.5 at 20, 2.8 at 30, 2.7 at 40, about
/// 2.6 at 60 (at 79 digits a batch is four x2 pairs and there is no mb8 class).
pub(crate) fn mb8_min_ops(digits: usize) -> usize {
    match digits {
        10 => 2,
        _ => 3,
    }
}

/// A key's IFMA parameters: both primes, in one class.
pub(crate) struct IfmaKey {
    p: SecretParams52,
    q: SecretParams52,
}

/// `RR = 2^(104 D) mod p` for the IFMA kernels with `D` digits, in constant time: with
/// `R = 2^(64 L)` the modular core's radix (L limbs) and `t = 104 D - 128 L >= 4`
/// (`D >= (64 L + 2) / 52`), two entries into Montgomery form give `2^t R^2 = 2^(104 D)`.
/// No division by the secret p (the reduction of `2^t`, a public number of fewer than `2L`
/// limbs for every class a prime can run in, is by Montgomery products).
/// The result's limbs are RR (its `Mont` tag says only that it came out of `to_mont`).
pub(crate) fn rr52<T>(m: &Modulus<T>, digits: usize) -> Elem<T, Mont> {
    let t = 104 * digits - 2 * LIMB_BITS * m.limbs();
    let mut two_t = Nat::zero();
    two_t.set_bit(t, true);
    let x = m.to_mont(&m.elem_reduce(&two_t));
    // x's limbs are 2^t R mod p; as a plain value into Montgomery form once more.
    m.to_mont(&Elem::<T, Plain>::from_boxed(x.as_limbs().into()))
}

impl IfmaKey {
    /// The parameters of a two-prime key whose longer prime has a class, else `None`.
    fn new(key: &CrtKey) -> Option<IfmaKey> {
        if !key.others.is_empty() {
            return None;
        }
        let (lp, lq) = (key.p.modulus.limbs(), key.q.modulus.limbs());
        let d = class_for_limbs(lp.max(lq))?;
        let params = |m: &[Limb], rr: &[Limb]| SecretParams52::new(m, rr, d).ok();
        let p = params(key.p.modulus.as_limbs(), rr52(&key.p.modulus, d).as_limbs())?;
        let q = params(key.q.modulus.as_limbs(), rr52(&key.q.modulus, d).as_limbs())?;
        Some(IfmaKey { p, q })
    }

    /// The key's parameters, made on first use.
    pub(crate) fn of(key: &CrtKey) -> Option<&IfmaKey> {
        key.ifma.get_or_init(|| IfmaKey::new(key).map(Arc::new)).as_deref()
    }

    /// Whether the key's operations run in mb8 batches, and in which class (digits).
    fn mb8_class(&self) -> Option<usize> {
        self.p.has_mb8().then(|| self.p.digits())
    }
}

/// The kernels a key's single operation runs on under IFMA.
pub(crate) fn kernel_name(key: &CrtKey) -> &'static str {
    match IfmaKey::of(key) {
        Some(_) => "ifma-x2",
        None => "scalar",
    }
}

/// The size class by which batches group requests (see `batch.rs`): `Some(digits)` for
/// keys whose operations run in mb8 lanes.
pub(crate) fn batch_digits(key: &CrtKey) -> Option<usize> {
    IfmaKey::of(key).and_then(IfmaKey::mb8_class)
}

/// The IFMA backend, bound to the CPU's proof of IFMA.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IfmaBackend(pub(crate) Ifma);

impl CrtBackend for IfmaBackend {
    fn name(&self) -> &'static str {
        "ifma"
    }

    fn exponentiate(&self, key: &CrtKey, r: &mut CrtResidues) {
        let Some(k) = IfmaKey::of(key) else { return ScalarBackend.exponentiate(key, r) };
        let (lp, lq) = (key.p.modulus.limbs(), key.q.modulus.limbs());
        let (mut mp, mut mq) = (vec![0; lp].into_boxed_slice(), vec![0; lq].into_boxed_slice());
        let (bp, bq) = (r.p.as_limbs(), r.q.as_limbs());
        let (ep, eq) = (&key.p.exponent[..], &key.q.exponent[..]);
        let pair = [&k.p, &k.q];
        match SecretParams52::exp_x2(self.0, [&mut mp, &mut mq], [bp, bq], [ep, eq], pair) {
            Ok(()) => (r.p, r.q) = (Elem::from_boxed(mp), Elem::from_boxed(mq)),
            // Zero-filled by the kernel.
            Err(_) => ScalarBackend.exponentiate(key, r),
        }
    }

    /// m^e mod p and mod q in one x2 pass (`exp_public_x2`: 17 products of the pair for
    /// e = 65537, about a fifth of the scalar check's time at 2048 bits), compared with c
    /// mod p and mod q; keys without IFMA parameters take the scalar check.
    fn check(&self, key: &CrtKey, m: &Elem<N, Plain>, c: &CrtResidues, e: &Nat) -> Choice {
        let Some(k) = IfmaKey::of(key) else { return key.check(m, c, e) };
        let (mp, mq) = (key.p.reduce(m.as_limbs()), key.q.reduce(m.as_limbs()));
        let (lp, lq) = (key.p.modulus.limbs(), key.q.modulus.limbs());
        let (mut op, mut oq) = (vec![0; lp].into_boxed_slice(), vec![0; lq].into_boxed_slice());
        let ok = SecretParams52::exp_public_x2(
            self.0,
            [&mut op, &mut oq],
            [mp.as_limbs(), mq.as_limbs()],
            e.as_limbs(),
            [&k.p, &k.q],
        );
        if ok.is_err() {
            return key.check(m, c, e);
        }
        let (op, oq) = (Elem::<P, Plain>::from_boxed(op), Elem::<Q, Plain>::from_boxed(oq));
        op.ct_eq(&c.p) & oq.ct_eq(&c.q)
    }

    fn exponentiate_batch(&self, jobs: &mut [(&CrtKey, &mut CrtResidues)]) {
        let classes = jobs.iter().map(|(key, _)| batch_digits(key).map(|d| (d, ())));
        for run in schedule(classes, MB8_OPS, mb8_min_ops) {
            match run {
                Run::Mb8(ops) => self.mb8(jobs, &ops),
                Run::One(i) => {
                    let (key, residues) = &mut jobs[i];
                    self.exponentiate(key, residues);
                }
            }
        }
    }

    /// The checks of one class and one e in mb8 calls (`exp_mb8_public`, both halves of
    /// up to [`MB8_OPS`] operations: 17 products for e = 65537 where x2 makes 17 per
    /// operation), a group too small for a batch one by one on x2.
    fn check_batch(&self, jobs: &[CheckJob<'_>]) -> Vec<Choice> {
        let mut ok: Vec<Choice> = vec![Choice::FALSE; jobs.len()];
        let classes = jobs.iter().map(|&(key, _, _, e)| batch_digits(key).map(|d| (d, e)));
        for run in schedule(classes, MB8_OPS, mb8_min_ops) {
            match run {
                Run::Mb8(ops) => self.check_mb8(jobs, &ops, &mut ok),
                Run::One(i) => {
                    let (key, m, c, e) = jobs[i];
                    ok[i] = self.check(key, m, c, e);
                }
            }
        }
        ok
    }
}

/// One step of a batch in lanes: an mb8 call for the jobs at these indices (one class),
/// or one job alone (on x2, or the core).
pub(crate) enum Run {
    Mb8(Vec<usize>),
    One(usize),
}

/// The steps of a batch whose jobs have these classes (the mb8 digit count and whatever
/// else must be shared within a call; `None`: no lanes): each class in mb8 calls of up to
/// `per_call` jobs, those of a call with fewer than `min_jobs(digits)` and the classless
/// ones alone. The operations of `private_batch` go `MB8_OPS` to a call from
/// [`mb8_min_ops`]; `mul_batch`'s products eight to a call.
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
                runs.push(Run::Mb8(chunk.to_vec()));
            } else {
                runs.extend(chunk.iter().map(|&i| Run::One(i)));
            }
        }
    }
    runs
}

/// Zeroed outputs for the lanes of operations with these keys: p's, then q's, of each.
fn lane_outputs<'a>(keys: impl Iterator<Item = &'a CrtKey>) -> Vec<Box<[Limb]>> {
    keys.flat_map(|k| [k.p.modulus.limbs(), k.q.modulus.limbs()])
        .map(|l| vec![0; l].into_boxed_slice())
        .collect()
}

impl IfmaBackend {
    /// The fault checks of `ops` (at most four, one class, one e) in one mb8 call.
    fn check_mb8(&self, jobs: &[CheckJob<'_>], ops: &[usize], ok: &mut [Choice]) {
        let e = jobs[ops[0]].3;
        let bases: Vec<(Elem<P, Plain>, Elem<Q, Plain>)> = ops
            .iter()
            .map(|&i| {
                (jobs[i].0.p.reduce(jobs[i].1.as_limbs()), jobs[i].0.q.reduce(jobs[i].1.as_limbs()))
            })
            .collect();
        let mut outs = lane_outputs(ops.iter().map(|&i| jobs[i].0));
        let status = {
            let mut lanes: [Option<SecretLane<'_>>; 8] = Default::default();
            for ((slot, out), lane) in lanes.iter_mut().zip(outs.iter_mut()).zip(0..) {
                let key = jobs[ops[lane / 2]].0;
                let k = IfmaKey::of(key).expect("internal error: mb8 check without IFMA key");
                let (params, base) = match lane % 2 {
                    0 => (&k.p, bases[lane / 2].0.as_limbs()),
                    _ => (&k.q, bases[lane / 2].1.as_limbs()),
                };
                *slot = Some(SecretLane { params, base, exp: e.as_limbs(), out });
            }
            exp_mb8_public(self.0, lanes, e.as_limbs())
        };
        let mut outs = outs.into_iter();
        for (j, &i) in ops.iter().enumerate() {
            let (key, m, c, e) = jobs[i];
            ok[i] = match (status[2 * j], status[2 * j + 1], outs.next(), outs.next()) {
                (LaneStatus::Done, LaneStatus::Done, Some(op), Some(oq)) => {
                    let (op, oq) =
                        (Elem::<P, Plain>::from_boxed(op), Elem::<Q, Plain>::from_boxed(oq));
                    op.ct_eq(&c.p) & oq.ct_eq(&c.q)
                }
                _ => self.check(key, m, c, e),
            };
        }
    }

    /// One mb8 batch: the operations `ops` (at most four, one class) of `jobs`.
    fn mb8(&self, jobs: &mut [(&CrtKey, &mut CrtResidues)], ops: &[usize]) {
        let mut outs = lane_outputs(ops.iter().map(|&i| jobs[i].0));
        let status = {
            let mut lanes: [Option<SecretLane<'_>>; 8] = Default::default();
            for ((slot, out), lane) in lanes.iter_mut().zip(outs.iter_mut()).zip(0..) {
                let (key, residues) = &jobs[ops[lane / 2]];
                let k = IfmaKey::of(key).expect("internal error: mb8 job without IFMA key");
                *slot = Some(if lane % 2 == 0 {
                    let (p, base) = (&key.p, residues.p.as_limbs());
                    SecretLane { params: &k.p, base, exp: &p.exponent, out }
                } else {
                    let (q, base) = (&key.q, residues.q.as_limbs());
                    SecretLane { params: &k.q, base, exp: &q.exponent, out }
                });
            }
            exp_mb8_secret(self.0, lanes)
        };
        let mut outs = outs.into_iter();
        for (j, &i) in ops.iter().enumerate() {
            let (key, residues) = &mut jobs[i];
            let (mp, mq) = (outs.next(), outs.next());
            match (status[2 * j], status[2 * j + 1], mp, mq) {
                (LaneStatus::Done, LaneStatus::Done, Some(mp), Some(mq)) => {
                    residues.p = Elem::from_boxed(mp);
                    residues.q = Elem::from_boxed(mq);
                }
                (_, _, mp, mq) => {
                    // Zero-filled by a failed lane; a finished one is secret.
                    for mut m in [mp, mq].into_iter().flatten() {
                        m.zeroize();
                    }
                    ScalarBackend.exponentiate(key, residues)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::x86_64::ifma::radix52::max_modulus_bits;
    use crate::arch::x86_64::ifma::rsa_glue::CLASSES;

    /// Every prime length from 8 to 64 limbs gets the smallest class that holds it; none
    /// outside.
    #[test]
    fn classes_cover_8_to_64_limbs() {
        for limbs in 0..80 {
            let got = class_for_limbs(limbs);
            if !(8..=64).contains(&limbs) {
                assert_eq!(got, None, "{limbs} limbs");
                continue;
            }
            let d = got.unwrap();
            assert!(64 * limbs <= max_modulus_bits(d), "{limbs} limbs in {d} digits");
            assert!(CLASSES.iter().all(|&(_, c)| c >= d || 64 * limbs > max_modulus_bits(c)));
        }
        for (limbs, digits) in CLASSES {
            assert_eq!(class_for_limbs(limbs), Some(digits));
        }
    }

    /// The batched fault check accepts exactly the right results: of five operations on a
    /// 2048-bit key (an mb8 call of four, one on x2), each with m and c = m^e mod n, the
    /// one whose m is off by one fails and no other; then every one of a batch of three.
    #[test]
    fn check_batch_finds_the_wrong_result() {
        let Some(ifma) = crate::arch::x86_64::cpu::Ifma::detect() else {
            eprintln!("skipped: no AVX-512 IFMA on this CPU");
            return;
        };
        let key = crate::rsa::key::test_key_2048();
        let (n, e) = (&key.public.n, &key.public.e);
        let mut rng = crate::rng::OsRng;
        let n_nat = n.to_nat();
        let mut ms = Vec::new();
        let mut cs = Vec::new();
        for _ in 0..5 {
            let m = n.elem_from_nat(&Nat::random_below(&n_nat, &mut rng).unwrap()).unwrap();
            let c = n.from_mont(&n.pow_vartime(&n.to_mont(&m), e));
            cs.push(key.crt.reduce(&c));
            ms.push(m);
        }
        for wrong in 0..5 {
            let mut ms = ms.clone();
            ms[wrong] = n.add(&ms[wrong], &n.one());
            let jobs: Vec<CheckJob<'_>> =
                ms.iter().zip(&cs).map(|(m, c)| (&key.crt, m, c, e)).collect();
            let ok = IfmaBackend(ifma).check_batch(&jobs);
            let ok: Vec<bool> = ok.into_iter().map(Choice::declassify).collect();
            let want: Vec<bool> = (0..5).map(|i| i != wrong).collect();
            assert_eq!(ok, want, "wrong result in operation {wrong}");
        }
        let jobs: Vec<CheckJob<'_>> =
            ms.iter().zip(&cs).take(3).map(|(m, c)| (&key.crt, m, c, e)).collect();
        assert!(IfmaBackend(ifma).check_batch(&jobs).into_iter().all(Choice::declassify));
    }

    /// `rr52` against the long division it replaces (variable time, fine for a test), for
    /// odd moduli of every class with the top bit set, clear, and short by a limb's worth,
    /// and for primes of lengths between the classes in the class above them.
    #[test]
    fn rr52_is_the_radix_square() {
        let mut rng = crate::rng::OsRng;
        let lengths = CLASSES.iter().map(|&(l, _)| l).chain([9, 12, 17, 20, 28, 33, 49]);
        for limbs in lengths {
            let digits = class_for_limbs(limbs).unwrap();
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
