//! Multiplication of limb slices: single-limb kernels, the schoolbook basecase by product
//! scanning, dedicated squaring, and Karatsuba above a tuned threshold.

mod basecase;

pub use basecase::{addmul_1, mul_1, mul_basecase};
