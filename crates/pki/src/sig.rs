//! The signature algorithms of certificates, requests and CMS signers: RSASSA-PKCS1-v1_5
//! and RSASSA-PSS as `AlgorithmIdentifier`s, and signing and verifying with them on
//! cryptocard's RSA.
//!
//! - PKCS#1 v1.5 (RFC 4055 section 5, RFC 8017 appendix A.2.4):
//!   `sha{1,224,256,384,512}WithRSAEncryption` (1.2.840.113549.1.1.{5,14,11,12,13}), whose
//!   parameters are NULL. RFC 4055 section 5 says implementations MUST accept absent
//!   parameters too, so both parse.
//! - RSASSA-PSS (RFC 4055 section 3.1): `id-RSASSA-PSS` (1.2.840.113549.1.1.10) with
//!   `RSASSA-PSS-params { hashAlgorithm [0], maskGenAlgorithm [1], saltLength [2],
//!   trailerField [3] }`, every field DEFAULT (SHA-1, MGF1 with SHA-1, 20, 1). DER omits a
//!   field equal to its default (X.690 11.5), so we write only what differs; the trailer
//!   field is always 1 (0xbc) and never written. Absent parameters mean all the defaults.
//!   Verification uses the salt length the parameters carry, exactly (RFC 4055 section
//!   3.1: "the salt length ... MUST be" the one in the parameters), as OpenSSL does for
//!   certificates.
//!
//! A PSS scheme's salt length must be a number before it can be written down: the
//! [`SaltLength::Maximum`] that `openssl req -sigopt rsa_padding_mode:pss` uses depends on
//! the key, so a signer calls [`SigScheme::for_key`] first. PSS over SHAKE (RFC 8702) is
//! refused here as [`Error::Unsupported`].
//!
//! The structures' DER is `der`'s: the PSS parameters are a derived `Sequence`, the
//! identifiers are `spki`'s.

use crate::{Error, Result};
use cryptocard::digest::{HashAlg, Hasher};
use cryptocard::engine::Engine;
use cryptocard::rng::OsRng;
use cryptocard::rsa::{Mgf, PrivateRequest, Pss, PssHash, RsaPrivateKey, RsaPublicKey, SaltLength};
use der::asn1::{Any, ObjectIdentifier as Oid};
use der::{Decode, Encode, Sequence};
use spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};
use std::sync::Arc;

/// rsaEncryption (RFC 8017 appendix A.1).
pub const RSA_ENCRYPTION: Oid = Oid::new_unwrap("1.2.840.113549.1.1.1");
/// id-RSASSA-PSS (RFC 4055 section 3.1).
pub const ID_RSASSA_PSS: Oid = Oid::new_unwrap("1.2.840.113549.1.1.10");
/// id-mgf1 (RFC 4055 section 2.2).
pub const ID_MGF1: Oid = Oid::new_unwrap("1.2.840.113549.1.1.8");

/// The PKCS#1 v1.5 signature OIDs by hash (RFC 4055 section 5, RFC 8017 A.2.4).
const PKCS1_OIDS: [(HashAlg, Oid); 5] = [
    (HashAlg::Sha1, Oid::new_unwrap("1.2.840.113549.1.1.5")),
    (HashAlg::Sha224, Oid::new_unwrap("1.2.840.113549.1.1.14")),
    (HashAlg::Sha256, Oid::new_unwrap("1.2.840.113549.1.1.11")),
    (HashAlg::Sha384, Oid::new_unwrap("1.2.840.113549.1.1.12")),
    (HashAlg::Sha512, Oid::new_unwrap("1.2.840.113549.1.1.13")),
];

/// The hashes PSS parameters may name here (those of `PKCS1_OIDS`).
const PSS_HASHES: [HashAlg; 5] =
    [HashAlg::Sha1, HashAlg::Sha224, HashAlg::Sha256, HashAlg::Sha384, HashAlg::Sha512];

/// The default salt length of `RSASSA-PSS-params` (RFC 4055 section 3.1).
const DEFAULT_SALT: u32 = 20;

/// A signature algorithm on RSA keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigScheme {
    /// RSASSA-PKCS1-v1_5 with this hash.
    Pkcs1v15(HashAlg),
    /// RSASSA-PSS with these parameters.
    Pss(Pss),
}

/// `RSASSA-PSS-params` (RFC 4055 section 3.1), every field optional so that defaults are
/// omitted when writing and recognised when absent.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
struct PssParams {
    #[asn1(context_specific = "0", optional = "true")]
    hash: Option<AlgorithmIdentifierOwned>,
    #[asn1(context_specific = "1", optional = "true")]
    mask_gen: Option<AlgorithmIdentifierOwned>,
    #[asn1(context_specific = "2", optional = "true")]
    salt_len: Option<u32>,
    #[asn1(context_specific = "3", optional = "true")]
    trailer: Option<u32>,
}

impl SigScheme {
    /// PKCS#1 v1.5 with SHA-256, what OpenSSL 3 signs certificates with by default.
    pub const DEFAULT: SigScheme = SigScheme::Pkcs1v15(HashAlg::Sha256);

    /// The message digest the scheme signs. For a PSS scheme over SHAKE (which every
    /// other function here refuses) this is the SHA-3 hash of the same strength.
    pub fn hash(&self) -> HashAlg {
        match self {
            SigScheme::Pkcs1v15(h) => *h,
            SigScheme::Pss(p) => match p.hash {
                PssHash::Hash(h) => h,
                PssHash::Shake(x) if x.security_len() <= 16 => HashAlg::Sha3_256,
                PssHash::Shake(_) => HashAlg::Sha3_512,
            },
        }
    }

    /// The scheme with a PSS salt length made concrete for `key`: [`SaltLength::Maximum`]
    /// becomes emLen - hLen - 2 and [`SaltLength::DigestLength`] hLen (RFC 8017 9.1.1).
    pub fn for_key(self, key: &RsaPublicKey) -> Result<SigScheme> {
        let SigScheme::Pss(p) = self else { return Ok(self) };
        let h_len = p.hash.output_len();
        let em_len = (key.bits() - 1).div_ceil(8);
        let salt = match p.salt {
            SaltLength::Maximum => em_len
                .checked_sub(h_len + 2)
                .ok_or_else(|| Error::Unsupported("key too small for RSASSA-PSS".into()))?,
            SaltLength::DigestLength => h_len,
            SaltLength::Exact(n) => n,
            SaltLength::Auto => return Ok(self),
        };
        Ok(SigScheme::Pss(p.with_salt(SaltLength::Exact(salt))))
    }

    /// The `AlgorithmIdentifier` naming the scheme (RFC 4055 sections 3.1 and 5).
    pub fn algorithm_identifier(&self) -> Result<AlgorithmIdentifierOwned> {
        match self {
            SigScheme::Pkcs1v15(h) => {
                Ok(AlgorithmIdentifierOwned { oid: pkcs1_oid(*h)?, parameters: Some(Any::null()) })
            }
            SigScheme::Pss(p) => {
                let (hash, mgf1) = pss_hashes(p)?;
                let salt = match p.salt {
                    SaltLength::Exact(n) => u32::try_from(n)
                        .map_err(|_| Error::Unsupported("PSS salt length".into()))?,
                    SaltLength::DigestLength => hash.output_len() as u32,
                    SaltLength::Maximum | SaltLength::Auto => {
                        return Err(Error::Unsupported(
                            "a PSS salt length of 'max' or 'auto' must be made concrete first \
                             (SigScheme::for_key)"
                                .into(),
                        ));
                    }
                };
                let params = PssParams {
                    hash: (hash != HashAlg::Sha1).then(|| hash_id(hash)).transpose()?,
                    mask_gen: (mgf1 != HashAlg::Sha1)
                        .then(|| -> Result<_> {
                            Ok(AlgorithmIdentifierOwned {
                                oid: ID_MGF1,
                                parameters: Some(Any::encode_from(&hash_id(mgf1)?)?),
                            })
                        })
                        .transpose()?,
                    salt_len: (salt != DEFAULT_SALT).then_some(salt),
                    trailer: None,
                };
                Ok(AlgorithmIdentifierOwned {
                    oid: ID_RSASSA_PSS,
                    parameters: Some(Any::encode_from(&params)?),
                })
            }
        }
    }

    /// The scheme an `AlgorithmIdentifier` names. PKCS#1 v1.5 identifiers may carry NULL
    /// or no parameters; PSS ones are read with RFC 4055's defaults, the salt length
    /// becoming [`SaltLength::Exact`].
    pub fn from_algorithm_identifier(id: &AlgorithmIdentifierOwned) -> Result<SigScheme> {
        if let Some((h, _)) = PKCS1_OIDS.iter().find(|(_, o)| *o == id.oid) {
            return match &id.parameters {
                None => Ok(SigScheme::Pkcs1v15(*h)),
                Some(p) if p.is_null() => Ok(SigScheme::Pkcs1v15(*h)),
                Some(_) => Err(Error::Malformed("PKCS#1 v1.5 parameters must be NULL".into())),
            };
        }
        if id.oid != ID_RSASSA_PSS {
            return Err(Error::Unsupported(format!("signature algorithm {}", oid_name(&id.oid))));
        }
        let params = match &id.parameters {
            None => PssParams { hash: None, mask_gen: None, salt_len: None, trailer: None },
            Some(any) => any.decode_as::<PssParams>()?,
        };
        let hash = params.hash.as_ref().map(hash_from_id).transpose()?.unwrap_or(HashAlg::Sha1);
        let mgf1 = match &params.mask_gen {
            None => HashAlg::Sha1,
            Some(m) if m.oid == ID_MGF1 => {
                let inner = m
                    .parameters
                    .as_ref()
                    .ok_or_else(|| Error::Malformed("MGF1 without its hash".into()))?
                    .decode_as::<AlgorithmIdentifierOwned>()?;
                hash_from_id(&inner)?
            }
            Some(m) => {
                return Err(Error::Unsupported(format!("mask generation {}", oid_name(&m.oid))));
            }
        };
        if params.trailer.is_some_and(|t| t != 1) {
            return Err(Error::Unsupported("PSS trailer field other than 1".into()));
        }
        let salt = params.salt_len.unwrap_or(DEFAULT_SALT) as usize;
        Ok(SigScheme::Pss(Pss::new(hash).with_mgf1(mgf1).with_salt(SaltLength::Exact(salt))))
    }
}

/// The PKCS#1 v1.5 signature OID for `h`.
fn pkcs1_oid(h: HashAlg) -> Result<Oid> {
    PKCS1_OIDS
        .iter()
        .find(|(a, _)| *a == h)
        .map(|(_, o)| *o)
        .ok_or_else(|| Error::Unsupported(format!("{h} with RSA signatures")))
}

/// The message and MGF1 hashes of `p`, both among those supported.
fn pss_hashes(p: &Pss) -> Result<(HashAlg, HashAlg)> {
    let supported = |h: HashAlg| PSS_HASHES.contains(&h);
    match (p.hash, p.mgf) {
        (PssHash::Hash(h), Mgf::Mgf1(m)) if supported(h) && supported(m) => Ok((h, m)),
        _ => Err(Error::Unsupported("RSASSA-PSS with this hash or MGF".into())),
    }
}

/// The `AlgorithmIdentifier` of a hash, with NULL parameters as RFC 4055 section 2.1
/// recommends and OpenSSL writes.
pub fn hash_id(h: HashAlg) -> Result<AlgorithmIdentifierOwned> {
    let oid = Oid::new(h.oid()).map_err(|_| Error::Unsupported(format!("{h}")))?;
    Ok(AlgorithmIdentifierOwned { oid, parameters: Some(Any::null()) })
}

/// The hash an `AlgorithmIdentifier` names (parameters NULL or absent).
pub fn hash_from_id(id: &AlgorithmIdentifierOwned) -> Result<HashAlg> {
    if id.parameters.as_ref().is_some_and(|p| !p.is_null()) {
        return Err(Error::Malformed("hash parameters must be NULL or absent".into()));
    }
    HashAlg::from_oid(&id.oid.to_string())
        .map_err(|_| Error::Unsupported(format!("digest {}", oid_name(&id.oid))))
}

/// An OID as OpenSSL prints it (`i2a_ASN1_OBJECT`): the long name of its object table,
/// or the dotted form.
pub(crate) fn oid_name(oid: &Oid) -> String {
    crate::asn1::object_text(oid.as_bytes()).unwrap_or_else(|| oid.to_string())
}

/// Refuses SHAKE PSS and schemes whose salt length is not concrete for signing.
fn check_signable(scheme: &SigScheme) -> Result<()> {
    if let SigScheme::Pss(p) = scheme {
        pss_hashes(p)?;
        if p.salt == SaltLength::Auto {
            return Err(Error::Unsupported("signing needs a PSS salt length, not 'auto'".into()));
        }
    }
    Ok(())
}

/// Signs `msg` with `scheme` (the message is hashed with [`SigScheme::hash`]).
pub fn sign(key: &RsaPrivateKey, scheme: &SigScheme, msg: &[u8]) -> Result<Vec<u8>> {
    let digest = Hasher::digest(scheme.hash(), msg);
    sign_digest(key, scheme, digest.as_bytes())
}

/// [`sign`] with the RSA operation run by `engine`, which batches the operations of the
/// threads that call it at once (a responder's connections).
pub fn sign_on(
    engine: &Engine,
    key: &Arc<RsaPrivateKey>,
    scheme: &SigScheme,
    msg: &[u8],
) -> Result<Vec<u8>> {
    let digest = Hasher::digest(scheme.hash(), msg);
    let request = digest_request(scheme, digest.as_bytes().to_vec())?;
    Ok(engine.run(Arc::clone(key), request)?)
}

/// The engine's request to sign a digest computed with [`SigScheme::hash`].
pub fn digest_request(scheme: &SigScheme, digest: Vec<u8>) -> Result<PrivateRequest> {
    check_signable(scheme)?;
    Ok(match *scheme {
        SigScheme::Pkcs1v15(hash) => PrivateRequest::SignPkcs1v15Prehashed { hash, digest },
        SigScheme::Pss(params) => PrivateRequest::SignPssPrehashed { params, digest },
    })
}

/// Signs a digest computed with [`SigScheme::hash`].
pub fn sign_digest(key: &RsaPrivateKey, scheme: &SigScheme, digest: &[u8]) -> Result<Vec<u8>> {
    check_signable(scheme)?;
    let sig = match scheme {
        SigScheme::Pkcs1v15(h) => key.sign_pkcs1v15_prehashed(*h, digest, &mut OsRng)?,
        SigScheme::Pss(p) => key.sign_pss_prehashed(p, digest, &mut OsRng)?,
    };
    Ok(sig)
}

/// Verifies `sig` over `msg`; [`Error::Verify`] if it does not verify.
pub fn verify(key: &RsaPublicKey, scheme: &SigScheme, msg: &[u8], sig: &[u8]) -> Result<()> {
    let digest = Hasher::digest(scheme.hash(), msg);
    verify_digest(key, scheme, digest.as_bytes(), sig)
}

/// Verifies `sig` over a digest computed with [`SigScheme::hash`].
pub fn verify_digest(
    key: &RsaPublicKey,
    scheme: &SigScheme,
    digest: &[u8],
    sig: &[u8],
) -> Result<()> {
    let result = match scheme {
        SigScheme::Pkcs1v15(h) => key.verify_pkcs1v15_prehashed(*h, digest, sig),
        SigScheme::Pss(p) => {
            pss_hashes(p)?;
            key.verify_pss_prehashed(p, digest, sig)
        }
    };
    result.map_err(|e| match e {
        cryptocard::Error::Verification => Error::Verify("bad signature".into()),
        e => Error::Crypto(e),
    })
}

/// The RSA key in a `SubjectPublicKeyInfo` (rsaEncryption, RFC 8017 appendix A.1).
pub fn public_key_from_spki(spki: &SubjectPublicKeyInfoOwned) -> Result<RsaPublicKey> {
    if spki.algorithm.oid != RSA_ENCRYPTION {
        return Err(Error::Unsupported(format!(
            "public key algorithm {}",
            oid_name(&spki.algorithm.oid)
        )));
    }
    Ok(RsaPublicKey::from_public_key_der(&spki.to_der()?)?)
}

/// The `SubjectPublicKeyInfo` of an RSA key.
pub fn spki_of(key: &RsaPublicKey) -> Result<SubjectPublicKeyInfoOwned> {
    Ok(SubjectPublicKeyInfoOwned::from_der(&key.to_public_key_der()?)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn der(id: &AlgorithmIdentifierOwned) -> Vec<u8> {
        id.to_der().unwrap()
    }

    #[test]
    fn pkcs1_identifiers_round_trip_with_null_or_absent_params() {
        for (h, oid) in PKCS1_OIDS {
            let id = SigScheme::Pkcs1v15(h).algorithm_identifier().unwrap();
            assert_eq!(id.oid, oid);
            assert!(id.parameters.as_ref().unwrap().is_null());
            assert_eq!(SigScheme::from_algorithm_identifier(&id).unwrap(), SigScheme::Pkcs1v15(h));
            let bare = AlgorithmIdentifierOwned { oid, parameters: None };
            assert_eq!(
                SigScheme::from_algorithm_identifier(&bare).unwrap(),
                SigScheme::Pkcs1v15(h)
            );
        }
        assert!(SigScheme::Pkcs1v15(HashAlg::Md5).algorithm_identifier().is_err());
    }

    /// RFC 4055 section 3.1's defaults: SHA-1 parameters are all omitted, so the
    /// parameters are an empty SEQUENCE.
    #[test]
    fn pss_defaults_are_omitted() {
        let s = SigScheme::Pss(Pss::new(HashAlg::Sha1).with_salt(SaltLength::Exact(20)));
        let id = s.algorithm_identifier().unwrap();
        assert_eq!(der(&id)[der(&id).len() - 2..], [0x30, 0x00]);
        assert_eq!(SigScheme::from_algorithm_identifier(&id).unwrap(), s);
        let absent = AlgorithmIdentifierOwned { oid: ID_RSASSA_PSS, parameters: None };
        assert_eq!(SigScheme::from_algorithm_identifier(&absent).unwrap(), s);
    }

    /// The SHA-256 parameters OpenSSL writes for `-sigopt rsa_padding_mode:pss
    /// -sigopt rsa_pss_saltlen:32`, byte for byte (from `openssl asn1parse`).
    #[test]
    fn pss_sha256_matches_openssl_encoding() {
        let s = SigScheme::Pss(Pss::new(HashAlg::Sha256).with_salt(SaltLength::Exact(32)));
        let id = s.algorithm_identifier().unwrap();
        let want = "3041 0609 2a864886f70d01010a 3034 \
                    a00f 300d 0609 608648016503040201 0500 \
                    a11c 301a 0609 2a864886f70d010108 300d 0609 608648016503040201 0500 \
                    a203 0201 20";
        let want: String = want.split_whitespace().collect();
        let got: String = der(&id).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(got, want);
        assert_eq!(SigScheme::from_algorithm_identifier(&id).unwrap(), s);
    }

    #[test]
    fn salt_max_needs_the_key() {
        let s = SigScheme::Pss(Pss::new(HashAlg::Sha256).with_salt(SaltLength::Maximum));
        assert!(s.algorithm_identifier().is_err());
    }

    #[test]
    fn hostile_parameters_are_errors() {
        for params in [&[0x30, 0x03, 0xa2, 0x01, 0x05][..], &[0x05, 0x00], &[0x30, 0x80]] {
            let Ok(any) = Any::from_der(params) else { continue };
            let id = AlgorithmIdentifierOwned { oid: ID_RSASSA_PSS, parameters: Some(any) };
            assert!(SigScheme::from_algorithm_identifier(&id).is_err());
        }
        let other = AlgorithmIdentifierOwned { oid: RSA_ENCRYPTION, parameters: None };
        assert!(SigScheme::from_algorithm_identifier(&other).is_err());
    }
}
