//! Internals for benchmarks and experts (feature `hazmat`, off by default): limb kernels,
//! raw Montgomery helpers and the CPU-specific kernels, with none of the invariants the
//! rest of the crate's types carry.
//!
//! Nothing here is a stable API: names, signatures and contracts change with the
//! internals they expose. Each item's contract is in its own documentation; breaking it
//! gives wrong results (never undefined behaviour: the CPU kernels still need their
//! feature token, which only run-time detection makes). The workspace's benchmark crate
//! (`crates/bench`) is the user this module is written for.

// Kernels for crates/bench

/// CPU feature tokens: a value proves the instructions exist (made only by `detect`).
#[cfg(target_arch = "x86_64")]
pub use crate::arch::x86_64::cpu::{Adx, Avx2, Ifma};

/// The BMI2/ADX kernels: raw Montgomery products, basecase products, the linear passes.
#[cfg(target_arch = "x86_64")]
pub use crate::arch::x86_64::adx::hazmat as adx;

/// The AVX-512 IFMA kernels in radix 2^52 (x2, mb8, product scanning, Karatsuba).
#[cfg(target_arch = "x86_64")]
pub use crate::arch::x86_64::ifma::hazmat as ifma;

/// The AVX2 constant-time table scan (`ct::select_from_table`'s vector twin).
#[cfg(target_arch = "x86_64")]
pub use crate::arch::x86_64::select::select_from_table as select_from_table_avx2;

/// Limb-vector passes of `bignum` (portable).
pub use crate::bignum::{abs_diff, add_1, add_n, sbb, sub_n};

/// The multiplication recursion (Karatsuba, Toom-3, Toom-4) over a basecase kernel.
pub mod mul {
    pub use crate::bignum::mul::linear::abs_diff;
    pub use crate::bignum::mul::{Basecase, Multiplier, Portable, Thresholds, thresholds};
}

/// The batched products modulo n of the RSA private operations (blinding, unblinding).
pub use crate::rsa::mul_batch::ProductJobs;
