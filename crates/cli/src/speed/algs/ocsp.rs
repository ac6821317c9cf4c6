//! `ocsp-reply`: an OCSP response per request, as a CA's responder makes them (RFC 6960;
//! `cryptocard ocsp -index` against libcrypto's `OCSP_basic_sign` and the calls around it
//! in `openssl ocsp -index`), with the RSA-2048, -3072 and -4096 speed keys and a
//! self-signed responder certificate made for each key (the same DER for every
//! implementation).
//!
//! Each call answers one request (one certificate ID, SHA-1, and a nonce): the request
//! read, the certificate answered `good` as of now, the nonce echoed, the response data
//! signed with PKCS#1 v1.5 and SHA-256, the responder named by subject and its
//! certificate carried, the `OCSPResponse` out as DER. With `-batch N`, ours answers N
//! requests per call with `ResponseBuilder::sign_batch` on the measuring thread (one
//! `rsa::private_batch`), as a responder draining a queue would; OpenSSL has no batch
//! interface and stays one at a time.
//!
//! The first response of each implementation is checked with our own verifier
//! (signature, the responder's authority, the answer and the nonce) before timing.

#[cfg(feature = "peers")]
use super::peer_err;
use crate::speed::row::{Candidate, Context, Row, Who};
#[cfg(feature = "peers")]
use compare::openssl::Openssl;
use cryptocard::digest::HashAlg;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::cert::{self, CertBuilder, Certificate, Profile};
use cryptocard_pki::ocsp::{self, CertId, ResponseBuilder, ResponseVerify, Status};
use std::sync::Arc;
use std::time::SystemTime;

/// The nonce of the request.
const NONCE: [u8; 16] = [0x5a; 16];

/// What every candidate of one row gets.
struct Inputs {
    key: Arc<RsaPrivateKey>,
    #[cfg_attr(not(feature = "peers"), allow(dead_code))]
    private: &'static [u8],
    cert: Certificate,
    #[cfg_attr(not(feature = "peers"), allow(dead_code))]
    cert_der: Vec<u8>,
    request: Vec<u8>,
}

/// Checks that `der` answers `x.request`: signed by the responder, which is the issuer
/// of the certificate asked about, `good`, the nonce echoed.
fn check(der: &[u8], x: &Inputs) -> Result<(), String> {
    let opts = ResponseVerify {
        trusted: vec![x.cert.clone()],
        partial_chain: true,
        untrusted: vec![],
        trust_untrusted: false,
        at: SystemTime::now(),
        no_verify: false,
        relaxed: Default::default(),
    };
    let got = ocsp::verify_response(der, &opts).map_err(|e| format!("response: {e}"))?;
    let asked = ocsp::parse_request(&x.request).map_err(|e| e.to_string())?;
    match (&got.statuses[..], got.nonce == asked.nonce) {
        ([one], true) if one.status == Status::Good && one.id.same_certificate(&asked.ids[0]) => {
            Ok(())
        }
        _ => Err("the response does not answer the request".into()),
    }
}

/// The rows of `ocsp-reply`, one per key size.
pub fn rows(ctx: &Context<'_>) -> Result<Vec<Row>, String> {
    super::PKI_SIZES
        .iter()
        .map(|&(bits, op)| {
            let (private, _) = super::rsa::speed_key(bits).ok_or("internal error: no key")?;
            let err = |e: &dyn std::fmt::Display| format!("ocsp-reply {op}: {e}");
            let key = RsaPrivateKey::from_pkcs8_der(private).map_err(|e| err(&e))?;
            let cert = responder_cert(&key).map_err(|e| err(&e))?;
            let cert_der = cert::to_der(&cert).map_err(|e| err(&e))?;
            // The responder answers for a certificate it issued: itself.
            let id = CertId::of(&cert, &cert, HashAlg::Sha1).map_err(|e| err(&e))?;
            let request = ocsp::request(&[id], Some(&NONCE)).map_err(|e| err(&e))?;
            let x = Arc::new(Inputs { key: Arc::new(key), private, cert, cert_der, request });
            let mut candidates = vec![ours(&x, ctx.batch)];
            #[cfg(feature = "peers")]
            candidates.extend(ctx.peers.openssl.iter().map(|&lib| openssl_candidate(lib, &x)));
            Ok(Row::new("ocsp-reply", op, u64::from(bits), None, candidates))
        })
        .collect()
}

/// A self-signed responder certificate for `key`.
fn responder_cert(key: &RsaPrivateKey) -> cryptocard_pki::Result<Certificate> {
    let subject = cert::parse_subject("/CN=cryptocard speed OCSP responder")?;
    CertBuilder::new(subject, key.public_key())?.profile(Profile::Ca).days(365).self_signed(key)
}

/// Our answer to `request`, as `cryptocard ocsp -index` makes it: each certificate
/// `good`, the nonce echoed.
fn answer(request: &[u8]) -> Result<ResponseBuilder, String> {
    let parsed = ocsp::parse_request(request).map_err(|e| e.to_string())?;
    let mut builder = ResponseBuilder::new(SystemTime::now()).nonce(parsed.nonce);
    for id in parsed.ids {
        builder = builder.answer(id, Status::Good);
    }
    Ok(builder)
}

/// Ours: one request per call, or `batch` per call on the measuring thread
/// (`ResponseBuilder::sign_batch`).
fn ours(x: &Arc<Inputs>, batch: Option<usize>) -> Candidate {
    let (x, inputs) = (x.clone(), x.clone());
    Candidate::checked(
        Who::Ours,
        batch,
        move || Ok(x.clone()),
        move |x: &mut Arc<Inputs>| {
            let out = match batch {
                None => vec![answer(&x.request)?.sign(&x.cert, &x.key, &[])],
                Some(n) => {
                    let builders = (0..n).map(|_| answer(&x.request)).collect::<Result<_, _>>()?;
                    ResponseBuilder::sign_batch(builders, &x.cert, &x.key, &[])
                }
            };
            out.into_iter().map(|r| r.map_err(|e| e.to_string())).collect()
        },
        move |der| check(der, &inputs),
    )
}

/// An OpenSSL copy: the request read, `OCSP_basic_sign` and `i2d_OCSP_RESPONSE` per
/// request.
#[cfg(feature = "peers")]
fn openssl_candidate(lib: &'static Openssl, x: &Arc<Inputs>) -> Candidate {
    let (x, inputs) = (x.clone(), x.clone());
    Candidate::checked(
        Who::Peer(lib.info().clone()),
        None,
        move || Ok((lib.ocsp_responder(&x.cert_der, x.private).map_err(peer_err)?, x.clone())),
        |(responder, x)| Ok(vec![responder.respond(&x.request).map_err(peer_err)?]),
        move |der| check(der, &inputs),
    )
}
