//! Checking certificates: one issuer's signature ([`verify_issued_by`]) and a path from a
//! leaf to a trusted certificate ([`verify_chain`]), a small subset of RFC 5280 section 6
//! path validation: names chain (issuer of each = subject of the next), signatures
//! verify, every certificate is within its validity period at the given time, every
//! issuer is a CA (basicConstraints cA, section 4.2.1.9, with its pathLenConstraint) whose
//! keyUsage, if present, allows keyCertSign (4.2.1.3), and no certificate carries a
//! critical extension we do not understand (4.2). Policies, name constraints and
//! revocation are not checked.
//!
//! Failures read as OpenSSL's `X509_verify_cert_error_string` words them ("certificate
//! has expired", "unable to get local issuer certificate", ...), followed by the depth and
//! subject of the certificate concerned, so that scripts and people recognise them.
//!
//! Work is bounded: the path is at most [`MAX_DEPTH`] certificates, and each step tries
//! each candidate issuer at most once, so at most `MAX_DEPTH` times the number of
//! candidates signature checks are made.

use super::name::display_name;
use crate::sig::{self, SigScheme};
use crate::{Error, Result};
use const_oid::AssociatedOid;
use der::Encode;
use std::time::SystemTime;
use x509_cert::Certificate;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, ExtendedKeyUsage, KeyUsage, SubjectAltName,
    SubjectKeyIdentifier,
};

/// The longest path accepted, leaf and trust anchor included (OpenSSL's default
/// `-verify_depth` is 100; real paths have 2 to 4 certificates).
pub const MAX_DEPTH: usize = 10;

/// Checks that `issuer` issued `cert`: the names chain, `cert`'s outer
/// signatureAlgorithm equals the signed one (RFC 5280 4.1.1.2), and its signature
/// verifies with `issuer`'s key.
pub fn verify_issued_by(cert: &Certificate, issuer: &Certificate) -> Result<()> {
    let tbs = cert.tbs_certificate();
    if tbs.issuer() != issuer.tbs_certificate().subject() {
        return Err(Error::Verify("subject issuer mismatch".into()));
    }
    if cert.signature_algorithm() != tbs.signature() {
        return Err(Error::Verify(
            "certificate signature algorithm does not match the signed one".into(),
        ));
    }
    let scheme = SigScheme::from_algorithm_identifier(cert.signature_algorithm())?;
    let key = sig::public_key_from_spki(issuer.tbs_certificate().subject_public_key_info())?;
    let signature = cert
        .signature()
        .as_bytes()
        .ok_or_else(|| Error::Malformed("signature is not a whole number of bytes".into()))?;
    sig::verify(&key, &scheme, &tbs.to_der()?, signature)
        .map_err(|_| Error::Verify("certificate signature failure".into()))
}

/// Builds and checks a path from `leaf` through `intermediates` to one of `trusted`, at
/// time `at`. Returns the path, leaf first, trust anchor last.
pub fn verify_chain(
    leaf: &Certificate,
    intermediates: &[Certificate],
    trusted: &[Certificate],
    at: SystemTime,
) -> Result<Vec<Certificate>> {
    let mut path = vec![leaf.clone()];
    loop {
        let depth = path.len() - 1;
        let current = &path[depth];
        let fail = |why: &str| fail_at(why, depth, current);
        check_time(current, at).map_err(fail)?;
        check_critical(current).map_err(fail)?;
        if trusted.contains(current) {
            return Ok(path);
        }
        if path.len() >= MAX_DEPTH {
            return Err(fail("certificate chain too long"));
        }
        let mut sig_failure = false;
        let mut next = None;
        for (candidate, anchor) in
            trusted.iter().map(|c| (c, true)).chain(intermediates.iter().map(|c| (c, false)))
        {
            if candidate.tbs_certificate().subject() != current.tbs_certificate().issuer()
                || path.contains(candidate)
            {
                continue;
            }
            match verify_issued_by(current, candidate) {
                Ok(()) => {
                    next = Some((candidate.clone(), anchor));
                    break;
                }
                Err(_) => sig_failure = true,
            }
        }
        let Some((issuer, anchor)) = next else {
            let self_issued =
                current.tbs_certificate().issuer() == current.tbs_certificate().subject();
            return Err(fail(match (self_issued, sig_failure, depth) {
                (_, true, _) => "certificate signature failure",
                (true, _, 0) => "self-signed certificate",
                (true, _, _) => "self-signed certificate in certificate chain",
                (false, _, _) => "unable to get local issuer certificate",
            }));
        };
        let issuer_depth = depth + 1;
        check_ca(&issuer, depth, anchor).map_err(|why| fail_at(why, issuer_depth, &issuer))?;
        path.push(issuer);
        if anchor {
            let top = &path[issuer_depth];
            check_time(top, at).map_err(|why| fail_at(why, issuer_depth, top))?;
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

fn check_time(cert: &Certificate, at: SystemTime) -> Result<(), &'static str> {
    let v = cert.tbs_certificate().validity();
    if at < v.not_before.to_system_time() {
        return Err("certificate is not yet valid");
    }
    if at > v.not_after.to_system_time() {
        return Err("certificate has expired");
    }
    Ok(())
}

/// An issuer must be a CA. `below` is the number of intermediate CAs under it in the
/// path (all certificates under it but the leaf), which its pathLenConstraint bounds. A v1
/// trust anchor (no extensions at all) is accepted as a CA, as OpenSSL accepts one.
fn check_ca(issuer: &Certificate, below: usize, anchor: bool) -> Result<(), &'static str> {
    let tbs = issuer.tbs_certificate();
    let bc = tbs.get_extension::<BasicConstraints>().map_err(|_| "invalid CA certificate")?;
    match bc {
        Some((_, bc)) if bc.ca => {
            if bc.path_len_constraint.is_some_and(|len| below > usize::from(len)) {
                return Err("path length constraint exceeded");
            }
        }
        None if anchor && tbs.extensions().is_none() => {}
        _ => return Err("invalid CA certificate"),
    }
    match tbs.get_extension::<KeyUsage>() {
        Ok(Some((_, ku))) if !ku.key_cert_sign() => {
            Err("key usage does not include certificate signing")
        }
        Ok(_) => Ok(()),
        Err(_) => Err("invalid CA certificate"),
    }
}

/// Fails on a critical extension we do not process (RFC 5280 4.2).
fn check_critical(cert: &Certificate) -> Result<(), &'static str> {
    let known = [
        BasicConstraints::OID,
        KeyUsage::OID,
        ExtendedKeyUsage::OID,
        SubjectAltName::OID,
        SubjectKeyIdentifier::OID,
        AuthorityKeyIdentifier::OID,
    ];
    let exts = cert.tbs_certificate().extensions().map(|e| e.as_slice()).unwrap_or(&[]);
    if exts.iter().any(|e| e.critical && !known.contains(&e.extn_id)) {
        return Err("unhandled critical extension");
    }
    Ok(())
}
