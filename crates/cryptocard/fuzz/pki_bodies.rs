//! The bodies of the `cms`, `pkcs12`, `conf` and `names` fuzz targets, shared with the test that runs
//! them over their seed corpora (crates/pki/tests/fuzz_corpus.rs includes this file), so
//! that the suite runs, without nightly, exactly what a fuzzing run starts from. Each
//! body says what its input reached, for that test to check that the seeds reach what
//! they are there for; the targets drop it.

#![allow(dead_code)] // each includer uses its own part

use cryptocard::rng::OsRng;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::pkcs12::{self, BagContent, ParseOptions, key_to_pem};
use cryptocard_pki::{Error, asn1, cert, cms, conf, ts};
use std::sync::OnceLock;

/// What one input reached.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reached {
    /// A CMS message that parsed.
    pub message: bool,
    /// A signature that verified to the test root.
    pub verified: bool,
    /// An enveloped message that opened with the test recipient's key.
    pub decrypted: bool,
    /// Certificates that parsed (a bundle, or a PKCS#12 file's bags).
    pub certs: usize,
    /// A private key that came out (of a PKCS#12 file).
    pub key: bool,
    /// CRLs that parsed.
    pub crls: usize,
    /// A CRL whose signature a certificate of the same input verified.
    pub crl_signed: bool,
    /// A signed message whose signer's path its own CRLs revoke.
    pub revoked: bool,
    /// Sections of a configuration file that read as extensions.
    pub sections: usize,
    /// Extensions they made.
    pub extensions: usize,
    /// (certificate, constraining certificate) checks that passed.
    pub names_within: usize,
    /// The failures of those that did not, and of the policy checks: bit `n` for
    /// OpenSSL's error `n`.
    pub name_failures: u64,
    /// The policy checks that passed: bit `i` for the `i`th inputs.
    pub policies_valid: u8,
    /// An OCSP request that parsed.
    pub ocsp_request: bool,
    /// The answers of an OCSP response that verified to the test root.
    pub ocsp_answers: usize,
    /// Whether the input listed to its end as `asn1parse` lists it.
    pub listed: bool,
    /// A time-stamp request that parsed.
    pub ts_request: bool,
    /// A time-stamp response or token that verified to the test root.
    pub ts_verified: bool,
    /// Configuration values that made DER as generator strings (`asn1::generate`).
    pub generated: usize,
}

fn recipient() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| {
        RsaPrivateKey::from_pem(include_str!("../../pki/tests/data/recipient.key"), None)
            .expect("the test key parses")
    })
}

fn trust() -> &'static cms::VerifyOptions {
    static OPTS: OnceLock<cms::VerifyOptions> = OnceLock::new();
    OPTS.get_or_init(|| cms::VerifyOptions {
        trusted: cert::read_certs(include_bytes!("../../pki/tests/data/root.pem")).unwrap(),
        untrusted: cert::read_certs(include_bytes!("../../pki/tests/data/inter.pem")).unwrap(),
        ..Default::default()
    })
}

/// `cms`: certificates and CMS messages from hostile bytes. Every reader of crates/pki
/// (S/MIME, PEM and DER CMS, certificate bundles, requests), then verification (also
/// with revocation by the message's CRLs) and
/// decryption of whatever parses (the recipient key and trust of crates/pki/tests/data),
/// the text form of every certificate and CRL, each CRL's signature against every
/// certificate, and each certificate's path in the bundle read as a trust store, checked
/// for a TLS server's purpose and host name and for revocation by the input's CRLs with
/// every failure reported; the input as an OCSP request and response, read and printed as
/// text; and as an RFC 3161 time-stamp request, response and token, printed and checked
/// against the test root. Anything may be refused; nothing may panic or hang.
pub fn cms(data: &[u8]) -> Reached {
    let mut r = Reached::default();
    for format in [cms::Format::Der, cms::Format::Pem, cms::Format::Smime] {
        let Ok((der, detached)) = cms::read(data, format) else { continue };
        r.message |= cms::kind_of(&der).is_ok();
        r.verified |= cms::verify(&der, detached.as_deref(), trust()).is_ok();
        // Again with every path checked against the message's own CRLs.
        let with_crls = cms::VerifyOptions { crl_check: cms::CrlCheck::All, ..trust().clone() };
        let checked = cms::verify(&der, detached.as_deref(), &with_crls);
        r.revoked |=
            matches!(checked, Err(Error::Path(e)) if e.failure == cert::PathFailure::Revoked);
        r.decrypted |= cms::decrypt(&der, recipient(), None).is_ok();
    }
    let crls = cert::read_crls(data).unwrap_or_default();
    r.crls = crls.len();
    for crl in &crls {
        let _ = cert::crl_text(crl);
        let _ = (crl.to_pem(), crl.number_hex());
    }
    if let Ok(certs) = cert::read_certs(data) {
        r.certs = certs.len();
        r.crl_signed = crls.iter().any(|crl| certs.iter().any(|c| crl.signed_by(c)));
        let now = std::time::SystemTime::now();
        // The bundle as its own store, every check (the strict ones too) going on past
        // every failure.
        let store = cert::TrustStore::new(certs.clone(), false);
        // The CRLs of the same input, if any, for every certificate of each path.
        let checks = cert::PathChecks {
            host: Some("www.example.com"),
            email: Some("user@example.com"),
            ip: Some(&[10, 0, 0, 1]),
            go_on: &|_| true,
            revocation: Some(cert::Revocation { crls: &crls, all: true }),
            strict: true,
            ..cert::PathChecks::new(now, cert::Purpose::SslServer)
        };
        for c in &certs {
            let _ = cert::cert_text(c);
            let _ = cert::verify_chain(c, &certs, &trust().trusted, now);
            let _ = cert::host_matches(c, ".example.com");
            let _ = (cert::email_matches(c, "a@example.com"), cert::ip_matches(c, &[0; 16]));
            let _ = store.verify_report(c, &certs, &checks, &mut cert::PathBudget::new());
        }
    }
    if let Ok(csr) = cert::read_csr(data) {
        let _ = cert::verify_csr(&csr);
        let _ = cert::csr_text(&csr);
    }
    // OCSP: the input as a request, and as a response read and checked against the test
    // root with the bundle's certificates.
    r.ocsp_request = cryptocard_pki::ocsp::parse_request(data).is_ok();
    let _ = cryptocard_pki::ocsp::response_status(data);
    let _ = cryptocard_pki::ocsp::request_text(data);
    let _ = cryptocard_pki::ocsp::response_text(data);
    let ocsp_checks = cryptocard_pki::ocsp::ResponseVerify {
        trusted: trust().trusted.clone(),
        partial_chain: false,
        untrusted: cert::read_certs(data).unwrap_or_default(),
        trust_untrusted: false,
        at: std::time::SystemTime::now(),
        no_verify: false,
        relaxed: Default::default(),
    };
    if let Ok(v) = cryptocard_pki::ocsp::verify_response(data, &ocsp_checks) {
        r.ocsp_answers = v.statuses.len();
    }
    // RFC 3161: a request, and a response or bare token checked against its own imprint
    // (so that the check goes on to the signer, its path and the ESS binding).
    let names = asn1::ObjectNames::default();
    r.ts_request = ts::Request::parse(data).is_ok();
    let _ = ts::request_text(data, &names);
    for resp in [ts::Response::parse(data), ts::Response::from_token(data)].into_iter().flatten() {
        let _ = (resp.text(&names), resp.tst_info_text(&names), resp.to_der());
        let digest = resp.digest().map(<[u8]>::to_vec).unwrap_or_default();
        r.ts_verified |= ts::verify(&resp, ts::Expect::Digest(&digest), trust()).is_ok();
    }
    // The input listed element by element, and dug into where the first elements'
    // contents start and at its middle.
    r.listed = asn1::list(data, true, asn1::Dump::All).complete;
    for at in [2, 4, 6, data.len() / 2] {
        if let Ok(inner) = asn1::dig(data, at) {
            let _ = asn1::list(&inner, false, asn1::Dump::Limit(8));
        }
    }
    r
}

/// The most certificates of one input `names` checks against each other.
const NAMES_MAX_CERTS: usize = 16;

/// `names`: name constraints and policies from hostile bytes. Each of the first 16
/// certificates of a bundle (PEM, or DER certificates one after the other, which mutate
/// better), as an end entity and as a CA, against the constraints of each; then the
/// bundle as a path (end entity first, trust anchor last) for its policies, with the
/// default inputs, an explicit policy required, and anyPolicy and mappings inhibited
/// with one policy acceptable. Each certificate's subject and issuer are printed in every
/// form of `-nameopt`, and what `x509` prints of it besides its text (emails, OCSP
/// responders and hashes, purposes, the next serial). Signatures play no part, so
/// that mutated certificates still reach the comparisons. Anything may fail; nothing may
/// panic or hang.
pub fn names(data: &[u8]) -> Reached {
    let mut r = Reached::default();
    let certs = match cert::read_certs(data) {
        Ok(certs) => certs,
        Err(_) => der_certs(data),
    };
    r.certs = certs.len();
    let certs = &certs[..certs.len().min(NAMES_MAX_CERTS)];
    let forms = [
        "oneline",
        "RFC2253",
        "multiline",
        "compat",
        "oid,dump_all,show_type",
        "utf8,-esc_msb,sep_semi_plus_space,lname,align,dn_rev",
        "esc_2254,ignore_type,dump_der,nofname,use_quote",
    ]
    .map(|f| cert::NameOpt::from_args(&[f]).expect("the forms parse"));
    for c in certs {
        let tbs = c.tbs_certificate();
        for form in forms {
            let _ =
                (cert::print_name(tbs.subject(), 4, form), cert::name_text(tbs.issuer(), 0, form));
        }
        let _ = (cert::emails(c), cert::ocsp_uris(c), cert::ocspid_text(c));
        let _ = (cert::purposes_text(c), cert::next_serial_hex(tbs.serial_number()));
        for constraining in certs {
            for end_entity in [true, false] {
                match cert::check_name_constraints(c, constraining, end_entity) {
                    Ok(()) => r.names_within += 1,
                    Err(failure) => r.name_failures |= 1 << failure.code().min(63),
                }
            }
        }
    }
    // The first policy of the seeds (crates/cli/tests/policies.rs).
    let users =
        [cryptocard::rsa::spki::der::asn1::ObjectIdentifier::new_unwrap("1.3.6.1.4.1.55555.1")];
    let inputs = [
        cert::PolicyInputs::default(),
        cert::PolicyInputs { explicit: true, ..Default::default() },
        cert::PolicyInputs {
            user_policies: Some(&users),
            explicit: true,
            inhibit_any: true,
            inhibit_map: true,
        },
    ];
    for (i, inputs) in inputs.iter().enumerate() {
        match cert::policies_valid(certs, inputs) {
            Ok(()) => r.policies_valid |= 1 << i,
            Err(failure) => r.name_failures |= 1 << failure.code().min(63),
        }
    }
    r
}

/// The DER certificates at the start of `data`, one after the other, up to the first that
/// does not read.
fn der_certs(mut data: &[u8]) -> Vec<cert::Certificate> {
    let mut certs = Vec::new();
    while certs.len() < NAMES_MAX_CERTS {
        // A SEQUENCE's header: the tag, then a short length or a long one of 1 to 3 bytes.
        let (len, header) = match data {
            [0x30, n, ..] if *n < 0x80 => (usize::from(*n), 2),
            [0x30, n @ 0x81..=0x83, rest @ ..] if rest.len() >= usize::from(n - 0x80) => {
                let k = usize::from(n - 0x80);
                (rest[..k].iter().fold(0, |a, &b| a << 8 | usize::from(b)), 2 + k)
            }
            _ => break,
        };
        let Some(one) = data.get(..header + len) else { break };
        let Ok(c) = cert::cert_from_der(one) else { break };
        certs.push(c);
        data = &data[header + len..];
    }
    certs
}

/// `pkcs12`: PKCS#12 files from hostile bytes, parsed with the seeds' password and with
/// the empty one, under small iteration limits (so that a run spends its time on parsing,
/// not on derivations, and a count above them is refused before any work); every key that
/// comes out is checked as RSA and written as PEM, every certificate printed as text,
/// every attribute printed as OpenSSL prints it. Anything may be refused; nothing may
/// panic or hang.
pub fn pkcs12(data: &[u8]) -> Reached {
    let mut r = Reached::default();
    let limits =
        ParseOptions { max_iterations: 4096, max_total_iterations: 16384, ..Default::default() };
    for password in [&b"cryptocard"[..], b""] {
        let Ok(p12) = pkcs12::parse_with(data, password, &limits) else { continue };
        r.key |= p12.rsa_private_key().is_ok_and(|k| k.is_some());
        let _ = p12.end_entity();
        for bag in p12.bags() {
            for a in &bag.attributes {
                let _ = a.openssl_line();
            }
            let _ = (bag.friendly_name(), bag.local_key_id());
            match &bag.content {
                BagContent::Key { pkcs8, attributes, .. } => {
                    for a in attributes {
                        let _ = a.openssl_line();
                    }
                    let _ = key_to_pem(pkcs8, None, &mut OsRng);
                }
                BagContent::Cert(c) => {
                    r.certs += 1;
                    let _ = cert::cert_text(c);
                }
                BagContent::Other(_) => {}
            }
        }
    }
    r
}

/// `conf`: OpenSSL configuration files from hostile bytes (what `ca -config` and
/// `x509 -extfile` read): the reader, then every section read as X.509 extensions, once
/// for a certificate the test intermediate issues and once for a self-signed one (the
/// test root's name, key and serial), with OpenSSL's key identifier defaults after; and
/// every value of every section as one `name = value` extension. Anything may be
/// refused; nothing may panic or hang.
pub fn conf(data: &[u8]) -> Reached {
    let mut r = Reached::default();
    let Ok(conf) = conf::Conf::parse(&String::from_utf8_lossy(data)) else { return r };
    let subject = trust().trusted[0].tbs_certificate();
    for issuer in [Some(&trust().untrusted[0]), None] {
        let ctx = cert::ExtContext {
            conf: Some(&conf),
            subject_name: Some(subject.subject()),
            subject_key: Some(subject.subject_public_key_info()),
            issuer,
            serial: Some(subject.serial_number()),
        };
        for section in conf.section_names() {
            if let Ok(mut exts) = cert::section_extensions(&conf, section, &ctx)
                && cert::key_id_defaults(&mut exts, &ctx, issuer.is_none()).is_ok()
            {
                r.sections += 1;
                r.extensions += exts.len();
            }
            for (name, value) in conf.section(section).unwrap_or_default() {
                let _ = cert::conf_extension(name, value, &ctx, &[]);
            }
        }
    }
    // Every value as an ASN.1 generator string, its SEQUENCE and SET sections the file's.
    for section in conf.section_names() {
        for (_, value) in conf.section(section).unwrap_or_default() {
            if let Ok(der) = asn1::generate(value, Some(&conf)) {
                r.generated += 1;
                let _ = asn1::list(&der, false, asn1::Dump::Off);
            }
        }
    }
    r
}
