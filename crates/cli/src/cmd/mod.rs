//! The commands, one module each, and what they share: the command table, `-help`, and
//! OpenSSL's shortcuts (`cryptocard sha256 FILE` is `dgst -sha256 FILE`,
//! `cryptocard des3 ...` is `enc -des3 ...`, `cryptocard aes-128-ctr ...` is
//! `enc -aes-128-ctr ...`).

pub mod asn1parse;
pub mod ca;
pub mod certio;
pub mod cms;
pub mod crl;
pub mod dgst;
pub mod enc;
pub mod genpkey;
pub mod genrsa;
pub mod list;
pub mod mac;
pub mod ocsp;
pub mod pkcs12;
pub mod pkcs7;
pub mod pkcs8;
pub mod pkey;
pub mod pkeyutl;
pub mod prime;
pub mod rand;
pub mod req;
pub mod rsa;
pub mod rsautl;
#[cfg(feature = "tls")]
pub mod s_server;
pub mod ts;
pub mod verify;
pub mod version;
pub mod x509;

use crate::fail::{CmdResult, Fail};
pub use crate::spec::{Spec, no_positional, print_text};
use cryptocard::digest::HashAlg;

/// `title` and `names` as `openssl dgst -list` and `enc -list` print theirs (OpenSSL's
/// `show_digests`, `show_ciphers`): each as `-%-25s` and a space, a line feed instead
/// after every third, and one to end a short last line.
pub fn flag_table(title: &str, names: &[String]) -> String {
    let mut text = format!("{title}\n");
    for (i, name) in names.iter().enumerate() {
        text.push_str(&format!("-{name:<25}{}", if i % 3 == 2 { "\n" } else { " " }));
    }
    if !names.len().is_multiple_of(3) {
        text.push('\n');
    }
    text
}

/// A command: its name, a one-line summary for `help`, and its entry point.
#[derive(Debug)]
pub struct Command {
    /// The name on the command line.
    pub name: &'static str,
    /// One line for `cryptocard help`.
    pub summary: &'static str,
    /// Runs the command with the arguments after its name.
    pub run: fn(&[String]) -> CmdResult,
}

/// Every command, in the order `help` lists them.
pub const COMMANDS: &[Command] = &[
    Command {
        name: "asn1parse",
        summary: "List any DER or BER element by element, asn1parse style",
        run: asn1parse::main,
    },
    Command {
        name: "ca",
        summary: "A certificate authority: issue, revoke, make CRLs (OpenSSL's CA files)",
        run: ca::main,
    },
    Command {
        name: "cms",
        summary: "CMS signatures and envelopes (sign, verify, encrypt, decrypt)",
        run: cms::main,
    },
    Command {
        name: "crl",
        summary: "Print, convert and verify certificate revocation lists",
        run: crl::main,
    },
    Command {
        name: "crl2pkcs7",
        summary: "Certificates and a CRL into a PKCS#7 bundle (.p7b)",
        run: pkcs7::crl2pkcs7_main,
    },
    Command {
        name: "dgst",
        summary: "Message digests, HMAC and signatures over files",
        run: dgst::main,
    },
    Command {
        name: "base64",
        summary: "Base64 encoding and decoding (enc -base64)",
        run: base64_main,
    },
    Command {
        name: "enc",
        summary: "AES, DES and triple-DES encryption (keys or passwords)",
        run: enc::main,
    },
    Command { name: "genpkey", summary: "Generate an RSA key (PKCS#8)", run: genpkey::main },
    Command { name: "genrsa", summary: "Generate an RSA key, genrsa style", run: genrsa::main },
    Command {
        name: "list",
        summary: "The commands, digest commands and cipher commands, list style",
        run: list::main,
    },
    Command {
        name: "ocsp",
        summary: "OCSP requests, a CA's responder (HTTP), responses fetched and checked",
        run: ocsp::main,
    },
    Command {
        name: "pkcs12",
        summary: "PKCS#12 files (.p12, .pfx): make them, read their keys and certificates",
        run: pkcs12::main,
    },
    Command {
        name: "pkcs7",
        summary: "PKCS#7 bundles (.p7b): print their certificates and CRLs, convert",
        run: pkcs7::main,
    },
    Command {
        name: "pkcs8",
        summary: "PKCS#8 keys, plain or encrypted (PBES2, PKCS#12's and PBES1's schemes)",
        run: pkcs8::main,
    },
    Command { name: "pkey", summary: "Convert, print and check RSA keys", run: pkey::main },
    Command {
        name: "pkeyutl",
        summary: "RSA sign, verify, encrypt and decrypt (PKCS#1 v1.5, PSS, OAEP, raw)",
        run: pkeyutl::main,
    },
    Command {
        name: "mac",
        summary: "HMAC, DES CBC-MAC (FIPS 113) and the retail MAC",
        run: mac::main,
    },
    Command {
        name: "prime",
        summary: "Test numbers for primality, generate primes",
        run: prime::main,
    },
    Command { name: "rand", summary: "Random bytes, raw, hex or base64", run: rand::main },
    Command {
        name: "req",
        summary: "Certificate requests (PKCS#10) and self-signed certificates",
        run: req::main,
    },
    Command {
        name: "rsa",
        summary: "Convert, print and check RSA keys, rsa style (PKCS#1 forms too)",
        run: rsa::main,
    },
    Command {
        name: "rsautl",
        summary: "RSA sign, recover, encrypt and decrypt, rsautl style (pkeyutl underneath)",
        run: rsautl::main,
    },
    Command {
        name: "s_server",
        summary: "An HTTPS server on rustls with cryptocard's RSA (s_server -www style)",
        run: s_server_main,
    },
    Command {
        name: "smime",
        summary: "S/MIME (PKCS#7) signatures and envelopes, smime style",
        run: cms::smime_main,
    },
    Command {
        name: "speed",
        summary: "Measure cryptocard beside OpenSSL, GMP and others",
        run: crate::speed::main,
    },
    Command {
        name: "ts",
        summary: "RFC 3161 time stamps: requests, a TSA's replies, their checks",
        run: ts::main,
    },
    Command {
        name: "verify",
        summary: "Check certificate paths to trusted roots, verify style",
        run: verify::main,
    },
    Command {
        name: "x509",
        summary: "Print, convert and issue X.509 certificates",
        run: x509::main,
    },
    Command { name: "version", summary: "Version and the CPU backends in use", run: version::main },
    Command { name: "help", summary: "This list", run: help },
];

#[cfg(feature = "tls")]
use s_server::main as s_server_main;

/// `s_server` in a build without the `tls` feature.
#[cfg(not(feature = "tls"))]
fn s_server_main(_: &[String]) -> CmdResult {
    Err(Fail::msg("this cryptocard was built without TLS (cargo feature `tls`)"))
}

/// `base64 ARGS` is `enc -base64 ARGS`, as in OpenSSL.
fn base64_main(argv: &[String]) -> CmdResult {
    enc::main(&shortcut("base64", argv))
}

/// Runs the command line (without the program name); returns the exit status.
pub fn run(argv: &[String]) -> i32 {
    let Some(name) = argv.first() else {
        eprintln!("usage: cryptocard COMMAND [options] (try 'cryptocard help')");
        return 1;
    };
    let rest = &argv[1..];
    let name = name.as_str();
    let name = match name {
        "-help" | "--help" | "-h" => "help",
        "-version" | "--version" => "version",
        n => n,
    };
    let result = if let Some(c) = COMMANDS.iter().find(|c| c.name == name) {
        (c.run)(rest)
    } else if dgst::is_digest(name) {
        // `cryptocard sha256 FILE`, as `openssl sha256 FILE`.
        return finish("dgst", dgst::main(&shortcut(name, rest)));
    } else if cryptocard::cipher::lookup(name).is_some() {
        return finish("enc", enc::main(&shortcut(name, rest)));
    } else {
        Err(Fail::msg(format!("unknown command '{name}' (try 'cryptocard help')")))
    };
    finish(name, result)
}

fn shortcut(flag: &str, rest: &[String]) -> Vec<String> {
    std::iter::once(format!("-{flag}")).chain(rest.iter().cloned()).collect()
}

/// Prints a failure's line and gives the exit status.
fn finish(cmd: &str, result: CmdResult) -> i32 {
    match result {
        Ok(()) => 0,
        Err(f) => {
            if let Some(line) = f.line(cmd) {
                eprintln!("{line}");
            }
            f.code
        }
    }
}

/// A digest by name, or an error naming it.
pub fn digest_by_name(name: &str) -> CmdResult<HashAlg> {
    HashAlg::from_name(name).map_err(|_| Fail::msg(format!("unknown digest '{name}'")))
}

fn help(_argv: &[String]) -> CmdResult {
    let mut text = String::from("cryptocard: an OpenSSL-compatible command line\n\nCommands:\n");
    for c in COMMANDS {
        text.push_str(&format!("  {:<10} {}\n", c.name, c.summary));
    }
    text.push_str(
        "\nDigest and cipher names work as commands too (`cryptocard sha256 FILE`,\n\
         `cryptocard aes-256-cbc -d ...`). Every command takes -help.\n",
    );
    print_text(&text);
    Ok(())
}
