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
mod shift;

pub use add::{
    abs_diff, add_1, add_limb, add_n, add_or_sub_assign, cnd_add_n, cnd_neg_assign, cnd_sub_n,
    sub_1, sub_limb, sub_n,
};
pub use cmp::{cmp_vartime, lt_n};
pub use limb::{LIMB_BITS, LIMB_BYTES, Limb, WideLimb, adc, adc_bit, mac, sbb, sbb_bit};
pub use nat::Nat;
pub use shift::{lshift, lshift_assign, rshift, rshift_assign};
