//! CMS SignedData and EnvelopedData: round trips through our own code, messages made by
//! OpenSSL (tests/data, see make.sh there), and the failures a verifier or a decryption
//! service must report: tampered content or signature, a wrong root, a wrong recipient,
//! truncated and malformed input.

mod common;

use common::{cert, data, key, trust};
use cryptocard::digest::HashAlg;
use cryptocard::engine::Engine;
use cryptocard::rsa::{Oaep, Pss};
use cryptocard_pki::Error;
use cryptocard_pki::cms::{
    self, ContentCipher, KeyTransport, Recipient, SignOptions, Signer, VerifyOptions,
};
use cryptocard_pki::sig::SigScheme;
use std::sync::Arc;

fn signer(scheme: SigScheme) -> Signer {
    Signer { key: Arc::new(key("signer.key")), cert: cert("signer"), scheme, by_key_id: false }
}

const MSG: &[u8] = b"The seed paper signs and envelopes this.\n";

fn attached() -> SignOptions {
    SignOptions { detached: false, ..Default::default() }
}

#[test]
fn signed_data_round_trips_for_each_scheme() {
    let pss = Pss::new(HashAlg::Sha256);
    for scheme in [
        SigScheme::Pkcs1v15(HashAlg::Sha256),
        SigScheme::Pkcs1v15(HashAlg::Sha1),
        SigScheme::Pkcs1v15(HashAlg::Sha512),
        SigScheme::Pss(pss),
        SigScheme::Pss(Pss::new(HashAlg::Sha384)),
    ] {
        let der = cms::sign(MSG, &[signer(scheme)], &attached()).unwrap();
        let v = cms::verify(&der, None, &trust()).unwrap();
        assert_eq!(v.content, MSG, "{scheme:?}");
        assert_eq!(v.signers, vec![cert("signer")]);
    }
}

#[test]
fn detached_signatures_need_and_check_their_content() {
    let der = cms::sign(MSG, &[signer(SigScheme::DEFAULT)], &SignOptions::default()).unwrap();
    assert_eq!(cms::verify(&der, Some(MSG), &trust()).unwrap().content, MSG);
    let missing = cms::verify(&der, None, &trust()).unwrap_err();
    assert!(matches!(missing, Error::Verify(_)), "{missing}");
    let tampered = cms::verify(&der, Some(b"The seed paper signs and envelopes that.\n"), &trust());
    assert!(tampered.unwrap_err().to_string().contains("digest"));
}

#[test]
fn without_attributes_the_signature_covers_the_content() {
    let opts = SignOptions { signed_attrs: false, ..attached() };
    let der = cms::sign(MSG, &[signer(SigScheme::DEFAULT)], &opts).unwrap();
    assert_eq!(cms::verify(&der, None, &trust()).unwrap().content, MSG);
    assert!(cms::verify(&der, Some(b"other"), &trust()).is_err());
}

#[test]
fn two_signers_both_verify() {
    let second = Signer {
        key: Arc::new(key("recipient.key")),
        cert: cert("recipient"),
        scheme: SigScheme::Pss(Pss::new(HashAlg::Sha512)),
        by_key_id: true,
    };
    let der = cms::sign(MSG, &[signer(SigScheme::DEFAULT), second], &attached()).unwrap();
    let v = cms::verify(&der, None, &trust()).unwrap();
    assert_eq!(v.signers.len(), 2);
}

#[test]
fn a_flipped_signature_bit_fails() {
    let der = cms::sign(MSG, &[signer(SigScheme::DEFAULT)], &attached()).unwrap();
    // The signature is the last 256 bytes of this single-signer structure.
    let mut bad = der.clone();
    let at = bad.len() - 7;
    bad[at] ^= 0x10;
    let e = cms::verify(&bad, None, &trust()).unwrap_err();
    assert!(matches!(e, Error::Verify(_)), "{e}");
}

#[test]
fn the_chain_must_reach_a_trusted_root() {
    let der = cms::sign(MSG, &[signer(SigScheme::DEFAULT)], &attached()).unwrap();
    let wrong = VerifyOptions { trusted: vec![cert("other-root")], ..trust() };
    assert!(cms::verify(&der, None, &wrong).is_err());
    let no_inter = VerifyOptions { untrusted: vec![], ..trust() };
    assert!(cms::verify(&der, None, &no_inter).is_err());
    // -noverify: the signature alone.
    let sig_only = VerifyOptions { no_chain: true, ..wrong };
    assert_eq!(cms::verify(&der, None, &sig_only).unwrap().content, MSG);
}

#[test]
fn the_signer_certificate_must_be_found() {
    let opts = SignOptions { include_certs: false, ..attached() };
    let der = cms::sign(MSG, &[signer(SigScheme::DEFAULT)], &opts).unwrap();
    let e = cms::verify(&der, None, &trust()).unwrap_err();
    assert!(e.to_string().contains("signer certificate not found"), "{e}");
    let with = VerifyOptions { untrusted: vec![cert("inter"), cert("signer")], ..trust() };
    assert!(cms::verify(&der, None, &with).is_ok());
}

#[test]
fn openssl_signatures_verify() {
    let v = cms::verify(&data("openssl-signed.der"), None, &trust()).unwrap();
    assert_eq!(v.content, data("message.txt"));
    let pss = data("openssl-signed-pss-detached.der");
    let v = cms::verify(&pss, Some(&data("message.txt")), &trust()).unwrap();
    assert_eq!(v.signers, vec![cert("signer")]);
    assert!(cms::verify(&pss, Some(b"not the message"), &trust()).is_err());
}

#[test]
fn streamed_ber_messages_open() {
    let v = cms::verify(&data("openssl-signed-ber.der"), None, &trust()).unwrap();
    assert_eq!(v.content, data("message.txt"));
    let out =
        cms::decrypt(&data("openssl-enveloped-ber.der"), &key("recipient.key"), None).unwrap();
    assert_eq!(&out[..], &data("message.txt")[..]);
}

#[test]
fn content_that_looks_like_ber_chunks_stays_as_it_is() {
    // A primitive OCTET STRING whose bytes happen to be an OCTET STRING encoding.
    let content = b"\x04\x03abc";
    let der = cms::sign(content, &[signer(SigScheme::DEFAULT)], &attached()).unwrap();
    assert_eq!(cms::verify(&der, None, &trust()).unwrap().content, content);
}

#[test]
fn many_contents_sign_through_the_engine_and_in_one_batch() {
    let engine = Engine::builder().workers(1).build().unwrap();
    let docs: Vec<Vec<u8>> = (0..20).map(|i| format!("document {i}\n").into_bytes()).collect();
    let refs: Vec<&[u8]> = docs.iter().map(Vec::as_slice).collect();
    for scheme in [SigScheme::DEFAULT, SigScheme::Pss(Pss::new(HashAlg::Sha256))] {
        let s = signer(scheme);
        for out in [
            cms::sign_many(&engine, &refs, &s, &attached()),
            cms::sign_batch(&refs, &s, &attached()),
        ] {
            assert_eq!(out.len(), docs.len());
            for (doc, der) in docs.iter().zip(out) {
                assert_eq!(&cms::verify(&der.unwrap(), None, &trust()).unwrap().content, doc);
            }
        }
    }
}

fn recipient(transport: KeyTransport) -> Recipient {
    Recipient { cert: cert("recipient"), transport, by_key_id: false }
}

#[test]
fn envelopes_round_trip_for_each_cipher_and_transport() {
    let rk = key("recipient.key");
    for name in ["des", "des3", "aes128", "aes192", "aes256"] {
        for transport in [
            KeyTransport::Pkcs1v15,
            KeyTransport::Oaep(Oaep::new(HashAlg::Sha1)),
            KeyTransport::Oaep(Oaep::new(HashAlg::Sha256)),
        ] {
            let cipher = ContentCipher::from_name(name).unwrap();
            let der = cms::encrypt(MSG, &[recipient(transport.clone())], cipher).unwrap();
            let out = cms::decrypt(&der, &rk, Some(&cert("recipient"))).unwrap();
            assert_eq!(&out[..], MSG, "{name} {transport:?}");
            assert_eq!(&cms::decrypt(&der, &rk, None).unwrap()[..], MSG);
        }
    }
}

#[test]
fn envelopes_by_key_identifier_and_to_two_recipients() {
    let two = [
        Recipient { by_key_id: true, ..recipient(KeyTransport::Pkcs1v15) },
        Recipient { cert: cert("signer"), transport: KeyTransport::Pkcs1v15, by_key_id: false },
    ];
    let der = cms::encrypt(MSG, &two, ContentCipher::aes256()).unwrap();
    for who in ["recipient", "signer"] {
        assert_eq!(
            &cms::decrypt(&der, &key(&format!("{who}.key")), Some(&cert(who))).unwrap()[..],
            MSG
        );
    }
}

#[test]
fn the_wrong_recipient_gets_an_error() {
    let der =
        cms::encrypt(MSG, &[recipient(KeyTransport::Pkcs1v15)], ContentCipher::aes256()).unwrap();
    let e = cms::decrypt(&der, &key("signer.key"), Some(&cert("signer"))).unwrap_err();
    assert!(matches!(e, Error::NoMatch(_)), "{e}");
    // The wrong key without a certificate unwraps a random content key, which fails the
    // content decryption, except where it happens to leave valid CBC padding (about one
    // envelope in 256): garbage then, never the message. Of four envelopes at least one
    // must fail, and none may give the message.
    let mut failed = 0;
    for _ in 0..4 {
        let der = cms::encrypt(MSG, &[recipient(KeyTransport::Pkcs1v15)], ContentCipher::aes256())
            .unwrap();
        match cms::decrypt(&der, &key("signer.key"), None) {
            Ok(garbage) => assert_ne!(&garbage[..], MSG),
            Err(e) => {
                assert!(matches!(e, Error::Crypto(cryptocard::Error::Decryption)), "{e}");
                failed += 1;
            }
        }
    }
    assert!(failed > 0, "the wrong key opened four envelopes");
}

#[test]
fn openssl_envelopes_open() {
    let rk = key("recipient.key");
    for c in ["des", "des3", "aes128", "aes256", "oaep"] {
        let der = data(&format!("openssl-enveloped-{c}.der"));
        let out = cms::decrypt(&der, &rk, Some(&cert("recipient"))).unwrap();
        assert_eq!(&out[..], &data("message.txt")[..], "{c}");
    }
}

#[test]
fn truncated_and_malformed_input_is_an_error() {
    let signed = cms::sign(MSG, &[signer(SigScheme::DEFAULT)], &attached()).unwrap();
    let env =
        cms::encrypt(MSG, &[recipient(KeyTransport::Pkcs1v15)], ContentCipher::aes256()).unwrap();
    let rk = key("recipient.key");
    for cut in [0, 1, 2, 10, 100, signed.len() / 2, signed.len() - 1] {
        assert!(cms::verify(&signed[..cut], None, &trust()).is_err(), "cut {cut}");
    }
    for cut in [0, 5, env.len() / 2, env.len() - 1] {
        assert!(cms::decrypt(&env[..cut], &rk, None).is_err(), "cut {cut}");
    }
    // Each byte flipped in turn, in a window over the headers: an error or (for bytes no
    // check covers, like an unused length bit) success, never a panic.
    for i in 0..200.min(signed.len()) {
        let mut bad = signed.clone();
        bad[i] ^= 0xff;
        let _ = cms::verify(&bad, None, &trust());
    }
    // A signed message is not an envelope, and the reverse.
    assert!(cms::decrypt(&signed, &rk, None).is_err());
    assert!(cms::verify(&env, None, &trust()).is_err());
}

/// xorshift64*: reproducible mutations.
fn next(x: &mut u64) -> u64 {
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    x.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

#[test]
fn random_mutations_of_openssl_messages_never_panic() {
    let rk = key("recipient.key");
    let signed = data("openssl-signed-ber.der");
    let enveloped = data("openssl-enveloped-oaep.der");
    let smime = cms::smime::write_signed(
        &data("openssl-signed.der"),
        MSG,
        &[HashAlg::Sha256],
        cms::smime::Style::Cms,
    )
    .unwrap();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut accepted = 0;
    for round in 0..3000 {
        let base = [&signed, &enveloped, &smime][round % 3];
        let mut m = base.clone();
        for _ in 0..1 + next(&mut x) % 4 {
            let at = (next(&mut x) % m.len() as u64) as usize;
            match next(&mut x) % 3 {
                0 => m[at] ^= 1 << (next(&mut x) % 8),
                1 => m[at] = next(&mut x) as u8,
                _ => m.truncate(at.max(1)),
            }
        }
        let ok = match round % 3 {
            0 => cms::verify(&m, None, &trust()).is_ok(),
            1 => cms::decrypt(&m, &rk, None).is_ok(),
            _ => cms::read(&m, cms::Format::Smime).is_ok(),
        };
        accepted += usize::from(ok);
    }
    // Most mutations must be refused (a verifier that accepts everything passes no test).
    assert!(accepted < 1500, "{accepted} of 3000 mutated messages accepted");
}

#[test]
fn a_certificate_for_something_else_does_not_sign() {
    use cryptocard_pki::cert::{self, CertBuilder, Profile};
    use x509_cert::der::{Encode, asn1::OctetString};
    use x509_cert::ext::Extension;
    use x509_cert::ext::pkix::ExtendedKeyUsage;
    // The signer's key, certified by the intermediate for TLS servers only.
    let server_auth = const_oid::db::rfc5280::ID_KP_SERVER_AUTH;
    let eku = Extension {
        extn_id: <ExtendedKeyUsage as const_oid::AssociatedOid>::OID,
        critical: false,
        extn_value: OctetString::new(ExtendedKeyUsage(vec![server_auth]).to_der().unwrap())
            .unwrap(),
    };
    let k = key("signer.key");
    let tls_only = CertBuilder::new(cert::parse_subject("/CN=tls only").unwrap(), k.public_key())
        .unwrap()
        .profile(Profile::Leaf)
        .extension(eku)
        .signed_by(&cert("inter"), &key("inter.key"))
        .unwrap();
    let s =
        Signer { key: Arc::new(k), cert: tls_only, scheme: SigScheme::DEFAULT, by_key_id: false };
    let der = cms::sign(MSG, &[s], &attached()).unwrap();
    let e = cms::verify(&der, None, &trust()).unwrap_err();
    assert!(e.to_string().contains("purpose"), "{e}");
    // The signature itself is good.
    let sig_only = VerifyOptions { no_chain: true, ..trust() };
    assert_eq!(cms::verify(&der, None, &sig_only).unwrap().content, MSG);
}

#[test]
fn hostile_envelopes_buy_a_bounded_number_of_private_key_operations() {
    let many: Vec<Recipient> =
        (0..=cms::MAX_TRIED_RECIPIENTS).map(|_| recipient(KeyTransport::Pkcs1v15)).collect();
    let der = cms::encrypt(MSG, &many, ContentCipher::aes256()).unwrap();
    let e = cms::decrypt(&der, &key("recipient.key"), None).unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
    // As many as the limit still open.
    let der = cms::encrypt(MSG, &many[1..], ContentCipher::aes256()).unwrap();
    assert_eq!(&cms::decrypt(&der, &key("recipient.key"), None).unwrap()[..], MSG);
}

#[test]
fn hostile_signed_data_buys_a_bounded_number_of_checks() {
    let signers: Vec<Signer> = (0..=cms::MAX_SIGNERS).map(|_| signer(SigScheme::DEFAULT)).collect();
    let der = cms::sign(MSG, &signers, &attached()).unwrap();
    let e = cms::verify(&der, None, &trust()).unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
    let der = cms::sign(MSG, &signers[1..], &attached()).unwrap();
    assert_eq!(cms::verify(&der, None, &trust()).unwrap().signers.len(), cms::MAX_SIGNERS);
}

/// The failure and depth of a path error.
fn path_failure(e: Error) -> (cryptocard_pki::cert::PathFailure, usize) {
    match e {
        Error::Path(p) => (p.failure, p.depth),
        other => panic!("not a path failure: {other}"),
    }
}

#[test]
fn signers_are_checked_against_the_crls_of_the_message_and_the_caller() {
    use cryptocard_pki::cert::{self, PathFailure};
    use cryptocard_pki::cms::CrlCheck;
    let crls = |names: &[&str]| -> Vec<cert::Crl> {
        names.iter().flat_map(|n| cert::read_crls(&data(n)).unwrap()).collect()
    };
    let recipient = || Signer {
        key: Arc::new(key("recipient.key")),
        cert: cert("recipient"),
        scheme: SigScheme::DEFAULT,
        by_key_id: false,
    };
    // Messages carrying the intermediate's CRL (revoking the recipient) and the root's
    // (revoking the intermediate).
    let with_crls = SignOptions { crls: crls(&["crl-inter.pem", "crl-root.pem"]), ..attached() };
    let revoked = cms::sign(MSG, &[recipient()], &with_crls).unwrap();
    let good = cms::sign(MSG, &[signer(SigScheme::DEFAULT)], &with_crls).unwrap();
    let check = |crl_check| VerifyOptions { crl_check, ..trust() };
    // Not asked, not checked.
    assert_eq!(cms::verify(&revoked, None, &trust()).unwrap().content, MSG);
    let e = cms::verify(&revoked, None, &check(CrlCheck::Signers)).unwrap_err();
    assert_eq!(path_failure(e), (PathFailure::Revoked, 0));
    assert_eq!(cms::verify(&good, None, &check(CrlCheck::Signers)).unwrap().content, MSG);
    let e = cms::verify(&good, None, &check(CrlCheck::All)).unwrap_err();
    assert_eq!(path_failure(e), (PathFailure::Revoked, 1));
    // A message without CRLs: the caller's count, and none is no CRL to check by.
    let plain = cms::sign(MSG, &[recipient()], &attached()).unwrap();
    let e = cms::verify(&plain, None, &check(CrlCheck::Signers)).unwrap_err();
    assert_eq!(path_failure(e), (PathFailure::UnableToGetCrl, 0));
    let given = VerifyOptions { crls: crls(&["crl-inter.pem"]), ..check(CrlCheck::Signers) };
    assert_eq!(
        path_failure(cms::verify(&plain, None, &given).unwrap_err()),
        (PathFailure::Revoked, 0)
    );
    let empty = VerifyOptions { crls: crls(&["crl-inter-empty.pem"]), ..given };
    assert_eq!(cms::verify(&plain, None, &empty).unwrap().content, MSG);
    // A version 1 CRL (no version field) travels in a message and covers the root's
    // certificates.
    let v1 = SignOptions { crls: crls(&["crl-inter-empty.pem", "crl-root-v1.pem"]), ..attached() };
    let carrying_v1 = cms::sign(MSG, &[signer(SigScheme::DEFAULT)], &v1).unwrap();
    assert_eq!(cms::verify(&carrying_v1, None, &check(CrlCheck::All)).unwrap().content, MSG);
}
