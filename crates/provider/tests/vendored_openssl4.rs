//! The provider in OpenSSL 4.0.3, the static libcrypto that crates/compare builds from
//! `openssl-src` and links into this test binary (`Openssl::vendored()`), not only in the
//! system's OpenSSL 3.0 command (tests/openssl_cli.rs): the cdylib cargo built, copied
//! into a modules directory as `cryptocard.so`, is loaded there beside the default
//! provider, and the two check each other both ways: we sign a SHA-256 digest (PKCS#1
//! v1.5, PSS, ANSI X9.31), the default provider verifies, and the reverse; the same for
//! PKCS#1 v1.5 over RIPEMD-160 and TLS 1.0's MD5-SHA1; each recovers the digest from the
//! other's PKCS#1 v1.5 and X9.31 signatures; the default provider encrypts (PKCS#1 v1.5,
//! OAEP), we decrypt, and the reverse.
//!
//! Every operation meant for ours is prepared with the strict query
//! "provider=cryptocard", which no other provider satisfies (the same query fails before
//! ours is loaded), and the provider's `cryptocard-ops` counters, read through
//! `OSSL_PROVIDER_get_params`, must have moved by exactly the operations it was given.
//! The cdylib that OpenSSL loads is a copy of its own, so the counters of the rlib in
//! this process would say nothing.

mod common;

use compare::openssl::{Openssl, Provider, RsaCtx, RsaKey, RsaOp, RsaPadding};

const OURS: &str = "provider=cryptocard";
const DEFAULT: &str = "provider=default";

/// The counters of our provider ("signs=1 verifies=0 ..."), by name.
fn ops(ours: &Provider, name: &str) -> u64 {
    let text = ours.param("cryptocard-ops").expect("cryptocard-ops parameter");
    text.split_whitespace()
        .filter_map(|w| w.strip_prefix(name)?.strip_prefix('='))
        .find_map(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no counter {name} in {text:?}"))
}

fn ctx(key: &RsaKey, op: RsaOp, padding: RsaPadding<'_>, propq: &str) -> RsaCtx {
    key.prepare_with(op, padding, Some(propq))
        .unwrap_or_else(|e| panic!("{op:?} {padding:?} with {propq}: {e}"))
}

/// The provider `signer` selects signs `digest` with `key`; the one `verifier` selects
/// checks the signature with `check_key` and rejects a damaged copy.
fn sign_verify(
    (key, signer): (&RsaKey, &str),
    (check_key, verifier): (&RsaKey, &str),
    padding: RsaPadding<'_>,
    digest: &[u8],
) {
    let sig = ctx(key, RsaOp::Sign, padding, signer).run(digest).expect("sign");
    assert_eq!(sig.len(), key.size());
    let mut verify = ctx(check_key, RsaOp::Verify, padding, verifier);
    assert!(verify.verify(digest, &sig).expect("verify"), "{padding:?}: {signer} -> {verifier}");
    let mut bad = sig.clone();
    bad[7] ^= 1;
    let damaged = verify.verify(digest, &bad).expect("verify");
    assert!(!damaged, "{padding:?}: {signer} -> {verifier}: a damaged signature passed");
}

/// `encrypter` encrypts a message with `public`, `decrypter` recovers it with `key`.
fn encrypt_decrypt(
    (public, encrypter): (&RsaKey, &str),
    (key, decrypter): (&RsaKey, &str),
    padding: RsaPadding<'_>,
) {
    let msg = b"a secret of 32 bytes, say a key.";
    let ct = ctx(public, RsaOp::Encrypt, padding, encrypter).run(msg).expect("encrypt");
    let pt = ctx(key, RsaOp::Decrypt, padding, decrypter).run(&ct).expect("decrypt");
    assert_eq!(pt, msg, "{padding:?}: {encrypter} -> {decrypter}");
}

#[test]
fn provider_in_vendored_openssl_4() {
    let lib = match Openssl::vendored() {
        Ok(lib) => lib,
        Err(e) => {
            eprintln!("provider_in_vendored_openssl_4: skipped: vendored OpenSSL: {e}");
            return;
        }
    };
    let version = &lib.info().version;
    assert!(version.contains("4.0.3"), "vendored OpenSSL is {version}, not 4.0.3");

    let key = lib.rsa_generate(2048).expect("RSA-2048 key from the default provider");
    let public = lib.rsa_public_key_der(&key.to_spki_der().unwrap()).expect("public key");
    let digest = lib.digest("SHA256").unwrap().digest(b"the message to sign").unwrap();
    let pkcs1 = RsaPadding::Pkcs1 { digest: Some("SHA256") };
    let pss = RsaPadding::Pss { digest: "SHA256", salt_len: 32 };
    let oaep = RsaPadding::Oaep { digest: "SHA256" };
    let x931 = RsaPadding::X931 { digest: "SHA256" };

    // Before ours is loaded, nothing satisfies the strict query.
    assert!(!lib.provider_available("cryptocard").unwrap());
    for (op, padding) in [(RsaOp::Sign, pkcs1), (RsaOp::Decrypt, oaep)] {
        assert!(
            key.prepare_with(op, padding, Some(OURS)).is_err(),
            "{op:?} with {OURS} prepared without our provider loaded"
        );
    }

    let (_dir, modules) = common::workdir("vendored-openssl4");
    let ours = lib.load_provider(&modules, "cryptocard").expect("load cryptocard.so");
    assert_eq!(ours.name(), "cryptocard");
    assert!(lib.provider_available("cryptocard").unwrap());
    assert!(lib.provider_available("default").unwrap(), "the default provider stays loaded");
    let default = lib.load_provider(&modules, "default").expect("default provider");
    assert_eq!(default.name(), "default");
    eprintln!(
        "OpenSSL {version} (vendored) loaded {} from {}: version {}, {}",
        ours.name(),
        modules.display(),
        ours.param("version").unwrap(),
        ours.param("buildinfo").unwrap()
    );

    let before = |n| ops(&ours, n);
    let (signs, verifies, encrypts, decrypts) =
        (before("signs"), before("verifies"), before("encrypts"), before("decrypts"));

    // Ours signs, the default provider verifies (with the private key and with the
    // public-only one), and the reverse.
    for padding in [pkcs1, pss, x931] {
        sign_verify((&key, OURS), (&key, DEFAULT), padding, &digest);
        sign_verify((&key, OURS), (&public, DEFAULT), padding, &digest);
        sign_verify((&key, DEFAULT), (&key, OURS), padding, &digest);
        sign_verify((&key, DEFAULT), (&public, OURS), padding, &digest);
    }
    // PKCS#1 v1.5 over the legacy digests OpenSSL still signs: RIPEMD-160, and TLS 1.0's
    // MD5-SHA1 (36 bytes, no DigestInfo).
    let message = b"the message to sign";
    for name in ["RIPEMD160", "MD5-SHA1"] {
        let d = lib.digest(name).unwrap().digest(message).unwrap();
        let padding = RsaPadding::Pkcs1 { digest: Some(name) };
        sign_verify((&key, OURS), (&public, DEFAULT), padding, &d);
        sign_verify((&key, DEFAULT), (&public, OURS), padding, &d);
    }
    // PKCS#1 v1.5 and X9.31 are deterministic: the same signature from either provider,
    // and each recovers the digest from it.
    for padding in [pkcs1, x931] {
        let sig = ctx(&key, RsaOp::Sign, padding, OURS).run(&digest).expect("sign");
        assert_eq!(ctx(&key, RsaOp::Sign, padding, DEFAULT).run(&digest).unwrap(), sig);
        for recoverer in [OURS, DEFAULT] {
            let got = ctx(&public, RsaOp::VerifyRecover, padding, recoverer).run(&sig);
            assert_eq!(got.expect("verify-recover"), digest, "{padding:?} with {recoverer}");
        }
    }
    // The default provider encrypts, ours decrypts, and the reverse.
    for padding in [RsaPadding::Pkcs1 { digest: None }, oaep] {
        encrypt_decrypt((&public, DEFAULT), (&key, OURS), padding);
        encrypt_decrypt((&public, OURS), (&key, DEFAULT), padding);
    }

    // Per signature padding (3): two signatures of ours; two verifications of ours, each of
    // a good and a damaged signature. Per deterministic padding (2): one signature and one
    // recovery of ours (recoveries count as verifications). Per encryption padding (2):
    // one encryption and one decryption of ours.
    let now = ours.param("cryptocard-ops").unwrap();
    let after = |n| ops(&ours, n);
    // Per legacy digest (2): one signature and one verification (good and damaged).
    assert_eq!(after("signs") - signs, 3 * 2 + 2 + 2, "{now}");
    assert_eq!(after("verifies") - verifies, 3 * 4 + 2 + 2 * 2, "{now}");
    assert_eq!(after("encrypts") - encrypts, 2, "{now}");
    assert_eq!(after("decrypts") - decrypts, 2, "{now}");
    eprintln!(
        "cryptocard provider in OpenSSL {version}: {}",
        ours.param("cryptocard-ops").unwrap()
    );
}
