//! The encryption of OpenSSL's "traditional" PEM keys: the `Proc-Type: 4,ENCRYPTED` and
//! `DEK-Info: <cipher>,<IV in hex>` headers of Privacy-Enhanced Mail (RFC 1421 sections
//! 4.6.1.1 and 4.6.1.3, RFC 1423 section 1.1 for DES-CBC) over a block whose key is
//! derived from the password as OpenSSL's `PEM_do_header` derives it: `EVP_BytesToKey`
//! with MD5, one iteration, and the IV's first 8 bytes as salt,
//!
//! ```text
//! D_1 = MD5(password || salt),  D_i = MD5(D_{i-1} || password || salt),
//! key = the first key-length bytes of D_1 || D_2 || ...
//! ```
//!
//! This is what OpenSSL 1.x's `genrsa -des3` and `rsa -des3` wrote for a decade, and what
//! OpenSSL 3's `-traditional` still writes; old servers' keys are in it. The derivation
//! is one MD5 per 16 key bytes, so a password falls to a guessing attack far sooner than
//! under PBES2 ([`super::PbeScheme::DEFAULT`]): it is here to read those keys and to write
//! them for consumers that know nothing newer.
//!
//! A file costs at most a few MD5 blocks and one pass of the cipher to refuse. A wrong
//! password shows as bad padding ([`super::WRONG_PASSWORD`]) or, one time in 256, as a
//! plaintext the caller's parser refuses.

use super::cbc::Cbc;
use crate::cipher::{Algorithm, CIPHERS, CipherSpec, lookup};
use crate::des::Direction;
use crate::des::modes::Mode;
use crate::digest::{HashAlg, Hasher};
use crate::rng::RandomSource;
use crate::{Error, Result};
use zeroize::Zeroizing;

const BAD_DEK_INFO: Error =
    Error::InvalidEncoding("DEK-Info is not a cipher name, a comma and the IV in hex");

/// The cipher a `DEK-Info` may name: DES, triple-DES or AES in CBC mode.
fn cbc_of(spec: CipherSpec) -> Option<Cbc> {
    (spec.mode == Mode::Cbc).then(|| Cbc::from_algorithm(spec.algorithm))
}

/// OpenSSL's `EVP_BytesToKey(cipher, MD5, salt, password, 1)`: the key only (the IV is
/// the file's).
fn bytes_to_key(password: &[u8], salt: &[u8], key_len: usize) -> Zeroizing<Vec<u8>> {
    let mut key = Zeroizing::new(Vec::with_capacity(key_len + 16));
    let mut h = Hasher::new(HashAlg::Md5);
    while key.len() < key_len {
        if !key.is_empty() {
            let last = key.len() - 16;
            h.update(&key[last..]);
        }
        h.update(password);
        h.update(salt);
        key.extend_from_slice(h.finalize_reset().as_bytes());
    }
    key.truncate(key_len);
    key
}

/// Reads a `DEK-Info` value: the cipher (an OpenSSL name, as `EVP_get_cipherbyname`
/// reads it there) and its IV (one block).
fn parse_dek_info(value: &str) -> Result<(Cbc, Vec<u8>)> {
    let (name, iv_hex) = value.trim().split_once(',').ok_or(BAD_DEK_INFO)?;
    let cbc = lookup(name.trim())
        .and_then(cbc_of)
        .ok_or(Error::Unsupported("DEK-Info names a cipher other than DES, 3DES and AES in CBC"))?;
    let iv_hex = iv_hex.trim().as_bytes();
    if iv_hex.len() != 2 * cbc.block_len() {
        return Err(Error::InvalidEncoding("DEK-Info's IV is not one cipher block"));
    }
    let nibble = |c: u8| (c as char).to_digit(16).ok_or(BAD_DEK_INFO);
    let iv = iv_hex
        .chunks(2)
        .map(|p| Ok((nibble(p[0])? << 4 | nibble(p[1])?) as u8))
        .collect::<Result<Vec<u8>>>()?;
    Ok((cbc, iv))
}

/// Decrypts a PEM block's body under its `DEK-Info` header value (`DES-EDE3-CBC,
/// 3F2A...`) and `password`.
///
/// Errors: `Unsupported` for a cipher other than DES, triple-DES or AES in CBC mode;
/// `InvalidEncoding` for a
/// malformed `DEK-Info`, a body that is empty or not whole blocks, and
/// [`super::WRONG_PASSWORD`] for bad padding.
pub fn pem_decrypt(
    dek_info: &str,
    password: &[u8],
    ciphertext: &[u8],
) -> Result<Zeroizing<Vec<u8>>> {
    let (cbc, iv) = parse_dek_info(dek_info)?;
    if ciphertext.is_empty() || !ciphertext.len().is_multiple_of(cbc.block_len()) {
        return Err(Error::InvalidEncoding(
            "encrypted PEM body is empty or not a whole number of cipher blocks",
        ));
    }
    let key = bytes_to_key(password, &iv[..8], cbc.key_len());
    cbc.run(&key, &iv, Direction::Decrypt, ciphertext).map_err(|e| match e {
        Error::Decryption => super::WRONG_PASSWORD,
        other => other,
    })
}

/// Encrypts `plaintext` under `cipher` in CBC mode and `password` with a fresh IV from
/// `rng`: the `DEK-Info` value to write (`DES-EDE3-CBC,` and the IV in upper-case hex, as
/// OpenSSL writes it) and the ciphertext.
pub fn pem_encrypt(
    cipher: Algorithm,
    password: &[u8],
    plaintext: &[u8],
    rng: &mut dyn RandomSource,
) -> Result<(String, Vec<u8>)> {
    let spec = CIPHERS
        .iter()
        .find(|s| s.algorithm == cipher && s.mode == Mode::Cbc)
        .ok_or(Error::Internal("a block cipher without CBC in the table"))?;
    let cbc = Cbc::from_algorithm(cipher);
    let mut iv = vec![0u8; cbc.block_len()];
    rng.fill_bytes(&mut iv)?;
    let key = bytes_to_key(password, &iv[..8], cbc.key_len());
    let ciphertext = cbc.run(&key, &iv, Direction::Encrypt, plaintext)?;
    let hex: String = iv.iter().map(|b| format!("{b:02X}")).collect();
    Ok((format!("{},{hex}", spec.name.to_ascii_uppercase()), ciphertext.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::OsRng;

    /// `openssl enc -aes-256-cbc -md md5 -S 0102030405060708 -pass pass:secret -P` (and
    /// `-des-ede3-cbc`) print the key `EVP_BytesToKey` derives: an independent check of
    /// the derivation, over one MD5 block and two.
    #[test]
    fn derivation_is_openssl_bytes_to_key() {
        const AES_256: &str = "C9E5A1BD216DBE1317E230CEF48F38EE7F0E17AD64022144BCCEC4A1AA2879AB";
        let salt = [1, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(hex(&bytes_to_key(b"secret", &salt, 32)), AES_256);
        assert_eq!(hex(&bytes_to_key(b"secret", &salt, 24)), AES_256[..48]);
        assert_eq!(hex(&bytes_to_key(b"secret", &salt, 8)), AES_256[..16]);
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02X}")).collect()
    }

    #[test]
    fn every_cipher_round_trips_and_refuses_the_wrong_password() {
        use Algorithm::*;
        for (cipher, name) in [
            (Des, "DES-CBC"),
            (DesEde, "DES-EDE-CBC"),
            (DesEde3, "DES-EDE3-CBC"),
            (Aes128, "AES-128-CBC"),
            (Aes192, "AES-192-CBC"),
            (Aes256, "AES-256-CBC"),
        ] {
            for len in [0, 7, 16, 33] {
                let plain: Vec<u8> = (0..len as u8).collect();
                let (dek, ct) = pem_encrypt(cipher, b"pw", &plain, &mut OsRng).unwrap();
                assert!(dek.starts_with(&format!("{name},")), "{dek}");
                assert_eq!(&pem_decrypt(&dek, b"pw", &ct).unwrap()[..], &plain[..]);
                match pem_decrypt(&dek, b"pW", &ct) {
                    Err(e) => assert_eq!(e, super::super::WRONG_PASSWORD, "{name}"),
                    Ok(other) => assert_ne!(&other[..], &plain[..], "{name}"),
                }
            }
        }
    }

    #[test]
    fn malformed_headers_and_bodies_are_errors() {
        let ct = [0u8; 16];
        for bad in [
            "DES-EDE3-CBC",
            "DES-EDE3-CBC,0011223344556",
            "DES-EDE3-CBC,00112233445566778",
            "DES-EDE3-CBC,001122334455667G",
            "AES-128-CBC,0011223344556677",
            "DES-EDE3-CBC,+112233445566778",
        ] {
            assert!(
                matches!(pem_decrypt(bad, b"pw", &ct), Err(Error::InvalidEncoding(_))),
                "{bad}"
            );
        }
        for other in ["IDEA-CBC,0011223344556677", "DES-EDE3-OFB,0011223344556677"] {
            assert!(matches!(pem_decrypt(other, b"pw", &ct), Err(Error::Unsupported(_))));
        }
        let good = "DES-EDE3-CBC,0011223344556677";
        for body in [&[][..], &[0u8; 12][..]] {
            assert!(matches!(pem_decrypt(good, b"pw", body), Err(Error::InvalidEncoding(_))));
        }
    }
}
