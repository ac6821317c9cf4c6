//! The ADX kernels `crate::hazmat` re-exports (feature `hazmat`), for the benchmark crate
//! (`crates/bench`). They are safe already (they take the [`Adx`] token); this only names
//! them outside `arch`. Not a stable API. The basecase adapter over them lives in `bignum`
//! (`crate::hazmat::mul::{AdxBasecase, ADX_BASECASE_THRESHOLDS}`).

pub use super::almost_chain::{mul_almost, scratch_len as chain_scratch_len, sqr_n_almost};
pub use super::cios::mont_mul_cios;
pub use super::linear::{add_1, add_n, karatsuba_middle};
pub use super::{mont_mul_raw, mont_sqr_raw, mul_basecase, redc_raw, sqr_basecase};
pub use crate::arch::x86_64::cpu::Adx;
