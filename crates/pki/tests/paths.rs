//! Certificate paths under hostile or unusual input: decoy issuers (bounded signature
//! checks), purposes (extendedKeyUsage on CAs and the trust anchor), small RSA keys, and
//! critical extensions on a trust anchor reached as an issuer.

mod common;

use common::{ext, key, small_key};
use const_oid::db::rfc5280::{ANY_EXTENDED_KEY_USAGE, ID_KP_EMAIL_PROTECTION, ID_KP_SERVER_AUTH};
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::cert::{
    self, CertBuilder, Certificate, Extension, MAX_FAILED_SIGNATURES, PathBudget, Profile, Purpose,
};
use der::Encode;
use der::asn1::{Null, ObjectIdentifier, OctetString};
use std::time::SystemTime;
use x509_cert::ext::pkix::{ExtendedKeyUsage, SubjectKeyIdentifier};

fn eku(oids: &[ObjectIdentifier], critical: bool) -> Extension {
    ext(&ExtendedKeyUsage(oids.to_vec()), critical)
}

fn builder(subject: &str, key: &RsaPrivateKey) -> CertBuilder {
    CertBuilder::new(cert::parse_subject(subject).unwrap(), key.public_key()).unwrap()
}

/// A root, an intermediate and a leaf.
struct Path {
    root: Certificate,
    inter_key: RsaPrivateKey,
    inter: Certificate,
    leaf: Certificate,
}

/// The path of three, each certificate made by `edit` from its builder.
fn path(
    root_key: &RsaPrivateKey,
    inter_key: RsaPrivateKey,
    leaf_key: &RsaPrivateKey,
    edit: impl Fn(&str, CertBuilder) -> CertBuilder,
) -> Path {
    let root = edit("root", builder("/CN=paths root", root_key)).self_signed(root_key).unwrap();
    let inter =
        edit("inter", builder("/CN=paths inter", &inter_key)).signed_by(&root, root_key).unwrap();
    let leaf = edit("leaf", builder("/CN=paths leaf", leaf_key).profile(Profile::Leaf))
        .signed_by(&inter, &inter_key)
        .unwrap();
    Path { root, inter_key, inter, leaf }
}

fn plain() -> Path {
    path(&key("ca.key.pem"), key("leaf.key.pem"), &key("ca.key.pem"), |_, b| b)
}

fn verify(p: &Path, purpose: Purpose) -> cryptocard_pki::Result<Vec<Certificate>> {
    let inter = std::slice::from_ref(&p.inter);
    let root = std::slice::from_ref(&p.root);
    cert::verify_chain_for(&p.leaf, inter, root, SystemTime::now(), purpose, &mut PathBudget::new())
}

/// `n` certificates named like the intermediate, with another key, and with the given
/// subject key identifier (`None`: none at all, a v1 certificate).
fn decoys(p: &Path, n: u16, ski: Option<&[u8]>) -> Vec<Certificate> {
    let (k, root_key) = (key("ca.key.pem"), key("ca.key.pem"));
    (1..=n)
        .map(|i| {
            let b = builder("/CN=paths inter", &k).serial(&i.to_be_bytes());
            let b = match ski {
                Some(id) => {
                    b.extension(ext(&SubjectKeyIdentifier(OctetString::new(id).unwrap()), false))
                }
                None => b.profile(Profile::V1),
            };
            b.signed_by(&p.root, &root_key).unwrap()
        })
        .collect()
}

#[test]
fn decoy_issuers_cost_a_bounded_number_of_signature_checks() {
    let p = plain();
    let real_ski = cert::subject_key_id(&p.inter).unwrap().unwrap();
    let root = std::slice::from_ref(&p.root);
    let now = SystemTime::now();
    // Decoys that name another key, or none: the real intermediate, whose identifier is
    // the one the leaf names, is tried first; one signature check per step.
    for ski in [Some(&[0x42; 20][..]), None] {
        let mut pool = decoys(&p, 250, ski);
        pool.push(p.inter.clone());
        let mut budget = PathBudget::new();
        let path = cert::verify_chain_for(&p.leaf, &pool, root, now, Purpose::Any, &mut budget);
        assert_eq!(path.unwrap().len(), 3);
        assert_eq!(budget.signature_checks(), 2, "{ski:?}");
    }
    // Decoys that forge the real identifier: the search gives up after the budget's
    // failures, whatever the number of decoys, before reaching the real one.
    let mut pool = decoys(&p, 250, Some(&real_ski));
    pool.push(p.inter.clone());
    let mut budget = PathBudget::new();
    let e = cert::verify_chain_for(&p.leaf, &pool, root, now, Purpose::Any, &mut budget);
    let e = e.unwrap_err().to_string();
    assert!(e.contains("gave up after 16 failed signature checks"), "{e}");
    assert_eq!(budget.signature_checks(), MAX_FAILED_SIGNATURES);
    // The spent budget fails every later search that shares it, but a pair already
    // checked costs nothing again.
    let e = cert::verify_chain_for(&p.leaf, &pool, root, now, Purpose::Any, &mut budget);
    assert!(e.is_err());
    assert_eq!(budget.signature_checks(), MAX_FAILED_SIGNATURES);
    let mut budget = PathBudget::new();
    let inter = std::slice::from_ref(&p.inter);
    for _ in 0..3 {
        cert::verify_chain_for(&p.leaf, inter, root, now, Purpose::Any, &mut budget).unwrap();
    }
    assert_eq!(budget.signature_checks(), 2);
}

#[test]
fn smime_signing_needs_every_ca_to_allow_email() {
    assert_eq!(verify(&plain(), Purpose::SmimeSign).unwrap().len(), 3);
    let (root_key, leaf_key) = (key("ca.key.pem"), key("ca.key.pem"));
    let email = [ID_KP_EMAIL_PROTECTION];
    let with = |who: &'static str, oids: Vec<ObjectIdentifier>, critical: bool| {
        path(&root_key, key("leaf.key.pem"), &leaf_key, move |name, b| {
            let b = if name == "leaf" { b.extension(eku(&email, false)) } else { b };
            if name == who { b.extension(eku(&oids, critical)) } else { b }
        })
    };
    // An intermediate or a root restricted to TLS servers certifies no S/MIME signer.
    for (who, depth) in [("inter", 1), ("root", 2)] {
        let tls_only = with(who, vec![ID_KP_SERVER_AUTH], false);
        let e = verify(&tls_only, Purpose::SmimeSign).unwrap_err();
        let want = format!("unsuitable certificate purpose (depth {depth}: CN = paths {who})");
        assert!(e.to_string().contains(&want), "{e}");
        // For no particular purpose the restriction is not checked.
        assert!(verify(&tls_only, Purpose::Any).is_ok());
    }
    // emailProtection (among others) or anyExtendedKeyUsage allow it.
    for oids in [vec![ID_KP_SERVER_AUTH, ID_KP_EMAIL_PROTECTION], vec![ANY_EXTENDED_KEY_USAGE]] {
        for who in ["inter", "root"] {
            assert!(verify(&with(who, oids.clone(), false), Purpose::SmimeSign).is_ok(), "{who}");
        }
    }
    // A critical extendedKeyUsage is processed under a purpose that enforces it, and an
    // unhandled critical extension under none.
    let critical = with("inter", vec![ID_KP_EMAIL_PROTECTION], true);
    assert!(verify(&critical, Purpose::SmimeSign).is_ok());
    let e = verify(&critical, Purpose::Any).unwrap_err().to_string();
    assert!(e.contains("unhandled critical extension (depth 1"), "{e}");
}

#[test]
fn rsa_keys_under_1024_bits_fail_at_any_depth() {
    let small = small_key(768);
    let cases = [
        (path(&small, key("leaf.key.pem"), &key("ca.key.pem"), |_, b| b), "CA", 2),
        (path(&key("ca.key.pem"), small_key(1000), &key("ca.key.pem"), |_, b| b), "CA", 1),
        (path(&key("ca.key.pem"), key("leaf.key.pem"), &small, |_, b| b), "EE", 0),
    ];
    for (p, who, depth) in &cases {
        for purpose in [Purpose::Any, Purpose::SmimeSign] {
            let e = verify(p, purpose).unwrap_err().to_string();
            assert!(e.contains(&format!("{who} certificate key too weak (depth {depth}")), "{e}");
        }
    }
    let ok = path(&key("ca.key.pem"), small_key(1024), &key("ca.key.pem"), |_, b| b);
    assert!(verify(&ok, Purpose::SmimeSign).is_ok());
    assert!(cases[1].0.inter_key.bits() < 1024);
}

#[test]
fn a_trust_anchor_reached_as_issuer_is_checked_for_critical_extensions() {
    let unknown = Extension {
        extn_id: ObjectIdentifier::new_unwrap("1.3.6.1.4.1.55555.1"),
        critical: true,
        extn_value: OctetString::new(Null.to_der().unwrap()).unwrap(),
    };
    let p = path(&key("ca.key.pem"), key("leaf.key.pem"), &key("ca.key.pem"), |who, b| {
        if who == "root" { b.extension(unknown.clone()) } else { b }
    });
    let e = verify(&p, Purpose::Any).unwrap_err().to_string();
    assert!(e.contains("unhandled critical extension (depth 2: CN = paths root)"), "{e}");
    // The same extension, not critical, is ignored.
    let quiet = Extension { critical: false, ..unknown.clone() };
    let p = path(&key("ca.key.pem"), key("leaf.key.pem"), &key("ca.key.pem"), |who, b| {
        if who == "root" { b.extension(quiet.clone()) } else { b }
    });
    assert!(verify(&p, Purpose::Any).is_ok());
    // And a trust anchor that is the intermediate itself, reached from the leaf.
    let p = path(&key("ca.key.pem"), key("leaf.key.pem"), &key("ca.key.pem"), |who, b| {
        if who == "inter" { b.extension(unknown.clone()) } else { b }
    });
    let anchor = std::slice::from_ref(&p.inter);
    let e = cert::verify_chain(&p.leaf, &[], anchor, SystemTime::now()).unwrap_err();
    assert!(e.to_string().contains("unhandled critical extension (depth 1"), "{e}");
}

#[test]
fn failures_say_what_and_where_in_openssls_numbers() {
    use cert::{PathFailure, TrustStore};
    use cryptocard_pki::Error;
    let p = plain();
    let (inter, root) = (std::slice::from_ref(&p.inter), std::slice::from_ref(&p.root));
    // A year on, all three have expired: the first failure is the anchor's (OpenSSL checks
    // validity from the top down), and a report that goes on past expiry has all three.
    let later = SystemTime::now() + std::time::Duration::from_secs(365 * 86_400);
    let mut budget = PathBudget::new();
    match cert::verify_chain_for(&p.leaf, inter, root, later, Purpose::Any, &mut budget) {
        Err(Error::Path(e)) => {
            assert_eq!((e.failure, e.depth, e.failure.code()), (PathFailure::Expired, 2, 10));
            assert_eq!(e.subject(), "CN = paths root");
            assert_eq!(e.to_string(), "certificate has expired (depth 2: CN = paths root)");
        }
        other => panic!("{other:?}"),
    }
    let go_on = |f| f == PathFailure::Expired;
    let checks = cert::PathChecks {
        go_on: &go_on,
        revocation: None,
        ..cert::PathChecks::new(later, Purpose::Any)
    };
    let report =
        cert::verify_chain_report(&p.leaf, inter, root, &checks, &mut PathBudget::new()).unwrap();
    assert_eq!(report.path.len(), 3);
    let depths: Vec<usize> = report.failures.iter().map(|e| e.depth).collect();
    assert_eq!(depths, [2, 1, 0]);
    assert!(report.failures.iter().all(|e| e.failure == PathFailure::Expired));

    // A store read as OpenSSL reads one: the intermediate alone is no anchor, and its
    // missing issuer is worded apart; with partial chains it is one.
    let now = SystemTime::now();
    let verify_in =
        |store: &TrustStore| store.verify(&p.leaf, &[], now, Purpose::Any, &mut PathBudget::new());
    match verify_in(&TrustStore::new(vec![p.inter.clone()], false)) {
        Err(Error::Path(e)) => {
            assert_eq!(
                (e.failure, e.depth, e.failure.code()),
                (PathFailure::NoIssuerOfTrusted, 1, 2)
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(verify_in(&TrustStore::new(vec![p.inter.clone()], true)).unwrap().len(), 2);
    let both = TrustStore::new(vec![p.inter.clone(), p.root.clone()], false);
    assert_eq!(verify_in(&both).unwrap().len(), 3);
    assert!(both.contains(&p.inter) && !both.contains(&p.leaf) && both.len() == 2);
    // Without the store's intermediate, the leaf's issuer is missing as OpenSSL words it
    // for a certificate not from the store.
    match verify_in(&TrustStore::new(vec![p.root.clone()], false)) {
        Err(Error::Path(e)) => assert_eq!((e.failure, e.depth), (PathFailure::NoIssuer, 0)),
        other => panic!("{other:?}"),
    }
}
