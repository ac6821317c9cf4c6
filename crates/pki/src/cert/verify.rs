//! Checking certificates: one issuer's signature ([`verify_issued_by`]) and a path from a
//! leaf to a trusted certificate ([`verify_chain`], [`verify_chain_for`]), a small subset
//! of RFC 5280 section 6 path validation: names chain (issuer of each = subject of the
//! next), signatures verify, and every certificate, the trust anchor included, passes the
//! checks of `checks.rs` (validity, CA constraints, critical extensions, key size) and of
//! its [`Purpose`], and, if asked, revocation by the CRLs given (`crl.rs`, RFC 5280
//! section 6.3), then the name constraints of `name_check.rs` and the policies of
//! `policy.rs`.
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

use super::checks::{
    check_cert_sign, check_critical, check_digest_level, check_is_ca, check_key_level,
    check_key_size, check_path_len, check_time, self_signed,
};
use super::crl::{Revocation, check_cert};
use super::failure::{PathError, PathFailure};
use super::host::host_matches;
use super::name_check::{self, Constraints};
use super::peer_id::{email_matches, ip_matches};
use super::policy::{self, PolicyInputs, check_policies};
use super::purpose::Purpose;
use super::strict;
use crate::sig::{self, SigScheme};
use crate::{Error, Result};
use cryptocard::digest::{HashAlg, Hasher};
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

/// [`verify_chain`] for `purpose`, its signature checks drawn from `budget`. A failure
/// of the path itself is [`Error::Path`], which says why and where.
pub fn verify_chain_for(
    leaf: &Certificate,
    intermediates: &[Certificate],
    trusted: &[Certificate],
    at: SystemTime,
    purpose: Purpose,
    budget: &mut PathBudget,
) -> Result<Vec<Certificate>> {
    let checks = PathChecks::new(at, purpose);
    verify_chain_report(leaf, intermediates, trusted, &checks, budget)?.into_result()
}

/// What a path is checked for, beyond its issuers' signatures, and how far.
#[derive(Clone, Copy)]
pub struct PathChecks<'a> {
    /// The time at which every certificate must be valid.
    pub at: SystemTime,
    /// What the path is for.
    pub purpose: Purpose,
    /// The DNS name the end entity must be for, if any ([`host_matches`]).
    pub host: Option<&'a str>,
    /// The email address the end entity must be for, if any ([`email_matches`]).
    pub email: Option<&'a str>,
    /// The IP address (4 or 16 bytes) the end entity must be for, if any
    /// ([`ip_matches`]).
    pub ip: Option<&'a [u8]>,
    /// The failures after which the checks go on (none for [`verify_chain_for`]).
    pub go_on: &'a dyn Fn(PathFailure) -> bool,
    /// The revocation check, if any ([`Revocation`]: OpenSSL's `-crl_check`).
    pub revocation: Option<Revocation<'a>>,
    /// The relying party's inputs to policy processing (`policy.rs`).
    pub policy: PolicyInputs<'a>,
    /// Certificates' and CRLs' times are checked (all but OpenSSL's `-no_check_time`).
    pub check_time: bool,
    /// Unhandled critical extensions of certificates and CRLs are let by (OpenSSL's
    /// `-ignore_critical`).
    pub ignore_critical: bool,
    /// The conformance checks of `strict.rs` (OpenSSL's `-x509_strict`).
    pub strict: bool,
    /// The security level of keys and signatures (OpenSSL's `-auth_level`,
    /// `security_level.rs`): every key of the path, and every signature but the trust
    /// anchor's own, of at least its bits, the end entity's key checked before the path
    /// is built. `None`: keys of [`MIN_RSA_BITS`](super::MIN_RSA_BITS) bits at least,
    /// checked after the extensions, and any digest (OpenSSL's `verify` checks neither
    /// unless asked).
    pub auth_level: Option<u8>,
    /// The most intermediate CAs between the end entity and the trust anchor (OpenSSL's
    /// `-verify_depth`); never more than [`MAX_DEPTH`] certificates in all.
    pub depth_limit: Option<usize>,
    /// The trust anchor's own signature is checked where it is self-signed (OpenSSL's
    /// `-check_ss_sig`).
    pub check_self_signature: bool,
}

impl<'a> PathChecks<'a> {
    /// Checks at `at` for `purpose`, for no particular name, stopping at the first
    /// failure, without revocation.
    pub fn new(at: SystemTime, purpose: Purpose) -> PathChecks<'a> {
        PathChecks {
            at,
            purpose,
            host: None,
            email: None,
            ip: None,
            go_on: &|_| false,
            revocation: None,
            policy: PolicyInputs::default(),
            check_time: true,
            ignore_critical: false,
            strict: false,
            auth_level: None,
            depth_limit: None,
            check_self_signature: false,
        }
    }
}

impl core::fmt::Debug for PathChecks<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PathChecks")
            .field("at", &self.at)
            .field("purpose", &self.purpose)
            .field("host", &self.host)
            .field("email", &self.email)
            .field("ip", &self.ip)
            .field("revocation", &self.revocation)
            .field("policy", &self.policy)
            .field("check_time", &self.check_time)
            .field("ignore_critical", &self.ignore_critical)
            .field("strict", &self.strict)
            .field("auth_level", &self.auth_level)
            .field("depth_limit", &self.depth_limit)
            .field("check_self_signature", &self.check_self_signature)
            .finish_non_exhaustive()
    }
}

/// What [`verify_chain_report`] found: the path as far as it was built (leaf first; a
/// trust anchor last if the path was found) and its failures in the order found.
#[derive(Clone, Debug)]
pub struct PathReport {
    /// The path, leaf first.
    pub path: Vec<Certificate>,
    /// The failures, none if the path verified.
    pub failures: Vec<PathError>,
}

impl PathReport {
    /// The path if it verified, else its first failure.
    pub fn into_result(self) -> Result<Vec<Certificate>> {
        match self.failures.into_iter().next() {
            None => Ok(self.path),
            Some(first) => Err(Error::Path(first)),
        }
    }
}

/// [`verify_chain_for`] with `checks`, going on past each failure for which
/// `checks.go_on` holds, as `openssl verify`'s callback goes on past some (an expired
/// certificate, a CA flag, an unhandled critical extension...), so that every failure up
/// to the first that stops is reported. Errors other than the path's own (a certificate
/// that cannot be encoded) are `Err`.
pub fn verify_chain_report(
    leaf: &Certificate,
    intermediates: &[Certificate],
    trusted: &[Certificate],
    checks: &PathChecks<'_>,
    budget: &mut PathBudget,
) -> Result<PathReport> {
    let mut r = Reporter { failures: Vec::new(), go_on: checks.go_on };
    // At a security level, a weak end-entity key stops the work before it starts.
    if let Some(level) = checks.auth_level {
        let leaf_path = [leaf.clone()];
        if r.check(&leaf_path, 0, check_key_level(leaf, 0, level)).is_err() {
            return Ok(PathReport { path: leaf_path.to_vec(), failures: r.failures });
        }
    }
    let longest = checks.depth_limit.map_or(MAX_DEPTH, |d| d.saturating_add(2).min(MAX_DEPTH));
    let Built { path, stopped, bad_signatures } =
        build_path(leaf, intermediates, trusted, longest, budget)?;
    let anchored = stopped.is_none();
    // Stopped or not, what was found is the report.
    let _ = match stopped {
        Some(e) => r.record(e),
        None => Ok(()),
    }
    .and_then(|()| check_path(&path, anchored, &bad_signatures, checks, &mut r));
    Ok(PathReport { path, failures: r.failures })
}

/// Collects a path's failures; `Err` once one does not go on.
struct Reporter<'a> {
    failures: Vec<PathError>,
    go_on: &'a dyn Fn(PathFailure) -> bool,
}

impl Reporter<'_> {
    fn record(&mut self, e: PathError) -> core::result::Result<(), ()> {
        let go_on = (self.go_on)(e.failure);
        self.failures.push(e);
        if go_on { Ok(()) } else { Err(()) }
    }

    fn check(
        &mut self,
        path: &[Certificate],
        depth: usize,
        result: core::result::Result<(), PathFailure>,
    ) -> core::result::Result<(), ()> {
        result.or_else(|failure| self.record(PathError::new(failure, depth, &path[depth])))
    }
}

/// A path as far as it was built.
struct Built {
    /// Leaf first.
    path: Vec<Certificate>,
    /// Why no trust anchor was reached, if none was.
    stopped: Option<PathError>,
    /// The depths whose certificate the next one up did not sign.
    bad_signatures: Vec<usize>,
}

/// The path from `leaf` up to the first trusted certificate: each issuer found by name
/// and key identifier, preferring one whose signature over the certificate below it
/// verifies. Where none does, the path goes on through the first candidate and the
/// failed signature is reported where OpenSSL's `internal_verify` reports it, after the
/// checks that precede that (OpenSSL builds its chain by names and key identifiers and
/// checks the signatures last). Where no trusted certificate is reached, the path as far
/// as it got and why it stopped.
fn build_path(
    leaf: &Certificate,
    intermediates: &[Certificate],
    trusted: &[Certificate],
    longest: usize,
    budget: &mut PathBudget,
) -> Result<Built> {
    let mut built = Built { path: vec![leaf.clone()], stopped: None, bad_signatures: Vec::new() };
    loop {
        let path = &mut built.path;
        let current = &path[path.len() - 1];
        if trusted.contains(current) {
            return Ok(built);
        }
        if path.len() >= longest {
            let e = PathError::new(PathFailure::TooLong, path.len() - 1, current);
            built.stopped = Some(e);
            return Ok(built);
        }
        match find_issuer(current, path, intermediates, trusted, budget) {
            Ok((issuer, signed)) => {
                if !signed {
                    built.bad_signatures.push(path.len() - 1);
                }
                path.push(issuer);
            }
            Err(Error::Path(e)) => {
                built.stopped = Some(e);
                return Ok(built);
            }
            Err(e) => return Err(e),
        }
    }
}

/// The checks of `checks.rs` over a built path (leaf first; a trust anchor last if
/// `anchored`), and the host name, in the order of OpenSSL's `check_extensions`,
/// `check_id` and `internal_verify` (see there).
fn check_path(
    path: &[Certificate],
    anchored: bool,
    bad_signatures: &[usize],
    checks: &PathChecks<'_>,
    r: &mut Reporter<'_>,
) -> core::result::Result<(), ()> {
    let (at, purpose) = (checks.at, checks.purpose);
    let top = path.len() - 1;
    for (depth, cert) in path.iter().enumerate() {
        if !checks.ignore_critical {
            r.check(path, depth, check_critical(cert, purpose))?;
        }
        // A strict path asks more of each certificate's CA status, the end entity's too.
        if checks.strict {
            r.check(path, depth, strict::check_ca_strict(cert, depth))?;
        } else if depth > 0 {
            r.check(path, depth, check_is_ca(cert, anchored && depth == top))?;
        }
        if checks.strict {
            for failure in strict::conformance(cert, depth, path.len()) {
                r.check(path, depth, Err(failure))?;
            }
        }
        r.check(path, depth, purpose.check(cert, depth))?;
        if depth > 1 {
            r.check(path, depth, check_path_len(cert, depth - 1))?;
        }
    }
    // Key sizes, and at a security level the digests below the trust anchor, as
    // OpenSSL's `check_auth_level` goes through them.
    for (depth, cert) in path.iter().enumerate() {
        match checks.auth_level {
            None => r.check(path, depth, check_key_size(cert, depth))?,
            Some(level) => {
                if depth > 0 {
                    r.check(path, depth, check_key_level(cert, depth, level))?;
                }
                if depth < top {
                    r.check(path, depth, check_digest_level(cert, level))?;
                }
            }
        }
    }
    // The end entity's identities, in the order of OpenSSL's `check_id`.
    let ids = [
        checks.host.map(|h| (host_matches(&path[0], h), PathFailure::HostnameMismatch)),
        checks.email.map(|e| (email_matches(&path[0], e), PathFailure::EmailMismatch)),
        checks.ip.map(|ip| (ip_matches(&path[0], ip), PathFailure::IpMismatch)),
    ];
    for (ok, failure) in ids.into_iter().flatten() {
        r.check(path, 0, if ok { Ok(()) } else { Err(failure) })?;
    }
    if let Some(revocation) = checks.revocation {
        let last = if revocation.all { top } else { 0 };
        for depth in 0..=last {
            let mut report = |failure| r.check(path, depth, Err(failure));
            let at = checks.check_time.then_some(at);
            check_cert(path, depth, revocation.crls, at, checks.ignore_critical, &mut report)?;
        }
    }
    for (depth, cert) in path.iter().enumerate().rev() {
        if depth < top {
            r.check(path, depth + 1, check_cert_sign(&path[depth + 1]))?;
        }
        if bad_signatures.contains(&depth) {
            r.check(path, depth, Err(PathFailure::SignatureFailure))?;
        }
        if depth == top && anchored && checks.check_self_signature && self_signed(cert) {
            let ok = Signed::new(cert).and_then(|s| s.verified_by(cert)).is_ok();
            r.check(path, depth, if ok { Ok(()) } else { Err(PathFailure::SignatureFailure) })?;
        }
        if checks.check_time {
            r.check(path, depth, check_time(cert, at))?;
        }
    }
    check_names(path, r)?;
    // Policies last, as OpenSSL's `check_policy` comes last; only on a path that reached
    // a trust anchor, whose policy extensions are not read.
    if anchored {
        match check_policies(path, &checks.policy) {
            Ok(()) => {}
            Err(policy::Failure::Invalid(depth)) => {
                r.check(path, depth, Err(PathFailure::InvalidPolicyExtension))?;
            }
            Err(policy::Failure::NoExplicitPolicy(authority)) => {
                let mut e = PathError::new(PathFailure::NoExplicitPolicy, 0, &path[0]);
                e.note = Some(policy::no_explicit_policy_text(&authority));
                r.record(e)?;
            }
        }
    }
    Ok(())
}

/// Each certificate's names against the constraints of the certificates above it, from
/// the top down (OpenSSL's `check_name_constraints`, after `internal_verify`).
fn check_names(path: &[Certificate], r: &mut Reporter<'_>) -> core::result::Result<(), ()> {
    let mut constraints = Vec::with_capacity(path.len());
    for (depth, cert) in path.iter().enumerate() {
        // `find_issuer` keeps certificates whose constraints do not decode out of a path;
        // one whose directory-name bases have no canonical form fails the path here
        // rather than pass unconstrained.
        let nc = Constraints::of(cert);
        r.check(path, depth, nc.as_ref().map(|_| ()).map_err(|()| PathFailure::Unspecified))?;
        constraints.push(nc.ok().flatten());
    }
    for depth in (0..path.len()).rev() {
        if depth > 0 && name_check::self_issued(&path[depth]) {
            continue;
        }
        for nc in constraints[depth + 1..].iter().rev().flatten() {
            r.check(path, depth, name_check::check(&path[depth], depth == 0, nc))?;
        }
    }
    Ok(())
}

/// The issuer of `current` (at the top of `path`) among `trusted` and `intermediates`
/// (not already in `path`), and whether its signature over `current` verifies (the first
/// candidate whose does, else the first candidate); or why there is none.
fn find_issuer(
    current: &Certificate,
    path: &[Certificate],
    intermediates: &[Certificate],
    trusted: &[Certificate],
    budget: &mut PathBudget,
) -> Result<(Certificate, bool)> {
    let tbs = current.tbs_certificate();
    let aki = tbs
        .get_extension::<AuthorityKeyIdentifier>()
        .ok()
        .flatten()
        .and_then(|(_, aki)| aki.key_identifier);
    // Rank 0: the key identifiers match; rank 1: one of them is absent. A candidate whose
    // identifier differs from the one the child names is no candidate.
    // Trust anchors first, then the intermediates.
    let mut candidates: Vec<(u8, &Certificate)> = trusted
        .iter()
        .chain(intermediates)
        .filter(|c| c.tbs_certificate().subject() == tbs.issuer() && !path.contains(c))
        .filter(|c| !name_check::unreadable(c))
        .filter_map(|c| {
            let ski = c.tbs_certificate().get_extension::<SubjectKeyIdentifier>().ok().flatten();
            match (&aki, ski) {
                (Some(a), Some((_, s))) if *a != s.0 => None,
                (Some(_), Some(_)) => Some((0, c)),
                _ => Some((1, c)),
            }
        })
        .collect();
    candidates.sort_by_key(|&(rank, ..)| rank);
    let depth = path.len() - 1;
    let fail = |failure| Error::Path(PathError::new(failure, depth, current));
    let self_issued = tbs.issuer() == tbs.subject();
    // A certificate whose name constraints cannot be read has no issuer, as OpenSSL's
    // `check_issued` refuses a certificate it marked invalid.
    if candidates.is_empty() || name_check::unreadable(current) {
        return Err(fail(no_issuer(self_issued, depth)));
    }
    // A signature that cannot be checked at all (its algorithms differ or are unknown)
    // fails with every candidate.
    let Ok(signed) = Signed::new(current) else {
        return Ok((candidates[0].1.clone(), false));
    };
    for &(_, candidate) in &candidates {
        let issuer_fp = fingerprint(candidate)?;
        let ok = match budget.known(&signed.fingerprint, &issuer_fp) {
            Some(ok) => ok,
            None => {
                if budget.failures_left == 0 {
                    let mut e = PathError::new(PathFailure::SignatureFailure, depth, current);
                    e.detail = Some(format!(
                        "gave up after {MAX_FAILED_SIGNATURES} failed signature checks"
                    ));
                    return Err(Error::Path(e));
                }
                budget.checks += 1;
                let ok = signed.verified_by(candidate).is_ok();
                budget.failures_left -= usize::from(!ok);
                budget.checked.push((signed.fingerprint, issuer_fp, ok));
                ok
            }
        };
        if ok {
            return Ok((candidate.clone(), true));
        }
    }
    Ok((candidates[0].1.clone(), false))
}

/// Why no issuer candidate was found for the certificate at `depth`.
fn no_issuer(self_issued: bool, depth: usize) -> PathFailure {
    match (self_issued, depth) {
        (true, 0) => PathFailure::SelfSignedLeaf,
        (true, _) => PathFailure::SelfSignedInChain,
        (false, _) => PathFailure::NoIssuer,
    }
}

fn fingerprint(cert: &Certificate) -> Result<[u8; 32]> {
    let der = super::encode::cert_der(cert)?;
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
        let digest =
            Hasher::digest(scheme.hash(), &super::encode::tbs_der(tbs)?).as_bytes().to_vec();
        let fingerprint = fingerprint(cert)?;
        Ok(Signed { scheme, digest, signature, fingerprint })
    }

    fn verified_by(&self, issuer: &Certificate) -> Result<()> {
        let key = sig::public_key_from_spki(issuer.tbs_certificate().subject_public_key_info())?;
        sig::verify_digest(&key, &self.scheme, &self.digest, self.signature)
            .map_err(|_| Error::Verify("certificate signature failure".into()))
    }
}
