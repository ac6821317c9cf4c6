//! `rsa::pkcs1v15::{SigningKey, VerifyingKey, Signature}`: RSASSA-PKCS1-v1_5 (RFC 8017
//! section 8.2) behind the RustCrypto `signature` traits.
//!
//! PKCS#1 v1.5 is deterministic: `Signer::sign` and `RandomizedSigner::sign_with_rng`
//! give the same bytes as [`RsaPrivateKey::sign_pkcs1v15`] with `D::ALG`; the generator
//! only feeds the blinding.

use super::{key_pair_common, sig_error, signature_type};
use crate::digest::HashFunction;
use crate::rng::{OsRng, RandomSource};
use crate::rsa::{RsaPrivateKey, RsaPublicKey};
use core::marker::PhantomData;
use signature::hazmat::{PrehashSigner, PrehashVerifier};
use signature::rand_core::TryCryptoRng;
use signature::{DigestSigner, Verifier};

signature_type!("PKCS#1 v1.5");

/// An RSA private key that signs with RSASSA-PKCS1-v1_5 over the digest `D`
/// (`rsa::pkcs1v15::SigningKey<D>`).
///
/// ```
/// use cryptocard::digest::Sha256;
/// use cryptocard::rsa::pkcs1v15::SigningKey;
/// use cryptocard::rsa::RsaPrivateKey;
/// use signature::{Keypair, Signer, Verifier};
///
/// let key = RsaPrivateKey::generate(1024, &mut cryptocard::rng::OsRng)?;
/// let signing_key = SigningKey::<Sha256>::new(key);
/// let signature = signing_key.sign(b"hello");
/// assert!(signing_key.verifying_key().verify(b"hello", &signature).is_ok());
/// assert!(signing_key.verifying_key().verify(b"hullo", &signature).is_err());
/// # Ok::<(), cryptocard::Error>(())
/// ```
pub struct SigningKey<D> {
    inner: RsaPrivateKey,
    _digest: PhantomData<fn() -> D>,
}

/// An RSA public key that verifies RSASSA-PKCS1-v1_5 signatures over the digest `D`
/// (`rsa::pkcs1v15::VerifyingKey<D>`).
pub struct VerifyingKey<D> {
    inner: RsaPublicKey,
    _digest: PhantomData<fn() -> D>,
}

impl<D: HashFunction> SigningKey<D> {
    /// Signs with `key`.
    pub fn new(key: RsaPrivateKey) -> Self {
        SigningKey { inner: key, _digest: PhantomData }
    }

    /// A new key of `bits` bits ([`RsaPrivateKey::generate`]) from `rng`.
    pub fn random<R: TryCryptoRng + ?Sized>(rng: &mut R, bits: usize) -> crate::Result<Self> {
        let mut rng = rng;
        Ok(SigningKey::new(RsaPrivateKey::generate(bits, &mut rng)?))
    }

    fn sign_digest_bytes(
        &self,
        digest: &[u8],
        rng: &mut dyn RandomSource,
    ) -> signature::Result<Signature> {
        self.inner
            .sign_pkcs1v15_prehashed(D::ALG, digest, rng)
            .map(Signature::from)
            .map_err(sig_error)
    }
}

impl<D: HashFunction> VerifyingKey<D> {
    /// Verifies with `key`.
    pub fn new(key: RsaPublicKey) -> Self {
        VerifyingKey { inner: key, _digest: PhantomData }
    }
}

key_pair_common!(SigningKey, VerifyingKey);

impl<D: HashFunction> PrehashSigner<Signature> for SigningKey<D> {
    /// Signs a `D` digest the caller computed; blinds with [`OsRng`].
    fn sign_prehash(&self, prehash: &[u8]) -> signature::Result<Signature> {
        self.sign_digest_bytes(prehash, &mut OsRng)
    }
}

impl<D: HashFunction + digest::Update> DigestSigner<D, Signature> for SigningKey<D> {
    fn try_sign_digest<F: Fn(&mut D) -> signature::Result<()>>(
        &self,
        f: F,
    ) -> signature::Result<Signature> {
        let mut d = D::new();
        f(&mut d)?;
        self.sign_digest_bytes(HashFunction::finalize(d).as_ref(), &mut OsRng)
    }
}

impl<D: HashFunction> Verifier<Signature> for VerifyingKey<D> {
    fn verify(&self, msg: &[u8], signature: &Signature) -> signature::Result<()> {
        self.inner.verify_pkcs1v15(D::ALG, msg, &signature.0).map_err(sig_error)
    }
}

impl<D: HashFunction> PrehashVerifier<Signature> for VerifyingKey<D> {
    fn verify_prehash(&self, prehash: &[u8], signature: &Signature) -> signature::Result<()> {
        self.inner.verify_pkcs1v15_prehashed(D::ALG, prehash, &signature.0).map_err(sig_error)
    }
}
