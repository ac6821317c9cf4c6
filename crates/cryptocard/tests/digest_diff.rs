//! Differential tests: our digests (RIPEMD-160 among them), HMAC and PBKDF2 against
//! OpenSSL's libcrypto (MD4 through the legacy provider), MD2 against the RustCrypto `md2` crate, the SHA
//! extension and AVX2 kernels against the portable code, and streaming against one-shot
//! hashing at random split points.

mod common;
mod digest_support;

use cryptocard::digest::{
    HashAlg, Hasher, Hmac, Kernels, Md2, Sha1, Sha224, Sha256, Sha384, Sha512, Sha512_224,
    Sha512_256, hmac, pbkdf2_hmac_alg,
};
use digest_support::bytes;
use openssl::hash::MessageDigest;
use proptest::prelude::*;
use std::sync::Once;

/// Loads OpenSSL 3's legacy provider (for MD4) next to the default one, once.
fn openssl_with_legacy() {
    static LOAD: Once = Once::new();
    LOAD.call_once(|| {
        let legacy = openssl::provider::Provider::try_load(None, "legacy", true)
            .expect("OpenSSL legacy provider (MD4)");
        // Keep it loaded for the life of the process.
        std::mem::forget(legacy);
    });
}

/// OpenSSL's name for each algorithm it implements (MD2 is not in OpenSSL 3).
fn openssl_md(alg: HashAlg) -> Option<MessageDigest> {
    openssl_with_legacy();
    let name = match alg {
        HashAlg::Md2 => return None,
        HashAlg::Md4 => "MD4",
        HashAlg::Md5 => "MD5",
        HashAlg::Sha1 => "SHA1",
        HashAlg::Sha224 => "SHA224",
        HashAlg::Sha256 => "SHA256",
        HashAlg::Sha384 => "SHA384",
        HashAlg::Sha512 => "SHA512",
        HashAlg::Sha512_224 => "SHA512-224",
        HashAlg::Sha512_256 => "SHA512-256",
        HashAlg::Sha3_224 => "SHA3-224",
        HashAlg::Sha3_256 => "SHA3-256",
        HashAlg::Sha3_384 => "SHA3-384",
        HashAlg::Sha3_512 => "SHA3-512",
        HashAlg::Ripemd160 => "RIPEMD160",
    };
    Some(MessageDigest::from_name(name).unwrap_or_else(|| panic!("OpenSSL lacks {name}")))
}

/// The digest by an independent implementation: OpenSSL, or RustCrypto's md2.
fn reference_digest(alg: HashAlg, data: &[u8]) -> Vec<u8> {
    match openssl_md(alg) {
        Some(md) => openssl::hash::hash(md, data).unwrap().to_vec(),
        None => {
            use md2::Digest;
            md2::Md2::digest(data).to_vec()
        }
    }
}

fn any_alg() -> impl Strategy<Value = HashAlg> {
    proptest::sample::select(HashAlg::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every algorithm against OpenSSL (or RustCrypto md2) on random data, whole and
    /// streamed with the data cut at two random points.
    #[test]
    fn digests_match_the_reference(
        alg in any_alg(),
        data in proptest::collection::vec(any::<u8>(), 0..700),
        cut1 in any::<prop::sample::Index>(),
        cut2 in any::<prop::sample::Index>(),
    ) {
        let want = reference_digest(alg, &data);
        prop_assert_eq!(alg.digest(&data).as_bytes().to_vec(), want.clone());
        let (mut a, mut b) = (cut1.index(data.len() + 1), cut2.index(data.len() + 1));
        if a > b { core::mem::swap(&mut a, &mut b); }
        let mut h = Hasher::new(alg);
        h.update(&data[..a]);
        h.update(&data[a..b]);
        h.update(&data[b..]);
        prop_assert_eq!(h.finalize().as_bytes().to_vec(), want);
    }

    /// Many small updates of random sizes give the one-shot digest.
    #[test]
    fn streaming_in_random_pieces_is_one_shot(
        alg in any_alg(),
        data in proptest::collection::vec(any::<u8>(), 0..1200),
        sizes in proptest::collection::vec(0usize..200, 1..16),
    ) {
        let mut h = Hasher::new(alg);
        let mut rest = &data[..];
        for s in sizes.iter().cycle() {
            if rest.is_empty() { break; }
            let n = (*s).min(rest.len()).max(1);
            h.update(&rest[..n]);
            rest = &rest[n..];
        }
        prop_assert_eq!(h.finalize(), alg.digest(&data));
    }

    /// HMAC against OpenSSL's, keys from empty to longer than any block.
    #[test]
    fn hmac_matches_openssl(
        alg in any_alg().prop_filter("OpenSSL 3 has no MD2", |a| *a != HashAlg::Md2),
        key in proptest::collection::vec(any::<u8>(), 0..300),
        data in proptest::collection::vec(any::<u8>(), 0..400),
    ) {
        let md = openssl_md(alg).unwrap();
        // OpenSSL refuses an empty HMAC key; one zero byte is the same key (RFC 2104
        // pads K with zeros to the block length).
        let pkey = openssl::pkey::PKey::hmac(if key.is_empty() { &[0] } else { &key }).unwrap();
        let mut signer = openssl::sign::Signer::new(md, &pkey).unwrap();
        signer.update(&data).unwrap();
        let want = signer.sign_to_vec().unwrap();
        prop_assert_eq!(hmac(alg, &key, &data).as_bytes().to_vec(), want);
    }
}

#[test]
fn pbkdf2_matches_openssl() {
    for (i, alg) in
        [HashAlg::Sha1, HashAlg::Sha256, HashAlg::Sha512, HashAlg::Md5].into_iter().enumerate()
    {
        for (len, iterations) in [(1usize, 1u32), (20, 2), (65, 100), (129, 7)] {
            let password = bytes(i * 11 + len, 1 + len as u64);
            let salt = bytes(16, 2 + len as u64);
            let mut want = vec![0u8; len];
            let md = openssl_md(alg).unwrap();
            openssl::pkcs5::pbkdf2_hmac(&password, &salt, iterations as usize, md, &mut want)
                .unwrap();
            let mut got = vec![0u8; len];
            pbkdf2_hmac_alg(alg, &password, &salt, iterations, &mut got).unwrap();
            assert_eq!(got, want, "{alg} len {len} iterations {iterations}");
        }
    }
}

#[test]
fn md2_matches_rustcrypto_on_every_length_to_100() {
    use md2::Digest;
    for len in 0..100 {
        let data = bytes(len, len as u64);
        assert_eq!(Md2::digest(&data)[..], md2::Md2::digest(&data)[..], "len {len}");
    }
}

/// The lengths where padding and kernels change behaviour: around one, two and many
/// blocks for 64- and 128-byte blocks.
fn boundary_lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=260).collect();
    for b in [384usize, 512, 1024, 4096] {
        v.extend(b - 9..=b + 9);
    }
    v
}

#[test]
fn sha_kernels_match_the_portable_code_around_block_boundaries() {
    // With the SHA extensions (or AVX2) absent the Auto hasher is the portable one, and
    // the comparison still checks the dispatch.
    let accelerated = (
        Sha256::new().is_accelerated(),
        Sha1::new().is_accelerated(),
        Sha512::new().is_accelerated(),
    );
    assert!(!Sha256::with_kernels(Kernels::Portable).is_accelerated());
    assert!(!Sha512::with_kernels(Kernels::Portable).is_accelerated());
    eprintln!("accelerated (sha256, sha1, sha512): {accelerated:?}");
    macro_rules! both {
        ($ty:ident, $data:expr) => {{
            let mut fast = $ty::with_kernels(Kernels::Auto);
            let mut slow = $ty::with_kernels(Kernels::Portable);
            // Split so that the kernels also see multi-block runs and partial blocks.
            let split = $data.len() / 3;
            for h in [&mut fast, &mut slow] {
                h.update(&$data[..split]);
                h.update(&$data[split..]);
            }
            assert_eq!(fast.finalize(), slow.finalize(), "{} len {}", stringify!($ty), $data.len());
        }};
    }
    for len in boundary_lengths() {
        let data = bytes(len, 7 + len as u64);
        both!(Sha1, data);
        both!(Sha224, data);
        both!(Sha256, data);
        both!(Sha384, data);
        both!(Sha512, data);
        both!(Sha512_224, data);
        both!(Sha512_256, data);
    }
}

#[test]
fn digest_info_prefixes_match_rfc_8017_and_openssl_signatures() {
    // RFC 8017 section 9.2 note 1, copied into the test data.
    let text =
        std::fs::read_to_string(digest_support::data_path("rfc-8017-digestinfo.txt")).unwrap();
    let mut listed = 0;
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (name, hex_prefix) = line.split_once(" = ").unwrap();
        let alg = HashAlg::from_name(name).unwrap();
        assert_eq!(hex::encode(alg.digest_info_prefix()), hex_prefix, "{alg}");
        listed += 1;
    }
    assert_eq!(listed, 9);
    // Every OID against OpenSSL's object table (the DER content bytes of the OID).
    for (alg, sn) in [
        (HashAlg::Md2, "md2"),
        (HashAlg::Md4, "md4"),
        (HashAlg::Md5, "md5"),
        (HashAlg::Sha1, "sha1"),
        (HashAlg::Sha224, "sha224"),
        (HashAlg::Sha256, "sha256"),
        (HashAlg::Sha384, "sha384"),
        (HashAlg::Sha512, "sha512"),
        (HashAlg::Sha512_224, "sha512-224"),
        (HashAlg::Sha512_256, "sha512-256"),
        (HashAlg::Sha3_224, "SHA3-224"),
        (HashAlg::Sha3_256, "SHA3-256"),
        (HashAlg::Sha3_384, "SHA3-384"),
        (HashAlg::Sha3_512, "SHA3-512"),
    ] {
        let obj = openssl::asn1::Asn1Object::from_str(sn).unwrap();
        assert_eq!(alg.oid_der(), obj.as_slice(), "{alg}");
        // Our dotted form, parsed by OpenSSL, is the same object.
        let dotted = openssl::asn1::Asn1Object::from_str(alg.oid()).unwrap();
        assert_eq!(dotted.as_slice(), obj.as_slice(), "{alg}");
        assert_eq!(HashAlg::from_oid_der(alg.oid_der()), Ok(alg));
        assert_eq!(HashAlg::from_oid(alg.oid()), Ok(alg));
    }
    // What OpenSSL puts under its PKCS#1 v1.5 signatures: decrypt one with the public
    // key, keep the padding check, and compare the DigestInfo with prefix || digest.
    // MD4 is left out: OpenSSL 3.0's table in crypto/rsa/rsa_sign.c writes its OID as
    // 1.2.840.113549.2.3 (the object table above, and RFC 1320, say 2.4).
    openssl_with_legacy();
    let rsa = openssl::rsa::Rsa::generate(1024).unwrap();
    let pkey = openssl::pkey::PKey::from_rsa(rsa.clone()).unwrap();
    let msg = b"DigestInfo check";
    for alg in HashAlg::ALL.into_iter().filter(|a| !matches!(a, HashAlg::Md2 | HashAlg::Md4)) {
        let mut signer = openssl::sign::Signer::new(openssl_md(alg).unwrap(), &pkey).unwrap();
        signer.update(msg).unwrap();
        let sig = signer.sign_to_vec().unwrap();
        let mut t = vec![0u8; 128];
        let n = rsa.public_decrypt(&sig, &mut t, openssl::rsa::Padding::PKCS1).unwrap();
        let mut want = alg.digest_info_prefix().to_vec();
        want.extend_from_slice(alg.digest(msg).as_bytes());
        assert_eq!(&t[..n], &want[..], "{alg}");
    }
}

#[test]
fn names_print_as_openssl_dgst_and_parse_as_users_type_them() {
    // `openssl dgst` (OpenSSL 3) prints these before each digest.
    let printed = [
        (HashAlg::Md4, "MD4"),
        (HashAlg::Md5, "MD5"),
        (HashAlg::Sha1, "SHA1"),
        (HashAlg::Sha224, "SHA2-224"),
        (HashAlg::Sha256, "SHA2-256"),
        (HashAlg::Sha384, "SHA2-384"),
        (HashAlg::Sha512, "SHA2-512"),
        (HashAlg::Sha512_224, "SHA2-512/224"),
        (HashAlg::Sha512_256, "SHA2-512/256"),
        (HashAlg::Ripemd160, "RIPEMD-160"),
        (HashAlg::Sha3_224, "SHA3-224"),
        (HashAlg::Sha3_256, "SHA3-256"),
        (HashAlg::Sha3_384, "SHA3-384"),
        (HashAlg::Sha3_512, "SHA3-512"),
    ];
    for (alg, name) in printed {
        assert_eq!(alg.name(), name);
        assert_eq!(alg.to_string(), name);
        assert_eq!(HashAlg::from_name(name), Ok(alg));
        // OpenSSL itself knows the same digest by that name.
        assert_eq!(openssl_md(alg).unwrap().size(), alg.output_len(), "{name}");
    }
    for (typed, alg) in [
        ("md2", HashAlg::Md2),
        ("sha256", HashAlg::Sha256),
        ("SHA-256", HashAlg::Sha256),
        ("sha2-256", HashAlg::Sha256),
        ("sha512-256", HashAlg::Sha512_256),
        ("SHA512/256", HashAlg::Sha512_256),
        ("sha512_224", HashAlg::Sha512_224),
        ("SHA-512/224", HashAlg::Sha512_224),
        ("sha-1", HashAlg::Sha1),
        ("Sha384", HashAlg::Sha384),
        ("sha3-256", HashAlg::Sha3_256),
        ("SHA3_256", HashAlg::Sha3_256),
        ("sha3-224", HashAlg::Sha3_224),
        ("SHA3-384", HashAlg::Sha3_384),
        ("sha3_512", HashAlg::Sha3_512),
        ("ripemd160", HashAlg::Ripemd160),
        ("RIPEMD-160", HashAlg::Ripemd160),
        ("rmd160", HashAlg::Ripemd160),
        ("ripemd", HashAlg::Ripemd160),
    ] {
        assert_eq!(typed.parse::<HashAlg>(), Ok(alg), "{typed}");
    }
    for bad in [
        "",
        "sha",
        "sha2",
        "sha3",
        "sha2-1",
        "sha3-1",
        "sha3-128",
        "shake128",
        "md6",
        "RSA-SHA256",
        "sha256x",
    ] {
        assert!(HashAlg::from_name(bad).is_err(), "{bad} should not parse");
    }
}

#[test]
fn hmac_generic_and_dynamic_agree_for_every_algorithm() {
    let key = bytes(40, 3);
    let data = bytes(333, 4);
    macro_rules! check {
        ($($ty:ident),*) => {$(
            let h = Hmac::<cryptocard::digest::$ty>::mac(&key, &data);
            let alg = <cryptocard::digest::$ty as cryptocard::digest::HashFunction>::ALG;
            assert_eq!(&h[..], hmac(alg, &key, &data).as_bytes(), "{alg}");
        )*};
    }
    check!(Md2, Md4, Md5, Sha1, Sha224, Sha256, Sha384, Sha512, Sha512_224, Sha512_256);
    check!(Sha3_224, Sha3_256, Sha3_384, Sha3_512);
}
