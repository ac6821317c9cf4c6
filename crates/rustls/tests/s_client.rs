//! Handshakes against the HTTPS server on cryptocard with `openssl s_client`, an
//! implementation that shares no code with rustls or cryptocard: TLS 1.2 and 1.3, each
//! signature scheme, RSA-2048, 3072 and 4096. Skipped, with the reason printed, where
//! the `openssl` command is missing (scripts/prerequisites installs it).
#![cfg(feature = "server")]

mod common;

use common::{identity_parts, rsa_identity, start_server};
use cryptocard_rustls::cert::pem;
use cryptocard_rustls::server::Options;
use std::process::{Command, Stdio};

/// OpenSSL's names of the TLS 1.2 and 1.3 schemes (RFC 8446 section 4.2.3).
const SCHEMES: [(&str, &str, bool); 6] = [
    // (sigalg, the "Peer signature type" s_client prints, usable in TLS 1.3)
    ("rsa_pss_rsae_sha256", "RSA-PSS", true),
    ("rsa_pss_rsae_sha384", "RSA-PSS", true),
    ("rsa_pss_rsae_sha512", "RSA-PSS", true),
    ("rsa_pkcs1_sha256", "RSA", false),
    ("rsa_pkcs1_sha384", "RSA", false),
    ("rsa_pkcs1_sha512", "RSA", false),
];

fn openssl() -> Option<String> {
    let out = Command::new("openssl").arg("version").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

async fn with_s_client(bits: usize) {
    let Some(version) = openssl() else {
        println!("skipped: no `openssl` command on PATH (scripts/prerequisites installs it)");
        return;
    };
    let id = rsa_identity(bits);
    let dir =
        std::env::temp_dir().join(format!("cryptocard-s_client-{}-{bits}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ca = dir.join("root.pem");
    std::fs::write(&ca, pem("CERTIFICATE", id.0.cert())).unwrap();
    let (addr, counters) = start_server(vec![identity_parts(&id.1)], &Options::default()).await;
    let mut runs = 0;
    for tls in ["-tls1_2", "-tls1_3"] {
        for (sigalg, kind, tls13) in SCHEMES {
            if tls == "-tls1_3" && !tls13 {
                continue;
            }
            let out = tokio::task::spawn_blocking({
                let (ca, addr) = (ca.clone(), addr.to_string());
                move || {
                    Command::new("openssl")
                        .args(["s_client", "-connect", &addr, tls, "-sigalgs", sigalg])
                        .args(["-servername", "localhost", "-verify_return_error", "-brief"])
                        .arg("-CAfile")
                        .arg(&ca)
                        .stdin(Stdio::null())
                        .output()
                        .unwrap()
                }
            })
            .await
            .unwrap();
            let text = String::from_utf8_lossy(&out.stderr).into_owned()
                + &String::from_utf8_lossy(&out.stdout);
            let what = format!("{version}, RSA-{bits}, {tls} {sigalg}:\n{text}");
            assert!(out.status.success(), "{what}");
            assert!(text.contains("Verification: OK"), "{what}");
            // OpenSSL 3.0 says "Signature type" and "Hash used", later ones "Peer
            // signature type" and "Peer signing digest".
            assert!(text.contains(&format!("ignature type: {kind}\n")), "{what}");
            let digest = &sigalg[sigalg.len() - 6..].to_uppercase();
            assert!(
                text.contains(&format!("Hash used: {digest}"))
                    || text.contains(&format!("Peer signing digest: {digest}")),
                "{what}"
            );
            runs += 1;
        }
    }
    assert_eq!(common::settled(&counters, runs).await, (runs, 0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s_client_rsa2048() {
    with_s_client(2048).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s_client_rsa3072() {
    with_s_client(3072).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s_client_rsa4096() {
    with_s_client(4096).await;
}
