//! Our DES types used through the RustCrypto `cipher` 0.5 traits (feature
//! `rustcrypto-traits`): generic code that knows only the traits gets the FIPS 81 and
//! BoringSSL answers, and the two-block backend path equals the one-block path.
#![cfg(feature = "rustcrypto-traits")]

use cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit, KeySizeUser};
use cryptocard::des::{BlockCipher64, Des, TdesEde2, TdesEde3};

/// ECB through nothing but the RustCrypto traits.
fn ecb_via_traits<C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt>(
    key: &[u8],
    pt: &[u8],
) -> Vec<u8> {
    assert_eq!(C::block_size(), 8);
    let c = C::new_from_slice(key).unwrap();
    let mut blocks: Vec<Array<u8, C::BlockSize>> =
        pt.chunks(8).map(|b| Array::try_from(b).unwrap()).collect();
    c.encrypt_blocks(&mut blocks);
    let ct: Vec<u8> = blocks.iter().flat_map(|b| b.iter().copied()).collect();
    c.decrypt_blocks(&mut blocks);
    let back: Vec<u8> = blocks.iter().flat_map(|b| b.iter().copied()).collect();
    assert_eq!(back, pt);
    ct
}

#[test]
fn known_answers_through_the_traits() {
    // FIPS 81 Appendix B (ECB) and BoringSSL's DES-EDE / DES-EDE3 cases.
    let pt = hex::decode("4e6f77206973207468652074696d6520666f7220616c6c20").unwrap();
    let ct = ecb_via_traits::<Des>(&hex::decode("0123456789abcdef").unwrap(), &pt);
    assert_eq!(hex::encode(ct), "3fa40e8a984d48156a271787ab8883f9893d51ec4b563b53");

    let pt =
        hex::decode("37363534333231204E6F77206973207468652074696D6520666F722000000000").unwrap();
    let ct =
        ecb_via_traits::<TdesEde2>(&hex::decode("0123456789abcdeff1e0d3c2b5a49786").unwrap(), &pt);
    assert_eq!(
        hex::encode_upper(ct),
        "22E889402E28422F8167AD279D90A566DA75B734E12C671FC2669AECB3E4FE8F"
    );

    let key = hex::decode("2eaf97304cfaeb822c04a7b7bef328c7b82fef2ae81b06b5").unwrap();
    let pt =
        hex::decode("b3ed255d4f5e2d6d9a1aa2bc03489064d28fe1431eceee183b7231fad3273140").unwrap();
    let ct = ecb_via_traits::<TdesEde3>(&key, &pt);
    assert_eq!(hex::encode(ct), "629d608789e51dff699343d061ec01d94c0681c7698ab617ea0145f37304c8e2");
}

#[test]
fn key_sizes_and_one_block_calls_agree_with_our_api() {
    assert_eq!((Des::key_size(), TdesEde2::key_size(), TdesEde3::key_size()), (8, 16, 24));
    assert!(<TdesEde3 as KeyInit>::new_from_slice(&[0; 16]).is_err());
    let key = Array::from([0x31u8; 24]);
    let t = <TdesEde3 as KeyInit>::new(&key);
    let ours = TdesEde3::from_key(&[0x31; 24]);
    for i in 0..5u64 {
        let x = i.wrapping_mul(0x0123_4567_89ab_cdef);
        let mut b = Array::from(x.to_be_bytes());
        BlockCipherEncrypt::encrypt_block(&t, &mut b);
        assert_eq!(<[u8; 8]>::from(b), ours.encrypt_u64(x).to_be_bytes());
        BlockCipherDecrypt::decrypt_block(&t, &mut b);
        assert_eq!(<[u8; 8]>::from(b), x.to_be_bytes());
    }
}
