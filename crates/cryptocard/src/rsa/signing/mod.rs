//! The RustCrypto `signature` 3 and `pkcs8` / `spki` traits on typed signing and
//! verifying keys, shaped like the `rsa` crate's (0.10): [`super::pkcs1v15`]'s and
//! [`super::pss`]'s `SigningKey<D>`, `VerifyingKey<D>` and `Signature`, so that code
//! written for `rsa` moves over by changing its imports
//! (`examples/from_rsa_crate.rs`).
//!
//! The digest is a type parameter `D`, one of [`crate::digest`]'s hashers
//! ([`HashFunction`](crate::digest::HashFunction), whose `ALG` names the [`HashAlg`] the
//! key's methods take). Every signature is made by the [`RsaPrivateKey`] methods
//! (`sign_pkcs1v15`, `sign_pss`, their `_prehashed` forms): the same encoding, blinding
//! and fault check, no second implementation. Where a trait gives no generator
//! (`Signer`, `PrehashSigner`) blinding and salts come from [`OsRng`].
//!
//! Errors come back as a `signature::Error` whose `source()` is the [`crate::Error`]
//! (verification: [`crate::Error::Verification`], without detail).
//!
//! [`HashAlg`]: crate::digest::HashAlg
//! [`RsaPrivateKey`]: super::RsaPrivateKey
//! [`OsRng`]: crate::rng::OsRng

pub(super) mod keys;
pub(super) mod pkcs1v15;
pub(super) mod pss;

/// A `signature::Error` carrying one of ours as its source.
pub(crate) fn sig_error(e: crate::Error) -> signature::Error {
    signature::Error::from_source(e)
}

/// Defines a scheme's `Signature`: the k big-endian bytes of s, with the encodings and
/// conversions of the `rsa` crate's signature types.
macro_rules! signature_type {
    ($scheme:literal) => {
        #[doc = concat!("An RSA ", $scheme, " signature: I2OSP(s, k), k bytes for a k-byte modulus.")]
        ///
        /// Any bytes convert into one (`TryFrom<&[u8]>` does not fail); a signature of the
        /// wrong length fails verification. `Display` and `{:x}` print it in hexadecimal.
        #[derive(Clone, PartialEq, Eq, Hash)]
        pub struct Signature(pub(crate) Box<[u8]>);

        impl Signature {
            /// The signature's bytes.
            pub fn as_bytes(&self) -> &[u8] {
                &self.0
            }
        }

        impl From<Vec<u8>> for Signature {
            fn from(bytes: Vec<u8>) -> Signature {
                Signature(bytes.into_boxed_slice())
            }
        }

        impl TryFrom<&[u8]> for Signature {
            type Error = signature::Error;

            fn try_from(bytes: &[u8]) -> Result<Signature, signature::Error> {
                Ok(Signature(bytes.into()))
            }
        }

        impl From<Signature> for Box<[u8]> {
            fn from(sig: Signature) -> Box<[u8]> {
                sig.0
            }
        }

        impl AsRef<[u8]> for Signature {
            fn as_ref(&self) -> &[u8] {
                &self.0
            }
        }

        impl signature::SignatureEncoding for Signature {
            type Repr = Box<[u8]>;
        }

        impl core::fmt::LowerHex for Signature {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
            }
        }

        impl core::fmt::UpperHex for Signature {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                self.0.iter().try_for_each(|b| write!(f, "{b:02X}"))
            }
        }

        impl core::fmt::Display for Signature {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{self:x}")
            }
        }

        impl core::fmt::Debug for Signature {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "Signature({self:x})")
            }
        }
    };
}
pub(crate) use signature_type;

/// What every scheme's key pair has alike: `Signer` and `RandomizedSigner` (hash, then the
/// scheme's `sign_digest_bytes`), `DigestVerifier` (through its `PrehashVerifier`), the
/// conversions, `Keypair` and the `pkcs8` / `spki` traits (`$sk<D>` wraps an
/// `RsaPrivateKey` in `inner`, `$vk<D>` an `RsaPublicKey`; both have `fn new(key)`).
macro_rules! key_pair_common {
    ($sk:ident, $vk:ident) => {
        impl<D: HashFunction> signature::Signer<Signature> for $sk<D> {
            /// Blinding (and a PSS salt) from [`OsRng`](crate::rng::OsRng).
            fn try_sign(&self, msg: &[u8]) -> signature::Result<Signature> {
                self.sign_digest_bytes(D::digest(msg).as_ref(), &mut crate::rng::OsRng)
            }
        }

        impl<D: HashFunction> signature::RandomizedSigner<Signature> for $sk<D> {
            fn try_sign_with_rng<R: signature::rand_core::TryCryptoRng + ?Sized>(
                &self,
                rng: &mut R,
                msg: &[u8],
            ) -> signature::Result<Signature> {
                let mut rng = rng;
                self.sign_digest_bytes(D::digest(msg).as_ref(), &mut rng)
            }
        }

        impl<D: HashFunction + digest::Update> signature::DigestVerifier<D, Signature> for $vk<D> {
            fn verify_digest<F: Fn(&mut D) -> signature::Result<()>>(
                &self,
                f: F,
                signature: &Signature,
            ) -> signature::Result<()> {
                let mut d = D::new();
                f(&mut d)?;
                signature::hazmat::PrehashVerifier::verify_prehash(
                    self,
                    HashFunction::finalize(d).as_ref(),
                    signature,
                )
            }
        }

        impl<D: HashFunction> signature::Keypair for $sk<D> {
            type VerifyingKey = $vk<D>;

            fn verifying_key(&self) -> $vk<D> {
                $vk::new(self.inner.public_key().clone())
            }
        }

        impl<D> AsRef<RsaPrivateKey> for $sk<D> {
            fn as_ref(&self) -> &RsaPrivateKey {
                &self.inner
            }
        }

        impl<D: HashFunction> From<RsaPrivateKey> for $sk<D> {
            fn from(key: RsaPrivateKey) -> Self {
                $sk::new(key)
            }
        }

        impl<D> From<$sk<D>> for RsaPrivateKey {
            fn from(key: $sk<D>) -> RsaPrivateKey {
                key.inner
            }
        }

        impl<D> Clone for $sk<D> {
            fn clone(&self) -> Self {
                Self { inner: self.inner.clone(), ..*self }
            }
        }

        impl<D> core::fmt::Debug for $sk<D> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($sk)).field("inner", &self.inner).finish_non_exhaustive()
            }
        }

        impl<D: HashFunction> TryFrom<pkcs8::PrivateKeyInfoRef<'_>> for $sk<D> {
            type Error = pkcs8::Error;

            fn try_from(info: pkcs8::PrivateKeyInfoRef<'_>) -> pkcs8::Result<Self> {
                RsaPrivateKey::try_from(info).map($sk::new)
            }
        }

        impl<D> pkcs8::EncodePrivateKey for $sk<D> {
            fn to_pkcs8_der(&self) -> pkcs8::Result<der::SecretDocument> {
                pkcs8::EncodePrivateKey::to_pkcs8_der(&self.inner)
            }
        }

        impl<D> AsRef<RsaPublicKey> for $vk<D> {
            fn as_ref(&self) -> &RsaPublicKey {
                &self.inner
            }
        }

        impl<D: HashFunction> From<RsaPublicKey> for $vk<D> {
            fn from(key: RsaPublicKey) -> Self {
                $vk::new(key)
            }
        }

        impl<D> From<$vk<D>> for RsaPublicKey {
            fn from(key: $vk<D>) -> RsaPublicKey {
                key.inner
            }
        }

        impl<D> Clone for $vk<D> {
            fn clone(&self) -> Self {
                Self { inner: self.inner.clone(), ..*self }
            }
        }

        impl<D> PartialEq for $vk<D> {
            fn eq(&self, other: &Self) -> bool {
                self.inner == other.inner
            }
        }

        impl<D> Eq for $vk<D> {}

        impl<D> core::fmt::Debug for $vk<D> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($vk)).field("inner", &self.inner).finish_non_exhaustive()
            }
        }

        impl<D: HashFunction> TryFrom<spki::SubjectPublicKeyInfoRef<'_>> for $vk<D> {
            type Error = spki::Error;

            fn try_from(info: spki::SubjectPublicKeyInfoRef<'_>) -> spki::Result<Self> {
                RsaPublicKey::try_from(info).map($vk::new)
            }
        }

        impl<D> spki::EncodePublicKey for $vk<D> {
            fn to_public_key_der(&self) -> spki::Result<der::Document> {
                spki::EncodePublicKey::to_public_key_der(&self.inner)
            }
        }
    };
}
pub(crate) use key_pair_common;
