//! PKCS#12 files from hostile bytes: parsed with the seeds' password and with the empty
//! one, under small iteration limits (so that a run spends its time on parsing, not on
//! derivations, and a count above them is refused before any work); every key that comes
//! out is checked as RSA and written as PEM, every certificate printed as text, every
//! attribute printed as OpenSSL prints it. Anything may be refused; nothing may panic or
//! hang.
#![no_main]

use cryptocard::rng::OsRng;
use cryptocard_pki::cert;
use cryptocard_pki::pkcs12::{BagContent, ParseOptions, key_to_pem, parse_with};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let limits = ParseOptions { max_iterations: 4096, max_total_iterations: 16384 };
    for password in [&b"cryptocard"[..], b""] {
        let Ok(p12) = parse_with(data, password, &limits) else { continue };
        let _ = p12.rsa_private_key();
        let _ = p12.end_entity();
        for bag in p12.bags() {
            for a in &bag.attributes {
                let _ = a.openssl_line();
            }
            let _ = (bag.friendly_name(), bag.local_key_id());
            match &bag.content {
                BagContent::Key { pkcs8, attributes, .. } => {
                    let _ = attributes.iter().map(|a| a.openssl_line()).count();
                    let _ = key_to_pem(pkcs8, None, &mut OsRng);
                }
                BagContent::Cert(c) => {
                    let _ = cert::cert_text(c);
                }
                BagContent::Other(_) => {}
            }
        }
    }
});
