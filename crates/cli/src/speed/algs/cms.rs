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
use crate::speed::row::{Candidate, Context, Row, Who, bench};
#[cfg(feature = "peers")]
use compare::openssl::Openssl;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::cert::{self, CertBuilder, Certificate};
use cryptocard_pki::cms::{self, SignOptions, Signer, VerifyOptions};
use cryptocard_pki::sig::SigScheme;
use std::sync::Arc;

/// The document size.
const DOC_LEN: usize = 1024;

/// The key sizes measured.
const SIZES: [(u32, &str); 3] = [(2048, "rsa2048"), (3072, "rsa3072"), (4096, "rsa4096")];

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
    SIZES
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
            let mut candidates = vec![match ctx.batch {
                Some(n) => ours_batched(n, &x),
                None => ours(&x),
            }];
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

/// Ours, one document per call.
fn ours(x: &Arc<Inputs>) -> Candidate {
    let x = x.clone();
    Candidate::new(Who::Ours, move || {
        let signer = [signer(&x)?];
        let first = cms::sign(&x.doc, &signer, &options()).map_err(|e| e.to_string())?;
        check(&first, &x.doc, &x.cert)?;
        let x = x.clone();
        Ok(bench(
            signer,
            move |signer| {
                cms::sign(&x.doc, signer, &options()).map(drop).map_err(|e| e.to_string())
            },
            |_| None,
        ))
    })
}

/// Ours, `n` documents per call on the measuring thread (`cms::sign_batch`).
fn ours_batched(n: usize, x: &Arc<Inputs>) -> Candidate {
    let x = x.clone();
    let make = move || {
        let signer = signer(&x)?;
        let docs: Vec<Vec<u8>> = (0..n).map(|_| x.doc.clone()).collect();
        let x = x.clone();
        let mut checked = false;
        Ok(bench(
            (signer, docs),
            move |(signer, docs)| {
                let refs: Vec<&[u8]> = docs.iter().map(Vec::as_slice).collect();
                for der in cms::sign_batch(&refs, signer, &options()) {
                    let der = der.map_err(|e| e.to_string())?;
                    if !checked {
                        check(&der, &x.doc, &x.cert)?;
                        checked = true;
                    }
                }
                Ok(())
            },
            |_| None,
        ))
    };
    Candidate { who: Who::Ours, batch: Some(n), make: Box::new(make) }
}

/// An OpenSSL copy: `CMS_sign` and `i2d_CMS_ContentInfo` per document.
#[cfg(feature = "peers")]
fn openssl_candidate(lib: &'static Openssl, x: &Arc<Inputs>) -> Candidate {
    let x = x.clone();
    Candidate::peer(lib.info(), move || {
        let mut signer = lib.cms_signer(&x.cert_der, x.private).map_err(peer_err)?;
        let first = signer.sign(&x.doc, true).map_err(peer_err)?;
        check(&first, &x.doc, &x.cert)?;
        let x = x.clone();
        Ok(bench(
            signer,
            move |signer| signer.sign(&x.doc, true).map(drop).map_err(peer_err),
            |_| None,
        ))
    })
}
