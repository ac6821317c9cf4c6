//! `cms -verify` beside `openssl cms -verify` on messages a verifier must refuse: a signer
//! certified by a CA restricted to TLS servers, a signer's address outside its CA's name
//! constraints, a signer's RSA key under 1024 bits
//! (OpenSSL refuses it at security level 1, `-auth_level 1`), and a message that brings
//! 250 decoy issuers. The messages are made in the test with cryptocard-pki; the root is
//! crates/pki/tests/data/root.pem.

mod common;

use common::paths::tlv;
use common::*;
use cryptocard::rng::OsRng;
use cryptocard::rsa::spki::der::Encode;
use cryptocard::rsa::spki::der::asn1::{ObjectIdentifier as Oid, OctetString};
use cryptocard::rsa::{KeyGenOptions, RsaPrivateKey};
use cryptocard_pki::cert::{self, CertBuilder, Certificate, Extension, Profile};
use cryptocard_pki::cms::{self, SignOptions, Signer};
use cryptocard_pki::sig::SigScheme;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// id-kp-emailProtection and id-kp-serverAuth (RFC 5280 4.2.1.12).
const EMAIL: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.3.4");
const SERVER_AUTH: Oid = Oid::new_unwrap("1.3.6.1.5.5.7.3.1");

const MSG: &[u8] = b"Refused here and by OpenSSL.\n";

fn pki(name: &str) -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "..", "pki", "tests", "data", name].iter().collect()
}

fn key(name: &str) -> RsaPrivateKey {
    RsaPrivateKey::from_pem(&std::fs::read_to_string(pki(name)).unwrap(), None).unwrap()
}

fn root() -> Certificate {
    cert::cert_from_pem(&std::fs::read(pki("root.pem")).unwrap()).unwrap()
}

/// A non-critical extension `id` holding `value`'s DER.
fn ext(id: &str, value: &impl Encode) -> Extension {
    let extn_value = OctetString::new(value.to_der().unwrap()).unwrap();
    Extension { extn_id: Oid::new_unwrap(id), critical: false, extn_value }
}

/// extendedKeyUsage (2.5.29.37): a SEQUENCE OF one purpose.
fn eku(oid: Oid) -> Extension {
    ext("2.5.29.37", &vec![oid])
}

/// A CA under the test root, with `extra` extensions.
fn ca(name: &str, key: &RsaPrivateKey, extra: Vec<Extension>) -> Certificate {
    let b = CertBuilder::new(cert::parse_subject(name).unwrap(), key.public_key()).unwrap();
    let b = extra.into_iter().fold(b, CertBuilder::extension);
    b.signed_by(&root(), &key_of_root()).unwrap()
}

fn key_of_root() -> RsaPrivateKey {
    key("root.key")
}

/// A SignedData (DER, content attached) of MSG by `key`, certified for email by `ca`,
/// carrying `certs`; written to `dir/msg.der`.
fn signed_by(
    dir: &Path,
    key: RsaPrivateKey,
    ca: &Certificate,
    ca_key: &RsaPrivateKey,
    certs: Vec<Certificate>,
) -> String {
    signed_with(dir, key, ca, ca_key, certs, vec![])
}

/// [`signed_by`], the signer's certificate with the `extra` extensions too.
fn signed_with(
    dir: &Path,
    key: RsaPrivateKey,
    ca: &Certificate,
    ca_key: &RsaPrivateKey,
    certs: Vec<Certificate>,
    extra: Vec<Extension>,
) -> String {
    let leaf =
        CertBuilder::new(cert::parse_subject("/CN=policy signer").unwrap(), key.public_key())
            .unwrap()
            .profile(Profile::Leaf)
            .extension(eku(EMAIL));
    let leaf = extra.into_iter().fold(leaf, CertBuilder::extension).signed_by(ca, ca_key).unwrap();
    let signer =
        Signer { key: Arc::new(key), cert: leaf, scheme: SigScheme::DEFAULT, by_key_id: false };
    let opts = SignOptions { detached: false, extra_certs: certs, ..Default::default() };
    let der = cms::sign(MSG, &[signer], &opts).unwrap();
    let p = path(dir, "msg.der");
    std::fs::write(&p, der).unwrap();
    p
}

/// `cms -verify` of `msg` against the test root, by us and (where installed) by OpenSSL
/// with `openssl_extra`: each outcome, and its stderr.
fn both_verify(
    dir: &Path,
    msg: &str,
    openssl_extra: &[&str],
) -> ((bool, String), Option<(bool, String)>) {
    both_verify_with(dir, msg, &[], openssl_extra)
}

/// [`both_verify`] with `extra` options for both tools.
fn both_verify_with(
    dir: &Path,
    msg: &str,
    extra: &[&str],
    openssl_extra: &[&str],
) -> ((bool, String), Option<(bool, String)>) {
    let root = pki("root.pem");
    let root = root.to_str().unwrap();
    let out = path(dir, "out");
    let mut args = vec!["cms", "-verify", "-inform", "DER", "-in", msg, "-CAfile", root];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["-out", &out]);
    let ours = run_within(60, &args);
    let err = String::from_utf8_lossy(&ours.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    if ours.status.success() {
        assert_eq!(std::fs::read(&out).unwrap(), MSG);
    } else {
        assert_eq!(ours.status.code(), Some(4), "{err}");
    }
    let theirs = have_openssl("both_verify").then(|| {
        let mut v = args.to_vec();
        v.extend_from_slice(openssl_extra);
        let o = openssl_raw(&v, b"");
        (o.status.success(), String::from_utf8_lossy(&o.stderr).into_owned())
    });
    ((ours.status.success(), err), theirs)
}

#[test]
fn a_ca_for_tls_servers_only_certifies_no_smime_signer_here_or_in_openssl() {
    let dir = tempdir();
    let ik = key("inter.key");
    for (oid, ok) in [(SERVER_AUTH, false), (EMAIL, true)] {
        let inter = ca("/CN=policy CA", &ik, vec![eku(oid)]);
        let msg = signed_by(dir.path(), key("signer.key"), &inter, &ik, vec![inter.clone()]);
        let ((ours, err), theirs) = both_verify(dir.path(), &msg, &[]);
        assert_eq!(ours, ok, "{err}");
        if !ok {
            assert!(
                err.contains("unsuitable certificate purpose (depth 1: CN = policy CA)"),
                "{err}"
            );
        }
        if let Some((theirs, their_err)) = theirs {
            assert_eq!(theirs, ok, "{their_err}");
            assert!(ok || their_err.contains("unsuitable certificate purpose"), "{their_err}");
        }
    }
}

#[test]
fn a_signer_outside_its_cas_name_constraints_is_refused_here_and_in_openssl() {
    // The CA may certify addresses at example.com only (RFC 5280 4.2.1.10), critical.
    let dir = tempdir();
    let ik = key("inter.key");
    let nc = tlv(0x30, &tlv(0xa0, &tlv(0x30, &tlv(0x81, b"example.com"))));
    let extn_value = OctetString::new(nc).unwrap();
    let nc = Extension { extn_id: Oid::new_unwrap("2.5.29.30"), critical: true, extn_value };
    let inter = ca("/CN=constrained CA", &ik, vec![nc]);
    for (address, ok) in [(&b"alice@example.com"[..], true), (b"mallory@example.org", false)] {
        let san = Extension {
            extn_id: Oid::new_unwrap("2.5.29.17"),
            critical: false,
            extn_value: OctetString::new(tlv(0x30, &tlv(0x81, address))).unwrap(),
        };
        let msg =
            signed_with(dir.path(), key("signer.key"), &inter, &ik, vec![inter.clone()], vec![san]);
        let ((ours, err), theirs) = both_verify(dir.path(), &msg, &[]);
        assert_eq!(ours, ok, "{err}");
        if !ok {
            let want = "permitted subtree violation (depth 0: CN = policy signer)";
            assert!(err.contains(want), "{err}");
        }
        if let Some((theirs, their_err)) = theirs {
            assert_eq!(theirs, ok, "{their_err}");
            assert!(ok || their_err.contains("permitted subtree violation"), "{their_err}");
        }
        if !ok {
            continue;
        }
        // The signer's address, the time at which its path is checked, its policies.
        let year_3000 = "32503680000";
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
        let tomorrow = (now.as_secs() + 86_400).to_string();
        for (extra, ok, words) in [
            (&["-verify_email", "alice@EXAMPLE.com"][..], true, ""),
            (&["-verify_email", "bob@example.com"], false, "email address mismatch"),
            (&["-attime", &tomorrow], true, ""),
            (&["-attime", year_3000], false, "certificate has expired"),
            // No certificate of the path names a policy.
            (&["-explicit_policy", "-policy", "anyPolicy"], false, "no explicit policy"),
            (&["-policy", "1.2.3.4"], true, ""),
            // The test root has no keyUsage, which RFC 5280 4.2.1.3 requires of a CA.
            (&["-x509_strict"], false, "CA cert does not include key usage extension"),
        ] {
            let ((ours, err), theirs) = both_verify_with(dir.path(), &msg, extra, &[]);
            assert_eq!(ours, ok, "{extra:?}: {err}");
            assert!(ok || err.contains(words), "{extra:?}: {err}");
            if let Some((theirs, their_err)) = theirs {
                assert_eq!(theirs, ok, "{extra:?}: {their_err}");
                assert!(ok || their_err.contains(words), "{extra:?}: {their_err}");
            }
        }
    }
}

#[test]
fn signer_keys_under_1024_bits_fail_as_at_openssl_security_level_1() {
    let dir = tempdir();
    let small = RsaPrivateKey::generate_with(
        &KeyGenOptions { allow_small: true, ..KeyGenOptions::new(768) },
        &mut OsRng,
    )
    .unwrap();
    let ik = key("inter.key");
    let inter = ca("/CN=policy CA", &ik, vec![]);
    let msg = signed_by(dir.path(), small, &inter, &ik, vec![inter.clone()]);
    let ((ours, err), theirs) = both_verify(dir.path(), &msg, &["-auth_level", "1"]);
    assert!(
        !ours && err.contains("EE certificate key too weak (depth 0: CN = policy signer)"),
        "{err}"
    );
    if let Some((theirs, their_err)) = theirs {
        assert!(!theirs && their_err.contains("EE certificate key too weak"), "{their_err}");
    }
    // -noverify does not let it through either (OpenSSL's does: the README says so).
    let out = run(&["cms", "-verify", "-noverify", "-inform", "DER", "-in", &msg], b"");
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stderr).contains("EE certificate key too weak"));
}

#[test]
fn decoy_issuers_are_refused_after_a_bounded_number_of_checks() {
    let dir = tempdir();
    let ik = key("inter.key");
    let inter = ca("/CN=policy CA", &ik, vec![]);
    let ski = cert::subject_key_id(&inter).unwrap().unwrap();
    // 250 certificates named like the CA, forging its key identifier, with another key.
    let decoy_key = key("signer.key");
    let forged = ext("2.5.29.14", &OctetString::new(ski).unwrap());
    let mut certs: Vec<Certificate> = (1..=250u16)
        .map(|i| {
            CertBuilder::new(cert::parse_subject("/CN=policy CA").unwrap(), decoy_key.public_key())
                .unwrap()
                .serial(&i.to_be_bytes())
                .extension(forged.clone())
                .signed_by(&root(), &key_of_root())
                .unwrap()
        })
        .collect();
    certs.push(inter.clone());
    let msg = signed_by(dir.path(), key("signer.key"), &inter, &ik, certs);
    let ((ours, err), theirs) = both_verify(dir.path(), &msg, &[]);
    assert!(!ours && err.contains("gave up after 16 failed signature checks"), "{err}");
    if let Some((theirs, their_err)) = theirs {
        assert!(!theirs, "{their_err}");
    }
}
