//! The rest of `openssl ocsp`'s options beside OpenSSL's: signed requests (`-signer`,
//! `-signkey`, `-sign_other`, `-no_certs`) byte for byte; the responder's `-rmd`,
//! `-rsigopt`, `-rcid` and `-badsig`, and the single extensions of a revocation with an
//! invalidity date or a hold instruction; the client's relaxations (`-no_signature_verify`,
//! `-no_cert_verify`, `-no_chain`, `-no_cert_checks`, `-no_intern`, `-trust_other`),
//! `-status_age` and `-out`. Where OpenSSL is installed, both tools read each message and
//! must print the same stdout, first stderr line and exit status.

mod common;

use common::ocsp::*;
use common::*;
use std::path::Path;

/// The responder's options that answer about `a` and `b` as the CA itself.
const RESPOND: &str = "-index @index.txt -CA @ca.pem -rsigner @ca.pem -rkey @ca.key \
                       -issuer @ca.pem -cert @a.pem -cert @b.pem -no_nonce";

/// Reads `name` in the directory.
fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(path(dir, name)).unwrap()
}

#[test]
fn signed_requests_as_openssl_signs_them() {
    let dir = tempdir();
    let d = dir.path();
    pki(d);
    // PKCS#1 v1.5 signatures are deterministic, so without a nonce each request is the
    // same bytes from both.
    for extra in ["", "-sign_other @ca.pem", "-no_certs", "-sign_other @ca.pem -no_certs"] {
        let args = format!(
            "-issuer @ca.pem -cert @a.pem -no_nonce -signer @resp.pem -signkey @resp.key {extra}"
        );
        ok(&ours(d, &format!("{args} -reqout @ours.der")));
        if have_openssl("signed_requests_as_openssl_signs_them") {
            let w = words(d, &format!("{args} -reqout @theirs.der"));
            let mut argv = vec!["ocsp"];
            argv.extend(w.iter().map(String::as_str));
            openssl(&argv, b"");
            assert_eq!(read(d, "ours.der"), read(d, "theirs.der"), "{extra}");
        }
        // Its text as OpenSSL prints it: the requestor, the signature and the certificates.
        let out = both(d, "-reqin @ours.der -req_text");
        let text = ok_text(&out);
        assert!(text.contains("    Requestor Name: DirName:CN = resp\n"), "{text}");
        assert!(text.contains("    Signature Algorithm: sha256WithRSAEncryption\n"), "{text}");
        let certs = text.matches("-----BEGIN CERTIFICATE-----").count();
        let want = match (extra.contains("sign_other"), extra.contains("no_certs")) {
            (_, true) => 0,
            (true, false) => 2,
            (false, false) => 1,
        };
        assert_eq!(certs, want, "{extra}");
    }
    // A request read in is signed too; the signer's key from its own file.
    ok(&ours(d, "-issuer @ca.pem -cert @b.pem -reqout @plain.der"));
    let both_in_one = format!(
        "{}{}",
        std::fs::read_to_string(path(d, "resp.pem")).unwrap(),
        std::fs::read_to_string(path(d, "resp.key")).unwrap()
    );
    std::fs::write(path(d, "resp-both.pem"), both_in_one).unwrap();
    ok(&ours(d, "-reqin @plain.der -signer @resp-both.pem -reqout @signed.der"));
    let signed = read(d, "signed.der");
    assert!(signed.len() > read(d, "plain.der").len() + 256);
    // Our responder answers a signed request as any other.
    ok(&ours(
        d,
        "-index @index.txt -CA @ca.pem -rsigner @ca.pem -rkey @ca.key -reqin @signed.der -respout @r.der",
    ));
    let out = both(d, "-respin @r.der -issuer @ca.pem -cert @b.pem -CAfile @ca.pem -no_nonce");
    assert!(ok_text(&out).contains("b.pem: revoked"));
    // A key that is not the signer's, and a signer with nothing to sign.
    let wrong = "-issuer @ca.pem -cert @a.pem -signer @resp.pem -signkey @a.key -reqout @x.der";
    fails(&ours(d, wrong), 1, "not the signer certificate's");
    assert!(!path_exists(d, "x.der"));
    fails(&ours(d, "-signer @resp.pem -signkey @resp.key -reqout @x.der"), 1, "-signer");
}

fn path_exists(dir: &Path, name: &str) -> bool {
    Path::new(&path(dir, name)).exists()
}

#[test]
fn response_signatures_and_ids() {
    let dir = tempdir();
    let d = dir.path();
    pki(d);
    // SHA-384, and PSS: read alike by both, their algorithms named in the text.
    for (opts, name) in [
        ("-rmd sha384", "sha384WithRSAEncryption"),
        ("-rsigopt rsa_padding_mode:pss", "rsassaPss"),
        ("-rmd sha512 -rsigopt rsa_padding_mode:pss -rsigopt rsa_pss_saltlen:32", "rsassaPss"),
    ] {
        ok(&ours(d, &format!("{RESPOND} {opts} -respout @r.der")));
        let out = both(d, &format!("-respin @r.der {READ_A_AND_B} -resp_text"));
        let text = ok_text(&out);
        assert!(text.contains(&format!("Signature Algorithm: {name}")), "{opts}: {text}");
        assert!(text.contains("a.pem: good"), "{text}");
        if opts.contains("saltlen:32") {
            assert!(text.contains("Salt Length: 0x20"), "{text}");
        }
    }
    fails(
        &ours(d, &format!("{RESPOND} -rsigopt rsa_padding_mode:oaep -respout @r.der")),
        1,
        "-rsigopt",
    );
    // -rcid: the answers' IDs hashed with SHA-256 though asked with SHA-1; a client asking
    // with SHA-1 IDs finds no status, one with SHA-256 IDs finds it.
    ok(&ours(d, &format!("{RESPOND} -rcid sha256 -respout @r.der")));
    let out = both(d, &format!("-respin @r.der {READ_A_AND_B}"));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("a.pem: ERROR: No Status found."));
    let out = both(d, &format!("-sha256 -respin @r.der {READ_A_AND_B}"));
    assert!(ok_text(&out).contains("b.pem: revoked"));
    // -badsig: no client accepts it unless told not to check the signature.
    ok(&ours(d, &format!("{RESPOND} -badsig -respout @bad.der")));
    refused(&both(d, &format!("-respin @bad.der {READ_A_AND_B}")));
    let out = both(d, &format!("-respin @bad.der {READ_A_AND_B} -no_signature_verify"));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "Response verify OK\n");
}

#[test]
fn revocation_details_as_openssls_responder_adds_them() {
    let dir = tempdir();
    let d = dir.path();
    pki(d);
    let index = std::fs::read_to_string(path(d, "index.txt")).unwrap();
    for (detail, line) in [
        ("keyTime,20261101000000Z", "Invalidity Date: "),
        ("holdInstruction,holdInstructionReject", "Hold Instruction Code: "),
    ] {
        let reason = if detail.starts_with("hold") { "certificateHold" } else { "keyCompromise" };
        std::fs::write(path(d, "index.txt"), index.replace("keyCompromise", detail)).unwrap();
        ok(&ours(d, &format!("{RESPOND} -respout @r.der")));
        let out = both(d, &format!("-respin @r.der {READ_A_AND_B} -resp_text"));
        let text = ok_text(&out);
        assert!(text.contains(&format!("\tReason: {reason}\n")), "{text}");
        let ours_block = extension_block(&text);
        assert!(ours_block.contains(line), "{detail}: {text}");
        if have_openssl("revocation_details_as_openssls_responder_adds_them") {
            let w = words(d, &format!("{RESPOND} -respout @t.der"));
            let mut argv = vec!["ocsp"];
            argv.extend(w.iter().map(String::as_str));
            openssl(&argv, b"");
            let theirs = ok_text(&ours(d, &format!("-respin @t.der {READ_A_AND_B} -resp_text")));
            assert_eq!(ours_block, extension_block(&theirs), "{detail}");
        }
    }
}

/// The `Response Single Extensions` lines of a response's text.
fn extension_block(text: &str) -> String {
    let mut lines = text.lines().skip_while(|l| !l.contains("Response Single Extensions:"));
    let mut block: Vec<&str> = lines.next().into_iter().collect();
    block.extend(lines.take_while(|l| l.starts_with("            ")));
    block.join("\n")
}

#[test]
fn relaxed_checks_as_openssls_flags() {
    let dir = tempdir();
    let d = dir.path();
    pki(d);
    let delegated = |who: &str, extra: &str| {
        let respond = RESPOND.replace(
            "-rsigner @ca.pem -rkey @ca.key",
            &format!("-rsigner @{who}.pem -rkey @{who}.key"),
        );
        ok(&ours(d, &format!("{respond} {extra} -respout @r.der")));
    };
    // The delegated responder checked against a root that is not its CA: refused, unless
    // the path is not checked.
    delegated("resp", "");
    let other_root = READ_A_AND_B.replace("-CAfile @ca.pem", "-CAfile @a.pem");
    refused(&both(d, &format!("-respin @r.der {other_root}")));
    let out = both(d, &format!("-respin @r.der {other_root} -no_cert_verify"));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "Response verify OK\n");
    // A responder without id-kp-OCSPSigning: refused, unless its authority is not
    // checked, or it is trusted as it is (-trust_other).
    delegated("plain", "");
    refused(&both(d, &format!("-respin @r.der {READ_A_AND_B}")));
    let out = both(d, &format!("-respin @r.der {READ_A_AND_B} -no_cert_checks"));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "Response verify OK\n");
    let out =
        both(d, &format!("-respin @r.der {READ_A_AND_B} -verify_other @plain.pem -trust_other"));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "Response verify OK\n");
    // The delegated responder's certificate in the response: not searched with
    // -no_intern, so it must come from -verify_other. (Without -issuer: OpenSSL 3.0 tries
    // a failed check again with the -issuer certificates and none of the flags.)
    delegated("resp", "");
    let out = both(d, "-respin @r.der -CAfile @ca.pem -no_intern");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("Response Verify Failure\n"));
    let out = both(d, "-respin @r.der -CAfile @ca.pem -no_intern -verify_other @resp.pem");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "Response verify OK\n");
    // -no_chain: its path needs nothing but the root, so it still holds; -no_explicit
    // changes nothing.
    let out = both(d, &format!("-respin @r.der {READ_A_AND_B} -no_chain -no_explicit"));
    assert!(ok_text(&out).contains("b.pem: revoked"));
}

#[test]
fn status_age_and_out() {
    let dir = tempdir();
    let d = dir.path();
    pki(d);
    ok(&ours(d, &format!("{RESPOND} -respout @r.der")));
    // thisUpdate is now: within a day's age, and (two seconds on) older than one second.
    let out = both(d, &format!("-respin @r.der {READ_A_AND_B} -status_age 86400"));
    assert!(!ok_text(&out).contains("WARNING"));
    std::thread::sleep(std::time::Duration::from_secs(2));
    let out = both(d, &format!("-respin @r.der {READ_A_AND_B} -status_age 1"));
    let text = ok_text(&out);
    assert!(
        text.starts_with(&format!("{}: WARNING: Status times invalid.\ngood\n", path(d, "a.pem"))),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("status too old"));
    // Slack and age as large as a number can be: an answer, not an overflow.
    let huge = "-validity_period 18446744073709551615 -status_age 18446744073709551615";
    let out = ours(d, &format!("-respin @r.der {READ_A_AND_B} {huge}"));
    assert!(!ok_text(&out).contains("WARNING"));
    // -out: the statuses (and the texts) go to the file, written whole; stdout is empty.
    let out = ours(d, &format!("-respin @r.der {READ_A_AND_B} -resp_text -out @status.txt"));
    assert!(ok_text(&out).is_empty());
    let written = String::from_utf8(read(d, "status.txt")).unwrap();
    assert!(written.starts_with("OCSP Response Data:\n"), "{written}");
    assert!(written.contains("b.pem: revoked\n"), "{written}");
    // A failed check writes the file too, and fails.
    let out = ours(d, &format!("-respin @r.der {READ_A_AND_B} -serial 0x7777 -out @status.txt"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8(read(d, "status.txt"))
            .unwrap()
            .contains("0x7777: ERROR: No Status found.")
    );
}

/// The trust anchors as OpenSSL's `setup_verify` loads them: `-CApath`'s hashed
/// directory, and with neither `-CAfile` nor `-CApath` the default roots
/// (`SSL_CERT_FILE` here), which `-no-CAfile` leaves out.
#[test]
fn trust_anchors_as_openssl_loads_them() {
    let dir = tempdir();
    let d = dir.path();
    pki(d);
    // The delegated responder: its path to the CA must be found (the -issuer retry does
    // not rescue it).
    let respond =
        RESPOND.replace("-rsigner @ca.pem -rkey @ca.key", "-rsigner @resp.pem -rkey @resp.key");
    ok(&ours(d, &format!("{respond} -respout @r.der")));
    let read = "-respin @r.der -issuer @ca.pem -cert @a.pem -no_nonce";
    let hash = ok_text(&run(&["x509", "-in", &path(d, "ca.pem"), "-noout", "-hash"], b""));
    std::fs::create_dir(path(d, "capath")).unwrap();
    std::fs::copy(path(d, "ca.pem"), path(d, &format!("capath/{}.0", hash.trim()))).unwrap();
    let out = both(d, &format!("{read} -CApath @capath"));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "Response verify OK\n");
    // The default roots: SSL_CERT_FILE names the CA (and SSL_CERT_DIR an empty directory,
    // so that OpenSSL's default directory adds nothing).
    std::fs::create_dir(path(d, "empty")).unwrap();
    let with_env = |program: &str, extra: &str| {
        let mut cmd = match program {
            "ours" => std::process::Command::new(cc().get_program()),
            _ => std::process::Command::new("openssl"),
        };
        let args = words(d, &format!("ocsp {read} {extra}"));
        cmd.args(&args)
            .env("SSL_CERT_FILE", path(d, "ca.pem"))
            .env("SSL_CERT_DIR", path(d, "empty"))
            .output()
            .unwrap()
    };
    let stderr = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
    let trusted = with_env("ours", "");
    assert_eq!(stderr(&trusted), "Response verify OK\n");
    let refused = with_env("ours", "-no-CAfile");
    assert!(stderr(&refused).starts_with("Response Verify Failure\n"), "{}", stderr(&refused));
    assert_eq!(refused.status.code(), Some(1));
    if have_openssl("trust_anchors_as_openssl_loads_them") {
        let first = |o: &std::process::Output| stderr(o).lines().next().unwrap_or("").to_string();
        assert_eq!(first(&with_env("openssl", "")), "Response verify OK");
        assert_eq!(first(&with_env("openssl", "-no-CAfile")), "Response Verify Failure");
    }
}

/// `-url https://`: the request over TLS (the server's certificate not checked, as
/// OpenSSL's `ocsp` does not check it; the response is checked as any other), here
/// against a TLS server of the test's own that answers with our responder's response.
#[cfg(feature = "tls")]
#[test]
fn the_client_speaks_https() {
    use cryptocard_rustls::rustls::{ServerConnection, StreamOwned};
    use cryptocard_rustls::server;
    use std::io::{Read, Write};
    let dir = tempdir();
    let d = dir.path();
    pki(d);
    ok(&ours(d, &format!("{RESPOND} -respout @r.der")));
    let response = read(d, "r.der");
    let file = |name: &str| std::path::PathBuf::from(path(d, name));
    let identity =
        (server::read_chain(&file("ca.pem")).unwrap(), server::read_key(&file("ca.key")).unwrap());
    let config = server::config(vec![identity], &server::Options::default()).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let serving = std::thread::spawn(move || {
        let (tcp, _) = listener.accept().unwrap();
        let mut tls = StreamOwned::new(ServerConnection::new(config).unwrap(), tcp);
        let (mut got, mut buf) = (Vec::new(), [0u8; 4096]);
        let head = loop {
            let n = tls.read(&mut buf).unwrap();
            assert!(n > 0, "the client closed early");
            got.extend_from_slice(&buf[..n]);
            let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
            let head = String::from_utf8_lossy(&got[..end]).to_lowercase();
            let length = head.lines().find_map(|l| l.strip_prefix("content-length:"));
            if got.len() >= end + 4 + length.unwrap().trim().parse::<usize>().unwrap() {
                break head;
            }
        };
        let answer = format!(
            "HTTP/1.0 200 OK\r\nContent-Type: application/ocsp-response\r\nContent-Length: {}\r\n\r\n",
            response.len()
        );
        tls.write_all(&[answer.as_bytes(), &response].concat()).unwrap();
        tls.conn.send_close_notify();
        tls.flush().unwrap();
        head
    });
    let out = ours(d, &format!("-url https://127.0.0.1:{port}/ocsp {READ_A_AND_B}"));
    let head = serving.join().unwrap();
    assert!(head.starts_with("post /ocsp http/1.0\r\n"), "{head}");
    assert!(head.contains("content-type: application/ocsp-request"), "{head}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "Response verify OK\n");
    assert!(ok_text(&out).contains("b.pem: revoked"));
    // A plain HTTP server is no TLS server.
    let plain = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = plain.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (mut tcp, _) = plain.accept().unwrap();
        let _ = tcp.write_all(b"HTTP/1.0 400 Bad Request\r\n\r\n");
    });
    let out = ours(d, &format!("-url https://127.0.0.1:{port}/ {READ_A_AND_B} -timeout 5"));
    assert_eq!(out.status.code(), Some(1));
}
