//! Arbitrary-precision unsigned integers on 64-bit limbs.
//!
//! Two levels, as in GMP:
//!
//! * limb-slice kernels (`add_n`, `sub_n`, `addmul_1`, `mul_basecase`, ...), little-endian,
//!   no allocation, with exact aliasing contracts. They are what the modular layer and the
//!   architecture-specific kernels build on and are tested against.
//! * [`Nat`], an owned, normalised integer (no high zero limbs) with the usual arithmetic,
//!   encodings, division, gcd and inverses. `Nat` operations are variable-time
//!   unless their documentation says otherwise: secret arithmetic goes through
//!   [`crate::modular`], whose sizes are fixed by the public modulus.
//!
//! Where things are:
//!
//! | file | what |
//! |---|---|
//! | `crate::limb` (re-exported here) | the limb, carry primitives, plain add/sub chains, `cmp_vartime`, `bit_length` |
//! | `add.rs`, `cmp.rs`, `shift.rs` | masked add/sub, constant-time compare, shifts |
//! | `mul/` | `mul_1`, `addmul_1`, `submul_1`, basecase, squaring, Karatsuba, Toom-3, thresholds |
//! | `div.rs` | reciprocal two-by-one division, `divrem_1`, Knuth's algorithm D |
//! | `div_ct.rs` | constant-time division by any divisor, bit by bit (key validation) |
//! | `nat.rs`, `arith.rs`, `nat_div.rs` | `Nat`, its arithmetic and operators, `div_rem` |
//! | `encoding.rs` | hexadecimal and decimal strings |
//! | `gcd.rs`, `inv.rs`, `pow.rs` | gcd/lcm, modular inverses, powers and the general `pow_mod` |
//! | `random.rs` | uniform random values |
//! | `root.rs` | the perfect-power test (integer k-th roots) |
//! | `shape.rs` | limb length, bit length and parity, constant time and public in one place |
//!
//! Primality tests and prime generation are one layer up, in [`crate::modular::prime`]:
//! Miller-Rabin is modular exponentiation.
//!
//! No function here panics on input: failures are [`crate::Error`] values, and the
//! operators are only those that are total (`+`, `*`, `<<`, `>>`).
//!
//! The limb-slice kernels are crate-private; the `hazmat` feature makes them public
//! under `cryptocard::hazmat` (for the crate's tests and benchmarks, and for experts).
//!
//! ```
//! use cryptocard::bignum::Nat;
//!
//! let a = Nat::from_hex("ffffffffffffffff")?; // 2^64 - 1
//! let b = &a * &a + &a + Nat::from_u64(1); // (2^64 - 1)^2 + 2^64 = 2^128 - 2^64 + 1
//! assert_eq!(b.to_hex(), "ffffffffffffffff0000000000000001");
//! let (q, r) = b.div_rem(&a)?;
//! assert_eq!((q.to_dec(), r.to_dec()), ("18446744073709551616".into(), "1".into()));
//! assert_eq!(Nat::from_u64(12).gcd(&Nat::from_u64(18)), Nat::from_u64(6));
//! # Ok::<(), cryptocard::Error>(())
//! ```

pub(crate) mod add;
mod arith;
pub(crate) mod cmp;
pub(crate) mod div;
mod div_ct;
mod encoding;
mod gcd;
mod inv;
pub mod mul;
mod nat;
mod nat_div;
mod pow;
mod random;
mod root;
pub(crate) mod shape;
pub(crate) mod shift;

pub use crate::limb::{LIMB_BITS, LIMB_BYTES, Limb};
pub use nat::Nat;
pub use pow::MAX_POW_BITS;

// The limb-slice kernels: crate-private, and public under `crate::hazmat` with the
// `hazmat` feature.
#[allow(unused_imports)]
#[cfg(any(test, feature = "hazmat"))]
pub(crate) use crate::limb::sub_limb;
#[allow(unused_imports)]
pub(crate) use crate::limb::{
    WideLimb, adc, adc_bit, add_1, add_limb, add_n, bit_length, cmp_vartime, mac, sbb, sbb_bit,
    sub_1, sub_n,
};
#[allow(unused_imports)]
pub(crate) use add::{abs_diff, add_or_sub_assign, cnd_add_n, cnd_neg_assign, cnd_sub_n};
#[allow(unused_imports)]
pub(crate) use cmp::lt_n;
#[allow(unused_imports)]
pub(crate) use div::{Reciprocal, div_qr_normalized, divrem_1};
pub(crate) use div_ct::div_rem_ct;
#[allow(unused_imports)]
pub(crate) use shift::{lshift, lshift_assign, rshift, rshift_assign};
