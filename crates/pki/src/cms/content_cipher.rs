//! Content-encryption algorithms of EnvelopedData: DES-CBC and DES-EDE3-CBC (RFC 3370
//! section 5.1, the seed paper's envelopes and old data) and AES-CBC (RFC 3565, the
//! modern default), each with its IV as the `AlgorithmIdentifier` parameter and PKCS#7
//! padding (RFC 5652 section 6.3). The cipher itself is cryptocard's.

use crate::{Error, Result};
use const_oid::ObjectIdentifier;
use const_oid::db::rfc5911::{DES_EDE_3_CBC, ID_AES_128_CBC, ID_AES_192_CBC, ID_AES_256_CBC};
use cryptocard::cipher::{CipherSpec, lookup};
use cryptocard::des::{Direction, Padding, set_odd_parity};
use cryptocard::rng::{OsRng, RandomSource};
use der::asn1::OctetString;
use der::{Any, Decode};
use spki::AlgorithmIdentifierOwned;
use zeroize::Zeroizing;

/// desCBC (OIW, 1.3.14.3.2.7), which RFC 3370 lists for reading old messages.
const DES_CBC: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.14.3.2.7");

/// The content ciphers: OID, cryptocard's cipher name, and OpenSSL's `cms` flag.
const TABLE: &[(ObjectIdentifier, &str, &str)] = &[
    (DES_CBC, "des-cbc", "des"),
    (DES_EDE_3_CBC, "des-ede3-cbc", "des3"),
    (ID_AES_128_CBC, "aes-128-cbc", "aes128"),
    (ID_AES_192_CBC, "aes-192-cbc", "aes192"),
    (ID_AES_256_CBC, "aes-256-cbc", "aes256"),
];

/// A content-encryption algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContentCipher {
    oid: ObjectIdentifier,
    spec: CipherSpec,
}

impl ContentCipher {
    /// AES-256-CBC, OpenSSL 3's default for `cms -encrypt` and `smime -encrypt`.
    pub fn aes256() -> ContentCipher {
        Self::from_name("aes256").expect("internal error: AES-256-CBC is in the table")
    }

    /// The cipher for OpenSSL's flag (`des`, `des3`, `aes128`, `aes192`, `aes256`) or a
    /// cipher name (`des-ede3-cbc`, `aes-128-cbc`, ...), or `None`.
    pub fn from_name(name: &str) -> Option<ContentCipher> {
        let name = name.strip_prefix('-').unwrap_or(name);
        let canonical = lookup(name).map(|s| s.name);
        TABLE
            .iter()
            .find(|(_, cipher, flag)| flag.eq_ignore_ascii_case(name) || Some(*cipher) == canonical)
            .and_then(|&(oid, cipher, _)| Some(ContentCipher { oid, spec: lookup(cipher)? }))
    }

    /// The cipher's name (`aes-256-cbc`).
    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// The key length in bytes.
    pub fn key_len(&self) -> usize {
        self.spec.key_len
    }

    /// A fresh random content-encryption key (DES keys with odd parity, as OpenSSL makes
    /// them).
    pub(super) fn generate_key(&self) -> Result<Zeroizing<Vec<u8>>> {
        let mut key = Zeroizing::new(vec![0u8; self.spec.key_len]);
        OsRng.fill_bytes(&mut key)?;
        if self.spec.algorithm.block_len() == 8 {
            set_odd_parity(&mut key);
        }
        Ok(key)
    }

    /// Encrypts `content` under `key` with a fresh IV; returns the algorithm identifier
    /// that carries the IV, and the ciphertext.
    pub(super) fn encrypt(
        &self,
        key: &[u8],
        content: &[u8],
    ) -> Result<(AlgorithmIdentifierOwned, Vec<u8>)> {
        let mut iv = vec![0u8; self.spec.iv_len];
        OsRng.fill_bytes(&mut iv)?;
        let out = self.run(key, &iv, Direction::Encrypt, content)?;
        let parameters = Some(Any::encode_from(&OctetString::new(iv)?)?);
        Ok((AlgorithmIdentifierOwned { oid: self.oid, parameters }, out))
    }

    /// The cipher and IV that `alg` names.
    pub(super) fn from_algorithm(alg: &AlgorithmIdentifierOwned) -> Result<(Self, Vec<u8>)> {
        let &(_, name, _) = TABLE.iter().find(|(oid, ..)| *oid == alg.oid).ok_or_else(|| {
            Error::Unsupported(format!("content-encryption algorithm {}", alg.oid))
        })?;
        let spec = lookup(name).ok_or_else(|| Error::Unsupported(name.into()))?;
        let params = alg
            .parameters
            .as_ref()
            .ok_or_else(|| Error::Malformed(format!("{name} parameters (the IV) are missing")))?;
        let iv = OctetString::from_der(&der::Encode::to_der(params)?)?.into_bytes();
        if iv.len() != spec.iv_len {
            return Err(Error::Malformed(format!("{name} IV is {} bytes", iv.len())));
        }
        Ok((ContentCipher { oid: alg.oid, spec }, iv.into_vec()))
    }

    /// Decrypts `ciphertext` under `key` and `iv`, removing the padding.
    pub(super) fn decrypt(
        &self,
        key: &[u8],
        iv: &[u8],
        ciphertext: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        self.run(key, iv, Direction::Decrypt, ciphertext).map(Zeroizing::new)
    }

    fn run(&self, key: &[u8], iv: &[u8], dir: Direction, input: &[u8]) -> Result<Vec<u8>> {
        let mut ctx = self.spec.new_ctx(key, iv, dir, Padding::Pkcs7)?;
        let mut out = vec![0u8; ctx.update_len(input.len()) + self.spec.algorithm.block_len()];
        let n = ctx.update(input, &mut out)?;
        let m = ctx.finalize(&mut out[n..])?;
        out.truncate(n + m);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_flags_find_the_same_cipher() {
        for (flag, name) in [
            ("des", "des-cbc"),
            ("des3", "des-ede3-cbc"),
            ("aes128", "aes-128-cbc"),
            ("aes192", "aes-192-cbc"),
            ("-aes256", "aes-256-cbc"),
        ] {
            let by_flag = ContentCipher::from_name(flag).unwrap();
            assert_eq!(by_flag.name(), name);
            assert_eq!(ContentCipher::from_name(name), Some(by_flag));
        }
        assert_eq!(ContentCipher::from_name("aes-256-ctr"), None);
    }

    #[test]
    fn encrypts_and_decrypts_with_the_iv_in_the_identifier() {
        for flag in ["des", "des3", "aes128", "aes192", "aes256"] {
            let c = ContentCipher::from_name(flag).unwrap();
            let key = c.generate_key().unwrap();
            let (alg, ct) = c.encrypt(&key, b"seventeen bytes!!").unwrap();
            let (again, iv) = ContentCipher::from_algorithm(&alg).unwrap();
            assert_eq!(again, c);
            assert_eq!(&again.decrypt(&key, &iv, &ct).unwrap()[..], b"seventeen bytes!!");
        }
    }
}
