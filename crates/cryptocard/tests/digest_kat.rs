//! Known-answer tests for MD2, MD4, MD5, SHA-1, SHA-2 and RIPEMD-160: the RFC
//! 1319/1320/1321 appendix suites, NIST SHAVS short and long messages, the FIPS 180-4
//! examples, and the RIPEMD-160 paper's test values. SHA-1 and
//! SHA-256 run every vector on both the portable code and the SHA extensions (where the
//! CPU has them), one-shot and streamed in odd pieces.

mod common;
mod digest_support;

use cryptocard::digest::{
    HashAlg, Kernels, Md2, Md4, Md5, Ripemd160, Sha1, Sha224, Sha256, Sha384, Sha512, Sha512_224,
    Sha512_256,
};
use digest_support::{check_dyn, msg_bytes, parse_records};

#[test]
fn rfc_1319_1320_1321_suites() {
    let text = std::fs::read_to_string(digest_support::data_path("rfc-digests.json")).unwrap();
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let mut counts = [0usize; 3];
    for c in &cases {
        let msg = c["msg"].as_str().unwrap().as_bytes();
        let want = c["digest"].as_str().unwrap();
        let (alg, i, direct) = match c["alg"].as_str().unwrap() {
            "md2" => (HashAlg::Md2, 0, hex::encode(Md2::digest(msg))),
            "md4" => (HashAlg::Md4, 1, hex::encode(Md4::digest(msg))),
            "md5" => (HashAlg::Md5, 2, hex::encode(Md5::digest(msg))),
            other => panic!("unexpected algorithm {other}"),
        };
        assert_eq!(direct, want, "{alg} {:?}", c["msg"]);
        check_dyn(alg, msg, want);
        counts[i] += 1;
    }
    assert_eq!(counts, [7, 7, 7], "every RFC suite has seven messages");
}

/// Runs a SHAVS file through `alg` and, for SHA-1/SHA-256, through both backends.
fn shavs(file: &str, alg: HashAlg) -> usize {
    let records = parse_records(file);
    for r in &records {
        let msg = msg_bytes(r);
        let want = r["MD"].to_lowercase();
        check_dyn(alg, &msg, &want);
        for backend in [Kernels::Portable, Kernels::Auto] {
            let got = match alg {
                HashAlg::Sha1 => {
                    let mut h = Sha1::with_kernels(backend);
                    h.update(&msg);
                    hex::encode(h.finalize())
                }
                HashAlg::Sha256 => {
                    let mut h = Sha256::with_kernels(backend);
                    h.update(&msg);
                    hex::encode(h.finalize())
                }
                HashAlg::Sha224 => {
                    let mut h = Sha224::with_kernels(backend);
                    h.update(&msg);
                    hex::encode(h.finalize())
                }
                _ => continue,
            };
            assert_eq!(got, want, "{file} {backend:?} Len = {}", r["Len"]);
        }
    }
    records.len()
}

#[test]
fn shavs_sha1_short_and_long() {
    assert_eq!(shavs("SHA1ShortMsg.rsp", HashAlg::Sha1), 65);
    assert_eq!(shavs("SHA1LongMsg.rsp", HashAlg::Sha1), 64);
}

#[test]
fn shavs_sha256_short_and_long() {
    assert_eq!(shavs("SHA256ShortMsg.rsp", HashAlg::Sha256), 65);
    assert_eq!(shavs("SHA256LongMsg.rsp", HashAlg::Sha256), 64);
}

#[test]
fn shavs_sha2_short_messages() {
    assert_eq!(shavs("SHA224ShortMsg.rsp", HashAlg::Sha224), 65);
    assert_eq!(shavs("SHA384ShortMsg.rsp", HashAlg::Sha384), 129);
    assert_eq!(shavs("SHA512ShortMsg.rsp", HashAlg::Sha512), 129);
    assert_eq!(shavs("SHA512_224ShortMsg.rsp", HashAlg::Sha512_224), 129);
    assert_eq!(shavs("SHA512_256ShortMsg.rsp", HashAlg::Sha512_256), 129);
}

#[test]
fn fips_180_4_examples() {
    let records = parse_records("fips180-4-examples.txt");
    assert_eq!(records.len(), 12);
    for r in &records {
        let alg = HashAlg::from_name(&r["Alg"]).unwrap();
        let msg = r["Msg"].as_bytes();
        let want = &r["MD"];
        check_dyn(alg, msg, want);
        let direct = match alg {
            HashAlg::Sha224 => hex::encode(Sha224::digest(msg)),
            HashAlg::Sha256 => hex::encode(Sha256::digest(msg)),
            HashAlg::Sha384 => hex::encode(Sha384::digest(msg)),
            HashAlg::Sha512 => hex::encode(Sha512::digest(msg)),
            HashAlg::Sha512_224 => hex::encode(Sha512_224::digest(msg)),
            HashAlg::Sha512_256 => hex::encode(Sha512_256::digest(msg)),
            other => panic!("unexpected {other}"),
        };
        assert_eq!(&direct, want, "{alg}");
    }
}

#[test]
fn sizes_match_the_standards() {
    let table = [
        (HashAlg::Md2, 16, 16),
        (HashAlg::Md4, 64, 16),
        (HashAlg::Md5, 64, 16),
        (HashAlg::Sha1, 64, 20),
        (HashAlg::Sha224, 64, 28),
        (HashAlg::Sha256, 64, 32),
        (HashAlg::Sha384, 128, 48),
        (HashAlg::Sha512, 128, 64),
        (HashAlg::Sha512_224, 128, 28),
        (HashAlg::Sha512_256, 128, 32),
        (HashAlg::Sha3_224, 144, 28),
        (HashAlg::Sha3_256, 136, 32),
        (HashAlg::Sha3_384, 104, 48),
        (HashAlg::Sha3_512, 72, 64),
    ];
    for (alg, block, out) in table {
        assert_eq!((alg.block_len(), alg.output_len()), (block, out), "{alg}");
        assert_eq!(alg.digest(b"").len(), out, "{alg}");
    }
    assert_eq!((Sha256::BLOCK_LEN, Sha256::OUTPUT_LEN), (64, 32));
    assert_eq!((Sha512_224::BLOCK_LEN, Sha512_224::OUTPUT_LEN), (128, 28));
    assert_eq!((Md2::BLOCK_LEN, Md2::OUTPUT_LEN), (16, 16));
}

#[test]
fn ripemd160_test_values() {
    let text = std::fs::read_to_string(digest_support::data_path("ripemd160.txt")).unwrap();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (name, want) = line.split_once('\t').unwrap();
        let msg = match name {
            "million a" => vec![b'a'; 1_000_000],
            "8x1234567890" => b"1234567890".repeat(8),
            text => text.as_bytes().to_vec(),
        };
        assert_eq!(hex::encode(Ripemd160::digest(&msg)), want, "{name:?}");
        check_dyn(HashAlg::Ripemd160, &msg, want);
        count += 1;
    }
    assert_eq!(count, 9);
}
