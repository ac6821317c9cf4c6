//! The key provider on its own: which keys it takes, the errors it gives for wrong or
//! corrupt ones (never a panic), and signatures asked from every kind of thread.

use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{Pss, RsaPrivateKey, RsaPublicKey};
use cryptocard_rustls::{CryptocardKeys, Wait, provider, shared_engine};
use rustls::crypto::KeyProvider;
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs1KeyDer, PrivatePkcs8KeyDer, PrivateSec1KeyDer};
use rustls::sign::SigningKey;
use rustls::{SignatureAlgorithm, SignatureScheme};
use std::sync::{Arc, OnceLock};

fn key2048() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| RsaPrivateKey::generate(2048, &mut OsRng).unwrap())
}

fn pkcs8(key: &RsaPrivateKey) -> PrivateKeyDer<'static> {
    PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.to_pkcs8_der().unwrap().to_vec()))
}

fn pkcs1(key: &RsaPrivateKey) -> PrivateKeyDer<'static> {
    PrivateKeyDer::Pkcs1(PrivatePkcs1KeyDer::from(key.to_pkcs1_der().unwrap().to_vec()))
}

fn load(der: PrivateKeyDer<'static>) -> Result<Arc<dyn SigningKey>, rustls::Error> {
    provider().key_provider.load_private_key(der)
}

fn error_of(der: PrivateKeyDer<'static>) -> String {
    match load(der) {
        Ok(k) => panic!("loaded: {k:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn rsa_keys_in_both_encodings_are_ours() {
    for der in [pkcs8(key2048()), pkcs1(key2048())] {
        let key = load(der).unwrap();
        assert_eq!(key.algorithm(), SignatureAlgorithm::RSA);
        assert!(format!("{key:?}").starts_with("RsaSigningKey"), "{key:?}");
        let spki = key.public_key().unwrap();
        assert_eq!(spki.as_ref(), key2048().public_key().to_public_key_der().unwrap());
    }
}

#[test]
fn other_keys_go_to_the_base_provider() {
    let ec = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let key = load(PrivateKeyDer::Pkcs8(ec.serialize_der().into())).unwrap();
    assert_eq!(key.algorithm(), SignatureAlgorithm::ECDSA);
    // Without a base provider, the same key is refused in words.
    let alone = CryptocardKeys::rsa_only(shared_engine());
    let err = alone.load_private_key(PrivateKeyDer::Pkcs8(ec.serialize_der().into())).unwrap_err();
    assert!(err.to_string().contains("only RSA keys"), "{err}");
}

#[test]
fn wrong_and_corrupt_keys_are_clear_errors() {
    let good8 = key2048().to_pkcs8_der().unwrap().to_vec();
    let good1 = key2048().to_pkcs1_der().unwrap().to_vec();
    // Truncated, and one byte changed everywhere in the first 64 (tags and lengths).
    for cut in [0, 1, 10, good8.len() / 2, good8.len() - 1] {
        let e = error_of(PrivateKeyDer::Pkcs8(good8[..cut].to_vec().into()));
        assert!(e.contains("cryptocard"), "{e}");
        let e = error_of(PrivateKeyDer::Pkcs1(good1[..cut.min(good1.len() - 1)].to_vec().into()));
        assert!(e.contains("cryptocard: the RSA private key"), "{e}");
    }
    for i in 0..64 {
        let mut bad = good1.clone();
        bad[i] ^= 0x40;
        // Either refused in words, or (a change the DER allows, e.g. in a length's slack)
        // loaded: never a panic, and never a key that signs wrongly (the fault check
        // and import validation see to that; a signature is checked below).
        if let Ok(key) = load(PrivateKeyDer::Pkcs1(bad.into())) {
            let signer = key.choose_scheme(&[SignatureScheme::RSA_PSS_SHA256]).unwrap();
            if let Ok(sig) = signer.sign(b"message") {
                let public = RsaPublicKey::from_public_key_der(&key.public_key().unwrap()).unwrap();
                public.verify_pss(&Pss::new(HashAlg::Sha256), b"message", &sig).unwrap();
            }
        }
    }
    // A SEC 1 blob that is not an EC key: the base provider's own error, no panic.
    assert!(load(PrivateKeyDer::Sec1(PrivateSec1KeyDer::from(vec![0x30, 0x00]))).is_err());
}

#[test]
fn key_sizes_outside_2048_to_8192_are_refused() {
    let small = RsaPrivateKey::generate(1024, &mut OsRng).unwrap();
    let e = error_of(pkcs8(&small));
    assert!(e.contains("2048 to 8192 bits") && e.contains("1024"), "{e}");
}

/// A signature with `key` under `scheme`, checked with cryptocard's public key.
fn sign_and_check(key: &Arc<dyn SigningKey>, scheme: SignatureScheme) {
    let signer = key.choose_scheme(&[scheme]).unwrap();
    assert_eq!(signer.scheme(), scheme);
    let sig = signer.sign(b"TLS 1.3, server CertificateVerify").unwrap();
    let public = key2048().public_key();
    match scheme {
        SignatureScheme::RSA_PSS_SHA256 => public.verify_pss(
            &Pss::new(HashAlg::Sha256),
            b"TLS 1.3, server CertificateVerify",
            &sig,
        ),
        _ => public.verify_pkcs1v15(HashAlg::Sha256, b"TLS 1.3, server CertificateVerify", &sig),
    }
    .unwrap();
}

#[test]
fn signatures_from_every_kind_of_thread() {
    let schemes = [SignatureScheme::RSA_PSS_SHA256, SignatureScheme::RSA_PKCS1_SHA256];
    for wait in [Wait::BlockInPlace, Wait::Block, Wait::Direct] {
        let keys = CryptocardKeys::rsa_only(shared_engine()).with_wait(wait);
        let key: Arc<dyn SigningKey> = Arc::new(keys.load_rsa(&pkcs8(key2048())).unwrap());
        // A plain thread (no runtime).
        schemes.iter().for_each(|&s| sign_and_check(&key, s));
        // A current-thread runtime: never block_in_place, which would panic there.
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async { schemes.iter().for_each(|&s| sign_and_check(&key, s)) });
        // Workers of a multi-thread runtime, several at once.
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
        rt.block_on(async {
            let tasks: Vec<_> = (0..16)
                .map(|i| {
                    let key = key.clone();
                    tokio::spawn(async move { sign_and_check(&key, schemes[i % 2]) })
                })
                .collect();
            for t in tasks {
                t.await.unwrap();
            }
        });
    }
}

#[test]
fn no_scheme_in_common_means_no_signer() {
    let key = load(pkcs8(key2048())).unwrap();
    assert!(
        key.choose_scheme(&[SignatureScheme::ECDSA_NISTP256_SHA256, SignatureScheme::ED25519])
            .is_none()
    );
    assert!(key.choose_scheme(&[]).is_none());
}
