//! Checking certificates: one issuer's signature ([`verify_issued_by`]) and a path from a
//! leaf to a trusted certificate ([`verify_chain`], [`verify_chain_for`]), a small subset
//! of RFC 5280 section 6 path validation: names chain (issuer of each = subject of the
//! next), signatures verify, and every certificate, the trust anchor included, passes the
//! checks of `checks.rs` (validity, CA constraints, critical extensions, key size) and of
//! its [`Purpose`]. Policies, name constraints and revocation are not checked.
//!
//! Failures read as OpenSSL's `X509_verify_cert_error_string` words them ("certificate
//! has expired", "unable to get local issuer certificate", ...), followed by the depth and
//! subject of the certificate concerned, so that scripts and people recognise them.
//!
//! Work is bounded, because a CMS message brings its own certificates and an attacker
//! chooses them (decoys named like the real issuer, with 16384-bit keys):
//!
//! - the path is at most [`MAX_DEPTH`] certificates;
//! - issuer candidates are first sorted by key identifier: one whose subjectKeyIdentifier
//!   equals the child's authorityKeyIdentifier (RFC 5280 4.2.1.1) is tried first, and one
//!   whose identifier differs is not tried at all (OpenSSL's `X509_check_akid`);
//! - the child's to-be-signed part is encoded and hashed once, not once per candidate;
//! - at most [`MAX_FAILED_SIGNATURES`] signature checks may fail in one [`PathBudget`],
//!   which the signers of one CMS message share; and a (certificate, issuer) pair checked
//!   once is not checked again under the same budget.

use super::checks::{check_ca, check_cert};
use super::name::display_name;
use super::purpose::Purpose;
use crate::sig::{self, SigScheme};
use crate::{Error, Result};
use cryptocard::digest::{HashAlg, Hasher};
use der::Encode;
use std::time::SystemTime;
use x509_cert::Certificate;
use x509_cert::ext::pkix::{AuthorityKeyIdentifier, SubjectKeyIdentifier};

/// The longest path accepted, leaf and trust anchor included (OpenSSL's default
/// `-verify_depth` is 100; real paths have 2 to 4 certificates).
pub const MAX_DEPTH: usize = 10;

/// The most signature checks that may fail in one verification (one [`PathBudget`]).
///
/// An honest path fails a check only where two certificates share the issuer's name and
/// neither names its key by identifier (or both name it alike): a CA re-keyed under the
/// same name, a cross-certificate. That happens once or twice in a path, and a failed
/// pair is remembered, so the signers of one message that share a path pay for it once.
/// Sixteen is several times what honest input needs, and holds a hostile message to
/// sixteen failed RSA verifications, whatever its decoys, depth and signers: at 16384
/// bits with a 64-bit exponent (the largest key cryptocard reads) a few milliseconds
/// each, where one per decoy, depth and signer came to thousands of them.
pub const MAX_FAILED_SIGNATURES: usize = 16;

/// The signature-check work of one verification, shared by its path searches: the
/// failures left, and the (certificate, issuer) pairs already checked, as SHA-256
/// fingerprints of both.
#[derive(Clone, Debug)]
pub struct PathBudget {
    failures_left: usize,
    checks: usize,
    checked: Vec<([u8; 32], [u8; 32], bool)>,
}

impl Default for PathBudget {
    fn default() -> PathBudget {
        PathBudget { failures_left: MAX_FAILED_SIGNATURES, checks: 0, checked: Vec::new() }
    }
}

impl PathBudget {
    /// A budget of [`MAX_FAILED_SIGNATURES`] failed checks.
    pub fn new() -> PathBudget {
        PathBudget::default()
    }

    /// The signature checks (RSA verifications) made so far.
    pub fn signature_checks(&self) -> usize {
        self.checks
    }

    fn known(&self, child: &[u8; 32], issuer: &[u8; 32]) -> Option<bool> {
        self.checked.iter().find(|(c, i, _)| c == child && i == issuer).map(|&(.., ok)| ok)
    }
}

/// Checks that `issuer` issued `cert`: the names chain, `cert`'s outer
/// signatureAlgorithm equals the signed one (RFC 5280 4.1.1.2), and its signature
/// verifies with `issuer`'s key.
pub fn verify_issued_by(cert: &Certificate, issuer: &Certificate) -> Result<()> {
    if cert.tbs_certificate().issuer() != issuer.tbs_certificate().subject() {
        return Err(Error::Verify("subject issuer mismatch".into()));
    }
    Signed::new(cert)?.verified_by(issuer)
}

/// Builds and checks a path from `leaf` through `intermediates` to one of `trusted`, at
/// time `at`, for no particular purpose. Returns the path, leaf first, trust anchor last.
pub fn verify_chain(
    leaf: &Certificate,
    intermediates: &[Certificate],
    trusted: &[Certificate],
    at: SystemTime,
) -> Result<Vec<Certificate>> {
    verify_chain_for(leaf, intermediates, trusted, at, Purpose::Any, &mut PathBudget::new())
}

/// [`verify_chain`] for `purpose`, its signature checks drawn from `budget`.
pub fn verify_chain_for(
    leaf: &Certificate,
    intermediates: &[Certificate],
    trusted: &[Certificate],
    at: SystemTime,
    purpose: Purpose,
    budget: &mut PathBudget,
) -> Result<Vec<Certificate>> {
    let mut path = vec![leaf.clone()];
    loop {
        let depth = path.len() - 1;
        let current = &path[depth];
        let fail = |why: &str| fail_at(why, depth, current);
        check_cert(current, depth, at, purpose).map_err(fail)?;
        if trusted.contains(current) {
            return Ok(path);
        }
        if path.len() >= MAX_DEPTH {
            return Err(fail("certificate chain too long"));
        }
        let (issuer, anchor) =
            find_issuer(current, &path, intermediates, trusted, budget).map_err(|e| fail(&e))?;
        let issuer_depth = depth + 1;
        check_ca(&issuer, depth, anchor).map_err(|why| fail_at(why, issuer_depth, &issuer))?;
        path.push(issuer);
        if anchor {
            let top = &path[issuer_depth];
            check_cert(top, issuer_depth, at, purpose)
                .map_err(|why| fail_at(why, issuer_depth, top))?;
            return Ok(path);
        }
    }
}

fn fail_at(why: &str, depth: usize, cert: &Certificate) -> Error {
    Error::Verify(format!(
        "{why} (depth {depth}: {})",
        display_name(cert.tbs_certificate().subject())
    ))
}

/// The issuer of `current` among `trusted` and `intermediates` (not already in `path`),
/// and whether it is a trust anchor; or why there is none.
fn find_issuer(
    current: &Certificate,
    path: &[Certificate],
    intermediates: &[Certificate],
    trusted: &[Certificate],
    budget: &mut PathBudget,
) -> Result<(Certificate, bool), String> {
    let tbs = current.tbs_certificate();
    let aki = tbs
        .get_extension::<AuthorityKeyIdentifier>()
        .ok()
        .flatten()
        .and_then(|(_, aki)| aki.key_identifier);
    // Rank 0: the key identifiers match; rank 1: one of them is absent. A candidate whose
    // identifier differs from the one the child names is no candidate.
    let mut candidates: Vec<(u8, &Certificate, bool)> = trusted
        .iter()
        .map(|c| (c, true))
        .chain(intermediates.iter().map(|c| (c, false)))
        .filter(|(c, _)| c.tbs_certificate().subject() == tbs.issuer() && !path.contains(c))
        .filter_map(|(c, anchor)| {
            let ski = c.tbs_certificate().get_extension::<SubjectKeyIdentifier>().ok().flatten();
            match (&aki, ski) {
                (Some(a), Some((_, s))) if *a != s.0 => None,
                (Some(_), Some(_)) => Some((0, c, anchor)),
                _ => Some((1, c, anchor)),
            }
        })
        .collect();
    candidates.sort_by_key(|&(rank, ..)| rank);
    let depth = path.len() - 1;
    let self_issued = tbs.issuer() == tbs.subject();
    if candidates.is_empty() {
        return Err(no_issuer(self_issued, false, depth).into());
    }
    let signed = Signed::new(current).map_err(|_| no_issuer(self_issued, true, depth))?;
    for &(_, candidate, anchor) in &candidates {
        let issuer_fp = fingerprint(candidate)?;
        let ok = match budget.known(&signed.fingerprint, &issuer_fp) {
            Some(ok) => ok,
            None => {
                if budget.failures_left == 0 {
                    return Err(format!(
                        "certificate signature failure: gave up after {MAX_FAILED_SIGNATURES} \
                         failed signature checks"
                    ));
                }
                budget.checks += 1;
                let ok = signed.verified_by(candidate).is_ok();
                budget.failures_left -= usize::from(!ok);
                budget.checked.push((signed.fingerprint, issuer_fp, ok));
                ok
            }
        };
        if ok {
            return Ok((candidate.clone(), anchor));
        }
    }
    Err(no_issuer(self_issued, true, depth).into())
}

/// Why no issuer was found, in OpenSSL's words.
fn no_issuer(self_issued: bool, sig_failure: bool, depth: usize) -> &'static str {
    match (self_issued, sig_failure, depth) {
        (_, true, _) => "certificate signature failure",
        (true, _, 0) => "self-signed certificate",
        (true, _, _) => "self-signed certificate in certificate chain",
        (false, _, _) => "unable to get local issuer certificate",
    }
}

fn fingerprint(cert: &Certificate) -> Result<[u8; 32], String> {
    let der = cert.to_der().map_err(|e| e.to_string())?;
    let mut fp = [0u8; 32];
    fp.copy_from_slice(Hasher::digest(HashAlg::Sha256, &der).as_bytes());
    Ok(fp)
}

/// A certificate ready to have its signature checked against candidate issuers: its
/// to-be-signed part encoded and hashed once.
struct Signed<'a> {
    scheme: SigScheme,
    digest: Vec<u8>,
    signature: &'a [u8],
    fingerprint: [u8; 32],
}

impl<'a> Signed<'a> {
    fn new(cert: &'a Certificate) -> Result<Signed<'a>> {
        let tbs = cert.tbs_certificate();
        if cert.signature_algorithm() != tbs.signature() {
            return Err(Error::Verify(
                "certificate signature algorithm does not match the signed one".into(),
            ));
        }
        let scheme = SigScheme::from_algorithm_identifier(cert.signature_algorithm())?;
        let signature = cert
            .signature()
            .as_bytes()
            .ok_or_else(|| Error::Malformed("signature is not a whole number of bytes".into()))?;
        let digest = Hasher::digest(scheme.hash(), &tbs.to_der()?).as_bytes().to_vec();
        let fingerprint = fingerprint(cert).map_err(Error::Malformed)?;
        Ok(Signed { scheme, digest, signature, fingerprint })
    }

    fn verified_by(&self, issuer: &Certificate) -> Result<()> {
        let key = sig::public_key_from_spki(issuer.tbs_certificate().subject_public_key_info())?;
        sig::verify_digest(&key, &self.scheme, &self.digest, self.signature)
            .map_err(|_| Error::Verify("certificate signature failure".into()))
    }
}
