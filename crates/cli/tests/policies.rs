//! Certificate policies in `cryptocard verify` beside `openssl verify -policy_check`
//! (RFC 5280 6.1): policies matched down a path, anyPolicy, policy mappings,
//! requireExplicitPolicy, inhibitPolicyMapping and inhibitAnyPolicy from the CAs and from
//! the command line (`-explicit_policy`, `-inhibit_any`, `-inhibit_map`, `-policy`),
//! malformed policy extensions, and critical policy extensions, which are processed, not
//! refused. Both tools run where OpenSSL is installed and must agree on stdout, stderr
//! and exit status; the expected outcome is asserted everywhere. OpenSSL processes
//! policies only when asked (`-policy_check` and the options above); cryptocard always
//! does, so that a path whose CA requires an explicit policy fails without the option
//! (checked on ours alone). OpenSSL, required an explicit policy, accepts only those
//! named by `-policy`, so that without it every such path fails: the runs through both
//! tools name anyPolicy where they name no other (RFC 5280's default), and ours alone
//! shows that no option is needed.

mod common;

use common::paths::*;
use common::*;
use cryptocard::rsa::spki::der::Encode;
use cryptocard::rsa::spki::der::asn1::ObjectIdentifier as Oid;
use cryptocard_pki::cert::{Certificate, Extension, Profile};

const P1: &str = "1.3.6.1.4.1.55555.1";
const P2: &str = "1.3.6.1.4.1.55555.2";
const P3: &str = "1.3.6.1.4.1.55555.3";
const ANY: &str = "2.5.29.32.0";

/// A SEQUENCE of `content`.
fn seq(content: &[u8]) -> Vec<u8> {
    tlv(0x30, content)
}

fn oid(s: &str) -> Vec<u8> {
    Oid::new_unwrap(s).to_der().unwrap()
}

/// certificatePolicies naming `policies`.
fn policies(critical: bool, policies: &[&str]) -> Extension {
    let infos: Vec<u8> = policies.iter().flat_map(|p| seq(&oid(p))).collect();
    ext("2.5.29.32", critical, seq(&infos))
}

/// policyMappings of (issuerDomainPolicy, subjectDomainPolicy) pairs.
fn mappings(pairs: &[(&str, &str)]) -> Extension {
    let maps: Vec<u8> = pairs.iter().flat_map(|(i, s)| seq(&[oid(i), oid(s)].concat())).collect();
    ext("2.5.29.33", true, seq(&maps))
}

/// policyConstraints: requireExplicitPolicy, inhibitPolicyMapping.
fn constraints(require: Option<u8>, inhibit: Option<u8>) -> Extension {
    let mut content = Vec::new();
    if let Some(r) = require {
        content.extend([0x80, 0x01, r]);
    }
    if let Some(i) = inhibit {
        content.extend([0x81, 0x01, i]);
    }
    ext("2.5.29.36", true, seq(&content))
}

/// inhibitAnyPolicy.
fn inhibit_any(skip: u8) -> Extension {
    ext("2.5.29.54", true, vec![0x02, 0x01, skip])
}

/// The test root, CAs and leaves made under it, and `verify` of them.
struct Paths {
    dir: tempfile::TempDir,
    root: Certificate,
    count: std::cell::Cell<usize>,
}

impl Paths {
    fn new() -> Paths {
        Paths { dir: tempdir(), root: load("root.pem"), count: std::cell::Cell::new(0) }
    }

    /// A CA on ca.key.pem under `issuer` (the root if `None`) with `exts`.
    fn ca(&self, name: &str, exts: Vec<Extension>, issuer: Option<&Certificate>) -> Certificate {
        let (root_key, ca_key) = (key("root.key"), key("ca.key.pem"));
        let issuer = match issuer {
            Some(c) => (c, &ca_key),
            None => (&self.root, &root_key),
        };
        let subject = format!("/CN={name}");
        make(
            &subject,
            &ca_key,
            |b| exts.into_iter().fold(b.profile(Profile::Ca), |b, e| b.extension(e)),
            Some(issuer),
        )
    }

    /// A leaf under `ca` (on ca.key.pem) with `exts`.
    fn leaf(&self, exts: Vec<Extension>, ca: &Certificate) -> Certificate {
        let build = |b: cryptocard_pki::cert::CertBuilder| {
            exts.into_iter().fold(b.profile(Profile::Leaf), |b, e| b.extension(e))
        };
        make("/CN=policy leaf", &key("leaf.key.pem"), build, Some((ca, &key("ca.key.pem"))))
    }

    /// `verify -CAfile root -untrusted CAS OPTIONS LEAF`, through both tools with
    /// `-policy_check` (OpenSSL's switch for policies), or through ours alone without it.
    fn verify(
        &self,
        leaf: &Certificate,
        cas: &[&Certificate],
        options: &[&str],
        both_tools: bool,
    ) -> std::process::Output {
        let n = self.count.get();
        self.count.set(n + 1);
        let d = self.dir.path();
        let leaf_path = write(d, &format!("leaf{n}.pem"), &[leaf]);
        let cas_path = write(d, &format!("cas{n}.pem"), cas);
        let root = pki_path("root.pem");
        let mut args = vec!["-CAfile", &root, "-untrusted", &cas_path];
        args.extend_from_slice(options);
        if both_tools {
            // OpenSSL requires an explicit policy only among those named by `-policy`,
            // none without it: named anyPolicy, it reads the path as RFC 5280 does.
            if !options.contains(&"-policy") {
                args.extend(["-policy", ANY]);
            }
            args.push("-policy_check");
            args.push(&leaf_path);
            both(&args, b"")
        } else {
            args.push(&leaf_path);
            let mut full = vec!["verify"];
            full.extend(args);
            run(&full, b"")
        }
    }

    fn passes(&self, leaf: &Certificate, cas: &[&Certificate], options: &[&str]) {
        let out = self.verify(leaf, cas, options, true);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && ok_text(&out).ends_with(": OK\n"), "{options:?}: {err}");
    }

    fn fails(
        &self,
        leaf: &Certificate,
        cas: &[&Certificate],
        options: &[&str],
        code: u32,
        depth: usize,
    ) -> String {
        let out = self.verify(leaf, cas, options, true);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{options:?}: {err}");
        assert!(
            err.contains(&format!("error {code} at {depth} depth lookup")),
            "{options:?}: {err}"
        );
        err
    }
}

const NO_EXPLICIT: &str = "error 43 at 0 depth lookup: no explicit policy\n\
    Require explicit Policy: True\nAuthority Policies: <empty>\nUser Policies: <empty>\n";

#[test]
fn policies_match_down_the_path() {
    let p = Paths::new();
    let ca = p.ca("policy CA", vec![policies(false, &[P1, P2])], None);
    let leaf = p.leaf(vec![policies(false, &[P1])], &ca);
    for options in [
        &[][..],
        &["-explicit_policy"],
        &["-explicit_policy", "-policy", P1],
        &["-policy", P3],
        &["-explicit_policy", "-policy", ANY],
    ] {
        p.passes(&leaf, &[&ca], options);
    }
    // No acceptable policy: the path fails only where one is required.
    // The policies the CAs allowed are printed, as OpenSSL prints them.
    let err = p.fails(&leaf, &[&ca], &["-explicit_policy", "-policy", P3], 43, 0);
    let tree = format!(
        "Require explicit Policy: True\nAuthority Policies:\n  Policy: {P1}\n    Non Critical\n    \
         No Qualifiers\nUser Policies: <empty>\n"
    );
    assert!(err.contains(&tree), "{err}");
    let other = p.leaf(vec![policies(false, &[P3])], &ca);
    p.passes(&other, &[&ca], &[]);
    p.fails(&other, &[&ca], &["-explicit_policy"], 43, 0);
    let none = p.leaf(vec![], &ca);
    p.passes(&none, &[&ca], &[]);
    p.fails(&none, &[&ca], &["-explicit_policy"], 43, 0);

    // Qualifiers print with their policy; a critical extension says so.
    let cps =
        |uri: &str| seq(&seq(&[oid("1.3.6.1.5.5.7.2.1"), tlv(0x16, uri.as_bytes())].concat()));
    let infos = [seq(&[oid(P1), cps("http://cps.example/one")].concat()), seq(&oid(P2))].concat();
    let ca = p.ca("qualified CA", vec![ext("2.5.29.32", true, seq(&infos))], None);
    let leaf = p.leaf(vec![policies(false, &[P1, P2])], &ca);
    let err = p.fails(&leaf, &[&ca], &["-explicit_policy", "-policy", P3], 43, 0);
    let tree = format!(
        "  Policy: {P1}\n    Critical\n    CPS: http://cps.example/one\n  Policy: {P2}\n    Critical\n    No Qualifiers\n"
    );
    assert!(err.contains(&tree), "{err}");
}

#[test]
fn any_policy_stands_for_the_others_unless_inhibited() {
    let p = Paths::new();
    let ca = p.ca("any CA", vec![policies(false, &[ANY])], None);
    let leaf = p.leaf(vec![policies(false, &[P2])], &ca);
    p.passes(&leaf, &[&ca], &["-explicit_policy", "-policy", P2]);
    p.fails(&leaf, &[&ca], &["-explicit_policy", "-inhibit_any"], 43, 0);
    // The leaf's anyPolicy stands for what is acceptable.
    let any_leaf = p.leaf(vec![policies(false, &[ANY])], &ca);
    p.passes(&any_leaf, &[&ca], &["-explicit_policy", "-policy", P3]);
    // inhibitAnyPolicy 0 in the CA: the sub-CA's anyPolicy no longer counts.
    let top = p.ca("inhibiting CA", vec![policies(false, &[ANY]), inhibit_any(0)], None);
    let sub = p.ca("sub CA", vec![policies(false, &[ANY])], Some(&top));
    let leaf = p.leaf(vec![policies(false, &[P1])], &sub);
    p.passes(&leaf, &[&top, &sub], &[]);
    p.fails(&leaf, &[&top, &sub], &["-explicit_policy"], 43, 0);
    let open = p.ca("open CA", vec![policies(false, &[ANY])], None);
    let sub = p.ca("sub CA", vec![policies(false, &[ANY])], Some(&open));
    let leaf = p.leaf(vec![policies(false, &[P1])], &sub);
    p.passes(&leaf, &[&open, &sub], &["-explicit_policy"]);
}

#[test]
fn mappings_are_followed_unless_inhibited() {
    let p = Paths::new();
    let ca = p.ca("mapping CA", vec![policies(false, &[P1]), mappings(&[(P1, P2)])], None);
    let sub = p.ca("mapped CA", vec![policies(false, &[P2])], Some(&ca));
    let leaf = p.leaf(vec![policies(false, &[P2])], &sub);
    p.passes(&leaf, &[&ca, &sub], &["-explicit_policy"]);
    p.passes(&leaf, &[&ca, &sub], &["-explicit_policy", "-policy", P1]);
    p.fails(&leaf, &[&ca, &sub], &["-explicit_policy", "-policy", P2], 43, 0);
    p.fails(&leaf, &[&ca, &sub], &["-explicit_policy", "-inhibit_map"], 43, 0);
    // P1 is expected as P2 below the mapping: P1 itself no longer matches.
    let unmapped = p.ca("unmapped CA", vec![policies(false, &[P1])], Some(&ca));
    let leaf = p.leaf(vec![policies(false, &[P1])], &unmapped);
    p.fails(&leaf, &[&ca, &unmapped], &["-explicit_policy"], 43, 0);
    // inhibitPolicyMapping 0 in a CA above the mapping.
    let top = p.ca("top CA", vec![policies(false, &[ANY]), constraints(None, Some(0))], None);
    let ca = p.ca("mapping CA", vec![policies(false, &[P1]), mappings(&[(P1, P2)])], Some(&top));
    let sub = p.ca("mapped CA", vec![policies(false, &[P2])], Some(&ca));
    let leaf = p.leaf(vec![policies(false, &[P2])], &sub);
    p.fails(&leaf, &[&top, &ca, &sub], &["-explicit_policy"], 43, 0);
}

#[test]
fn cas_that_require_an_explicit_policy() {
    let p = Paths::new();
    let ca = p.ca("requiring CA", vec![policies(true, &[P1]), constraints(Some(0), None)], None);
    let inside = p.leaf(vec![policies(false, &[P1])], &ca);
    let outside = p.leaf(vec![policies(false, &[P2])], &ca);
    let bare = p.leaf(vec![], &ca);
    p.passes(&inside, &[&ca], &[]);
    let err = p.fails(&outside, &[&ca], &[], 43, 0);
    assert!(err.starts_with(NO_EXPLICIT), "{err}");
    p.fails(&bare, &[&ca], &[], 43, 0);
    // Without -policy_check OpenSSL does not look; cryptocard does.
    let out = p.verify(&outside, &[&ca], &[], false);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(NO_EXPLICIT));
    let out = p.verify(&inside, &[&ca], &[], false);
    assert!(ok_text(&out).ends_with(": OK\n"));
    // requireExplicitPolicy 2: two more certificates may follow the CA before a policy
    // is required, the second of them included.
    let ca2 = p.ca("skip-2 CA", vec![policies(false, &[ANY]), constraints(Some(2), None)], None);
    let direct = p.leaf(vec![], &ca2);
    p.passes(&direct, &[&ca2], &[]);
    let sub = p.ca("sub CA", vec![policies(false, &[ANY])], Some(&ca2));
    let leaf = p.leaf(vec![], &sub);
    p.fails(&leaf, &[&ca2, &sub], &[], 43, 0);
    let leaf = p.leaf(vec![policies(false, &[P3])], &sub);
    p.passes(&leaf, &[&ca2, &sub], &[]);
}

#[test]
fn malformed_policy_extensions_fail_where_they_are() {
    let p = Paths::new();
    let words = "invalid or inconsistent certificate policy extension";
    for (name, exts) in [
        ("duplicate CA", vec![policies(false, &[P1, P1])]),
        ("any-mapping CA", vec![policies(false, &[P1]), mappings(&[(P1, ANY)])]),
        ("empty-constraints CA", vec![policies(false, &[P1]), constraints(None, None)]),
    ] {
        let ca = p.ca(name, exts, None);
        let leaf = p.leaf(vec![policies(false, &[P1])], &ca);
        let err = p.fails(&leaf, &[&ca], &[], 42, 1);
        assert!(
            err.contains(&format!("CN = {name}\nerror 42 at 1 depth lookup: {words}")),
            "{err}"
        );
    }
    // An empty certificatePolicies is none: no policy is valid below it.
    let ca = p.ca("empty CA", vec![ext("2.5.29.32", false, seq(&[]))], None);
    let leaf = p.leaf(vec![policies(false, &[P1])], &ca);
    p.passes(&leaf, &[&ca], &[]);
    p.fails(&leaf, &[&ca], &["-explicit_policy"], 43, 0);
    let ca = p.ca("fine CA", vec![policies(false, &[P1])], None);
    let leaf = p.leaf(vec![policies(false, &[P2, P2])], &ca);
    p.fails(&leaf, &[&ca], &[], 42, 0);
    // Bad -policy values are refused with the options.
    let out = run(&["verify", "-policy", "not an oid", "-CAfile", &pki_path("root.pem")], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Invalid Policy not an oid"));
}

#[test]
fn policy_work_stays_linear_on_hostile_paths() {
    // Four CAs, each with 40 policies and every policy mapped to every other: RFC 5280's
    // tree would have 40^4 nodes at the end entity's depth (OpenSSL caps it at 1,000 and
    // gives up); the graph has 40 a depth. Ours alone, answered well within the time.
    let p = Paths::new();
    let ids: Vec<String> = (1..=40).map(|i| format!("1.3.6.1.4.1.55555.9.{i}")).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let pairs: Vec<(&str, &str)> = ids
        .iter()
        .flat_map(|&a| ids.iter().map(move |&b| (a, b)))
        .filter(|(a, b)| a != b)
        .collect();
    let many = |c: bool| -> Vec<Extension> {
        let infos: Vec<u8> = ids.iter().flat_map(|p| seq(&oid(p))).collect();
        let maps: Vec<u8> =
            pairs.iter().flat_map(|(i, s)| seq(&[oid(i), oid(s)].concat())).collect();
        let mut exts = vec![ext("2.5.29.32", c, seq(&infos))];
        exts.push(ext("2.5.29.33", true, seq(&maps)));
        exts
    };
    let mut cas = vec![p.ca("wide CA 0", many(false), None)];
    for i in 1..4 {
        let ca = p.ca(&format!("wide CA {i}"), many(true), Some(&cas[i - 1]));
        cas.push(ca);
    }
    let leaf = p.leaf(vec![policies(false, &[ids[0]])], &cas[3]);
    let refs: Vec<&Certificate> = cas.iter().collect();
    let d = p.dir.path();
    let (leaf_path, cas_path) =
        (write(d, "wide-leaf.pem", &[&leaf]), write(d, "wide-cas.pem", &refs));
    let root = pki_path("root.pem");
    let args =
        ["verify", "-CAfile", &root, "-untrusted", &cas_path, "-explicit_policy", &leaf_path];
    assert!(ok_text(&run_within(30, &args)).ends_with(": OK\n"));
    let stray = p.leaf(vec![policies(false, &["1.3.6.1.4.1.55555.9.99"])], &cas[3]);
    let stray_path = write(d, "wide-stray.pem", &[&stray]);
    let args =
        ["verify", "-CAfile", &root, "-untrusted", &cas_path, "-explicit_policy", &stray_path];
    let out = run_within(30, &args);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error 43 at 0 depth lookup"));
}
