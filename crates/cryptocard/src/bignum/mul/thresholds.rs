//! Cut-over sizes between the multiplication algorithms, as data (GMP's `gmp-mparam.h`).
//!
//! Each threshold is a number of limbs of the *shorter* operand (of the operand, for
//! squaring) from which the next algorithm takes over. They depend on the basecase kernel
//! they sit on: a faster basecase pushes them up. Change them only with a fresh
//! measurement from `cargo bench -p cryptocard-bench --bench bignum -- time_per_product
//! tune`, which prints the time per product of each algorithm at each size.

/// The limb counts at which multiplication and squaring switch algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thresholds {
    /// Karatsuba multiplication from this many limbs in the shorter operand.
    pub mul_karatsuba: usize,
    /// Toom-3 multiplication from this many limbs (operands within 2/3 of each other).
    pub mul_toom3: usize,
    /// Karatsuba squaring from this many limbs.
    pub sqr_karatsuba: usize,
    /// Toom-3 squaring from this many limbs.
    pub sqr_toom3: usize,
    /// Toom-4 multiplication from this many limbs (operands within 3/4 of each other).
    pub mul_toom4: usize,
    /// Toom-4 squaring from this many limbs.
    pub sqr_toom4: usize,
}

/// Thresholds for the portable `u128` kernels ([`super::Portable`]).
///
/// Tuned on AMD Zen 4 with `cargo bench -p cryptocard-bench --bench bignum -- tune`: at
/// each size, the basecase against one level of Karatsuba (and Karatsuba against one
/// level of Toom-3), each the minimum of interleaved batches. Karatsuba multiplication
/// overtook the two-column basecase between 32 and 36 limbs; squaring, whose basecase
/// does half the products, at 56. Toom-3 won consistently from 210 limbs for products and
/// from about 250 for squares (the curves cross several times below that, within the
/// noise). Rerun it to retune.
pub const PORTABLE: Thresholds = Thresholds {
    mul_karatsuba: 36,
    mul_toom3: 210,
    sqr_karatsuba: 56,
    sqr_toom3: 250,
    mul_toom4: usize::MAX,
    sqr_toom4: usize::MAX,
};

/// The smallest thresholds the algorithms accept: Karatsuba needs a high half of at least
/// one limb in both operands, Toom-3 a third part and Toom-4 a fourth part of at least
/// one limb. Tests run every algorithm down at these sizes.
pub const MINIMUM: Thresholds = Thresholds {
    mul_karatsuba: 2,
    mul_toom3: 3,
    sqr_karatsuba: 2,
    sqr_toom3: 3,
    mul_toom4: 4,
    sqr_toom4: 4,
};
