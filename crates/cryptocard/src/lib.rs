//! cryptocard: the 1989-2003 "crypto-accelerator" papers rebuilt for today's machines.
//!
//! Data flows one way, parse → validate → compute → encode, and so do the imports.
//!
//! # Layers
//!
//! Each module uses only modules on lower lines (modules on one line do not use each
//! other); `scripts/layers` prints any import that points the other way:
//!
//! ```text
//! engine               queue → batcher → worker pool, over rsa's batch API
//! rsa                  keys, the CRT private operation and its backends, padding, formats
//! modular              Modulus, Montgomery arithmetic, exponentiation, CRT, primes
//! bignum  digest  des  Nat and the limb-slice algorithms; hash functions; DES and 3DES
//! arch                 CPU kernels: the only unsafe, asm! and target_feature code
//! ct  rng              constant-time masks and selection; randomness sources
//! limb                 the limb, its carries, the plain carry chains over limb slices
//! error                Error and Result
//! ```
//!
//! * [`bignum`]: [`bignum::Nat`], arbitrary-precision unsigned integers on 64-bit limbs,
//!   and the limb-slice kernels (GMP's `mpn` level).
//! * [`modular`]: [`modular::Modulus`] and Montgomery arithmetic, constant-time and
//!   variable-time exponentiation, Garner CRT recombination, probable primes.
//! * `arch`: the only module with `unsafe`, `asm!` and `target_feature` code, behind CPU
//!   feature tokens that can only be made by run-time detection.
//! * [`digest`], [`des`], [`rsa`], [`engine`]: the algorithms and the batching engine.
//!
//! Nothing below `rsa` knows about padding; nothing below `modular` knows about RSA; only
//! `arch` knows about the CPU. Secret-dependent code is constant-time unless its name ends
//! in `_vartime`; every such function says in its documentation what it leaks.
//!
//! Where the rule could have bent, it holds this way:
//!
//! * `arch` sits below the algorithms it speeds up. A kernel takes limb slices and state
//!   arrays and knows neither `Nat` nor the traits of the layers above; the seams are up
//!   there and call down: `bignum::mul`'s `Basecase` (the BMI2/ADX adapter is
//!   `bignum/mul/adx.rs`), `modular`'s `kernel.rs`, `digest`'s `backend.rs` and `rsa`'s
//!   backends pick a kernel by its CPU feature token. What a kernel shares with its
//!   portable twin lives at or below `arch`: the limb, its carries and the plain carry
//!   chains and comparisons in `limb` (which `bignum` re-exports), the SHA-2 round
//!   constants in `arch`'s `sha2_constants.rs` (which `digest` uses).
//! * [`ct`] works on limbs and bytes, not on `Nat`, so it sits below `arch`, whose table
//!   scans and radix conversions use its masks.
//! * Primality testing is in [`modular::prime`], not in `bignum`: Miller-Rabin is modular
//!   exponentiation.
//! * Tests may import upward: a kernel's unit tests compare it with its portable
//!   reference above it (the tests under `arch` use `bignum` and `digest`). The rule is
//!   for the code compiled into the library.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod bignum;
pub mod ct;
pub mod des;
pub mod digest;
pub mod engine;
mod error;
mod limb;
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
