//! Encrypted PKCS#8 (`EncryptedPrivateKeyInfo`, RFC 5208 section 6) under the
//! password-based schemes of [`crate::pbe`].
//!
//! Written as `openssl genpkey -aes-256-cbc` and `openssl pkcs8 -topk8 -v2 aes-256-cbc`
//! write it ([`PbeScheme::DEFAULT`]: PBES2, PBKDF2-HMAC-SHA256 over 2048 iterations, a
//! 16-byte salt, AES-256-CBC), or under any scheme [`encrypt_pkcs8_der`] is given. Read:
//! PBES2 (PBKDF2 with HMAC-SHA-1 or SHA-2; AES-CBC, DES-EDE3-CBC, DES-CBC), PKCS#12's
//! schemes (RFC 7292 appendix C: OpenSSL 1.0's `pkcs8 -topk8` wrote
//! `pbeWithSHA1And3-KeyTripleDES-CBC`), and PBES1; anything else (scrypt, AES-GCM, RC4)
//! is [`Error::Unsupported`].
//!
//! A wrong password shows up as bad padding or as a plaintext that is not a key; both are
//! [`Error::InvalidEncoding`]`("wrong password or corrupt key")`.
//!
//! Everything a file can be refused for without the password is checked before the key
//! derivation, the one costly step: the scheme and its parameters, an iteration count of
//! zero or above the caller's limit ([`KeyParseOptions::max_iterations`], by default
//! [`super::DEFAULT_MAX_ITERATIONS`]; [`super::TOO_MANY_ITERATIONS`]), and a ciphertext
//! that is empty or not a whole number of cipher blocks. A hostile file thus costs at
//! most the limit's iterations, and a truncated one none.

use super::pkcs8::ENCRYPTED_LABEL;
use super::{DER_ERROR, KeyParseOptions, pem_decode, to_pem};
use crate::pbe::{self, PbeScheme};
use crate::rng::RandomSource;
use crate::rsa::RsaPrivateKey;
use crate::{Error, Result};
use der::asn1::OctetString;
use der::{Decode, Encode, Sequence};
use spki::AlgorithmIdentifierOwned;
use zeroize::Zeroizing;

/// The error of a wrong password (or a corrupt ciphertext: the two look alike).
pub(super) const WRONG_PASSWORD: Error = Error::InvalidEncoding("wrong password or corrupt key");

/// `EncryptedPrivateKeyInfo`, with the scheme left as an `AlgorithmIdentifier` for
/// [`crate::pbe`] to read (the `pkcs8` crate's own type knows no PKCS#12 scheme).
#[derive(Sequence)]
struct EncryptedPrivateKeyInfo {
    algorithm: AlgorithmIdentifierOwned,
    data: OctetString,
}

impl RsaPrivateKey {
    /// Parses a DER `EncryptedPrivateKeyInfo` and decrypts it with `password` (at most
    /// [`super::DEFAULT_MAX_ITERATIONS`] iterations).
    pub fn from_pkcs8_encrypted_der(der: &[u8], password: &[u8]) -> Result<RsaPrivateKey> {
        RsaPrivateKey::from_pkcs8_encrypted_der_with(der, password, &KeyParseOptions::default())
    }

    /// As [`RsaPrivateKey::from_pkcs8_encrypted_der`], refusing more than `max_iterations`
    /// iterations ([`super::TOO_MANY_ITERATIONS`]) before doing any.
    pub fn from_pkcs8_encrypted_der_limited(
        der: &[u8],
        password: &[u8],
        max_iterations: u32,
    ) -> Result<RsaPrivateKey> {
        let opts = KeyParseOptions { max_iterations, ..KeyParseOptions::default() };
        RsaPrivateKey::from_pkcs8_encrypted_der_with(der, password, &opts)
    }

    /// As [`RsaPrivateKey::from_pkcs8_encrypted_der`], with `opts`: its iteration ceiling
    /// ([`KeyParseOptions::max_iterations`]) is checked, with the other checks that need
    /// no password (see the module docs), before the key derivation; its recovery
    /// setting applies to the decrypted key.
    pub fn from_pkcs8_encrypted_der_with(
        der: &[u8],
        password: &[u8],
        opts: &KeyParseOptions,
    ) -> Result<RsaPrivateKey> {
        let plain = decrypt_pkcs8_der(der, Some(password), opts.max_iterations)?;
        RsaPrivateKey::from_pkcs8_der_with(&plain, opts).map_err(|e| match e {
            Error::InvalidEncoding(_) => WRONG_PASSWORD,
            other => other,
        })
    }

    /// Encodes the key as a DER `EncryptedPrivateKeyInfo` under [`PbeScheme::DEFAULT`]
    /// (PBKDF2-HMAC-SHA256, AES-256-CBC), salt and IV from `rng`.
    pub fn to_pkcs8_encrypted_der(
        &self,
        password: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        self.to_pkcs8_encrypted_der_with(password, &PbeScheme::DEFAULT, rng)
    }

    /// As [`RsaPrivateKey::to_pkcs8_encrypted_der`], under `scheme` (OpenSSL's `-des3`,
    /// `-aes128`, `pkcs8 -v1 PBE-SHA1-3DES`, ...).
    pub fn to_pkcs8_encrypted_der_with(
        &self,
        password: &[u8],
        scheme: &PbeScheme,
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        let plain = Zeroizing::new(self.to_pkcs8_der()?);
        encrypt_pkcs8_der(&plain, Some(password), scheme, rng)
    }

    /// Parses a PEM "ENCRYPTED PRIVATE KEY" and decrypts it with `password`.
    pub fn from_pkcs8_encrypted_pem(pem: &str, password: &[u8]) -> Result<RsaPrivateKey> {
        let block = pem_decode(pem)?;
        if block.label != ENCRYPTED_LABEL || block.dek_info.is_some() {
            return Err(Error::InvalidEncoding("unexpected PEM label"));
        }
        RsaPrivateKey::from_pkcs8_encrypted_der(&block.body, password)
    }

    /// Encodes the key as a PEM "ENCRYPTED PRIVATE KEY" (see
    /// [`RsaPrivateKey::to_pkcs8_encrypted_der`]).
    pub fn to_pkcs8_encrypted_pem(
        &self,
        password: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<String> {
        self.to_pkcs8_encrypted_pem_with(password, &PbeScheme::DEFAULT, rng)
    }

    /// As [`RsaPrivateKey::to_pkcs8_encrypted_pem`], under `scheme`.
    pub fn to_pkcs8_encrypted_pem_with(
        &self,
        password: &[u8],
        scheme: &PbeScheme,
        rng: &mut dyn RandomSource,
    ) -> Result<String> {
        let der = self.to_pkcs8_encrypted_der_with(password, scheme, rng)?;
        to_pem(ENCRYPTED_LABEL, &der).map(|s| s.to_string())
    }
}

/// Decrypts a DER `EncryptedPrivateKeyInfo` of any key type: the DER `PrivateKeyInfo`
/// inside, not parsed. `password` as [`crate::pbe::decrypt`] takes it; at most
/// `max_iterations`. Errors as [`RsaPrivateKey::from_pkcs8_encrypted_der_with`]'s before
/// the key is parsed.
pub fn decrypt_pkcs8_der(
    der: &[u8],
    password: Option<&[u8]>,
    max_iterations: u32,
) -> Result<Zeroizing<Vec<u8>>> {
    let info = EncryptedPrivateKeyInfo::from_der(der).map_err(|_| DER_ERROR)?;
    let algorithm = info.algorithm.to_der().map_err(|_| DER_ERROR)?;
    pbe::decrypt(&algorithm, password, info.data.as_bytes(), max_iterations)
        .map_err(|e| if e == pbe::WRONG_PASSWORD { WRONG_PASSWORD } else { e })
}

/// Encrypts a DER `PrivateKeyInfo` of any key type into an `EncryptedPrivateKeyInfo`
/// under `scheme` (fresh salt and IV from `rng`).
pub fn encrypt_pkcs8_der(
    private_key_info: &[u8],
    password: Option<&[u8]>,
    scheme: &PbeScheme,
    rng: &mut dyn RandomSource,
) -> Result<Vec<u8>> {
    let (algorithm, ciphertext) = pbe::encrypt(scheme, password, private_key_info, rng)?;
    let info = EncryptedPrivateKeyInfo {
        algorithm: AlgorithmIdentifierOwned::from_der(&algorithm).map_err(|_| DER_ERROR)?,
        data: OctetString::new(ciphertext).map_err(|_| DER_ERROR)?,
    };
    info.to_der().map_err(|_| DER_ERROR)
}
