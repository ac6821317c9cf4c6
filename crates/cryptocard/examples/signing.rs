//! The README's library example: read a key, sign and verify, then sign from many threads
//! through the batching engine. `cargo run --release -p cryptocard --example signing`.

use std::sync::Arc;

use cryptocard::digest::HashAlg;
use cryptocard::engine::Engine;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{PrivateRequest, RsaPrivateKey};

fn main() -> Result<(), cryptocard::Error> {
    // A PKCS#8 PEM key as `openssl genpkey` writes it (here: made on the spot).
    let pem = RsaPrivateKey::generate(2048, &mut OsRng)?.to_pkcs8_pem()?;
    let key = RsaPrivateKey::from_pkcs8_pem(&pem)?;

    // One signature: CRT on the IFMA kernels where the CPU has them, blinded, checked.
    let sig = key.sign_pkcs1v15(HashAlg::Sha256, b"hello", &mut OsRng)?;
    key.public_key().verify_pkcs1v15(HashAlg::Sha256, b"hello", &sig)?;

    // Many callers: one shared engine batches their requests into 8-lane kernel calls.
    let engine = Arc::new(Engine::new()?);
    let key = Arc::new(key);
    let threads: Vec<_> = (0..16)
        .map(|i| {
            let (engine, key) = (engine.clone(), key.clone());
            std::thread::spawn(move || {
                let msg = format!("message {i}").into_bytes();
                let req = PrivateRequest::SignPkcs1v15 { hash: HashAlg::Sha256, msg: msg.clone() };
                let sig = engine.run(key.clone(), req)?;
                key.public_key().verify_pkcs1v15(HashAlg::Sha256, &msg, &sig)
            })
        })
        .collect();
    for t in threads {
        t.join().expect("signer thread panicked")?;
    }
    println!("17 signatures made and verified");
    Ok(())
}
