//! `cryptocard s_server`, `cryptocard speed --tls` and `speed --ocsp` end to end: the
//! binary as a user runs it. Nothing here asserts how fast anything is.
#![cfg(feature = "tls")]

mod common;

use common::{cc, fails, have_openssl, ok, path, run, tempdir};
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

/// A root (`ca.pem`) and a server certificate for localhost and 127.0.0.1 that it signed
/// (`srv.pem`, key `srv.key`), made by our own `req` and `x509 -req` in `dir`; returns
/// the three paths.
fn ca_and_server_cert(dir: &std::path::Path) -> (String, String, String) {
    let made = |args: &str| {
        // `@` stands for `dir`.
        let words: Vec<String> = args.split(' ').map(|w| w.replace('@', &path(dir, ""))).collect();
        ok(&run(&words.iter().map(String::as_str).collect::<Vec<_>>(), b""));
    };
    made(
        "req -new -x509 -newkey rsa:2048 -nodes -keyout @ca.key -subj /CN=Test-CA -days 2 -out @ca.pem",
    );
    made(
        "req -new -newkey rsa:2048 -nodes -keyout @srv.key -subj /CN=localhost \
         -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -out @srv.csr",
    );
    made(
        "x509 -req -in @srv.csr -CA @ca.pem -CAkey @ca.key -days 2 -copy_extensions copy \
         -out @srv.pem",
    );
    (path(dir, "ca.pem"), path(dir, "srv.key"), path(dir, "srv.pem"))
}

/// Starts `cryptocard s_server` on `accept` with `cert` and `key`, resumption off;
/// returns it and the address it says it accepts on.
fn s_server(accept: &str, cert: &str, key: &str) -> (std::process::Child, String) {
    s_server_with(accept, cert, key, &["-no_resumption"])
}

/// [`s_server`] with `extra` options instead of `-no_resumption`.
fn s_server_with(
    accept: &str,
    cert: &str,
    key: &str,
    extra: &[&str],
) -> (std::process::Child, String) {
    let mut server = Command::new(assert_cmd::cargo::cargo_bin("cryptocard"))
        .args(["s_server", "-accept", accept, "-cert", cert, "-key", key])
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().strip_prefix("ACCEPT ").unwrap_or_else(|| panic!("{line}")).to_string();
    (server, addr)
}

/// The JSON rows of a `speed --json` run that succeeded.
fn json_rows(out: std::process::Output) -> Vec<Value> {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs `cryptocard s_server` with `cert` and `key`, connects `openssl s_client` trusting
/// `ca` with `client_args` more, and asserts that it connected and verified the chain.
fn serve_and_connect(cert: &str, key: &str, ca: &str, client_args: &[&str]) {
    let (mut server, addr) = s_server("0", cert, key);
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
    let (ca, key, cert) = ca_and_server_cert(dir.path());
    serve_and_connect(
        &cert,
        &key,
        &ca,
        &["-servername", "localhost", "-verify_hostname", "localhost"],
    );
}

/// `s_server -status_file` staples an OCSP response made by `openssl ocsp` (the CA
/// responding for itself, the server certificate "good" in its index) to the chain, in TLS
/// 1.2 and 1.3, for `openssl s_client -status`.
#[test]
fn s_server_staples_an_ocsp_response() {
    if Command::new("openssl").arg("version").output().is_err() {
        println!("skipped: no `openssl` command to make an OCSP response with");
        return;
    }
    let dir = tempdir();
    let (ca, key, cert) = ca_and_server_cert(dir.path());
    let serial = String::from_utf8(ok(&run(&["x509", "-in", &cert, "-noout", "-serial"], b"")))
        .unwrap()
        .trim()
        .strip_prefix("serial=")
        .unwrap()
        .to_string();
    let index = path(dir.path(), "index.txt");
    std::fs::write(&index, format!("V\t491231235959Z\t\t{serial}\tunknown\t/CN=localhost\n"))
        .unwrap();
    let (ca_key, response) = (path(dir.path(), "ca.key"), path(dir.path(), "resp.der"));
    let made = Command::new("openssl")
        .args(["ocsp", "-index", &index, "-rsigner", &ca, "-rkey", &ca_key, "-CA", &ca])
        .args(["-issuer", &ca, "-cert", &cert, "-respout", &response, "-ndays", "1"])
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let (mut server, addr) = s_server_with("0", &cert, &key, &["-status_file", &response]);
    for version in ["-tls1_2", "-tls1_3"] {
        let out = Command::new("openssl")
            .args(["s_client", "-connect", &addr, "-CAfile", &ca, "-status", version])
            .args(["-servername", "localhost", "-verify_return_error"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.contains("OCSP Response Status: successful (0x0)"), "{version}: {said}");
        assert!(said.contains("Cert Status: good"), "{version}: {said}");
    }
    let _ = server.kill();
    let _ = server.wait();
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
    // A staple that is no OCSP response.
    let out = run(&["s_server", "-cert", &key, "-key", &key, "-status_file", &key], b"");
    fails(&out, 1, "not a DER OCSP response");
}

#[test]
fn speed_tls_reports_every_level_and_server() {
    let out = cc()
        .args(["speed", "--tls", "-seconds", "0.3", "-concurrency", "1,4", "--json"])
        .current_dir(tempdir().path())
        .output()
        .unwrap();
    let rows = json_rows(out);
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

/// `speed --ocsp`: our responder (and OpenSSL's, where `openssl` is installed) under 1
/// and 4 clients, every response a successful one; a responder that answers nothing
/// useful fails the run.
#[test]
fn speed_ocsp_reports_every_level_and_responder() {
    let dir = tempdir();
    let out = cc()
        .args(["speed", "--ocsp", "-seconds", "0.3", "-concurrency", "1,4", "--json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let rows = json_rows(out);
    let openssl = have_openssl("speed_ocsp_reports_every_level_and_responder");
    let responders: &[&str] = if openssl { &["cryptocard", "openssl"] } else { &["cryptocard"] };
    assert_eq!(rows.len(), 2 * responders.len(), "{rows:?}");
    for (i, r) in rows.iter().enumerate() {
        let (c, imp) = ([1, 4][i / responders.len()], responders[i % responders.len()]);
        assert_eq!(r["alg"], "ocsp-rsa2048");
        assert_eq!(r["op"], "ocsp-response");
        assert_eq!((r["concurrency"].as_u64(), r["impl"].as_str()), (Some(c), Some(imp)), "{r}");
        assert_eq!(r["failed"], 0, "{r}");
        assert!(r["responses"].as_u64().unwrap() > 0, "{r}");
        assert!(r["ops_per_server_cpu_s"].as_f64().unwrap() > 0.0, "{r}");
    }
    // A responder whose key is not its certificate's answers every request with an HTTP
    // error: no response succeeds, and the run says so.
    let other = path(dir.path(), "other.key");
    ok(&run(&["genrsa", "-out", &other, "2048"], b""));
    let program = cc().get_program().to_string_lossy().into_owned();
    let server = format!(
        "broken={program} ocsp -index {{index}} -CA {{cert}} -rsigner {{cert}} -rkey {other} -port {{port}}"
    );
    let out = cc()
        .args(["speed", "--ocsp", "-seconds", "0.2", "-concurrency", "1", "-server", &server])
        .current_dir(dir.path())
        .output()
        .unwrap();
    fails(&out, 1, "broken: no response succeeded");
}

/// `speed --tls -connect` against a server it did not start: a chain made by our own
/// `req` and `x509 -req`, served by `cryptocard s_server`; the clients verify it against
/// `-CAfile`'s root for the host of `-connect`.
#[test]
fn speed_tls_connects_to_a_running_server_with_its_root() {
    let dir = tempdir();
    let (ca, key, cert) = ca_and_server_cert(dir.path());
    let (mut server, addr) = s_server("127.0.0.1:0", &cert, &key);
    let speed = |extra: &[&str]| {
        cc().args(["speed", "--tls", "-connect", &addr, "-seconds", "0.3", "-concurrency", "2"])
            .args(extra)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let out = speed(&["-CAfile", &ca, "--json"]);
    let refused = speed(&[]);
    let untrusted = speed(&["-CAfile", &cert]);
    let _ = server.kill();
    let _ = server.wait();
    let rows = json_rows(out);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["impl"], format!("server at {addr}"));
    assert_eq!(rows[0]["failed"], 0, "{rows:?}");
    assert!(rows[0]["handshakes"].as_u64().unwrap() > 0, "{rows:?}");
    fails(&refused, 1, "-CAfile");
    // The leaf is no root: every chain fails to verify, and the run says so.
    fails(&untrusted, 1, "no handshake succeeded");
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
    let out = run(&["speed", "--tls", "-CAfile", "roots.pem"], b"");
    fails(&out, 1, "goes with -connect");
    let out =
        run(&["speed", "--tls", "-connect", "localhost:1", "-CAfile", "/nonexistent.pem"], b"");
    fails(&out, 1, "/nonexistent.pem");
    let out = run(&["speed", "--tls", "-connect", "bad host:1", "-CAfile", "x.pem"], b"");
    fails(&out, 1, "not a host name");
    let out = run(&["speed", "--ocsp", "--tls"], b"");
    fails(&out, 1, "not both");
    let out = run(&["speed", "--ocsp", "-sigalg", "rsa_pss_rsae_sha256"], b"");
    fails(&out, 1, "--ocsp takes no");
    let out = run(&["speed", "--ocsp", "-servers", "stock"], b"");
    fails(&out, 1, "not cryptocard or openssl");
}
