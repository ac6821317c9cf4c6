//! The `AlgorithmIdentifier`s of password-based encryption, read into a [`Scheme`] and
//! written from one: PBES2 with PBKDF2 (RFC 8018 appendix A.2, A.4, B.2), PBES1 (appendix
//! A.3) and PKCS#12's own schemes (RFC 7292 appendix C), with the words OpenSSL's
//! `pkcs12 -info` prints for each.

use super::cbc::Cbc;
use crate::digest::HashAlg;
use crate::{Error, Result};
use der::asn1::{Any, ObjectIdentifier as Oid, OctetString};
use der::{Decode, Encode, Sequence};
use spki::AlgorithmIdentifierOwned;

const MALFORMED: Error = Error::InvalidEncoding("malformed password-based encryption parameters");

const PBES2: Oid = Oid::new_unwrap("1.2.840.113549.1.5.13");
const PBKDF2: Oid = Oid::new_unwrap("1.2.840.113549.1.5.12");

/// The PRFs of PBKDF2 (RFC 8018 B.1.2; RFC 4231's numbering under rsadsi digestAlgorithm).
const PRFS: &[(Oid, HashAlg, &str)] = &[
    (Oid::new_unwrap("1.2.840.113549.2.7"), HashAlg::Sha1, "hmacWithSHA1"),
    (Oid::new_unwrap("1.2.840.113549.2.8"), HashAlg::Sha224, "hmacWithSHA224"),
    (Oid::new_unwrap("1.2.840.113549.2.9"), HashAlg::Sha256, "hmacWithSHA256"),
    (Oid::new_unwrap("1.2.840.113549.2.10"), HashAlg::Sha384, "hmacWithSHA384"),
    (Oid::new_unwrap("1.2.840.113549.2.11"), HashAlg::Sha512, "hmacWithSHA512"),
    (Oid::new_unwrap("1.2.840.113549.2.12"), HashAlg::Sha512_224, "hmacWithSHA512-224"),
    (Oid::new_unwrap("1.2.840.113549.2.13"), HashAlg::Sha512_256, "hmacWithSHA512-256"),
];

/// The ciphers of PBES2 (RFC 8018 B.2; AES from NIST's arc): OID, cipher, OpenSSL's name.
const PBES2_CIPHERS: &[(Oid, Cbc, &str)] = &[
    (Oid::new_unwrap("2.16.840.1.101.3.4.1.2"), Cbc::Aes128, "AES-128-CBC"),
    (Oid::new_unwrap("2.16.840.1.101.3.4.1.22"), Cbc::Aes192, "AES-192-CBC"),
    (Oid::new_unwrap("2.16.840.1.101.3.4.1.42"), Cbc::Aes256, "AES-256-CBC"),
    (Oid::new_unwrap("1.2.840.113549.3.7"), Cbc::DesEde3, "DES-EDE3-CBC"),
    (Oid::new_unwrap("1.3.14.3.2.7"), Cbc::Des, "DES-CBC"),
];

/// PBES1 (RFC 8018 A.3): OID, PBKDF1's hash, cipher (RC2 at 64 effective bits, B.2.2),
/// OpenSSL's long name.
const PBES1: &[(Oid, HashAlg, Cbc, &str)] = &[
    (Oid::new_unwrap("1.2.840.113549.1.5.1"), HashAlg::Md2, Cbc::Des, "pbeWithMD2AndDES-CBC"),
    (Oid::new_unwrap("1.2.840.113549.1.5.3"), HashAlg::Md5, Cbc::Des, "pbeWithMD5AndDES-CBC"),
    (Oid::new_unwrap("1.2.840.113549.1.5.10"), HashAlg::Sha1, Cbc::Des, "pbeWithSHA1AndDES-CBC"),
    (Oid::new_unwrap("1.2.840.113549.1.5.4"), HashAlg::Md2, Cbc::RC2_64, "pbeWithMD2AndRC2-CBC"),
    (Oid::new_unwrap("1.2.840.113549.1.5.6"), HashAlg::Md5, Cbc::RC2_64, "pbeWithMD5AndRC2-CBC"),
    (Oid::new_unwrap("1.2.840.113549.1.5.11"), HashAlg::Sha1, Cbc::RC2_64, "pbeWithSHA1AndRC2-CBC"),
];

/// PKCS#12's schemes (RFC 7292 appendix C), all on SHA-1: OID, cipher, OpenSSL's long
/// name. The two RC4 schemes (`.1`, `.2`) are not here: no tool wrote them in years.
const PKCS12: &[(Oid, Cbc, &str)] = &[
    (Oid::new_unwrap("1.2.840.113549.1.12.1.3"), Cbc::DesEde3, "pbeWithSHA1And3-KeyTripleDES-CBC"),
    (Oid::new_unwrap("1.2.840.113549.1.12.1.4"), Cbc::DesEde, "pbeWithSHA1And2-KeyTripleDES-CBC"),
    (Oid::new_unwrap("1.2.840.113549.1.12.1.5"), Cbc::RC2_128, "pbeWithSHA1And128BitRC2-CBC"),
    (Oid::new_unwrap("1.2.840.113549.1.12.1.6"), Cbc::RC2_40, "pbeWithSHA1And40BitRC2-CBC"),
];

/// `PBEParameter` (RFC 8018 A.3) and `pkcs-12PbeParams` (RFC 7292 appendix C): the same
/// shape.
#[derive(Sequence)]
struct PbeParameter {
    salt: OctetString,
    iterations: u32,
}

/// `PBES2-params` (RFC 8018 A.4).
#[derive(Sequence)]
struct Pbes2Params {
    kdf: AlgorithmIdentifierOwned,
    scheme: AlgorithmIdentifierOwned,
}

/// `PBKDF2-params` (RFC 8018 A.2), the salt's `specified` choice only; `prf` DEFAULT
/// hmacWithSHA1 (absent).
#[derive(Sequence)]
struct Pbkdf2Params {
    salt: OctetString,
    iterations: u32,
    key_length: Option<u16>,
    prf: Option<AlgorithmIdentifierOwned>,
}

/// How a password becomes a key and IV.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Derivation {
    /// PBKDF2 with HMAC over the hash; the IV is in the parameters.
    Pbkdf2(HashAlg),
    /// PBKDF1 over the hash: the key and the IV are the two halves of 16 bytes.
    Pbkdf1(HashAlg),
    /// PKCS#12's derivation on SHA-1, with the password as a BMPString.
    Pkcs12,
}

/// A scheme as a file names it: the derivation, the cipher, and the parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Scheme {
    pub derivation: Derivation,
    pub cipher: Cbc,
    pub salt: Vec<u8>,
    pub iterations: u32,
    /// PBES2's IV; empty where the derivation makes it.
    pub iv: Vec<u8>,
}

fn parameters<T: for<'a> Decode<'a>>(alg: &AlgorithmIdentifierOwned) -> Result<T> {
    let any = alg.parameters.as_ref().ok_or(MALFORMED)?;
    T::from_der(&any.to_der().map_err(|_| MALFORMED)?).map_err(|_| MALFORMED)
}

fn any_of<T: der::EncodeValue + der::Tagged>(value: &T) -> Result<Any> {
    Any::encode_from(value).map_err(|_| MALFORMED)
}

impl Scheme {
    /// Reads a DER `AlgorithmIdentifier`. Errors: `Unsupported` for a scheme, PRF or
    /// cipher not listed above, `InvalidEncoding` for parameters that do not parse.
    pub fn from_der(der: &[u8]) -> Result<Scheme> {
        let alg = AlgorithmIdentifierOwned::from_der(der).map_err(|_| MALFORMED)?;
        if alg.oid == PBES2 {
            return Scheme::pbes2(&alg);
        }
        let (derivation, cipher) =
            if let Some(&(_, hash, cipher, _)) = PBES1.iter().find(|(oid, ..)| *oid == alg.oid) {
                (Derivation::Pbkdf1(hash), cipher)
            } else if let Some(&(_, cipher, _)) = PKCS12.iter().find(|(oid, ..)| *oid == alg.oid) {
                (Derivation::Pkcs12, cipher)
            } else {
                return Err(Error::Unsupported("password-based encryption scheme"));
            };
        let p: PbeParameter = parameters(&alg)?;
        if derivation != Derivation::Pkcs12 && p.salt.as_bytes().len() != 8 {
            return Err(Error::InvalidEncoding("a PBES1 salt is 8 bytes"));
        }
        Ok(Scheme {
            derivation,
            cipher,
            salt: p.salt.into_bytes().into(),
            iterations: p.iterations,
            iv: Vec::new(),
        })
    }

    fn pbes2(alg: &AlgorithmIdentifierOwned) -> Result<Scheme> {
        let p: Pbes2Params = parameters(alg)?;
        if p.kdf.oid != PBKDF2 {
            return Err(Error::Unsupported("PBES2 key derivation other than PBKDF2"));
        }
        let kdf: Pbkdf2Params = parameters(&p.kdf)?;
        let prf = match &kdf.prf {
            None => HashAlg::Sha1,
            Some(prf) => PRFS
                .iter()
                .find(|(oid, ..)| *oid == prf.oid)
                .map(|&(_, hash, _)| hash)
                .ok_or(Error::Unsupported("PBKDF2 pseudo-random function"))?,
        };
        let &(_, cipher, _) = PBES2_CIPHERS
            .iter()
            .find(|(oid, ..)| *oid == p.scheme.oid)
            .ok_or(Error::Unsupported("PBES2 cipher"))?;
        if kdf.key_length.is_some_and(|l| usize::from(l) != cipher.key_len()) {
            return Err(Error::InvalidEncoding("PBKDF2 key length does not match the cipher"));
        }
        let iv: OctetString = parameters(&p.scheme)?;
        if iv.as_bytes().len() != cipher.block_len() {
            return Err(Error::InvalidEncoding("PBES2 IV length does not match the cipher"));
        }
        Ok(Scheme {
            derivation: Derivation::Pbkdf2(prf),
            cipher,
            salt: kdf.salt.into_bytes().into(),
            iterations: kdf.iterations,
            iv: iv.into_bytes().into(),
        })
    }

    /// The DER `AlgorithmIdentifier`. Errors: `Unsupported` for a derivation and cipher
    /// that no scheme pairs.
    pub fn to_der(&self) -> Result<Vec<u8>> {
        const NO_SUCH: Error = Error::Unsupported("no password-based scheme pairs these");
        let salt = OctetString::new(self.salt.clone()).map_err(|_| MALFORMED)?;
        let alg = match self.derivation {
            Derivation::Pbkdf2(hash) => {
                let prf = PRFS.iter().find(|(_, h, _)| *h == hash).ok_or(NO_SUCH)?.0;
                let cipher =
                    PBES2_CIPHERS.iter().find(|(_, c, _)| *c == self.cipher).ok_or(NO_SUCH)?.0;
                let prf = (hash != HashAlg::Sha1)
                    .then(|| AlgorithmIdentifierOwned { oid: prf, parameters: Some(Any::null()) });
                let kdf = Pbkdf2Params { salt, iterations: self.iterations, key_length: None, prf };
                let iv = OctetString::new(self.iv.clone()).map_err(|_| MALFORMED)?;
                let params = Pbes2Params {
                    kdf: AlgorithmIdentifierOwned { oid: PBKDF2, parameters: Some(any_of(&kdf)?) },
                    scheme: AlgorithmIdentifierOwned {
                        oid: cipher,
                        parameters: Some(any_of(&iv)?),
                    },
                };
                AlgorithmIdentifierOwned { oid: PBES2, parameters: Some(any_of(&params)?) }
            }
            Derivation::Pbkdf1(hash) => {
                let oid = PBES1
                    .iter()
                    .find(|(_, h, c, _)| *h == hash && *c == self.cipher)
                    .ok_or(NO_SUCH)?
                    .0;
                let params = PbeParameter { salt, iterations: self.iterations };
                AlgorithmIdentifierOwned { oid, parameters: Some(any_of(&params)?) }
            }
            Derivation::Pkcs12 => {
                let oid = PKCS12.iter().find(|(_, c, _)| *c == self.cipher).ok_or(NO_SUCH)?.0;
                let params = PbeParameter { salt, iterations: self.iterations };
                AlgorithmIdentifierOwned { oid, parameters: Some(any_of(&params)?) }
            }
        };
        alg.to_der().map_err(|_| MALFORMED)
    }

    /// What OpenSSL's `pkcs12 -info` prints of the scheme (its `alg_print`):
    /// `PBES2, PBKDF2, AES-256-CBC, Iteration 2048, PRF hmacWithSHA256` or
    /// `pbeWithSHA1And3-KeyTripleDES-CBC, Iteration 2048`.
    pub fn describe(&self) -> String {
        let iterations = self.iterations;
        match self.derivation {
            Derivation::Pbkdf2(hash) => {
                let cipher =
                    PBES2_CIPHERS.iter().find(|(_, c, _)| *c == self.cipher).map_or("?", |e| e.2);
                let prf = PRFS.iter().find(|(_, h, _)| *h == hash).map_or("?", |e| e.2);
                format!("PBES2, PBKDF2, {cipher}, Iteration {iterations}, PRF {prf}")
            }
            Derivation::Pbkdf1(hash) => {
                let name = PBES1
                    .iter()
                    .find(|(_, h, c, _)| *h == hash && *c == self.cipher)
                    .map_or("?", |e| e.3);
                format!("{name}, Iteration {iterations}")
            }
            Derivation::Pkcs12 => {
                let name = PKCS12.iter().find(|(_, c, _)| *c == self.cipher).map_or("?", |e| e.2);
                format!("{name}, Iteration {iterations}")
            }
        }
    }
}

/// The scheme's OpenSSL long name (for PKCS#12 and PBES1: `pbeWithSHA1And3-KeyTripleDES-CBC`)
/// or PBES2 cipher name (`AES-256-CBC`), for [`super::PbeScheme::from_name`].
pub(super) fn by_name(name: &str) -> Option<(Derivation, Cbc)> {
    PKCS12
        .iter()
        .find(|e| e.2.eq_ignore_ascii_case(name))
        .map(|&(_, c, _)| (Derivation::Pkcs12, c))
        .or_else(|| {
            PBES1
                .iter()
                .find(|e| e.3.eq_ignore_ascii_case(name))
                .map(|&(_, h, c, _)| (Derivation::Pbkdf1(h), c))
        })
        .or_else(|| {
            PBES2_CIPHERS
                .iter()
                .find(|e| e.2.eq_ignore_ascii_case(name))
                .map(|&(_, c, _)| (Derivation::Pbkdf2(HashAlg::Sha256), c))
        })
}

/// The PRF's OpenSSL name (`hmacWithSHA256`), for PBES2's `-v2prf`.
pub(super) fn prf_by_name(name: &str) -> Option<HashAlg> {
    PRFS.iter().find(|e| e.2.eq_ignore_ascii_case(name)).map(|&(_, h, _)| h)
}

/// Whether PBKDF2 has an OID for HMAC over `hash`.
pub(super) fn has_prf(hash: HashAlg) -> bool {
    PRFS.iter().any(|e| e.1 == hash)
}
