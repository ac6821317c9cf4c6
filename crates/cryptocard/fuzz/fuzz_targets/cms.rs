//! Certificates and CMS messages from hostile bytes: every reader of crates/pki (S/MIME,
//! PEM and DER CMS, certificate bundles, requests), then verification and decryption of
//! whatever parses (the recipient key and trust of crates/pki/tests/data), the text form
//! of every certificate, and each certificate's path in the bundle read as a trust store,
//! checked for a TLS server's purpose and host name with every failure reported. Anything may be refused; nothing may panic or hang.
#![no_main]

use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::{cert, cms};
use std::sync::OnceLock;

fn recipient() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| {
        RsaPrivateKey::from_pem(include_str!("../../../pki/tests/data/recipient.key"), None)
            .expect("the test key parses")
    })
}

fn trust() -> &'static cms::VerifyOptions {
    static OPTS: OnceLock<cms::VerifyOptions> = OnceLock::new();
    OPTS.get_or_init(|| cms::VerifyOptions {
        trusted: cert::read_certs(include_bytes!("../../../pki/tests/data/root.pem")).unwrap(),
        untrusted: cert::read_certs(include_bytes!("../../../pki/tests/data/inter.pem")).unwrap(),
        ..Default::default()
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    for format in [cms::Format::Der, cms::Format::Pem, cms::Format::Smime] {
        let Ok((der, detached)) = cms::read(data, format) else { continue };
        let _ = cms::kind_of(&der);
        let _ = cms::verify(&der, detached.as_deref(), trust());
        let _ = cms::decrypt(&der, recipient(), None);
    }
    if let Ok(certs) = cert::read_certs(data) {
        let now = std::time::SystemTime::now();
        // The bundle as its own store, every check going on past every failure.
        let store = cert::TrustStore::new(certs.clone(), false);
        let checks = cert::PathChecks {
            at: now,
            purpose: cert::Purpose::SslServer,
            host: Some("www.example.com"),
            go_on: &|_| true,
        };
        for c in &certs {
            let _ = cert::cert_text(c);
            let _ = cert::verify_chain(c, &certs, &trust().trusted, now);
            let _ = cert::host_matches(c, ".example.com");
            let _ = store.verify_report(c, &certs, &checks, &mut cert::PathBudget::new());
        }
    }
    if let Ok(csr) = cert::read_csr(data) {
        let _ = cert::verify_csr(&csr);
        let _ = cert::csr_text(&csr);
    }
});
