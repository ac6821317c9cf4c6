//! A trust store read as OpenSSL reads `-CAfile`: its self-signed certificates are trust
//! anchors, and a path must end at one of them. The store's other certificates are
//! issuers a path may pass through on its way there; they end a path themselves only
//! with partial chains allowed (OpenSSL's `-partial_chain`, `X509_V_FLAG_PARTIAL_CHAIN`).
//!
//! [`verify_chain`](super::verify_chain) takes every certificate it is given as trusted for
//! an anchor (RFC 5280 section 6.1 lets any certificate be one, as rustls and webpki do);
//! this is the stricter reading that `openssl verify` applies by default, for the command
//! line that mirrors it.

use super::failure::PathFailure;
use super::purpose::Purpose;
use super::verify::{PathBudget, PathChecks, PathReport, verify_chain_report};
use crate::Result;
use std::time::SystemTime;
use x509_cert::Certificate;

/// Trusted certificates, split into anchors and the issuers a path may pass through.
#[derive(Clone, Debug, Default)]
pub struct TrustStore {
    anchors: Vec<Certificate>,
    issuers: Vec<Certificate>,
}

impl TrustStore {
    /// The store of `certs`: with `partial_chain`, every one is an anchor; without, the
    /// self-signed ones (subject and issuer the same name, as OpenSSL's
    /// `X509_self_signed` reads a certificate before checking its signature).
    pub fn new(certs: Vec<Certificate>, partial_chain: bool) -> TrustStore {
        let (anchors, issuers) = certs.into_iter().partition(|c| {
            let tbs = c.tbs_certificate();
            partial_chain || tbs.subject() == tbs.issuer()
        });
        TrustStore { anchors, issuers }
    }

    /// The anchors and the issuers, for an API that takes them apart (`cms::verify`'s
    /// trusted and untrusted certificates).
    pub fn into_parts(self) -> (Vec<Certificate>, Vec<Certificate>) {
        (self.anchors, self.issuers)
    }

    /// Whether `cert` is in the store.
    pub fn contains(&self, cert: &Certificate) -> bool {
        self.anchors.contains(cert) || self.issuers.contains(cert)
    }

    /// How many certificates the store holds.
    pub fn len(&self) -> usize {
        self.anchors.len() + self.issuers.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// [`verify_chain_for`](super::verify_chain_for) from `leaf` through `untrusted` and
    /// the store's issuers to one of its anchors. A path that stops above the leaf at a
    /// certificate of the store with no issuer fails as OpenSSL words that
    /// ([`PathFailure::NoIssuerOfTrusted`]); the leaf is the caller's, even where the store
    /// holds it too.
    pub fn verify(
        &self,
        leaf: &Certificate,
        untrusted: &[Certificate],
        at: SystemTime,
        purpose: Purpose,
        budget: &mut PathBudget,
    ) -> Result<Vec<Certificate>> {
        let checks = PathChecks::new(at, purpose);
        self.verify_report(leaf, untrusted, &checks, budget)?.into_result()
    }

    /// [`TrustStore::verify`] as [`verify_chain_report`], with `checks`.
    pub fn verify_report(
        &self,
        leaf: &Certificate,
        untrusted: &[Certificate],
        checks: &PathChecks<'_>,
        budget: &mut PathBudget,
    ) -> Result<PathReport> {
        let mut pool = self.issuers.clone();
        pool.extend(untrusted.iter().cloned());
        let mut report = verify_chain_report(leaf, &pool, &self.anchors, checks, budget)?;
        for e in &mut report.failures {
            if e.failure == PathFailure::NoIssuer && e.depth > 0 && self.issuers.contains(&e.cert) {
                e.failure = PathFailure::NoIssuerOfTrusted;
            }
        }
        Ok(report)
    }
}
