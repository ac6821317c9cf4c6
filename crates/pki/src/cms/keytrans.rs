//! RSA key transport (RFC 5652 section 6.2.1): the content-encryption key encrypted to a
//! recipient's RSA key with PKCS#1 v1.5 (`rsaEncryption`, RFC 3370 section 4.2.1) or
//! RSAES-OAEP (`id-RSAES-OAEP` with RSAES-OAEP-params, RFC 3560 and RFC 4055 section 4.1).
//!
//! Unwrapping never reports why it failed: PKCS#1 v1.5 decrypts with implicit rejection,
//! and any failure or a key of the wrong length gives a random key instead, so the
//! content decryption that follows fails as it would for any wrong key (RFC 3218 section
//! 2.3's advice, as OpenSSL's CMS does).

use crate::sig::{hash_from_id as hash_of, hash_id};
use crate::{Error, Result};
use const_oid::db::rfc5912::{ID_MGF_1, ID_P_SPECIFIED, ID_RSAES_OAEP, RSA_ENCRYPTION};
use cryptocard::digest::HashAlg;
use cryptocard::rng::{OsRng, RandomSource};
use cryptocard::rsa::{Oaep, RsaPrivateKey, RsaPublicKey};
use der::asn1::{Null, OctetString};
use der::{Any, Decode, Encode, Sequence};
use spki::AlgorithmIdentifierOwned;
use zeroize::Zeroizing;

/// How the content-encryption key travels to a recipient.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyTransport {
    /// RSAES-PKCS1-v1_5 (OpenSSL's default).
    Pkcs1v15,
    /// RSAES-OAEP with these parameters (`-keyopt rsa_padding_mode:oaep`).
    Oaep(Oaep),
}

/// RSAES-OAEP-params (RFC 4055 section 4.1); absent fields take the SHA-1 defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq, Sequence)]
struct OaepParams {
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    hash: Option<AlgorithmIdentifierOwned>,
    #[asn1(context_specific = "1", tag_mode = "EXPLICIT", optional = "true")]
    mask_gen: Option<AlgorithmIdentifierOwned>,
    #[asn1(context_specific = "2", tag_mode = "EXPLICIT", optional = "true")]
    p_source: Option<AlgorithmIdentifierOwned>,
}

/// A hash's AlgorithmIdentifier with its parameters absent, as OpenSSL writes them in
/// CMS (RFC 5754 section 2: absent SHOULD be written, NULL MUST be accepted).
pub(crate) fn hash_algorithm(hash: HashAlg) -> Result<AlgorithmIdentifierOwned> {
    Ok(AlgorithmIdentifierOwned { parameters: None, ..hash_id(hash)? })
}

impl KeyTransport {
    /// The `keyEncryptionAlgorithm` of a KeyTransRecipientInfo. OAEP with all defaults is
    /// written with an empty parameter sequence, as OpenSSL writes it.
    pub fn algorithm_identifier(&self) -> Result<AlgorithmIdentifierOwned> {
        let KeyTransport::Oaep(oaep) = self else {
            return Ok(AlgorithmIdentifierOwned {
                oid: RSA_ENCRYPTION,
                parameters: Some(Any::encode_from(&Null)?),
            });
        };
        let mut params = OaepParams::default();
        if oaep.hash != HashAlg::Sha1 {
            params.hash = Some(hash_algorithm(oaep.hash)?);
        }
        if oaep.mgf1 != HashAlg::Sha1 {
            let mgf_hash = Any::encode_from(&hash_algorithm(oaep.mgf1)?)?;
            params.mask_gen =
                Some(AlgorithmIdentifierOwned { oid: ID_MGF_1, parameters: Some(mgf_hash) });
        }
        if !oaep.label.is_empty() {
            let label = Any::encode_from(&OctetString::new(oaep.label.clone())?)?;
            params.p_source =
                Some(AlgorithmIdentifierOwned { oid: ID_P_SPECIFIED, parameters: Some(label) });
        }
        Ok(AlgorithmIdentifierOwned {
            oid: ID_RSAES_OAEP,
            parameters: Some(Any::encode_from(&params)?),
        })
    }

    /// The key transport that `alg` names.
    pub fn from_algorithm_identifier(alg: &AlgorithmIdentifierOwned) -> Result<KeyTransport> {
        match alg.oid {
            RSA_ENCRYPTION => Ok(KeyTransport::Pkcs1v15),
            ID_RSAES_OAEP => {
                let params = match &alg.parameters {
                    None => OaepParams::default(),
                    Some(any) => OaepParams::from_der(&any.to_der()?)?,
                };
                let hash = params.hash.as_ref().map_or(Ok(HashAlg::Sha1), hash_of)?;
                let mgf1 = match &params.mask_gen {
                    None => HashAlg::Sha1,
                    Some(m) if m.oid == ID_MGF_1 => {
                        let inner = m
                            .parameters
                            .as_ref()
                            .ok_or_else(|| Error::Malformed("MGF1 without its hash".into()))?;
                        hash_of(&AlgorithmIdentifierOwned::from_der(&inner.to_der()?)?)?
                    }
                    Some(m) => {
                        return Err(Error::Unsupported(format!("mask generation {}", m.oid)));
                    }
                };
                let label = match &params.p_source {
                    None => Vec::new(),
                    Some(p) if p.oid == ID_P_SPECIFIED => match &p.parameters {
                        None => Vec::new(),
                        Some(l) => OctetString::from_der(&l.to_der()?)?.into_bytes().into_vec(),
                    },
                    Some(p) => {
                        return Err(Error::Unsupported(format!("OAEP label source {}", p.oid)));
                    }
                };
                Ok(KeyTransport::Oaep(Oaep { hash, mgf1, label }))
            }
            other => Err(Error::Unsupported(format!("key transport algorithm {other}"))),
        }
    }

    /// The encrypted key for `recipient`.
    pub(super) fn wrap(&self, recipient: &RsaPublicKey, cek: &[u8]) -> Result<Vec<u8>> {
        Ok(match self {
            KeyTransport::Pkcs1v15 => recipient.encrypt_pkcs1v15(cek, &mut OsRng)?,
            KeyTransport::Oaep(params) => recipient.encrypt_oaep(params, cek, &mut OsRng)?,
        })
    }

    /// The content-encryption key of `key_len` bytes, or a random one where the encrypted
    /// key does not open to one (see the module docs). Errors only for a fault or the
    /// random source.
    pub(super) fn unwrap(
        &self,
        key: &RsaPrivateKey,
        encrypted: &[u8],
        key_len: usize,
    ) -> Result<Zeroizing<Vec<u8>>> {
        let opened = match self {
            KeyTransport::Pkcs1v15 => key.decrypt_pkcs1v15(encrypted, &mut OsRng),
            KeyTransport::Oaep(params) => key.decrypt_oaep(params, encrypted, &mut OsRng),
        };
        match opened {
            Ok(cek) if cek.len() == key_len => Ok(Zeroizing::new(cek)),
            Err(e @ (cryptocard::Error::FaultDetected | cryptocard::Error::Rng)) => Err(e.into()),
            _ => {
                let mut random = Zeroizing::new(vec![0u8; key_len]);
                OsRng.fill_bytes(&mut random)?;
                Ok(random)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oaep_parameters_round_trip_and_defaults_are_empty() {
        let default = KeyTransport::Oaep(Oaep::new(HashAlg::Sha1));
        let alg = default.algorithm_identifier().unwrap();
        assert_eq!(alg.parameters.as_ref().unwrap().to_der().unwrap(), [0x30, 0x00]);
        for kt in [
            KeyTransport::Pkcs1v15,
            default,
            KeyTransport::Oaep(Oaep::new(HashAlg::Sha256)),
            KeyTransport::Oaep(
                Oaep::new(HashAlg::Sha384).with_mgf1(HashAlg::Sha1).with_label(b"L"),
            ),
        ] {
            let alg = kt.algorithm_identifier().unwrap();
            assert_eq!(KeyTransport::from_algorithm_identifier(&alg).unwrap(), kt);
        }
    }
}
