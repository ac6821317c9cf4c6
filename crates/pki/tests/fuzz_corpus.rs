//! The `cms`, `pkcs12`, `conf` and `names` fuzz targets' bodies (crates/cryptocard/fuzz/pki_bodies.rs) on
//! their committed seed corpora (crates/cryptocard/fuzz/corpus/, see its README), so that
//! the suite runs, without nightly, exactly what a fuzzing run starts from, and checks
//! that the seeds reach what they are there for: messages that verify and decrypt, the
//! test chain, and PKCS#12 files whose keys and certificates come out under the targets'
//! iteration limits.

#[path = "../../cryptocard/fuzz/pki_bodies.rs"]
mod pki_bodies;

use pki_bodies::Reached;
use std::path::Path;

/// The seeds of `target` with what each reached, sorted by name.
fn run(target: &str, body: fn(&[u8]) -> Reached) -> Vec<(String, Reached)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cryptocard/fuzz/corpus").join(target);
    let mut seeds: Vec<(String, Reached)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, body(&std::fs::read(&path).unwrap()))
        })
        .collect();
    seeds.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(seeds.len() >= 4, "{target}: {} seeds", seeds.len());
    seeds
}

fn reached(seeds: &[(String, Reached)], name: &str) -> Reached {
    seeds.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no seed {name}")).1
}

#[test]
fn cms_on_its_corpus() {
    let seeds = run("cms", pki_bodies::cms);
    for (name, r) in &seeds {
        // Every seed is a message, a certificate, a CRL, an OCSP request or response, or a
        // key file the readers know.
        let is_key = name.ends_with(".key.pem");
        let ocsp = r.ocsp_request || r.ocsp_answers > 0;
        let ts = r.ts_request || r.ts_verified;
        assert!(r.message || r.certs > 0 || r.crls > 0 || ocsp || ts || is_key, "{name}: {r:?}");
    }
    // OpenSSL's TSA (certified by the intermediate) answering a request: the token
    // verifies to the test root.
    assert!(reached(&seeds, "ts-request.der").ts_request);
    assert!(reached(&seeds, "ts-response.der").ts_verified);
    assert!(!reached(&seeds, "ocsp-response.der").ts_verified);
    // The intermediate's OCSP answer about the signer, and requests about it.
    assert_eq!(reached(&seeds, "ocsp-response.der").ocsp_answers, 1);
    assert!(reached(&seeds, "ocsp-request.der").ocsp_request);
    // One signed by the signer, carrying its certificate and the intermediate.
    assert!(reached(&seeds, "ocsp-request-signed.der").ocsp_request);
    assert!(reached(&seeds, "openssl-signed.der").verified);
    assert!(reached(&seeds, "openssl-signed-ber.der").verified);
    for cipher in ["aes128", "aes256", "des", "des3", "oaep", "ber"] {
        let name = format!("openssl-enveloped-{cipher}.der");
        let r = reached(&seeds, &name);
        assert!(r.message && r.decrypted, "{name}: {r:?}");
    }
    assert!(reached(&seeds, "openssl-signed-pss-detached.der").message);
    for cert in ["root.pem", "inter.pem", "signer.pem", "recipient.pem"] {
        assert_eq!(reached(&seeds, cert).certs, 1, "{cert}");
    }
    // A chain with its CRLs, whose signatures verify; CRLs alone.
    let r = reached(&seeds, "chain-with-crls.pem");
    assert!(r.certs == 3 && r.crls == 2 && r.crl_signed, "{r:?}");
    let r = reached(&seeds, "crl-inter-entries-delta.pem");
    assert!(r.certs == 0 && r.crls == 2, "{r:?}");
    // A message carrying the CRLs that revoke its signer's intermediate.
    let r = reached(&seeds, "signed-with-crls.der");
    assert!(r.message && r.verified && r.revoked, "{r:?}");
    // The DER seeds list to their end (BER with indefinite lengths too); PEM is text.
    for (name, r) in &seeds {
        assert_eq!(r.listed, name.ends_with(".der"), "{name}");
    }
}

#[test]
fn pkcs12_on_its_corpus() {
    let seeds = run("pkcs12", pki_bodies::pkcs12);
    for (name, r) in &seeds {
        // Every seed opens under the fuzzing limits, with its certificates and its key.
        assert!(r.certs >= 1, "{name}: {r:?}");
        assert!(r.key, "{name}: {r:?}");
    }
}

#[test]
fn conf_on_its_corpus() {
    let seeds = run("conf", pki_bodies::conf);
    for (name, r) in &seeds {
        // Every seed reads, and makes extensions of some section.
        assert!(r.sections > 0 && r.extensions > 0, "{name}: {r:?}");
    }
    // The CA configuration of crates/cli/tests/data/ca: each certificate section, for
    // both issuers, and the CRL section (the self-signed pass adds key identifiers).
    let r = reached(&seeds, "ca.cnf");
    assert!(r.sections >= 10, "{r:?}");
    // Extensions from generator strings, and the strings themselves with their sections.
    let r = reached(&seeds, "generated.cnf");
    assert!(r.extensions >= 3 && r.generated >= 12, "{r:?}");
}

#[test]
fn names_on_its_corpus() {
    let seeds = run("names", pki_bodies::names);
    let mut failures = 0u64;
    let mut valid = 0u8;
    for (name, r) in &seeds {
        // Every seed is a bundle of a CA and certificates under it: some within its
        // constraints and some not, or a path whose policies are valid for some inputs.
        assert!(r.certs >= 2 && r.names_within > 0, "{name}: {r:?}");
        if name.starts_with("policy-") {
            let policy_failures = r.name_failures & (1 << 42 | 1 << 43);
            assert!(
                r.certs >= 3 && (r.policies_valid != 0 || policy_failures != 0),
                "{name}: {r:?}"
            );
        } else {
            assert!(r.name_failures != 0, "{name}: {r:?}");
        }
        failures |= r.name_failures;
        valid |= r.policies_valid;
    }
    // Paths whose policies are valid for each of the body's inputs.
    assert_eq!(valid, 0b111);
    // Between them the seeds reach every failure name constraints and policies have.
    for code in [1, 42, 43, 47, 48, 49, 51, 53] {
        assert!(failures & (1 << code) != 0, "no seed fails with error {code}: {failures:#x}");
    }
}
