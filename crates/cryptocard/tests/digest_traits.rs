//! Our hashers through the RustCrypto `digest` 0.11 traits (feature `rustcrypto-traits`):
//! generic `Digest` code, `DynDigest` trait objects, and agreement with RustCrypto's own
//! `md2`/`md4` crates used the same way.

#![cfg(feature = "rustcrypto-traits")]

mod common;
mod digest_support;

use cryptocard::digest as cc;
use digest::{Digest, DynDigest, FixedOutputReset};
use digest_support::bytes;

/// Generic RustCrypto-style code: hash in two pieces with `chain_update`.
fn generic_digest<D: Digest>(data: &[u8]) -> Vec<u8> {
    let (a, b) = data.split_at(data.len() / 2);
    D::new().chain_update(a).chain_update(b).finalize().to_vec()
}

#[test]
fn digest_trait_gives_our_digests() {
    let data = bytes(1000, 9);
    assert_eq!(generic_digest::<cc::Md2>(&data), cc::Md2::digest(&data));
    assert_eq!(generic_digest::<cc::Md4>(&data), cc::Md4::digest(&data));
    assert_eq!(generic_digest::<cc::Md5>(&data), cc::Md5::digest(&data));
    assert_eq!(generic_digest::<cc::Sha1>(&data), cc::Sha1::digest(&data));
    assert_eq!(generic_digest::<cc::Sha224>(&data), cc::Sha224::digest(&data));
    assert_eq!(generic_digest::<cc::Sha256>(&data), cc::Sha256::digest(&data));
    assert_eq!(generic_digest::<cc::Sha384>(&data), cc::Sha384::digest(&data));
    assert_eq!(generic_digest::<cc::Sha512>(&data), cc::Sha512::digest(&data));
    assert_eq!(generic_digest::<cc::Sha512_224>(&data), cc::Sha512_224::digest(&data));
    assert_eq!(generic_digest::<cc::Sha512_256>(&data), cc::Sha512_256::digest(&data));
    assert_eq!(<cc::Sha384 as Digest>::output_size(), 48);
    assert_eq!(<cc::Sha512_224 as Digest>::output_size(), 28);
}

#[test]
fn same_generic_code_agrees_with_rustcrypto_md2_and_md4() {
    for len in [0usize, 1, 15, 16, 17, 63, 64, 65, 300] {
        let data = bytes(len, len as u64 + 1);
        assert_eq!(generic_digest::<cc::Md2>(&data), generic_digest::<md2::Md2>(&data));
        assert_eq!(generic_digest::<cc::Md4>(&data), generic_digest::<md4::Md4>(&data));
    }
}

#[test]
fn dyn_digest_objects_and_reset() {
    let data = bytes(200, 5);
    let mut boxed: Vec<Box<dyn DynDigest>> =
        vec![Box::new(cc::Sha256::new()), Box::new(cc::Sha512::new()), Box::new(cc::Md5::new())];
    let want = [
        cc::Sha256::digest(&data).to_vec(),
        cc::Sha512::digest(&data).to_vec(),
        cc::Md5::digest(&data).to_vec(),
    ];
    for (h, w) in boxed.iter_mut().zip(&want) {
        h.update(&data);
        assert_eq!(&h.finalize_reset()[..], &w[..]);
        // After the reset the same object hashes again from the start.
        h.update(&data);
        assert_eq!(&h.box_clone().finalize()[..], &w[..]);
    }
    let mut h = <cc::Sha1 as Digest>::new();
    Digest::update(&mut h, &data);
    let first = FixedOutputReset::finalize_fixed_reset(&mut h);
    Digest::update(&mut h, &data);
    assert_eq!(Digest::finalize(h)[..], first[..]);
    assert_eq!(first[..], cc::Sha1::digest(&data));
}

#[test]
fn rustcrypto_hmac_and_pbkdf2_run_on_our_hashers() {
    use hmac::{KeyInit, Mac};
    let key = bytes(100, 1);
    let data = bytes(777, 2);
    macro_rules! check {
        ($($ty:ident),*) => {$(
            let mut mac = hmac::Hmac::<cc::$ty>::new_from_slice(&key).unwrap();
            mac.update(&data);
            let theirs = mac.finalize().into_bytes();
            assert_eq!(&theirs[..], &cc::Hmac::<cc::$ty>::mac(&key, &data)[..], stringify!($ty));
        )*};
    }
    check!(Md2, Md4, Md5, Sha1, Sha224, Sha256, Sha384, Sha512, Sha512_224, Sha512_256);
    check!(Sha3_224, Sha3_256, Sha3_384, Sha3_512);
    let mut theirs = [0u8; 50];
    pbkdf2::pbkdf2_hmac::<cc::Sha256>(b"password", b"salt", 50, &mut theirs);
    let mut ours = [0u8; 50];
    cc::pbkdf2_hmac::<cc::Sha256>(b"password", b"salt", 50, &mut ours).unwrap();
    assert_eq!(theirs, ours);
}
