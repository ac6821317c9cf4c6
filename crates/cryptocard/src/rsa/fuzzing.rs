//! The bodies of the fuzz targets `parse_keys`, `verify` and `decrypt` in
//! `crates/cryptocard/fuzz` (cargo-fuzz, nightly), kept in the library so that ordinary
//! tests run them without nightly: over the targets' seed corpora (`tests/fuzz_corpus.rs`)
//! and on random and mutated inputs (`tests/rsa_fuzz_bodies.rs`). Each takes arbitrary
//! bytes and must never panic; where an operation succeeds, they check what must then
//! hold. The fourth target's body, `private_batch`, drives the engine too and is in
//! `engine::fuzzing`. `scripts/fuzz [SECONDS] [TARGET ...]` runs the fuzzer.

use super::{
    KeyParseOptions, Oaep, Pss, RsaPrivateKey, RsaPublicKey, SaltLength, key_from_der,
    key_from_pem, key_from_pem_with,
};
use crate::digest::{HashAlg, XofAlg};
use crate::rng::OsRng;

/// PBKDF2 iterations the fuzzed encrypted-PKCS#8 parser accepts (keeps each input fast).
const FUZZ_MAX_ITERATIONS: u32 = 64;

/// Every key parser on `data`; a key that parses must write itself back to bytes that
/// parse to the same key.
pub fn parse_keys(data: &[u8]) {
    if let Ok(k) = RsaPrivateKey::from_pkcs1_der(data) {
        let again = RsaPrivateKey::from_pkcs1_der(&k.to_pkcs1_der().expect("encodes"));
        assert_eq!(again.as_ref(), Ok(&k), "PKCS#1 private round trip");
    }
    if let Ok(k) = RsaPrivateKey::from_pkcs8_der(data) {
        let again = RsaPrivateKey::from_pkcs8_der(&k.to_pkcs8_der().expect("encodes"));
        assert_eq!(again.as_ref(), Ok(&k), "PKCS#8 round trip");
    }
    if let Ok(k) = RsaPublicKey::from_pkcs1_der(data) {
        let again = RsaPublicKey::from_pkcs1_der(&k.to_pkcs1_der().expect("encodes"));
        assert_eq!(again.as_ref(), Ok(&k), "PKCS#1 public round trip");
    }
    if let Ok(k) = RsaPublicKey::from_public_key_der(data) {
        let again = RsaPublicKey::from_public_key_der(&k.to_public_key_der().expect("encodes"));
        assert_eq!(again.as_ref(), Ok(&k), "SPKI round trip");
    }
    let _ = RsaPrivateKey::from_pkcs8_encrypted_der_limited(data, b"x", FUZZ_MAX_ITERATIONS);
    let _ = key_from_der(data, None);
    if let Ok(text) = core::str::from_utf8(data) {
        let _ = key_from_pem(text, None);
        // Encrypted PEM of both kinds: PKCS#8 within the iteration limit, and legacy
        // `Proc-Type: 4,ENCRYPTED`, whose derivation is one MD5 a block.
        let opts = KeyParseOptions { max_iterations: FUZZ_MAX_ITERATIONS, ..Default::default() };
        let _ = key_from_pem_with(text, Some(b"x"), &opts);
    }
}

/// The hash a selector byte picks (also for `engine::fuzzing`).
pub(crate) fn hash(selector: u8) -> HashAlg {
    const HASHES: [HashAlg; 8] = [
        HashAlg::Sha1,
        HashAlg::Sha256,
        HashAlg::Sha384,
        HashAlg::Sha512,
        HashAlg::Md5,
        HashAlg::Sha224,
        HashAlg::Sha3_256,
        HashAlg::Sha512_256,
    ];
    HASHES[usize::from(selector) % HASHES.len()]
}

/// Every verification with `key` on a signature and message cut from `data`: byte 0
/// picks the hash, the next k bytes (or fewer) are the signature, the rest the message.
pub fn verify(key: &RsaPublicKey, data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    let (sig, msg) = rest.split_at(rest.len().min(key.size()));
    let h = hash(selector);
    let _ = key.verify_pkcs1v15(h, msg, sig);
    let _ = key.verify_pkcs1v15_prehashed(h, msg, sig);
    let _ = key.verify_pss(&Pss::new(h).with_salt(SaltLength::Auto), msg, sig);
    let _ = key.verify_pss(
        &Pss::new(h).with_mgf1(HashAlg::Sha1).with_salt(SaltLength::Maximum),
        msg,
        sig,
    );
    let _ = key.verify_pss(&Pss::shake(XofAlg::Shake128).with_salt(SaltLength::Auto), msg, sig);
    if let Ok(data) = key.recover_pkcs1v15_raw(sig) {
        assert_eq!(key.verify_pkcs1v15_raw(&data, sig), Ok(()), "recovered data verifies");
    }
    let _ = key.verify_x931(h, msg, sig);
    // What X9.31 recovers, when it is a digest and its id, verifies as that digest.
    if let Ok(framed) = key.recover_x931(sig)
        && let Some((&id, digest)) = framed.split_last()
        && let Some(alg) = [HashAlg::Sha1, HashAlg::Sha256, HashAlg::Sha384, HashAlg::Sha512]
            .into_iter()
            .find(|&a| super::x931::hash_id(a) == Some(id) && a.output_len() == digest.len())
    {
        assert_eq!(
            key.verify_x931_prehashed(alg, digest, sig),
            Ok(()),
            "recovered digest verifies"
        );
    }
    if let Ok(m) = key.raw_public(sig) {
        assert_eq!(m.len(), key.size());
    }
}

/// [`verify`] with the key byte 0 of `data` picks from `keys`, on the rest: the body of
/// the `verify` target.
pub fn verify_any(keys: &[RsaPublicKey], data: &[u8]) {
    if let (Some((&which, rest)), false) = (data.split_first(), keys.is_empty()) {
        verify(&keys[usize::from(which) % keys.len()], rest);
    }
}

/// Every decryption with `key` of a ciphertext cut from `data` (byte 0 picks the OAEP
/// hash): implicit rejection is deterministic and agrees with the explicit form where
/// that succeeds.
pub fn decrypt(key: &RsaPrivateKey, data: &[u8]) {
    let Some((&selector, ct)) = data.split_first() else { return };
    let implicit = key.decrypt_pkcs1v15(ct, &mut OsRng);
    if let Ok(m) = key.decrypt_pkcs1v15_explicit(ct, &mut OsRng) {
        assert_eq!(implicit.as_ref(), Ok(&m), "explicit and implicit agree on valid padding");
    }
    if let Ok(m) = &implicit {
        assert_eq!(
            key.decrypt_pkcs1v15(ct, &mut OsRng).as_ref(),
            Ok(m),
            "implicit rejection is deterministic"
        );
    }
    let _ = key.decrypt_oaep(&Oaep::new(hash(selector)), ct, &mut OsRng);
    let _ = key.decrypt_oaep(&Oaep::new(HashAlg::Sha256).with_label(&data[..1]), ct, &mut OsRng);
    let _ = key.raw_private(ct, &mut OsRng);
}
