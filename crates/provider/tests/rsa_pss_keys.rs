//! RSA-PSS keys (RFC 4055 id-RSASSA-PSS) through our provider in the system's `openssl`
//! command, against the default provider: they sign with PSS only and never encrypt; and
//! a key with restrictions (the RSASSA-PSS-params of its AlgorithmIdentifier) signs only
//! under them, with its digests and at least its salt length, taking them as its
//! defaults, as OpenSSL's own RSA signature does. Keys made by either provider, with or
//! without restrictions, must come out of the other with the same ones. Without an
//! `openssl` command the tests print why and pass.

mod common;

use common::cli::Cli;
use common::have_openssl;
use std::sync::OnceLock;

fn setup() -> &'static Cli {
    static SETUP: OnceLock<Cli> = OnceLock::new();
    SETUP.get_or_init(|| {
        let cli = Cli::new("provider-pss-keys");
        std::fs::write(cli.dir.join("msg"), b"a message for an RSA-PSS key").unwrap();
        cli
    })
}

/// The restrictions section of `openssl pkey -text` for `key` ("No PSS parameter
/// restrictions" for an unrestricted key).
fn restrictions(key: &str) -> String {
    let text = setup().theirs("pkey", &["-in", key, "-text", "-noout"]).stdout;
    let text = String::from_utf8_lossy(&text).into_owned();
    let start = text.find("PSS parameter restrictions").expect("an RSA-PSS key's text");
    let line = text[..start].rfind('\n').map_or(0, |i| i + 1);
    text[line..].trim().to_string()
}

#[test]
fn rsa_pss_keys_sign_with_pss_only() {
    if !have_openssl() {
        return;
    }
    let s = setup();
    // An RSA-PSS key made by ours and one made by the default provider: each signs with
    // ours (PSS, whatever pad-mode the caller leaves) and verifies with theirs; PKCS#1
    // v1.5 and encryption are refused, as OpenSSL refuses them.
    let gen_args =
        ["-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "pss-ours.pem"];
    s.ours("genpkey", &gen_args, "keygens=1");
    let gen_args =
        ["-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "pss-theirs.pem"];
    s.theirs("genpkey", &gen_args);
    for k in ["pss-ours", "pss-theirs"] {
        let (key, public, sig) = (format!("{k}.pem"), format!("{k}.pub"), format!("{k}.sig"));
        let der = s.theirs("asn1parse", &["-in", &key]);
        assert!(String::from_utf8_lossy(&der.stdout).contains("rsassaPss"), "{k}: not RSA-PSS");
        assert_eq!(restrictions(&key).trim(), "No PSS parameter restrictions", "{k}");
        s.theirs("pkey", &["-in", &key, "-pubout", "-out", &public]);
        s.ours("dgst", &["-sha256", "-sign", &key, "-out", &sig, "msg"], "signs=1");
        s.theirs("dgst", &["-sha256", "-verify", &public, "-signature", &sig, "msg"]);
        let pkcs1 = ["-sha256", "-sigopt", "rsa_padding_mode:pkcs1", "-sign", &key, "msg"];
        s.fails_cleanly("dgst", &pkcs1, "pss only");
        let enc = ["-encrypt", "-pubin", "-inkey", &public, "-in", "msg"];
        s.fails_cleanly("pkeyutl", &enc, "does not encrypt");
    }
}

#[test]
fn restricted_keys_sign_under_their_restrictions() {
    if !have_openssl() {
        return;
    }
    let s = setup();
    // SHA-256, MGF1 with SHA-256, at least 32 bytes of salt: made by either provider, the
    // key file carries the same restrictions.
    let restricted = [
        "-algorithm",
        "RSA-PSS",
        "-pkeyopt",
        "rsa_keygen_bits:2048",
        "-pkeyopt",
        "rsa_pss_keygen_md:sha256",
        "-pkeyopt",
        "rsa_pss_keygen_mgf1_md:sha256",
        "-pkeyopt",
        "rsa_pss_keygen_saltlen:32",
    ];
    s.ours("genpkey", &[&restricted[..], &["-out", "r-ours.pem"]].concat(), "keygens=1");
    s.theirs("genpkey", &[&restricted[..], &["-out", "r-theirs.pem"]].concat());
    let expected = restrictions("r-theirs.pem");
    assert!(expected.contains("SHA2-256") && expected.contains("32"), "{expected}");
    assert_eq!(restrictions("r-ours.pem"), expected);
    // Only the salt length named: the digests stay RFC 4055's SHA-1 defaults.
    let salt_only = ["-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:2048"];
    let salt_only = [&salt_only[..], &["-pkeyopt", "rsa_pss_keygen_saltlen:24"]].concat();
    s.ours("genpkey", &[&salt_only[..], &["-out", "s-ours.pem"]].concat(), "keygens=1");
    s.theirs("genpkey", &[&salt_only[..], &["-out", "s-theirs.pem"]].concat());
    assert_eq!(restrictions("s-ours.pem"), restrictions("s-theirs.pem"));
    for k in ["r-ours", "r-theirs"] {
        let (key, public) = (format!("{k}.pem"), format!("{k}.pub"));
        s.theirs("pkey", &["-in", &key, "-pubout", "-out", &public]);
        // The key's digest and salt length are the defaults: ours signs, theirs (which
        // verifies with the key's salt length exactly) accepts, and the reverse.
        let (o, t) = (format!("{k}-o.sig"), format!("{k}-t.sig"));
        s.ours("dgst", &["-sha256", "-sign", &key, "-out", &o, "msg"], "signs=1");
        s.theirs("dgst", &["-sha256", "-verify", &public, "-signature", &o, "msg"]);
        s.theirs("dgst", &["-sha256", "-sign", &key, "-out", &t, "msg"]);
        s.ours("dgst", &["-sha256", "-verify", &public, "-signature", &t, "msg"], "verifies=1");
        // Without a digest named, pkeyutl signs a SHA-256 digest under the key's.
        s.theirs("dgst", &["-sha256", "-binary", "-out", "msg.sha256", "msg"]);
        let p = format!("{k}-p.sig");
        let sign = ["-sign", "-inkey", &key, "-in", "msg.sha256", "-out", &p];
        s.ours("pkeyutl", &sign, "signs=1");
        let verify = ["-verify", "-pubin", "-inkey", &public, "-in", "msg.sha256", "-sigfile", &p];
        s.theirs("pkeyutl", &verify);
        // A longer salt is allowed, a shorter one, another digest or another MGF1 digest
        // are refused, as the default provider refuses them.
        let longer = ["-sha256", "-sign", &key, "-sigopt", "rsa_pss_saltlen:40", "-out", &p, "msg"];
        s.ours("dgst", &longer, "signs=1");
        let v40 = ["-sigopt", "rsa_pss_saltlen:40", "-signature", &p, "msg"];
        s.theirs("dgst", &[&["-sha256", "-verify", &public][..], &v40].concat());
        let shorter = ["-sha256", "-sign", &key, "-sigopt", "rsa_pss_saltlen:16", "msg"];
        s.fails_cleanly("dgst", &shorter, "at least 32");
        let auto = ["-sha256", "-sign", &key, "-sigopt", "rsa_pss_saltlen:auto", "msg"];
        s.fails_cleanly("dgst", &auto, "at least 32");
        s.fails_cleanly("dgst", &["-sha512", "-sign", &key, "msg"], "digest not allowed");
        let mgf1 = ["-sha256", "-sign", &key, "-sigopt", "rsa_mgf1_md:sha1", "msg"];
        s.fails_cleanly("dgst", &mgf1, "mgf1-digest not allowed");
        // A certificate signed under the restrictions (`openssl req` asks the key's
        // mandatory digest) names SHA-256 and 32 bytes of salt, and verifies.
        let cert = format!("{k}.crt");
        let req = ["-x509", "-key", &key, "-subj", "/CN=pss", "-days", "1", "-out", &cert];
        s.ours("req", &req, "signs=1");
        s.theirs("verify", &["-CAfile", &cert, &cert]);
        let text = s.theirs("x509", &["-in", &cert, "-noout", "-text"]).stdout;
        let text = String::from_utf8_lossy(&text);
        assert!(
            text.contains("Hash Algorithm: sha256") && text.contains("Salt Length: 0x20"),
            "{text}"
        );
    }
}
