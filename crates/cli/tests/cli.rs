//! The command line as a whole: `help`, `version`, `-help` on every command, unknown
//! commands, and a sweep of malformed arguments that must each give one line on stderr
//! and a non-zero status, never a panic.

mod common;
use common::*;

const COMMANDS: &[&str] =
    &["dgst", "enc", "genpkey", "genrsa", "mac", "pkey", "pkeyutl", "prime", "speed", "version"];

#[test]
fn help_lists_the_commands_and_every_command_has_help() {
    let text = ok_text(&run(&["help"], b""));
    for c in COMMANDS {
        assert!(
            text.lines().any(|l| l.trim_start().starts_with(c)),
            "{c} missing from help: {text}"
        );
    }
    assert_eq!(ok_text(&run(&["--help"], b"")), text);
    for c in COMMANDS {
        for flag in ["-help", "--help"] {
            let out = run(&[c, flag], b"");
            let help = ok_text(&out);
            assert!(help.contains("usage") || help.contains("Usage"), "{c} {flag}: {help}");
        }
    }
    // Each flag of each command's table appears in its help.
    let dgst = ok_text(&run(&["dgst", "-help"], b""));
    for f in ["-r ", "-c ", "-hex", "-binary", "-out FILE", "-hmac KEY", "-mac NAME", "-macopt"] {
        assert!(dgst.contains(f), "{f}: {dgst}");
    }
    let enc = ok_text(&run(&["enc", "-help"], b""));
    for f in [
        "-K HEX",
        "-iv HEX",
        "-pass ARG",
        "-pbkdf2",
        "-iter N",
        "-md NAME",
        "-S HEX",
        "-nosalt",
        "-nopad",
        "-a ",
    ] {
        assert!(enc.contains(f), "{f}: {enc}");
    }
    let mac = ok_text(&run(&["mac", "-help"], b""));
    assert!(
        mac.contains("CBC-MAC") && mac.contains("RETAIL-MAC") && mac.contains("FIPS 113"),
        "{mac}"
    );
}

#[test]
fn version_names_the_backends() {
    let text = ok_text(&run(&["version"], b""));
    assert!(text.starts_with(&format!("cryptocard {}\n", env!("CARGO_PKG_VERSION"))), "{text}");
    assert!(text.contains("backends: modular arithmetic "), "{text}");
    #[cfg(target_arch = "x86_64")]
    {
        let vaes = std::is_x86_feature_detected!("vaes") && std::is_x86_feature_detected!("avx2");
        let ni = std::is_x86_feature_detected!("aes");
        let cpu = text.lines().find(|l| l.starts_with("cpu: ")).unwrap_or("");
        assert_eq!(text.contains("AES VAES+AES-NI"), ni && vaes, "{text}");
        assert_eq!(text.contains("AES AES-NI"), ni && !vaes, "{text}");
        assert_eq!(cpu.contains("VAES"), std::is_x86_feature_detected!("vaes"), "{text}");
        assert_eq!(cpu.contains("AES-NI"), ni, "{text}");
    }
    assert_eq!(
        ok_text(&run(&["version", "-v"], b"")),
        format!("cryptocard {}\n", env!("CARGO_PKG_VERSION"))
    );
    assert!(ok_text(&run(&["version", "-a"], b"")).contains("target: "));
}

#[test]
fn unknown_commands_and_no_command() {
    fails(&run(&["frobnicate"], b""), 1, "unknown command 'frobnicate'");
    let out = run(&[], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
}

#[test]
fn malformed_arguments_never_panic() {
    let cases: &[&[&str]] = &[
        &["dgst", "-"],
        &["dgst", "-sha256", "-out"],
        &["dgst", "--sha256"],
        &["dgst", "-sha256=1"],
        &["enc", "-des-cbc", "-K"],
        &["enc", "-des-cbc", "-d", "-K", "0011223344556677", "-iv", "0011223344556677"],
        &["enc", "-des-ede3-cbc", "-pass", "fd:999"],
        &["enc", "-des-ede3-cbc", "-pass", "fd:-1"],
        &["enc", "-des-ede3-cbc", "-iter", "99999999999999999999", "-pass", "pass:x"],
        &["mac", "-macopt", ":", "HMAC"],
        &["mac", "-macopt", "hexkey:", "CBC-MAC"],
        &["prime", "-hex", ""],
        &["prime", "-bits", "-generate"],
        &["prime", "99999999999999999999999999999999999999999999999999999999999999999999999x"],
        &["version", "extra"],
        &["pkey"],
        &["pkey", "-inform", "DER"],
        &["pkey", "-pubin", "-text"],
        &["pkeyutl", "-inkey", "-"],
        &["pkeyutl", "-verify", "-inkey", "/dev/null", "-sigfile", "/dev/null"],
        &["genrsa", "-3", "-F4", "0"],
        &["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:99999999999999999999"],
        &["dgst", "-verify", "/dev/null", "-signature", "/dev/null"],
        &["speed", "-seconds", "nan"],
    ];
    for args in cases {
        let out = run(args, b"garbage input that is not a ciphertext");
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked") && !err.contains("internal error"), "{args:?}: {err}");
    }
}

/// OpenSSL 3's provider options, as its scripts pass them: the providers whose
/// algorithms are built in are accepted on any command and change nothing; FIPS or a
/// module that is not here is refused in words, as openssl refuses one it cannot load.
#[test]
fn provider_options_of_openssl_3_scripts() {
    let key = "0011223344556677";
    let iv = "0000000000000000";
    let des = ["enc", "-des-cbc", "-K", key, "-iv", iv, "-a"];
    let plain = ok(&run(&des, b"legacy data"));
    let with = [&des[..], &["-provider", "legacy", "-provider", "default"]].concat();
    assert_eq!(ok(&run(&with, b"legacy data")), plain);
    let with =
        [&des[..], &["-provider-path", "/nowhere", "-propquery", "?provider=legacy"]].concat();
    assert_eq!(ok(&run(&with, b"legacy data")), plain);
    for (flag, value) in [
        ("-provider", "fips"),
        ("-provider", "pkcs11"),
        ("-propquery", "fips=yes"),
        ("-propquery", "provider=pkcs11"),
    ] {
        let out = run(&["dgst", "-sha256", flag, value], b"x");
        let err = fails(&out, 1, "not available");
        assert!(err.contains(value), "{err}");
    }
    // s_server's own -provider keeps its meaning (ours or the stock rustls provider).
    let help = ok_text(&run(&["s_server", "-help"], b""));
    assert!(help.contains("-provider NAME           cryptocard (default) or stock"), "{help}");
}

/// `list`: every command `help` names, and every digest and cipher command, each of which
/// runs as a command; the columns hold the one-a-line list's names in order.
#[test]
fn list_names_what_runs() {
    let help = ok_text(&run(&["help"], b""));
    let commands = ok_text(&run(&["list", "-1", "-commands"], b""));
    let commands: Vec<&str> = commands.lines().collect();
    for line in help.lines().filter(|l| l.starts_with("  ")) {
        let name = line.split_whitespace().next().unwrap();
        assert!(commands.contains(&name), "{name} not listed");
    }
    let digests = ok_text(&run(&["list", "-1", "-digest-commands"], b""));
    for name in ["md5", "rmd160", "sha256", "sha3-512", "sha512-256", "shake128"] {
        assert!(digests.lines().any(|l| l == name), "{name}: {digests}");
    }
    for name in digests.lines() {
        ok(&run(&[name], b"abc"));
    }
    let ciphers = ok_text(&run(&["list", "-1", "-cipher-commands"], b""));
    for name in ["aes-256-cbc", "des-ede3-cbc", "des3", "aes128"] {
        assert!(ciphers.lines().any(|l| l == name), "{name}: {ciphers}");
    }
    for name in ciphers.lines() {
        ok(&run(&[name, "-help"], b""));
    }
    for (flag, one) in [("-commands", &commands.join("\n")), ("-digest-commands", &digests)] {
        let cols = ok_text(&run(&["list", flag], b""));
        let words: Vec<&str> = cols.split_whitespace().collect();
        assert_eq!(words, one.split_whitespace().collect::<Vec<_>>(), "{flag}");
        assert!(cols.ends_with("\n\n") && cols.lines().all(|l| l.len() < 80), "{cols}");
    }
    fails(&run(&["list"], b""), 1, "-commands");
}
