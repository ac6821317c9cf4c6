//! Modular arithmetic: `Modulus`, Montgomery multiplication and reduction, constant-time
//! and variable-time exponentiation, Garner CRT recombination, and probable primes.
//!
//! # Montgomery's method
//!
//! For an odd modulus n of k 64-bit limbs, let R = 2^(64k). A residue x is represented
//! by x*R mod n ("Montgomery form", [`Mont`]), and the product of two representatives is
//! reduced by REDC, (t + m*n)/R with m = -t*n^-1 mod R, which divides by R exactly and
//! costs about as much as a multiplication: no division anywhere (Montgomery 1985;
//! Dusse and Kaliski 1990, section 3). Montgomery form is closed under the product,
//! (aR)(bR)/R = (ab)R, so an exponentiation enters it once and leaves it once (Kaliski
//! 1993). `mont` states the bounds: a product of values < R is < R + n, of values
//! < n is < 2n, and of values < 2n is < 2n again when 4n < R, which lets long chains
//! skip the final subtraction (Dusse-Kaliski Theorem 2; Shand-Bertin-Vuillemin).
//!
//! # The layers
//!
//! * `mont`, `mont_sqr`: the raw kernels (`mont_mul_raw`, `mont_sqr_raw`, `redc_raw`,
//!   portable, with exact contracts) and the finishing steps. `kernel` is the dispatch
//!   point where CPU-specific kernels with the same contracts plug in. The raw kernels
//!   and the window tuning are crate-private; the `hazmat` feature makes them public
//!   under `cryptocard::hazmat`.
//! * [`Modulus`]: n with n0 = -n^-1 mod 2^64, R, R^2 and R^3 mod n, built once.
//! * [`Elem`]: typed residues, `Elem<M, Plain>` and `Elem<M, Mont>`, tagged with their
//!   modulus's type `M` so that residues mod p and mod q cannot be mixed.
//! * Exponentiation: [`Modulus::pow`] (constant time, fixed window, for secret
//!   exponents), [`Modulus::pow_kary`] (the same with a chosen window),
//!   [`Modulus::pow_vartime`] (sliding window) and [`Modulus::pow_binary_vartime`]
//!   (square and multiply) for public exponents.
//! * [`crt`]: Garner recombination for two or more primes (RFC 8017 5.1.2).
//! * [`pow_mod`], [`pow_mod_vartime`]: `Nat` in, `Nat` out, for callers that want no
//!   types.
//! * [`prime`]: trial division, Miller-Rabin and random primes of an exact size (here
//!   rather than in `bignum` because Miller-Rabin is modular exponentiation).
//!
//! ```
//! use cryptocard::bignum::Nat;
//! use cryptocard::modular::{pow_mod, Modulus};
//!
//! let m: Modulus = Modulus::from_nat(&Nat::from_u64(1_000_003)).unwrap();
//! let x = pow_mod(&Nat::from_u64(2), &Nat::from_u64(1_000_002), &m);
//! assert!(x.is_one()); // Fermat: 1_000_003 is prime.
//! ```

pub mod crt;
mod elem;
pub(crate) mod exp;
pub(crate) mod exp_vartime;
pub(crate) mod kernel;
pub(crate) mod modulus;
pub(crate) mod mont;
pub(crate) mod mont_sqr;
pub mod prime;
mod radix;
mod reduce;

pub use crt::{CrtPrime, garner_multi, garner2};
pub use elem::{Elem, Encoding, Mont, Plain};
pub use exp::MAX_WINDOW;
pub use modulus::{Anon, MAX_BITS, Modulus};

// Window tuning and the raw Montgomery helpers: crate-private, and public under
// `crate::hazmat` with the `hazmat` feature.
#[allow(unused_imports)]
pub(crate) use exp::{CT_WINDOW_5_MIN_BITS, CT_WINDOW_6_MIN_BITS, ct_window_bits};
#[allow(unused_imports)]
pub(crate) use exp_vartime::{VARTIME_WINDOW_THRESHOLDS, vartime_window_bits};
#[allow(unused_imports)]
pub(crate) use modulus::{neg_inv_limb, neg_inv_limb_dusse_kaliski};
#[allow(unused_imports)]
pub(crate) use mont_sqr::{MAX_LIMBS, mont_sqr_raw};

use crate::bignum::Nat;

/// base^exp mod m, constant time in `base` and `exp` (leaks their limb lengths only):
/// reduce, enter Montgomery form, [`Modulus::pow`], leave it.
pub fn pow_mod<M>(base: &Nat, exp: &Nat, m: &Modulus<M>) -> Nat {
    let b = m.to_mont(&m.elem_reduce(base));
    m.from_mont(&m.pow(&b, exp)).to_nat()
}

/// base^exp mod m for a public `exp`, by sliding windows ([`Modulus::pow_vartime`]).
/// Variable time in `exp`; leaks only the limb length of `base`.
pub fn pow_mod_vartime<M>(base: &Nat, exp: &Nat, m: &Modulus<M>) -> Nat {
    let b = m.to_mont(&m.elem_reduce(base));
    m.from_mont(&m.pow_vartime(&b, exp)).to_nat()
}
