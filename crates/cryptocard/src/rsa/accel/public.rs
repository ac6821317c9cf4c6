//! The public operation x^e mod n (RSAEP and RSAVP1, RFC 8017 sections 5.1.1 and
//! 5.2.2) on the fastest unit this CPU has: signature verification and encryption.
//!
//! With AVX-512 IFMA, x^e mod n runs on the x2 kernel that the private operation's
//! fault check uses (`exp_public_one`, binary left to right over e's bits), with x in
//! both of its slots: the second slot's work is wasted, and still the kernel beats the
//! scalar core's `mulx/adcx/adox` products from 512-bit moduli up, the conversions into
//! and out of radix 2^52 included (`docs/performance.md`'s verify and encrypt rows, where
//! `CRYPTOCARD_BACKEND=avx2` shows the core beside them). n runs in the digit count of the
//! primes of its limb length (`sized::digits_for_limbs`: 8 to 64 limbs, so 512- to
//! 4096-bit moduli); longer ones, and every modulus on a CPU without IFMA, run on the
//! core's sliding window ([`crate::modular::Modulus::pow_vartime`]).
//!
//! n's parameters in radix 2^52 (its digits, `RR = 2^(104 D) mod n` and `k0`) are made
//! on the key's first public operation, about a microsecond, and kept with the key
//! (shared by its clones). Both paths give the same result bit for bit; both are
//! constant time in x (a secret when encrypting) and leak e's bits only.
//!
//! The process default backend (`choice.rs`) decides, as for private operations:
//! `scalar` and `avx2` (which stand for CPUs without IFMA) keep public operations on the
//! core, the others use IFMA where the CPU has it. A `CRYPTOCARD_BACKEND` the process
//! cannot use makes private operations fail; public operations then run on the core.

use crate::bignum::Nat;
use crate::modular::{Elem, Modulus, Plain};
use crate::rsa::tags::N;
#[cfg(target_arch = "x86_64")]
use {
    super::choice::{Backend, default_backend},
    crate::arch::x86_64::{
        cpu::Ifma,
        ifma::sized::{SecretParams52, digits_for_limbs},
    },
    std::sync::{Arc, OnceLock},
};

/// What a public key keeps for its public operations on the units: n's IFMA parameters,
/// made on first use (`None` where n has no digit count).
#[derive(Clone, Default)]
pub(crate) struct PublicAccel {
    #[cfg(target_arch = "x86_64")]
    ifma: OnceLock<Option<Arc<SecretParams52>>>,
}

impl PublicAccel {
    /// x^e mod n for x < n, fully reduced.
    pub(crate) fn power(&self, n: &Modulus<N>, e: &Nat, x: &Elem<N, Plain>) -> Elem<N, Plain> {
        #[cfg(target_arch = "x86_64")]
        if let Some(y) = self.power_ifma(public_ifma(), n, e, x) {
            return y;
        }
        n.from_mont(&n.pow_vartime(&n.to_mont(x), e))
    }

    /// The name of the kernels this key's public operations run on here: `"ifma-x2"` or
    /// `"scalar"`.
    pub(crate) fn kernel_name(&self, n: &Modulus<N>) -> &'static str {
        #[cfg(target_arch = "x86_64")]
        if public_ifma().is_some() && self.ifma_params(n).is_some() {
            return "ifma-x2";
        }
        let _ = n;
        "scalar"
    }

    /// x^e mod n on the IFMA kernels, where `ifma` is given and n has a digit count.
    #[cfg(target_arch = "x86_64")]
    fn power_ifma(
        &self,
        ifma: Option<Ifma>,
        n: &Modulus<N>,
        e: &Nat,
        x: &Elem<N, Plain>,
    ) -> Option<Elem<N, Plain>> {
        let (ifma, params) = (ifma?, self.ifma_params(n)?);
        let mut out = vec![0; n.limbs()].into_boxed_slice();
        // x < n, so the kernel takes it; were it refused, the core would compute it.
        params.exp_public_one(ifma, &mut out, x.as_limbs(), e.as_limbs()).ok()?;
        Some(Elem::from_boxed(out))
    }

    /// n's parameters in the digit count of its limb length, made on first use; `None`
    /// where n's length has none.
    #[cfg(target_arch = "x86_64")]
    fn ifma_params(&self, n: &Modulus<N>) -> Option<&SecretParams52> {
        let made = self.ifma.get_or_init(|| {
            let d = digits_for_limbs(n.limbs())?;
            let rr = rr52_public(n, d)?;
            SecretParams52::new(n.as_limbs(), rr.as_limbs(), d).ok().map(Arc::new)
        });
        made.as_deref()
    }
}

/// `RR = 2^(104 D) mod n` for n's parameters in `D` digits: the core's `R^2 mod n`
/// (`R = 2^(64 L)`, L limbs) times `2^t`, `t = 104 D - 128 L` (4 to 96 bits at the
/// classes' own lengths, more between them), reduced by a division whose quotient has t
/// bits. That is cheaper than `ifma_key::rr52`'s two Montgomery products (constant time,
/// for secret primes), which a key used once (a certificate's) would pay in full.
/// Variable time: n is public.
#[cfg(target_arch = "x86_64")]
fn rr52_public(n: &Modulus<N>, d: usize) -> Option<Nat> {
    let t = (104 * d).checked_sub(128 * n.limbs())?;
    (Nat::from_slice(&n.rr) << t).rem(&n.to_nat()).ok()
}

/// The IFMA proof, where the process default lets public operations use it.
#[cfg(target_arch = "x86_64")]
fn public_ifma() -> Option<Ifma> {
    match default_backend() {
        Ok(Backend::Auto | Backend::Ifma | Backend::Gpu) => Ifma::detect(),
        Ok(Backend::Scalar | Backend::Avx2) | Err(_) => None,
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// The IFMA path against the core's, for moduli of every digit count (exact class
    /// sizes and lengths between them, top bit set or not), for e = 3, 65537 and a
    /// 64-bit e, at x = 0, 1, n - 1 and random x; past 64 limbs it declines.
    #[test]
    fn ifma_matches_the_core() {
        let Some(ifma) = Ifma::detect() else {
            eprintln!("skipped: no AVX-512 IFMA on this CPU");
            return;
        };
        let mut rng = crate::rng::OsRng;
        let exps = [Nat::from_u64(3), Nat::from_u64(65537), Nat::from_u64(u64::MAX)];
        for bits in [512, 1024, 1100, 1536, 2047, 2048, 2560, 3072, 3500, 4096] {
            let mut nn = Nat::random_bits(bits, &mut rng).unwrap();
            nn.set_bit(0, true);
            nn.set_bit(bits - 1, true);
            let n = Modulus::<N>::from_nat(&nn).unwrap();
            let accel = PublicAccel::default();
            assert!(accel.ifma_params(&n).is_some(), "{bits} bits have a digit count");
            let mut xs = vec![Nat::zero(), Nat::from_u64(1), nn.sub(&Nat::from_u64(1)).unwrap()];
            xs.extend((0..4).map(|_| Nat::random_below(&nn, &mut rng).unwrap()));
            for e in &exps {
                for x in &xs {
                    let x = n.elem_from_nat(x).unwrap();
                    let want = n.from_mont(&n.pow_vartime(&n.to_mont(&x), e));
                    let got = accel.power_ifma(Some(ifma), &n, e, &x).unwrap();
                    assert_eq!(got.as_limbs(), want.as_limbs(), "{bits} bits, e = {e:?}");
                }
            }
        }
        let mut nn = Nat::random_bits(4160, &mut rng).unwrap();
        nn.set_bit(0, true);
        let n = Modulus::<N>::from_nat(&nn).unwrap();
        let x = n.elem_from_nat(&Nat::from_u64(2)).unwrap();
        assert!(PublicAccel::default().power_ifma(Some(ifma), &n, &exps[1], &x).is_none());
    }
}
