//! Typed residues: `Elem<M, E>` is a value mod the modulus tagged `M`, in encoding `E`.
//!
//! Following ring's `bigint::Elem`, the encoding is a type parameter: [`Plain`] holds x
//! itself, [`Mont`] holds x*R mod n. The Montgomery product of a `Mont` element (aR) and
//! an element of either encoding (b or bR) is (aR * b)/R = ab in that same encoding, so
//! [`Modulus::mul`] is typed `Mont x E -> E`; a product of two `Plain` elements (ab/R)
//! represents nothing and cannot be written. Entering and leaving Montgomery form are
//! explicit calls ([`Modulus::to_mont`], [`Modulus::from_mont`]).
//!
//! Every `Elem` is fully reduced, in [0, n), and has exactly k limbs; its limbs are
//! zeroised on drop. All operations here are constant time in the values; they allocate
//! the result (the exponentiation loops work on raw limbs and allocate once).

use super::modulus::Modulus;
use super::mont::{finish_full, masked_add};
use crate::bignum::{LIMB_BYTES, Limb, Nat, add_n, lt_n, sub_n};
use crate::ct::{self, Choice};
use crate::{Error, Result};
use core::marker::PhantomData;
use zeroize::Zeroize;

/// The plain encoding: the element x is stored as x.
#[derive(Debug)]
pub enum Plain {}

/// The Montgomery encoding: the element x is stored as x*R mod n.
#[derive(Debug)]
pub enum Mont {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Plain {}
    impl Sealed for super::Mont {}
}

/// An encoding of residues: [`Plain`] or [`Mont`].
pub trait Encoding: sealed::Sealed {
    /// The encoding of 1 mod n.
    #[doc(hidden)]
    fn one_limbs<M>(m: &Modulus<M>) -> Box<[Limb]>;
}

impl Encoding for Plain {
    fn one_limbs<M>(m: &Modulus<M>) -> Box<[Limb]> {
        let mut v = vec![0; m.limbs()];
        v[0] = 1;
        v.into_boxed_slice()
    }
}

impl Encoding for Mont {
    fn one_limbs<M>(m: &Modulus<M>) -> Box<[Limb]> {
        m.one.clone()
    }
}

/// A residue mod the modulus tagged `M`, in encoding `E`, fully reduced.
pub struct Elem<M, E> {
    pub(crate) limbs: Box<[Limb]>,
    _tag: PhantomData<fn() -> (M, E)>,
}

impl<M, E> Elem<M, E> {
    pub(crate) fn from_boxed(limbs: Box<[Limb]>) -> Self {
        Elem { limbs, _tag: PhantomData }
    }

    /// The stored limbs (x for `Plain`, x*R mod n for `Mont`), little-endian, k of them.
    pub fn as_limbs(&self) -> &[Limb] {
        &self.limbs
    }

    /// True when the element is zero (in either encoding, 0 is stored as 0).
    pub fn is_zero(&self) -> Choice {
        ct::is_zero(self.limbs.iter().fold(0, |acc, &l| acc | l))
    }

    /// True when the two elements are equal. Constant time.
    pub fn ct_eq(&self, other: &Self) -> Choice {
        if self.limbs.len() != other.limbs.len() {
            return Choice::FALSE;
        }
        ct::limbs_eq(&self.limbs, &other.limbs)
    }
}

impl<M> Elem<M, Plain> {
    /// The value as a `Nat`. The `Nat` is normalised, which takes time depending on the
    /// number of high zero limbs: for secrets, prefer [`Modulus::to_be_bytes`].
    pub fn to_nat(&self) -> Nat {
        Nat::from_slice(&self.limbs)
    }
}

impl<M, E> Clone for Elem<M, E> {
    fn clone(&self) -> Self {
        Elem::from_boxed(self.limbs.clone())
    }
}

impl<M, E> Drop for Elem<M, E> {
    fn drop(&mut self) {
        self.limbs.zeroize();
    }
}

impl<M, E> core::fmt::Debug for Elem<M, E> {
    /// Prints the length only: elements are often secret.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Elem").field("limbs", &self.limbs.len()).finish_non_exhaustive()
    }
}

impl<M> Modulus<M> {
    fn check_len<E>(&self, a: &Elem<M, E>) {
        assert_eq!(
            a.limbs.len(),
            self.limbs(),
            "internal error: element of another modulus (one tag named two moduli)"
        );
    }

    fn new_elem<E>(&self) -> Elem<M, E> {
        Elem::from_boxed(vec![0; self.limbs()].into_boxed_slice())
    }

    /// Zero.
    pub fn zero<E: Encoding>(&self) -> Elem<M, E> {
        self.new_elem()
    }

    /// One, in encoding `E`.
    pub fn one<E: Encoding>(&self) -> Elem<M, E> {
        Elem::from_boxed(E::one_limbs(self))
    }

    /// The element `x`, which must be < n (else [`Error::InvalidArgument`]). Leaks
    /// whether `x < n` and the limb length of `x`, nothing else.
    pub fn elem_from_limbs(&self, x: &[Limb]) -> Result<Elem<M, Plain>> {
        let k = self.limbs();
        let len = x.len().min(k);
        if x[len..].iter().any(|&l| l != 0) {
            return Err(Error::InvalidArgument("value is not less than the modulus"));
        }
        let mut e = self.new_elem();
        e.limbs[..len].copy_from_slice(&x[..len]);
        if !lt_n(&e.limbs, &self.n).declassify() {
            return Err(Error::InvalidArgument("value is not less than the modulus"));
        }
        Ok(e)
    }

    /// The element `x`, which must be < n (else [`Error::InvalidArgument`]).
    pub fn elem_from_nat(&self, x: &Nat) -> Result<Elem<M, Plain>> {
        self.elem_from_limbs(x.as_limbs())
    }

    /// The element encoded by big-endian `bytes`, which must be < n (else
    /// [`Error::InvalidArgument`]). Leading zero bytes are allowed.
    pub fn elem_from_be_bytes(&self, bytes: &[u8]) -> Result<Elem<M, Plain>> {
        self.elem_from_nat(&Nat::from_be_bytes(bytes))
    }

    /// `x mod n` for a `Nat` of any size (see [`Modulus::reduce_limbs`]).
    pub fn elem_reduce(&self, x: &Nat) -> Elem<M, Plain> {
        self.reduce_limbs(x.as_limbs())
    }

    /// `x mod n` for big-endian `bytes` of any length (see [`Modulus::reduce_limbs`]).
    pub fn elem_reduce_be_bytes(&self, bytes: &[u8]) -> Elem<M, Plain> {
        self.elem_reduce(&Nat::from_be_bytes(bytes))
    }

    /// The element as big-endian bytes, exactly [`Modulus::byte_len`] long. Constant
    /// time.
    pub fn to_be_bytes(&self, a: &Elem<M, Plain>) -> Vec<u8> {
        self.check_len(a);
        let len = self.byte_len();
        let mut out = vec![0u8; len];
        for (i, byte) in out.iter_mut().rev().enumerate() {
            *byte = (a.limbs[i / LIMB_BYTES] >> (8 * (i % LIMB_BYTES))) as u8;
        }
        out
    }

    /// a*R mod n: enters Montgomery form (one product with R^2 mod n).
    pub fn to_mont(&self, a: &Elem<M, Plain>) -> Elem<M, Mont> {
        self.check_len(a);
        let mut r = self.new_elem();
        self.mul_limbs(&mut r.limbs, &a.limbs, &self.rr);
        r
    }

    /// a mod n from its Montgomery form a*R: leaves Montgomery form (one REDC).
    pub fn from_mont(&self, a: &Elem<M, Mont>) -> Elem<M, Plain> {
        self.check_len(a);
        let k = self.limbs();
        let mut r = self.new_elem();
        super::mont_sqr::with_stack_limbs(2 * k, |t| {
            t[..k].copy_from_slice(&a.limbs);
            self.redc_limbs(&mut r.limbs, t);
        });
        r
    }

    /// a*b mod n: a Montgomery-form factor times a factor in either encoding gives the
    /// product in that encoding (aR * b / R = ab).
    pub fn mul<E>(&self, a: &Elem<M, Mont>, b: &Elem<M, E>) -> Elem<M, E> {
        self.check_len(a);
        self.check_len(b);
        let mut r = self.new_elem();
        self.mul_limbs(&mut r.limbs, &a.limbs, &b.limbs);
        r
    }

    /// a^2 mod n, by the dedicated squaring.
    pub fn sqr(&self, a: &Elem<M, Mont>) -> Elem<M, Mont> {
        self.check_len(a);
        let mut r = self.new_elem();
        self.sqr_limbs(&mut r.limbs, &a.limbs);
        r
    }

    /// a + b mod n (both in the same encoding).
    pub fn add<E>(&self, a: &Elem<M, E>, b: &Elem<M, E>) -> Elem<M, E> {
        self.check_len(a);
        self.check_len(b);
        let mut r = self.new_elem();
        let c = add_n(&mut r.limbs, &a.limbs, &b.limbs);
        // a + b < 2n: one conditional subtraction.
        finish_full(&mut r.limbs, c, &self.n);
        r
    }

    /// a - b mod n (both in the same encoding).
    pub fn sub<E>(&self, a: &Elem<M, E>, b: &Elem<M, E>) -> Elem<M, E> {
        self.check_len(a);
        self.check_len(b);
        let mut r = self.new_elem();
        let borrow = sub_n(&mut r.limbs, &a.limbs, &b.limbs);
        // a - b > -n: add n back once if it went negative.
        masked_add(&mut r.limbs, &self.n, Choice::from_bit(borrow).mask());
        r
    }

    /// -a mod n.
    pub fn neg<E: Encoding>(&self, a: &Elem<M, E>) -> Elem<M, E> {
        self.sub(&self.zero(), a)
    }
}
