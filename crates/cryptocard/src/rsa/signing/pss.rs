//! `rsa::pss::{SigningKey, BlindedSigningKey, VerifyingKey, Signature}`: RSASSA-PSS (RFC
//! 8017 section 8.1) behind the RustCrypto `signature` traits, with the digest `D` as
//! both the message hash and MGF1's hash ([`Pss::new`]).
//!
//! Signing keys draw a salt of the digest's length (RFC 8017's recommendation) unless
//! made `new_with_salt_len`; verifying keys take the salt length from the signature
//! ([`SaltLength::Auto`]), so that OpenSSL's default maximum-length salts verify, unless
//! made `new_with_salt_len`. `RandomizedSigner` draws salt and blinding from the caller's
//! generator; `Signer` from [`OsRng`](crate::rng::OsRng).

use super::{key_pair_common, sig_error, signature_type};
use crate::digest::HashFunction;
use crate::rng::RandomSource;
use crate::rsa::pss_params::{Pss, SaltLength};
use crate::rsa::{RsaPrivateKey, RsaPublicKey};
use core::marker::PhantomData;
use signature::hazmat::{PrehashVerifier, RandomizedPrehashSigner};
use signature::rand_core::TryCryptoRng;
use signature::{RandomizedDigestSigner, Verifier};

signature_type!("PSS");

/// An RSA private key that signs with RSASSA-PSS over the digest `D`
/// (`rsa::pss::SigningKey<D>`).
///
/// ```
/// use cryptocard::digest::Sha384;
/// use cryptocard::rng::OsRng;
/// use cryptocard::rsa::pss::SigningKey;
/// use signature::{Keypair, RandomizedSigner, Verifier};
///
/// let signing_key = SigningKey::<Sha384>::random(&mut OsRng, 1024)?;
/// let signature = signing_key.try_sign_with_rng(&mut OsRng, b"hello").unwrap();
/// assert!(signing_key.verifying_key().verify(b"hello", &signature).is_ok());
/// # Ok::<(), cryptocard::Error>(())
/// ```
pub struct SigningKey<D> {
    inner: RsaPrivateKey,
    salt: SaltLength,
    _digest: PhantomData<fn() -> D>,
}

/// The `rsa` crate's `BlindedSigningKey`: every private-key operation here is blinded
/// (`RsaPrivateKey`'s docs), so it is [`SigningKey`] under the other name.
pub type BlindedSigningKey<D> = SigningKey<D>;

/// An RSA public key that verifies RSASSA-PSS signatures over the digest `D`
/// (`rsa::pss::VerifyingKey<D>`).
pub struct VerifyingKey<D> {
    inner: RsaPublicKey,
    salt: SaltLength,
    _digest: PhantomData<fn() -> D>,
}

impl<D: HashFunction> SigningKey<D> {
    /// Signs with `key` and a salt of `D::OUTPUT_LEN` bytes.
    pub fn new(key: RsaPrivateKey) -> Self {
        SigningKey { inner: key, salt: SaltLength::DigestLength, _digest: PhantomData }
    }

    /// Signs with `key` and a salt of `salt_len` bytes.
    pub fn new_with_salt_len(key: RsaPrivateKey, salt_len: usize) -> Self {
        SigningKey { inner: key, salt: SaltLength::Exact(salt_len), _digest: PhantomData }
    }

    /// A new key of `bits` bits ([`RsaPrivateKey::generate`]) from `rng`.
    pub fn random<R: TryCryptoRng + ?Sized>(rng: &mut R, bits: usize) -> crate::Result<Self> {
        let mut rng = rng;
        Ok(SigningKey::new(RsaPrivateKey::generate(bits, &mut rng)?))
    }

    fn params(&self) -> Pss {
        Pss::new(D::ALG).with_salt(self.salt)
    }

    fn sign_digest_bytes(
        &self,
        digest: &[u8],
        rng: &mut dyn RandomSource,
    ) -> signature::Result<Signature> {
        let params = self.params();
        self.inner.sign_pss_prehashed(&params, digest, rng).map(Signature::from).map_err(sig_error)
    }
}

impl<D: HashFunction> VerifyingKey<D> {
    /// Verifies with `key`, any salt length.
    pub fn new(key: RsaPublicKey) -> Self {
        VerifyingKey { inner: key, salt: SaltLength::Auto, _digest: PhantomData }
    }

    /// Verifies with `key`, salts of exactly `salt_len` bytes only.
    pub fn new_with_salt_len(key: RsaPublicKey, salt_len: usize) -> Self {
        VerifyingKey { inner: key, salt: SaltLength::Exact(salt_len), _digest: PhantomData }
    }

    fn params(&self) -> Pss {
        Pss::new(D::ALG).with_salt(self.salt)
    }
}

key_pair_common!(SigningKey, VerifyingKey);

impl<D: HashFunction> RandomizedPrehashSigner<Signature> for SigningKey<D> {
    fn sign_prehash_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        prehash: &[u8],
    ) -> signature::Result<Signature> {
        let mut rng = rng;
        self.sign_digest_bytes(prehash, &mut rng)
    }
}

impl<D: HashFunction + digest::Update> RandomizedDigestSigner<D, Signature> for SigningKey<D> {
    fn try_sign_digest_with_rng<
        R: TryCryptoRng + ?Sized,
        F: Fn(&mut D) -> signature::Result<()>,
    >(
        &self,
        rng: &mut R,
        f: F,
    ) -> signature::Result<Signature> {
        let mut d = D::new();
        f(&mut d)?;
        let mut rng = rng;
        self.sign_digest_bytes(HashFunction::finalize(d).as_ref(), &mut rng)
    }
}

impl<D: HashFunction> Verifier<Signature> for VerifyingKey<D> {
    fn verify(&self, msg: &[u8], signature: &Signature) -> signature::Result<()> {
        self.inner.verify_pss(&self.params(), msg, &signature.0).map_err(sig_error)
    }
}

impl<D: HashFunction> PrehashVerifier<Signature> for VerifyingKey<D> {
    fn verify_prehash(&self, prehash: &[u8], signature: &Signature) -> signature::Result<()> {
        self.inner.verify_pss_prehashed(&self.params(), prehash, &signature.0).map_err(sig_error)
    }
}
