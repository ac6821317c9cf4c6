//! `cms` and `smime` against the openssl command line, both ways: every signing form
//! (detached S/MIME, attached PEM, binary DER, PSS, several digests, no attributes,
//! several signers) and every envelope (DES, triple-DES, AES, PKCS#1 v1.5 and OAEP);
//! then the failures (tampered content, wrong root, wrong recipient, truncated and
//! malformed messages) with OpenSSL's exit statuses, and many documents signed in one
//! call. Certificates: crates/pki/tests/data (made by OpenSSL; see make.sh there).

mod common;

use common::*;
use std::path::{Path, PathBuf};

/// A fixture of the pki crate's tests.
fn pki(name: &str) -> String {
    let p: PathBuf =
        [env!("CARGO_MANIFEST_DIR"), "..", "pki", "tests", "data", name].iter().collect();
    p.to_str().unwrap().to_string()
}

const TEXT: &[u8] = b"Digital envelopes and signatures,\nas the fifth seed paper uses RSA.\n";

/// The content in OpenSSL's canonical text form.
fn crlf(text: &[u8]) -> Vec<u8> {
    String::from_utf8(text.to_vec()).unwrap().replace('\n', "\r\n").into_bytes()
}

/// `root.pem` and `inter.pem` in one file: what OpenSSL's `-CAfile` needs to chain a
/// signer whose message does not carry the intermediate.
fn chain(dir: &Path) -> String {
    let p = path(dir, "chain.pem");
    let mut both = std::fs::read(pki("root.pem")).unwrap();
    both.extend(std::fs::read(pki("inter.pem")).unwrap());
    std::fs::write(&p, both).unwrap();
    p
}

/// Asserts a failure with exit status `code`, `needle` on stderr, and no panic.
fn fails_with(out: &std::process::Output, code: i32, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(err.contains(needle), "'{needle}' not in: {err}");
    assert!(!err.contains("panicked") && !err.contains("internal error"), "{err}");
}

fn sign_args<'a>(extra: &[&'a str], signer: &'a str, key: &'a str) -> Vec<&'a str> {
    let mut v = vec!["cms", "-sign", "-signer", signer, "-inkey", key];
    v.extend_from_slice(extra);
    v
}

#[test]
fn our_signatures_verify_in_openssl() {
    if !have_openssl("our_signatures_verify_in_openssl") {
        return;
    }
    let dir = tempdir();
    let ca = chain(dir.path());
    let (signer, key) = (pki("signer.pem"), pki("signer.key"));
    let forms: &[(&[&str], &[&str])] = &[
        (&[], &[]),
        (&["-nodetach", "-outform", "PEM"], &["-inform", "PEM"]),
        (&["-binary", "-outform", "DER"], &["-binary", "-inform", "DER"]),
        (&["-md", "sha384", "-keyopt", "rsa_padding_mode:pss"], &[]),
        (&["-md", "sha1", "-nodetach"], &[]),
        (&["-md", "sha512", "-noattr"], &[]),
        (&["-nosmimecap", "-keyid", "-nodetach"], &[]),
    ];
    for (ours, theirs) in forms {
        let msg = path(dir.path(), "msg");
        let mut args = sign_args(ours, &signer, &key);
        args.extend(["-out", &msg]);
        ok(&run(&args, TEXT));
        let binary = ours.contains(&"-binary");
        let detached = !ours.contains(&"-nodetach");
        let content_file = path(dir.path(), "content");
        std::fs::write(&content_file, TEXT).unwrap();
        let mut v = vec!["cms", "-verify", "-in", &msg, "-CAfile", &ca];
        v.extend_from_slice(theirs);
        if detached && binary {
            v.extend(["-content", &content_file]);
        }
        let got = openssl(&v, b"");
        let want = if binary { TEXT.to_vec() } else { crlf(TEXT) };
        assert_eq!(got, want, "{ours:?}");
    }
}

#[test]
fn openssl_signatures_verify_here() {
    if !have_openssl("openssl_signatures_verify_here") {
        return;
    }
    let dir = tempdir();
    let (signer, key, inter) = (pki("signer.pem"), pki("signer.key"), pki("inter.pem"));
    let root = pki("root.pem");
    let forms: &[(&[&str], &[&str])] = &[
        (&[], &[]),
        (&["-nodetach", "-outform", "PEM"], &["-inform", "PEM"]),
        (&["-binary", "-outform", "DER"], &["-binary", "-inform", "DER"]),
        (
            &["-md", "sha256", "-keyopt", "rsa_padding_mode:pss", "-keyopt", "rsa_pss_saltlen:32"],
            &[],
        ),
        (&["-md", "sha512", "-nodetach", "-noattr"], &[]),
        (&["-keyid", "-nodetach"], &[]),
    ];
    for (theirs, ours) in forms {
        let msg = path(dir.path(), "msg");
        let content_file = path(dir.path(), "content");
        std::fs::write(&content_file, TEXT).unwrap();
        let mut args =
            vec!["cms", "-sign", "-in", &content_file, "-signer", &signer, "-inkey", &key];
        args.extend(["-certfile", &inter, "-out", &msg]);
        args.extend_from_slice(theirs);
        openssl(&args, b"");
        let binary = theirs.contains(&"-binary");
        let mut v = vec!["cms", "-verify", "-in", &msg, "-CAfile", &root];
        v.extend_from_slice(ours);
        if binary {
            v.extend(["-content", &content_file]);
        }
        let out = run(&v, b"");
        let want = if binary { TEXT.to_vec() } else { crlf(TEXT) };
        assert_eq!(ok(&out), want, "{theirs:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("CMS Verification successful"));
    }
}

#[test]
fn smime_pkcs7_both_ways_with_text() {
    if !have_openssl("smime_pkcs7_both_ways_with_text") {
        return;
    }
    let dir = tempdir();
    let ca = chain(dir.path());
    let (signer, key) = (pki("signer.pem"), pki("signer.key"));
    let msg = path(dir.path(), "ours.eml");
    let args = ["smime", "-sign", "-text", "-signer", &signer, "-inkey", &key, "-out", &msg];
    ok(&run(&args, TEXT));
    let head = std::fs::read_to_string(&msg).unwrap();
    assert!(head.contains("application/x-pkcs7-signature"), "{head}");
    assert_eq!(
        openssl(&["smime", "-verify", "-text", "-in", &msg, "-CAfile", &ca], b""),
        crlf(TEXT)
    );
    let theirs = path(dir.path(), "theirs.eml");
    let src = path(dir.path(), "src");
    std::fs::write(&src, TEXT).unwrap();
    openssl(
        &[
            "smime",
            "-sign",
            "-text",
            "-nodetach",
            "-in",
            &src,
            "-signer",
            &signer,
            "-inkey",
            &key,
            "-out",
            &theirs,
        ],
        b"",
    );
    let out = run(&["smime", "-verify", "-text", "-in", &theirs, "-CAfile", &ca], b"");
    assert_eq!(ok(&out), crlf(TEXT));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Verification successful"));
    // PKCS#7 has no PSS or OAEP: smime says so rather than make what OpenSSL cannot read.
    let args = ["smime", "-encrypt", "-keyopt", "rsa_padding_mode:oaep", &pki("recipient.pem")];
    fails_with(&run(&args, TEXT), 1, "PKCS#1 v1.5");
    // Without -text on the way out, the header is part of the content.
    let raw = ok(&run(&["smime", "-verify", "-in", &theirs, "-CAfile", &ca], b""));
    assert!(raw.starts_with(b"Content-Type: text/plain"));
}

const CIPHERS: [&str; 5] = ["-des", "-des3", "-aes128", "-aes192", "-aes256"];

#[test]
fn our_envelopes_open_in_openssl() {
    if !have_openssl("our_envelopes_open_in_openssl") {
        return;
    }
    let dir = tempdir();
    let (cert, key) = (pki("recipient.pem"), pki("recipient.key"));
    let transports: [&[&str]; 3] = [
        &[],
        &["-keyopt", "rsa_padding_mode:oaep"],
        &["-keyopt", "rsa_padding_mode:oaep", "-keyopt", "rsa_oaep_md:sha256"],
    ];
    for cipher in CIPHERS {
        for transport in transports {
            for form in ["SMIME", "PEM", "DER"] {
                let env = path(dir.path(), "env");
                let mut args =
                    vec!["cms", "-encrypt", cipher, "-binary", "-outform", form, "-out", &env];
                args.extend_from_slice(transport);
                args.extend(["-recip", &cert]);
                ok(&run(&args, TEXT));
                let mut v = vec!["cms", "-decrypt", "-binary", "-inform", form, "-in", &env];
                v.extend(["-inkey", &key, "-recip", &cert]);
                if cipher == "-des" {
                    v.extend(LEGACY);
                }
                assert_eq!(openssl(&v, b""), TEXT, "{cipher} {transport:?} {form}");
            }
        }
    }
}

#[test]
fn openssl_envelopes_open_here() {
    if !have_openssl("openssl_envelopes_open_here") {
        return;
    }
    let dir = tempdir();
    let (cert, key) = (pki("recipient.pem"), pki("recipient.key"));
    let src = path(dir.path(), "src");
    std::fs::write(&src, TEXT).unwrap();
    for cipher in CIPHERS {
        for oaep in [false, true] {
            let env = path(dir.path(), "env");
            let mut args =
                vec!["cms", "-encrypt", cipher, "-in", &src, "-out", &env, "-recip", &cert];
            if oaep {
                args.extend(["-keyopt", "rsa_padding_mode:oaep", "-keyopt", "rsa_oaep_md:sha384"]);
            }
            if cipher == "-des" {
                args.extend(LEGACY);
            }
            openssl(&args, b"");
            let out = run(&["cms", "-decrypt", "-in", &env, "-inkey", &key, "-recip", &cert], b"");
            assert_eq!(ok(&out), crlf(TEXT), "{cipher} oaep {oaep}");
            // smime reads the same message, and works out the recipient from the key alone.
            let out = run(&["smime", "-decrypt", "-in", &env, "-inkey", &key], b"");
            assert_eq!(ok(&out), crlf(TEXT));
        }
    }
}

#[test]
fn failures_have_openssl_exit_statuses_and_write_nothing() {
    let dir = tempdir();
    let root = pki("root.pem");
    let inter = pki("inter.pem");
    let (signer, key) = (pki("signer.pem"), pki("signer.key"));
    let msg = path(dir.path(), "signed.eml");
    ok(&run(
        &["cms", "-sign", "-signer", &signer, "-inkey", &key, "-certfile", &inter, "-out", &msg],
        TEXT,
    ));
    let good = std::fs::read(&msg).unwrap();
    let out_file = path(dir.path(), "out");
    let verify = |m: &str, ca: &str| {
        run(&["cms", "-verify", "-in", m, "-CAfile", ca, "-out", &out_file], b"")
    };
    ok(&verify(&msg, &root));
    std::fs::remove_file(&out_file).unwrap();

    // Tampered content (the signed part of the multipart).
    let tampered = path(dir.path(), "tampered.eml");
    let text = String::from_utf8(good.clone()).unwrap().replace("Digital", "Digitul");
    std::fs::write(&tampered, text).unwrap();
    fails_with(&verify(&tampered, &root), 4, "CMS Verification failure");
    // A root that did not issue the chain.
    fails_with(&verify(&msg, &pki("other-root.pem")), 4, "CMS Verification failure");
    // The intermediate alone in -CAfile: not an anchor, as for OpenSSL, but with
    // -partial_chain.
    fails_with(&verify(&msg, &inter), 4, "unable to get local issuer certificate (depth 1");
    let partial = ["cms", "-verify", "-partial_chain", "-in", &msg, "-CAfile", &inter];
    ok(&run(&partial, b""));
    if have_openssl("cms -CAfile") {
        let theirs = |extra: &[&str]| {
            let mut args = vec!["cms", "-verify", "-in", &msg, "-CAfile", &inter];
            args.extend(extra);
            openssl_raw(&args, b"").status.code()
        };
        assert_eq!((theirs(&[]), theirs(&["-partial_chain"])), (Some(4), Some(0)));
    }
    // Truncated and malformed messages.
    let cut = path(dir.path(), "cut.eml");
    std::fs::write(&cut, &good[..good.len() / 2]).unwrap();
    fails_with(&verify(&cut, &root), 3, "S/MIME");
    std::fs::write(&cut, b"MIME-Version: 1.0\nContent-Type: application/pkcs7-mime\nContent-Transfer-Encoding: base64\n\nMIIB\n").unwrap();
    fails_with(&verify(&cut, &root), 3, "Error reading CMS structure");
    let der = path(dir.path(), "junk.der");
    std::fs::write(&der, [0x30, 0x82, 0xff, 0xff, 0x06]).unwrap();
    fails_with(
        &run(&["cms", "-verify", "-inform", "DER", "-in", &der, "-noverify"], b""),
        3,
        "malformed",
    );
    assert!(!Path::new(&out_file).exists(), "nothing is written on failure");
    // A missing input, and no operation at all.
    fails_with(&run(&["cms", "-verify", "-in", &path(dir.path(), "absent")], b""), 2, "absent");
    fails_with(&run(&["cms", "-in", &msg], b""), 1, "no operation");

    // Envelopes: the wrong recipient, the wrong key for a recipient.
    let env = path(dir.path(), "env.eml");
    ok(&run(&["cms", "-encrypt", "-out", &env, &pki("recipient.pem")], TEXT));
    let dec = |k: &str, c: &str| {
        run(&["cms", "-decrypt", "-in", &env, "-inkey", k, "-recip", c, "-out", &out_file], b"")
    };
    fails_with(&dec(&key, &signer), 4, "no matching recipient");
    // The wrong key for a recipient unwraps a random content key (no padding oracle), so
    // the content decryption fails, except where that key happens to leave valid CBC
    // padding (about one envelope in 256): garbage then, never the message. Of four
    // envelopes at least one must fail, and none may give the message.
    let mut failed = 0;
    for _ in 0..4 {
        ok(&run(&["cms", "-encrypt", "-out", &env, &pki("recipient.pem")], TEXT));
        let out = dec(&key, &pki("recipient.pem"));
        if out.status.success() {
            assert_ne!(std::fs::read(&out_file).unwrap(), crlf(TEXT));
            std::fs::remove_file(&out_file).unwrap();
        } else {
            fails_with(&out, 4, "Error decrypting CMS structure");
            assert!(!Path::new(&out_file).exists());
            failed += 1;
        }
    }
    assert!(failed > 0, "the wrong key opened four envelopes");
    ok(&dec(&pki("recipient.key"), &pki("recipient.pem")));
    assert_eq!(std::fs::read(&out_file).unwrap(), crlf(TEXT));
}

#[test]
fn many_documents_sign_in_one_call() {
    let dir = tempdir();
    let (signer, key) = (pki("signer.pem"), pki("signer.key"));
    let outdir = dir.path().join("signed");
    std::fs::create_dir(&outdir).unwrap();
    let mut list = String::new();
    let mut args = vec!["cms", "-sign", "-binary", "-nodetach", "-outform", "DER"];
    let names: Vec<String> = (0..12).map(|i| path(dir.path(), &format!("doc{i}.txt"))).collect();
    for (i, n) in names.iter().enumerate() {
        std::fs::write(n, format!("document {i}\n")).unwrap();
        if i % 2 == 0 {
            args.extend(["-in", n.as_str()]);
        } else {
            list.push_str(n);
            list.push('\n');
        }
    }
    let list_file = path(dir.path(), "list");
    std::fs::write(&list_file, list).unwrap();
    let out_dir = outdir.to_str().unwrap();
    args.extend(["-inlist", &list_file, "-outdir", out_dir, "-signer", &signer, "-inkey", &key]);
    ok(&run(&args, b""));
    assert_eq!(listing(&outdir).len(), names.len());
    for (i, n) in names.iter().enumerate() {
        let file = Path::new(n).file_name().unwrap().to_str().unwrap();
        let signed = path(&outdir, &format!("{file}.p7m"));
        let v = [
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            &signed,
            "-CAfile",
            &pki("root.pem"),
            "-certfile",
            &pki("inter.pem"),
        ];
        assert_eq!(ok(&run(&v, b"")), format!("document {i}\n").into_bytes());
        if have_openssl("many_documents_sign_in_one_call") {
            let v = ["cms", "-verify", "-binary", "-inform", "DER", "-in", &signed, "-noverify"];
            assert_eq!(openssl(&v, b""), format!("document {i}\n").into_bytes());
        }
    }
    // A missing input fails alone: the others are written, the status is 3.
    let outdir2 = dir.path().join("again");
    std::fs::create_dir(&outdir2).unwrap();
    let absent = path(dir.path(), "absent.txt");
    let args = [
        "cms",
        "-sign",
        "-in",
        &names[0],
        "-in",
        &absent,
        "-in",
        &names[1],
        "-outdir",
        outdir2.to_str().unwrap(),
        "-signer",
        &signer,
        "-inkey",
        &key,
    ];
    fails_with(&run(&args, b""), 3, "absent.txt");
    assert_eq!(listing(&outdir2), vec!["doc0.txt.p7s", "doc1.txt.p7s"]);
}

#[test]
fn cmsout_converts_and_verify_writes_the_signers() {
    let dir = tempdir();
    let (signer, key) = (pki("signer.pem"), pki("signer.key"));
    let (smime, pem, der) =
        (path(dir.path(), "m.eml"), path(dir.path(), "m.pem"), path(dir.path(), "m.der"));
    let args = ["cms", "-sign", "-nodetach", "-signer", &signer, "-inkey", &key, "-out", &smime];
    ok(&run(&args, TEXT));
    ok(&run(&["cms", "-cmsout", "-in", &smime, "-outform", "PEM", "-out", &pem], b""));
    assert!(std::fs::read_to_string(&pem).unwrap().starts_with("-----BEGIN CMS-----"));
    ok(&run(
        &["cms", "-cmsout", "-in", &pem, "-inform", "PEM", "-outform", "DER", "-out", &der],
        b"",
    ));
    // smime's -pk7out writes PEM whatever -outform says, and -cmsout's default is S/MIME
    // (one application/pkcs7-mime entity), both as openssl writes them.
    let pk7 =
        ok(&run(&["smime", "-pk7out", "-in", &der, "-inform", "DER", "-outform", "DER"], b""));
    assert!(pk7.starts_with(b"-----BEGIN PKCS7-----\n"), "{}", String::from_utf8_lossy(&pk7));
    let mime = ok(&run(&["cms", "-cmsout", "-in", &der, "-inform", "DER"], b""));
    assert!(mime.starts_with(b"MIME-Version: 1.0\n"), "{}", String::from_utf8_lossy(&mime));
    assert!(String::from_utf8_lossy(&mime).contains("smime-type=signed-data;"));
    if have_openssl("cmsout_converts_and_verify_writes_the_signers") {
        assert_eq!(mime, openssl(&["cms", "-cmsout", "-in", &der, "-inform", "DER"], b""));
        let theirs =
            openssl(&["smime", "-pk7out", "-in", &der, "-inform", "DER", "-outform", "DER"], b"");
        assert_eq!(pk7, theirs);
    }
    // The three encodings hold the same message: each verifies to the same content, and
    // -signer writes the signer's certificate.
    let (signers, root, inter) =
        (path(dir.path(), "signers.pem"), pki("root.pem"), pki("inter.pem"));
    let with_out = [
        "cms",
        "-verify",
        "-inform",
        "DER",
        "-in",
        &der,
        "-CAfile",
        &root,
        "-certfile",
        &inter,
        "-signer",
        &signers,
    ];
    assert_eq!(ok(&run(&with_out, b"")), crlf(TEXT));
    let written = std::fs::read_to_string(&signers).unwrap();
    let expected = std::fs::read_to_string(&signer).unwrap();
    assert_eq!(written.trim(), expected.trim());
    // -certsout: the message's certificates, written even when verification then fails
    // (here: no trusted root), as openssl writes them.
    let certs_out = path(dir.path(), "certs.pem");
    let args =
        ["cms", "-verify", "-inform", "DER", "-in", &der, "-no-CAfile", "-certsout", &certs_out];
    fails_with(&run(&args, b""), 4, "");
    assert_eq!(std::fs::read_to_string(&certs_out).unwrap().trim(), expected.trim());
    let from_cmsout = path(dir.path(), "certs2.pem");
    ok(&run(
        &[
            "cms",
            "-cmsout",
            "-inform",
            "DER",
            "-in",
            &der,
            "-outform",
            "PEM",
            "-certsout",
            &from_cmsout,
        ],
        b"",
    ));
    assert_eq!(std::fs::read(&from_cmsout).unwrap(), std::fs::read(&certs_out).unwrap());
    if have_openssl("cmsout_converts_and_verify_writes_the_signers") {
        let theirs = path(dir.path(), "certs3.pem");
        let args = ["cms", "-cmsout", "-inform", "DER", "-in", &der, "-certsout", &theirs];
        openssl(&args, b"");
        assert_eq!(std::fs::read(&theirs).unwrap(), std::fs::read(&certs_out).unwrap());
    }
    // A certificate is no CMS message.
    let out = run(&["cms", "-cmsout", "-in", &signer, "-inform", "PEM", "-outform", "DER"], b"");
    fails_with(&out, 3, "PEM label");
}

/// The trust anchors as OpenSSL's `setup_verify` loads them for `cms -verify`: a hashed
/// `-CApath`, and with neither `-CAfile` nor `-CApath` the default roots (`SSL_CERT_FILE`
/// here), which `-no-CAfile` leaves out; each beside `openssl cms` where installed.
#[test]
fn trust_anchors_as_openssl_loads_them() {
    let dir = tempdir();
    let d = |name: &str| path(dir.path(), name);
    let (signer, key, inter, root) =
        (pki("signer.pem"), pki("signer.key"), pki("inter.pem"), pki("root.pem"));
    std::fs::write(d("content"), TEXT).unwrap();
    let sign = ["cms", "-sign", "-in", &d("content"), "-signer", &signer, "-inkey", &key];
    ok(&run(&[&sign[..], &["-certfile", &inter, "-nodetach", "-out", &d("msg")]].concat(), b""));
    let hash =
        String::from_utf8(ok(&run(&["x509", "-in", &root, "-noout", "-hash"], b""))).unwrap();
    std::fs::create_dir(d("capath")).unwrap();
    std::fs::create_dir(d("empty")).unwrap();
    std::fs::copy(&root, d(&format!("capath/{}.0", hash.trim()))).unwrap();
    let msg = d("msg");
    let verify = |program: &str, extra: &[&str]| {
        let program = match program {
            "ours" => std::ffi::OsString::from(cc().get_program()),
            _ => "openssl".into(),
        };
        std::process::Command::new(program)
            .args(["cms", "-verify", "-in", &msg, "-out", &d("out")])
            .args(extra)
            .env("SSL_CERT_FILE", &root)
            .env("SSL_CERT_DIR", d("empty"))
            .output()
            .unwrap()
    };
    let cases: [(&[&str], bool); 3] =
        [(&["-CApath", &d("capath")], true), (&[], true), (&["-no-CAfile"], false)];
    for (extra, good) in cases {
        let out = verify("ours", extra);
        assert_eq!(
            out.status.success(),
            good,
            "{extra:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if have_openssl("cms trust_anchors_as_openssl_loads_them") {
            assert_eq!(verify("openssl", extra).status.success(), good, "openssl {extra:?}");
        }
    }
}
