//! The provider's plain-Rust parts without OpenSSL: key import and export of the
//! standard RSA values, the parameter parsers (`pad-mode`, `saltlen` as strings and
//! integers, as OpenSSL sends them) and writers, and the signature and cipher contexts'
//! operations and refusals.

use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{KeyGenOptions, Pss, RsaPrivateKey, SaltLength};
use cryptocard_provider::cipher_ctx::CipherCtx;
use cryptocard_provider::digest_policy::DigestPolicy;
use cryptocard_provider::errors::Reason;
use cryptocard_provider::key::{KeyBytes, KeyData, KeyValues};
use cryptocard_provider::ossl::{self, OsslParam, PARAM_END};
use cryptocard_provider::padding::{Pad, Salt};
use cryptocard_provider::params;
use cryptocard_provider::sig_ctx::{Purpose, SigCtx};
use cryptocard_provider::sig_digest::SigMd;
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
    let sorted = |v: &[KeyBytes]| {
        let mut v: Vec<Vec<u8>> = v.iter().map(|x| x.to_vec()).collect();
        v.sort();
        v
    };
    assert_eq!(sorted(&again.factors), sorted(&full.factors));
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
        signer.set_md(SigMd::Hash(HashAlg::Sha256)).unwrap();
        let sig = signer.sign(&digest).unwrap();
        let mut verifier = SigCtx::default();
        verifier.init(key(), Purpose::Verify).unwrap();
        verifier.set_pad(pad).unwrap();
        verifier.set_md(SigMd::Hash(HashAlg::Sha256)).unwrap();
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
    enc.set_oaep_md(cryptocard::digest::HashAlg::Sha256).unwrap();
    enc.label = b"label".to_vec();
    let ct = enc.encrypt(msg).unwrap();
    let mut dec = CipherCtx::default();
    dec.init(Some(key()), true).unwrap();
    dec.set_pad(Pad::Oaep).unwrap();
    dec.set_oaep_md(cryptocard::digest::HashAlg::Sha256).unwrap();
    assert_eq!(dec.decrypt(&ct).unwrap_err().reason, Reason::DecryptionFailed, "wrong label");
    dec.label = b"label".to_vec();
    assert_eq!(dec.decrypt(&ct).unwrap()[..], msg[..]);
    // PKCS#1 v1.5: implicit rejection answers garbage with a message, explicit fails.
    // The garbage is a raw encryption of a block that is surely not type 2 (00 00 ...):
    // the OAEP ciphertext above decrypts to valid PKCS#1 v1.5 one time in about 260.
    let mut raw = CipherCtx::default();
    raw.init(Some(key()), false).unwrap();
    raw.set_pad(Pad::None).unwrap();
    let mut block = vec![0x5au8; key().public().unwrap().size()];
    block[..2].copy_from_slice(&[0, 0]);
    let garbage = raw.encrypt(&block).unwrap();
    let mut pkcs1 = CipherCtx::default();
    pkcs1.init(Some(key()), true).unwrap();
    assert!(pkcs1.decrypt(&garbage).is_ok());
    pkcs1.implicit_rejection = false;
    assert_eq!(pkcs1.decrypt(&garbage).unwrap_err().reason, Reason::DecryptionFailed);
    assert!(pkcs1.decrypt(&garbage[1..]).is_err());
    assert!(pkcs1.set_pad(Pad::Pss).is_err());
}

/// MD2 and MD4 (OpenSSL's legacy provider) only under a policy that takes them, in
/// every place a digest is named, and the policy lasts through every init.
#[test]
fn legacy_digests_follow_the_contexts_policy() {
    let mut strict = SigCtx::default();
    assert!(strict.init_digest(key(), Purpose::Sign, Some("MD4")).is_err());
    strict.init(key(), Purpose::Verify).unwrap();
    assert!(strict.set_md(SigMd::Hash(HashAlg::Md2)).is_err());
    strict.set_pad(Pad::Pss).unwrap();
    assert!(strict.set_mgf1(HashAlg::Md4).is_err());
    strict.set_mgf1(HashAlg::Sha256).unwrap();
    let legacy = DigestPolicy { legacy: true };
    let mut open = SigCtx::default().with_digest_policy(legacy);
    for md in ["MD4", "MD2"] {
        open.init_digest(key(), Purpose::Sign, Some(md)).unwrap();
        open.update(b"a 1990 settlement file").unwrap();
        let sig = open.digest_sign_final().unwrap();
        open.init_digest(key(), Purpose::Verify, Some(md)).unwrap();
        open.update(b"a 1990 settlement file").unwrap();
        assert!(open.digest_verify_final(&sig).is_ok(), "{md}");
    }
    let mut enc = CipherCtx::default();
    enc.init(Some(key()), false).unwrap();
    enc.set_pad(Pad::Oaep).unwrap();
    assert!(enc.set_oaep_md(HashAlg::Md4).is_err());
    assert!(enc.set_mgf1(HashAlg::Md2).is_err());
    let mut enc = CipherCtx::with_digest_policy(legacy);
    enc.init(Some(key()), false).unwrap();
    enc.init(None, false).unwrap();
    enc.set_pad(Pad::Oaep).unwrap();
    enc.set_oaep_md(HashAlg::Md4).unwrap();
    enc.set_mgf1(HashAlg::Md2).unwrap();
    assert!(enc.encrypt(b"a DES key").is_ok());
}

/// The private values leave in buffers wiped when dropped (`KeyBytes` is `Zeroizing`).
#[test]
fn exported_private_values_are_wiped_when_dropped() {
    fn wiped(_: &zeroize::Zeroizing<Vec<u8>>) {}
    let values = key().export(true);
    wiped(values.d.as_ref().unwrap());
    values.factors.iter().chain(&values.exponents).chain(&values.coefficients).for_each(wiped);
}

/// `OSSL_PARAM_set_utf8_string` (crypto/params.c): a buffer of exactly the string's length
/// takes it without the NUL; a larger one gets the NUL; a smaller one is refused. The
/// length returned never counts the NUL.
#[test]
fn utf8_strings_fill_a_buffer_of_their_own_length() {
    for (size, ok, expected) in [
        (6, true, &b"digest"[..]),
        (7, true, &b"digest\0"[..]),
        (8, true, &b"digest\0\xee"[..]),
        (5, false, &b"\xee\xee\xee\xee\xee"[..]),
    ] {
        let mut buf = vec![0xeeu8; size];
        let mut array = [
            OsslParam {
                key: c"saltlen".as_ptr(),
                data_type: ossl::PARAM_UTF8_STRING,
                data: buf.as_mut_ptr().cast(),
                data_size: buf.len(),
                return_size: usize::MAX,
            },
            PARAM_END,
        ];
        // SAFETY: an END-terminated array over `buf`, which outlives the view.
        let mut elements = unsafe { params::elements(array.as_mut_ptr()) };
        assert_eq!(elements[0].set_utf8_copy(b"digest"), ok, "buffer of {size}");
        drop(elements);
        assert_eq!(buf, expected, "buffer of {size}");
        assert_eq!(array[0].return_size, 6, "buffer of {size}");
    }
}

/// Signs a digest of `md` with PSS under `ctx`'s salt settings and returns the salt length
/// the signature has (the one `Exact` length the library's verification accepts).
fn pss_salt_of(ctx: &SigCtx, key: &RsaPrivateKey, md: HashAlg) -> usize {
    let digest = vec![5u8; md.output_len()];
    let sig = ctx.sign(&digest).unwrap();
    let public = key.public_key();
    (0..key.size())
        .find(|&n| {
            let params = Pss::new(md).with_salt(SaltLength::Exact(n));
            public.verify_pss_prehashed(&params, &digest, &sig).is_ok()
        })
        .expect("a salt length")
}

fn pss_signer(key: &RsaPrivateKey, md: HashAlg, default_salt: Salt) -> SigCtx {
    let mut ctx = SigCtx::with_default_salt(default_salt);
    ctx.init(Arc::new(KeyData::from_private(key.clone())), Purpose::Sign).unwrap();
    ctx.set_pad(Pad::Pss).unwrap();
    ctx.set_md(SigMd::Hash(md)).unwrap();
    ctx
}

/// auto-digestmax (OpenSSL 3.1's default) is the digest's length, capped at
/// emLen - hLen - 2 where emLen = ceil((bits - 1) / 8): k, or k - 1 when bits = 8m + 1
/// (rsa_sig.c `rsa_pss_compute_saltlen`).
#[test]
fn auto_digestmax_salt_is_capped_at_the_encoded_messages_room() {
    for bits in [1024, 1025] {
        let opts = KeyGenOptions::new(bits);
        let key = RsaPrivateKey::generate_with(&opts, &mut OsRng).unwrap();
        let k = key.size();
        let em_len = if bits % 8 == 1 { k - 1 } else { k };
        // SHA-512 does not fit whole: the cap.
        let ctx = pss_signer(&key, HashAlg::Sha512, Salt::AutoDigestMax);
        assert_eq!(pss_salt_of(&ctx, &key, HashAlg::Sha512), em_len - 64 - 2, "{bits} bits");
        // SHA-256 does: its length.
        let ctx = pss_signer(&key, HashAlg::Sha256, Salt::AutoDigestMax);
        assert_eq!(pss_salt_of(&ctx, &key, HashAlg::Sha256), 32, "{bits} bits");
        // "max" is the room itself.
        let mut ctx = pss_signer(&key, HashAlg::Sha256, Salt::AutoDigestMax);
        ctx.set_salt(Salt::Max).unwrap();
        assert_eq!(pss_salt_of(&ctx, &key, HashAlg::Sha256), em_len - 32 - 2, "{bits} bits");
    }
}

/// A context signs with the default salt it was made with (the core's OpenSSL's: the
/// maximum in 3.0, auto-digestmax since 3.1), again after every init.
#[test]
fn the_default_pss_salt_is_the_contexts_own() {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    let key = KEY.get_or_init(|| RsaPrivateKey::generate(2048, &mut OsRng).unwrap());
    let k = key.size();
    let openssl_30 = pss_signer(key, HashAlg::Sha256, Salt::Auto);
    assert_eq!(openssl_30.salt, Salt::Auto);
    assert_eq!(pss_salt_of(&openssl_30, key, HashAlg::Sha256), k - 32 - 2);
    let openssl_31 = pss_signer(key, HashAlg::Sha256, Salt::AutoDigestMax);
    assert_eq!(pss_salt_of(&openssl_31, key, HashAlg::Sha256), 32);
    assert_eq!(SigCtx::default().salt, Salt::AutoDigestMax);
}
