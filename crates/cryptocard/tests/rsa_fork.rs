//! Blinding pairs after `fork()`: a child process must not reuse the pairs its parent
//! pooled (parent and child would blind with the same r, each knowing the other's
//! factors). The child's first operation must make a set of its own, which the fault
//! harness observes: a fault armed for the making of a set strikes in the child.
//!
//! Alone in its test binary, so that no other test thread runs while the process forks.

mod fork_common;

use cryptocard::Error;
use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard::rsa::fault::{Phase, arm};

fn key() -> RsaPrivateKey {
    let der = hex::decode(include_str!("data/rsa/rsa2048_pkcs1.hex").trim()).unwrap();
    RsaPrivateKey::from_pkcs1_der(&der).unwrap()
}

/// The child's part: whether its first signature made a fresh set of pairs (the armed
/// fault struck it, and the fault check withheld the signature).
fn child_makes_its_own_set(key: &RsaPrivateKey) -> bool {
    let armed = arm(Phase::FreshSet, 0, 77);
    let signed = key.sign_pkcs1v15(HashAlg::Sha256, b"child", &mut OsRng);
    armed.fired() && signed == Err(Error::FaultDetected)
}

#[test]
fn a_forked_child_makes_its_own_blinding_pairs() {
    let key = key();
    key.sign_pkcs1v15(HashAlg::Sha256, b"parent", &mut OsRng).unwrap();
    {
        // The parent's pool now serves its next operation: no fresh set.
        let armed = arm(Phase::FreshSet, 0, 77);
        key.sign_pkcs1v15(HashAlg::Sha256, b"parent again", &mut OsRng).unwrap();
        assert!(!armed.fired(), "the parent made a second set");
    }
    let code = fork_common::in_child("its first signature hung", || {
        if child_makes_its_own_set(&key) { 0 } else { 1 }
    });
    assert_eq!(code, 0, "the child reused its parent's blinding pairs");
    // The parent's pool is untouched by the child.
    key.sign_pkcs1v15(HashAlg::Sha256, b"parent after", &mut OsRng).unwrap();
}
