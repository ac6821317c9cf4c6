//! `verify -purpose` for the purposes beyond S/MIME signing and TLS (OpenSSL 3.0's
//! `check_purpose_*` in `crypto/x509/v3_purp.c`): `nssslserver`, `smimeencrypt`,
//! `crlsign`, `ocsphelper`, `timestampsign`, each with end entities that fit and that do
//! not, beside `openssl verify` (same stdout, stderr and exit status where it is
//! installed; the expected failures asserted everywhere).

mod common;

use common::paths::*;
use common::*;
use cryptocard_pki::cert::{Certificate, Profile};

const KU: &str = "2.5.29.15";
const EKU: &str = "2.5.29.37";

/// keyUsage with the bits of its first byte: 0x80 digitalSignature, 0x40
/// nonRepudiation, 0x20 keyEncipherment, 0x02 cRLSign.
fn ku(bits: u8) -> Vec<u8> {
    tlv(0x03, &[bits.trailing_zeros() as u8, bits])
}

const SIGN: u8 = 0x80;
const NON_REPUDIATION: u8 = 0x40;
const ENCIPHER: u8 = 0x20;
const CRL_SIGN: u8 = 0x02;

/// id-kp-N (1.3.6.1.5.5.7.3.N) as DER contents.
fn kp(n: u8) -> Vec<u8> {
    vec![0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, n]
}

const SERVER_AUTH: u8 = 1;
const EMAIL: u8 = 4;
const TIME_STAMPING: u8 = 8;

/// extendedKeyUsage of these OIDs (DER contents).
fn eku(oids: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x30, &oids.iter().flat_map(|o| tlv(0x06, o)).collect::<Vec<u8>>())
}

struct Pki {
    dir: tempfile::TempDir,
    root: Certificate,
    ca: Certificate,
    n: std::cell::Cell<usize>,
}

impl Pki {
    fn new() -> Pki {
        let (root, ca) = root_and_ca("purpose root", "purpose CA");
        Pki { dir: tempdir(), root, ca, n: std::cell::Cell::new(0) }
    }

    /// An end entity under the CA with these keyUsage bits (none: no keyUsage) and
    /// extendedKeyUsage (`None`: none), the latter critical if `critical`.
    fn leaf(&self, ku_bits: u8, ekus: Option<&[Vec<u8>]>, critical: bool) -> Certificate {
        let n = self.n.get();
        self.n.set(n + 1);
        make(
            &format!("/CN=leaf {n}"),
            &key("leaf.key.pem"),
            |b| {
                let mut b = b.profile(Profile::Leaf);
                if ku_bits != 0 {
                    b = b.extension(ext(KU, true, ku(ku_bits)));
                }
                if let Some(oids) = ekus {
                    b = b.extension(ext(EKU, critical, eku(oids)));
                }
                b
            },
            Some((&self.ca, &key("ca.key.pem"))),
        )
    }

    /// `verify -purpose PURPOSE -CAfile ROOT -untrusted CA LEAF` through both tools.
    fn verify(&self, purpose: &str, leaf: &Certificate) -> Vec<(u32, usize)> {
        self.verify_with(&["-purpose", purpose], leaf)
    }

    /// `verify ARGS -CAfile ROOT -untrusted CA LEAF` through both tools.
    fn verify_with(&self, args: &[&str], leaf: &Certificate) -> Vec<(u32, usize)> {
        let n = self.n.get();
        self.n.set(n + 1);
        let d = self.dir.path();
        let root = write(d, &format!("root{n}.pem"), &[&self.root]);
        let ca = write(d, &format!("ca{n}.pem"), &[&self.ca]);
        let leaf = write(d, &format!("leaf{n}.pem"), &[leaf]);
        verify_failures(&[args, &["-CAfile", &root, "-untrusted", &ca, &leaf]].concat())
    }
}

const UNSUITABLE: [(u32, usize); 1] = [(26, 0)];

#[test]
fn tls_servers_for_netscape_clients_encipher() {
    let p = Pki::new();
    let server = [kp(SERVER_AUTH)];
    let signing = p.leaf(SIGN, Some(&server), false);
    assert_eq!(p.verify("sslserver", &signing), []);
    assert_eq!(p.verify("nssslserver", &signing), UNSUITABLE);
    let enciphering = p.leaf(SIGN | ENCIPHER, Some(&server), false);
    assert_eq!(p.verify("nssslserver", &enciphering), []);
    let client_only = p.leaf(ENCIPHER, Some(&[kp(2)]), false);
    assert_eq!(p.verify("nssslserver", &client_only), UNSUITABLE);
}

#[test]
fn smime_encryption_needs_key_encipherment() {
    let p = Pki::new();
    let email = [kp(EMAIL)];
    assert_eq!(p.verify("smimeencrypt", &p.leaf(ENCIPHER, Some(&email), false)), []);
    assert_eq!(p.verify("smimeencrypt", &p.leaf(0, None, false)), []);
    let signer = p.leaf(SIGN, Some(&email), false);
    assert_eq!(p.verify("smimesign", &signer), []);
    assert_eq!(p.verify("smimeencrypt", &signer), UNSUITABLE);
    let server = p.leaf(ENCIPHER, Some(&[kp(SERVER_AUTH)]), false);
    assert_eq!(p.verify("smimeencrypt", &server), UNSUITABLE);
}

#[test]
fn crl_signers_and_ocsp_helpers() {
    let p = Pki::new();
    assert_eq!(p.verify("crlsign", &p.leaf(CRL_SIGN | SIGN, None, false)), []);
    assert_eq!(p.verify("crlsign", &p.leaf(0, None, false)), []);
    assert_eq!(p.verify("crlsign", &p.leaf(SIGN, None, false)), UNSUITABLE);
    // No extendedKeyUsage is read for CRL signing: a TLS server's signs CRLs.
    assert_eq!(p.verify("crlsign", &p.leaf(CRL_SIGN, Some(&[kp(SERVER_AUTH)]), false)), []);
    // The responder itself is OCSP's to judge.
    assert_eq!(p.verify("ocsphelper", &p.leaf(ENCIPHER, Some(&[kp(EMAIL)]), false)), []);
}

#[test]
fn time_stamping_authorities() {
    let p = Pki::new();
    let tsa = [kp(TIME_STAMPING)];
    assert_eq!(p.verify("timestampsign", &p.leaf(SIGN, Some(&tsa), true)), []);
    assert_eq!(p.verify("timestampsign", &p.leaf(NON_REPUDIATION, Some(&tsa), true)), []);
    assert_eq!(p.verify("timestampsign", &p.leaf(0, Some(&tsa), true)), []);
    // Not critical; none; beside another purpose OpenSSL knows; beside one it does not.
    assert_eq!(p.verify("timestampsign", &p.leaf(SIGN, Some(&tsa), false)), UNSUITABLE);
    assert_eq!(p.verify("timestampsign", &p.leaf(SIGN, None, false)), UNSUITABLE);
    let two = [kp(TIME_STAMPING), kp(SERVER_AUTH)];
    assert_eq!(p.verify("timestampsign", &p.leaf(SIGN, Some(&two), true)), UNSUITABLE);
    let unknown = [kp(TIME_STAMPING), vec![0x2a, 0x03, 0x04]];
    assert_eq!(p.verify("timestampsign", &p.leaf(SIGN, Some(&unknown), true)), []);
    // A keyUsage beyond signing.
    let enciphering = p.leaf(SIGN | ENCIPHER, Some(&tsa), true);
    assert_eq!(p.verify("timestampsign", &enciphering), UNSUITABLE);
}

/// An issuer that is not a CA fails every purpose but `any` too, where OpenSSL's purpose
/// check asks its `check_ca`; a root that is a CA by its keyUsage alone is one for a
/// purpose, also under -x509_strict (which fails its CA status).
#[test]
fn issuers_must_be_cas_for_a_purpose() {
    let p = Pki::new();
    let root_key = key("root.key");
    let ca_key = key("ca.key.pem");
    let not_ca =
        make("/CN=not a CA", &ca_key, |b| b.profile(Profile::Leaf), Some((&p.root, &root_key)));
    let leaf = |issuer: &Certificate| {
        make(
            "/CN=leaf",
            &key("leaf.key.pem"),
            |b| b.profile(Profile::Leaf),
            Some((issuer, &ca_key)),
        )
    };
    let d = p.dir.path();
    let root = write(d, "root.pem", &[&p.root]);
    let (ca, l) = (write(d, "not-ca.pem", &[&not_ca]), write(d, "leaf.pem", &[&leaf(&not_ca)]));
    let purposes = ["sslclient", "sslserver", "nssslserver", "smimesign", "smimeencrypt"];
    for purpose in purposes.into_iter().chain(["crlsign", "ocsphelper"]) {
        let args = ["-purpose", purpose, "-CAfile", &root, "-untrusted", &ca, &l];
        assert_eq!(verify_failures(&args), [(79, 1), (26, 1)], "{purpose}");
    }
    let args = ["-purpose", "any", "-CAfile", &root, "-untrusted", &ca, &l];
    assert_eq!(verify_failures(&args), [(79, 1)]);
    // A root with keyCertSign and no basicConstraints.
    let ku_root = make(
        "/CN=keyUsage root",
        &root_key,
        |b| b.profile(Profile::V1).extension(ext(KU, true, ku(0x04))),
        None,
    );
    let ca = make("/CN=CA", &ca_key, |b| b.profile(Profile::Ca), Some((&ku_root, &root_key)));
    let root = write(d, "ku-root.pem", &[&ku_root]);
    let (ca, l) = (write(d, "ca.pem", &[&ca]), write(d, "leaf2.pem", &[&leaf(&ca)]));
    let args = ["-purpose", "sslserver", "-CAfile", &root, "-untrusted", &ca, &l];
    assert_eq!(verify_failures(&args), []);
    let strict = [&["-x509_strict"][..], &args].concat();
    assert_eq!(verify_failures(&strict), [(79, 2), (82, 2)]);
}

#[test]
fn verify_names_set_a_purpose() {
    let p = Pki::new();
    let server = p.leaf(SIGN, Some(&[kp(SERVER_AUTH)]), false);
    let name = |n: &str| p.verify_with(&["-verify_name", n], &server);
    assert_eq!(name("default"), []);
    assert_eq!(name("ssl_server"), []);
    assert_eq!(name("ssl_client"), UNSUITABLE);
    assert_eq!(name("smime_sign"), UNSUITABLE);
    assert_eq!(name("pkcs7"), UNSUITABLE);
    // With -purpose too, the one given last wins; `default` sets no purpose.
    let both = |args: &[&str]| p.verify_with(args, &server);
    assert_eq!(both(&["-verify_name", "ssl_client", "-purpose", "sslserver"]), []);
    assert_eq!(both(&["-purpose", "sslserver", "-verify_name", "smime_sign"]), UNSUITABLE);
    assert_eq!(both(&["-purpose", "smimesign", "-verify_name", "default"]), UNSUITABLE);
    let out = common::run(&["verify", "-verify_name", "bogus"], b"");
    common::fails(&out, 1, "Invalid verify name bogus");
}
