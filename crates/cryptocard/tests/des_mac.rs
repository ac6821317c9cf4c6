//! The FIPS 113 / ISO/IEC 9797-1 MACs: known answers from tests/data/des/des-mac-kats.json,
//! agreement with CBC encryption (the definition), padding methods, streaming, and tag
//! verification.

mod common;

use cryptocard::Error;
use cryptocard::des::mac::{CbcMac, MacPadding, RetailMac};
use cryptocard::des::modes;
use cryptocard::des::{BlockCipher64, Des, Mode, Padding, Tdes};
use proptest::prelude::*;
use serde_json::Value;

fn unhex(v: &Value) -> Vec<u8> {
    common::unhex(v.as_str().unwrap())
}

fn kats() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/des/des-mac-kats.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

fn padding(v: &Value) -> MacPadding {
    match v["pad"].as_str().unwrap() {
        "zero" => MacPadding::Zeros,
        "pkcs7" => MacPadding::Pkcs7,
        p => panic!("padding {p}"),
    }
}

#[test]
fn cbc_mac_known_answers() {
    let mut n = 0;
    for v in kats().iter().filter(|v| v["alg"] == "des-cbc-mac") {
        let des = Des::new(&unhex(&v["key"])).unwrap();
        let iv: [u8; 8] = unhex(&v["iv"]).try_into().unwrap();
        let msg = unhex(&v["msg"]);
        let full = unhex(&v["mac_full"]);
        let published = unhex(&v["mac_published"]);
        for (tag_len, want) in [(8, &full), (published.len(), &published)] {
            let mut mac = CbcMac::with_iv(des.clone(), &iv, padding(v), tag_len).unwrap();
            mac.update(&msg);
            assert_eq!(mac.finalize().unwrap().as_bytes(), &want[..], "{}", v["id"]);
        }
        n += 1;
    }
    assert_eq!(n, 5);
}

#[test]
fn fips113_daa_example() {
    let v = kats().into_iter().find(|v| v["id"] == "fips113-daa").unwrap();
    let mut mac = CbcMac::fips113(&unhex(&v["key"]), 4).unwrap();
    mac.update(&unhex(&v["msg"]));
    mac.clone().verify(&unhex(&v["mac_published"])).unwrap();
    let tag = mac.finalize().unwrap();
    assert_eq!(tag.as_bytes(), &unhex(&v["mac_published"])[..]);
    // A shortened tag prints its length only, not the block it was cut from.
    assert_eq!(format!("{tag:?}"), "MacTag(4 bytes)");
}

#[test]
fn retail_mac_known_answer() {
    let v = kats().into_iter().find(|v| v["alg"] == "iso9797-1-mac-alg3-des").unwrap();
    let key = [unhex(&v["key"]), unhex(&v["key2"])].concat();
    let mut mac = RetailMac::new(&key, padding(&v), 8).unwrap();
    mac.update(&unhex(&v["msg"]));
    assert_eq!(mac.finalize().unwrap().as_bytes(), &unhex(&v["mac_full"])[..]);
}

/// The padded message as each ISO/IEC 9797-1 method defines it (written independently of
/// the library's streaming code).
fn iso_pad(msg: &[u8], padding: MacPadding) -> Vec<u8> {
    let mut d = msg.to_vec();
    match padding {
        MacPadding::Zeros => {
            while d.is_empty() || !d.len().is_multiple_of(8) {
                d.push(0);
            }
        }
        MacPadding::OneAndZeros => {
            d.push(0x80);
            while !d.len().is_multiple_of(8) {
                d.push(0);
            }
        }
        MacPadding::LengthPrefixed(n) => {
            d = [(8 * n).to_be_bytes().to_vec(), d].concat();
            while !d.len().is_multiple_of(8) {
                d.push(0);
            }
        }
        MacPadding::Pkcs7 => {
            let p = 8 - d.len() % 8;
            d.extend(std::iter::repeat_n(p as u8, p));
        }
    }
    d
}

/// MAC algorithm 1 is the last block of CBC encryption of the padded data with a zero IV.
fn cbc_last_block<C: BlockCipher64>(c: &C, padded: &[u8]) -> Vec<u8> {
    let ct = modes::encrypt(c, Mode::Cbc, &[0; 8], Padding::None, padded).unwrap();
    ct[ct.len() - 8..].to_vec()
}

fn paddings(len: usize) -> [MacPadding; 4] {
    [
        MacPadding::Zeros,
        MacPadding::OneAndZeros,
        MacPadding::LengthPrefixed(len as u64),
        MacPadding::Pkcs7,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn algorithm1_is_cbc_of_the_padded_data_in_any_split(
        key in any::<[u8; 24]>(),
        msg in proptest::collection::vec(any::<u8>(), 0..70),
        cut in any::<prop::sample::Index>(),
        tag_len in 2usize..=8,
    ) {
        let des = Des::new(&key[..8]).unwrap();
        let tdes = Tdes::new(&key).unwrap();
        let cut = cut.index(msg.len() + 1);
        for padding in paddings(msg.len()) {
            let want = cbc_last_block(&des, &iso_pad(&msg, padding));
            let mut mac = CbcMac::new(des.clone(), padding, tag_len).unwrap();
            mac.update(&msg[..cut]);
            mac.update(&msg[cut..]);
            prop_assert_eq!(mac.finalize().unwrap().as_bytes().to_vec(), want[..tag_len].to_vec());

            let want = cbc_last_block(&tdes, &iso_pad(&msg, padding));
            let mut mac = CbcMac::new(tdes.clone(), padding, 8).unwrap();
            mac.update(&msg);
            prop_assert_eq!(mac.finalize().unwrap().as_bytes().to_vec(), want.clone());
        }
    }

    #[test]
    fn algorithm3_is_cbc_then_decrypt_encrypt(
        key in any::<[u8; 16]>(),
        msg in proptest::collection::vec(any::<u8>(), 0..40),
        cut in any::<prop::sample::Index>(),
    ) {
        let (k1, k2) = (Des::new(&key[..8]).unwrap(), Des::new(&key[8..]).unwrap());
        let cut = cut.index(msg.len() + 1);
        for padding in paddings(msg.len()) {
            let mut h: [u8; 8] = cbc_last_block(&k1, &iso_pad(&msg, padding)).try_into().unwrap();
            k2.decrypt_block(&mut h);
            k1.encrypt_block(&mut h);
            let mut mac = RetailMac::new(&key, padding, 8).unwrap();
            mac.update(&msg[..cut]);
            mac.update(&msg[cut..]);
            prop_assert_eq!(mac.finalize().unwrap().as_bytes().to_vec(), h.to_vec());
        }
    }
}

#[test]
fn long_messages_span_several_stages() {
    // 1,000 blocks and a tail: the kernels work in stages of 64 blocks.
    let msg: Vec<u8> = (0..8005u32).map(|i| (i * 31 + 7) as u8).collect();
    let tdes = Tdes::new(&[0x5c; 24]).unwrap();
    for padding in paddings(msg.len()) {
        let want = cbc_last_block(&tdes, &iso_pad(&msg, padding));
        let mut mac = CbcMac::new(tdes.clone(), padding, 8).unwrap();
        for piece in msg.chunks(777) {
            mac.update(piece);
        }
        assert_eq!(mac.finalize().unwrap().as_bytes(), &want[..]);
    }
}

#[test]
fn verification_rejects_every_altered_tag() {
    let key = *b"\x01\x23\x45\x67\x89\xab\xcd\xef\xfe\xdc\xba\x98\x76\x54\x32\x10";
    let msg = b"retail banking message";
    let mut mac = RetailMac::new(&key, MacPadding::OneAndZeros, 8).unwrap();
    mac.update(msg);
    let tag = mac.clone().finalize().unwrap();
    mac.clone().verify(tag.as_bytes()).unwrap();
    for i in 0..8 {
        for bit in 0..8 {
            let mut bad = tag.as_bytes().to_vec();
            bad[i] ^= 1 << bit;
            assert_eq!(mac.clone().verify(&bad), Err(Error::Verification));
        }
    }
    assert_eq!(mac.clone().verify(&tag.as_bytes()[..7]), Err(Error::Verification));
    assert_eq!(mac.verify(&[]), Err(Error::Verification));
}

#[test]
fn bad_parameters_are_errors() {
    let des = Des::new(&[1; 8]).unwrap();
    for bad in [0, 1, 9, 100] {
        assert!(matches!(
            CbcMac::new(des.clone(), MacPadding::Zeros, bad),
            Err(Error::InvalidArgument(_))
        ));
    }
    assert!(matches!(RetailMac::new(&[0; 8], MacPadding::Zeros, 8), Err(Error::InvalidKey(_))));
    assert!(matches!(CbcMac::fips113(&[0; 7], 8), Err(Error::InvalidKey(_))));
    let mut mac = CbcMac::new(des, MacPadding::LengthPrefixed(5), 8).unwrap();
    mac.update(b"four");
    assert!(matches!(mac.finalize(), Err(Error::InvalidArgument(_))));
}
