//! PKCS#1 private keys under legacy PEM encryption: an "RSA PRIVATE KEY" block with
//! `Proc-Type: 4,ENCRYPTED` and `DEK-Info` headers (RFC 1421 section 4.6.1), its key
//! derived from the password by OpenSSL's `EVP_BytesToKey` ([`crate::pbe::pem_decrypt`]).
//! OpenSSL 1.x's `genrsa -des3` and `rsa -des3` wrote these; OpenSSL 3 writes them with
//! `-traditional`. They are read so that such keys keep working and written for
//! consumers that read nothing newer; encrypted PKCS#8 is the better choice otherwise.
//!
//! A wrong password shows as bad padding or as a plaintext that is not a key, both
//! `InvalidEncoding("wrong password or corrupt key")`, as for encrypted PKCS#8.

use super::encrypted::WRONG_PASSWORD;
use super::pkcs1::PRIVATE_LABEL;
use super::{KeyParseOptions, PemBlock, pem_decode, to_pem};
use crate::cipher::Algorithm;
use crate::pbe;
use crate::rng::RandomSource;
use crate::rsa::RsaPrivateKey;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// Decrypts and parses a block [`pem_decode`] found under legacy encryption.
pub(super) fn decrypt_pkcs1(
    block: &PemBlock,
    password: &[u8],
    opts: &KeyParseOptions,
) -> Result<RsaPrivateKey> {
    if block.label != PRIVATE_LABEL {
        return Err(Error::Unsupported(
            "legacy PEM encryption of a block other than an RSA PRIVATE KEY",
        ));
    }
    let dek_info = block.dek_info.as_deref().ok_or(Error::Internal("no DEK-Info"))?;
    let plain = pbe::pem_decrypt(dek_info, password, &block.body)
        .map_err(|e| if e == pbe::WRONG_PASSWORD { WRONG_PASSWORD } else { e })?;
    RsaPrivateKey::from_pkcs1_der_with(&plain, opts).map_err(|e| match e {
        Error::InvalidEncoding(_) => WRONG_PASSWORD,
        other => other,
    })
}

impl RsaPrivateKey {
    /// Parses a PEM "RSA PRIVATE KEY" under legacy encryption (`Proc-Type: 4,ENCRYPTED`)
    /// and decrypts it with `password`.
    pub fn from_pkcs1_encrypted_pem(pem: &str, password: &[u8]) -> Result<RsaPrivateKey> {
        let block = pem_decode(pem)?;
        if block.dek_info.is_none() {
            return Err(Error::InvalidEncoding("the PEM block is not encrypted"));
        }
        decrypt_pkcs1(&block, password, &KeyParseOptions::default())
    }

    /// Encodes the key as a PEM "RSA PRIVATE KEY" under legacy encryption with `cipher`
    /// in CBC mode, as OpenSSL's `rsa -traditional -des3` writes it: `Proc-Type` and
    /// `DEK-Info` headers (a fresh IV from `rng`), a blank line, the encrypted PKCS#1 DER.
    pub fn to_pkcs1_encrypted_pem(
        &self,
        password: &[u8],
        cipher: Algorithm,
        rng: &mut dyn RandomSource,
    ) -> Result<Zeroizing<String>> {
        let der = self.to_pkcs1_der()?;
        let (dek_info, ciphertext) = pbe::pem_encrypt(cipher, password, &der, rng)?;
        let pem = to_pem(PRIVATE_LABEL, &ciphertext)?;
        let first_line = pem.find('\n').ok_or(Error::Internal("PEM without a line"))? + 1;
        let mut out = Zeroizing::new(String::with_capacity(pem.len() + 64));
        out.push_str(&pem[..first_line]);
        out.push_str("Proc-Type: 4,ENCRYPTED\nDEK-Info: ");
        out.push_str(&dek_info);
        out.push_str("\n\n");
        out.push_str(&pem[first_line..]);
        Ok(out)
    }
}
