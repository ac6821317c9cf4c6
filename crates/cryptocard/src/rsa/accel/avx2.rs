//! The AVX2 unit, for CPUs without AVX-512 IFMA: single operations on the scalar core
//! (its BMI2/ADX kernels beat one exponentiation spread over vector lanes), batches of
//! [`crate::rsa::private_batch`] in four-lane AVX2 calls (`arch/x86_64/mb4`), two
//! operations to a call (lanes 2i and 2i + 1 hold p and q of operation i; keys may
//! differ within a class).
//!
//! A call of four lanes costs about what three exponentiations of the core cost at RSA
//! sizes (`crates/bench`, `mb4 -- exp`), so one operation alone, which fills two lanes,
//! runs on the core, and two operations of one class share a call. Two-prime keys whose
//! primes have 8, 16, 24 or 32 limbs (RSA-1024 to RSA-4096; a prime of another length up
//! to 32 limbs runs in the class above it) run here; others on the core. The fault checks
//! and the products of blinding run on the core (the trait's defaults).
//!
//! Results are exactly the scalar unit's: c^(d_i) mod r_i fully reduced. Should the
//! kernel refuse an operation (it cannot, for residues below their primes), it is
//! recomputed on the core; a wrong result would be caught by the fault check.

use super::ifma_mb8::{Run, lane_outputs, schedule, take_results};
use super::{Accelerator, Key, Lanes};
use crate::arch::x86_64::cpu::Avx2;
use crate::arch::x86_64::mb4::DIGIT_BITS;
use crate::arch::x86_64::mb4::sized::{SecretLane28, SecretParams28, exp_mb4_secret};
use crate::modular::Modulus;
use crate::rsa::crt::{CrtKey, CrtResidues};
use crate::rsa::tags::N;

/// The prime limb lengths of the common key sizes and their digit counts: the fewest
/// even counts `D` with `28 D - 2` bits at least the prime's.
const CLASSES: [(usize, usize); 4] = [(8, 20), (16, 38), (24, 56), (32, 74)];

/// Operations in one call: two lanes each.
const OPS_PER_CALL: usize = 2;

/// The digit count that runs primes of `limbs` limbs, for 8 to 32 limbs.
fn class_for_limbs(limbs: usize) -> Option<usize> {
    if limbs < CLASSES[0].0 {
        return None;
    }
    CLASSES.iter().find(|&&(l, _)| l >= limbs).map(|&(_, d)| d)
}

/// The AVX2 unit, bound to the CPU's proof of AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2Unit(pub(crate) Avx2);

/// A key's parameters for the four-lane kernels: p and q in the class of the longer, for
/// two-prime keys with a class.
pub(crate) struct Avx2Key {
    primes: Option<[SecretParams28; 2]>,
}

impl Avx2Key {
    fn new(crt: &CrtKey) -> Avx2Key {
        let primes = || {
            if !crt.others.is_empty() {
                return None;
            }
            let (p, q) = (&crt.p.modulus, &crt.q.modulus);
            let d = class_for_limbs(p.limbs().max(q.limbs()))?;
            Some([params(p, d)?, params(q, d)?])
        };
        Avx2Key { primes: primes() }
    }
}

/// A prime's parameters in `d` digits.
fn params<T>(m: &Modulus<T>, d: usize) -> Option<SecretParams28> {
    let rr = m.radix_square(DIGIT_BITS as usize * d);
    SecretParams28::new(m.as_limbs(), rr.as_limbs(), d).ok()
}

impl Avx2Key {
    fn class(&self) -> Option<usize> {
        self.primes.as_ref().map(|[p, _]| p.digits())
    }
}

impl Accelerator for Avx2Unit {
    type State = Avx2Key;

    fn state(self, crt: &CrtKey, _: &Modulus<N>) -> Avx2Key {
        Avx2Key::new(crt)
    }

    fn kernel_name(self, _: Key<'_, Avx2Key>) -> &'static str {
        "scalar"
    }

    fn lanes(self, key: Key<'_, Avx2Key>) -> Option<Lanes> {
        let class = key.state.class()?;
        Some(Lanes { class, per_call: OPS_PER_CALL, min_ops: OPS_PER_CALL })
    }

    fn exponentiate(self, ops: &mut [(Key<'_, Avx2Key>, &mut CrtResidues)]) {
        let classes = ops.iter().map(|(key, _)| key.state.class().map(|d| (d, ())));
        for run in schedule(classes, OPS_PER_CALL, |_| OPS_PER_CALL) {
            match run {
                Run::Call(at) => self.call(ops, &at),
                Run::One(i) => ops[i].0.crt.power(ops[i].1),
            }
        }
    }
}

impl Avx2Unit {
    /// Phase (b) of the operations `at` (at most two, one class) of `ops` in one call.
    fn call(self, ops: &mut [(Key<'_, Avx2Key>, &mut CrtResidues)], at: &[usize]) {
        let mut outs = lane_outputs(at.iter().map(|&i| ops[i].0));
        let status = {
            let mut lanes: [Option<SecretLane28<'_>>; 4] = Default::default();
            for ((slot, out), lane) in lanes.iter_mut().zip(outs.iter_mut()).zip(0..) {
                let (key, r) = &ops[at[lane / 2]];
                let [p, q] = key.state.primes.as_ref().expect("internal error: no AVX2 primes");
                let (crt, exp) = (&key.crt, &key.crt.p.exponent);
                *slot = Some(match lane % 2 {
                    0 => SecretLane28 { params: p, base: r.p.as_limbs(), exp, out },
                    _ => {
                        SecretLane28 { params: q, base: r.q.as_limbs(), exp: &crt.q.exponent, out }
                    }
                });
            }
            exp_mb4_secret(self.0, lanes, None)
        };
        take_results(ops, at, &status, outs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every prime length from 8 to 32 limbs gets the smallest compiled count that holds
    /// it, with `4 p < 2^(28 D)`; none outside.
    #[test]
    fn classes_cover_8_to_32_limbs() {
        use crate::arch::x86_64::mb4::DIGITS;
        use crate::arch::x86_64::radix::max_modulus_bits;
        for limbs in 0..40 {
            let Some(d) = class_for_limbs(limbs) else {
                assert!(!(8..=32).contains(&limbs), "{limbs} limbs");
                continue;
            };
            assert!((8..=32).contains(&limbs));
            assert!(DIGITS.contains(&d));
            assert!(64 * limbs <= max_modulus_bits(d, DIGIT_BITS), "{limbs} limbs in {d}");
        }
    }
}
