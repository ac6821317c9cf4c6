//! `cms-sign`: a CMS SignedData per document, as a document-signing service makes them
//! (`cryptocard cms -sign` against libcrypto's `CMS_sign`, the API behind `openssl cms
//! -sign`), with the RSA-2048, -3072 and -4096 speed keys and a self-signed certificate
//! made for each key (the same DER for every implementation).
//!
//! Each call signs one 1 KiB document: SHA-256 of it, the signed attributes (content type,
//! signing time, message digest, S/MIME capabilities), their PKCS#1 v1.5 signature, the
//! certificate included, detached, binary content, DER out. With `-batch N`, ours signs N
//! documents per call with `cms::sign_batch` on the measuring thread (one
//! `rsa::private_batch`, as the `rsaN` rows' `-batch`), so their RSA operations batch per
//! core; OpenSSL has no batch interface and stays one at a time. (`cms -sign` with many
//! inputs goes through the engine, `cms::sign_many`, to use every core.)
//!
//! The first output of each implementation is verified with our own verifier (signature
//! and message digest) before timing; outputs differ (signing time, PSS-free but with
//! the time attribute), so they are not compared byte for byte.

#[cfg(feature = "peers")]
use super::peer_err;
use super::test_bytes;
use crate::speed::row::{Candidate, Context, Row, Who};
#[cfg(feature = "peers")]
use compare::openssl::Openssl;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::cert::{self, CertBuilder, Certificate};
use cryptocard_pki::cms::{self, SignOptions, Signer, VerifyOptions};
use cryptocard_pki::sig::SigScheme;
use std::sync::Arc;

/// The document size.
const DOC_LEN: usize = 1024;

/// What every candidate of one row gets.
struct Inputs {
    private: &'static [u8],
    cert: Certificate,
    #[cfg_attr(not(feature = "peers"), allow(dead_code))]
    cert_der: Vec<u8>,
    doc: Vec<u8>,
}

fn options() -> SignOptions {
    SignOptions { detached: true, ..SignOptions::default() }
}

/// Checks that `der` is a valid signature over `doc` by `cert`, with our verifier.
fn check(der: &[u8], doc: &[u8], cert: &Certificate) -> Result<(), String> {
    let opts =
        VerifyOptions { no_chain: true, untrusted: vec![cert.clone()], ..Default::default() };
    cms::verify(der, Some(doc), &opts)
        .map(|_| ())
        .map_err(|e| format!("output does not verify: {e}"))
}

/// The rows of `cms-sign`, one per key size.
pub fn rows(ctx: &Context<'_>) -> Result<Vec<Row>, String> {
    super::PKI_SIZES
        .iter()
        .map(|&(bits, op)| {
            let (private, _) = super::rsa::speed_key(bits).ok_or("internal error: no key")?;
            let err = |e: &dyn std::fmt::Display| format!("cms-sign {op}: {e}");
            let key = RsaPrivateKey::from_pkcs8_der(private).map_err(|e| err(&e))?;
            let subject = cert::parse_subject("/CN=cryptocard speed").map_err(|e| err(&e))?;
            let cert = CertBuilder::new(subject, key.public_key())
                .and_then(|b| b.days(365).self_signed(&key))
                .map_err(|e| err(&e))?;
            let cert_der = cert::to_der(&cert).map_err(|e| err(&e))?;
            let doc = test_bytes(u64::from(bits), DOC_LEN);
            let x = Arc::new(Inputs { private, cert, cert_der, doc });
            let mut candidates = vec![ours(&x, ctx.batch)];
            #[cfg(feature = "peers")]
            candidates.extend(ctx.peers.openssl.iter().map(|&lib| openssl_candidate(lib, &x)));
            Ok(Row::new("cms-sign", op, u64::from(bits), None, candidates))
        })
        .collect()
}

fn signer(x: &Inputs) -> Result<Signer, String> {
    let key = RsaPrivateKey::from_pkcs8_der(x.private).map_err(|e| e.to_string())?;
    Ok(Signer {
        key: Arc::new(key),
        cert: x.cert.clone(),
        scheme: SigScheme::DEFAULT,
        by_key_id: false,
    })
}

/// Ours: one document per call, or `batch` per call on the measuring thread
/// (`cms::sign_batch`).
fn ours(x: &Arc<Inputs>, batch: Option<usize>) -> Candidate {
    let (x, inputs) = (x.clone(), x.clone());
    Candidate::checked(
        Who::Ours,
        batch,
        move || Ok(([signer(&x)?], x.clone())),
        move |(signer, x): &mut ([Signer; 1], Arc<Inputs>)| {
            let out = match batch {
                None => vec![cms::sign(&x.doc, &signer[..], &options())],
                Some(n) => {
                    let docs = vec![x.doc.as_slice(); n];
                    cms::sign_batch(&docs, &signer[0], &options())
                }
            };
            out.into_iter().map(|r| r.map_err(|e| e.to_string())).collect()
        },
        move |der| check(der, &inputs.doc, &inputs.cert),
    )
}

/// An OpenSSL copy: `CMS_sign` and `i2d_CMS_ContentInfo` per document.
#[cfg(feature = "peers")]
fn openssl_candidate(lib: &'static Openssl, x: &Arc<Inputs>) -> Candidate {
    let (x, inputs) = (x.clone(), x.clone());
    Candidate::checked(
        Who::Peer(lib.info().clone()),
        None,
        move || Ok((lib.cms_signer(&x.cert_der, x.private).map_err(peer_err)?, x.clone())),
        |(signer, x)| Ok(vec![signer.sign(&x.doc, true).map_err(peer_err)?]),
        move |der| check(der, &inputs.doc, &inputs.cert),
    )
}
