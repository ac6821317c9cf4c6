//! `verify -x509_strict` beside `openssl verify -x509_strict` (OpenSSL 3.0's
//! `check_extensions` under `X509_V_FLAG_X509_STRICT`): a conforming path passes, and each
//! of RFC 5280's rules for what conforming CAs issue, broken in a CA or an end entity, is
//! reported with OpenSSL's number, depth and words, every failure of a path in OpenSSL's
//! order (its `verify` goes on past each of them); without the flag the same paths verify.
//! Each path runs through both tools where OpenSSL is installed, which must agree on
//! stdout, stderr and exit status; the expected failures are asserted everywhere.
//!
//! The certificates are made here with cryptocard-pki on the keys of crates/pki/tests/data,
//! their extensions written in DER by hand.

mod common;

use common::paths::*;
use common::*;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard::rsa::spki::der::{Decode, Encode};
use cryptocard_pki::cert::{CertBuilder, Certificate, Profile};
use cryptocard_pki::sig::{self, SigScheme};

const BC: &str = "2.5.29.19";
const KU: &str = "2.5.29.15";
const SAN: &str = "2.5.29.17";
const SKID: &str = "2.5.29.14";
const AKID: &str = "2.5.29.35";

/// basicConstraints: cA and a pathLenConstraint.
fn bc(ca: bool, path_len: Option<u8>) -> Vec<u8> {
    let mut content = if ca { vec![0x01, 0x01, 0xff] } else { vec![] };
    if let Some(n) = path_len {
        content.extend([0x02, 0x01, n]);
    }
    tlv(0x30, &content)
}

/// keyUsage as the BIT STRING's first byte: 0x80 digitalSignature, 0x04 keyCertSign,
/// 0x02 cRLSign (the unused bits counted from the lowest set one).
fn ku(bits: u8) -> Vec<u8> {
    tlv(0x03, &[bits.trailing_zeros() as u8, bits])
}

const SIGNING: u8 = 0x80; // digitalSignature
const KEY_CERT_SIGN: u8 = 0x04;
const CERT_SIGN: u8 = KEY_CERT_SIGN | 0x02; // and cRLSign

/// The key identifier in `cert`'s subjectKeyIdentifier.
fn skid_of(cert: &Certificate) -> Vec<u8> {
    let exts = cert.tbs_certificate().extensions().unwrap();
    let e = exts.iter().find(|e| e.extn_id.to_string() == SKID).unwrap();
    e.extn_value.as_bytes()[2..].to_vec()
}

/// authorityKeyIdentifier with `cert`'s key identifier.
fn akid_of(cert: &Certificate) -> Vec<u8> {
    tlv(0x30, &tlv(0x80, &skid_of(cert)))
}

/// The elements (whole TLVs) of the DER SEQUENCE `der`.
fn elements(der: &[u8]) -> Vec<Vec<u8>> {
    fn header(b: &[u8]) -> (usize, usize) {
        match b[1] {
            n if n < 0x80 => (2, usize::from(n)),
            0x81 => (3, usize::from(b[2])),
            _ => (4, usize::from(b[2]) << 8 | usize::from(b[3])),
        }
    }
    let (h, len) = header(der);
    let mut rest = &der[h..h + len];
    let mut out = Vec::new();
    while !rest.is_empty() {
        let (h, len) = header(rest);
        out.push(rest[..h + len].to_vec());
        rest = &rest[h + len..];
    }
    out
}

/// `cert` with its to-be-signed part changed by `edit` and signed again by `key`
/// (SHA-256, PKCS#1 v1.5, as the builder signs), and its outer signature algorithm
/// replaced by `outer_alg` if given.
fn resigned(
    cert: &Certificate,
    key: &RsaPrivateKey,
    edit: impl FnOnce(&mut Vec<Vec<u8>>),
    outer_alg: Option<Vec<u8>>,
) -> Certificate {
    let parts = elements(&cert.to_der().unwrap());
    let mut tbs = elements(&parts[0]);
    edit(&mut tbs);
    let tbs = tlv(0x30, &tbs.concat());
    let signature = sig::sign(key, &SigScheme::DEFAULT, &tbs).unwrap();
    let alg = outer_alg.unwrap_or_else(|| parts[1].clone());
    let bits = tlv(0x03, &[&[0u8][..], &signature].concat());
    Certificate::from_der(&tlv(0x30, &[tbs, alg, bits].concat())).unwrap()
}

/// A root on root.key, a CA on ca.key.pem and the end entities on leaf.key.pem, in a
/// fresh directory.
struct Pki {
    dir: tempfile::TempDir,
    root: Certificate,
    count: std::cell::Cell<usize>,
}

impl Pki {
    /// With a conforming root: basicConstraints and keyUsage critical, the key
    /// identifiers.
    fn new() -> Pki {
        let root = make("/CN=strict root", &key("root.key"), |b| b.profile(Profile::Ca), None);
        Pki { dir: tempdir(), root, count: std::cell::Cell::new(0) }
    }

    /// A CA under the root, shaped by `build` (which starts from the CA profile).
    fn ca(&self, subject: &str, build: impl FnOnce(CertBuilder) -> CertBuilder) -> Certificate {
        let root = (&self.root, &key("root.key"));
        make(subject, &key("ca.key.pem"), |b| build(b.profile(Profile::Ca)), Some(root))
    }

    /// An end entity under `ca` (on ca.key.pem), shaped by `build` (which starts from the
    /// end-entity profile).
    fn leaf(
        &self,
        subject: &str,
        ca: &Certificate,
        build: impl FnOnce(CertBuilder) -> CertBuilder,
    ) -> Certificate {
        let issuer = (ca, &key("ca.key.pem"));
        make(subject, &key("leaf.key.pem"), |b| build(b.profile(Profile::Leaf)), Some(issuer))
    }

    /// `verify [-x509_strict] -CAfile ANCHOR -untrusted CA LEAF` through both tools; the
    /// `(code, depth)` of each failure reported, in order.
    fn failures(
        &self,
        strict: bool,
        leaf: &Certificate,
        ca: Option<&Certificate>,
        anchor: Option<&Certificate>,
    ) -> Vec<(u32, usize)> {
        let n = self.count.get();
        self.count.set(n + 1);
        let d = self.dir.path();
        let mut args = Vec::new();
        if strict {
            args.push("-x509_strict".to_string());
        }
        let anchor = anchor.unwrap_or(&self.root);
        args.extend(["-CAfile".into(), write(d, &format!("anchor{n}.pem"), &[anchor])]);
        if let Some(ca) = ca {
            args.extend(["-untrusted".into(), write(d, &format!("ca{n}.pem"), &[ca])]);
        }
        args.push(write(d, &format!("leaf{n}.pem"), &[leaf]));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        verify_failures(&args)
    }

    /// The failures of `leaf` under `ca` with `-x509_strict`; and that without it the
    /// path verifies.
    fn strict(&self, leaf: &Certificate, ca: &Certificate) -> Vec<(u32, usize)> {
        assert_eq!(self.failures(false, leaf, Some(ca), None), [], "without -x509_strict");
        self.failures(true, leaf, Some(ca), None)
    }
}

#[test]
fn a_conforming_path_passes() {
    let p = Pki::new();
    let ca = p.ca("/CN=strict CA", |b| b);
    let leaf = p.leaf("/CN=leaf", &ca, |b| b);
    assert_eq!(p.strict(&leaf, &ca), []);
    // An empty subject is fine with a critical subjectAltName.
    let names = tlv(0x30, &tlv(0x82, b"leaf.example"));
    let nameless = p.leaf("/", &ca, |b| b.extension(ext(SAN, true, names)));
    assert_eq!(p.strict(&nameless, &ca), []);
}

#[test]
fn basic_constraints_and_key_usage() {
    let p = Pki::new();
    let ca = p.ca("/CN=strict CA", |b| b);
    // A pathLenConstraint on an end entity, which has no keyCertSign either.
    let leaf = p.leaf("/CN=pathlen leaf", &ca, |b| b.extension(ext(BC, false, bc(false, Some(0)))));
    assert_eq!(p.strict(&leaf, &ca), [(80, 0), (81, 0)]);
    // keyCertSign on an end entity.
    let leaf = p.leaf("/CN=certsign leaf", &ca, |b| {
        b.extension(ext(KU, true, ku(SIGNING | KEY_CERT_SIGN)))
    });
    assert_eq!(p.strict(&leaf, &ca), [(82, 0)]);
    // A CA whose basicConstraints are not critical.
    let loose = p.ca("/CN=loose CA", |b| b.extension(ext(BC, false, bc(true, None))));
    let leaf = p.leaf("/CN=leaf", &loose, |b| b);
    assert_eq!(p.strict(&leaf, &loose), [(89, 1)]);
    // A CA without keyUsage but with a pathLenConstraint: both rules of 4.2.1.3, 4.2.1.9.
    let root_key = key("root.key");
    let bare = make(
        "/CN=bare CA",
        &key("ca.key.pem"),
        |b| {
            b.profile(Profile::V1)
                .extension(ext(SKID, false, tlv(0x04, &[7; 20])))
                .extension(ext(AKID, false, akid_of(&p.root)))
                .extension(ext(BC, true, bc(true, Some(1))))
        },
        Some((&p.root, &root_key)),
    );
    let under_bare = p.leaf("/CN=leaf", &bare, |b| b);
    assert_eq!(p.strict(&under_bare, &bare), [(81, 1), (92, 1)]);
}

#[test]
fn names_and_alt_names() {
    let p = Pki::new();
    let ca = p.ca("/CN=strict CA", |b| b);
    // An empty subject: with no subjectAltName, with a non-critical one, with an empty one.
    let leaf = p.leaf("/", &ca, |b| b);
    assert_eq!(p.strict(&leaf, &ca), [(84, 0)]);
    let names = tlv(0x30, &tlv(0x82, b"leaf.example"));
    let leaf = p.leaf("/", &ca, |b| b.extension(ext(SAN, false, names)));
    assert_eq!(p.strict(&leaf, &ca), [(88, 0)]);
    let leaf = p.leaf("/CN=empty SAN", &ca, |b| b.extension(ext(SAN, false, tlv(0x30, &[]))));
    assert_eq!(p.strict(&leaf, &ca), [(87, 0)]);
    // A CA with an empty subject: its own failure, and its end entity's empty issuer.
    let nameless_ca = p.ca("/", |b| b);
    let leaf = p.leaf("/CN=leaf", &nameless_ca, |b| b);
    assert_eq!(p.strict(&leaf, &nameless_ca), [(83, 0), (84, 1)]);
}

#[test]
fn key_identifiers() {
    let p = Pki::new();
    let ca = p.ca("/CN=strict CA", |b| b);
    // Critical key identifiers: extensions OpenSSL does not count as handled (34), with or
    // without the flag (which has its own numbers for them, 90 and 91, that cannot fire).
    let akid = akid_of(&ca);
    let leaf = p.leaf("/CN=akid critical", &ca, |b| b.extension(ext(AKID, true, akid.clone())));
    assert_eq!(p.failures(false, &leaf, Some(&ca), None), [(34, 0)]);
    assert_eq!(p.failures(true, &leaf, Some(&ca), None), [(34, 0)]);
    let skid = tlv(0x04, &[9; 20]);
    let leaf = p.leaf("/CN=skid critical", &ca, |b| b.extension(ext(SKID, true, skid.clone())));
    assert_eq!(p.failures(false, &leaf, Some(&ca), None), [(34, 0)]);
    assert_eq!(p.failures(true, &leaf, Some(&ca), None), [(34, 0)]);
    // A critical extension OpenSSL does not support before a critical basicConstraints:
    // its extension cache stops there, and takes the basicConstraints for not critical.
    let root_key = key("root.key");
    let skid_first = make(
        "/CN=skid first CA",
        &key("ca.key.pem"),
        |b| {
            b.profile(Profile::V1)
                .extension(ext(SKID, true, skid))
                .extension(ext(AKID, false, akid_of(&p.root)))
                .extension(ext(BC, true, bc(true, None)))
                .extension(ext(KU, true, ku(CERT_SIGN)))
        },
        Some((&p.root, &root_key)),
    );
    let leaf = p.leaf("/CN=leaf", &skid_first, |b| b);
    assert_eq!(p.failures(false, &leaf, Some(&skid_first), None), [(34, 1)]);
    assert_eq!(p.failures(true, &leaf, Some(&skid_first), None), [(34, 1), (89, 1)]);
    // Critical extensions OpenSSL does count as handled: cRLDistributionPoints (a
    // fullName URI) and id-pkix-ocsp-nocheck (NULL).
    let crldp = tlv(0x30, &tlv(0x30, &tlv(0xa0, &tlv(0xa0, &tlv(0x86, b"http://ca/c.crl")))));
    let ocsp_nocheck = "1.3.6.1.5.5.7.48.1.5";
    let leaf = p.leaf("/CN=critical but handled", &ca, |b| {
        b.extension(ext("2.5.29.31", true, crldp)).extension(ext(ocsp_nocheck, true, vec![5, 0]))
    });
    assert_eq!(p.strict(&leaf, &ca), []);
    // No authorityKeyIdentifier below the top of the path.
    let leaf = make(
        "/CN=no akid",
        &key("leaf.key.pem"),
        |b| b.profile(Profile::V1).extension(ext(BC, false, bc(false, None))),
        Some((&ca, &key("ca.key.pem"))),
    );
    assert_eq!(p.strict(&leaf, &ca), [(85, 0)]);
    // A CA without subjectKeyIdentifier.
    let no_skid = make(
        "/CN=no skid CA",
        &key("ca.key.pem"),
        |b| {
            b.profile(Profile::V1)
                .extension(ext(AKID, false, akid_of(&p.root)))
                .extension(ext(BC, true, bc(true, None)))
                .extension(ext(KU, true, ku(CERT_SIGN)))
        },
        Some((&p.root, &root_key)),
    );
    let leaf = make(
        "/CN=leaf",
        &key("leaf.key.pem"),
        |b| b.profile(Profile::V1).extension(ext(AKID, false, tlv(0x30, &tlv(0x80, &[3; 8])))),
        Some((&no_skid, &key("ca.key.pem"))),
    );
    assert_eq!(p.strict(&leaf, &no_skid), [(86, 1)]);
}

#[test]
fn versions_and_signature_algorithms() {
    let p = Pki::new();
    let ca = p.ca("/CN=strict CA", |b| b);
    let ca_key = key("ca.key.pem");
    // Extensions in a version 1 certificate: the version field dropped, signed again.
    let v3 = p.leaf("/CN=v1 with extensions", &ca, |b| b);
    let v1 = resigned(&v3, &ca_key, |tbs| drop(tbs.remove(0)), None);
    assert!(v1.tbs_certificate().extensions().is_some());
    assert_eq!(p.strict(&v1, &ca), [(93, 0)]);
    // sha256WithRSAEncryption outside the signed part without its NULL parameters: the
    // same algorithm, another encoding, which OpenSSL's X509_verify refuses with or
    // without the flag.
    let leaf = p.leaf("/CN=two algorithms", &ca, |b| b);
    let sha256_rsa = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b];
    let mixed = resigned(&leaf, &ca_key, |_| {}, Some(tlv(0x30, &sha256_rsa)));
    assert_eq!(p.failures(false, &mixed, Some(&ca), None), [(7, 0)]);
    assert_eq!(p.failures(true, &mixed, Some(&ca), None), [(78, 0), (7, 0)]);
}

#[test]
fn ca_status_of_the_anchor_and_the_end_entity() {
    let p = Pki::new();
    let root_key = key("root.key");
    // A version 1 root: a CA for OpenSSL as the top of a path, not under -x509_strict;
    // and so is a root with keyCertSign and no basicConstraints.
    let v1_root = make("/CN=v1 root", &root_key, |b| b.profile(Profile::V1), None);
    let ca = make(
        "/CN=strict CA",
        &key("ca.key.pem"),
        |b| b.profile(Profile::Ca),
        Some((&v1_root, &root_key)),
    );
    let leaf = p.leaf("/CN=leaf", &ca, |b| b);
    assert_eq!(p.failures(false, &leaf, Some(&ca), Some(&v1_root)), []);
    assert_eq!(p.failures(true, &leaf, Some(&ca), Some(&v1_root)), [(79, 2)]);
    // A root that is a CA by its keyUsage alone.
    let ku_root = make(
        "/CN=keyUsage root",
        &root_key,
        |b| b.profile(Profile::V1).extension(ext(KU, true, ku(CERT_SIGN))),
        None,
    );
    let ca = make(
        "/CN=strict CA",
        &key("ca.key.pem"),
        |b| b.profile(Profile::Ca),
        Some((&ku_root, &root_key)),
    );
    let leaf = p.leaf("/CN=leaf", &ca, |b| b);
    assert_eq!(p.failures(false, &leaf, Some(&ca), Some(&ku_root)), []);
    // Strictly not a CA, so its keyCertSign is one a non-CA may not have.
    assert_eq!(p.failures(true, &leaf, Some(&ca), Some(&ku_root)), [(79, 2), (82, 2)]);
    // Alone, trusted directly: a path of one, whose CA status is still asked.
    assert_eq!(p.failures(false, &v1_root, None, Some(&v1_root)), []);
    assert_eq!(p.failures(true, &v1_root, None, Some(&v1_root)), [(79, 0)]);
    // An end entity that is a CA by its keyUsage alone.
    let ca = p.ca("/CN=strict CA", |b| b);
    let leaf = make(
        "/CN=keyUsage CA",
        &key("leaf.key.pem"),
        |b| {
            b.profile(Profile::V1).extension(ext(AKID, false, akid_of(&ca))).extension(ext(
                KU,
                true,
                ku(CERT_SIGN),
            ))
        },
        Some((&ca, &key("ca.key.pem"))),
    );
    assert_eq!(p.failures(false, &leaf, Some(&ca), None), []);
    // Not a CA by basicConstraints, so its keyCertSign is one a non-CA may not have.
    assert_eq!(p.failures(true, &leaf, Some(&ca), None), [(79, 0), (82, 0)]);
}
