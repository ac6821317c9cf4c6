//! The type tags of RSA's moduli: n, the primes p and q, and the extra primes of a
//! multi-prime key.
//!
//! A [`crate::modular::Modulus`] and its residues ([`crate::modular::Elem`]) carry the tag
//! of the number they are taken modulo, as ring's `Modulus<M>` does (DESIGN.md section 3),
//! so that a residue mod p cannot be passed where one mod q or mod n is expected: the
//! compiler rejects it. The tags are uninhabited enums, never values. They live in a file
//! of their own, below every other file of `rsa/`, so that the key, the CRT form, the
//! blinding pool and the backends can all name them without importing each other.

/// The tag of the RSA modulus n.
#[derive(Debug)]
pub(crate) enum N {}

/// The tag of the first prime p = r_1.
#[derive(Debug)]
pub(crate) enum P {}

/// The tag of the second prime q = r_2.
#[derive(Debug)]
pub(crate) enum Q {}

/// The tag shared by the extra primes r_3, ..., r_u of a multi-prime key (RFC 8017
/// section 3.2, `otherPrimeInfos`). One tag serves all of them: each residue is only ever
/// used with its own prime's modulus, which the CRT form keeps side by side.
#[derive(Debug)]
pub(crate) enum Extra {}
