//! Encrypted PKCS#8 (`EncryptedPrivateKeyInfo`, RFC 5208 section 6) with PBES2 (RFC 8018
//! section 6.2): PBKDF2-HMAC (section 5.2) and AES-CBC with PKCS#7 padding (RFC 8018
//! appendix B.2.5, RFC 3602).
//!
//! Written as `openssl genpkey -aes-256-cbc` and `openssl pkcs8 -topk8 -v2 aes-256-cbc`
//! write it: PBKDF2 with hmacWithSHA256, [`PBKDF2_ITERATIONS`] iterations, a random salt
//! of [`SALT_LEN`] bytes (OpenSSL 3.2's `PKCS5_DEFAULT_PBE2_SALT_LEN`; 3.0 uses 8), no
//! keyLength field, AES-256-CBC with a random IV. Read: PBKDF2 with hmacWithSHA1,
//! -SHA224, -SHA256, -SHA384, -SHA512 and AES-128/192/256-CBC; anything else (PBES1,
//! scrypt, AES-GCM, DES) is [`Error::Unsupported`].
//!
//! A wrong password shows up as bad padding or as a plaintext that is not a key; both are
//! [`Error::InvalidEncoding`]`("wrong password or corrupt key")`. (CBC padding is no
//! oracle here: the password is the secret, and the key file is the attacker's only
//! input.)
//!
//! Everything a file can be refused for without the password is checked before the key
//! derivation, the one costly step: the scheme and its parameters, an iteration count of
//! zero or above the caller's limit ([`KeyParseOptions::max_iterations`], by default
//! [`super::DEFAULT_MAX_ITERATIONS`]; [`super::TOO_MANY_ITERATIONS`]), and a ciphertext
//! that is empty or not a whole number of AES blocks. A hostile file thus costs at most
//! the limit's iterations, and a truncated one none.

use super::pkcs8::ENCRYPTED_LABEL;
use super::{DER_ERROR, KeyParseOptions, TOO_MANY_ITERATIONS, pem_decode, to_pem};
use crate::digest::{HashAlg, pbkdf2_hmac_alg};
use crate::rng::RandomSource;
use crate::rsa::RsaPrivateKey;
use crate::{Error, Result};
use aes::cipher::block_padding::Pkcs7;
use aes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit};
use der::asn1::OctetStringRef;
use der::{Decode, Encode};
use pkcs5::pbes2::{self, Kdf, Pbkdf2Params, Pbkdf2Prf};
use pkcs8::EncryptedPrivateKeyInfoRef;
use zeroize::Zeroizing;

/// PBKDF2 iterations when writing (OpenSSL's `PKCS5_DEFAULT_ITER`).
pub const PBKDF2_ITERATIONS: u32 = 2048;
/// Salt length when writing.
pub const SALT_LEN: usize = 16;

const WRONG_PASSWORD: Error = Error::InvalidEncoding("wrong password or corrupt key");
const AES_BLOCK: usize = 16;

fn prf_hash(prf: Pbkdf2Prf) -> Result<HashAlg> {
    match prf {
        Pbkdf2Prf::HmacWithSha1 => Ok(HashAlg::Sha1),
        Pbkdf2Prf::HmacWithSha224 => Ok(HashAlg::Sha224),
        Pbkdf2Prf::HmacWithSha256 => Ok(HashAlg::Sha256),
        Pbkdf2Prf::HmacWithSha384 => Ok(HashAlg::Sha384),
        Pbkdf2Prf::HmacWithSha512 => Ok(HashAlg::Sha512),
        _ => Err(Error::Unsupported("PBKDF2 pseudo-random function")),
    }
}

/// AES-CBC decryption with PKCS#7 unpadding, in place; the plaintext's length.
fn aes_cbc_decrypt(key: &[u8], iv: &[u8; 16], buf: &mut [u8]) -> Result<usize> {
    fn run<C: KeyIvInit + BlockModeDecrypt>(
        key: &[u8],
        iv: &[u8; 16],
        buf: &mut [u8],
    ) -> Result<usize> {
        let dec = C::new_from_slices(key, iv).map_err(|_| WRONG_PASSWORD)?;
        dec.decrypt_padded::<Pkcs7>(buf).map(|pt| pt.len()).map_err(|_| WRONG_PASSWORD)
    }
    match key.len() {
        16 => run::<cbc::Decryptor<aes::Aes128>>(key, iv, buf),
        24 => run::<cbc::Decryptor<aes::Aes192>>(key, iv, buf),
        32 => run::<cbc::Decryptor<aes::Aes256>>(key, iv, buf),
        _ => Err(Error::Unsupported("AES key size")),
    }
}

impl RsaPrivateKey {
    /// Parses a DER `EncryptedPrivateKeyInfo` and decrypts it with `password` (at most
    /// [`super::DEFAULT_MAX_ITERATIONS`] PBKDF2 iterations).
    pub fn from_pkcs8_encrypted_der(der: &[u8], password: &[u8]) -> Result<RsaPrivateKey> {
        RsaPrivateKey::from_pkcs8_encrypted_der_with(der, password, &KeyParseOptions::default())
    }

    /// As [`RsaPrivateKey::from_pkcs8_encrypted_der`], refusing more than `max_iterations`
    /// PBKDF2 iterations ([`super::TOO_MANY_ITERATIONS`]) before doing any.
    pub fn from_pkcs8_encrypted_der_limited(
        der: &[u8],
        password: &[u8],
        max_iterations: u32,
    ) -> Result<RsaPrivateKey> {
        let opts = KeyParseOptions { max_iterations, ..KeyParseOptions::default() };
        RsaPrivateKey::from_pkcs8_encrypted_der_with(der, password, &opts)
    }

    /// As [`RsaPrivateKey::from_pkcs8_encrypted_der`], with `opts`: its PBKDF2 ceiling
    /// ([`KeyParseOptions::max_iterations`]) is checked, with the other checks that need
    /// no password (see the module docs), before the key derivation; its recovery
    /// setting applies to the decrypted key.
    pub fn from_pkcs8_encrypted_der_with(
        der: &[u8],
        password: &[u8],
        opts: &KeyParseOptions,
    ) -> Result<RsaPrivateKey> {
        let info = EncryptedPrivateKeyInfoRef::from_der(der).map_err(|_| DER_ERROR)?;
        let params = match &info.encryption_algorithm {
            pkcs5::EncryptionScheme::Pbes2(p) => p,
            _ => return Err(Error::Unsupported("PKCS#8 encryption other than PBES2")),
        };
        let Kdf::Pbkdf2(kdf) = &params.kdf else {
            return Err(Error::Unsupported("PBES2 key derivation other than PBKDF2"));
        };
        let (key_len, iv) = match params.encryption {
            pbes2::EncryptionScheme::Aes128Cbc { iv } => (16, iv),
            pbes2::EncryptionScheme::Aes192Cbc { iv } => (24, iv),
            pbes2::EncryptionScheme::Aes256Cbc { iv } => (32, iv),
            _ => return Err(Error::Unsupported("PBES2 cipher other than AES-CBC")),
        };
        if kdf.key_length.is_some_and(|l| usize::from(l) != key_len) {
            return Err(Error::InvalidEncoding("PBKDF2 key length does not match the cipher"));
        }
        if kdf.iteration_count == 0 {
            return Err(Error::InvalidEncoding("PBKDF2 iteration count is zero"));
        }
        if kdf.iteration_count > opts.max_iterations {
            return Err(TOO_MANY_ITERATIONS);
        }
        let hash = prf_hash(kdf.prf)?;
        let ciphertext = info.encrypted_data.as_bytes();
        if ciphertext.is_empty() || ciphertext.len() % AES_BLOCK != 0 {
            return Err(Error::InvalidEncoding(
                "encrypted key is empty or not a whole number of AES blocks",
            ));
        }
        let mut key = Zeroizing::new(vec![0u8; key_len]);
        pbkdf2_hmac_alg(hash, password, kdf.salt.as_bytes(), kdf.iteration_count, &mut key)?;
        let mut buf = Zeroizing::new(ciphertext.to_vec());
        let len = aes_cbc_decrypt(&key, &iv, &mut buf)?;
        RsaPrivateKey::from_pkcs8_der_with(&buf[..len], opts).map_err(|e| match e {
            Error::InvalidEncoding(_) => WRONG_PASSWORD,
            other => other,
        })
    }

    /// Encodes the key as a DER `EncryptedPrivateKeyInfo` with PBES2 (PBKDF2-HMAC-SHA256,
    /// AES-256-CBC), salt and IV from `rng`.
    pub fn to_pkcs8_encrypted_der(
        &self,
        password: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        let mut salt = [0u8; SALT_LEN];
        let mut iv = [0u8; AES_BLOCK];
        rng.fill_bytes(&mut salt)?;
        rng.fill_bytes(&mut iv)?;
        let kdf = Pbkdf2Params {
            salt: pbes2::Salt::new(salt).map_err(|_| DER_ERROR)?,
            iteration_count: PBKDF2_ITERATIONS,
            key_length: None,
            prf: Pbkdf2Prf::HmacWithSha256,
        };
        let mut key = Zeroizing::new([0u8; 32]);
        pbkdf2_hmac_alg(HashAlg::Sha256, password, &salt, PBKDF2_ITERATIONS, &mut key[..])?;
        let plain = self.to_pkcs8_der()?;
        let mut buf = Zeroizing::new(vec![0u8; plain.len() + AES_BLOCK]);
        buf[..plain.len()].copy_from_slice(&plain);
        let enc =
            cbc::Encryptor::<aes::Aes256>::new_from_slices(&key[..], &iv).map_err(|_| DER_ERROR)?;
        let ct_len =
            enc.encrypt_padded::<Pkcs7>(&mut buf, plain.len()).map_err(|_| DER_ERROR)?.len();
        let info = EncryptedPrivateKeyInfoRef {
            encryption_algorithm: pkcs5::EncryptionScheme::Pbes2(pbes2::Parameters {
                kdf: Kdf::Pbkdf2(kdf),
                encryption: pbes2::EncryptionScheme::Aes256Cbc { iv },
            }),
            encrypted_data: OctetStringRef::new(&buf[..ct_len]).map_err(|_| DER_ERROR)?,
        };
        info.to_der().map_err(|_| DER_ERROR)
    }

    /// Parses a PEM "ENCRYPTED PRIVATE KEY" and decrypts it with `password`.
    pub fn from_pkcs8_encrypted_pem(pem: &str, password: &[u8]) -> Result<RsaPrivateKey> {
        let (label, der) = pem_decode(pem)?;
        if label != ENCRYPTED_LABEL {
            return Err(Error::InvalidEncoding("unexpected PEM label"));
        }
        RsaPrivateKey::from_pkcs8_encrypted_der(&der, password)
    }

    /// Encodes the key as a PEM "ENCRYPTED PRIVATE KEY" (see
    /// [`RsaPrivateKey::to_pkcs8_encrypted_der`]).
    pub fn to_pkcs8_encrypted_pem(
        &self,
        password: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<String> {
        to_pem(ENCRYPTED_LABEL, &self.to_pkcs8_encrypted_der(password, rng)?).map(|s| s.to_string())
    }
}
