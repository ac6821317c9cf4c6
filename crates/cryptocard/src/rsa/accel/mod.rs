//! The seam between the private operation and the units that run its arithmetic: what a
//! unit must do ([`Accelerator`]), and which unit runs a key's operations (`unit.rs`).
//!
//! The private operation (`private.rs`) is the host's part of the work: blinding, the
//! reduction of c modulo every prime, Garner's recombination, the fault check's verdict,
//! unblinding. What costs is handed to a unit: phase (b), the exponentiations
//! c_i^(d_i) mod r_i (RFC 8017 section 5.1.2, step 2.b.i-ii), the fault check's m^e mod
//! n, and the products modulo n of blinding. That is the split of Dusse and Kaliski's
//! DSP56000 card and its PC host, and of Shand, Bertin and Vuillemin's PAM boards, whose
//! host ran the CRT while the board exponentiated. The units:
//!
//! * `scalar.rs`: the modular core (64-bit limbs, the BMI2/ADX kernels where the CPU has
//!   them). Always there; the reference.
//! * `ifma.rs`: the AVX-512 IFMA kernels in radix 2^52, one operation's two CRT halves in
//!   one register set ("x2") or up to four operations in the eight lanes of one "mb8"
//!   call. RSA's use of them (which key sizes run in which digit count, when a batch
//!   pays, a key's parameters) is in `ifma_key.rs`, the lane batches in `ifma_mb8.rs`.
//! * `avx2.rs`: for CPUs without IFMA, batches in the four 64-bit lanes of AVX2 registers
//!   (radix 2^28, two operations to a call); single operations on the scalar core.
//!
//! Every method takes a slice of operations: a single operation is a batch of one, and a
//! unit with lanes fills them from the slice. The operations of one slice may belong to
//! different keys. `unit.rs` is the one place that decides the unit of a key (the key's
//! own choice, the process default, `CRYPTOCARD_BACKEND`), that keeps the key's state on
//! it (made on first use: the IFMA parameters of p, q and n), and that matches on the
//! unit. A new unit (a GPU) is a file implementing [`Accelerator`] and one arm there.
//!
//! The public operation x^e mod n (verification, encryption) is not the private
//! operation's, but gains from the same kernels: `public.rs` runs it on IFMA's x2 where
//! the CPU has it, else on the core, with n's parameters kept by the public key.
//!
//! # The contract
//!
//! A unit computes exactly what the scalar core computes: c_i^(d_i) mod r_i fully
//! reduced, m^e mod n compared with c, and the core's Montgomery products
//! (`Modulus::mul`, `Modulus::sqr`). So the results are the same bit for bit whichever
//! unit runs (`tests/rsa_accel*.rs` compare them). Phase (c) checks every final result
//! with e, so a wrong exponentiation or product is caught as
//! [`crate::Error::FaultDetected`] and never leaves. The residues are secret (blinded,
//! but secret), and so are the primes and exponents: a unit must be constant time in
//! them.

#[cfg(target_arch = "x86_64")]
mod avx2;
mod choice;
pub(crate) mod gpu;
#[cfg(target_arch = "x86_64")]
mod ifma;
#[cfg(target_arch = "x86_64")]
mod ifma_key;
#[cfg(target_arch = "x86_64")]
mod ifma_mb8;
mod public;
mod scalar;
mod unit;

pub(crate) use choice::Unit;
pub use choice::{BACKEND_VAR, Backend, default_backend, set_default_backend};
pub(crate) use public::PublicAccel;
pub(crate) use unit::{AccelKey, CheckOp, KeyAccel, MulOp, SqrOp, check, exponentiate, mul, sqr};

use super::crt::{CrtKey, CrtResidues};
use super::tags::N;
use crate::bignum::Nat;
use crate::ct::Choice;
use crate::modular::{Elem, Modulus, Mont, Plain};

/// One key as a unit sees it: its CRT form, n and e, and its state on the unit.
pub(crate) struct Key<'a, S> {
    pub(crate) crt: &'a CrtKey,
    pub(crate) n: &'a Modulus<N>,
    pub(crate) e: &'a Nat,
    pub(crate) state: &'a S,
}

impl<S> Clone for Key<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for Key<'_, S> {}

/// One fault check: whether m^e = c mod n, for the operation's result m and its input c
/// (`private.rs`).
pub(crate) struct Check<'a, S> {
    pub(crate) key: Key<'a, S>,
    pub(crate) m: &'a Elem<N, Plain>,
    pub(crate) c: &'a Elem<N, Plain>,
}

impl<S> Check<'_, S> {
    /// The check on the modular core: m^e mod n by the variable-time window, whose
    /// sequence of products depends on e (public) only, compared with c in constant
    /// time.
    pub(crate) fn on_core(&self) -> Choice {
        let n = self.key.n;
        n.from_mont(&n.pow_vartime(&n.to_mont(self.m), self.key.e)).ct_eq(self.c)
    }
}

/// One product modulo n in the core's Montgomery form, a b / R mod n
/// ([`Modulus::mul`]; the result has b's form).
pub(crate) struct Product<'a, S, E> {
    pub(crate) key: Key<'a, S>,
    pub(crate) a: &'a Elem<N, Mont>,
    pub(crate) b: &'a Elem<N, E>,
}

/// One squaring modulo n in the core's Montgomery form, a^2 / R mod n ([`Modulus::sqr`]).
pub(crate) type Square<'a, S> = (Key<'a, S>, &'a Elem<N, Mont>);

/// How a unit batches a key's operations, when it runs them in lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Lanes {
    /// The size class: operations share a call only within one.
    pub(crate) class: usize,
    /// The most operations one call takes.
    pub(crate) per_call: usize,
    /// The fewest operations worth a call (fewer run one by one, faster there).
    pub(crate) min_ops: usize,
}

/// A unit that runs the private operation's arithmetic (see the module docs for the
/// contract). Every method keeps the order of its slice.
pub(crate) trait Accelerator: Copy {
    /// What the unit keeps of a key between operations (its parameters in the unit's
    /// form), made on the key's first operation here and kept with the key.
    type State: Send + Sync;

    /// A key's state on this unit.
    fn state(self, crt: &CrtKey, n: &Modulus<N>) -> Self::State;

    /// The kernels a key's single operation runs on here, for reports (`"scalar"`,
    /// `"ifma-x2"`).
    fn kernel_name(self, key: Key<'_, Self::State>) -> &'static str;

    /// How the key's operations are batched; `None` (the default) when one by one.
    fn lanes(self, _key: Key<'_, Self::State>) -> Option<Lanes> {
        None
    }

    /// Phase (b): replaces every residue c_i of each operation by c_i^(d_i) mod r_i.
    fn exponentiate(self, ops: &mut [(Key<'_, Self::State>, &mut CrtResidues)]);

    /// The fault checks, one verdict each. The default runs them on the scalar core.
    fn check(self, ops: &[Check<'_, Self::State>]) -> Vec<Choice> {
        ops.iter().map(Check::on_core).collect()
    }

    /// The products. The default runs them on the core.
    fn mul<E>(self, ops: &[Product<'_, Self::State, E>]) -> Vec<Elem<N, E>> {
        ops.iter().map(|op| op.key.n.mul(op.a, op.b)).collect()
    }

    /// The squarings a^2 / R mod n ([`Modulus::sqr`]). The default runs them on the
    /// core's dedicated squaring.
    fn sqr(self, ops: &[Square<'_, Self::State>]) -> Vec<Elem<N, Mont>> {
        ops.iter().map(|(key, a)| key.n.sqr(a)).collect()
    }
}
