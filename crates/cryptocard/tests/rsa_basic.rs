//! RSA round trips on generated keys, key validation and (n, e, d) recovery (the fault
//! check's tests are `rsa_faults.rs`).

use cryptocard::Error;
use cryptocard::bignum::Nat;
use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{KeyGenOptions, Oaep, Pss, RsaPrivateKey, RsaPublicKey, SaltLength};
use std::sync::OnceLock;

fn key2048() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| RsaPrivateKey::generate(2048, &mut OsRng).unwrap())
}

#[test]
fn generated_key_is_consistent() {
    let key = key2048();
    assert_eq!(key.bits(), 2048);
    assert_eq!(key.size(), 256);
    assert_eq!(key.primes().len(), 2);
    let (p, q) = (&key.primes()[0], &key.primes()[1]);
    assert_eq!(&(p * q), &key.public_key().n());
    // Rebuilding from the components passes every check.
    let again = RsaPrivateKey::from_crt_components(
        key.public_key().n(),
        key.public_key().e().clone(),
        key.d().clone(),
        key.primes().to_vec(),
        key.crt_exponents().to_vec(),
        key.crt_coefficients().to_vec(),
    )
    .unwrap();
    assert_eq!(&again, key);
}

#[test]
fn raw_round_trip() {
    let key = key2048();
    let mut m = vec![0u8; 256];
    m[200..].copy_from_slice(&[0x42; 56]);
    let s = key.raw_private(&m, &mut OsRng).unwrap();
    assert_eq!(key.public_key().raw_public(&s).unwrap(), m);
    // Many operations, past the blinding refresh.
    for i in 0..70u8 {
        m[255] = i;
        let s = key.raw_private(&m, &mut OsRng).unwrap();
        assert_eq!(key.public_key().raw_public(&s).unwrap(), m);
    }
    // Not k bytes, or not below n.
    assert!(matches!(key.raw_private(&m[1..], &mut OsRng), Err(Error::InvalidArgument(_))));
    assert!(matches!(key.raw_private(&[0xff; 256], &mut OsRng), Err(Error::InvalidArgument(_))));
    assert!(matches!(key.public_key().raw_public(&[0xff; 256]), Err(Error::InvalidArgument(_))));
}

#[test]
fn signatures_round_trip() {
    let key = key2048();
    let public = key.public_key();
    for hash in [HashAlg::Md5, HashAlg::Sha1, HashAlg::Sha256, HashAlg::Sha512] {
        let sig = key.sign_pkcs1v15(hash, b"hello", &mut OsRng).unwrap();
        public.verify_pkcs1v15(hash, b"hello", &sig).unwrap();
        assert_eq!(public.verify_pkcs1v15(hash, b"hellO", &sig), Err(Error::Verification));
        for salt in [SaltLength::DigestLength, SaltLength::Maximum, SaltLength::Exact(0)] {
            let params = Pss::new(hash).with_salt(salt);
            let sig = key.sign_pss(&params, b"hello", &mut OsRng).unwrap();
            public.verify_pss(&params, b"hello", &sig).unwrap();
            public.verify_pss(&params.with_salt(SaltLength::Auto), b"hello", &sig).unwrap();
            assert_eq!(public.verify_pss(&params, b"hellO", &sig), Err(Error::Verification));
        }
    }
    let sig = key.sign_pkcs1v15_raw(b"raw data", &mut OsRng).unwrap();
    public.verify_pkcs1v15_raw(b"raw data", &sig).unwrap();
    assert_eq!(public.recover_pkcs1v15_raw(&sig).unwrap(), b"raw data");
}

/// A signature is exactly k bytes (RFC 8017 8.1.2 and 8.2.2, step 1). One whose first
/// byte is zero, sent without it, is numerically the same signature, and OpenSSL 3.0 and
/// 4.0 accept it for PSS: ours refuses it, for both schemes.
#[test]
fn signatures_short_by_a_leading_zero_fail() {
    let key = key2048();
    let public = key.public_key();
    let params = Pss::new(HashAlg::Sha256);
    let (mut pss, mut pkcs1) = (None, None);
    for i in 0u32..20_000 {
        if pss.is_none() {
            let sig = key.sign_pss(&params, b"hello", &mut OsRng).unwrap();
            pss = (sig[0] == 0).then_some(sig);
        }
        if pkcs1.is_none() {
            let msg = i.to_be_bytes();
            let sig = key.sign_pkcs1v15(HashAlg::Sha256, &msg, &mut OsRng).unwrap();
            pkcs1 = (sig[0] == 0).then_some((msg, sig));
        }
        if pss.is_some() && pkcs1.is_some() {
            break;
        }
    }
    let (pss, (msg, pkcs1)) = (pss.unwrap(), pkcs1.unwrap());
    public.verify_pss(&params, b"hello", &pss).unwrap();
    assert_eq!(public.verify_pss(&params, b"hello", &pss[1..]), Err(Error::Verification));
    public.verify_pkcs1v15(HashAlg::Sha256, &msg, &pkcs1).unwrap();
    assert_eq!(
        public.verify_pkcs1v15(HashAlg::Sha256, &msg, &pkcs1[1..]),
        Err(Error::Verification)
    );
}

#[test]
fn encryption_round_trip() {
    let key = key2048();
    let public = key.public_key();
    for params in [
        Oaep::new(HashAlg::Sha1),
        Oaep::new(HashAlg::Sha256).with_mgf1(HashAlg::Sha1).with_label(b"L"),
    ] {
        let ct = public.encrypt_oaep(&params, b"secret", &mut OsRng).unwrap();
        assert_eq!(key.decrypt_oaep(&params, &ct, &mut OsRng).unwrap(), b"secret");
        let wrong = params.clone().with_label(b"other");
        assert_eq!(key.decrypt_oaep(&wrong, &ct, &mut OsRng), Err(Error::Decryption));
    }
    let ct = public.encrypt_pkcs1v15(b"secret", &mut OsRng).unwrap();
    assert_eq!(key.decrypt_pkcs1v15(&ct, &mut OsRng).unwrap(), b"secret");
    assert_eq!(key.decrypt_pkcs1v15_explicit(&ct, &mut OsRng).unwrap(), b"secret");
    // An invalid padding: explicit error, or a deterministic synthetic message.
    let mut em = [0x01u8; 256];
    em[0] = 0;
    let garbage = public.raw_public(&em).unwrap();
    assert_eq!(key.decrypt_pkcs1v15_explicit(&garbage, &mut OsRng), Err(Error::Decryption));
    let a = key.decrypt_pkcs1v15(&garbage, &mut OsRng).unwrap();
    let b = key.decrypt_pkcs1v15(&garbage, &mut OsRng).unwrap();
    assert_eq!(a, b);
    assert!(a.len() <= 246);
}

#[test]
fn formats_round_trip() {
    let key = key2048();
    let der = key.to_pkcs1_der().unwrap();
    assert_eq!(&RsaPrivateKey::from_pkcs1_der(&der).unwrap(), key);
    let pem = key.to_pkcs8_pem().unwrap();
    assert_eq!(&RsaPrivateKey::from_pem(&pem, None).unwrap(), key);
    let enc = key.to_pkcs8_encrypted_pem(b"pw", &mut OsRng).unwrap();
    assert_eq!(&RsaPrivateKey::from_pem(&enc, Some(b"pw")).unwrap(), key);
    assert_eq!(
        RsaPrivateKey::from_pem(&enc, Some(b"wrong")),
        Err(Error::InvalidEncoding("wrong password or corrupt key"))
    );
    let spki = key.public_key().to_public_key_pem().unwrap();
    assert_eq!(&RsaPublicKey::from_pem(&spki).unwrap(), key.public_key());
    let pkcs1 = key.public_key().to_pkcs1_pem().unwrap();
    assert_eq!(&RsaPublicKey::from_pem(&pkcs1).unwrap(), key.public_key());
}

#[test]
fn recovery_from_n_e_d() {
    let key = key2048();
    let rec = RsaPrivateKey::from_n_e_d(
        key.public_key().n(),
        key.public_key().e().clone(),
        key.d().clone(),
    )
    .unwrap();
    let mut primes = key.primes().to_vec();
    primes.sort();
    let mut got = rec.primes().to_vec();
    got.sort();
    assert_eq!(got, primes);
    let wrong_d = key.d() + &Nat::from_u64(2);
    assert!(matches!(
        RsaPrivateKey::from_n_e_d(key.public_key().n(), key.public_key().e().clone(), wrong_d),
        Err(Error::InvalidKey(_))
    ));
}

#[test]
fn multi_prime_keys() {
    let opts = KeyGenOptions { primes: 3, ..KeyGenOptions::new(2048) };
    let key = RsaPrivateKey::generate_with(&opts, &mut OsRng).unwrap();
    assert_eq!(key.primes().len(), 3);
    assert_eq!(key.bits(), 2048);
    let sig = key.sign_pkcs1v15(HashAlg::Sha256, b"m", &mut OsRng).unwrap();
    key.public_key().verify_pkcs1v15(HashAlg::Sha256, b"m", &sig).unwrap();
    let der = key.to_pkcs1_der().unwrap();
    assert_eq!(RsaPrivateKey::from_pkcs1_der(&der).unwrap(), key);
}

#[test]
fn concurrent_signers_share_a_key() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<RsaPrivateKey>();
    send_sync::<RsaPublicKey>();
    let key = key2048();
    std::thread::scope(|s| {
        for t in 0..4u8 {
            s.spawn(move || {
                for i in 0..40u8 {
                    let msg = [t, i];
                    let sig = key.sign_pkcs1v15(HashAlg::Sha256, &msg, &mut OsRng).unwrap();
                    key.public_key().verify_pkcs1v15(HashAlg::Sha256, &msg, &sig).unwrap();
                }
            });
        }
    });
}
