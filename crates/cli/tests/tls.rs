//! `cryptocard s_server` and `cryptocard speed --tls` end to end: the binary as a user
//! runs it. Nothing here asserts how fast anything is.
#![cfg(feature = "tls")]

mod common;

use common::{cc, fails, path, run, tempdir};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// A 2048-bit key and a self-signed certificate for it, made by our own commands and
/// OpenSSL's `req` where present; without `openssl`, by `speed --tls`'s own code path
/// (the JSON test below covers that).
fn key_and_cert(dir: &std::path::Path) -> Option<(String, String)> {
    let key = path(dir, "key.pem");
    run(&["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", &key], b"");
    let cert = path(dir, "cert.pem");
    let made = Command::new("openssl")
        .args(["req", "-new", "-x509", "-key", &key, "-out", &cert, "-days", "2"])
        .args(["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"])
        .output()
        .ok()?;
    made.status.success().then_some((key, cert))
}

/// Runs `cryptocard s_server` with `cert` and `key`, connects `openssl s_client` trusting
/// `ca` with `client_args` more, and asserts that it connected and verified the chain.
fn serve_and_connect(cert: &str, key: &str, ca: &str, client_args: &[&str]) {
    let mut server = Command::new(assert_cmd::cargo::cargo_bin("cryptocard"))
        .args(["s_server", "-accept", "0", "-cert", cert, "-key", key, "-no_resumption"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().strip_prefix("ACCEPT ").unwrap_or_else(|| panic!("{line}")).to_string();
    let out = Command::new("openssl")
        .args(["s_client", "-connect", &addr, "-CAfile", ca, "-verify_return_error", "-brief"])
        .args(client_args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && said.contains("Verification: OK"), "{said}");
}

#[test]
fn s_server_serves_and_openssl_connects() {
    let dir = tempdir();
    let Some((key, cert)) = key_and_cert(dir.path()) else {
        println!("skipped: no `openssl` command to make a certificate with");
        return;
    };
    serve_and_connect(&cert, &key, &cert, &["-servername", "localhost"]);
}

#[test]
fn s_server_serves_a_certificate_made_by_req_and_x509() {
    if Command::new("openssl").arg("version").output().is_err() {
        println!("skipped: no `openssl` command for the client");
        return;
    }
    let dir = tempdir();
    let p = |n: &str| path(dir.path(), n);
    let (ca_key, ca, key, csr, cert) =
        (p("ca.key"), p("ca.pem"), p("srv.key"), p("srv.csr"), p("srv.pem"));
    let ok = |args: &[&str]| {
        let out = run(args, b"");
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    ok(&[
        "req",
        "-new",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        &ca_key,
        "-subj",
        "/CN=Test CA",
        "-days",
        "2",
        "-out",
        &ca,
    ]);
    ok(&[
        "req",
        "-new",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        &key,
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1",
        "-out",
        &csr,
    ]);
    ok(&[
        "x509",
        "-req",
        "-in",
        &csr,
        "-CA",
        &ca,
        "-CAkey",
        &ca_key,
        "-days",
        "2",
        "-copy_extensions",
        "copy",
        "-out",
        &cert,
    ]);
    serve_and_connect(
        &cert,
        &key,
        &ca,
        &["-servername", "localhost", "-verify_hostname", "localhost"],
    );
}

#[test]
fn s_server_refuses_bad_files_in_words() {
    let dir = tempdir();
    let junk = path(dir.path(), "junk.pem");
    std::fs::write(&junk, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        .unwrap();
    let missing = path(dir.path(), "missing.pem");
    // A missing certificate file, a key file with a corrupt key, and no key at all.
    let out = run(&["s_server", "-cert", &missing, "-key", &junk], b"");
    fails(&out, 1, "missing.pem");
    let key = path(dir.path(), "key.pem");
    run(&["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", &key], b"");
    let out = run(&["s_server", "-cert", &key, "-key", &junk], b"");
    fails(&out, 1, "no CERTIFICATE");
    let out = run(&["s_server", "-cert", &junk], b"");
    fails(&out, 1, "-key");
    let out = run(&["s_server", "-cert", &key, "-key", &key, "-provider", "openssl"], b"");
    fails(&out, 1, "-provider");
}

#[test]
fn speed_tls_reports_every_level_and_server() {
    let out = cc()
        .args(["speed", "--tls", "-seconds", "0.3", "-concurrency", "1,4", "--json"])
        .current_dir(tempdir().path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 4, "{rows:?}");
    for (r, (c, imp)) in rows.iter().zip([
        (1, "cryptocard"),
        (1, "rustls+aws-lc-rs"),
        (4, "cryptocard"),
        (4, "rustls+aws-lc-rs"),
    ]) {
        assert_eq!(r["alg"], "tls1.3-rsa2048");
        assert_eq!(r["op"], "handshake");
        assert_eq!((r["concurrency"].as_u64(), r["impl"].as_str()), (Some(c), Some(imp)), "{r}");
        assert_eq!(r["failed"], 0, "{r}");
        assert!(r["handshakes"].as_u64().unwrap() > 0, "{r}");
        assert!(r["ops_per_s"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["ops_per_server_cpu_s"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["p99_us"].as_f64().unwrap() >= r["p50_us"].as_f64().unwrap(), "{r}");
    }
}

#[test]
fn speed_tls_options_are_checked() {
    let out = run(&["speed", "--tls", "-sigalg", "rsa_pkcs1_sha256"], b"");
    fails(&out, 1, "PSS only");
    let out = run(&["speed", "--tls", "rsa1024"], b"");
    fails(&out, 1, "rsa1024");
    let out = run(&["speed", "-pin"], b"");
    fails(&out, 1, "go with --tls");
    let out = run(&["speed", "--tls", "-server", "nginx"], b"");
    fails(&out, 1, "NAME=COMMAND");
}
