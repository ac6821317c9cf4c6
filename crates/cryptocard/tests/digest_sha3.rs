//! SHA-3 and SHAKE (FIPS 202): the NIST CAVP SHA3VS vectors (short and long messages,
//! Monte Carlo, SHAKE variable output), the FIPS 202 examples, and differential tests
//! against OpenSSL's libcrypto: digests and XOF output of random lengths read in random
//! pieces, streamed at random split points, lengths around every rate, HMAC-SHA3 and
//! PBKDF2-HMAC-SHA3. Then the run-time choice (`HashAlg`, `XofAlg`) and the RustCrypto
//! traits. (SHA-3's DigestInfo prefixes are checked against OpenSSL-made RSA signatures
//! with the rest, in digest_diff.rs.)

mod common;
mod digest_support;

use cryptocard::digest::{
    DynXof, HashAlg, Hmac, Sha3_224, Sha3_256, Sha3_384, Sha3_512, Shake128, Shake256, XofAlg,
    hmac, pbkdf2_hmac_alg, shake128, shake256,
};
use digest_support::{bytes, check_dyn, data_path, msg_bytes, parse_records};
use openssl::hash::MessageDigest;
use proptest::prelude::*;

const SHA3: [HashAlg; 4] =
    [HashAlg::Sha3_224, HashAlg::Sha3_256, HashAlg::Sha3_384, HashAlg::Sha3_512];

fn openssl_md(alg: HashAlg) -> MessageDigest {
    match alg {
        HashAlg::Sha3_224 => MessageDigest::sha3_224(),
        HashAlg::Sha3_256 => MessageDigest::sha3_256(),
        HashAlg::Sha3_384 => MessageDigest::sha3_384(),
        HashAlg::Sha3_512 => MessageDigest::sha3_512(),
        other => panic!("not SHA-3: {other}"),
    }
}

fn openssl_xof(alg: XofAlg) -> MessageDigest {
    match alg {
        XofAlg::Shake128 => MessageDigest::shake_128(),
        XofAlg::Shake256 => MessageDigest::shake_256(),
    }
}

/// The digest through the concrete type (the run-time path is `check_dyn`).
fn direct(alg: HashAlg, msg: &[u8]) -> Vec<u8> {
    match alg {
        HashAlg::Sha3_224 => Sha3_224::digest(msg).to_vec(),
        HashAlg::Sha3_256 => Sha3_256::digest(msg).to_vec(),
        HashAlg::Sha3_384 => Sha3_384::digest(msg).to_vec(),
        HashAlg::Sha3_512 => Sha3_512::digest(msg).to_vec(),
        other => panic!("not SHA-3: {other}"),
    }
}

/// `n` bytes of the XOF of `msg`, three ways: one call; absorbed in 7-byte pieces and read
/// in 13-byte pieces through the concrete type; through [`XofAlg`]. All must agree.
fn xof_three_ways(alg: XofAlg, msg: &[u8], n: usize) -> Vec<u8> {
    let mut one = vec![0u8; n];
    match alg {
        XofAlg::Shake128 => shake128(msg, &mut one),
        XofAlg::Shake256 => shake256(msg, &mut one),
    }
    let mut pieces = vec![0u8; n];
    macro_rules! streamed {
        ($ty:ident) => {{
            let mut x = $ty::new();
            msg.chunks(7).for_each(|p| x.update(p));
            let mut r = x.finalize_xof();
            pieces.chunks_mut(13).for_each(|p| r.read(p));
        }};
    }
    match alg {
        XofAlg::Shake128 => streamed!(Shake128),
        XofAlg::Shake256 => streamed!(Shake256),
    }
    assert_eq!(pieces, one, "{alg} streamed, {} bytes in, {n} out", msg.len());
    let mut dynamic = vec![0u8; n];
    alg.xof(msg, &mut dynamic);
    assert_eq!(dynamic, one, "{alg} run-time");
    one
}

/// A SHA3VS short- or long-message file through the concrete and run-time hashers.
fn sha3vs(file: &str, alg: HashAlg) -> usize {
    let records = parse_records(file);
    for r in &records {
        let msg = msg_bytes(r);
        let want = r["MD"].to_lowercase();
        assert_eq!(hex::encode(direct(alg, &msg)), want, "{file} Len = {}", r["Len"]);
        check_dyn(alg, &msg, &want);
    }
    records.len()
}

#[test]
fn sha3vs_short_and_long_messages() {
    let counts: Vec<usize> = [("224", 145), ("256", 137), ("384", 105), ("512", 73)]
        .iter()
        .zip(SHA3)
        .map(|((bits, _), alg)| {
            sha3vs(&format!("SHA3_{bits}ShortMsg.rsp"), alg)
                + sha3vs(&format!("SHA3_{bits}LongMsg.rsp"), alg)
        })
        .collect();
    // Every byte length from 0 to the rate (in bits: 0, 8, ..., r), then 12 long ones.
    assert_eq!(counts, [145 + 12, 137 + 12, 105 + 12, 73 + 12]);
}

#[test]
fn sha3vs_monte_carlo() {
    // SHA3VS section 6.2.3: MD_i = SHA3(MD_{i-1}), a checkpoint every 1000 digests.
    for (bits, alg) in ["224", "256", "384", "512"].into_iter().zip(SHA3) {
        let records = parse_records(&format!("SHA3_{bits}Monte.rsp"));
        let mut md = hex::decode(&records[0]["Seed"]).unwrap();
        for (j, r) in records[1..].iter().enumerate() {
            assert_eq!(r["COUNT"], j.to_string());
            for _ in 0..1000 {
                md = alg.digest(&md).as_bytes().to_vec();
            }
            assert_eq!(hex::encode(&md), r["MD"], "{alg} checkpoint {j}");
        }
        assert_eq!(records.len(), 101, "{alg}: seed and 100 checkpoints");
    }
}

#[test]
fn shakevs_short_and_long_messages() {
    for (name, alg, short) in
        [("SHAKE128", XofAlg::Shake128, 337), ("SHAKE256", XofAlg::Shake256, 273)]
    {
        for (file, count) in
            [(format!("{name}ShortMsg.rsp"), short), (format!("{name}LongMsg.rsp"), 12)]
        {
            let records = parse_records(&file);
            assert_eq!(records.len(), count, "{file}");
            for r in &records {
                let msg = msg_bytes(r);
                let want = hex::decode(&r["Output"]).unwrap();
                assert_eq!(
                    xof_three_ways(alg, &msg, want.len()),
                    want,
                    "{file} Len = {}",
                    r["Len"]
                );
            }
        }
    }
}

#[test]
fn shakevs_variable_output() {
    for (file, alg, count) in [
        ("SHAKE128VariableOut.rsp", XofAlg::Shake128, 1126),
        ("SHAKE256VariableOut.rsp", XofAlg::Shake256, 1246),
    ] {
        let records = parse_records(file);
        assert_eq!(records.len(), count, "{file}");
        for r in &records {
            let bits: usize = r["Outputlen"].parse().unwrap();
            let msg = hex::decode(&r["Msg"]).unwrap();
            let got = xof_three_ways(alg, &msg, bits / 8);
            assert_eq!(hex::encode(got), r["Output"], "{file} COUNT = {}", r["COUNT"]);
        }
    }
}

/// `[Name (bits) = n]` from a vector file's header.
fn header_bits(text: &str, name: &str) -> usize {
    let line = text.lines().find(|l| l.starts_with(&format!("[{name}"))).unwrap();
    line.trim_matches(['[', ']']).split('=').nth(1).unwrap().trim().parse().unwrap()
}

#[test]
fn shakevs_monte_carlo() {
    // SHA3VS section 6.3.3: each message is the leftmost 128 bits of the previous output
    // (zero-padded when shorter); the next output length is min + (its last 16 bits mod
    // range), in bytes; a checkpoint every 1000 outputs.
    for (file, alg) in
        [("SHAKE128Monte.rsp", XofAlg::Shake128), ("SHAKE256Monte.rsp", XofAlg::Shake256)]
    {
        let text = std::fs::read_to_string(data_path(file)).unwrap();
        let min = header_bits(&text, "Minimum Output Length") / 8;
        let max = header_bits(&text, "Maximum Output Length") / 8;
        let records = parse_records(file);
        let mut output = hex::decode(&records[0]["Msg"]).unwrap();
        let mut len = max;
        for (j, r) in records[1..].iter().enumerate() {
            for _ in 0..1000 {
                let mut msg = [0u8; 16];
                let n = output.len().min(16);
                msg[..n].copy_from_slice(&output[..n]);
                output = vec![0u8; len];
                alg.xof(&msg, &mut output);
                let last16 = usize::from(u16::from_be_bytes([output[len - 2], output[len - 1]]));
                len = min + last16 % (max - min + 1);
            }
            assert_eq!(r["Outputlen"], (output.len() * 8).to_string(), "{alg} checkpoint {j}");
            assert_eq!(hex::encode(&output), r["Output"], "{alg} checkpoint {j}");
        }
        assert_eq!(records.len(), 101, "{alg}: seed and 100 checkpoints");
    }
}

#[test]
fn fips_202_examples() {
    let records = parse_records("fips202-examples.txt");
    assert_eq!(records.len(), 12);
    for r in &records {
        let msg = match r["Msg"].as_str() {
            "empty" => vec![],
            "a3x200" => vec![0xa3; 200],
            other => panic!("unknown message {other}"),
        };
        let want = hex::decode(&r["MD"]).unwrap();
        match XofAlg::from_name(&r["Alg"]) {
            Ok(alg) => assert_eq!(xof_three_ways(alg, &msg, want.len()), want, "{alg}"),
            Err(_) => {
                let alg = HashAlg::from_name(&r["Alg"]).unwrap();
                assert_eq!(direct(alg, &msg), want, "{alg}");
                check_dyn(alg, &msg, &r["MD"]);
            }
        }
    }
}

#[test]
fn every_length_around_the_rate_matches_openssl() {
    // 0 ..= 2r + 1 and around 3r: empty, partial, exactly full, and spilling last blocks,
    // where the padding bytes 0x06/0x1f and 0x80 share a byte or not.
    let lengths = |rate: usize| (0..=2 * rate + 1).chain(3 * rate - 2..=3 * rate + 2);
    for alg in SHA3 {
        for len in lengths(alg.block_len()) {
            let data = bytes(len, len as u64 + 31);
            let want = openssl::hash::hash(openssl_md(alg), &data).unwrap();
            assert_eq!(alg.digest(&data).as_bytes(), &want[..], "{alg} len {len}");
        }
    }
    for alg in XofAlg::ALL {
        for len in lengths(alg.block_len()) {
            let data = bytes(len, len as u64 + 37);
            // Output of one rate plus one byte: the squeezer permutes once more.
            let mut want = vec![0u8; alg.block_len() + 1];
            openssl::hash::hash_xof(openssl_xof(alg), &data, &mut want).unwrap();
            assert_eq!(xof_three_ways(alg, &data, want.len()), want, "{alg} len {len}");
        }
    }
}

/// `data` cut at two random points.
fn cut3<'a>(data: &'a [u8], a: &prop::sample::Index, b: &prop::sample::Index) -> [&'a [u8]; 3] {
    let (mut i, mut j) = (a.index(data.len() + 1), b.index(data.len() + 1));
    if i > j {
        core::mem::swap(&mut i, &mut j);
    }
    [&data[..i], &data[i..j], &data[j..]]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// SHA-3 against OpenSSL on random data, streamed with the data cut at two random
    /// points, through the run-time hasher and the concrete type.
    #[test]
    fn sha3_matches_openssl_streamed(
        alg in proptest::sample::select(SHA3.to_vec()),
        data in proptest::collection::vec(any::<u8>(), 0..700),
        c1 in any::<prop::sample::Index>(),
        c2 in any::<prop::sample::Index>(),
    ) {
        let want = openssl::hash::hash(openssl_md(alg), &data).unwrap().to_vec();
        let mut h = cryptocard::digest::Hasher::new(alg);
        cut3(&data, &c1, &c2).iter().for_each(|p| h.update(p));
        prop_assert_eq!(h.finalize().as_bytes().to_vec(), want.clone());
        prop_assert_eq!(direct(alg, &data), want);
    }

    /// SHAKE against OpenSSL: random data absorbed in three random pieces, a random output
    /// length up to four rates, read in random-sized pieces.
    #[test]
    fn shake_matches_openssl_at_random_lengths_and_reads(
        alg in proptest::sample::select(XofAlg::ALL.to_vec()),
        data in proptest::collection::vec(any::<u8>(), 0..500),
        c1 in any::<prop::sample::Index>(),
        c2 in any::<prop::sample::Index>(),
        out_len in 1usize..700,
        reads in proptest::collection::vec(0usize..200, 1..8),
    ) {
        let mut want = vec![0u8; out_len];
        openssl::hash::hash_xof(openssl_xof(alg), &data, &mut want).unwrap();
        let mut x = DynXof::new(alg);
        cut3(&data, &c1, &c2).iter().for_each(|p| x.update(p));
        let mut r = x.finalize_xof();
        let mut got = vec![0u8; out_len];
        let mut rest = &mut got[..];
        for n in reads.iter().cycle() {
            if rest.is_empty() { break; }
            // A zero-length read is legal and must not disturb the stream: do it, then
            // read at least one byte, so that every plan (all zeros too) ends.
            if *n == 0 { r.read(&mut []); }
            let (now, later) = rest.split_at_mut((*n).clamp(1, rest.len()));
            r.read(now);
            rest = later;
        }
        prop_assert_eq!(got, want);
    }

    /// HMAC-SHA3 against OpenSSL's (block = rate), keys from empty to past every rate.
    #[test]
    fn hmac_sha3_matches_openssl(
        alg in proptest::sample::select(SHA3.to_vec()),
        key in proptest::collection::vec(any::<u8>(), 0..300),
        data in proptest::collection::vec(any::<u8>(), 0..400),
    ) {
        // OpenSSL refuses an empty HMAC key; one zero byte is the same key (RFC 2104).
        let pkey = openssl::pkey::PKey::hmac(if key.is_empty() { &[0] } else { &key }).unwrap();
        let mut signer = openssl::sign::Signer::new(openssl_md(alg), &pkey).unwrap();
        signer.update(&data).unwrap();
        let want = signer.sign_to_vec().unwrap();
        prop_assert_eq!(hmac(alg, &key, &data).as_bytes().to_vec(), want);
    }
}

#[test]
fn hmac_sha3_keys_at_the_rate_boundary() {
    // Keys of exactly the rate are padded, one byte longer are hashed first (RFC 2104).
    for alg in SHA3 {
        let rate = alg.block_len();
        for key_len in [rate - 1, rate, rate + 1] {
            let key = bytes(key_len, key_len as u64);
            let data = bytes(50, 9);
            let pkey = openssl::pkey::PKey::hmac(&key).unwrap();
            let mut signer = openssl::sign::Signer::new(openssl_md(alg), &pkey).unwrap();
            signer.update(&data).unwrap();
            let want = signer.sign_to_vec().unwrap();
            assert_eq!(hmac(alg, &key, &data).as_bytes(), &want[..], "{alg} key {key_len}");
        }
    }
    let generic = Hmac::<Sha3_256>::mac(b"key", b"data");
    assert_eq!(&generic[..], hmac(HashAlg::Sha3_256, b"key", b"data").as_bytes());
}

#[test]
fn pbkdf2_hmac_sha3_matches_openssl() {
    for alg in SHA3 {
        for (len, iterations) in [(1usize, 1u32), (33, 3), (130, 20)] {
            let password = bytes(20 + len, len as u64);
            let salt = bytes(16, 100 + len as u64);
            let mut want = vec![0u8; len];
            openssl::pkcs5::pbkdf2_hmac(
                &password,
                &salt,
                iterations as usize,
                openssl_md(alg),
                &mut want,
            )
            .unwrap();
            let mut got = vec![0u8; len];
            pbkdf2_hmac_alg(alg, &password, &salt, iterations, &mut got).unwrap();
            assert_eq!(got, want, "{alg} len {len} iterations {iterations}");
        }
    }
}

#[test]
fn xof_readers_continue_one_stream_and_reset_starts_over() {
    let data = bytes(300, 4);
    let mut whole = [0u8; 600];
    shake256(&data, &mut whole);
    let mut x = Shake256::new();
    x.update(&data);
    let mut r = x.finalize_xof_reset();
    let mut first = [0u8; 136];
    r.read(&mut first);
    // A clone of the reader continues where the original stands.
    let mut copy = r.clone();
    let (mut a, mut b) = ([0u8; 464], [0u8; 464]);
    r.read(&mut a);
    copy.read(&mut b);
    assert_eq!(first[..], whole[..136]);
    assert_eq!(a[..], whole[136..]);
    assert_eq!(a, b);
    // finalize_xof_reset left the XOF at the initial state.
    let mut empty = [0u8; 32];
    x.finalize_into(&mut empty);
    let mut want = [0u8; 32];
    shake256(b"", &mut want);
    assert_eq!(empty, want);
    // Reading nothing changes nothing.
    let mut x = Shake128::new();
    x.update(&data);
    let mut r = x.finalize_xof();
    r.read(&mut []);
    let mut out = [0u8; 40];
    r.read(&mut out);
    let mut want = [0u8; 40];
    shake128(&data, &mut want);
    assert_eq!(out, want);
}

#[test]
fn sha3_hashers_reset_and_report_their_sizes() {
    let mut h = Sha3_384::new();
    h.update(b"discarded");
    h.reset();
    h.update(b"abc");
    assert_eq!(h.finalize_reset(), Sha3_384::digest(b"abc"));
    assert_eq!(h.finalize(), Sha3_384::digest(b""));
    assert_eq!((Sha3_224::BLOCK_LEN, Sha3_224::OUTPUT_LEN), (144, 28));
    assert_eq!((Sha3_512::BLOCK_LEN, Sha3_512::OUTPUT_LEN), (72, 64));
    assert_eq!((Shake128::BLOCK_LEN, Shake256::BLOCK_LEN), (168, 136));
    for alg in SHA3 {
        // The rate is 200 bytes less twice the output (c = 2d), FIPS 202 section 6.1.
        assert_eq!(alg.block_len(), 200 - 2 * alg.output_len(), "{alg}");
        assert_eq!(openssl_md(alg).block_size(), alg.block_len(), "{alg}");
        assert_eq!(openssl_md(alg).size(), alg.output_len(), "{alg}");
        assert!(!alg.is_legacy());
    }
}

#[test]
fn xof_names_and_oids_match_openssl() {
    for (alg, sn, security) in
        [(XofAlg::Shake128, "SHAKE128", 16), (XofAlg::Shake256, "SHAKE256", 32)]
    {
        let obj = openssl::asn1::Asn1Object::from_str(sn).unwrap();
        assert_eq!(alg.oid_der(), obj.as_slice(), "{alg}");
        let dotted = openssl::asn1::Asn1Object::from_str(alg.oid()).unwrap();
        assert_eq!(dotted.as_slice(), obj.as_slice(), "{alg}");
        assert_eq!(XofAlg::from_oid(alg.oid()), Ok(alg));
        assert_eq!(XofAlg::from_oid_der(alg.oid_der()), Ok(alg));
        assert_eq!(XofAlg::from_name(alg.name()), Ok(alg));
        assert_eq!(XofAlg::from_name(sn), Ok(alg));
        assert_eq!(alg.security_len(), security);
        assert_eq!(openssl_xof(alg).block_size(), alg.block_len(), "{alg}");
        // OpenSSL knows the digest by our name.
        assert!(MessageDigest::from_name(alg.name()).is_some(), "{}", alg.name());
        assert_eq!(DynXof::new(alg).alg(), alg);
    }
    for (typed, alg) in [("shake_128", XofAlg::Shake128), ("Shake-256", XofAlg::Shake256)] {
        assert_eq!(XofAlg::from_name(typed), Ok(alg), "{typed}");
    }
    for bad in ["", "shake", "shake512", "sha3-256", "shake128x"] {
        assert!(XofAlg::from_name(bad).is_err(), "{bad} should not parse");
    }
    assert!(XofAlg::from_oid(HashAlg::Sha3_256.oid()).is_err());
    assert!(HashAlg::from_oid(XofAlg::Shake128.oid()).is_err());
}

#[cfg(feature = "rustcrypto-traits")]
#[test]
fn rustcrypto_traits_for_sha3_and_shake() {
    use digest::typenum::Unsigned;
    use digest::{CollisionResistance, Digest, ExtendableOutput, ExtendableOutputReset, XofReader};

    fn generic_xof<X: ExtendableOutput + Default>(data: &[u8], n: usize) -> Vec<u8> {
        let mut x = X::default();
        digest::Update::update(&mut x, data);
        let mut r = x.finalize_xof();
        let mut out = vec![0u8; n];
        let (a, b) = out.split_at_mut(n / 3);
        r.read(a);
        r.read(b);
        out
    }
    fn generic_digest<D: Digest>(data: &[u8]) -> Vec<u8> {
        D::new().chain_update(data).finalize().to_vec()
    }
    let data = bytes(1000, 77);
    let mut want = vec![0u8; 300];
    shake128(&data, &mut want);
    assert_eq!(generic_xof::<Shake128>(&data, 300), want);
    let mut via_trait = vec![0u8; 300];
    <Shake128 as ExtendableOutput>::digest_xof(&data, &mut via_trait);
    assert_eq!(via_trait, want);
    let mut x = Shake256::new();
    digest::Update::update(&mut x, &data);
    let mut out = [0u8; 64];
    ExtendableOutputReset::finalize_xof_reset(&mut x).read(&mut out);
    let mut want = [0u8; 64];
    shake256(&data, &mut want);
    assert_eq!(out, want);
    assert_eq!(<Shake128 as CollisionResistance>::CollisionResistance::USIZE, 16);
    assert_eq!(<Shake256 as CollisionResistance>::CollisionResistance::USIZE, 32);
    for alg in SHA3 {
        let ours = direct(alg, &data);
        let theirs = match alg {
            HashAlg::Sha3_224 => generic_digest::<Sha3_224>(&data),
            HashAlg::Sha3_256 => generic_digest::<Sha3_256>(&data),
            HashAlg::Sha3_384 => generic_digest::<Sha3_384>(&data),
            _ => generic_digest::<Sha3_512>(&data),
        };
        assert_eq!(theirs, ours, "{alg}");
    }
    assert_eq!(<Sha3_256 as Digest>::output_size(), 32);
    let mut boxed: Box<dyn digest::DynDigest> = Box::new(Sha3_512::new());
    boxed.update(&data);
    assert_eq!(&boxed.finalize_reset()[..], &Sha3_512::digest(&data)[..]);
}
