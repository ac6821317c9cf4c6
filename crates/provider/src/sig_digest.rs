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
