//! Time-stamping through the library alone (RFC 3161): a TSA whose certificate the test
//! intermediate issued answers requests, its tokens are checked against the test root,
//! each refusal carries its failure bit, and every way a token can fail to match (the
//! data, the nonce, the policy, the signer's certificate, its purpose, the ESS binding)
//! fails the check. Hostile bytes are errors, never panics.

mod common;

use common::{cert, ext, key};
use const_oid::ObjectIdentifier;
use const_oid::db::rfc5280::ID_KP_TIME_STAMPING;
use cryptocard::digest::{HashAlg, Hasher};
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::asn1::ObjectNames;
use cryptocard_pki::cert::{CertBuilder, Profile, parse_subject};
use cryptocard_pki::cms::VerifyOptions;
use cryptocard_pki::ts::{self, Expect, Failure, QueryOptions, Request, Response, Tsa};
use der::asn1::{Int, OctetString};
use der::{Any, Encode, Sequence};
use spki::AlgorithmIdentifierOwned;
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;
use x509_cert::Certificate;
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::ExtendedKeyUsage;

const POLICY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.3.4.1");
const OTHER_POLICY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.3.4.5.6");

/// A certificate for `key` issued by the test intermediate with `exts`.
fn issued(subject_key: &RsaPrivateKey, cn: &str, exts: Vec<Extension>) -> Certificate {
    let mut b = CertBuilder::new(
        parse_subject(&format!("/O=Card/CN={cn}")).unwrap(),
        subject_key.public_key(),
    )
    .unwrap()
    .profile(Profile::Leaf)
    .days(2);
    for e in exts {
        b = b.extension(e);
    }
    b.signed_by(&cert("inter"), &key("inter.key")).unwrap()
}

fn tsa_key() -> RsaPrivateKey {
    key("signer.key")
}

/// The TSA certificate: a critical extendedKeyUsage of timeStamping alone (one for the
/// whole test binary: each issue has a random serial).
fn tsa_cert() -> Certificate {
    static TSA: OnceLock<Certificate> = OnceLock::new();
    TSA.get_or_init(|| {
        issued(&tsa_key(), "tsa", vec![ext(&ExtendedKeyUsage(vec![ID_KP_TIME_STAMPING]), true)])
    })
    .clone()
}

/// The TSA: SHA-256 and SHA-1 requests, one other policy, the intermediate as its chain.
fn tsa() -> Tsa {
    let mut t = Tsa::new(Arc::new(tsa_key()), tsa_cert(), POLICY).unwrap();
    t.digests = vec![HashAlg::Sha256, HashAlg::Sha1];
    t.other_policies = vec![OTHER_POLICY];
    t.chain = vec![cert("inter")];
    t
}

fn trust() -> VerifyOptions {
    VerifyOptions { trusted: vec![cert("root")], ..Default::default() }
}

const DATA: &[u8] = b"the document\n";

fn digest(h: HashAlg) -> Vec<u8> {
    Hasher::digest(h, DATA).as_bytes().to_vec()
}

/// A request for DATA with `opts`, and the reply of `tsa` with serial 7.
fn exchange(tsa: &Tsa, opts: &QueryOptions) -> (Vec<u8>, Response) {
    let req = ts::query(HashAlg::Sha256, &digest(HashAlg::Sha256), opts).unwrap();
    let reply = tsa.reply(&req, &mut || Some(vec![7]), SystemTime::now()).unwrap();
    assert!(reply.granted);
    (req, Response::parse(&reply.der).unwrap())
}

fn with_certs() -> QueryOptions {
    QueryOptions { cert_req: true, ..Default::default() }
}

#[test]
fn a_token_is_granted_and_checks_against_request_data_and_digest() {
    let (req, resp) = exchange(&tsa(), &with_certs());
    assert!(resp.granted());
    assert_eq!(resp.status(), Some(0));
    assert_eq!(resp.serial(), Some(&[7u8][..]));
    assert_eq!(resp.policy(), Some(POLICY));
    let request = Request::parse(&req).unwrap();
    assert_eq!(request.nonce().map(<[u8]>::len).map(|n| n >= 8), Some(true));
    let signer = ts::verify(&resp, Expect::Request(&request), &trust()).unwrap();
    assert_eq!(signer, tsa_cert());
    ts::verify(&resp, Expect::Data(&mut &DATA[..]), &trust()).unwrap();
    ts::verify(&resp, Expect::Digest(&digest(HashAlg::Sha256)), &trust()).unwrap();
    // The bare token reads as the granted response around it.
    let token = Response::from_token(resp.token().unwrap()).unwrap();
    assert_eq!(token.to_der().unwrap(), resp.to_der().unwrap());
    ts::verify(&token, Expect::Request(&request), &trust()).unwrap();
    // The text names the policy and echoes the nonce.
    let names = ObjectNames::default();
    let text = resp.text(&names);
    assert!(text.starts_with("Status info:\nStatus: Granted.\n"), "{text}");
    assert!(text.contains("Policy OID: 1.2.3.4.1\n"), "{text}");
    assert!(text.contains("Serial number: 0x07\n"), "{text}");
    let nonce_hex: String = request
        .nonce()
        .unwrap()
        .iter()
        .skip_while(|&&b| b == 0)
        .map(|b| format!("{b:02X}"))
        .collect();
    assert!(text.contains(&format!("Nonce: 0x{nonce_hex}\n")), "{text}");
    let req_text = ts::request_text(&req, &names).unwrap();
    assert!(req_text.contains("Certificate required: yes\n"), "{req_text}");
}

#[test]
fn what_does_not_match_fails() {
    let (_, resp) = exchange(&tsa(), &with_certs());
    let err =
        |e: Expect<'_>, opts: &VerifyOptions| ts::verify(&resp, e, opts).unwrap_err().to_string();
    assert!(err(Expect::Data(&mut &b"other"[..]), &trust()).contains("imprint mismatch"));
    assert!(err(Expect::Digest(&[0; 32]), &trust()).contains("imprint mismatch"));
    // Another request: another nonce.
    let other = Request::parse(
        &ts::query(HashAlg::Sha256, &digest(HashAlg::Sha256), &with_certs()).unwrap(),
    )
    .unwrap();
    assert!(err(Expect::Request(&other), &trust()).contains("nonce mismatch"));
    // A request that names a policy the token does not have.
    let opts = QueryOptions { policy: Some(OTHER_POLICY), ..with_certs() };
    let other =
        Request::parse(&ts::query(HashAlg::Sha256, &digest(HashAlg::Sha256), &opts).unwrap())
            .unwrap();
    assert!(err(Expect::Request(&other), &trust()).contains("policy mismatch"));
    // A request by SHA-1: the algorithm differs even where the bytes would not.
    let sha1 =
        Request::parse(&ts::query(HashAlg::Sha1, &digest(HashAlg::Sha1), &with_certs()).unwrap())
            .unwrap();
    assert!(err(Expect::Request(&sha1), &trust()).contains("imprint mismatch"));
    // Another root.
    let other_root = VerifyOptions { trusted: vec![cert("other-root")], ..Default::default() };
    assert!(ts::verify(&resp, Expect::Data(&mut &DATA[..]), &other_root).is_err());
}

#[test]
fn without_certificates_the_verifier_must_have_them() {
    let (_, resp) = exchange(&tsa(), &QueryOptions::default());
    assert!(ts::verify(&resp, Expect::Data(&mut &DATA[..]), &trust()).is_err());
    let opts = VerifyOptions { untrusted: vec![tsa_cert(), cert("inter")], ..trust() };
    ts::verify(&resp, Expect::Data(&mut &DATA[..]), &opts).unwrap();
}

#[test]
fn every_signing_certificate_attribute_form_verifies() {
    for (alg, chain) in [
        (HashAlg::Sha1, false),
        (HashAlg::Sha1, true),
        (HashAlg::Sha384, true),
        (HashAlg::Sha256, true),
    ] {
        let mut t = tsa();
        t.ess_cert_id_alg = alg;
        t.ess_cert_id_chain = chain;
        t.signer_digest = HashAlg::Sha512;
        t.tsa_name = true;
        t.ordering = true;
        t.accuracy = ts::Accuracy { seconds: 1, millis: 500, micros: 0 };
        t.clock_precision_digits = 3;
        let (req, resp) = exchange(&t, &with_certs());
        let request = Request::parse(&req).unwrap();
        ts::verify(&resp, Expect::Request(&request), &trust())
            .unwrap_or_else(|e| panic!("{alg:?} {chain}: {e}"));
        let text = resp.text(&ObjectNames::default());
        assert!(
            text.contains("Accuracy: 0x01 seconds, 0x01F4 millis, unspecified micros\n"),
            "{text}"
        );
        assert!(text.contains("Ordering: yes\n"), "{text}");
        assert!(text.contains("TSA: DirName:/O=Card/CN=tsa\n"), "{text}");
        let time = resp.gen_time().unwrap();
        assert!(
            time.ends_with('Z') && (time.len() == 15 || (17..=19).contains(&time.len())),
            "{time}"
        );
    }
}

/// A request as any client could send it, with the fields `query` would not write.
#[derive(Sequence)]
struct RawRequest {
    version: Int,
    imprint: RawImprint,
    #[asn1(optional = "true")]
    policy: Option<ObjectIdentifier>,
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    extensions: Option<Vec<Extension>>,
}

#[derive(Sequence)]
struct RawImprint {
    alg: AlgorithmIdentifierOwned,
    digest: OctetString,
}

fn raw(
    version: u8,
    hash: HashAlg,
    params: Option<Any>,
    digest: &[u8],
    policy: Option<ObjectIdentifier>,
    exts: Option<Vec<Extension>>,
) -> Vec<u8> {
    let alg = AlgorithmIdentifierOwned {
        oid: ObjectIdentifier::new(hash.oid()).unwrap(),
        parameters: params,
    };
    RawRequest {
        version: Int::new(&[version]).unwrap(),
        imprint: RawImprint { alg, digest: OctetString::new(digest).unwrap() },
        policy,
        extensions: exts,
    }
    .to_der()
    .unwrap()
}

#[test]
fn refusals_say_why() {
    let t = tsa();
    let good = digest(HashAlg::Sha256);
    let null = Some(Any::null());
    let an_ext = Extension {
        extn_id: ObjectIdentifier::new_unwrap("1.2.3.99"),
        critical: false,
        extn_value: OctetString::new(vec![5, 0]).unwrap(),
    };
    let cases: Vec<(Vec<u8>, &str, Failure)> = vec![
        (b"not a request".to_vec(), "Bad request format or system error.", Failure::BadDataFormat),
        (
            raw(2, HashAlg::Sha256, null.clone(), &good, None, None),
            "Bad request version.",
            Failure::BadRequest,
        ),
        (
            raw(1, HashAlg::Sha384, null.clone(), &digest(HashAlg::Sha384), None, None),
            "Message digest algorithm is not supported.",
            Failure::BadAlg,
        ),
        (
            raw(1, HashAlg::Sha256, Some(Any::encode_from(&5u8).unwrap()), &good, None, None),
            "Superfluous message digest parameter.",
            Failure::BadAlg,
        ),
        (
            raw(1, HashAlg::Sha256, None, &good[..31], None, None),
            "Bad message digest.",
            Failure::BadDataFormat,
        ),
        (
            raw(1, HashAlg::Sha256, None, &good, Some(ObjectIdentifier::new_unwrap("1.2.9")), None),
            "Requested policy is not supported.",
            Failure::UnacceptedPolicy,
        ),
        (
            raw(1, HashAlg::Sha256, None, &good, None, Some(vec![an_ext])),
            "Unsupported extension.",
            Failure::UnacceptedExtension,
        ),
    ];
    for (req, text, failure) in cases {
        let mut asked = false;
        let reply = t
            .reply(
                &req,
                &mut || {
                    asked = true;
                    Some(vec![1])
                },
                SystemTime::now(),
            )
            .unwrap();
        assert!(!reply.granted, "{text}");
        let resp = Response::parse(&reply.der).unwrap();
        assert_eq!(resp.status(), Some(2));
        assert_eq!(resp.status_text(), [text.to_string()]);
        assert_eq!(resp.failures(), [failure]);
        // A serial is taken only once the request is one the TSA serves.
        assert!(!asked, "{text}");
        let printed = resp.text(&ObjectNames::default());
        assert!(printed.contains(&format!("Status: Rejected.\nStatus description: {text}\nFailure info: {}\n\nTST info:\nNot included.\n", failure.text())), "{printed}");
        let err =
            ts::verify(&resp, Expect::Data(&mut &DATA[..]), &trust()).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "status code: rejection, status text: {text}, failure codes: {}",
                failure.name()
            )),
            "{err}"
        );
    }
    // Without a serial number the TSA refuses, as OpenSSL's does with an unreadable file.
    let req = ts::query(HashAlg::Sha256, &good, &QueryOptions::default()).unwrap();
    let reply = t.reply(&req, &mut || None, SystemTime::now()).unwrap();
    let resp = Response::parse(&reply.der).unwrap();
    assert_eq!(resp.failures(), [Failure::AddInfoNotAvailable]);
    // The other policy and a SHA-1 imprint with absent parameters are served.
    let other = raw(1, HashAlg::Sha1, None, &digest(HashAlg::Sha1), Some(OTHER_POLICY), None);
    let reply = t.reply(&other, &mut || Some(vec![2]), SystemTime::now()).unwrap();
    assert!(reply.granted);
    assert_eq!(Response::parse(&reply.der).unwrap().policy(), Some(OTHER_POLICY));
}

#[test]
fn a_tsa_certificate_must_be_for_time_stamping_and_match_the_key() {
    let k = tsa_key();
    let not_critical =
        issued(&k, "tsa", vec![ext(&ExtendedKeyUsage(vec![ID_KP_TIME_STAMPING]), false)]);
    let plain = issued(&k, "tsa", vec![]);
    for c in [not_critical, plain] {
        let e = Tsa::new(Arc::new(tsa_key()), c, POLICY).unwrap_err().to_string();
        assert!(e.contains("invalid signer certificate purpose"), "{e}");
    }
    let e = Tsa::new(Arc::new(key("recipient.key")), tsa_cert(), POLICY).unwrap_err().to_string();
    assert!(e.contains("does not match"), "{e}");
}

/// ESSCertIDv2 with SHA-256 (RFC 5035 section 4), its hash alone.
#[derive(Sequence)]
struct EssCertIdV2 {
    cert_hash: OctetString,
}

/// SigningCertificateV2 (RFC 5035 section 3) without policies.
#[derive(Sequence)]
struct SigningCertificateV2 {
    certs: Vec<EssCertIdV2>,
}

/// A token made outside the TSA's rules, by `cms::sign` with the TSTInfo content type:
/// signed under `signer` (its key the TSA's) with the signing-certificate attribute of
/// `named` (or none).
fn forged(signer: Certificate, named: Option<Certificate>) -> Response {
    let (_, good) = exchange(&tsa(), &with_certs());
    let tst = good.tst_info_der().unwrap();
    let mut attrs = Vec::new();
    if let Some(n) = named {
        // The attribute as a TSA would write it for `n`: a SigningCertificateV2 of its
        // SHA-256 hash.
        let hash = Hasher::digest(HashAlg::Sha256, &n.to_der().unwrap());
        let id = EssCertIdV2 { cert_hash: OctetString::new(hash.as_bytes()).unwrap() };
        let value = Any::encode_from(&SigningCertificateV2 { certs: vec![id] }).unwrap();
        attrs.push(x509_cert::attr::Attribute {
            oid: ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.2.47"),
            values: der::asn1::SetOfVec::try_from(vec![value]).unwrap(),
        });
    }
    let s = cryptocard_pki::cms::Signer {
        key: Arc::new(tsa_key()),
        cert: signer,
        scheme: cryptocard_pki::sig::SigScheme::Pkcs1v15(HashAlg::Sha256),
        by_key_id: false,
    };
    let opts = cryptocard_pki::cms::SignOptions {
        detached: false,
        smime_capabilities: false,
        extra_certs: vec![cert("inter")],
        content_type: ts::ID_CT_TST_INFO,
        extra_attrs: attrs,
        ..Default::default()
    };
    let token = cryptocard_pki::cms::sign(&tst, &[s], &opts).unwrap();
    Response::from_token(&token).unwrap()
}

#[test]
fn the_signing_certificate_attribute_binds_the_signer() {
    let opts = trust();
    // As the TSA makes it, the forgery path verifies: the test is of what follows.
    ts::verify(&forged(tsa_cert(), Some(tsa_cert())), Expect::Data(&mut &DATA[..]), &opts).unwrap();
    let e = ts::verify(&forged(tsa_cert(), None), Expect::Data(&mut &DATA[..]), &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no signing certificate attribute"), "{e}");
    // The same key under another certificate (same key, another name): the attribute
    // names a certificate that is not the signer's.
    let twin =
        issued(&tsa_key(), "twin", vec![ext(&ExtendedKeyUsage(vec![ID_KP_TIME_STAMPING]), true)]);
    let e =
        ts::verify(&forged(twin.clone(), Some(tsa_cert())), Expect::Data(&mut &DATA[..]), &opts)
            .unwrap_err()
            .to_string();
    assert!(e.contains("names no certificate"), "{e}");
    // A signer whose certificate is not for time stamping fails its path.
    let plain = issued(&tsa_key(), "plain", vec![]);
    assert!(
        ts::verify(&forged(plain.clone(), Some(plain)), Expect::Data(&mut &DATA[..]), &opts)
            .is_err()
    );
}

#[test]
fn hostile_bytes_are_errors() {
    let (req, resp) = exchange(&tsa(), &with_certs());
    let der = resp.to_der().unwrap();
    let names = ObjectNames::default();
    for cut in (0..der.len()).step_by(7) {
        let _ = Response::parse(&der[..cut]).map(|r| r.text(&names));
    }
    for cut in 0..req.len() {
        assert!(Request::parse(&req[..cut]).is_err());
        assert!(ts::request_text(&req[..cut], &names).is_err());
    }
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..400 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut bad = der.clone();
        let at = (seed as usize) % bad.len();
        bad[at] ^= 1 << ((seed >> 32) % 8);
        if let Ok(r) = Response::parse(&bad) {
            let _ = r.text(&names);
            let _ = ts::verify(&r, Expect::Data(&mut &DATA[..]), &trust());
        }
    }
    // A response is not a token, nor is an empty SEQUENCE.
    assert!(Response::from_token(&der).is_err());
    assert!(Response::from_token(b"\x30\x00").is_err());
    assert!(Response::from_token(resp.token().unwrap()).is_ok());
}

#[test]
fn many_requests_in_one_batch_and_through_the_engine() {
    let t = tsa();
    let reqs: Vec<Vec<u8>> = (0..10)
        .map(|i| {
            if i == 4 {
                return b"not a request".to_vec();
            }
            let opts = QueryOptions { cert_req: i % 3 != 0, ..Default::default() };
            ts::query(HashAlg::Sha256, &digest(HashAlg::Sha256), &opts).unwrap()
        })
        .collect();
    let refs: Vec<&[u8]> = reqs.iter().map(Vec::as_slice).collect();
    let mut next = 0u8;
    let replies = t.reply_batch(
        &refs,
        &mut || {
            next += 1;
            Some(vec![next])
        },
        SystemTime::now(),
    );
    assert_eq!(replies.len(), 10);
    let opts = VerifyOptions { untrusted: vec![tsa_cert(), cert("inter")], ..trust() };
    let mut serial = 0u8;
    for (i, (req, reply)) in reqs.iter().zip(replies).enumerate() {
        let reply = reply.unwrap();
        let resp = Response::parse(&reply.der).unwrap();
        if i == 4 {
            assert!(!reply.granted);
            assert_eq!(resp.failures(), [Failure::BadDataFormat]);
            continue;
        }
        // Serial numbers in the order of the requests, the refused one skipped.
        serial += 1;
        assert_eq!(resp.serial(), Some(&[serial][..]), "request {i}");
        let request = Request::parse(req).unwrap();
        ts::verify(&resp, Expect::Request(&request), &opts).unwrap();
        // Only the tokens asked with certificates carry them.
        assert_eq!(
            ts::verify(&resp, Expect::Request(&request), &trust()).is_ok(),
            i % 3 != 0,
            "{i}"
        );
    }
    // Through the engine from four threads at once.
    let engine = cryptocard::engine::Engine::builder().workers(2).build().unwrap();
    let serials = std::sync::Mutex::new(100u8);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..3 {
                    let req = ts::query(HashAlg::Sha256, &digest(HashAlg::Sha256), &with_certs())
                        .unwrap();
                    let mut serial = || {
                        let mut n = serials.lock().unwrap();
                        *n += 1;
                        Some(vec![*n])
                    };
                    let reply = t.reply_on(&engine, &req, &mut serial, SystemTime::now()).unwrap();
                    let resp = Response::parse(&reply.der).unwrap();
                    ts::verify(&resp, Expect::Request(&Request::parse(&req).unwrap()), &trust())
                        .unwrap();
                }
            });
        }
    });
    assert_eq!(*serials.lock().unwrap(), 112);
}
