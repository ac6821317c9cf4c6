//! The places where a value computed from the key becomes public by design, each in one
//! named function. They change nothing at run time; under the constant-time validation
//! (feature `ct-validation`, `crates/ct-valgrind/tests/ct_valgrind.rs`) they tell
//! memcheck that the value may be branched on from here, so that every other branch or
//! index on a secret is reported. A new declassification is a new function here, with its argument.

use super::tags::N;
use crate::Result;
use crate::ct;
use crate::modular::Elem;

/// A signature, once the fault check has passed: it is the public output.
pub(crate) fn signature(sig: Result<Vec<u8>>) -> Result<Vec<u8>> {
    if let Ok(s) = &sig {
        ct::mark_public(s);
    }
    sig
}

/// A PSS salt: random, but public, since every verifier recovers it from the signature
/// (RFC 8017 section 9.1.2, step 10), and so is the encoded message built from it.
pub(crate) fn pss_salt(salt: &[u8]) {
    ct::mark_public(salt);
}

/// Where a decrypted message starts in the encoded message: the message's length, which
/// the caller receives (after implicit rejection, the length of the real or of the
/// synthetic message, chosen in constant time; after OAEP, once the padding has passed).
pub(crate) fn message_start(start: usize) -> usize {
    ct::declassify(start)
}

/// The blinded product t = r_1 ... r_k x mod n that the variable-time inversion of a set
/// of blinding pairs sees: uniform and independent of the r_i for the unknown x
/// (`blinding.rs`), so its value is public.
pub(crate) fn blinded_product<E>(t: &Elem<N, E>) {
    ct::mark_public(t.as_limbs());
}
