//! The digests of RSA signatures: the library's ([`HashAlg`]), and TLS 1.0 and 1.1's
//! MD5-SHA1 (RFC 2246 section 7.4.3, RFC 4346 section 7.4.3): the MD5 and the SHA-1 of
//! the same data, concatenated into 36 bytes, which PKCS#1 v1.5 signs without a
//! DigestInfo (it has no OID; OpenSSL's `NID_md5_sha1`). OpenSSL's TLS stack signs
//! ServerKeyExchange and CertificateVerify with it below TLS 1.2, so a server preferring
//! our provider needs it for those versions.

use crate::errors::{Failure, Outcome};
use crate::padding::{digest_from_param, digest_name};
use crate::params::Param;
use core::ffi::CStr;
use cryptocard::digest::{HashAlg, Hasher, Md5, Sha1};

/// A signature's digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigMd {
    /// One of the library's digests.
    Hash(HashAlg),
    /// MD5 || SHA-1, for TLS 1.0 and 1.1.
    Md5Sha1,
}

impl SigMd {
    /// The length of MD5-SHA1's output.
    const MD5_SHA1_LEN: usize = 16 + 20;

    /// A digest by any name OpenSSL or a user gives it ("SHA256", "sha2-256", "MD5-SHA1").
    pub fn from_name(name: &str) -> Outcome<SigMd> {
        if name.eq_ignore_ascii_case("MD5-SHA1") {
            return Ok(SigMd::Md5Sha1);
        }
        HashAlg::from_name(name)
            .map(SigMd::Hash)
            .map_err(|_| Failure::param(format!("unknown digest {name:?}")))
    }

    /// A digest parameter (`digest`), by name.
    pub fn from_param(p: &Param<'_>) -> Outcome<SigMd> {
        match p.get_utf8() {
            Some(name) if name.eq_ignore_ascii_case("MD5-SHA1") => Ok(SigMd::Md5Sha1),
            _ => digest_from_param(p, "digest").map(SigMd::Hash),
        }
    }

    /// OpenSSL's name for it, for get_ctx_params.
    pub fn name(self) -> &'static CStr {
        match self {
            SigMd::Hash(alg) => digest_name(alg),
            SigMd::Md5Sha1 => c"MD5-SHA1",
        }
    }

    /// The library's digest, if it is one (not MD5-SHA1).
    pub fn hash(self) -> Option<HashAlg> {
        match self {
            SigMd::Hash(alg) => Some(alg),
            SigMd::Md5Sha1 => None,
        }
    }

    /// The output length in bytes.
    pub fn output_len(self) -> usize {
        self.hash().map_or(Self::MD5_SHA1_LEN, HashAlg::output_len)
    }

    /// The DER `AlgorithmIdentifier` of PKCS#1 v1.5 signatures with this digest: the
    /// `<digest>WithRSAEncryption` OID and NULL parameters, for every digest OpenSSL's
    /// default provider names (providers/implementations/signature/rsa_sig.c, through
    /// `ossl_rsa_algorithmidentifier_encoding`); `None` for MD5-SHA1, which has none.
    ///
    /// The OIDs: RFC 8017 appendix A.2.4 (MD2, MD5, SHA-1, SHA-2), RFC 3279 section
    /// 2.2.1 (MD4's `md4WithRSAEncryption`), the NIST Computer Security Objects Register
    /// (`id-rsassa-pkcs1-v1_5-with-sha3-*`) and TeleTrusT's `rsaSignatureWithripemd160`.
    /// `cryptocard-pki` names fewer, since it also verifies with its list: this is what a
    /// program asks the provider to write, under its own policy.
    pub fn pkcs1_algorithm_id(self) -> Option<Vec<u8>> {
        let oid = match self.hash()? {
            HashAlg::Md2 => "1.2.840.113549.1.1.2",
            HashAlg::Md4 => "1.2.840.113549.1.1.3",
            HashAlg::Md5 => "1.2.840.113549.1.1.4",
            HashAlg::Sha1 => "1.2.840.113549.1.1.5",
            HashAlg::Sha224 => "1.2.840.113549.1.1.14",
            HashAlg::Sha256 => "1.2.840.113549.1.1.11",
            HashAlg::Sha384 => "1.2.840.113549.1.1.12",
            HashAlg::Sha512 => "1.2.840.113549.1.1.13",
            HashAlg::Sha512_224 => "1.2.840.113549.1.1.15",
            HashAlg::Sha512_256 => "1.2.840.113549.1.1.16",
            HashAlg::Sha3_224 => "2.16.840.1.101.3.4.3.13",
            HashAlg::Sha3_256 => "2.16.840.1.101.3.4.3.14",
            HashAlg::Sha3_384 => "2.16.840.1.101.3.4.3.15",
            HashAlg::Sha3_512 => "2.16.840.1.101.3.4.3.16",
            HashAlg::Ripemd160 => "1.3.36.3.3.1.2",
        };
        let oid = der::asn1::ObjectIdentifier::new(oid).ok()?;
        let body = oid.as_bytes();
        // SEQUENCE { OBJECT IDENTIFIER, NULL }: every length here is below 128.
        let mut der = vec![0x30, (2 + body.len() + 2) as u8, 0x06, body.len() as u8];
        der.extend_from_slice(body);
        der.extend_from_slice(&[0x05, 0x00]);
        Some(der)
    }
}

/// The running hash of a digest-sign or digest-verify.
#[derive(Clone, Debug)]
pub enum SigHasher {
    /// One of the library's.
    Hash(Hasher),
    /// MD5 and SHA-1 over the same data.
    Md5Sha1(Md5, Sha1),
}

impl SigHasher {
    /// A hasher for `md`.
    pub fn new(md: SigMd) -> SigHasher {
        match md {
            SigMd::Hash(alg) => SigHasher::Hash(Hasher::new(alg)),
            SigMd::Md5Sha1 => SigHasher::Md5Sha1(Md5::new(), Sha1::new()),
        }
    }

    /// Its digest.
    pub fn md(&self) -> SigMd {
        match self {
            SigHasher::Hash(h) => SigMd::Hash(h.alg()),
            SigHasher::Md5Sha1(..) => SigMd::Md5Sha1,
        }
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        match self {
            SigHasher::Hash(h) => h.update(data),
            SigHasher::Md5Sha1(md5, sha1) => {
                md5.update(data);
                sha1.update(data);
            }
        }
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> Vec<u8> {
        match self {
            SigHasher::Hash(h) => h.finalize().as_bytes().to_vec(),
            SigHasher::Md5Sha1(md5, sha1) => [&md5.finalize()[..], &sha1.finalize()].concat(),
        }
    }
}
