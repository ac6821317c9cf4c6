//! `ts-reply`: a time-stamp token per request, as a time-stamping authority (RFC 3161)
//! makes them (`cryptocard ts -reply` against libcrypto's `TS_RESP_create_response`, the
//! API behind `openssl ts -reply`), with the RSA-2048, -3072 and -4096 speed keys and a
//! self-signed TSA certificate made for each key (the same DER for every implementation).
//!
//! Each call answers one request (SHA-256 imprint, a nonce, the certificate asked for):
//! the request read and checked, the TSTInfo (policy, serial, time, nonce), the signed
//! attributes (content type, signing time, message digest, the SHA-256 ESS
//! signing-certificate attribute), their PKCS#1 v1.5 SHA-256 signature, the TimeStampResp
//! out as DER. With `-batch N`, ours answers N requests per call with `Tsa::reply_batch`
//! on the measuring thread (one `rsa::private_batch`), as a TSA draining a queue would;
//! OpenSSL has no batch interface and stays one at a time.
//!
//! The first response of each implementation is checked with our own verifier (status,
//! signature, ESS binding, imprint and nonce against the request) before timing.

#[cfg(feature = "peers")]
use super::peer_err;
use crate::speed::row::{Candidate, Context, Row, Who};
#[cfg(feature = "peers")]
use compare::openssl::Openssl;
use const_oid::ObjectIdentifier;
use cryptocard::digest::{HashAlg, Hasher};
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::cert::{self, CertBuilder, Certificate, Profile};
use cryptocard_pki::cms::VerifyOptions;
use cryptocard_pki::ts::{self, Expect, QueryOptions, Request, Response, Tsa};
use std::sync::Arc;
use std::time::SystemTime;

/// The TSA's policy.
const POLICY: &str = "1.2.3.4.1";

/// What every candidate of one row gets.
struct Inputs {
    private: &'static [u8],
    cert: Certificate,
    #[cfg_attr(not(feature = "peers"), allow(dead_code))]
    cert_der: Vec<u8>,
    request: Vec<u8>,
}

/// Checks that `der` grants a token for `x.request` signed under `x.cert`.
fn check(der: &[u8], x: &Inputs) -> Result<(), String> {
    let resp = Response::parse(der).map_err(|e| format!("response: {e}"))?;
    let request = Request::parse(&x.request).map_err(|e| e.to_string())?;
    let opts =
        VerifyOptions { no_chain: true, untrusted: vec![x.cert.clone()], ..Default::default() };
    ts::verify(&resp, Expect::Request(&request), &opts)
        .map(drop)
        .map_err(|e| format!("the token does not verify: {e}"))
}

/// The rows of `ts-reply`, one per key size.
pub fn rows(ctx: &Context<'_>) -> Result<Vec<Row>, String> {
    super::PKI_SIZES
        .iter()
        .map(|&(bits, op)| {
            let (private, _) = super::rsa::speed_key(bits).ok_or("internal error: no key")?;
            let err = |e: &dyn std::fmt::Display| format!("ts-reply {op}: {e}");
            let key = RsaPrivateKey::from_pkcs8_der(private).map_err(|e| err(&e))?;
            let cert = tsa_cert(&key).map_err(|e| err(&e))?;
            let cert_der = cert::to_der(&cert).map_err(|e| err(&e))?;
            let digest = Hasher::digest(HashAlg::Sha256, &bits.to_be_bytes());
            let opts = QueryOptions { cert_req: true, ..Default::default() };
            let request =
                ts::query(HashAlg::Sha256, digest.as_bytes(), &opts).map_err(|e| err(&e))?;
            let x = Arc::new(Inputs { private, cert, cert_der, request });
            let mut candidates = vec![ours(&x, ctx.batch)];
            #[cfg(feature = "peers")]
            candidates.extend(ctx.peers.openssl.iter().map(|&lib| openssl_candidate(lib, &x)));
            Ok(Row::new("ts-reply", op, u64::from(bits), None, candidates))
        })
        .collect()
}

/// A self-signed TSA certificate for `key`: a critical extendedKeyUsage of timeStamping.
fn tsa_cert(key: &RsaPrivateKey) -> cryptocard_pki::Result<Certificate> {
    let subject = cert::parse_subject("/CN=cryptocard speed TSA")?;
    let eku = cert::conf_extension(
        "extendedKeyUsage",
        "critical,timeStamping",
        &cert::ExtContext::NONE,
        &[],
    )?
    .ok_or_else(|| cryptocard_pki::Error::Malformed("no extendedKeyUsage".into()))?;
    CertBuilder::new(subject, key.public_key())?
        .profile(Profile::Leaf)
        .extension(eku)
        .days(365)
        .self_signed(key)
}

fn tsa(x: &Inputs) -> Result<Tsa, String> {
    let key = RsaPrivateKey::from_pkcs8_der(x.private).map_err(|e| e.to_string())?;
    let policy = ObjectIdentifier::new(POLICY).map_err(|e| e.to_string())?;
    Tsa::new(Arc::new(key), x.cert.clone(), policy).map_err(|e| e.to_string())
}

/// The serial numbers of ours: one fixed number, as OpenSSL's default serial callback
/// gives.
fn serial() -> Option<Vec<u8>> {
    Some(vec![1])
}

/// Ours: one request per call, or `batch` per call on the measuring thread
/// (`Tsa::reply_batch`).
fn ours(x: &Arc<Inputs>, batch: Option<usize>) -> Candidate {
    let (x, inputs) = (x.clone(), x.clone());
    Candidate::checked(
        Who::Ours,
        batch,
        move || Ok((tsa(&x)?, x.clone())),
        move |(tsa, x): &mut (Tsa, Arc<Inputs>)| {
            let now = SystemTime::now();
            let replies = match batch {
                None => vec![tsa.reply(&x.request, &mut serial, now)],
                Some(n) => tsa.reply_batch(&vec![x.request.as_slice(); n], &mut serial, now),
            };
            replies.into_iter().map(|r| r.map(|r| r.der).map_err(|e| e.to_string())).collect()
        },
        move |der| check(der, &inputs),
    )
}

/// An OpenSSL copy: `TS_RESP_create_response` and `i2d_TS_RESP` per request.
#[cfg(feature = "peers")]
fn openssl_candidate(lib: &'static Openssl, x: &Arc<Inputs>) -> Candidate {
    let (x, inputs) = (x.clone(), x.clone());
    Candidate::checked(
        Who::Peer(lib.info().clone()),
        None,
        move || Ok((lib.tsa(&x.cert_der, x.private, POLICY).map_err(peer_err)?, x.clone())),
        |(tsa, x)| Ok(vec![tsa.respond(&x.request).map_err(peer_err)?]),
        move |der| check(der, &inputs),
    )
}
