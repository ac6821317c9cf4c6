//! The secret parts of a private key, marked for the constant-time validation under
//! valgrind (feature `ct-validation`, `crates/ct-valgrind/tests/ct_valgrind.rs`): after
//! [`RsaPrivateKey::mark_secret_for_validation`], memcheck reports every branch and
//! memory index of the key's operations that depends on d, the primes, the CRT values or
//! their Montgomery constants.

use super::key::RsaPrivateKey;
use crate::ct::mark_secret;

impl RsaPrivateKey {
    /// Marks the key's secrets undefined for memcheck: d and its hash, the primes, the
    /// CRT exponents and coefficients, in their parsed and their precomputed forms. Their
    /// lengths stay public. Does nothing outside valgrind.
    pub fn mark_secret_for_validation(&self) {
        mark_secret(self.d.as_limbs());
        mark_secret(&self.d_hash[..]);
        let values = self.primes.iter().chain(&self.exponents).chain(&self.coefficients);
        for v in values {
            mark_secret(v.as_limbs());
        }
        let crt = &self.crt;
        crt.p.modulus.mark_secret_for_validation();
        crt.q.modulus.mark_secret_for_validation();
        mark_secret(&crt.p.exponent[..]);
        mark_secret(&crt.q.exponent[..]);
        mark_secret(crt.q_inv.as_limbs());
        for o in &crt.others {
            o.prime.modulus.mark_secret_for_validation();
            mark_secret(&o.prime.exponent[..]);
            mark_secret(o.t.as_limbs());
        }
    }
}
