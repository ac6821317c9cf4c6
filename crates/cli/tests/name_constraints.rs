//! Name constraints in `cryptocard verify` beside `openssl verify` (RFC 5280 4.2.1.10):
//! for each name form (DNS, email, SmtpUTF8Mailbox, URI, IP, directory name, the
//! commonName read as a DNS name), names inside and outside permitted and excluded
//! subtrees; constraints of the trust anchor and of nested CAs; a self-issued CA, which
//! is not checked; subtrees that cannot be used; and the bound on the work. Each path is
//! run through both tools where OpenSSL is installed, which must agree on stdout, stderr
//! and exit status; the expected outcome is asserted everywhere.
//!
//! The CAs and leaves are made here with cryptocard-pki on the keys of crates/pki/tests/
//! data, their extensions written in DER by hand.

mod common;

use common::paths::*;
use common::*;
use cryptocard::rsa::spki::der::Encode;
use cryptocard_pki::cert::{self, Certificate, Profile};
use std::path::Path;

fn dns(s: &str) -> Vec<u8> {
    tlv(0x82, s.as_bytes())
}

fn email(s: &str) -> Vec<u8> {
    tlv(0x81, s.as_bytes())
}

fn uri(s: &str) -> Vec<u8> {
    tlv(0x86, s.as_bytes())
}

fn ip(b: &[u8]) -> Vec<u8> {
    tlv(0x87, b)
}

fn dir(name: &str) -> Vec<u8> {
    tlv(0xa4, &cert::parse_subject(name).unwrap().to_der().unwrap())
}

/// An otherName of type `oid` (its DER content octets) holding `value` (DER).
fn other(oid: &[u8], value: &[u8]) -> Vec<u8> {
    let mut content = tlv(0x06, oid);
    content.extend(tlv(0xa0, value));
    tlv(0xa0, &content)
}

/// id-on-SmtpUTF8Mailbox, 1.3.6.1.5.5.7.8.9.
const SMTP_UTF8: [u8; 8] = [0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x08, 0x09];
/// Microsoft's user principal name, 1.3.6.1.4.1.311.20.2.3.
const UPN: [u8; 10] = [0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x14, 0x02, 0x03];

fn mailbox(s: &str) -> Vec<u8> {
    other(&SMTP_UTF8, &tlv(0x0c, s.as_bytes()))
}

/// A nameConstraints value: `permitted` and `excluded` subtrees, each a base.
fn nc(permitted: &[Vec<u8>], excluded: &[Vec<u8>]) -> Vec<u8> {
    let subtrees =
        |bases: &[Vec<u8>]| -> Vec<u8> { bases.iter().flat_map(|b| tlv(0x30, b)).collect() };
    let mut content = Vec::new();
    if !permitted.is_empty() {
        content.extend(tlv(0xa0, &subtrees(permitted)));
    }
    if !excluded.is_empty() {
        content.extend(tlv(0xa1, &subtrees(excluded)));
    }
    tlv(0x30, &content)
}

/// A subjectAltName value.
fn san(names: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x30, &names.concat())
}

/// The test root and a fresh directory.
struct Pki {
    dir: tempfile::TempDir,
    root: Certificate,
    root_path: String,
    count: std::cell::Cell<usize>,
}

impl Pki {
    fn new() -> Pki {
        Pki {
            dir: tempdir(),
            root: load("root.pem"),
            root_path: pki_path("root.pem"),
            count: std::cell::Cell::new(0),
        }
    }

    fn d(&self) -> &Path {
        self.dir.path()
    }

    /// A CA for `subject` under `issuer` (the root if `None`), with the
    /// nameConstraints value `nc` (critical), if any.
    fn ca(&self, subject: &str, nc: Option<Vec<u8>>, issuer: Option<&Certificate>) -> Certificate {
        let root_key = key("root.key");
        let ca_key = key("ca.key.pem");
        let issuer = match issuer {
            Some(c) => (c, &ca_key),
            None => (&self.root, &root_key),
        };
        make(
            subject,
            &ca_key,
            |b| {
                let b = b.profile(Profile::Ca);
                match nc {
                    Some(v) => b.extension(ext("2.5.29.30", true, v)),
                    None => b,
                }
            },
            Some(issuer),
        )
    }

    /// A leaf for `subject` with the subjectAltName `names` (none if empty), issued by
    /// `ca` (on ca.key.pem).
    fn leaf(&self, subject: &str, names: &[Vec<u8>], ca: &Certificate) -> Certificate {
        make(
            subject,
            &key("leaf.key.pem"),
            |b| {
                let b = b.profile(Profile::Leaf);
                if names.is_empty() { b } else { b.extension(ext("2.5.29.17", false, san(names))) }
            },
            Some((ca, &key("ca.key.pem"))),
        )
    }

    /// `verify` of `leaf` over the `untrusted` CAs to the root (or to `anchor`), through
    /// both tools; returns ours.
    fn verify(
        &self,
        leaf: &Certificate,
        untrusted: &[&Certificate],
        anchor: Option<&Certificate>,
    ) -> std::process::Output {
        let n = self.count.get();
        self.count.set(n + 1);
        let leaf_path = write(self.d(), &format!("leaf{n}.pem"), &[leaf]);
        let anchor_path = match anchor {
            Some(a) => write(self.d(), &format!("anchor{n}.pem"), &[a]),
            None => self.root_path.clone(),
        };
        let mut args = vec!["-CAfile".to_string(), anchor_path];
        if !untrusted.is_empty() {
            args.push("-untrusted".into());
            args.push(write(self.d(), &format!("untrusted{n}.pem"), untrusted));
        }
        args.push(leaf_path);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        both(&args, b"")
    }

    /// `leaf` over `untrusted` verifies.
    fn passes(&self, leaf: &Certificate, untrusted: &[&Certificate], anchor: Option<&Certificate>) {
        let out = self.verify(leaf, untrusted, anchor);
        let subject = cert::display_name(leaf.tbs_certificate().subject());
        assert!(
            out.status.success() && ok_text(&out).ends_with(": OK\n"),
            "{subject}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `leaf` over `untrusted` fails with `error CODE at DEPTH depth lookup: WORDS`.
    fn fails(
        &self,
        leaf: &Certificate,
        untrusted: &[&Certificate],
        code: u32,
        depth: usize,
        words: &str,
    ) {
        let out = self.verify(leaf, untrusted, None);
        let err = String::from_utf8_lossy(&out.stderr);
        let subject = cert::display_name(leaf.tbs_certificate().subject());
        let want = format!("error {code} at {depth} depth lookup: {words}\n");
        assert_eq!(out.status.code(), Some(2), "{subject}: {err}");
        assert!(err.contains(&want), "{subject}: want {want}, got {err}");
        assert!(out.stdout.is_empty(), "{subject}");
    }
}

const PERMITTED: (u32, &str) = (47, "permitted subtree violation");
const EXCLUDED: (u32, &str) = (48, "excluded subtree violation");

#[test]
fn dns_names_and_common_names() {
    let p = Pki::new();
    let ca = p.ca(
        "/CN=dns CA",
        Some(nc(&[dns(".example.com"), dns("example.net")], &[dns("bad.example.com")])),
        None,
    );
    let leaf = |subject: &str, names: &[Vec<u8>]| p.leaf(subject, names, &ca);
    for names in [
        vec![dns("www.example.com")],
        vec![dns("WWW.EXAMPLE.COM"), dns("example.net"), dns("www.example.net")],
        // A name of another form is not constrained by DNS subtrees.
        vec![dns("a.example.com"), email("x@example.org")],
    ] {
        p.passes(&leaf("/CN=leaf", &names), &[&ca], None);
    }
    for (names, (code, words)) in [
        (vec![dns("www.example.org")], PERMITTED),
        (vec![dns("example.com")], PERMITTED),
        (vec![dns("wwwexample.net")], PERMITTED),
        (vec![dns("www.example.com"), dns("www.example.org")], PERMITTED),
        (vec![dns("bad.example.com")], EXCLUDED),
        (vec![dns("x.BAD.example.com")], EXCLUDED),
    ] {
        p.fails(&leaf("/CN=leaf", &names), &[&ca], code, 0, words);
    }
    // Without a DNS alternative name, a commonName that looks like a DNS name is one.
    p.fails(&leaf("/CN=www.example.org", &[]), &[&ca], PERMITTED.0, 0, PERMITTED.1);
    p.fails(&leaf("/CN=www.bad.example.com", &[email("a@b.c")]), &[&ca], EXCLUDED.0, 0, EXCLUDED.1);
    p.passes(&leaf("/CN=www.example.com", &[]), &[&ca], None);
    p.passes(&leaf("/CN=localhost", &[]), &[&ca], None);
    p.passes(&leaf("/CN=not a host name", &[]), &[&ca], None);
    p.passes(&leaf("/CN=www.example.org", &[dns("www.example.com")]), &[&ca], None);
}

#[test]
fn email_addresses_and_mailboxes() {
    let p = Pki::new();
    let ca = p.ca(
        "/CN=email CA",
        Some(nc(
            &[email(".example.com"), email("example.net"), email("boss@example.org")],
            &[email("spam.example.com"), email(".spam.example.com")],
        )),
        None,
    );
    let leaf = |subject: &str, names: &[Vec<u8>]| p.leaf(subject, names, &ca);
    for names in [
        vec![email("a@mail.example.com"), email("b@example.net"), email("boss@EXAMPLE.org")],
        vec![mailbox("\u{7528}\u{6237}@example.net")],
    ] {
        p.passes(&leaf("/CN=leaf", &names), &[&ca], None);
    }
    // The subject's emailAddress attributes are email addresses too.
    p.passes(&leaf("/CN=leaf/emailAddress=me@www.example.com", &[]), &[&ca], None);
    // A mailbox whose host ends with an excluded `.example.com` is excluded (RFC 8398
    // section 6), where OpenSSL 3.0 reads the subtree as `..example.com` and lets it by:
    // so ours alone.
    let spam = p.leaf("/CN=leaf", &[mailbox("\u{7528}\u{6237}@x.spam.example.com")], &ca);
    let (leaf_path, ca_path) = (write(p.d(), "spam.pem", &[&spam]), write(p.d(), "ca.pem", &[&ca]));
    let out = run(&["verify", "-CAfile", &p.root_path, "-untrusted", &ca_path, &leaf_path], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error 48 at 0 depth lookup: excluded subtree violation"), "{err}");
    for (subject, names, (code, words)) in [
        ("/CN=leaf", vec![email("a@example.com")], PERMITTED),
        ("/CN=leaf", vec![email("Boss@example.org")], PERMITTED),
        ("/CN=leaf", vec![email("a@www.example.net")], PERMITTED),
        ("/CN=leaf", vec![email("a@spam.example.com")], EXCLUDED),
        ("/CN=leaf/emailAddress=me@example.org", vec![], PERMITTED),
        ("/CN=leaf", vec![mailbox("\u{7528}\u{6237}@example.org")], PERMITTED),
        ("/CN=leaf", vec![email("no-at-sign")], (53, "unsupported or invalid name syntax")),
    ] {
        p.fails(&leaf(subject, &names), &[&ca], code, 0, words);
    }
}

#[test]
fn uris_and_ip_addresses() {
    let p = Pki::new();
    let net10 = [10, 0, 0, 0, 255, 0, 0, 0];
    let ca = p.ca(
        "/CN=uri CA",
        Some(nc(
            &[uri(".example.com"), uri("example.net"), ip(&net10)],
            &[ip(&[10, 9, 0, 0, 255, 255, 0, 0])],
        )),
        None,
    );
    let leaf = |names: &[Vec<u8>]| p.leaf("/CN=leaf", names, &ca);
    p.passes(
        &leaf(&[
            uri("https://www.example.com/a"),
            uri("ldap://EXAMPLE.net:389/x"),
            ip(&[10, 1, 2, 3]),
        ]),
        &[&ca],
        None,
    );
    let mut v6 = [0u8; 16];
    v6[15] = 1;
    for (names, (code, words)) in [
        (vec![uri("https://example.com/")], PERMITTED),
        (vec![uri("https://www.example.net/")], PERMITTED),
        (vec![ip(&[192, 168, 1, 1])], PERMITTED),
        // IPv4 subtrees only: an IPv6 address lies in none of them.
        (vec![ip(&v6)], PERMITTED),
        (vec![ip(&[10, 9, 8, 7])], EXCLUDED),
        (vec![uri("urn:isbn:0451450523")], (53, "unsupported or invalid name syntax")),
        (vec![ip(&[10, 1, 2])], (53, "unsupported or invalid name syntax")),
    ] {
        p.fails(&leaf(&names), &[&ca], code, 0, words);
    }
}

#[test]
fn directory_names_through_the_path() {
    let p = Pki::new();
    let ca = p.ca(
        "/C=US/O=Example/CN=dir CA",
        Some(nc(&[dir("/C=US/O=Example")], &[dir("/C=US/O=Example/OU=Sales")])),
        None,
    );
    p.passes(&p.leaf("/C=US/O=Example/CN=leaf", &[], &ca), &[&ca], None);
    // Names compare in canonical form: case and spacing do not count.
    p.passes(&p.leaf("/C=us/O=  EXAMPLE /CN=leaf", &[], &ca), &[&ca], None);
    p.passes(
        &p.leaf("/C=US/O=Example/CN=leaf", &[dir("/C=US/O=Example/CN=alias")], &ca),
        &[&ca],
        None,
    );
    p.fails(&p.leaf("/C=US/O=Other/CN=leaf", &[], &ca), &[&ca], PERMITTED.0, 0, PERMITTED.1);
    p.fails(&p.leaf("/O=Example/CN=leaf", &[], &ca), &[&ca], PERMITTED.0, 0, PERMITTED.1);
    let sales = "/C=US/O=Example/OU=Sales/CN=leaf";
    p.fails(&p.leaf(sales, &[], &ca), &[&ca], EXCLUDED.0, 0, EXCLUDED.1);
    let alias = [dir("/C=US/O=Other")];
    p.fails(&p.leaf("/C=US/O=Example/CN=leaf", &alias, &ca), &[&ca], PERMITTED.0, 0, PERMITTED.1);

    // An intermediate below the CA is checked too, and its own constraints narrow the
    // tree: a leaf must lie in both.
    let sub = p.ca(
        "/C=US/O=Example/OU=Eng/CN=sub CA",
        Some(nc(&[dns(".eng.example.com")], &[])),
        Some(&ca),
    );
    let leaf = |subject: &str, names: &[Vec<u8>]| p.leaf(subject, names, &sub);
    let eng = "/C=US/O=Example/OU=Eng/CN=leaf";
    p.passes(&leaf(eng, &[dns("a.eng.example.com")]), &[&ca, &sub], None);
    p.fails(&leaf(eng, &[dns("a.example.com")]), &[&ca, &sub], PERMITTED.0, 0, PERMITTED.1);
    p.fails(
        &leaf("/C=US/O=Other/CN=leaf", &[dns("a.eng.example.com")]),
        &[&ca, &sub],
        PERMITTED.0,
        0,
        PERMITTED.1,
    );
    let stray = p.ca("/C=US/O=Other/CN=stray CA", None, Some(&ca));
    p.fails(&p.leaf(eng, &[], &stray), &[&ca, &stray], PERMITTED.0, 1, PERMITTED.1);

    // A self-issued CA (a CA re-keyed under the same name) is not checked (RFC 5280
    // 6.1.3 (b)), even against the constraints of its own issuer; a leaf under it is.
    let outside = "/C=US/O=Outside/CN=rollover CA";
    let old = p.ca(outside, Some(nc(&[dir("/C=US/O=Example")], &[])), None);
    let new_key = key("inter.key");
    let under = |subject: &str, issuer: &Certificate| {
        make(subject, &new_key, |b| b.profile(Profile::Ca), Some((issuer, &key("ca.key.pem"))))
    };
    let rollover = under(outside, &old);
    let leaf = |subject: &str| {
        make(
            subject,
            &key("leaf.key.pem"),
            |b| b.profile(Profile::Leaf),
            Some((&rollover, &new_key)),
        )
    };
    p.passes(&leaf("/C=US/O=Example/CN=leaf"), &[&old, &rollover], None);
    p.fails(&leaf("/C=US/O=Elsewhere/CN=leaf"), &[&old, &rollover], PERMITTED.0, 0, PERMITTED.1);
    let renamed = under("/C=US/O=Outside/CN=renamed CA", &old);
    let leaf = make(
        "/C=US/O=Example/CN=leaf",
        &key("leaf.key.pem"),
        |b| b.profile(Profile::Leaf),
        Some((&renamed, &new_key)),
    );
    p.fails(&leaf, &[&old, &renamed], PERMITTED.0, 1, PERMITTED.1);
}

#[test]
fn constraints_of_the_trust_anchor_count() {
    let p = Pki::new();
    let anchor_key = key("ca.key.pem");
    let anchor = make(
        "/CN=constrained root",
        &anchor_key,
        |b| {
            b.profile(Profile::Ca).extension(ext(
                "2.5.29.30",
                true,
                nc(&[dns(".example.com")], &[]),
            ))
        },
        None,
    );
    let inside = p.leaf("/CN=leaf", &[dns("a.example.com")], &anchor);
    let outside = p.leaf("/CN=leaf", &[dns("a.example.org")], &anchor);
    p.passes(&inside, &[], Some(&anchor));
    let out = p.verify(&outside, &[], Some(&anchor));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error 47 at 0 depth lookup: permitted subtree violation"), "{err}");
}

#[test]
fn subtrees_that_cannot_be_used_fail_the_path() {
    let p = Pki::new();
    // A subtree with a minimum (RFC 5280: "the minimum MUST be zero").
    let mut with_min = tlv(0x30, &[dns(".example.com"), vec![0x80, 0x01, 0x01]].concat());
    with_min = tlv(0x30, &tlv(0xa0, &with_min));
    let ca = p.ca("/CN=min CA", Some(with_min), None);
    let leaf = p.leaf("/CN=leaf", &[dns("a.example.com")], &ca);
    p.fails(&leaf, &[&ca], 49, 0, "name constraints minimum and maximum not supported");
    // ... which counts only for names of its form.
    p.passes(&p.leaf("/CN=leaf", &[email("a@example.com")], &ca), &[&ca], None);

    // otherName and registeredID subtrees cannot be compared with names of their form.
    let rid = tlv(0x88, &[0x2a, 0x03, 0x04]);
    let ca = p.ca(
        "/CN=other CA",
        Some(nc(&[other(&UPN, &tlv(0x0c, b"x@example.com")), rid.clone()], &[])),
        None,
    );
    let upn = other(&UPN, &tlv(0x0c, b"user@example.com"));
    let unsupported = (51, "unsupported name constraint type");
    p.fails(&p.leaf("/CN=leaf", &[upn], &ca), &[&ca], unsupported.0, 0, unsupported.1);
    p.fails(&p.leaf("/CN=leaf", &[rid], &ca), &[&ca], unsupported.0, 0, unsupported.1);
    p.passes(&p.leaf("/CN=leaf", &[dns("anything.example")], &ca), &[&ca], None);

    // A nameConstraints extension that cannot be read makes its CA no issuer.
    let ca = p.ca("/CN=unreadable CA", Some(vec![0x30, 0x03, 0x02, 0x01]), None);
    let leaf = p.leaf("/CN=leaf", &[dns("a.example.com")], &ca);
    p.fails(&leaf, &[&ca], 20, 0, "unable to get local issuer certificate");
}

#[test]
fn the_work_is_bounded() {
    // 1,100 subtrees against a leaf of 1,000 names would be 1.1 million comparisons,
    // more than the 2^20 OpenSSL allows.
    let p = Pki::new();
    let subtrees: Vec<Vec<u8>> = (0..1100).map(|i| dns(&format!("n{i}.example.com"))).collect();
    let ca = p.ca("/CN=wide CA", Some(nc(&subtrees, &[])), None);
    let names: Vec<Vec<u8>> = (0..999).map(|i| dns(&format!("n{i}.example.com"))).collect();
    let leaf = p.leaf("/CN=leaf", &names, &ca);
    p.fails(&leaf, &[&ca], 1, 0, "unspecified certificate verification error");
    // Under the bound, every name is compared.
    let names: Vec<Vec<u8>> = (0..900).map(|i| dns(&format!("n{i}.example.com"))).collect();
    p.passes(&p.leaf("/CN=leaf", &names, &ca), &[&ca], None);
}
