//! Private keys from their components: all of them, or n, e, d and the primes (the CRT
//! values are then computed). Both are checked by [`super::validate`]. A key from n, e
//! and d alone needs its primes recovered first: `recover.rs`
//! ([`RsaPrivateKey::from_n_e_d`]).

use super::key::RsaPrivateKey;
use super::validate::{self, Parts};
use crate::Result;
use crate::bignum::Nat;

impl RsaPrivateKey {
    /// A key from all its values: n, e, d, the primes r_1 = p, r_2 = q, r_3, ..., the CRT
    /// exponents d_i and the coefficients (qInv, then t_3, ...). Every value is checked
    /// ([`super::validate`]); [`crate::Error::InvalidKey`] says which check failed.
    pub fn from_crt_components(
        n: Nat,
        e: Nat,
        d: Nat,
        primes: Vec<Nat>,
        exponents: Vec<Nat>,
        coefficients: Vec<Nat>,
    ) -> Result<RsaPrivateKey> {
        RsaPrivateKey::assemble(validate::private_key(Parts {
            n,
            e,
            d,
            primes,
            exponents: Some(exponents),
            coefficients: Some(coefficients),
        })?)
    }

    /// A key from n, e, d and its primes; the CRT values are computed. Checked as
    /// [`RsaPrivateKey::from_crt_components`].
    pub fn from_components(n: Nat, e: Nat, d: Nat, primes: Vec<Nat>) -> Result<RsaPrivateKey> {
        let parts = Parts { n, e, d, primes, exponents: None, coefficients: None };
        RsaPrivateKey::assemble(validate::private_key(parts)?)
    }
}
