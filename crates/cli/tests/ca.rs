//! `cryptocard ca` beside `openssl ca`: from the CA and requests of tests/data/ca (see its
//! make.sh), the certificates, database, serial file and CRLs we write are byte for byte
//! those OpenSSL 3.0 wrote there; where OpenSSL is installed, a second CA run by both
//! tools side by side ends with the same files. Refusals (policy, a subject or serial
//! already issued, a second revocation, bad configuration) fail with status 1 and leave
//! the CA's files as they were.

mod common;

use common::*;
use std::path::{Path, PathBuf};

fn ca_data(name: &str) -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "tests", "data", "ca", name].iter().collect()
}

fn expected(name: &str) -> Vec<u8> {
    std::fs::read(ca_data(name)).unwrap()
}

/// A fresh CA directory: the configuration, key and certificate of tests/data/ca, an
/// empty database, serial 1000, CRL number 01.
fn new_ca() -> tempfile::TempDir {
    let dir = tempdir();
    for f in ["ca.cnf", "ca.key", "ca.pem"] {
        std::fs::copy(ca_data(f), dir.path().join(f)).unwrap();
    }
    std::fs::create_dir(dir.path().join("newcerts")).unwrap();
    std::fs::write(dir.path().join("index.txt"), "").unwrap();
    std::fs::write(dir.path().join("serial"), "1000\n").unwrap();
    std::fs::write(dir.path().join("crlnumber"), "01\n").unwrap();
    dir
}

fn ca(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["ca", "-config", "ca.cnf"];
    all.extend_from_slice(args);
    run_in(dir, &all)
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Asserts a failure (status 1, no panic) whose stderr says `needle`.
fn refused(out: &std::process::Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(needle), "'{needle}' not in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// The three certificates of make.sh, issued in the same order.
fn issue_all(dir: &Path) {
    let (r1, r2) = (ca_data("r1.csr"), ca_data("r2.csr"));
    let runs: [(&Path, &str, &[&str]); 3] = [
        (
            &r1,
            "c1.pem",
            &[
                "-startdate",
                "20250101000000Z",
                "-enddate",
                "20260101000000Z",
                "-extensions",
                "usr_cert",
            ],
        ),
        (
            &r2,
            "c2.pem",
            &[
                "-startdate",
                "250101000000Z",
                "-enddate",
                "20500101000000Z",
                "-extensions",
                "v3_sub",
                "-notext",
            ],
        ),
        (
            &r2,
            "c3.pem",
            &[
                "-subj",
                "/C=US/CN=other",
                "-startdate",
                "250101000000Z",
                "-enddate",
                "260101000000Z",
                "-md",
                "sha384",
            ],
        ),
    ];
    for (req, out, extra) in runs {
        let mut args = vec!["-batch", "-in", req.to_str().unwrap(), "-out", out];
        args.extend_from_slice(extra);
        ok(&ca(dir, &args));
    }
}

#[test]
fn issues_as_openssl_does() {
    let dir = new_ca();
    let d = dir.path();
    issue_all(d);
    for (ours, theirs) in [
        ("c1.pem", "c1.pem"),
        ("c2.pem", "c2.pem"),
        ("c3.pem", "c3.pem"),
        ("newcerts/1000.pem", "c1.pem"),
        ("newcerts/1002.pem", "c3.pem"),
        ("index.txt", "index-issued.txt"),
        ("serial", "serial-issued"),
    ] {
        assert!(read(d, ours) == expected(theirs), "{ours} differs from OpenSSL's {theirs}");
    }
    // c2 was written without its text; the newcerts copy has it too only if asked.
    assert!(read(d, "newcerts/1001.pem").starts_with(b"-----BEGIN CERTIFICATE-----"));
    assert_eq!(read(d, "serial.old"), b"1002\n");
    assert_eq!(read(d, "index.txt.attr"), b"unique_subject = yes\n");
    // Ours print as OpenSSL's text says, the Netscape comment and the empty issuer
    // alternative name included.
    let text = ok_text(&run(
        &["x509", "-in", ca_data("c1.pem").to_str().unwrap(), "-noout", "-text"],
        b"",
    ));
    let theirs = String::from_utf8(expected("c1.pem")).unwrap();
    let theirs =
        theirs.split("-----BEGIN").next().unwrap().replace("C=US, O=Leaf, CN=leaf.example", "");
    assert!(text.contains("            Netscape Comment: \n                a comment\n"), "{text}");
    assert!(text.contains("IP Address:0:0:0:0:0:0:0:1"), "{text}");
    assert!(text.contains("Registered ID:1.2.3"), "{text}");
    assert!(
        text.contains("X509v3 Issuer Alternative Name: \n                <EMPTY>\n\n"),
        "{text}"
    );
    assert!(theirs.contains("X509v3 Issuer Alternative Name: \n                <EMPTY>\n\n"));
}

#[test]
fn refusals_leave_the_ca_as_it_was() {
    let dir = new_ca();
    let d = dir.path();
    issue_all(d);
    let before: Vec<(String, Vec<u8>)> = listing(d)
        .into_iter()
        .filter(|f| f != "newcerts")
        .map(|f| {
            let b = read(d, &f);
            (f, b)
        })
        .collect();
    let r2 = ca_data("r2.csr");
    let r3 = ca_data("r3.csr");
    let dates = ["-startdate", "250101000000Z", "-enddate", "260101000000Z"];
    let with = |extra: &[&str]| {
        let mut v: Vec<&str> = extra.to_vec();
        v.extend_from_slice(&dates);
        ca(d, &v)
    };
    refused(
        &with(&["-batch", "-in", r3.to_str().unwrap()]),
        "The countryName field is different between",
    );
    refused(
        &with(&["-batch", "-in", r2.to_str().unwrap()]),
        "There is already a certificate for /C=US/CN=sub.example",
    );
    refused(&with(&["-in", r2.to_str().unwrap()]), "give -batch");
    refused(
        &with(&[
            "-batch",
            "-in",
            r2.to_str().unwrap(),
            "-subj",
            "/C=US/CN=x",
            "-extensions",
            "nothere",
        ]),
        "no extension section 'nothere'",
    );
    refused(
        &with(&["-batch", "-in", r2.to_str().unwrap(), "-subj", "/CN=x"]),
        "The mandatory countryName field was missing",
    );
    refused(
        &with(&[
            "-batch",
            "-in",
            r2.to_str().unwrap(),
            "-subj",
            "/C=US/CN=x",
            "-policy",
            "nothere",
        ]),
        "unable to find policy section 'nothere'",
    );
    // A request whose signature does not verify.
    let mut bad = std::fs::read(&r2).unwrap();
    let text = String::from_utf8(bad.clone()).unwrap();
    let body: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
    let mut der = base64_decode(&body);
    let n = der.len();
    der[n - 10] ^= 1;
    bad = pem("CERTIFICATE REQUEST", &der).into_bytes();
    let bad_path = d.join("bad.csr");
    std::fs::write(&bad_path, &bad).unwrap();
    refused(
        &with(&["-batch", "-in", bad_path.to_str().unwrap(), "-subj", "/C=US/CN=y"]),
        "Signature did not match",
    );
    std::fs::remove_file(&bad_path).unwrap();
    for (f, bytes) in &before {
        assert!(read(d, f) == *bytes, "{f} changed by a refused run");
    }
    assert_eq!(listing(&d.join("newcerts")), ["1000.pem", "1001.pem", "1002.pem"]);
    assert_eq!(
        before.iter().map(|(f, _)| f.clone()).collect::<Vec<_>>(),
        listing(d).into_iter().filter(|f| f != "newcerts").collect::<Vec<_>>()
    );

    // Configuration faults.
    std::fs::write(d.join("broken.cnf"), "[ ca\n").unwrap();
    refused(&run_in(d, &["ca", "-config", "broken.cnf", "-gencrl"]), "broken.cnf line 1");
    std::fs::write(d.join("nodefault.cnf"), "[ other ]\na = 1\n").unwrap();
    refused(&run_in(d, &["ca", "-config", "nodefault.cnf", "-gencrl"]), "ca::default_ca");
    refused(&run_in(d, &["ca", "-config", "missing.cnf", "-gencrl"]), "missing.cnf");
    refused(&ca(d, &[]), "nothing to do");
    refused(&ca(d, &["-gencrl", "-crl_lastupdate", "2501"]), "expected YYMMDDHHMMSSZ");
}

#[test]
fn revokes_and_lists_as_openssl_does() {
    let dir = new_ca();
    let d = dir.path();
    issue_all(d);
    ok(&ca(d, &["-revoke", "newcerts/1000.pem", "-crl_reason", "superseded"]));
    refused(&ca(d, &["-revoke", "newcerts/1000.pem"]), "Already revoked, serial number 1000");
    ok(&ca(d, &["-revoke", "newcerts/1001.pem", "-crl_compromise", "20240101000000Z"]));
    ok(&ca(d, &["-revoke", "newcerts/1002.pem", "-crl_hold", "holdInstructionReject"]));
    refused(&ca(d, &["-revoke", "c1.pem", "-crl_reason", "bored"]), "unknown CRL reason bored");
    // The database as OpenSSL's, but for the dates of revocation (now), which make.sh
    // fixed as we fix them here.
    let index = String::from_utf8(read(d, "index.txt")).unwrap();
    let fixed: String = index
        .lines()
        .map(|l| {
            let mut f: Vec<String> = l.split('\t').map(String::from).collect();
            assert_eq!(f[2].find(','), Some(13), "{l}");
            f[2].replace_range(..13, "250101000000Z");
            f.join("\t") + "\n"
        })
        .collect();
    assert_eq!(fixed.as_bytes(), expected("index-revoked.txt"));
    std::fs::write(d.join("index.txt"), &fixed).unwrap();

    let status = ca(d, &["-status", "1001"]);
    assert!(String::from_utf8_lossy(&status.stderr).contains("1001=Revoked (R)"));
    refused(&ca(d, &["-status", "999"]), "Serial 0999 not present in db.");

    let span = ["-crl_lastupdate", "250201000000Z", "-crl_nextupdate", "20250301000000Z"];
    let mut args = vec!["-gencrl", "-out", "crl1.pem"];
    args.extend_from_slice(&span);
    ok(&ca(d, &args));
    let mut args = vec!["-gencrl", "-out", "crl2.pem", "-crlexts", "crl_ext"];
    args.extend_from_slice(&span);
    ok(&ca(d, &args));
    assert!(read(d, "crl1.pem") == expected("crl1.pem"), "crl1.pem differs from OpenSSL's");
    assert!(read(d, "crl2.pem") == expected("crl2.pem"), "crl2.pem differs from OpenSSL's");
    assert_eq!(read(d, "crlnumber"), b"03\n");
    assert_eq!(read(d, "crlnumber.old"), b"02\n");
}

#[test]
fn update_db_marks_the_expired() {
    let dir = new_ca();
    let d = dir.path();
    issue_all(d);
    let out = ca(d, &["-updatedb"]);
    ok(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    // 1000 and 1002 ended on 1 January 2026; 1001 runs to 2050.
    assert!(err.contains("1000=Expired") && err.contains("1002=Expired"), "{err}");
    let index = String::from_utf8(read(d, "index.txt")).unwrap();
    let status: Vec<&str> = index.lines().map(|l| &l[..1]).collect();
    assert_eq!(status, ["E", "V", "E"]);
    // -valid adds a certificate the database lacks, and refuses one it has.
    refused(&ca(d, &["-valid", "newcerts/1001.pem"]), "Already present, serial number 1001");
    ok(&ca(d, &["-valid", "ca.pem"]));
    let index = String::from_utf8(read(d, "index.txt")).unwrap();
    let last = index.lines().last().unwrap();
    assert!(
        last.starts_with("V\t") && last.ends_with("\tunknown\t/C=US/O=Test Org/CN=Test CA"),
        "{last}"
    );
}

/// Where OpenSSL is installed: a CA run by each tool with the same commands (dates fixed,
/// so that the bytes can be compared) ends with the same files: self-signing, keeping the
/// request's name, leaving emailAddress out, key identifiers set to `none`, an empty
/// extension section, the key identifiers OpenSSL adds, each kind of revocation.
#[test]
fn same_files_as_openssl_side_by_side() {
    if !have_openssl("ca") {
        return;
    }
    let (ours, theirs) = (new_ca(), new_ca());
    let key2 = ca_data("leaf2.key");
    let (r1, r2) = (ca_data("r1.csr"), ca_data("r2.csr"));
    let (r1, r2, key2) = (r1.to_str().unwrap(), r2.to_str().unwrap(), key2.to_str().unwrap());
    let dates = ["-startdate", "250101000000Z", "-enddate", "300101000000Z"];
    let issue = |extra: &[&'static str]| -> Vec<String> {
        let mut v: Vec<String> = vec!["-batch".into()];
        v.extend(extra.iter().map(|s| s.to_string()));
        v.extend(dates.iter().map(|s| s.to_string()));
        v
    };
    let with_req = |req: &str, extra: &[&'static str]| {
        let mut v = issue(extra);
        v.extend(["-in".to_string(), req.to_string()]);
        v
    };
    let mut runs: Vec<Vec<String>> = vec![
        with_req(r1, &["-noemailDN", "-notext"]),
        with_req(r2, &["-preserveDN", "-extensions", "usr_cert", "-subj", "/CN=pre/C=US"]),
        with_req(r2, &["-selfsign", "-subj", "/C=US/CN=self", "-extensions", "v3_sub"]),
    ];
    runs[2].extend(["-keyfile".to_string(), key2.to_string()]);
    for (cn, section) in
        [("n1", "none_ext"), ("n2", "empty_ext"), ("n3", "nokeyid"), ("n4", "plain_ext")]
    {
        let mut v = with_req(r2, &["-extensions", section]);
        v.extend(["-subj".to_string(), format!("/C=US/CN={cn}")]);
        runs.push(v);
    }
    for args in [
        vec!["-revoke", "newcerts/1001.pem", "-crl_reason", "removeFromCRL"],
        vec!["-revoke", "newcerts/1002.pem", "-crl_CA_compromise", "20240101000000Z"],
        vec!["-revoke", "newcerts/1003.pem", "-crl_reason", "CESSATIONOFOPERATION"],
        vec!["-revoke", "newcerts/1004.pem"],
        vec!["-valid", "ca.pem"],
        vec!["-valid", "ca.pem"],
    ] {
        runs.push(args.into_iter().map(String::from).collect());
    }
    for args in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let a = ca(ours.path(), &args);
        let mut all = vec!["ca", "-config", "ca.cnf"];
        all.extend_from_slice(&args);
        let b = openssl_in(theirs.path(), &all);
        assert_eq!(
            a.status.code(),
            b.status.code(),
            "{args:?}: {}",
            String::from_utf8_lossy(&a.stderr)
        );
    }
    // The revocation dates are each tool's now: fixed before the CRLs are made.
    for dir in [ours.path(), theirs.path()] {
        let index = String::from_utf8(read(dir, "index.txt")).unwrap();
        let fixed: String = index
            .lines()
            .map(|l| {
                let mut f: Vec<String> = l.split('\t').map(String::from).collect();
                if f[0] == "R" {
                    f[2].replace_range(..13, "250101000000Z");
                }
                f.join("\t") + "\n"
            })
            .collect();
        // And a serial whose top bit is set (a positive INTEGER with a leading zero).
        let fixed = fixed + "R\t260101000000Z\t250101000000Z\tF0\tunknown\t/CN=high\n";
        std::fs::write(dir.join("index.txt"), fixed).unwrap();
    }
    let crl = [
        "-gencrl",
        "-out",
        "crl.pem",
        "-crl_lastupdate",
        "250201000000Z",
        "-crl_nextupdate",
        "250301000000Z",
    ];
    ok(&ca(ours.path(), &crl));
    let mut all = vec!["ca", "-config", "ca.cnf"];
    all.extend_from_slice(&crl);
    assert!(openssl_in(theirs.path(), &all).status.success());
    let mut files = vec!["index.txt", "serial", "index.txt.attr", "crlnumber", "crl.pem"];
    let certs: Vec<String> = (0..7).map(|i| format!("newcerts/100{i}.pem")).collect();
    files.extend(certs.iter().map(String::as_str));
    for f in files {
        assert!(read(ours.path(), f) == read(theirs.path(), f), "{f} differs");
    }
}

/// Dates relative to now: `-days` from now (not from `-startdate`), the next CRL after the
/// days, hours and seconds asked; a random serial with `-rand_serial`, the serial file
/// left alone.
#[test]
fn dates_from_now_and_random_serials() {
    let dir = new_ca();
    let d = dir.path();
    let r2 = ca_data("r2.csr");
    ok(&ca(
        d,
        &[
            "-batch",
            "-in",
            r2.to_str().unwrap(),
            "-out",
            "c.pem",
            "-startdate",
            "250101000000Z",
            "-days",
            "30",
            "-rand_serial",
            "-notext",
        ],
    ));
    assert_eq!(read(d, "serial"), b"1000\n", "-rand_serial leaves the serial file");
    let serial = ok_text(&run_in(d, &["x509", "-in", "c.pem", "-noout", "-serial"]));
    assert_eq!(serial.trim().len(), "serial=".len() + 40, "{serial}");
    let end = ok_text(&run_in(
        d,
        &["x509", "-in", "c.pem", "-noout", "-checkend", &(30 * 86_400 - 60).to_string()],
    ));
    assert!(end.contains("will not expire"), "{end}");
    let out = run_in(
        d,
        &["x509", "-in", "c.pem", "-noout", "-checkend", &(30 * 86_400 + 60).to_string()],
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("will expire"));
    ok(&ca(d, &["-gencrl", "-out", "crl.pem", "-crldays", "1", "-crlhours", "2", "-crlsec", "3"]));
    let next = ok_text(&run_in(d, &["crl", "-in", "crl.pem", "-noout", "-nextupdate"]));
    let last = ok_text(&run_in(d, &["crl", "-in", "crl.pem", "-noout", "-lastupdate"]));
    let gap = seconds(next.trim().strip_prefix("nextUpdate=").unwrap())
        - seconds(last.trim().strip_prefix("lastUpdate=").unwrap());
    assert!((86_400 + 7_200 + 3..=86_400 + 7_200 + 5).contains(&gap), "{next}{last}");
    // Version 1 without extensions: the configuration has a crlnumber, so version 2 here.
    let text = ok_text(&run_in(d, &["crl", "-in", "crl.pem", "-noout", "-text"]));
    assert!(
        text.contains("Version 2 (0x1)")
            && text.contains("X509v3 CRL Number: \n                1\n"),
        "{text}"
    );
    refused(&ca(d, &["-gencrl", "-crldays", "x"]), "invalid crldays 'x'");
}

/// Seconds since 1970 of OpenSSL's `Mon DD HH:MM:SS YYYY GMT`.
fn seconds(text: &str) -> i64 {
    let f: Vec<&str> = text.split_whitespace().collect();
    let months =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let m = months.iter().position(|x| *x == f[0]).unwrap() as i64 + 1;
    let (d, y): (i64, i64) = (f[1].parse().unwrap(), f[3].parse().unwrap());
    let hms: Vec<i64> = f[2].split(':').map(|x| x.parse().unwrap()).collect();
    // Days from civil (Howard Hinnant's algorithm).
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    days * 86_400 + hms[0] * 3_600 + hms[1] * 60 + hms[2]
}

/// Runs `openssl ARGS` in `dir`, whatever the outcome.
fn openssl_in(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("openssl").current_dir(dir).args(args).output().unwrap()
}

fn base64_decode(s: &str) -> Vec<u8> {
    let out = run(&["base64", "-d"], format!("{s}\n").as_bytes());
    ok(&out)
}

fn pem(label: &str, der: &[u8]) -> String {
    let b64 = String::from_utf8(ok(&run(&["base64"], der))).unwrap();
    format!("-----BEGIN {label}-----\n{b64}-----END {label}-----\n")
}

/// Without `-config`: `$OPENSSL_CONF`, else the system's openssl.cnf, whose `CA_default`
/// is `./demoCA` (where OpenSSL is installed with that file: the same certificate and
/// database as `openssl ca` makes there).
#[test]
fn default_configuration_as_openssl_finds_it() {
    let dir = new_ca();
    let d = dir.path();
    let r1 = ca_data("r1.csr");
    let args = [
        "ca",
        "-batch",
        "-in",
        r1.to_str().unwrap(),
        "-out",
        "c1.pem",
        "-startdate",
        "20250101000000Z",
        "-enddate",
        "20260101000000Z",
        "-extensions",
        "usr_cert",
    ];
    let out = cc().current_dir(d).env("OPENSSL_CONF", "ca.cnf").args(args).output().unwrap();
    ok(&out);
    assert!(read(d, "c1.pem") == expected("c1.pem"), "OPENSSL_CONF's CA differs");

    let system = "/usr/lib/ssl/openssl.cnf";
    if !std::path::Path::new(system).is_file() || !have_openssl("ca default config") {
        return;
    }
    let (ours, theirs) = (tempdir(), tempdir());
    for root in [ours.path(), theirs.path()] {
        let ca_dir = root.join("demoCA");
        std::fs::create_dir_all(ca_dir.join("newcerts")).unwrap();
        std::fs::create_dir_all(ca_dir.join("private")).unwrap();
        std::fs::write(ca_dir.join("index.txt"), "").unwrap();
        std::fs::write(ca_dir.join("serial"), "1000\n").unwrap();
        std::fs::copy(ca_data("ca.pem"), ca_dir.join("cacert.pem")).unwrap();
        std::fs::copy(ca_data("ca.key"), ca_dir.join("private/cakey.pem")).unwrap();
    }
    let args = [
        "ca",
        "-batch",
        "-policy",
        "policy_anything",
        "-in",
        r1.to_str().unwrap(),
        "-out",
        "c.pem",
        "-startdate",
        "250101000000Z",
        "-enddate",
        "260101000000Z",
    ];
    ok(&cc().current_dir(ours.path()).env_remove("OPENSSL_CONF").args(args).output().unwrap());
    let theirs_out = std::process::Command::new("openssl")
        .current_dir(theirs.path())
        .env_remove("OPENSSL_CONF")
        .args(args)
        .output()
        .unwrap();
    assert!(theirs_out.status.success(), "{}", String::from_utf8_lossy(&theirs_out.stderr));
    for f in ["c.pem", "demoCA/index.txt", "demoCA/serial", "demoCA/newcerts/1000.pem"] {
        assert!(read(ours.path(), f) == read(theirs.path(), f), "{f} differs");
    }
}
