//! Moving from the RustCrypto `rsa` crate (0.10): the program below was written for
//! `rsa` and runs on cryptocard with its imports changed, line for line:
//!
//! ```text
//! rsa 0.10                                          cryptocard
//! use rsa::RsaPrivateKey;                           use cryptocard::rsa::RsaPrivateKey;
//! use rsa::pkcs1v15::{SigningKey, VerifyingKey};    use cryptocard::rsa::pkcs1v15::{SigningKey, VerifyingKey};
//! use rsa::pss::BlindedSigningKey;                  use cryptocard::rsa::pss::BlindedSigningKey;
//! use rsa::pkcs8::{DecodePrivateKey, ...};          use cryptocard::rsa::pkcs8::{DecodePrivateKey, ...};
//! use rsa::signature::{Keypair, ...};               use cryptocard::rsa::signature::{Keypair, ...};
//! use sha2::{Sha256, Sha512};                       use cryptocard::digest::{Sha256, Sha512};
//! ```
//!
//! The functions are generic over the traits (as a library that takes "some signer"
//! is), so the same code serves both crates. Any `rand_core` 0.10 generator works where
//! `rsa` takes one; cryptocard's `OsRng` is one (fallible, so `try_sign_with_rng`; wrap
//! it in `rand_core::UnwrapErr` for `sign_with_rng`).
//!
//! `cargo run -p cryptocard --example from_rsa_crate`

use cryptocard::digest::{Sha256, Sha512};
use cryptocard::rng::OsRng;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard::rsa::pkcs1v15::{SigningKey, VerifyingKey};
use cryptocard::rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use cryptocard::rsa::pss::BlindedSigningKey;
use cryptocard::rsa::signature::{Keypair, RandomizedSigner, SignatureEncoding, Signer, Verifier};
use cryptocard::rsa::spki::{DecodePublicKey, EncodePublicKey};

type BoxError = Box<dyn std::error::Error>;

/// Signs `msg` and checks the signature with the key pair's verifying key.
fn sign_and_check<K, S>(key: &K, msg: &[u8]) -> Result<S, BoxError>
where
    K: Signer<S> + Keypair,
    K::VerifyingKey: Verifier<S>,
{
    let signature = key.try_sign(msg)?;
    key.verifying_key().verify(msg, &signature)?;
    Ok(signature)
}

fn main() -> Result<(), BoxError> {
    // A key in PKCS#8 PEM, as `openssl genpkey` writes it (here: made on the spot).
    let pem = {
        let key = RsaPrivateKey::generate(2048, &mut OsRng)?;
        EncodePrivateKey::to_pkcs8_pem(&key, LineEnding::LF)?
    };

    // PKCS#1 v1.5 with SHA-256, the `rsa` crate's README example.
    let signing_key = SigningKey::<Sha256>::from_pkcs8_pem(&pem)?;
    let verifying_key: VerifyingKey<Sha256> = signing_key.verifying_key();
    let data = b"hello world";
    let signature = signing_key.try_sign_with_rng(&mut OsRng, data)?;
    assert_ne!(signature.to_bytes().as_ref(), data.as_slice());
    verifying_key.verify(data, &signature)?;
    assert!(verifying_key.verify(b"hello world!", &signature).is_err());

    // The verifying key travels as a SubjectPublicKeyInfo PEM.
    let public_pem = verifying_key.to_public_key_pem(LineEnding::LF)?;
    let received = VerifyingKey::<Sha256>::from_public_key_pem(&public_pem)?;
    received.verify(data, &signature)?;

    // PSS with SHA-512, through generic code.
    let pss_key = BlindedSigningKey::<Sha512>::from_pkcs8_pem(&pem)?;
    let pss_signature = sign_and_check(&pss_key, data)?;
    let pkcs1_signature = sign_and_check(&signing_key, data)?;
    assert_eq!(pkcs1_signature, signature); // PKCS#1 v1.5 is deterministic

    println!("PKCS#1 v1.5 / SHA-256: {}...", &signature.to_string()[..32]);
    println!("PSS / SHA-512:        {}...", &pss_signature.to_string()[..32]);
    println!("both verified; the public key:\n{public_pem}");
    Ok(())
}
