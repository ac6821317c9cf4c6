//! Revocation (RFC 5280 sections 5 and 6.3) as `openssl verify -crl_check` and
//! `-crl_check_all` check it, on CRLs OpenSSL's `ca -gencrl` made (tests/data,
//! `make-crls.sh`): each failure with OpenSSL's number at the depth OpenSSL reports it,
//! in the order it reports them. The CLI's tests compare whole outputs with OpenSSL's.

use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::cert::{
    self, Certificate, Crl, CrlBuilder, CrlReason, PathBudget, PathChecks, PathFailure, Purpose,
    Revocation, TrustStore,
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
    failures_by(leaf, &crls(crl_files), all, at)
}

/// [`failures_at`] with the CRLs themselves.
fn failures_by(leaf: &str, crls: &[Crl], all: bool, at: SystemTime) -> Vec<(u32, usize)> {
    let store = TrustStore::new(vec![cert("root.pem")], false);
    let checks = PathChecks {
        go_on: &goes_on,
        revocation: Some(Revocation { crls, all }),
        ..PathChecks::new(at, Purpose::Any)
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
        go_on: &goes_on,
        revocation: Some(Revocation { crls: std::slice::from_ref(&bad), all: false }),
        ..PathChecks::new(SystemTime::now(), Purpose::Any)
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

fn key(name: &str) -> RsaPrivateKey {
    RsaPrivateKey::from_pem(std::str::from_utf8(&data(name)).unwrap(), None).unwrap()
}

#[test]
fn crls_we_make_revoke_what_they_list() {
    let now = SystemTime::now();
    let day = Duration::from_secs(86_400);
    let recipient = cert("recipient.pem");
    let serial = recipient.tbs_certificate().serial_number();
    let by_inter = CrlBuilder::new(now - day)
        .next_update(now + 30 * day)
        .number(7)
        .revoke(serial, now - day, Some(CrlReason::KeyCompromise))
        .sign(&cert("inter.pem"), &key("inter.key"))
        .unwrap();
    assert!(by_inter.signed_by(&cert("inter.pem")));
    assert_eq!((by_inter.revoked_count(), by_inter.number_hex().unwrap()), (1, "07".to_string()));
    let root_empty = CrlBuilder::new(now - day)
        .next_update(now + day)
        .sign(&cert("root.pem"), &key("root.key"))
        .unwrap();
    assert_eq!((root_empty.revoked_count(), root_empty.number_hex()), (0, None));
    let both = [by_inter.clone(), root_empty];
    assert_eq!(failures_by("recipient.pem", &both, true, now), [(23, 0)]);
    assert_eq!(failures_by("signer.pem", &both, true, now), []);
    // Past their nextUpdates the CRLs have expired: the intermediate's for the end
    // entity, the root's for the intermediate and the root.
    let stale = failures_by("signer.pem", &both, true, now + 31 * day);
    assert_eq!(stale, [(12, 0), (12, 1), (12, 2)]);
    // The text names the reason; times past 2049 are GeneralizedTime, read back whole.
    assert!(cert::crl_text(&by_inter).contains("                Key Compromise\n"));
    let late = SystemTime::UNIX_EPOCH + Duration::from_secs(4_102_444_800); // 2100
    let far = CrlBuilder::new(now).next_update(late).sign(&cert("inter.pem"), &key("inter.key"));
    assert_eq!(far.unwrap().next_update(), Some(late));
}

#[test]
fn crl_entries_are_sorted_and_signers_checked() {
    let now = SystemTime::now();
    let serial = |b: &[u8]| x509_cert::serial_number::SerialNumber::new(b).unwrap();
    let crl = CrlBuilder::new(now)
        .revoke(&serial(&[0x01, 0x00]), now, None)
        .revoke(&serial(&[0x30]), now, Some(CrlReason::Superseded))
        .revoke(&serial(&[0x02]), now, None)
        .sign(&cert("inter.pem"), &key("inter.key"))
        .unwrap();
    let text = cert::crl_text(&crl);
    let order: Vec<&str> =
        text.lines().filter_map(|l| l.strip_prefix("    Serial Number: ")).collect();
    assert_eq!(order, ["02", "30", "0100"]);
    // Twice the same serial, the wrong key, an issuer without cRLSign: refused.
    let twice =
        CrlBuilder::new(now).revoke(&serial(&[5]), now, None).revoke(&serial(&[5]), now, None);
    assert!(twice.sign(&cert("inter.pem"), &key("inter.key")).is_err());
    let wrong_key = CrlBuilder::new(now).sign(&cert("inter.pem"), &key("root.key")).unwrap_err();
    assert!(wrong_key.to_string().contains("mismatch"), "{wrong_key}");
    let no_crl_sign =
        CrlBuilder::new(now).sign(&cert("signer.pem"), &key("signer.key")).unwrap_err();
    assert!(no_crl_sign.to_string().contains("cRLSign"), "{no_crl_sign}");
}

#[test]
fn crl_numbers_are_minimal_positive_integers() {
    let now = SystemTime::now();
    for (n, hex) in
        [(0, "00"), (1, "01"), (0x80, "80"), (0x1234, "1234"), (u64::MAX, "FFFFFFFFFFFFFFFF")]
    {
        let crl = CrlBuilder::new(now).number(n).sign(&cert("inter.pem"), &key("inter.key"));
        // Read back as a strict DER INTEGER: minimal, a zero byte before a high bit.
        assert_eq!(crl.unwrap().number_hex().as_deref(), Some(hex), "{n}");
    }
}
