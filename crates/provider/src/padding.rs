//! The `pad-mode`, digest and `saltlen` parameter values shared by the signature and
//! asymmetric cipher contexts, in the forms OpenSSL sends them: a string (from
//! `-pkeyopt rsa_padding_mode:pss`, `-sigopt rsa_pss_saltlen:max`) or an integer (from
//! `EVP_PKEY_CTX_set_rsa_padding`, `EVP_PKEY_CTX_set_rsa_pss_saltlen`); <openssl/rsa.h>
//! and <openssl/core_names.h> give both spellings.

use crate::errors::{Failure, Outcome};
use crate::ossl;
use crate::params::Param;
use cryptocard::digest::HashAlg;

/// RSA padding modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pad {
    /// `RSA_NO_PADDING`, "none".
    None,
    /// `RSA_PKCS1_PADDING`, "pkcs1".
    Pkcs1,
    /// `RSA_PKCS1_OAEP_PADDING`, "oaep".
    Oaep,
    /// `RSA_X931_PADDING`, "x931" (signatures only).
    X931,
    /// `RSA_PKCS1_PSS_PADDING`, "pss".
    Pss,
    /// `RSA_PKCS1_WITH_TLS_PADDING`, "pkcs1-tls": the PreMasterSecret of TLS 1.2's RSA key
    /// exchange (decryption only).
    Tls,
}

impl Pad {
    /// The number of <openssl/rsa.h>.
    pub fn number(self) -> i64 {
        match self {
            Pad::None => ossl::RSA_NO_PADDING,
            Pad::Pkcs1 => ossl::RSA_PKCS1_PADDING,
            Pad::Oaep => ossl::RSA_PKCS1_OAEP_PADDING,
            Pad::X931 => ossl::RSA_X931_PADDING,
            Pad::Pss => ossl::RSA_PKCS1_PSS_PADDING,
            Pad::Tls => ossl::RSA_PKCS1_WITH_TLS_PADDING,
        }
    }

    /// The name of <openssl/core_names.h>.
    pub fn name(self) -> &'static core::ffi::CStr {
        match self {
            Pad::None => c"none",
            Pad::Pkcs1 => c"pkcs1",
            Pad::Oaep => c"oaep",
            Pad::X931 => c"x931",
            Pad::Pss => c"pss",
            Pad::Tls => c"pkcs1-tls",
        }
    }

    fn from_number(n: i64) -> Option<Pad> {
        [Pad::None, Pad::Pkcs1, Pad::Oaep, Pad::X931, Pad::Pss, Pad::Tls]
            .into_iter()
            .find(|p| p.number() == n)
    }

    fn from_name(s: &str) -> Option<Pad> {
        match s {
            "none" => Some(Pad::None),
            "pkcs1" => Some(Pad::Pkcs1),
            // OpenSSL 3.0 accepts its old misspelling too.
            "oaep" | "oeap" => Some(Pad::Oaep),
            "x931" => Some(Pad::X931),
            "pss" => Some(Pad::Pss),
            _ => None,
        }
    }

    /// A `pad-mode` parameter, string or integer.
    pub fn from_param(p: &Param<'_>) -> Outcome<Pad> {
        let pad = if p.is_utf8() {
            let s = p.get_utf8().ok_or_else(|| Failure::param("pad-mode: not a string"))?;
            Pad::from_name(s).ok_or_else(|| Failure::param(format!("unknown pad-mode {s:?}")))?
        } else {
            let n = p.get_i64().ok_or_else(|| Failure::param("pad-mode: not an integer"))?;
            Pad::from_number(n).ok_or_else(|| Failure::param(format!("unknown pad-mode {n}")))?
        };
        Ok(pad)
    }

    /// Writes the mode into a get parameter: its name or its number, as asked.
    pub fn to_param(self, p: &mut Param<'_>) -> bool {
        if p.is_utf8() { p.set_utf8(self.name()) } else { p.set_i64(self.number()) }
    }
}

/// A digest parameter: an OpenSSL name ("SHA256", "SHA2-256", "sha1", ...).
pub fn digest_from_param(p: &Param<'_>, what: &str) -> Outcome<HashAlg> {
    let name = p.get_utf8().ok_or_else(|| Failure::param(format!("{what}: not a string")))?;
    HashAlg::from_name(name).map_err(|_| Failure::param(format!("{what}: unknown digest {name:?}")))
}

/// OpenSSL's name for a digest, for get_ctx_params.
pub fn digest_name(alg: HashAlg) -> &'static core::ffi::CStr {
    match alg {
        HashAlg::Md2 => c"MD2",
        HashAlg::Md4 => c"MD4",
        HashAlg::Md5 => c"MD5",
        HashAlg::Sha1 => c"SHA1",
        HashAlg::Sha224 => c"SHA2-224",
        HashAlg::Sha256 => c"SHA2-256",
        HashAlg::Sha384 => c"SHA2-384",
        HashAlg::Sha512 => c"SHA2-512",
        HashAlg::Sha512_224 => c"SHA2-512/224",
        HashAlg::Sha512_256 => c"SHA2-512/256",
        HashAlg::Sha3_224 => c"SHA3-224",
        HashAlg::Sha3_256 => c"SHA3-256",
        HashAlg::Sha3_384 => c"SHA3-384",
        HashAlg::Sha3_512 => c"SHA3-512",
        HashAlg::Ripemd160 => c"RIPEMD-160",
    }
}

/// The PSS salt length as OpenSSL sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Salt {
    /// "digest", -1: the digest's length.
    Digest,
    /// "max", -3: the largest that fits.
    Max,
    /// "auto", -2: the maximum when signing, read from the signature when verifying.
    Auto,
    /// "auto-digestmax", -4 (OpenSSL 3.1): the digest length (or less, if it does not
    /// fit) when signing, read from the signature when verifying.
    AutoDigestMax,
    /// A number of bytes.
    Exact(usize),
}

impl Salt {
    /// A `saltlen` parameter, string or integer.
    pub fn from_param(p: &Param<'_>) -> Outcome<Salt> {
        let n = if p.is_utf8() {
            let s = p.get_utf8().ok_or_else(|| Failure::param("saltlen: not a string"))?;
            match s {
                "digest" => return Ok(Salt::Digest),
                "max" => return Ok(Salt::Max),
                "auto" => return Ok(Salt::Auto),
                "auto-digestmax" => return Ok(Salt::AutoDigestMax),
                _ => s.parse::<i64>().map_err(|_| Failure::param(format!("bad saltlen {s:?}")))?,
            }
        } else {
            p.get_i64().ok_or_else(|| Failure::param("saltlen: not an integer"))?
        };
        match n {
            ossl::RSA_PSS_SALTLEN_DIGEST => Ok(Salt::Digest),
            ossl::RSA_PSS_SALTLEN_AUTO => Ok(Salt::Auto),
            ossl::RSA_PSS_SALTLEN_MAX => Ok(Salt::Max),
            ossl::RSA_PSS_SALTLEN_AUTO_DIGEST_MAX => Ok(Salt::AutoDigestMax),
            0..=65536 => Ok(Salt::Exact(n as usize)),
            _ => Err(Failure::param(format!("bad saltlen {n}"))),
        }
    }

    /// Writes the salt length into a get parameter: a name or a number, as asked.
    pub fn to_param(self, p: &mut Param<'_>) -> bool {
        let (name, number): (&'static core::ffi::CStr, i64) = match self {
            Salt::Digest => (c"digest", ossl::RSA_PSS_SALTLEN_DIGEST),
            Salt::Max => (c"max", ossl::RSA_PSS_SALTLEN_MAX),
            Salt::Auto => (c"auto", ossl::RSA_PSS_SALTLEN_AUTO),
            Salt::AutoDigestMax => (c"auto-digestmax", ossl::RSA_PSS_SALTLEN_AUTO_DIGEST_MAX),
            Salt::Exact(n) => {
                if p.is_utf8() {
                    return p.set_utf8_copy(n.to_string().as_bytes());
                }
                return p.set_i64(n as i64);
            }
        };
        if p.is_utf8() { p.set_utf8(name) } else { p.set_i64(number) }
    }
}
