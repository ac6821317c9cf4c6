//! cryptocard: the 1989-2003 "crypto-accelerator" papers rebuilt for today's machines.
//!
//! The library is layered so that data flows one way, parse → validate → compute → encode:
//!
//! ```text
//! rsa | des | digest ─► modular (Montgomery, exponentiation, CRT) ─► bignum
//!        │
//!        └─► engine: queue → batcher → worker pool ─► backend (scalar, AVX-512 IFMA)
//! ```
//!
//! * [`bignum`]: [`bignum::Nat`], arbitrary-precision unsigned integers on 64-bit limbs.
//! * [`modular`]: [`modular::Modulus`] and Montgomery arithmetic, constant-time and
//!   variable-time exponentiation, Garner CRT recombination.
//! * `arch`: the only module with `unsafe`, `asm!` and `target_feature` code, behind CPU
//!   feature tokens that can only be made by run-time detection.
//! * [`digest`], [`des`], [`rsa`], [`engine`]: the algorithms and the batching engine.
//!
//! Nothing below `rsa` knows about padding; nothing below `modular` knows about RSA; only
//! `arch` knows about the CPU. Secret-dependent code is constant-time unless its name ends
//! in `_vartime`; every such function says in its documentation what it leaks.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod bignum;
pub mod ct;
pub mod des;
pub mod digest;
pub mod engine;
mod error;
pub mod modular;
pub mod rng;
pub mod rsa;

pub(crate) mod arch;
#[cfg(feature = "hazmat")]
pub mod hazmat;

#[cfg(test)]
pub(crate) mod test_rng;

pub use error::Error;

/// The result type of every fallible operation in this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;
