//! Checking a time-stamp response or token as OpenSSL's `TS_RESP_verify_response` does
//! (RFC 3161 section 2.4.2 and its relying-party duties): the status must grant a token;
//! the token must have exactly one signer, whose path to a trusted root serves time
//! stamping (section 2.3, `cert::Purpose::TimestampSign`) and whose certificate the ESS
//! signing-certificate attribute names ([`super::ess`]), with a valid signature over
//! attributes binding the TSTInfo; the TSTInfo's version must be 1, and its imprint,
//! nonce and policy those expected ([`Expect`]); a TSA name in it must name the signer.

use super::asn1::{TstInfo, small};
use super::request::Request;
use super::response::{Response, tst_info_of};
use crate::cert::{Purpose, canonical_name};
use crate::cms::{self, VerifyOptions};
use crate::{Error, Result};
use cryptocard::digest::{HashAlg, Hasher};
use std::io::Read;
use x509_cert::Certificate;
use x509_cert::ext::pkix::SubjectAltName;
use x509_cert::ext::pkix::name::GeneralName;

/// What a token is checked against (`openssl ts -verify`'s `-data`, `-digest`,
/// `-queryfile`).
pub enum Expect<'a> {
    /// The data time-stamped, read to its end and hashed with the token's algorithm.
    Data(&'a mut dyn Read),
    /// The data's hash: the imprint's bytes, whatever its algorithm.
    Digest(&'a [u8]),
    /// The request: its imprint (algorithm and bytes), its nonce and its policy where it
    /// has them.
    Request(&'a Request),
}

impl core::fmt::Debug for Expect<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Expect::Data(_) => f.write_str("Data(..)"),
            Expect::Digest(d) => f.debug_tuple("Digest").field(d).finish(),
            Expect::Request(r) => f.debug_tuple("Request").field(r).finish(),
        }
    }
}

/// The statuses' names in a verifier's report (`ts_status_text`).
const STATUS_NAMES: [&str; 6] = [
    "granted",
    "grantedWithMods",
    "rejection",
    "waiting",
    "revocationWarning",
    "revocationNotification",
];

/// Checks `response` against `expect`, with `opts`' trust anchors, untrusted
/// certificates and time; gives the signer's certificate.
pub fn verify(
    response: &Response,
    expect: Expect<'_>,
    opts: &VerifyOptions,
) -> Result<Certificate> {
    let (Some(token), Some(tst)) = (response.token(), response.tst_info.as_ref()) else {
        return Err(no_token(response));
    };
    let signer = verify_signature(token, opts)?;
    if small(&tst.version) != Some(1) {
        return Err(Error::Verify("unsupported TSTInfo version".into()));
    }
    match expect {
        Expect::Data(data) => {
            let alg = &tst.message_imprint.hash_algorithm;
            let hash = HashAlg::from_oid(&alg.oid.to_string())
                .map_err(|_| Error::Unsupported(format!("the token's hash {}", alg.oid)))?;
            let mut hasher = Hasher::new(hash);
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let n = data
                    .read(&mut buf)
                    .map_err(|e| Error::Verify(format!("reading the data: {e}")))?;
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]);
            }
            if alg.parameters.as_ref().is_some_and(|p| !p.is_null()) {
                return Err(imprint_mismatch());
            }
            check_imprint(tst, hasher.finalize().as_bytes())?;
        }
        Expect::Digest(d) => check_imprint(tst, d)?,
        Expect::Request(req) => {
            if req.policy().is_some_and(|p| p != tst.policy) {
                return Err(Error::Verify("policy mismatch".into()));
            }
            let (want, got) =
                (&req.req.message_imprint.hash_algorithm, &tst.message_imprint.hash_algorithm);
            let null_or_none = |a: &spki::AlgorithmIdentifierOwned| {
                a.parameters.as_ref().is_none_or(|p| p.is_null())
            };
            if want.oid != got.oid || !null_or_none(want) || !null_or_none(got) {
                return Err(imprint_mismatch());
            }
            check_imprint(tst, req.digest())?;
            if let Some(n) = req.nonce() {
                match &tst.nonce {
                    None => return Err(Error::Verify("nonce not returned".into())),
                    Some(got) if got.as_bytes() != n => {
                        return Err(Error::Verify("nonce mismatch".into()));
                    }
                    Some(_) => {}
                }
            }
        }
    }
    if tst.tsa.as_ref().is_some_and(|name| !names_signer(name, &signer)) {
        return Err(Error::Verify("tsa name mismatch".into()));
    }
    Ok(signer)
}

/// The error of a response without a token: its status, texts and failures.
fn no_token(response: &Response) -> Error {
    let status = response
        .status()
        .and_then(|s| usize::try_from(s).ok())
        .and_then(|s| STATUS_NAMES.get(s).copied())
        .unwrap_or("unknown code");
    let text = match response.status_text() {
        [] => "unspecified".to_string(),
        texts => texts.join("/"),
    };
    let failures: Vec<&str> = response.failures().iter().map(|f| f.name()).collect();
    let failures = if failures.is_empty() { "unspecified".to_string() } else { failures.join(",") };
    Error::Verify(format!(
        "no time stamp token: status code: {status}, status text: {text}, failure codes: {failures}"
    ))
}

/// The token's one signer, its path checked for time stamping, its signing-certificate
/// attribute against that path, and its signature.
fn verify_signature(token: &[u8], opts: &VerifyOptions) -> Result<Certificate> {
    tst_info_of(token)?;
    let checked = cms::verify_for(token, None, opts, Purpose::TimestampSign)?;
    let [signer] = checked.signers.as_slice() else {
        return Err(Error::Verify("there must be one signer".into()));
    };
    let attrs = signer
        .info
        .signed_attrs
        .as_ref()
        .ok_or_else(|| Error::Verify("no signed attributes".into()))?;
    super::ess::check(attrs, &signer.path)?;
    Ok(signer.path[0].clone())
}

fn imprint_mismatch() -> Error {
    Error::Verify("message imprint mismatch".into())
}

fn check_imprint(tst: &TstInfo, digest: &[u8]) -> Result<()> {
    match tst.message_imprint.hashed_message.as_bytes() == digest {
        true => Ok(()),
        false => Err(imprint_mismatch()),
    }
}

/// Whether the token's TSA name names `signer`: its subject, or one of its alternative
/// names (OpenSSL's `ts_check_signer_name`).
fn names_signer(name: &GeneralName, signer: &Certificate) -> bool {
    let tbs = signer.tbs_certificate();
    if let GeneralName::DirectoryName(dn) = name
        && let (Ok(a), Ok(b)) = (canonical_name(dn), canonical_name(tbs.subject()))
        && a == b
    {
        return true;
    }
    match tbs.get_extension::<SubjectAltName>() {
        Ok(Some((_, san))) => san.0.iter().any(|n| n == name),
        _ => false,
    }
}
