//! Garner's CRT recombination, as RFC 8017 section 5.1.2 (RSADP) step 2 writes it.
//!
//! Given m1 = m mod p, m2 = m mod q and qInv = q^-1 mod p, the unique m < p*q is
//!
//! ```text
//! h = (m1 - m2) * qInv mod p        (step 2.b.iii)
//! m = m2 + q * h                    (step 2.b.iv)
//! ```
//!
//! since m2 + q*h = m2 (mod q) and = m2 + (m1 - m2) = m1 (mod p), and 0 <= m2 + q*h <
//! q + q(p - 1) = pq. For a multi-prime key (primes r_1 = p, r_2 = q, r_3, ..., r_u,
//! residues m_i, CRT coefficients t_i = (r_1 ... r_{i-1})^-1 mod r_i), step 2.b.v
//! continues with a running product R = r_1 ... r_{i-1}:
//!
//! ```text
//! for i = 3 .. u:  R = R * r_{i-1};  h = (m_i - m) * t_i mod r_i;  m = m + R * h
//! ```
//!
//! and m < R * r_i after each step, by the same argument.
//!
//! This is the work Shand, Bertin and Vuillemin left to the host while their PAM boards
//! ran the two exponentiations. Everything here is constant time with public sizes: the
//! reductions of m mod r_i go through Montgomery products ([`Modulus::reduce_limbs`]),
//! the products q*h and R*h through the schoolbook basecase on limb counts fixed by the
//! moduli, and the final check that the result fits n is computed over every limb.

use super::elem::{Elem, Mont, Plain};
use super::modulus::Modulus;
use crate::bignum::mul::mul_basecase;
use crate::bignum::{Limb, add_1, lt_n};
use crate::ct;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// One extra prime r_i of a multi-prime key (i >= 3): its modulus, the residue
/// m_i = m mod r_i, and its CRT coefficient t_i = (r_1 ... r_{i-1})^-1 mod r_i in
/// Montgomery form.
#[derive(Debug)]
pub struct CrtPrime<'a, R> {
    /// r_i.
    pub modulus: &'a Modulus<R>,
    /// m_i = m mod r_i.
    pub residue: &'a Elem<R, Plain>,
    /// t_i in Montgomery form.
    pub coefficient: &'a Elem<R, Mont>,
}

/// m < p*q = n from m1 = m mod p and m2 = m mod q (RFC 8017 5.1.2 step 2.b), with
/// `q_inv` = q^-1 mod p in Montgomery form. `n` must be p*q; if the result does not fit
/// it (inconsistent arguments), fails with [`Error::InvalidArgument`]. Constant time.
pub fn garner2<P, Q, N>(
    p: &Modulus<P>,
    q: &Modulus<Q>,
    m1: &Elem<P, Plain>,
    m2: &Elem<Q, Plain>,
    q_inv: &Elem<P, Mont>,
    n: &Modulus<N>,
) -> Result<Elem<N, Plain>> {
    garner_multi::<P, Q, Q, N>(p, q, m1, m2, q_inv, &[], n)
}

/// m < r_1 ... r_u = n from its residues, for u >= 2 primes (RFC 8017 5.1.2 step 2.b,
/// multi-prime): `p`, `q`, `m1`, `m2`, `q_inv` as in [`garner2`], then the extra
/// primes in order. `n` must be the product of all primes; if the result does not fit
/// it, fails with [`Error::InvalidArgument`]. Constant time with public sizes.
pub fn garner_multi<P, Q, R, N>(
    p: &Modulus<P>,
    q: &Modulus<Q>,
    m1: &Elem<P, Plain>,
    m2: &Elem<Q, Plain>,
    q_inv: &Elem<P, Mont>,
    others: &[CrtPrime<'_, R>],
    n: &Modulus<N>,
) -> Result<Elem<N, Plain>> {
    // Step 2.b.iii: h = (m1 - m2) * qInv mod p. m2 < q is reduced mod p first.
    let m2_p = p.reduce_limbs(m2.as_limbs());
    let h = p.mul(q_inv, &p.sub(m1, &m2_p));
    // Step 2.b.iv: m = m2 + q*h < p*q.
    // Capacity for the final length up front: growing never reallocates, so no copy of
    // the secret is left behind unzeroised.
    let total = p.limbs() + q.limbs() + others.iter().map(|r| r.modulus.limbs()).sum::<usize>();
    let mut m = Zeroizing::new(Vec::with_capacity(total.max(n.limbs())));
    m.resize(q.limbs() + p.limbs(), 0);
    mul_basecase(&mut m, q.as_limbs(), h.as_limbs());
    let carry = add_1(&mut m, m2.as_limbs());
    debug_assert_eq!(carry, 0, "internal error: m2 + q*h overflowed");
    // Step 2.b.v: the running product R = r_1 ... r_{i-1} (public sizes, secret value).
    let mut big_r = Zeroizing::new(Vec::new());
    if !others.is_empty() {
        big_r.resize(q.limbs() + p.limbs(), 0);
        mul_basecase(&mut big_r, p.as_limbs(), q.as_limbs());
    }
    for r in others {
        let ri = r.modulus;
        // h = (m_i - m) * t_i mod r_i.
        let m_ri = ri.reduce_limbs(&m);
        let h = ri.mul(r.coefficient, &ri.sub(r.residue, &m_ri));
        // m = m + R*h < R * r_i.
        let mut rh = Zeroizing::new(vec![0; big_r.len() + ri.limbs()]);
        mul_basecase(&mut rh, &big_r, h.as_limbs());
        m.resize(rh.len(), 0);
        let carry = add_1(&mut rh, &m);
        debug_assert_eq!(carry, 0, "internal error: m + R*h overflowed");
        m.copy_from_slice(&rh);
        // R = R * r_i, for the next prime.
        let mut next = Zeroizing::new(vec![0; big_r.len() + ri.limbs()]);
        mul_basecase(&mut next, &big_r, ri.as_limbs());
        big_r = next;
    }
    // The result must fit n: zero above n's limbs and below n. Both checks read every
    // limb; only their joint outcome is revealed.
    let k = n.limbs();
    if m.len() < k {
        m.resize(k, 0);
    }
    let high = m[k..].iter().fold(0, |acc, &l| acc | l);
    let fits = ct::is_zero(high) & lt_n(&m[..k], n.as_limbs());
    if !fits.declassify() {
        return Err(Error::InvalidArgument("CRT result does not fit the modulus"));
    }
    let limbs: Box<[Limb]> = m[..k].into();
    Ok(Elem::from_boxed(limbs))
}
