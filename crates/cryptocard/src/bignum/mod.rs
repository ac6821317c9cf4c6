//! Arbitrary-precision unsigned integers on 64-bit limbs.
//!
//! Two levels, as in GMP:
//!
//! * limb-slice kernels (`add_n`, `sub_n`, `addmul_1`, `mul_basecase`, ...), little-endian,
//!   no allocation, with exact aliasing contracts. They are what the modular layer and the
//!   architecture-specific kernels build on and are tested against.
//! * [`Nat`], an owned, normalised integer (no high zero limbs) with the usual arithmetic,
//!   encodings, division, gcd, inverses and primes. `Nat` operations are variable-time
//!   unless their documentation says otherwise: secret arithmetic goes through
//!   [`crate::modular`], whose sizes are fixed by the public modulus.

mod add;
mod cmp;
mod limb;
pub mod mul;
mod nat;

pub use add::{add_1, add_n, sub_1, sub_n};
pub use cmp::{cmp_vartime, lt_n};
pub use limb::{adc, mac, sbb, Limb, WideLimb, LIMB_BITS, LIMB_BYTES};
pub use nat::Nat;
