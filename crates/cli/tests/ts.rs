//! `cryptocard ts` beside `openssl ts` (RFC 3161): requests byte for byte as OpenSSL makes
//! them (without a nonce, the one random part), refusals byte for byte, our TSA's tokens
//! verified by OpenSSL and OpenSSL's by us, the texts of requests, responses and tokens
//! line for line, the checks that must fail, the serial file, and bad input. Where
//! OpenSSL is installed both tools run each case and must agree; what ours prints is
//! asserted everywhere.

mod common;

use common::*;
use std::path::Path;
use std::process::Output;

/// A CA (`ca.pem`), a TSA it certified for time stamping alone (`tsa.pem`, `tsa.key`),
/// a certificate for the same purposes without the extendedKeyUsage (`plain.pem`,
/// `plain.key`), the data `data.txt`, and `tsa.cnf`: OpenSSL's example TSA section, its
/// policies named in an `oid_section`. Made with our own commands.
fn pki(dir: &Path) {
    let cmd = |args: &str| {
        let words: Vec<String> = args.split(' ').map(|w| w.replace('@', &path(dir, ""))).collect();
        ok(&run(&words.iter().map(String::as_str).collect::<Vec<_>>(), b""));
    };
    cmd(
        "req -new -x509 -newkey rsa:2048 -nodes -keyout @ca.key -subj /CN=TS-CA -days 2 -out @ca.pem",
    );
    for (name, ext) in
        [("tsa", "extendedKeyUsage=critical,timeStamping"), ("plain", "keyUsage=digitalSignature")]
    {
        cmd(&format!(
            "req -new -newkey rsa:2048 -nodes -keyout @{name}.key -subj /O=Card/CN={name} -addext {ext} -out @{name}.csr"
        ));
        cmd(&format!(
            "x509 -req -in @{name}.csr -CA @ca.pem -CAkey @ca.key -days 2 -copy_extensions copy -out @{name}.pem"
        ));
    }
    std::fs::write(dir.join("data.txt"), "a document to date\n").unwrap();
    let conf = CONF.replace("@", &path(dir, ""));
    std::fs::write(dir.join("tsa.cnf"), conf).unwrap();
}

const CONF: &str = "\
oid_section = new_oids
[ new_oids ]
tsa_policy1 = 1.2.3.4.1
tsa_policy2 = 1.2.3.4.5.6
[ tsa ]
default_tsa = tsa_config1
[ tsa_config1 ]
serial = @serial
crypto_device = builtin
signer_cert = @tsa.pem
certs = @ca.pem
signer_key = @tsa.key
signer_digest = sha256
default_policy = tsa_policy1
other_policies = tsa_policy2, 1.2.3.4.5.7
digests = sha1, sha256, sha384, sha512
accuracy = secs:1, millisecs:500, microsecs:100
clock_precision_digits = 0
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
[ plain_tsa ]
serial = @serial
signer_cert = @plain.pem
signer_key = @plain.key
signer_digest = sha256
default_policy = tsa_policy1
digests = sha256
";

/// `ts ARGS` (split at spaces, `@` for the directory) with `-config tsa.cnf`.
fn argv(dir: &Path, args: &str) -> Vec<String> {
    let mut v = vec!["ts".to_string()];
    v.extend(args.split_whitespace().map(|w| w.replace('@', &path(dir, ""))));
    v.extend(["-config".to_string(), path(dir, "tsa.cnf")]);
    v
}

fn ours(dir: &Path, args: &str) -> Output {
    let v = argv(dir, args);
    run(&v.iter().map(String::as_str).collect::<Vec<_>>(), b"")
}

fn theirs(dir: &Path, args: &str) -> Output {
    let v = argv(dir, args);
    openssl_raw(&v.iter().map(String::as_str).collect::<Vec<_>>(), b"")
}

/// `ts ARGS` by us, and by OpenSSL where installed, which must print the same stdout,
/// exit status and first stderr line (less its error queue); returns ours.
fn both(dir: &Path, args: &str) -> Output {
    let out = ours(dir, args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{args}: {err}");
    if have_openssl("ts") {
        let them = theirs(dir, args);
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        assert_eq!(text(&out.stdout), text(&them.stdout), "stdout of {args}");
        let first = |b: &[u8]| text(b).lines().next().unwrap_or("").to_string();
        assert_eq!(first(&out.stderr), first(&them.stderr), "stderr of {args}");
        assert_eq!(out.status.code(), them.status.code(), "status of {args}: {err}");
    }
    out
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap()
}

#[test]
fn queries_as_openssl_makes_them() {
    let dir = tempdir();
    pki(dir.path());
    let d = dir.path();
    for opts in [
        "-no_nonce",
        "-no_nonce -cert",
        "-no_nonce -sha1 -tspolicy tsa_policy2",
        "-no_nonce -sha512 -tspolicy 1.2.3.4.5.7 -cert",
    ] {
        ok(&ours(d, &format!("-query -data @data.txt {opts} -out @ours.tsq")));
        let text = ok_text(&both(d, "-query -in @ours.tsq -text"));
        assert!(text.starts_with("Version: 1\nHash Algorithm: "), "{text}");
        assert!(text.contains("Nonce: unspecified\n"), "{text}");
        if have_openssl("queries_as_openssl_makes_them") {
            let t = theirs(d, &format!("-query -data @data.txt {opts} -out @theirs.tsq"));
            assert!(t.status.success());
            assert_eq!(read(d, "ours.tsq"), read(d, "theirs.tsq"), "{opts}");
        }
    }
    // The hash given in hex is the data's.
    let sha256 = ok(&run(&["dgst", "-sha256", "-r", &path(d, "data.txt")], b""));
    let hex = String::from_utf8(sha256).unwrap()[..64].to_string();
    ok(&ours(d, &format!("-query -digest {hex} -no_nonce -out @hex.tsq")));
    ok(&ours(d, "-query -data @data.txt -no_nonce -out @data.tsq"));
    assert_eq!(read(d, "hex.tsq"), read(d, "data.tsq"));
    // A nonce: fresh each time, printed by both alike.
    ok(&ours(d, "-query -data @data.txt -out @n1.tsq"));
    ok(&ours(d, "-query -data @data.txt -out @n2.tsq"));
    assert_ne!(read(d, "n1.tsq"), read(d, "n2.tsq"));
    let text = ok_text(&both(d, "-query -in @n1.tsq -text"));
    assert!(text.contains("Nonce: 0x"), "{text}");
    // A hash of the wrong length, both inputs at once.
    let out = both(d, "-query -digest 00112233 -no_nonce");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bad digest, 32 bytes must be specified")
    );
    assert_eq!(ours(d, &format!("-query -data @data.txt -digest {hex}")).status.code(), Some(1));
}

#[test]
fn our_tsa_read_and_verified_by_both() {
    let dir = tempdir();
    pki(dir.path());
    let d = dir.path();
    ok(&ours(d, "-query -data @data.txt -cert -out @req.tsq"));
    let out = ours(d, "-reply -queryfile @req.tsq -out @resp.tsr");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("Warning: could not open file") && err.contains("using serial number: 1"),
        "{err}"
    );
    assert!(err.ends_with("Response has been generated.\n"), "{err}");
    assert_eq!(read(d, "serial"), b"01\n");
    let text = ok_text(&both(d, "-reply -in @resp.tsr -text"));
    for line in [
        "Status: Granted.\n",
        "Policy OID: tsa_policy1\n",
        "Serial number: 0x01\n",
        "Accuracy: 0x01 seconds, 0x01F4 millis, 0x64 micros\n",
        "Ordering: yes\n",
        "TSA: DirName:/O=Card/CN=tsa\n",
    ] {
        assert!(text.contains(line), "{line} not in {text}");
    }
    for check in ["-queryfile @req.tsq", "-data @data.txt"] {
        let out = both(d, &format!("-verify {check} -in @resp.tsr -CAfile @ca.pem"));
        assert_eq!(ok_text(&out), "Verification: OK\n");
    }
    // The token alone, its text and its check.
    ok(&ours(d, "-reply -in @resp.tsr -token_out -out @token.der"));
    both(d, "-reply -in @token.der -token_in -token_out -text");
    let out = both(d, "-verify -data @data.txt -in @token.der -token_in -CAfile @ca.pem");
    assert_eq!(ok_text(&out), "Verification: OK\n");
    // The next reply takes the next serial; another policy the request asks for.
    ok(&ours(d, "-query -data @data.txt -tspolicy tsa_policy2 -sha512 -no_nonce -out @req2.tsq"));
    ok(&ours(d, "-reply -queryfile @req2.tsq -out @resp2.tsr -section tsa_config1"));
    assert_eq!(read(d, "serial"), b"02\n");
    let text = ok_text(&both(d, "-reply -in @resp2.tsr -text"));
    assert!(text.contains("Policy OID: tsa_policy2\nHash Algorithm: sha512\n"), "{text}");
    assert!(text.contains("Serial number: 0x02\nTime stamp: "), "{text}");
    // No certificate asked for: the checker needs the TSA's.
    let out = both(d, "-verify -queryfile @req2.tsq -in @resp2.tsr -CAfile @ca.pem");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Verification: FAILED\n");
    let out =
        both(d, "-verify -queryfile @req2.tsq -in @resp2.tsr -CAfile @ca.pem -untrusted @tsa.pem");
    assert_eq!(ok_text(&out), "Verification: OK\n");
}

#[test]
fn openssls_tsa_verified_by_us() {
    if !have_openssl("openssls_tsa_verified_by_us") {
        return;
    }
    let dir = tempdir();
    pki(dir.path());
    let d = dir.path();
    ok(&theirs(d, "-query -data @data.txt -cert -sha384 -out @req.tsq"));
    ok(&theirs(d, "-reply -queryfile @req.tsq -out @resp.tsr"));
    both(d, "-reply -in @resp.tsr -text");
    for check in ["-queryfile @req.tsq", "-data @data.txt"] {
        let out = both(d, &format!("-verify {check} -in @resp.tsr -CAfile @ca.pem"));
        assert_eq!(ok_text(&out), "Verification: OK\n");
    }
    // OpenSSL 3.0 writes the SHA-1 signing-certificate attribute where the configuration
    // names none.
    let conf = std::fs::read_to_string(d.join("tsa.cnf"))
        .unwrap()
        .replace("ess_cert_id_alg = sha256\n", "");
    std::fs::write(d.join("tsa.cnf"), conf).unwrap();
    ok(&theirs(d, "-reply -queryfile @req.tsq -out @resp1.tsr"));
    let out = both(d, "-verify -queryfile @req.tsq -in @resp1.tsr -CAfile @ca.pem");
    assert_eq!(ok_text(&out), "Verification: OK\n");
}

#[test]
fn refusals_as_openssl_makes_them() {
    let dir = tempdir();
    pki(dir.path());
    let d = dir.path();
    for (query, why) in [
        ("-sha224", "Message digest algorithm is not supported."),
        ("-tspolicy 1.2.9", "Requested policy is not supported."),
    ] {
        ok(&ours(d, &format!("-query -data @data.txt -no_nonce {query} -out @req.tsq")));
        let out = ours(d, "-reply -queryfile @req.tsq -out @ours.tsr");
        assert!(String::from_utf8_lossy(&out.stderr).ends_with("Response has been generated.\n"));
        let text = ok_text(&both(d, "-reply -in @ours.tsr -text"));
        assert!(
            text.contains(&format!("Status: Rejected.\nStatus description: {why}\n")),
            "{text}"
        );
        if have_openssl("refusals_as_openssl_makes_them") {
            ok(&theirs(d, "-reply -queryfile @req.tsq -out @theirs.tsr"));
            assert_eq!(read(d, "ours.tsr"), read(d, "theirs.tsr"), "{query}");
        }
        let out = both(d, "-verify -queryfile @req.tsq -in @ours.tsr -CAfile @ca.pem");
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "Verification: FAILED\n");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("status code: rejection, status text: {why}")), "{err}");
        // A refusal has no token to write.
        assert_eq!(ours(d, "-reply -in @ours.tsr -token_out").status.code(), Some(1));
    }
    // No serial was spent on them.
    assert!(!d.join("serial").exists());
}

#[test]
fn checks_that_must_fail() {
    let dir = tempdir();
    pki(dir.path());
    let d = dir.path();
    ok(&ours(d, "-query -data @data.txt -cert -out @req.tsq"));
    ok(&ours(d, "-reply -queryfile @req.tsq -out @resp.tsr"));
    std::fs::write(d.join("other.txt"), "another document\n").unwrap();
    ok(&ours(d, "-query -data @data.txt -cert -out @other.tsq"));
    for check in [
        "-data @other.txt -CAfile @ca.pem",
        "-queryfile @other.tsq -CAfile @ca.pem",
        "-digest 00 -CAfile @ca.pem",
        "-data @data.txt -CAfile @tsa.pem",
        "-data @data.txt",
    ] {
        let out = both(d, &format!("-verify {check} -in @resp.tsr"));
        assert_eq!(out.status.code(), Some(1), "{check}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "Verification: FAILED\n", "{check}");
    }
    // A TSA certificate without the time-stamping purpose does not sign.
    let before = listing(d);
    let out = ours(d, "-reply -queryfile @req.tsq -section plain_tsa -out @plain.tsr");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("Response is not generated.")
            && err.contains("invalid signer certificate purpose"),
        "{err}"
    );
    assert_eq!(listing(d), before, "nothing written");
    assert_eq!(read(d, "serial"), b"01\n");
}

#[test]
fn bad_input_is_an_error() {
    let dir = tempdir();
    pki(dir.path());
    let d = dir.path();
    std::fs::write(d.join("junk"), b"\x30\x03\x02\x01").unwrap();
    for args in [
        "-reply -in @junk -text",
        "-reply -in @junk -token_in -text",
        "-query -in @junk -text",
        "-verify -data @data.txt -in @junk -CAfile @ca.pem",
        "-reply -in @data.txt",
    ] {
        let out = ours(d, args);
        assert_eq!(out.status.code(), Some(1), "{args}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    fails(&run(&["ts", "-text"], b""), 1, "Must give one of -query, -reply, or -verify");
    fails(&run(&["ts", "-query", "-verify"], b""), 1, "Must give only one of");
    fails(
        &run(&["ts", "-verify", "-in", "x", "-data", "y", "-digest", "00"], b""),
        1,
        "exactly one of",
    );
    // A reply the configuration cannot make leaves no output and no serial behind.
    ok(&ours(d, "-query -data @data.txt -out @req.tsq"));
    let conf = CONF
        .replace("@", &path(d, ""))
        .replace("digests = sha1, sha256, sha384, sha512", "digests = sha1, nosuch");
    std::fs::write(d.join("tsa.cnf"), conf).unwrap();
    let out = ours(d, "-reply -queryfile @req.tsq -out @resp.tsr");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("invalid variable value for tsa_config1::digests")
    );
    assert!(!d.join("resp.tsr").exists() && !d.join("serial").exists());
    // Responses with a bit flipped anywhere: an answer, never a crash.
    std::fs::write(d.join("tsa.cnf"), CONF.replace("@", &path(d, ""))).unwrap();
    ok(&ours(d, "-reply -queryfile @req.tsq -out @resp.tsr"));
    let good = read(d, "resp.tsr");
    for i in (0..good.len()).step_by(good.len() / 60 + 1) {
        let mut bad = good.clone();
        bad[i] ^= 0x10;
        std::fs::write(d.join("bad.tsr"), &bad).unwrap();
        for args in [
            "-reply -in @bad.tsr -text",
            "-verify -queryfile @req.tsq -in @bad.tsr -CAfile @ca.pem",
        ] {
            let out = ours(d, args);
            assert!(matches!(out.status.code(), Some(0 | 1)), "{args} at {i}");
            assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"), "{args} at {i}");
        }
    }
}

#[test]
fn chained_sha1_attributes_and_fractions_of_a_second() {
    let dir = tempdir();
    pki(dir.path());
    let d = dir.path();
    // The version 1 (SHA-1) signing-certificate attribute naming the CA too, and the time
    // to the millisecond.
    let conf = std::fs::read_to_string(d.join("tsa.cnf")).unwrap();
    let conf = conf
        .replace("ess_cert_id_chain = no", "ess_cert_id_chain = yes")
        .replace("ess_cert_id_alg = sha256", "ess_cert_id_alg = sha1")
        .replace("clock_precision_digits = 0", "clock_precision_digits = 3");
    std::fs::write(d.join("tsa.cnf"), conf).unwrap();
    ok(&ours(d, "-query -data @data.txt -cert -out @req.tsq"));
    ok(&ours(d, "-reply -queryfile @req.tsq -out @ours.tsr"));
    let mut tokens = vec!["ours"];
    if have_openssl("chained_sha1_attributes_and_fractions_of_a_second") {
        ok(&theirs(d, "-reply -queryfile @req.tsq -out @theirs.tsr"));
        tokens.push("theirs");
    }
    for t in tokens {
        let out = both(d, &format!("-verify -queryfile @req.tsq -in @{t}.tsr -CAfile @ca.pem"));
        assert_eq!(ok_text(&out), "Verification: OK\n", "{t}");
        let text = ok_text(&both(d, &format!("-reply -in @{t}.tsr -token_out -text")));
        let time = text.lines().find_map(|l| l.strip_prefix("Time stamp: ")).unwrap();
        // `Dec  3 13:36:09.083 2026 GMT`, the fraction's trailing zeros dropped.
        let clock = time.split_whitespace().nth(2).unwrap();
        assert!(clock.len() == 8 || (10..=12).contains(&clock.len()), "{time}");
        assert!(!clock.ends_with('0') || clock.len() == 8, "{time}");
    }
}

/// Our TSA serving `-port 0` for `count` requests, and the port it took (read from its
/// `ACCEPT` line).
fn serve(dir: &Path, count: usize) -> (std::process::Child, u16) {
    spawn_server(&argv(dir, &format!("-reply -port 0 -nrequest {count} -timeout 5")), true)
}

#[test]
fn a_tsa_over_http_answers_many_clients_at_once() {
    let dir = tempdir();
    pki(dir.path());
    let d = dir.path();
    ok(&ours(d, "-query -data @data.txt -cert -out @req.tsq"));
    let clients = 8;
    let (child, port) = serve(d, clients + 2);
    let url = format!("http://127.0.0.1:{port}/tsa");
    std::thread::scope(|s| {
        for i in 0..clients {
            let url = &url;
            s.spawn(move || {
                ok(&ours(d, &format!("-reply -queryfile @req.tsq -url {url} -out @net{i}.tsr")));
            });
        }
    });
    // Each token its own serial number, all of them verified by both tools.
    let mut serials = Vec::new();
    for i in 0..clients {
        let out = both(d, &format!("-verify -queryfile @req.tsq -in @net{i}.tsr -CAfile @ca.pem"));
        assert_eq!(ok_text(&out), "Verification: OK\n");
        let text = ok_text(&ours(d, &format!("-reply -in @net{i}.tsr -text")));
        serials.push(text.lines().find(|l| l.starts_with("Serial number: ")).unwrap().to_string());
    }
    serials.sort();
    serials.dedup();
    assert_eq!(serials.len(), clients, "{serials:?}");
    // While it serves, the file holds a block reserved past what was handed out.
    assert_eq!(read(d, "serial"), b"0100\n");
    // A GET is no time-stamp request; a request the TSA refuses is answered with the
    // refusal (a response, status 200); the server goes on to both.
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    use std::io::{Read, Write};
    s.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    assert!(answer.starts_with(b"HTTP/1.0 400 "), "{}", String::from_utf8_lossy(&answer));
    ok(&ours(d, "-query -data @data.txt -sha224 -out @bad.tsq"));
    ok(&ours(d, &format!("-reply -queryfile @bad.tsq -url {url} -out @bad.tsr")));
    let text = ok_text(&ours(d, "-reply -in @bad.tsr -text"));
    assert!(text.contains("Status: Rejected.\n"), "{text}");
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("ts: a bad request: the method \"GET\""), "{err}");
    // Stopped, the last serial issued (none for the refusal).
    assert_eq!(read(d, "serial"), b"08\n");
}

#[test]
fn asking_a_tsa_that_is_not_there() {
    let dir = tempdir();
    pki(dir.path());
    let d = dir.path();
    ok(&ours(d, "-query -data @data.txt -out @req.tsq"));
    // A server that hangs up without a word (a port of our own: one just freed could be
    // taken by another test's server meanwhile).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hang_up = std::thread::spawn(move || drop(listener.accept()));
    let out =
        ours(d, &format!("-reply -queryfile @req.tsq -url http://127.0.0.1:{port}/ -out @r.tsr"));
    hang_up.join().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    // (The words are the system's: a closed connection, a broken pipe, a reset.)
    assert!(err.contains(&format!("cryptocard ts: 127.0.0.1:{port}: ")), "{err}");
    assert!(!d.join("r.tsr").exists());
    for (args, why) in [
        ("-reply -queryfile @req.tsq -url ftp://127.0.0.1/", "not an http:// or https:// URL"),
        ("-reply -url http://127.0.0.1/", "-url needs -queryfile"),
        ("-reply -port 0 -queryfile @req.tsq", "not with -in, -queryfile or -url"),
    ] {
        let out = ours(d, args);
        assert_eq!(out.status.code(), Some(1), "{args}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(why), "{args}");
    }
}
