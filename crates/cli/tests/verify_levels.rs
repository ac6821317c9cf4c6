//! `verify -auth_level`, `-verify_depth`, `-check_ss_sig` and `-trusted` beside
//! `openssl verify` (3.0): security levels of keys and signature digests (RFC 5280 paths
//! judged by NIST SP 800-57's strengths, OpenSSL's `check_auth_level`), the longest path,
//! the trust anchor's own signature, and a trust list apart from the store. Each run
//! goes through both tools where OpenSSL is installed, which must agree on stdout, stderr
//! and exit status; the expected failures are asserted everywhere.

mod common;

use common::paths::*;
use common::*;
use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard::rsa::spki::der::{Decode, Encode};
use cryptocard_pki::cert::{Certificate, Profile};
use cryptocard_pki::sig::SigScheme;

/// A root (root.key), a CA (ca.key.pem) and end entities, written to a directory.
struct Pki {
    dir: tempfile::TempDir,
    root: Certificate,
    ca: Certificate,
    n: std::cell::Cell<usize>,
}

impl Pki {
    fn new() -> Pki {
        let (root, ca) = root_and_ca("level root", "level CA");
        Pki { dir: tempdir(), root, ca, n: std::cell::Cell::new(0) }
    }

    /// `certs` written to a fresh file.
    fn file(&self, certs: &[&Certificate]) -> String {
        let n = self.n.get();
        self.n.set(n + 1);
        write(self.dir.path(), &format!("c{n}.pem"), certs)
    }

    /// An end entity on `key` under the CA, signed with `scheme`.
    fn leaf(&self, subject: &str, key: &RsaPrivateKey, scheme: SigScheme) -> Certificate {
        let ca = (&self.ca, &common::paths::key("ca.key.pem"));
        make(subject, key, |b| b.profile(Profile::Leaf).scheme(scheme), Some(ca))
    }

    /// `verify EXTRA -CAfile ROOT -untrusted CA LEAF`.
    fn verify(&self, extra: &[&str], leaf: &Certificate) -> Vec<(u32, usize)> {
        let (root, ca, leaf) =
            (self.file(&[&self.root]), self.file(&[&self.ca]), self.file(&[leaf]));
        let mut args = extra.to_vec();
        args.extend(["-CAfile", &root, "-untrusted", &ca, &leaf]);
        verify_failures(&args)
    }
}

#[test]
fn security_levels_of_keys_and_digests() {
    let p = Pki::new();
    let leaf_key = key("leaf.key.pem"); // 2048 bits: 112 bits of security
    let sha1 = p.leaf("/CN=sha1 leaf", &leaf_key, SigScheme::Pkcs1v15(HashAlg::Sha1));
    // SHA-1's 63 bits: below level 1; without -auth_level neither tool asks.
    assert_eq!(p.verify(&[], &sha1), []);
    assert_eq!(p.verify(&["-auth_level", "0"], &sha1), []);
    assert_eq!(p.verify(&["-auth_level", "1"], &sha1), [(68, 0)]);
    let sha256 = p.leaf("/CN=sha256 leaf", &leaf_key, SigScheme::DEFAULT);
    assert_eq!(p.verify(&["-auth_level", "2"], &sha256), []);
    // Level 3 asks for 128 bits: the 2048-bit end entity stops the work at once.
    assert_eq!(p.verify(&["-auth_level", "3"], &sha256), [(66, 0)]);
    // A 3072-bit end entity under 2048-bit CAs: the CA's key, then (a level above 5
    // counts as 5) the 256 bits SHA-512 alone gives.
    let big = RsaPrivateKey::generate(3072, &mut OsRng).unwrap();
    let sha384 = p.leaf("/CN=3072 leaf", &big, SigScheme::Pkcs1v15(HashAlg::Sha384));
    assert_eq!(p.verify(&["-auth_level", "3"], &sha384), [(67, 1)]);
    assert_eq!(p.verify(&["-auth_level", "9"], &sha384), [(66, 0)]);
    // The trust anchor's own digest is not judged: a root self-signed with SHA-1.
    let root_key = key("root.key");
    let sha1_root = make(
        "/CN=sha1 root",
        &root_key,
        |b| b.profile(Profile::Ca).scheme(SigScheme::Pkcs1v15(HashAlg::Sha1)),
        None,
    );
    let leaf = make(
        "/CN=under a sha1 root",
        &leaf_key,
        |b| b.profile(Profile::Leaf),
        Some((&sha1_root, &root_key)),
    );
    let (root, leaf) = (p.file(&[&sha1_root]), p.file(&[&leaf]));
    assert_eq!(verify_failures(&["-auth_level", "2", "-CAfile", &root, &leaf]), []);
}

#[test]
fn the_longest_path() {
    let p = Pki::new();
    let leaf = p.leaf("/CN=leaf", &key("leaf.key.pem"), SigScheme::DEFAULT);
    assert_eq!(p.verify(&["-verify_depth", "0"], &leaf), [(22, 1)]);
    assert_eq!(p.verify(&["-verify_depth", "1"], &leaf), []);
    // Directly under the root: no intermediate CA at all.
    let root_key = key("root.key");
    let direct = make(
        "/CN=direct",
        &key("leaf.key.pem"),
        |b| b.profile(Profile::Leaf),
        Some((&p.root, &root_key)),
    );
    let (root, direct) = (p.file(&[&p.root]), p.file(&[&direct]));
    assert_eq!(verify_failures(&["-verify_depth", "0", "-CAfile", &root, &direct]), []);
}

#[test]
fn the_trust_anchors_own_signature() {
    let p = Pki::new();
    let leaf = p.leaf("/CN=leaf", &key("leaf.key.pem"), SigScheme::DEFAULT);
    // The root with the last bit of its signature flipped: its key still signs the CA.
    let mut der = p.root.to_der().unwrap();
    *der.last_mut().unwrap() ^= 1;
    let broken = Certificate::from_der(&der).unwrap();
    let (root, ca, leaf) = (p.file(&[&broken]), p.file(&[&p.ca]), p.file(&[&leaf]));
    let args = ["-CAfile", &root, "-untrusted", &ca, &leaf];
    assert_eq!(verify_failures(&args), []);
    assert_eq!(verify_failures(&[&["-check_ss_sig"][..], &args].concat()), [(7, 2)]);
}

#[test]
fn a_trust_list_apart_from_the_store() {
    let p = Pki::new();
    let leaf = p.leaf("/CN=leaf", &key("leaf.key.pem"), SigScheme::DEFAULT);
    let (root, ca, leaf) = (p.file(&[&p.root]), p.file(&[&p.ca]), p.file(&[&leaf]));
    assert_eq!(verify_failures(&["-trusted", &root, "-untrusted", &ca, &leaf]), []);
    // The CA alone is trusted only as the end of a partial chain.
    assert_eq!(verify_failures(&["-trusted", &ca, &leaf]), [(2, 1)]);
    assert_eq!(verify_failures(&["-trusted", &ca, "-partial_chain", &leaf]), []);
    // Not with -CAfile: bad options.
    let out = run(&["verify", "-trusted", &root, "-CAfile", &root, &leaf], b"");
    fails(&out, 1, "Cannot use -trusted with -CAfile");
}
