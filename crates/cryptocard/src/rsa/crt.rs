//! The CRT form of the private key: the primes with their exponents, the residues of one
//! operation, and Garner's recombination.
//!
//! RFC 8017 section 5.1.2 (RSADP), step 2.b: with c < n,
//!
//! ```text
//! m_1 = c^dP mod p,  m_2 = c^dQ mod q,  m_i = c^(d_i) mod r_i (i >= 3)   -- step 2.b.i-ii
//! ```
//!
//! then Garner's recombination (steps 2.b.iii-v, [`crate::modular::crt`]). Each m_i costs
//! an exponentiation with a |r_i|-bit exponent modulo a |r_i|-bit prime, about 1/8 of
//! the work of c^d mod n for two primes (Kaliski, "The Z80180 and big-number
//! arithmetic"; Markovic et al. measured more than 2.5 times on the TMS320C54x; Shand,
//! Bertin and Vuillemin let the host do the CRT while their boards exponentiate).
//!
//! The private operation ([`super::private`]) reduces c mod every prime (phase (a)),
//! hands the residues to a unit that raises each to its exponent (phase (b),
//! [`super::accel`]), and recombines them here (phase (c)). A [`CrtKey`] is
//! numbers only: the unit's own form of a key is kept by the seam.

use super::tags::{Extra, N, P, Q};
use crate::bignum::{LIMB_BITS, Limb, Nat};
use crate::modular::{CrtPrime, Elem, Modulus, Mont, Plain, ct_window_bits, garner_multi};
use crate::{Error, Result};
use zeroize::Zeroizing;

/// One prime with its CRT exponent.
pub(crate) struct PrimeCtx<T> {
    pub(crate) modulus: Modulus<T>,
    /// d_i = d mod (r_i - 1), zero-padded to the prime's limb length: the exponentiation
    /// then leaks that length only.
    pub(crate) exponent: Zeroizing<Vec<Limb>>,
    /// Whether every c < n is < r_i * R (R = 2^(64 len(r_i))), so that c mod r_i is one
    /// REDC and one product ([`Modulus::reduce_wide`]). False for the usual keys, whose
    /// primes fill their top limb; [`Modulus::reduce_limbs`] then costs the same, its top
    /// chunk being one conditional subtraction.
    wide: bool,
}

impl<T> PrimeCtx<T> {
    fn new(n: &Nat, prime: &Nat, exponent: &Nat) -> Result<PrimeCtx<T>> {
        let modulus = Modulus::from_nat(prime).map_err(|_| Error::InvalidKey("bad prime"))?;
        let exponent = Zeroizing::new(
            exponent
                .to_limbs_padded(modulus.limbs())
                .map_err(|_| Error::InvalidKey("CRT exponent longer than its prime"))?,
        );
        // bits(n / r) <= bits(n) - bits(r) + 1, so this bound is safe.
        let wide = n.bits() < prime.bits() + LIMB_BITS * modulus.limbs();
        Ok(PrimeCtx { modulus, exponent, wide })
    }

    /// c mod r_i for c < n (given as n's limbs). Constant time.
    pub(crate) fn reduce(&self, c: &[Limb]) -> Elem<T, Plain> {
        match self.wide.then(|| self.modulus.reduce_wide(c)) {
            Some(Ok(r)) => r,
            _ => self.modulus.reduce_limbs(c),
        }
    }

    /// c^(d_i) mod r_i by the constant-time fixed window. Leaks the limb length of r_i.
    pub(crate) fn power(&self, c: &Elem<T, Plain>) -> Elem<T, Plain> {
        let m = &self.modulus;
        let window = ct_window_bits(self.exponent.len() * LIMB_BITS);
        m.from_mont(&m.pow_window(&m.to_mont(c), &self.exponent, window))
    }
}

impl<T> Clone for PrimeCtx<T> {
    fn clone(&self) -> Self {
        PrimeCtx { modulus: self.modulus.clone(), exponent: self.exponent.clone(), wide: self.wide }
    }
}

/// An extra prime r_i (i >= 3) of a multi-prime key with its coefficient t_i.
#[derive(Clone)]
pub(crate) struct OtherPrime {
    pub(crate) prime: PrimeCtx<Extra>,
    /// t_i = (r_1 ... r_{i-1})^-1 mod r_i, in Montgomery form.
    pub(crate) t: Elem<Extra, Mont>,
}

/// The private key in the form the exponentiations and Garner's recombination use.
#[derive(Clone)]
pub(crate) struct CrtKey {
    pub(crate) p: PrimeCtx<P>,
    pub(crate) q: PrimeCtx<Q>,
    /// qInv = q^-1 mod p, in Montgomery form.
    pub(crate) q_inv: Elem<P, Mont>,
    pub(crate) others: Vec<OtherPrime>,
}

impl CrtKey {
    /// Precomputes from validated values ([`super::validate`]).
    pub(crate) fn new(
        n: &Nat,
        primes: &[Nat],
        exponents: &[Nat],
        coefficients: &[Nat],
    ) -> Result<CrtKey> {
        let p: PrimeCtx<P> = PrimeCtx::new(n, &primes[0], &exponents[0])?;
        let q = PrimeCtx::new(n, &primes[1], &exponents[1])?;
        let bad = |_| Error::InvalidKey("CRT coefficient out of range");
        let q_inv = p.modulus.to_mont(&p.modulus.elem_from_nat(&coefficients[0]).map_err(bad)?);
        let mut others = Vec::with_capacity(primes.len() - 2);
        for i in 2..primes.len() {
            let prime: PrimeCtx<Extra> = PrimeCtx::new(n, &primes[i], &exponents[i])?;
            let t = prime
                .modulus
                .to_mont(&prime.modulus.elem_from_nat(&coefficients[i - 1]).map_err(bad)?);
            others.push(OtherPrime { prime, t });
        }
        Ok(CrtKey { p, q, q_inv, others })
    }

    /// Phase (a), second half: c mod r_i for every prime (RSADP step 2.b's inputs).
    pub(crate) fn reduce(&self, c: &Elem<N, Plain>) -> CrtResidues {
        let c = c.as_limbs();
        CrtResidues {
            p: self.p.reduce(c),
            q: self.q.reduce(c),
            others: self.others.iter().map(|o| o.prime.reduce(c)).collect(),
        }
    }

    /// Phase (b) on the scalar core: every residue c_i replaced by c_i^(d_i) mod r_i, one
    /// prime after the other.
    pub(crate) fn power(&self, r: &mut CrtResidues) {
        r.p = self.p.power(&r.p);
        r.q = self.q.power(&r.q);
        for (o, m) in self.others.iter().zip(r.others.iter_mut()) {
            *m = o.prime.power(m);
        }
    }

    /// Phase (c), first half: Garner's recombination (RSADP steps 2.b.iii-v). A result
    /// that does not fit n can only come from a wrong residue: [`Error::FaultDetected`].
    pub(crate) fn recombine(&self, r: &CrtResidues, n: &Modulus<N>) -> Result<Elem<N, Plain>> {
        let others: Vec<CrtPrime<'_, Extra>> = self
            .others
            .iter()
            .zip(&r.others)
            .map(|(o, m)| CrtPrime { modulus: &o.prime.modulus, residue: m, coefficient: &o.t })
            .collect();
        garner_multi(&self.p.modulus, &self.q.modulus, &r.p, &r.q, &self.q_inv, &others, n)
            .map_err(|_| Error::FaultDetected)
    }
}

/// One request's residues: c mod r_i after phase (a), c^(d_i) mod r_i after phase (b).
/// Each is fully reduced and has its prime's limb length.
#[derive(Clone)]
pub(crate) struct CrtResidues {
    pub(crate) p: Elem<P, Plain>,
    pub(crate) q: Elem<Q, Plain>,
    pub(crate) others: Vec<Elem<Extra, Plain>>,
}
