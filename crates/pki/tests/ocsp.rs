//! OCSP through the library alone (RFC 6960): a request read back, a response made by the
//! intermediate CA of tests/data for the signer it issued and checked against the test
//! root, and the ways such a check must fail: another root, a broken signature, a
//! responder that did not issue the certificate, a response about two issuers.

mod common;

use common::{cert, key};
use cryptocard::digest::HashAlg;
use cryptocard_pki::ocsp::{
    self, CertId, ResponseBuilder, ResponseStatus, ResponseVerify, Status, error_response,
};
use std::time::{Duration, SystemTime};
use x509_cert::Certificate;
use x509_cert::ext::pkix::CrlReason;

fn checks(trusted: &str) -> ResponseVerify {
    ResponseVerify {
        trusted: vec![cert(trusted)],
        partial_chain: false,
        untrusted: vec![],
        trust_untrusted: false,
        at: SystemTime::now(),
        no_verify: false,
    }
}

/// A response by `responder` (key in `key_file`) answering `answers`.
fn response(responder: &Certificate, key_file: &str, answers: &[(CertId, Status)]) -> Vec<u8> {
    let now = SystemTime::now();
    let mut b = ResponseBuilder::new(now).next_update(now + Duration::from_secs(3600));
    for (id, status) in answers {
        b = b.answer(id.clone(), *status);
    }
    b.sign(responder, &key(key_file), &[cert("root")]).unwrap()
}

#[test]
fn a_request_reads_back() {
    let id = CertId::of(&cert("signer"), &cert("inter"), HashAlg::Sha1).unwrap();
    assert!(id.issued_by(&cert("inter")));
    assert!(!id.issued_by(&cert("root")));
    let req = ocsp::request(std::slice::from_ref(&id), Some(&[7; 16])).unwrap();
    let parsed = ocsp::parse_request(&req).unwrap();
    assert_eq!(parsed.ids, [id]);
    // The nonce extension holds an OCTET STRING of the nonce.
    assert_eq!(parsed.nonce.unwrap(), [&[0x04, 0x10][..], &[7; 16]].concat());
    assert!(ocsp::request(&[], None).is_err());
    assert!(ocsp::parse_request(&req[..req.len() - 1]).is_err());
}

#[test]
fn the_issuing_ca_answers_for_its_certificate() {
    let inter = cert("inter");
    let id = CertId::of(&cert("signer"), &inter, HashAlg::Sha256).unwrap();
    let revoked_at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let status = Status::Revoked { at: revoked_at, reason: Some(CrlReason::KeyCompromise) };
    let der = response(&inter, "inter.key", &[(id.clone(), status)]);
    assert_eq!(ocsp::response_status(&der).unwrap(), ResponseStatus::Successful);
    let got = ocsp::verify_response(&der, &checks("root")).unwrap();
    assert_eq!(got.statuses.len(), 1);
    assert!(got.statuses[0].id.same_certificate(&id));
    assert_eq!(got.statuses[0].status, status);
    assert!(got.statuses[0].next_update.is_some());
    // Another root does not make the responder's path.
    assert!(ocsp::verify_response(&der, &checks("other-root")).is_err());
    // A bit of the signature flipped (its last bytes come just before the certificates:
    // the [0] and SEQUENCE headers of the list, eight bytes).
    let mut broken = der.clone();
    let at = find(&broken, &cert_der(&inter)).expect("the responder's certificate") - 10;
    broken[at] ^= 1;
    let err = ocsp::verify_response(&broken, &checks("root")).unwrap_err().to_string();
    assert!(err.contains("signature failure"), "{err}");
}

#[test]
fn a_responder_must_be_the_issuer_or_its_delegate() {
    // The root answers for a certificate the intermediate issued: not its to answer.
    let id = CertId::of(&cert("signer"), &cert("inter"), HashAlg::Sha1).unwrap();
    let der = response(&cert("root"), "root.key", &[(id.clone(), Status::Good)]);
    let err = ocsp::verify_response(&der, &checks("root")).unwrap_err().to_string();
    assert!(err.contains("root ca not trusted"), "{err}");
    // Two issuers in one response.
    let other = CertId::of(&cert("inter"), &cert("root"), HashAlg::Sha1).unwrap();
    let der = response(&cert("inter"), "inter.key", &[(id, Status::Good), (other, Status::Good)]);
    assert!(ocsp::verify_response(&der, &checks("root")).is_err());
    // Unless nothing is checked.
    let unchecked = ResponseVerify { no_verify: true, ..checks("other-root") };
    assert_eq!(ocsp::verify_response(&der, &unchecked).unwrap().statuses.len(), 2);
}

#[test]
fn error_responses_carry_only_their_status() {
    let der = error_response(ResponseStatus::TryLater).unwrap();
    assert_eq!(ocsp::response_status(&der).unwrap(), ResponseStatus::TryLater);
    assert!(ocsp::verify_response(&der, &checks("root")).is_err());
    assert!(error_response(ResponseStatus::Successful).is_err());
}

fn cert_der(c: &Certificate) -> Vec<u8> {
    use der::Encode;
    c.to_der().unwrap()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
