//! OCSP through the library alone (RFC 6960): a request read back, a response made by the
//! intermediate CA of tests/data for the signer it issued and checked against the test
//! root, and the ways such a check must fail: another root, a broken signature, a
//! responder that did not issue the certificate, a response about two issuers; the
//! checks each relaxation leaves out, a signed request, an answer signed through the
//! engine, and the validity of an answer's times.

mod common;

use common::{cert, key};
use cryptocard::digest::HashAlg;
use cryptocard_pki::ocsp::{
    self, CertId, Relaxed, RequestSigner, ResponseBuilder, ResponseStatus, ResponseVerify, Status,
    error_response,
};
use cryptocard_pki::sig::SigScheme;
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
        relaxed: Default::default(),
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

#[test]
fn a_signed_request_names_its_signer() {
    let (signer, signer_key) = (cert("inter"), key("inter.key"));
    let id = CertId::of(&cert("signer"), &cert("inter"), HashAlg::Sha1).unwrap();
    let plain = ocsp::request(std::slice::from_ref(&id), None).unwrap();
    let other = [cert("root")];
    fn with<'a>(
        cert: &'a Certificate,
        key: &'a cryptocard::rsa::RsaPrivateKey,
        include_certs: bool,
        other: &'a [Certificate],
    ) -> RequestSigner<'a> {
        RequestSigner { cert, key, scheme: SigScheme::DEFAULT, other, include_certs }
    }
    let signed = ocsp::sign_request(&plain, &with(&signer, &signer_key, true, &other)).unwrap();
    // Read as any request; printed with its requestor, signature and both certificates.
    assert_eq!(ocsp::parse_request(&signed).unwrap().ids, [id]);
    let text = ocsp::request_text(&signed).unwrap();
    assert!(text.contains("    Requestor Name: DirName:"), "{text}");
    assert!(text.contains("    Signature Algorithm: sha256WithRSAEncryption"), "{text}");
    assert_eq!(text.matches("-----BEGIN CERTIFICATE-----").count(), 2);
    // Signed again without certificates: the same signature (PKCS#1 v1.5 is
    // deterministic), shorter by the certificates.
    let bare = ocsp::sign_request(&signed, &with(&signer, &signer_key, false, &other)).unwrap();
    assert!(bare.len() + cert_der(&signer).len() + cert_der(&other[0]).len() < signed.len());
    assert!(!ocsp::request_text(&bare).unwrap().contains("BEGIN CERTIFICATE"));
    // A key that is not the certificate's.
    let root_key = key("root.key");
    let wrong = with(&signer, &root_key, true, &[]);
    let err = ocsp::sign_request(&plain, &wrong).unwrap_err().to_string();
    assert!(err.contains("not the signer certificate's"), "{err}");
    assert!(
        ocsp::sign_request(&plain[..plain.len() - 1], &with(&signer, &signer_key, true, &[]))
            .is_err()
    );
}

#[test]
fn relaxed_checks_leave_out_their_step() {
    let inter = cert("inter");
    let id = CertId::of(&cert("signer"), &inter, HashAlg::Sha1).unwrap();
    let now = SystemTime::now();
    let bad = ResponseBuilder::new(now)
        .answer(id.clone(), Status::Good)
        .corrupt_signature(true)
        .sign(&inter, &key("inter.key"), &[])
        .unwrap();
    let relaxed = |r: Relaxed| ResponseVerify { relaxed: r, ..checks("root") };
    let err = ocsp::verify_response(&bad, &checks("root")).unwrap_err().to_string();
    assert!(err.contains("signature failure"), "{err}");
    let no_sig = Relaxed { no_signature: true, ..Relaxed::default() };
    assert!(ocsp::verify_response(&bad, &relaxed(no_sig)).is_ok());
    // The root answering for the intermediate's certificate: its path holds, its
    // authority does not, unless that is not checked (or neither is).
    let der = response(&cert("root"), "root.key", &[(id.clone(), Status::Good)]);
    assert!(ocsp::verify_response(&der, &checks("root")).is_err());
    let no_authority = Relaxed { no_authority: true, ..Relaxed::default() };
    assert!(ocsp::verify_response(&der, &relaxed(no_authority)).is_ok());
    let no_path = Relaxed { no_path: true, ..Relaxed::default() };
    assert!(ocsp::verify_response(&der, &relaxed(no_path)).is_ok());
    // The intermediate's answer carries the root; with no_intern its signer must come
    // from the caller.
    let der = response(&inter, "inter.key", &[(id, Status::Good)]);
    let no_intern = Relaxed { no_intern: true, ..Relaxed::default() };
    let err = ocsp::verify_response(&der, &relaxed(no_intern)).unwrap_err().to_string();
    assert!(err.contains("signer certificate not found"), "{err}");
    let given = ResponseVerify { untrusted: vec![inter.clone()], ..relaxed(no_intern) };
    assert!(ocsp::verify_response(&der, &given).is_ok());
}

#[test]
fn an_answer_through_the_engine_checks_alike() {
    let inter = cert("inter");
    let id = CertId::of(&cert("signer"), &inter, HashAlg::Sha256).unwrap();
    let engine = cryptocard::engine::Engine::builder().build().unwrap();
    let key = std::sync::Arc::new(key("inter.key"));
    let der = ResponseBuilder::new(SystemTime::now())
        .answer(id, Status::Good)
        .sign_on(&engine, &inter, &key, &[])
        .unwrap();
    assert_eq!(ocsp::verify_response(&der, &checks("root")).unwrap().statuses.len(), 1);
}

#[test]
fn validity_as_openssl_checks_it() {
    let id = CertId::of(&cert("signer"), &cert("inter"), HashAlg::Sha1).unwrap();
    let now = SystemTime::now();
    let (min, hour) = (Duration::from_secs(60), Duration::from_secs(3600));
    let at = |this: SystemTime, next: Option<SystemTime>| ocsp::SingleStatus {
        id: id.clone(),
        status: Status::Good,
        this_update: this,
        next_update: next,
    };
    let slack = 5 * min;
    let check = |s: &ocsp::SingleStatus, age| ocsp::check_validity(s, now, slack, age);
    assert!(check(&at(now - hour, Some(now + hour)), None).is_empty());
    // Four minutes ahead is within the slack, six are not.
    assert!(check(&at(now + 4 * min, None), None).is_empty());
    assert_eq!(check(&at(now + 6 * min, None), None), ["status not yet valid"]);
    assert_eq!(check(&at(now - hour, Some(now - 6 * min)), None), ["status expired"]);
    assert_eq!(check(&at(now - hour, None), Some(min)), ["status too old"]);
    // Any slack or age, however large, is an answer and not an overflow.
    let forever = Duration::MAX;
    assert!(
        ocsp::check_validity(&at(now + hour, Some(now - hour)), now, forever, Some(forever))
            .iter()
            .all(|w| *w == "nextupdate before thisupdate")
    );
    assert_eq!(
        check(&at(now + hour, Some(now - hour)), Some(min)),
        ["status not yet valid", "status expired", "nextupdate before thisupdate"]
    );
}

#[test]
fn answers_signed_in_one_batch_check_alike() {
    let inter = cert("inter");
    let id = CertId::of(&cert("signer"), &inter, HashAlg::Sha1).unwrap();
    let now = SystemTime::now();
    let builders: Vec<ResponseBuilder> = (0..9u8)
        .map(|i| ResponseBuilder::new(now).answer(id.clone(), Status::Good).nonce(Some(vec![i])))
        .collect();
    let key = key("inter.key");
    let answers = ResponseBuilder::sign_batch(builders, &inter, &key, &[]);
    assert_eq!(answers.len(), 9);
    for (i, der) in answers.into_iter().enumerate() {
        let got = ocsp::verify_response(&der.unwrap(), &checks("root")).unwrap();
        assert_eq!(got.nonce, Some(vec![i as u8]), "in request order");
    }
    // A responder whose key is not its certificate's fails each alone.
    let wrong = ResponseBuilder::sign_batch(
        vec![ResponseBuilder::new(now).answer(id, Status::Good)],
        &cert("root"),
        &key,
        &[],
    );
    assert!(wrong[0].as_ref().unwrap_err().to_string().contains("not the responder"));
}
