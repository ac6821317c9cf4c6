//! Certificates: parse, build, verify, print, and the ways they must fail.

mod common;

use common::{data, key};
use cryptocard::digest::HashAlg;
use cryptocard::rsa::{Pss, RsaPrivateKey, SaltLength};
use cryptocard_pki::Error;
use cryptocard_pki::cert::{self, CertBuilder, Certificate, Profile};
use cryptocard_pki::sig::{self, SigScheme};
use der::{Decode, Encode};
use std::time::{Duration, SystemTime};

fn ca() -> (RsaPrivateKey, Certificate) {
    let k = key("ca.key.pem");
    let c = CertBuilder::new(
        cert::parse_subject("/C=US/O=cryptocard/CN=Test CA").unwrap(),
        k.public_key(),
    )
    .unwrap()
    .days(30)
    .self_signed(&k)
    .unwrap();
    (k, c)
}

fn leaf(ca: &(RsaPrivateKey, Certificate), scheme: SigScheme) -> (RsaPrivateKey, Certificate) {
    let k = key("leaf.key.pem");
    let c = CertBuilder::new(cert::parse_subject("/CN=leaf").unwrap(), k.public_key())
        .unwrap()
        .profile(Profile::Leaf)
        .scheme(scheme)
        .days(10)
        .signed_by(&ca.1, &ca.0)
        .unwrap();
    (k, c)
}

fn now() -> SystemTime {
    SystemTime::now()
}

#[test]
fn self_signed_ca_verifies_and_prints() {
    let (_, ca) = ca();
    cert::verify_issued_by(&ca, &ca).unwrap();
    assert_eq!(cert::verify_chain(&ca, &[], std::slice::from_ref(&ca), now()).unwrap().len(), 1);
    let text = cert::cert_text(&ca).unwrap();
    for line in [
        "Certificate:",
        "        Version: 3 (0x2)",
        "        Signature Algorithm: sha256WithRSAEncryption",
        "        Issuer: C = US, O = cryptocard, CN = Test CA",
        "                Public-Key: (2048 bit)",
        "                Exponent: 65537 (0x10001)",
        "            X509v3 Basic Constraints: critical",
        "                CA:TRUE",
        "                Digital Signature, Certificate Sign, CRL Sign",
        "    Signature Value:",
    ] {
        assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
    }
    let ski = cert::subject_key_id(&ca).unwrap().unwrap();
    assert_eq!(ski.len(), 20);
    assert_eq!(ca.tbs_certificate().serial_number().as_bytes().len(), 20);
}

#[test]
fn chain_of_two_verifies_pkcs1_and_pss() {
    let ca = ca();
    for scheme in [
        SigScheme::Pkcs1v15(HashAlg::Sha384),
        SigScheme::Pss(Pss::new(HashAlg::Sha256).with_salt(SaltLength::Maximum)),
        SigScheme::Pss(Pss::new(HashAlg::Sha512).with_mgf1(HashAlg::Sha1)),
    ] {
        let (_, leaf) = leaf(&ca, scheme);
        let path = cert::verify_chain(&leaf, &[], std::slice::from_ref(&ca.1), now()).unwrap();
        assert_eq!(path.len(), 2);
        // AKI of the leaf = SKI of the CA.
        let text = cert::cert_text(&leaf).unwrap();
        let ski = cert::subject_key_id(&ca.1).unwrap().unwrap();
        let ski_hex: Vec<String> = ski.iter().map(|b| format!("{b:02X}")).collect();
        assert!(text.contains(&ski_hex.join(":")));
        // The leaf is no CA: nothing it signs verifies.
        let (lk, lc) = (key("leaf.key.pem"), leaf.clone());
        let sub = CertBuilder::new(cert::parse_subject("/CN=sub").unwrap(), ca.0.public_key())
            .unwrap()
            .signed_by(&lc, &lk)
            .unwrap();
        let e = cert::verify_chain(&sub, &[leaf], std::slice::from_ref(&ca.1), now()).unwrap_err();
        assert!(e.to_string().contains("invalid CA certificate"), "{e}");
    }
}

#[test]
fn wrong_issuer_tamper_and_expiry_are_errors() {
    let ca = ca();
    let (_, leaf) = leaf(&ca, SigScheme::DEFAULT);
    // Another root with the same name but another key: the signature does not verify.
    let other_key = key("leaf.key.pem");
    let impostor = |profile| {
        CertBuilder::new(
            cert::parse_subject("/C=US/O=cryptocard/CN=Test CA").unwrap(),
            other_key.public_key(),
        )
        .unwrap()
        .profile(profile)
        .self_signed(&other_key)
        .unwrap()
    };
    let e = cert::verify_issued_by(&leaf, &impostor(Profile::Ca)).unwrap_err();
    assert!(matches!(e, Error::Verify(_)), "{e}");
    // Its key identifier is not the one the leaf names: no candidate (OpenSSL's
    // X509_check_akid), so no signature check is made.
    let e = cert::verify_chain(&leaf, &[], &[impostor(Profile::Ca)], now()).unwrap_err();
    assert!(e.to_string().contains("unable to get local issuer certificate"), "{e}");
    // Without key identifiers (v1) it is a candidate, and its signature check fails.
    let e = cert::verify_chain(&leaf, &[], &[impostor(Profile::V1)], now()).unwrap_err();
    assert!(e.to_string().contains("certificate signature failure"), "{e}");
    // No trusted issuer at all.
    let e = cert::verify_chain(&leaf, &[], &[], now()).unwrap_err();
    assert!(e.to_string().contains("unable to get local issuer certificate"), "{e}");
    // Expired, not yet valid.
    let later = now() + Duration::from_secs(20 * 86_400);
    let e = cert::verify_chain(&leaf, &[], std::slice::from_ref(&ca.1), later).unwrap_err();
    assert!(e.to_string().contains("certificate has expired"), "{e}");
    let earlier = now() - Duration::from_secs(86_400);
    let e = cert::verify_chain(&leaf, &[], std::slice::from_ref(&ca.1), earlier).unwrap_err();
    assert!(e.to_string().contains("certificate is not yet valid"), "{e}");
    // Every single-byte change of the signed part is caught.
    let der = leaf.to_der().unwrap();
    let mut caught = 0;
    for i in (4..der.len() - 300).step_by(7) {
        let mut bad = der.clone();
        bad[i] ^= 0x01;
        if let Ok(c) = Certificate::from_der(&bad) {
            assert!(cert::verify_issued_by(&c, &ca.1).is_err(), "byte {i}");
        }
        caught += 1;
    }
    assert!(caught > 50);
}

#[test]
fn intermediate_chain_and_path_length() {
    let root = ca();
    let ik = key("leaf.key.pem");
    let inter = CertBuilder::new(cert::parse_subject("/CN=Intermediate").unwrap(), ik.public_key())
        .unwrap()
        .signed_by(&root.1, &root.0)
        .unwrap();
    let lk = key("ca.key.pem");
    let leaf = CertBuilder::new(cert::parse_subject("/CN=end").unwrap(), lk.public_key())
        .unwrap()
        .profile(Profile::Leaf)
        .signed_by(&inter, &ik)
        .unwrap();
    let path = cert::verify_chain(
        &leaf,
        std::slice::from_ref(&inter),
        std::slice::from_ref(&root.1),
        now(),
    )
    .unwrap();
    assert_eq!(path.len(), 3);
    let e = cert::verify_chain(&leaf, &[], std::slice::from_ref(&root.1), now()).unwrap_err();
    assert!(e.to_string().contains("unable to get local issuer certificate"), "{e}");
    // The intermediate alone as trust anchor suffices.
    assert_eq!(cert::verify_chain(&leaf, &[], &[inter], now()).unwrap().len(), 2);
}

#[test]
fn openssl_certificates_parse_verify_and_print() {
    let v3 = cert::read_certs(&data("openssl-v3.pem")).unwrap().remove(0);
    cert::verify_issued_by(&v3, &v3).unwrap();
    let ours = cert::cert_text(&v3).unwrap();
    let theirs = String::from_utf8(data("openssl-v3.txt")).unwrap();
    assert_eq!(ours, theirs);

    let pss = cert::cert_from_pem(&data("openssl-pss.pem")).unwrap();
    cert::verify_chain(&pss, &[], std::slice::from_ref(&pss), now()).unwrap();
    match SigScheme::from_algorithm_identifier(pss.signature_algorithm()).unwrap() {
        SigScheme::Pss(p) => assert_eq!(p.salt, SaltLength::Exact(222)),
        s => panic!("{s:?}"),
    }
    let want = String::from_utf8(data("openssl-pss.sha256")).unwrap();
    assert_eq!(cert::fingerprint_line(&pss, HashAlg::Sha256, "sha256").unwrap(), want.trim_end());
    // A bundle of both, and DER.
    let mut bundle = data("openssl-v3.pem");
    bundle.extend(data("ca.key.pem"));
    bundle.extend(data("openssl-pss.pem"));
    assert_eq!(cert::read_certs(&bundle).unwrap(), [v3.clone(), pss]);
    assert_eq!(cert::read_certs(&cert::to_der(&v3).unwrap()).unwrap(), [v3]);
}

#[test]
fn csr_round_trip_and_tamper() {
    let k = key("leaf.key.pem");
    for scheme in [
        SigScheme::DEFAULT,
        SigScheme::Pss(Pss::new(HashAlg::Sha256).with_salt(SaltLength::Maximum)),
    ] {
        let csr = cert::make_csr(&k, cert::parse_subject("/CN=req/O=x").unwrap(), &scheme).unwrap();
        let pem = cert::csr_to_pem(&csr).unwrap();
        let back = cert::read_csr(pem.as_bytes()).unwrap();
        cert::verify_csr(&back).unwrap();
        let text = cert::csr_text(&back).unwrap();
        assert!(text.contains("        Subject: CN = req, O = x\n"), "{text}");
        let mut bad = back.clone();
        bad.info.subject = cert::parse_subject("/CN=other").unwrap();
        assert!(cert::verify_csr(&bad).is_err());
    }
}

#[test]
fn key_mismatch_is_an_error() {
    let ca = ca();
    let other = key("leaf.key.pem");
    let b = CertBuilder::new(cert::parse_subject("/CN=x").unwrap(), other.public_key()).unwrap();
    assert!(b.clone().signed_by(&ca.1, &other).is_err());
    assert!(b.self_signed(&ca.0).is_err());
}

#[test]
fn malformed_input_is_an_error_not_a_panic() {
    let (_, ca) = ca();
    let der = ca.to_der().unwrap();
    for len in [0, 1, 2, 4, 10, 100, der.len() - 1] {
        assert!(cert::read_certs(&der[..len]).is_err(), "truncated to {len}");
    }
    let mut x = 0x1234_5678u32;
    for _ in 0..2000 {
        let mut bad = der.clone();
        for _ in 0..3 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let i = x as usize % bad.len();
            bad[i] = (x >> 8) as u8;
        }
        if let Ok(certs) = cert::read_certs(&bad) {
            let c = &certs[0];
            let _ = cert::verify_issued_by(c, c);
            let _ = cert::cert_text(c);
        }
    }
    for junk in [
        &b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"[..],
        b"-----BEGIN CERTIFICATE-----",
        b"\x30\x80\x00\x00",
        b"\x30\x84\xff\xff\xff\xff",
    ] {
        assert!(cert::read_certs(junk).is_err());
        assert!(cert::read_csr(junk).is_err());
    }
}

#[test]
fn spki_round_trip() {
    let k = key("ca.key.pem");
    let spki = sig::spki_of(k.public_key()).unwrap();
    assert_eq!(&sig::public_key_from_spki(&spki).unwrap(), k.public_key());
    let s = sig::sign(&k, &SigScheme::DEFAULT, b"msg").unwrap();
    sig::verify(k.public_key(), &SigScheme::DEFAULT, b"msg", &s).unwrap();
    assert!(sig::verify(k.public_key(), &SigScheme::DEFAULT, b"msh", &s).is_err());
}

#[test]
fn requested_alt_names_are_copied_as_asked() {
    let ca = ca();
    let k = key("leaf.key.pem");
    let san = cert::subject_alt_name("DNS:localhost,IP:127.0.0.1").unwrap();
    let name = cert::parse_subject("/CN=localhost").unwrap();
    let csr =
        cert::make_csr_with(&k, name, &SigScheme::DEFAULT, std::slice::from_ref(&san)).unwrap();
    cert::verify_csr(&csr).unwrap();
    assert_eq!(cert::requested_extensions(&csr).unwrap(), vec![san.clone()]);
    let issue = |mode| {
        CertBuilder::for_spki(csr.info.subject.clone(), csr.info.public_key.clone())
            .profile(Profile::Leaf)
            .requested_extensions(&csr, mode)
            .unwrap()
            .signed_by(&ca.1, &ca.0)
            .unwrap()
    };
    let has_san =
        |c: &Certificate| c.tbs_certificate().extensions().into_iter().flatten().any(|e| *e == san);
    assert!(!has_san(&issue(cert::CopyExtensions::None)));
    let copied = issue(cert::CopyExtensions::Copy);
    assert!(has_san(&copied));
    cert::verify_chain(&copied, &[], std::slice::from_ref(&ca.1), now()).unwrap();
    // The text form names the entries as OpenSSL does.
    let text = cert::cert_text(&copied).unwrap();
    assert!(text.contains("DNS:localhost, IP Address:127.0.0.1"), "{text}");
}
