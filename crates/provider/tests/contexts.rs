//! The provider's plain-Rust parts without OpenSSL: key import and export of the
//! standard RSA values, the parameter parsers (`pad-mode`, `saltlen` as strings and
//! integers, as OpenSSL sends them), and the signature and cipher contexts' operations
//! and refusals.

use cryptocard::rng::OsRng;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_provider::cipher_ctx::CipherCtx;
use cryptocard_provider::errors::Reason;
use cryptocard_provider::key::{KeyData, KeyValues};
use cryptocard_provider::ossl::{self, OsslParam, PARAM_END};
use cryptocard_provider::padding::{Pad, Salt};
use cryptocard_provider::params;
use cryptocard_provider::sig_ctx::{Purpose, SigCtx};
use std::sync::{Arc, OnceLock};

fn key() -> Arc<KeyData> {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    let k = KEY.get_or_init(|| RsaPrivateKey::generate(2048, &mut OsRng).unwrap());
    Arc::new(KeyData::from_private(k.clone()))
}

/// Parses one parameter of `data_type` holding `data` with `f`.
fn with_param<T>(data_type: u32, data: &mut [u8], f: impl FnOnce(&params::Param<'_>) -> T) -> T {
    let array = [
        OsslParam {
            key: c"x".as_ptr(),
            data_type,
            data: data.as_mut_ptr().cast(),
            data_size: data.len(),
            return_size: 0,
        },
        PARAM_END,
    ];
    // SAFETY: an END-terminated array over `data`, which outlives the call.
    let elements = unsafe { params::elements(array.as_ptr()) };
    f(&elements[0])
}

#[test]
fn pad_mode_and_saltlen_as_strings_and_integers() {
    let utf8 =
        |s: &str| with_param(ossl::PARAM_UTF8_STRING, &mut s.as_bytes().to_vec(), Pad::from_param);
    assert_eq!(utf8("pss"), Ok(Pad::Pss));
    assert_eq!(utf8("oaep"), Ok(Pad::Oaep));
    assert_eq!(utf8("foo").unwrap_err().reason, Reason::InvalidParameter);
    let int = |n: i32| with_param(ossl::PARAM_INTEGER, &mut n.to_ne_bytes(), Pad::from_param);
    assert_eq!(int(1), Ok(Pad::Pkcs1));
    assert_eq!(int(6), Ok(Pad::Pss));
    assert!(int(99).is_err());
    let salt =
        |s: &str| with_param(ossl::PARAM_UTF8_STRING, &mut s.as_bytes().to_vec(), Salt::from_param);
    assert_eq!(salt("digest"), Ok(Salt::Digest));
    assert_eq!(salt("max"), Ok(Salt::Max));
    assert_eq!(salt("auto"), Ok(Salt::Auto));
    assert_eq!(salt("32"), Ok(Salt::Exact(32)));
    assert!(salt("-7").is_err());
    assert!(salt("lots").is_err());
    let salt_int = |n: i32| with_param(ossl::PARAM_INTEGER, &mut n.to_ne_bytes(), Salt::from_param);
    assert_eq!(salt_int(-1), Ok(Salt::Digest));
    assert_eq!(salt_int(-3), Ok(Salt::Max));
    assert_eq!(salt_int(20), Ok(Salt::Exact(20)));
    // A one-byte unsigned integer, as OSSL_PARAM_allocate_from_text makes "1".
    let one = with_param(ossl::PARAM_UNSIGNED_INTEGER, &mut [1u8], |p| p.get_i64());
    assert_eq!(one, Some(1));
}

#[test]
fn keys_import_and_export_the_standard_values() {
    let original = key();
    let full = original.export(true);
    assert_eq!(full.factors.len(), 2);
    assert_eq!(full.coefficients.len(), 1);
    let copy = KeyData::default();
    copy.import(&full, true).unwrap();
    assert!(copy.has(true, true));
    assert_eq!(copy.export(true), full);
    // n, e, d only: the primes are recovered.
    let ned =
        KeyValues { factors: vec![], exponents: vec![], coefficients: vec![], ..full.clone() };
    let recovered = KeyData::default();
    recovered.import(&ned, true).unwrap();
    // The same key, its primes perhaps in the other order (recovery finds them in either).
    let again = recovered.export(true);
    assert_eq!((&again.n, &again.e, &again.d), (&full.n, &full.e, &full.d));
    let sorted = |mut v: Vec<Vec<u8>>| {
        v.sort();
        v
    };
    assert_eq!(sorted(again.factors.clone()), sorted(full.factors.clone()));
    assert!(recovered.same_public(&original));
    // Public only.
    let public = KeyData::default();
    public.import(&original.export(false), true).unwrap();
    assert!(public.has(false, true) && !public.has(true, false));
    assert!(public.same_public(&original));
    // A broken key is refused.
    let mut bad = full.clone();
    *bad.n.as_mut().unwrap().last_mut().unwrap() ^= 1;
    assert!(KeyData::default().import(&bad, true).is_err());
}

#[test]
fn signature_contexts_sign_verify_and_refuse() {
    let digest = [7u8; 32];
    for pad in [Pad::Pkcs1, Pad::Pss] {
        let mut signer = SigCtx::default();
        signer.init(key(), Purpose::Sign).unwrap();
        signer.set_pad(pad).unwrap();
        signer.set_md(cryptocard::digest::HashAlg::Sha256).unwrap();
        let sig = signer.sign(&digest).unwrap();
        let mut verifier = SigCtx::default();
        verifier.init(key(), Purpose::Verify).unwrap();
        verifier.set_pad(pad).unwrap();
        verifier.set_md(cryptocard::digest::HashAlg::Sha256).unwrap();
        verifier.verify(&sig, &digest).unwrap();
        let reason = verifier.verify(&sig, &[8u8; 32]).unwrap_err().reason;
        assert_eq!(reason, Reason::VerificationFailed);
        assert_eq!(signer.sign(&[1u8; 20]).unwrap_err().reason, Reason::InvalidLength);
    }
    let mut ctx = SigCtx::default();
    ctx.init(key(), Purpose::Sign).unwrap();
    assert!(ctx.set_salt(Salt::Max).is_err(), "saltlen before pad-mode pss");
    assert!(ctx.set_pad(Pad::Oaep).is_err());
    ctx.set_pad(Pad::None).unwrap();
    assert_eq!(ctx.sign(&[1u8; 100]).unwrap_err().reason, Reason::InvalidLength);
    // A public key cannot sign.
    let public = Arc::new(KeyData::default());
    public.import(&key().export(false), false).unwrap();
    assert!(SigCtx::default().init(public, Purpose::Sign).is_err());
}

#[test]
fn cipher_contexts_round_trip_and_reject() {
    let msg = b"thirty-two bytes of key material";
    let mut enc = CipherCtx::default();
    enc.init(Some(key()), false).unwrap();
    enc.set_pad(Pad::Oaep).unwrap();
    enc.oaep_md = Some(cryptocard::digest::HashAlg::Sha256);
    enc.label = b"label".to_vec();
    let ct = enc.encrypt(msg).unwrap();
    let mut dec = CipherCtx::default();
    dec.init(Some(key()), true).unwrap();
    dec.set_pad(Pad::Oaep).unwrap();
    dec.oaep_md = Some(cryptocard::digest::HashAlg::Sha256);
    assert_eq!(dec.decrypt(&ct).unwrap_err().reason, Reason::DecryptionFailed, "wrong label");
    dec.label = b"label".to_vec();
    assert_eq!(dec.decrypt(&ct).unwrap(), msg);
    // PKCS#1 v1.5: implicit rejection answers garbage with a message, explicit fails.
    let mut pkcs1 = CipherCtx::default();
    pkcs1.init(Some(key()), true).unwrap();
    assert!(pkcs1.decrypt(&ct).is_ok());
    pkcs1.implicit_rejection = false;
    assert_eq!(pkcs1.decrypt(&ct).unwrap_err().reason, Reason::DecryptionFailed);
    assert!(pkcs1.decrypt(&ct[1..]).is_err());
    assert!(pkcs1.set_pad(Pad::Pss).is_err());
}
