//! Revocation (RFC 5280 sections 5 and 6.3) as `openssl verify -crl_check` and
//! `-crl_check_all` check it, on CRLs OpenSSL's `ca -gencrl` made (tests/data,
//! `make-crls.sh`): each failure with OpenSSL's number at the depth OpenSSL reports it,
//! in the order it reports them. The CLI's tests compare whole outputs with OpenSSL's.

use cryptocard_pki::cert::{
    self, Certificate, Crl, PathBudget, PathChecks, PathFailure, Purpose, Revocation, TrustStore,
};
use std::time::{Duration, SystemTime};

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn cert(name: &str) -> Certificate {
    cert::read_certs(&data(name)).unwrap().remove(0)
}

fn crls(names: &[&str]) -> Vec<Crl> {
    names.iter().flat_map(|n| cert::read_crls(&data(n)).unwrap()).collect()
}

/// Only the CRL failures that OpenSSL's `verify` goes on past (see `cmd/verify.rs`).
fn goes_on(f: PathFailure) -> bool {
    matches!(f, PathFailure::CrlExpired | PathFailure::CrlNotYetValid)
}

/// The failures (number, depth) of `leaf`'s path to the test root, checked against
/// `crl_files` for the end entity or, with `all`, every certificate, at `at`.
fn failures_at(leaf: &str, crl_files: &[&str], all: bool, at: SystemTime) -> Vec<(u32, usize)> {
    let store = TrustStore::new(vec![cert("root.pem")], false);
    let crls = crls(crl_files);
    let checks = PathChecks {
        at,
        purpose: Purpose::Any,
        host: None,
        go_on: &goes_on,
        revocation: Some(Revocation { crls: &crls, all }),
    };
    let report =
        store.verify_report(&cert(leaf), &[cert("inter.pem")], &checks, &mut PathBudget::new());
    report.unwrap().failures.iter().map(|e| (e.failure.code(), e.depth)).collect()
}

fn failures(leaf: &str, crl_files: &[&str], all: bool) -> Vec<(u32, usize)> {
    failures_at(leaf, crl_files, all, SystemTime::now())
}

#[test]
fn revoked_certificates_fail_and_others_pass() {
    assert_eq!(failures("recipient.pem", &["crl-inter.pem"], false), [(23, 0)]);
    assert_eq!(failures("signer.pem", &["crl-inter.pem"], false), []);
    // The root's CRL revokes the intermediate: only -crl_check_all sees it, and it needs
    // a CRL for every certificate, the root's own included.
    assert_eq!(failures("signer.pem", &["crl-inter.pem", "crl-root.pem"], false), []);
    assert_eq!(failures("signer.pem", &["crl-inter.pem", "crl-root.pem"], true), [(23, 1)]);
    assert_eq!(failures("signer.pem", &["crl-inter.pem"], true), [(3, 1)]);
    let empty = ["crl-inter-empty.pem", "crl-root-empty.pem"];
    assert_eq!(failures("signer.pem", &empty, true), []);
    assert_eq!(failures("recipient.pem", &empty, true), []);
}

#[test]
fn missing_stale_and_faulty_crls_fail_as_openssl_says() {
    assert_eq!(failures("signer.pem", &[], false), [(3, 0)]);
    assert_eq!(failures("signer.pem", &["crl-root.pem"], false), [(3, 0)]);
    // Expired and not yet valid go on (OpenSSL's verify callback passes them).
    assert_eq!(failures("signer.pem", &["crl-inter-expired.pem"], false), [(12, 0)]);
    assert_eq!(failures("signer.pem", &["crl-inter-future.pem"], false), [(11, 0)]);
    assert_eq!(
        failures("signer.pem", &["crl-inter-expired.pem", "crl-root-empty.pem"], true),
        [(12, 0)]
    );
    assert_eq!(failures("signer.pem", &["crl-inter-critical.pem"], false), [(36, 0)]);
    // A current CRL is preferred to an expired one, whichever comes first.
    let both = ["crl-inter-expired.pem", "crl-inter.pem"];
    assert_eq!(failures("recipient.pem", &both, false), [(23, 0)]);
    // The time is the caller's: in March 2126 the CRL has expired, the certificates not.
    let late = SystemTime::UNIX_EPOCH + Duration::from_secs(4_930_000_000);
    assert_eq!(failures_at("signer.pem", &["crl-inter-empty.pem"], false, late), [(12, 0)]);
}

#[test]
fn a_crl_whose_signature_fails_is_not_believed() {
    let mut der = cert::read_crls(&data("crl-inter.pem")).unwrap()[0].to_der().to_vec();
    let last = der.len() - 5;
    der[last] ^= 1;
    let bad = Crl::from_der(&der).unwrap();
    let store = TrustStore::new(vec![cert("root.pem")], false);
    let checks = PathChecks {
        at: SystemTime::now(),
        purpose: Purpose::Any,
        host: None,
        go_on: &goes_on,
        revocation: Some(Revocation { crls: std::slice::from_ref(&bad), all: false }),
    };
    let leaf = cert("recipient.pem");
    let report = store.verify_report(&leaf, &[cert("inter.pem")], &checks, &mut PathBudget::new());
    let got: Vec<_> = report.unwrap().failures.iter().map(|e| e.failure).collect();
    // The signature failure stops the check before the revoked serial is seen.
    assert_eq!(got, [PathFailure::CrlSignatureFailure]);
}

#[test]
fn distribution_point_scopes() {
    // For CA certificates only: the end entity is out of its scope, and it is the only
    // CRL of its issuer; beside an in-scope CRL, that one is taken.
    assert_eq!(failures("recipient.pem", &["crl-inter-onlyca.pem"], false), [(44, 0)]);
    let with_empty = ["crl-inter-onlyca.pem", "crl-inter-empty.pem"];
    assert_eq!(failures("recipient.pem", &with_empty, false), []);
    // For end entities only: in scope, and it lists the recipient.
    assert_eq!(failures("recipient.pem", &["crl-inter-onlyuser.pem"], false), [(23, 0)]);
    // A distribution point the certificate does not name.
    assert_eq!(failures("recipient.pem", &["crl-inter-point.pem"], false), [(44, 0)]);
}

#[test]
fn crl_files_read_as_pem_bundles_and_der() {
    let pem = [data("crl-inter.pem"), data("crl-root.pem")].concat();
    let both = cert::read_crls(&pem).unwrap();
    assert_eq!(both.len(), 2);
    assert_eq!(both[0].revoked_count(), 2);
    assert_eq!(both[1].revoked_count(), 1);
    let der = both[0].to_der().to_vec();
    assert_eq!(cert::read_crls(&der).unwrap(), both[..1]);
    assert!(both[0].next_update().unwrap() > both[0].this_update());
    // Certificates are not CRLs; garbage and truncation are errors, not panics.
    assert!(cert::read_crls(&data("root.pem")).unwrap().is_empty());
    for cut in [0, 1, 10, der.len() / 2, der.len() - 1] {
        assert!(Crl::from_der(&der[..cut]).is_err(), "{cut}");
    }
}
