//! `cryptocard ocsp` beside `openssl ocsp` (RFC 6960): requests byte for byte as OpenSSL
//! makes them; our responder's answers (from a CA database with a valid, a revoked and no
//! row) read by OpenSSL and by us alike; OpenSSL's responder's read by us as by OpenSSL;
//! a delegated responder with and without id-kp-OCSPSigning; nonces; and bad input. Where
//! OpenSSL is installed, both tools read each response and must print the same stdout,
//! stderr and exit status; what ours prints is asserted everywhere.

mod common;

use common::ocsp::*;
use common::*;
use std::path::Path;

#[test]
fn requests_as_openssl_makes_them() {
    let dir = tempdir();
    pki(dir.path());
    let d = |name: &str| path(dir.path(), name);
    let (ca, a) = (d("ca.pem"), d("a.pem"));
    for digest in [&[][..], &["-sha256"]] {
        // (OpenSSL wants the digest before the certificates.)
        let mut args = vec!["ocsp"];
        args.extend_from_slice(digest);
        args.extend(["-issuer", &ca, "-cert", &a, "-serial", "0x1234", "-no_nonce"]);
        let ours = path(dir.path(), "ours.req");
        ok(&run(&[&args[..], &["-reqout", &ours]].concat(), b""));
        if have_openssl("requests_as_openssl_makes_them") {
            let theirs = path(dir.path(), "theirs.req");
            openssl(&[&args[..], &["-reqout", &theirs]].concat(), b"");
            assert_eq!(std::fs::read(&ours).unwrap(), std::fs::read(&theirs).unwrap());
        }
    }
    // With a nonce: 16 fresh bytes each time, which OpenSSL reads.
    let (r1, r2) = (d("n1.req"), d("n2.req"));
    for r in [&r1, &r2] {
        ok(&run(&["ocsp", "-issuer", &d("ca.pem"), "-cert", &d("a.pem"), "-reqout", r], b""));
    }
    let (n1, n2) = (std::fs::read(&r1).unwrap(), std::fs::read(&r2).unwrap());
    assert_eq!(n1.len(), n2.len());
    assert_ne!(n1, n2);
    if have_openssl("requests_as_openssl_makes_them") {
        let text = String::from_utf8(openssl(&["ocsp", "-reqin", &r1, "-req_text"], b"")).unwrap();
        assert!(text.contains("OCSP Nonce"), "{text}");
    }
}

#[test]
fn our_responder_read_by_both() {
    let dir = tempdir();
    pki(dir.path());
    // The CA answers for itself, about a, b and a serial it never issued; nextUpdate a
    // day on.
    let respond = "-index @index.txt -CA @ca.pem -rsigner @ca.pem -rkey @ca.key -issuer @ca.pem \
                   -cert @a.pem -cert @b.pem -serial 0x7777 -no_nonce -ndays 1 -respout @r.der"
        .to_string();
    ok(&ours(dir.path(), &respond));
    let out = both(dir.path(), &format!("-respin @r.der {READ_A_AND_B} -serial 0x7777"));
    let text = ok_text(&out);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "Response verify OK\n");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with("a.pem: good"), "{text}");
    assert!(lines[1].starts_with("\tThis Update: ") && lines[2].starts_with("\tNext Update: "));
    assert!(lines[3].ends_with("b.pem: revoked"), "{text}");
    assert_eq!(lines[6], "\tReason: keyCompromise");
    assert_eq!(lines[7], "\tRevocation Time: Nov 30 12:00:00 2026 GMT");
    assert_eq!(lines[8], "0x7777: unknown", "{text}");
    // Delegated to `resp`, named by its key's hash, without the responder certificate in
    // the response (given to the checker with -verify_other).
    let respond = respond
        .replace("-rsigner @ca.pem -rkey @ca.key", "-rsigner @resp.pem -rkey @resp.key")
        + " -resp_key_id -resp_no_certs";
    ok(&ours(dir.path(), &respond));
    let out = both(dir.path(), &format!("-respin @r.der {READ_A_AND_B} -verify_other @resp.pem"));
    assert!(ok_text(&out).contains("a.pem: good"));
    // Without the responder's certificate, no signer is found.
    let out = both(dir.path(), &format!("-respin @r.der {READ_A_AND_B}"));
    refused(&out);
    // A responder the CA did not delegate to (no id-kp-OCSPSigning).
    let respond = respond.replace("@resp.", "@plain.");
    ok(&ours(dir.path(), &respond));
    let out = both(dir.path(), &format!("-respin @r.der {READ_A_AND_B} -verify_other @plain.pem"));
    refused(&out);
    // ... unless the checker trusts it as it is.
    let out = both(dir.path(), &format!("-respin @r.der {READ_A_AND_B} -VAfile @plain.pem"));
    assert!(ok_text(&out).contains("b.pem: revoked"));
    // Not checked at all.
    let out = both(dir.path(), &format!("-respin @r.der {READ_A_AND_B} -noverify"));
    assert!(out.stderr.is_empty());
}

#[test]
fn openssls_responder_read_by_both() {
    if !have_openssl("openssls_responder_read_by_both") {
        return;
    }
    let dir = tempdir();
    pki(dir.path());
    let d = |name: &str| path(dir.path(), name);
    let args = ["-rkey", &d("resp.key"), "-issuer", &d("ca.pem"), "-cert", &d("b.pem")];
    openssl(
        &[
            &["ocsp", "-index", &d("index.txt"), "-CA", &d("ca.pem"), "-rsigner", &d("resp.pem")][..],
            &args,
            &["-no_nonce", "-nmin", "30", "-respout", &d("t.der")],
        ]
        .concat(),
        b"",
    );
    // It answers for b alone: a has no status, which fails the run.
    let out = both(dir.path(), &format!("-respin @t.der {READ_A_AND_B}"));
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("a.pem: ERROR: No Status found."), "{text}");
    assert!(text.contains("b.pem: revoked"), "{text}");
}

#[test]
fn nonces_and_bad_responses() {
    let dir = tempdir();
    pki(dir.path());
    let d = |name: &str| path(dir.path(), name);
    // Our request with a nonce, answered by our responder: the nonce comes back.
    ok(&ours(dir.path(), "-issuer @ca.pem -cert @a.pem -reqout @q.der"));
    let responder = "-index @index.txt -CA @ca.pem -rsigner @ca.pem -rkey @ca.key";
    ok(&ours(dir.path(), &format!("{responder} -reqin @q.der -respout @r.der")));
    if have_openssl("nonces_and_bad_responses") {
        let text = openssl(&["ocsp", "-respin", &d("r.der"), "-resp_text", "-noverify"], b"");
        assert!(String::from_utf8_lossy(&text).contains("OCSP Nonce"));
    }
    // Checked by a new request's nonce: not the one echoed.
    let out = both(dir.path(), "-respin @r.der -issuer @ca.pem -cert @a.pem -CAfile @ca.pem");
    fails(&out, 1, "Nonce Verify error");
    // A response without a nonce, checked with one sent: a warning only.
    let args = format!("{responder} -issuer @ca.pem -cert @a.pem -no_nonce -respout @plain.der");
    ok(&ours(dir.path(), &args));
    let out = both(dir.path(), "-respin @plain.der -issuer @ca.pem -cert @a.pem -CAfile @ca.pem");
    assert!(String::from_utf8_lossy(&out.stderr).contains("WARNING: no nonce in response"));
    assert!(ok_text(&out).contains("a.pem: good"));
    // Not a response; a request where a response belongs.
    std::fs::write(d("junk.der"), b"\x30\x03\x02\x01\x01").unwrap();
    fails(&ours(dir.path(), "-respin @junk.der -noverify"), 1, "junk.der");
    fails(&ours(dir.path(), "-respin @q.der -noverify"), 1, "q.der");
    // A responder asked something it cannot read answers malformedRequest.
    let args = format!("{responder} -reqin @junk.der -respout @m.der");
    fails(&ours(dir.path(), &args), 1, "the request");
    let out = both(dir.path(), "-respin @m.der -noverify");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Responder Error: malformedrequest (1)\n");
    assert_eq!(out.status.code(), Some(1));
    // Nothing to do.
    fails(&run(&["ocsp"], b""), 1, "nothing to do");
}

/// Our responder serving `-port 0` for `count` requests, and the port it took (read from
/// its `ACCEPT` line).
fn serve(dir: &Path, count: usize) -> (std::process::Child, u16) {
    serve_with(dir, count, "")
}

/// [`serve`] with more options.
fn serve_with(dir: &Path, count: usize, extra: &str) -> (std::process::Child, u16) {
    let args = words(
        dir,
        &format!(
            "ocsp -index @index.txt -CA @ca.pem -rsigner @ca.pem -rkey @ca.key -port 0 -nrequest {count} -timeout 5 {extra}"
        ),
    );
    spawn_server(&args, false)
}

/// Sends `message` raw to the responder on `port` and returns all it answers.
fn exchange(port: u16, message: &[u8]) -> Vec<u8> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(message).unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    answer
}

/// Waits (at most ten seconds) for `child` to exit and asserts it succeeded.
fn exits_ok(mut child: std::process::Child) {
    for _ in 0..100 {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    panic!("the responder did not stop after -nrequest");
}

#[test]
fn http_client_and_responder() {
    let dir = tempdir();
    pki(dir.path());
    let d = |name: &str| path(dir.path(), name);
    let openssl_too = have_openssl("http_client_and_responder");
    let (child, port) = serve(dir.path(), if openssl_too { 5 } else { 4 });
    let url = format!("http://127.0.0.1:{port}/ocsp");
    // Our client, POST, with a nonce echoed and the response kept.
    let out = ours(
        dir.path(),
        &format!(
            "-url {url} -issuer @ca.pem -cert @a.pem -cert @b.pem -CAfile @ca.pem -respout @r.der -header X-Test=1"
        ),
    );
    let text = ok_text(&out);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "Response verify OK\n");
    assert!(text.contains("a.pem: good") && text.contains("b.pem: revoked"), "{text}");
    let out = ours(dir.path(), &format!("-respin @r.der {READ_A_AND_B} -noverify"));
    assert!(ok_text(&out).contains("b.pem: revoked"));
    // A GET (RFC 6960 A.1: the request's DER, base64, URL-encoded, as the path).
    ok(&ours(dir.path(), "-issuer @ca.pem -cert @a.pem -no_nonce -reqout @q.der"));
    let b64 = ok_text(&run(&["base64", "-A", "-in", &d("q.der")], b""));
    let escaped: String = b64
        .trim()
        .chars()
        .map(|c| match c {
            '+' | '/' | '=' => format!("%{:02X}", c as u32),
            c => c.to_string(),
        })
        .collect();
    let answer = exchange(port, format!("GET /{escaped} HTTP/1.0\r\n\r\n").as_bytes());
    let head_end = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&answer[..head_end]).to_lowercase();
    assert!(head.starts_with("http/1.0 200 ok"), "{head}");
    assert!(head.contains("content-type: application/ocsp-response"), "{head}");
    std::fs::write(d("g.der"), &answer[head_end + 4..]).unwrap();
    let out =
        ours(dir.path(), "-respin @g.der -issuer @ca.pem -cert @a.pem -no_nonce -CAfile @ca.pem");
    assert!(ok_text(&out).contains("a.pem: good"));
    // Not HTTP: an error status, and the responder goes on (this counts as a request).
    let answer = exchange(port, b"BREW /pot HTTP/1.0\r\n\r\n");
    assert!(answer.starts_with(b"HTTP/1.0 400"), "{}", String::from_utf8_lossy(&answer));
    // The database changes while it serves: a is revoked now.
    let index = std::fs::read_to_string(d("index.txt")).unwrap();
    let revoked = index.replacen("V\t491231235959Z\t\t", "R\t491231235959Z\t261201000000Z\t", 1);
    std::fs::write(d("index.txt"), revoked).unwrap();
    // (A time surely unlike the first write's, on any file system's clock granularity.)
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(10);
    std::fs::File::options().write(true).open(d("index.txt")).unwrap().set_modified(later).unwrap();
    let out = ours(dir.path(), &format!("-url {url} -issuer @ca.pem -cert @a.pem -CAfile @ca.pem"));
    assert!(ok_text(&out).contains("a.pem: revoked"));
    if openssl_too {
        let out = openssl_raw(
            &[
                "ocsp",
                "-url",
                &url,
                "-issuer",
                &d("ca.pem"),
                "-cert",
                &d("b.pem"),
                "-CAfile",
                &d("ca.pem"),
            ],
            b"",
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("b.pem: revoked"));
        assert!(String::from_utf8_lossy(&out.stderr).contains("Response verify OK"));
    }
    exits_ok(child);
}

/// `-multi`: many clients at once, each answered with its own nonce, the signatures
/// (PSS here) batched through the engine; then the responder stops after `-nrequest`.
#[test]
fn http_responder_serves_many_at_once() {
    let dir = tempdir();
    pki(dir.path());
    let clients = 12;
    let (child, port) = serve_with(dir.path(), clients, "-multi 6 -rsigopt rsa_padding_mode:pss");
    let url = format!("http://127.0.0.1:{port}/");
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..clients)
            .map(|i| {
                let (dir, url) = (dir.path(), &url);
                s.spawn(move || {
                    let cert = if i % 2 == 0 { "a" } else { "b" };
                    let args =
                        format!("-url {url} -issuer @ca.pem -cert @{cert}.pem -CAfile @ca.pem");
                    let out = ours(dir, &args);
                    let want = if i % 2 == 0 { "a.pem: good" } else { "b.pem: revoked" };
                    assert!(ok_text(&out).contains(want));
                    assert_eq!(String::from_utf8_lossy(&out.stderr), "Response verify OK\n");
                })
            })
            .collect();
        for r in runs {
            r.join().unwrap();
        }
    });
    exits_ok(child);
    fails(&ours(dir.path(), "-issuer @ca.pem -cert @a.pem -multi 4"), 1, "-multi goes with -port");
    for bad in ["0", "1025", "many"] {
        let args = format!(
            "-index @index.txt -CA @ca.pem -rsigner @ca.pem -rkey @ca.key -port 0 -multi {bad}"
        );
        fails(&ours(dir.path(), &args), 1, "-multi");
    }
}

#[test]
fn http_client_against_openssls_responder() {
    if !have_openssl("http_client_against_openssls_responder") {
        return;
    }
    let dir = tempdir();
    pki(dir.path());
    let d = |name: &str| path(dir.path(), name);
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = std::process::Command::new("openssl")
        .args(["ocsp", "-index", &d("index.txt"), "-CA", &d("ca.pem"), "-rsigner", &d("resp.pem")])
        .args(["-rkey", &d("resp.key"), "-port", &port.to_string(), "-nrequest", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Asked until it listens (a refused connection is not a request).
    let args = format!("-host 127.0.0.1:{port} -path / {READ_A_AND_B}");
    let mut out = ours(dir.path(), &args);
    for _ in 0..50 {
        if !String::from_utf8_lossy(&out.stderr).contains("refused") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        out = ours(dir.path(), &args);
    }
    let text = ok_text(&out);
    assert!(text.contains("a.pem: good") && text.contains("b.pem: revoked"), "{text}");
    assert!(server.wait().unwrap().success());
}

#[test]
fn http_bad_input() {
    let dir = tempdir();
    pki(dir.path());
    let ask = "-issuer @ca.pem -cert @a.pem";
    fails(&ours(dir.path(), &format!("-url ftp://127.0.0.1/ {ask}")), 1, "not an http:// or");
    fails(&ours(dir.path(), &format!("-url http://127.0.0.1:x/ {ask}")), 1, "invalid port");
    fails(&ours(dir.path(), &format!("-url http://h/ -host h:1 {ask}")), 1, "not both");
    fails(&ours(dir.path(), &format!("-url http://h/ -header novalue {ask}")), 1, "NAME=VALUE");
    fails(&ours(dir.path(), "-port 0"), 1, "-port needs -index");
    // A server that hangs up without a word (a port of our own: one just freed could be
    // taken by another test's server meanwhile).
    let port = hang_up_once();
    fails(&ours(dir.path(), &format!("-url http://127.0.0.1:{port}/ {ask}")), 1, "127.0.0.1");
    // A server that answers something else than OCSP, or nothing in time.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let talker = std::thread::spawn(move || {
        use std::io::{Read, Write};
        for reply in [
            &b"HTTP/1.0 404 Not Found\r\n\r\n"[..],
            b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\nhi",
            b"",
        ] {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            s.write_all(reply).unwrap();
            if reply.is_empty() {
                // Silent past the client's timeout.
                std::thread::sleep(std::time::Duration::from_secs(3));
            }
        }
    });
    let url = format!("-url http://127.0.0.1:{port}/ {ask} -timeout 1");
    fails(&ours(dir.path(), &url), 1, "404 Not Found");
    fails(&ours(dir.path(), &url), 1, "not application/ocsp-response");
    fails(&ours(dir.path(), &url), 1, "timed out");
    talker.join().unwrap();
}

/// A port on which one connection is taken and closed without an answer.
fn hang_up_once() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || drop(listener.accept()));
    port
}

#[test]
fn text_dumps_as_openssl_prints_them() {
    let dir = tempdir();
    pki(dir.path());
    // Requests: SHA-1 and SHA-256 IDs, a nonce, a serial with its top bit set.
    ok(&ours(dir.path(), "-issuer @ca.pem -cert @a.pem -serial 0x80ff -reqout @q1.der"));
    ok(&ours(dir.path(), "-sha256 -issuer @ca.pem -cert @b.pem -no_nonce -reqout @q2.der"));
    let text = ok_text(&both(dir.path(), "-reqin @q1.der -req_text"));
    assert!(text.starts_with("OCSP Request Data:\n    Version: 1 (0x0)\n"), "{text}");
    assert!(text.contains("Serial Number: 80FF\n") && text.contains("OCSP Nonce: \n"), "{text}");
    let text = ok_text(&both(dir.path(), "-reqin @q2.der -text"));
    assert!(text.contains("Hash Algorithm: sha256\n"), "{text}");
    // Responses: by name and by key, good, revoked with its reason, unknown, a next
    // update, the responder's certificate carried (its text and PEM) or not.
    let responder = "-index @index.txt -CA @ca.pem -rsigner @resp.pem -rkey @resp.key";
    let ask = "-issuer @ca.pem -cert @a.pem -cert @b.pem -serial 0x7777";
    ok(&ours(dir.path(), &format!("{responder} {ask} -ndays 1 -respout @r1.der")));
    let text = ok_text(&both(dir.path(), "-respin @r1.der -resp_text -noverify"));
    assert!(text.contains("    Responder Id: CN = resp\n"), "{text}");
    assert!(text.contains("Revocation Reason: keyCompromise (0x1)\n"), "{text}");
    assert!(text.contains("    Cert Status: unknown\n") && text.contains("Next Update: "));
    assert!(text.contains("-----BEGIN CERTIFICATE-----\n") && text.contains("Subject: CN=resp\n"));
    ok(&ours(
        dir.path(),
        &format!("{responder} {ask} -resp_key_id -resp_no_certs -respout @r2.der"),
    ));
    let text = ok_text(&both(dir.path(), "-respin @r2.der -resp_text -noverify"));
    assert!(!text.contains("BEGIN CERTIFICATE") && !text.contains("Responder Id: CN"), "{text}");
    // As the responder makes it, with the request it answers.
    let out = ours(dir.path(), &format!("{responder} -reqin @q1.der -respout @r3.der -text"));
    let text = ok_text(&out);
    let at = text.find("OCSP Response Data:").expect("both texts");
    assert!(text.starts_with("OCSP Request Data:") && text[at..].contains("Response Extensions:"));
    // Without -respout the responder still answers, on stdout only, as openssl's does.
    let text = ok_text(&ours(dir.path(), &format!("{responder} -reqin @q1.der -resp_text")));
    assert!(
        text.starts_with("OCSP Response Data:") && text.contains("Cert Status: good"),
        "{text}"
    );
    // A response that is an error: its status, no text.
    std::fs::write(path(dir.path(), "junk.der"), b"\x30\x03\x02\x01\x01").unwrap();
    fails(
        &ours(dir.path(), &format!("{responder} -reqin @junk.der -respout @m.der")),
        1,
        "request",
    );
    let out = both(dir.path(), "-respin @m.der -resp_text");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Responder Error: malformedrequest (1)\n");
    fails(&ours(dir.path(), "-reqin @junk.der -req_text"), 1, "the request");
}
