//! HMAC and PBKDF2 known answers: RFC 2202 (HMAC-MD5, HMAC-SHA-1), RFC 4231 (HMAC-SHA-2,
//! including the truncated case 5), RFC 6070 (PBKDF2-HMAC-SHA1), RFC 7914 section 11
//! (PBKDF2-HMAC-SHA256); and the behaviour of verification.

mod common;
mod digest_support;

use cryptocard::Error;
use cryptocard::digest::{
    DynHmac, HashAlg, HashFunction, Hmac, Md5, Sha1, Sha224, Sha256, Sha384, Sha512, hmac,
    pbkdf2_hmac, pbkdf2_hmac_alg,
};
use digest_support::parse_records;

/// Runs every case of an HMAC vector file through the generic and the run-time API.
fn hmac_file<H: HashFunction>(file: &str) -> usize {
    let records = parse_records(file);
    for r in &records {
        let key = hex::decode(&r["Key"]).unwrap();
        let msg = hex::decode(&r["Msg"]).unwrap();
        let want = hex::decode(&r["MD"]).unwrap();
        let tag = Hmac::<H>::mac(&key, &msg);
        // Truncated cases list only the leftmost bytes.
        assert_eq!(&tag.as_ref()[..want.len()], &want[..], "{file} key {}", r["Key"]);
        assert_eq!(&hmac(H::ALG, &key, &msg).as_bytes()[..want.len()], &want[..]);
        // Streamed in 3-byte pieces; verify accepts it.
        let mut m = Hmac::<H>::new(&key);
        for piece in msg.chunks(3) {
            m.update(piece);
        }
        if want.len() == H::OUTPUT_LEN {
            m.verify(&want).unwrap();
        } else {
            m.verify_truncated(&want).unwrap();
        }
    }
    records.len()
}

#[test]
fn rfc_2202_hmac_md5_and_sha1() {
    assert_eq!(hmac_file::<Md5>("rfc-2202-md5.txt"), 7);
    assert_eq!(hmac_file::<Sha1>("rfc-2202-sha1.txt"), 7);
}

#[test]
fn rfc_4231_hmac_sha2() {
    assert_eq!(hmac_file::<Sha224>("rfc-4231-sha224.txt"), 6);
    assert_eq!(hmac_file::<Sha256>("rfc-4231-sha256.txt"), 6);
    assert_eq!(hmac_file::<Sha384>("rfc-4231-sha384.txt"), 6);
    assert_eq!(hmac_file::<Sha512>("rfc-4231-sha512.txt"), 6);
}

#[test]
fn rfc_4231_truncated_tags() {
    let records = parse_records("rfc-4231-truncation.txt");
    assert_eq!(records.len(), 4);
    for r in &records {
        let alg = HashAlg::from_name(&r["Alg"]).unwrap();
        let key = hex::decode(&r["Key"]).unwrap();
        let msg = hex::decode(&r["Msg"]).unwrap();
        let want = hex::decode(&r["MD"]).unwrap();
        assert_eq!(&hmac(alg, &key, &msg).as_bytes()[..16], &want[..], "{alg}");
    }
    let r = &records[1];
    let (key, msg) = (hex::decode(&r["Key"]).unwrap(), hex::decode(&r["Msg"]).unwrap());
    let want = hex::decode(&r["MD"]).unwrap();
    let mut m = Hmac::<Sha256>::new(&key);
    m.update(&msg);
    m.clone().verify_truncated(&want).unwrap();
    // A flipped bit anywhere fails; so does a full-length check of the short tag.
    for i in 0..want.len() * 8 {
        let mut bad = want.clone();
        bad[i / 8] ^= 1 << (i % 8);
        assert_eq!(m.clone().verify_truncated(&bad), Err(Error::Verification));
    }
    assert_eq!(m.clone().verify(&want), Err(Error::Verification));
    // Tags under 80 bits, or longer than the digest, are refused outright.
    assert!(matches!(m.clone().verify_truncated(&want[..9]), Err(Error::InvalidArgument(_))));
    assert!(matches!(m.clone().verify_truncated(&[0u8; 33]), Err(Error::InvalidArgument(_))));
    assert!(m.verify_truncated(&want[..10]).is_ok());
}

#[test]
fn verify_rejects_wrong_tags_and_reset_forgets_the_message() {
    let key = b"key";
    let tag = Hmac::<Sha256>::mac(key, b"The quick brown fox jumps over the lazy dog");
    let mut m = Hmac::<Sha256>::new(key);
    m.update(b"something else");
    m.reset();
    m.update(b"The quick brown fox jumps over the lazy dog");
    m.clone().verify(&tag).unwrap();
    let mut bad = tag;
    bad[31] ^= 0x80;
    assert_eq!(m.clone().verify(&bad), Err(Error::Verification));
    assert_eq!(m.clone().verify(&tag[..31]), Err(Error::Verification));
    // finalize_reset starts over with the same key.
    let mut m2 = Hmac::<Sha256>::new(key);
    m2.update(b"x");
    let first = m2.finalize_reset();
    m2.update(b"x");
    assert_eq!(m2.finalize(), first);
}

#[test]
fn keys_longer_than_the_block_are_hashed_first() {
    // RFC 2104 section 2: K longer than B is replaced by H(K); so HMAC(K) = HMAC(H(K)).
    let long = [0x5au8; 200];
    let msg = b"message";
    assert_eq!(Hmac::<Sha256>::mac(&long, msg), Hmac::<Sha256>::mac(&Sha256::digest(&long), msg));
    assert_eq!(Hmac::<Sha512>::mac(&long, msg), Hmac::<Sha512>::mac(&Sha512::digest(&long), msg));
    // A key of exactly one block is used as it is.
    let block = [0x5au8; 64];
    assert_ne!(Hmac::<Sha256>::mac(&block, msg), Hmac::<Sha256>::mac(&Sha256::digest(&block), msg));
}

/// Runs a PBKDF2 vector file; `max_iterations` skips the slow cases.
fn pbkdf2_file(file: &str, alg: HashAlg, max_iterations: u32) -> usize {
    let mut ran = 0;
    for r in parse_records(file) {
        let iterations: u32 = r["ITERATIONS"].parse().unwrap();
        if iterations > max_iterations {
            continue;
        }
        // RFC 6070 writes NUL bytes as "\0".
        let unescape = |s: &str| s.replace("\\0", "\0").into_bytes();
        let (password, salt) = (unescape(&r["PASSWORD"]), unescape(&r["SALT"]));
        let want = hex::decode(&r["DERIVED_KEY"]).unwrap();
        assert_eq!(want.len(), r["LENGTH"].parse::<usize>().unwrap());
        let mut out = vec![0u8; want.len()];
        pbkdf2_hmac_alg(alg, &password, &salt, iterations, &mut out).unwrap();
        assert_eq!(out, want, "{file} COUNT = {}", r["COUNT"]);
        ran += 1;
    }
    ran
}

#[test]
fn rfc_6070_pbkdf2_hmac_sha1() {
    // All but the 16,777,216-iteration case (seconds of work, no new coverage).
    assert_eq!(pbkdf2_file("rfc-6070-PBKDF2-SHA1.txt", HashAlg::Sha1, 100_000), 5);
}

#[test]
fn rfc_7914_pbkdf2_hmac_sha256() {
    assert_eq!(pbkdf2_file("rfc-7914-PBKDF2-SHA256.txt", HashAlg::Sha256, 100_000), 2);
}

#[test]
fn pbkdf2_rejects_degenerate_parameters() {
    let mut out = [0u8; 16];
    assert!(matches!(
        pbkdf2_hmac::<Sha256>(b"p", b"s", 0, &mut out),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        pbkdf2_hmac::<Sha256>(b"p", b"s", 1, &mut []),
        Err(Error::InvalidArgument(_))
    ));
    // A key spanning several hash blocks is the concatenation T_1 || T_2 (RFC 8018 5.2).
    let mut long = [0u8; 70];
    pbkdf2_hmac::<Sha256>(b"p", b"s", 3, &mut long).unwrap();
    let mut short = [0u8; 32];
    pbkdf2_hmac::<Sha256>(b"p", b"s", 3, &mut short).unwrap();
    assert_eq!(&long[..32], &short);
}

#[test]
fn dyn_hmac_streams_and_verifies_for_every_algorithm() {
    let key = digest_support::bytes(90, 11);
    let data = digest_support::bytes(500, 12);
    for alg in HashAlg::ALL {
        let want = hmac(alg, &key, &data);
        let mut m = DynHmac::new(alg, &key);
        for piece in data.chunks(77) {
            m.update(piece);
        }
        m.clone().verify(want.as_bytes()).unwrap();
        m.clone().verify_truncated(&want.as_bytes()[..12]).unwrap();
        let mut bad = want.as_bytes().to_vec();
        bad[0] ^= 1;
        assert_eq!(m.clone().verify(&bad), Err(Error::Verification), "{alg}");
        assert_eq!(m.finalize_reset(), want, "{alg}");
        // Started over with the same key.
        m.update(&data);
        assert_eq!(m.finalize(), want, "{alg}");
    }
}
