//! The legacy operations OpenSSL's default provider still offers, through ours in the
//! system's `openssl` command and against the default provider both ways: ANSI X9.31
//! signatures (deterministic, so ours must be the same bytes) with every digest X9.31
//! names, TLS 1.0 and 1.1's MD5-SHA1 signatures (PKCS#1 v1.5 without a DigestInfo),
//! certificates signed with every digest OpenSSL names (MD5 and RIPEMD-160 to SHA-3: the
//! `algorithm-id` ours writes), and verify-recover (`openssl pkeyutl -verifyrecover`) of
//! PKCS#1 v1.5, X9.31 and unpadded signatures, with and without a digest. A program that prefers our provider
//! (`?provider=cryptocard`) gets ours for these, with no fallback, so each must work or
//! fail as the default provider does. That includes refusing what the default provider
//! refuses: MD2 and MD4, which OpenSSL keeps in its legacy provider, only with
//! `legacy-digests = yes` in our provider's configuration. Without an `openssl` command
//! the tests print why and pass.

mod common;

use common::cli::Cli;
use common::have_openssl;
use std::sync::OnceLock;

fn setup() -> &'static Cli {
    static SETUP: OnceLock<Cli> = OnceLock::new();
    SETUP.get_or_init(|| {
        let cli = Cli::new("provider-legacy");
        std::fs::write(cli.dir.join("msg"), b"a payment instruction of 1998").unwrap();
        for bits in [2048, 3072] {
            let (key, public) = (format!("k{bits}.pem"), format!("p{bits}.pem"));
            let b = format!("rsa_keygen_bits:{bits}");
            cli.ok(&["genpkey", "-algorithm", "RSA", "-pkeyopt", &b, "-out", &key]);
            cli.ok(&["pkey", "-in", &key, "-pubout", "-out", &public]);
        }
        cli
    })
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(setup().dir.join(name)).unwrap()
}

#[test]
fn x931_signatures_are_the_default_providers_bytes() {
    if !have_openssl() {
        return;
    }
    let s = setup();
    let x931 = "rsa_padding_mode:x931";
    for bits in [2048, 3072] {
        let (key, public) = (format!("k{bits}.pem"), format!("p{bits}.pem"));
        for md in ["sha1", "sha256", "sha384", "sha512"] {
            let (o, t) = (format!("x931-o-{bits}-{md}"), format!("x931-t-{bits}-{md}"));
            let dash_md = format!("-{md}");
            let sign =
                |out| vec![dash_md.as_str(), "-sign", &key, "-out", out, "-sigopt", x931, "msg"];
            s.ours("dgst", &sign(o.as_str()), "signs=1");
            s.theirs("dgst", &sign(t.as_str()));
            assert_eq!(read(&o), read(&t), "{bits} {md}: X9.31 is deterministic");
            let verify = |sig, msg| {
                vec![dash_md.as_str(), "-verify", &public, "-signature", sig, "-sigopt", x931, msg]
            };
            s.ours("dgst", &verify(t.as_str(), "msg"), "verifies=1");
            s.theirs("dgst", &verify(o.as_str(), "msg"));
            // Another message does not verify.
            s.fails_cleanly("dgst", &verify(o.as_str(), "p2048.pem"), "does not verify");
        }
    }
    // X9.31 names SHA-1 and SHA-2 only, and needs a digest: refused as OpenSSL refuses.
    let sha224 = ["-sha224", "-sign", "k2048.pem", "-sigopt", x931, "msg"];
    s.fails_cleanly("dgst", &sha224, "x931");
    let no_md = ["-sign", "-inkey", "k2048.pem", "-in", "msg", "-pkeyopt", x931];
    s.fails_cleanly("pkeyutl", &no_md, "x931");
}

#[test]
fn verify_recover_gives_what_the_default_provider_gives() {
    if !have_openssl() {
        return;
    }
    let s = setup();
    s.theirs("dgst", &["-sha256", "-binary", "-out", "msg.sha256", "msg"]);
    let digest = read("msg.sha256");
    // Signatures by the default provider: PKCS#1 v1.5 and X9.31 of the digest. Without
    // padding any k bytes below n are a signature (of their e-th power): the digest,
    // zero-extended, whose recovery is its raw encryption.
    let md = ["-pkeyopt", "digest:sha256"];
    let x931 = ["-pkeyopt", "digest:sha256", "-pkeyopt", "rsa_padding_mode:x931"];
    let none = ["-pkeyopt", "rsa_padding_mode:none"];
    let mut raw = vec![0u8; 256 - digest.len()];
    raw.extend(&digest);
    std::fs::write(s.dir.join("rec-none"), &raw).unwrap();
    let sign = |out: &str, opts: &[&str]| {
        let base = ["-sign", "-inkey", "k2048.pem", "-in", "msg.sha256", "-out", out];
        s.theirs("pkeyutl", &[&base[..], opts].concat());
    };
    sign("rec-pkcs1", &md);
    sign("rec-x931", &x931);
    let enc =
        ["-encrypt", "-pubin", "-inkey", "p2048.pem", "-in", "rec-none", "-out", "rec-none.e"];
    s.theirs("pkeyutl", &[&enc[..], &none].concat());
    let cases: [(&str, &[&str]); 5] = [
        ("rec-pkcs1", &md),  // the digest
        ("rec-pkcs1", &[]),  // the DigestInfo
        ("rec-x931", &x931), // the digest
        ("rec-none", &none), // all k bytes
        ("rec-x931", &["-pkeyopt", "digest:sha1", "-pkeyopt", "rsa_padding_mode:x931"]),
    ];
    for (i, (sig, opts)) in cases.iter().enumerate() {
        let args =
            [&["-verifyrecover", "-pubin", "-inkey", "p2048.pem", "-in", sig][..], opts].concat();
        if i == 4 {
            // A SHA-256 X9.31 signature recovered as SHA-1: the id byte differs.
            s.fails_cleanly("pkeyutl", &args, "does not verify");
            continue;
        }
        let ours = s.ours("pkeyutl", &args, "verifies=1").stdout;
        let theirs = s.theirs("pkeyutl", &args).stdout;
        assert_eq!(ours, theirs, "{sig} {opts:?}");
        match i {
            0 | 2 => assert_eq!(ours, digest, "{sig} {opts:?}"),
            3 => assert_eq!(ours, read("rec-none.e")),
            _ => assert!(ours.ends_with(&digest) && ours.len() == 19 + 32),
        }
    }
    // PSS hides the message: no recovery, as OpenSSL refuses it.
    let pss = [
        "-verifyrecover",
        "-pubin",
        "-inkey",
        "p2048.pem",
        "-in",
        "rec-pkcs1",
        "-pkeyopt",
        "rsa_padding_mode:pss",
    ];
    s.fails_cleanly("pkeyutl", &pss, "pss");
    // A corrupted signature does not recover.
    let mut bad = read("rec-pkcs1");
    bad[10] ^= 0x40;
    std::fs::write(s.dir.join("rec-bad"), bad).unwrap();
    let args = ["-verifyrecover", "-pubin", "-inkey", "p2048.pem", "-in", "rec-bad"];
    s.fails_cleanly("pkeyutl", &args, "does not verify");
}

#[test]
fn md5_sha1_signatures_are_the_default_providers_bytes() {
    if !have_openssl() {
        return;
    }
    let s = setup();
    // `openssl dgst -md5-sha1` hashes with both and signs the 36 bytes (PKCS#1 v1.5 is
    // deterministic: the same bytes from either provider).
    s.ours("dgst", &["-md5-sha1", "-sign", "k2048.pem", "-out", "ms-o.sig", "msg"], "signs=1");
    s.theirs("dgst", &["-md5-sha1", "-sign", "k2048.pem", "-out", "ms-t.sig", "msg"]);
    assert_eq!(read("ms-o.sig"), read("ms-t.sig"));
    let verify = ["-md5-sha1", "-verify", "p2048.pem", "-signature", "ms-t.sig", "msg"];
    s.ours("dgst", &verify, "verifies=1");
    // What is signed is MD5 || SHA-1 of the message, recovered as it is.
    let md5 = s.theirs("dgst", &["-md5", "-binary", "msg"]).stdout;
    let sha1 = s.theirs("dgst", &["-sha1", "-binary", "msg"]).stdout;
    let recover = ["-verifyrecover", "-pubin", "-inkey", "p2048.pem", "-in", "ms-o.sig"];
    let recovered = s
        .ours("pkeyutl", &[&recover[..], &["-pkeyopt", "digest:md5-sha1"]].concat(), "verifies=1")
        .stdout;
    assert_eq!(recovered, [md5, sha1].concat());
    // MD5-SHA1 has no OID for PSS to name: refused, as OpenSSL refuses it.
    let pss = ["-md5-sha1", "-sign", "k2048.pem", "-sigopt", "rsa_padding_mode:pss", "msg"];
    s.fails_cleanly("dgst", &pss, "pkcs1 only");
}

#[test]
fn certificates_name_every_digest_as_the_default_provider_does() {
    if !have_openssl() {
        return;
    }
    let s = setup();
    // `openssl req -x509 -<md>` asks the signature for its AlgorithmIdentifier; ours and
    // the default provider's must name the same algorithm, and the certificate verify
    // (SHA-512/256 is left out: OpenSSL 3.0 cannot verify it, whoever signed).
    for md in ["md5", "ripemd160", "sha1", "sha224", "sha512", "sha3-256", "sha3-512"] {
        let (o, t) = (format!("cert-o-{md}.pem"), format!("cert-t-{md}.pem"));
        let dash_md = format!("-{md}");
        let req =
            |out| vec!["-x509", "-key", "k2048.pem", "-subj", "/CN=digests", &dash_md, "-out", out];
        s.ours("req", &req(o.as_str()), "signs=1");
        s.theirs("req", &req(t.as_str()));
        let algorithm = |cert: &str| {
            let text = s.theirs("x509", &["-in", cert, "-noout", "-text"]).stdout;
            let text = String::from_utf8_lossy(&text).into_owned();
            text.lines().find(|l| l.contains("Signature Algorithm")).unwrap_or_default().to_string()
        };
        assert_eq!(algorithm(&o), algorithm(&t), "{md}");
        s.theirs("verify", &["-CAfile", &o, &o]);
    }
}

#[test]
fn legacy_digests_only_where_the_configuration_takes_them() {
    if !have_openssl() {
        return;
    }
    let s = setup();
    // The configuration that prefers ours (scripts/provider-conf), and the same with the
    // legacy digests allowed.
    let prefer = s.conf("prefer.cnf", "");
    let legacy = s.conf("legacy.cnf", "legacy-digests = yes");
    let succeeds = |conf, args: &[&str], counter: &str| {
        let out = s.under(conf, args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success() && err.contains(counter), "{args:?} {counter}: {err}");
    };
    let refused = |args: &[&str]| {
        let out = s.under(&prefer, args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.code().is_some_and(|c| c != 0), "{args:?}: {err}");
        assert!(err.contains("`legacy-digests = yes`"), "{args:?}: {err}");
    };
    // Without the setting ours refuses MD4 wherever an operation names it, as the
    // default provider does without its legacy provider, and says how to allow it.
    let md4_sign = ["dgst", "-md4", "-sign", "k2048.pem", "-out", "md4.sig", "msg"];
    refused(&md4_sign);
    let pss = ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_mgf1_md:md4"];
    refused(&[&["dgst", "-sha256", "-sign", "k2048.pem"][..], &pss, &["msg"]].concat());
    let oaep = ["-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:md4"];
    refused(
        &[&["pkeyutl", "-encrypt", "-pubin", "-inkey", "p2048.pem", "-in", "msg"][..], &oaep]
            .concat(),
    );
    // With it, ours signs with MD4: here a certificate, signed md4WithRSAEncryption.
    succeeds(&legacy, &md4_sign, "signs=1");
    let ca = ["req", "-x509", "-key", "k2048.pem", "-subj", "/CN=legacy CA", "-days", "1"];
    s.ok(&[&ca[..], &["-out", "ca.pem"]].concat());
    s.ok(&["req", "-new", "-key", "k2048.pem", "-subj", "/CN=md4 leaf", "-out", "leaf.csr"]);
    let issue = ["x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "k2048.pem"];
    let md4_leaf = [&issue[..], &["-set_serial", "7", "-md4", "-out", "leaf-md4.pem"]].concat();
    succeeds(&legacy, &md4_leaf, "signs=1");
    // Such a certificate verifies only where MD4 was asked for: not under the
    // configuration that prefers ours for speed, not with the default provider alone,
    // and under the setting.
    let verify = ["verify", "-CAfile", "ca.pem", "leaf-md4.pem"];
    refused(&verify);
    assert!(!s.run(&verify).status.success(), "the default provider verified MD4");
    succeeds(&legacy, &verify, "verifies=1");
    // OpenSSL 3 (3.0 to 4.0.3) writes MD4's DigestInfo with the OID 1.2.840.113549.2.3
    // (rsa_sign.c, `ENCODE_DIGESTINFO_MD(md4, 0x03, ..)`) where RFC 1320 and OpenSSL 1.x
    // have 1.2.840.113549.2.4, as ours does: the two do not verify each other's MD4
    // signatures. Where the system has OpenSSL's legacy provider, this pins exactly that
    // difference: the same MD4 digest, the same DigestInfo but for that one byte.
    let with_legacy = ["-provider", "legacy", "-provider", "default"];
    if !s.run(&[&["list", "-providers"][..], &with_legacy].concat()).status.success() {
        eprintln!("legacy digests: no OpenSSL legacy provider here, its cross-check skipped");
        return;
    }
    let theirs_sign = ["dgst", "-md4", "-sign", "k2048.pem", "-out", "md4-theirs.sig", "msg"];
    s.ok(&[&theirs_sign[..2], &with_legacy, &theirs_sign[2..]].concat());
    let md4 = s.ok(&[&["dgst", "-md4", "-binary"][..], &with_legacy, &["msg"]].concat()).stdout;
    let recover = |sig: &str| {
        let args = ["pkeyutl", "-verifyrecover", "-pubin", "-inkey", "p2048.pem", "-in", sig];
        s.ok(&args).stdout
    };
    let (ours, theirs) = (recover("md4.sig"), recover("md4-theirs.sig"));
    let oid = |last: u8| {
        [
            0x30, 0x20, 0x30, 0x0c, 0x06, 0x08, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, last,
            0x05, 0x00, 0x04, 0x10,
        ]
    };
    assert_eq!(ours, [&oid(4)[..], &md4].concat(), "ours: RFC 1320's OID");
    assert_eq!(theirs, [&oid(3)[..], &md4].concat(), "OpenSSL 3's OID");
}
