//! The restrictions an RSA-PSS key may carry: the RSASSA-PSS-params of its
//! AlgorithmIdentifier (RFC 4055 section 3.1; RFC 8017 appendix A.2.3), which name the one
//! digest and MGF1 digest it signs with and the least salt length. A key without them
//! signs with any.
//!
//! OpenSSL moves them between key managements as the key parameters `digest`, `mgf`,
//! `mgf1-digest` and `saltlen` (crypto/rsa/rsa_backend.c `ossl_rsa_pss_params_30_todata`
//! and `_fromdata`): any of them makes the key restricted, the missing ones taking RFC
//! 4055's defaults (SHA-1, MGF1 with SHA-1, 20 bytes). Its encoder writes them into the
//! key file, its signature context signs under them (see `sig_ctx.rs`), and `openssl req`
//! and `EVP_DigestSignInit` without a digest take the key's `mandatory-digest`.

use crate::errors::{Failure, Outcome};
use crate::ossl::names;
use crate::padding::{digest_from_param, digest_name};
use crate::params::{Builder, Param};
use cryptocard::digest::HashAlg;

/// The one mask generation function PSS defines (RFC 8017 B.2.1), by OpenSSL's name.
const MGF1: &str = "MGF1";

/// An RSA-PSS key's restrictions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PssRestriction {
    /// The only digest the key signs.
    pub md: HashAlg,
    /// The only MGF1 digest.
    pub mgf1: HashAlg,
    /// The least salt length, in bytes.
    pub min_salt: usize,
}

impl Default for PssRestriction {
    /// RFC 4055 section 3.1's defaults: SHA-1, MGF1 with SHA-1, 20 bytes of salt.
    fn default() -> PssRestriction {
        PssRestriction { md: HashAlg::Sha1, mgf1: HashAlg::Sha1, min_salt: 20 }
    }
}

impl PssRestriction {
    /// The restrictions among key parameters `params` (an import or a key generation's
    /// settings), over `base` (the defaults, or what earlier settings gave); `None` if
    /// none of their names is there and there was no `base`.
    pub fn from_params(
        params: &[Param<'_>],
        base: Option<PssRestriction>,
    ) -> Outcome<Option<PssRestriction>> {
        let find = |name: &core::ffi::CStr| params.iter().find(|p| p.key() == name.to_bytes());
        let (md, mgf, mgf1, salt) = (
            find(names::DIGEST),
            find(names::MASKGENFUNC),
            find(names::MGF1_DIGEST),
            find(names::SALTLEN),
        );
        if base.is_none() && md.is_none() && mgf.is_none() && mgf1.is_none() && salt.is_none() {
            return Ok(None);
        }
        let mut r = base.unwrap_or_default();
        if let Some(p) = mgf {
            let name = p.get_utf8().ok_or_else(|| Failure::param("mgf: not a string"))?;
            if !name.eq_ignore_ascii_case(MGF1) {
                return Err(Failure::param(format!("mgf: {name:?} is not MGF1")));
            }
        }
        if let Some(p) = md {
            r.md = digest_from_param(p, "digest")?;
        }
        if let Some(p) = mgf1 {
            r.mgf1 = digest_from_param(p, "mgf1-digest")?;
        }
        if let Some(p) = salt {
            let n = p.get_i64().ok_or_else(|| Failure::param("saltlen: not an integer"))?;
            r.min_salt = usize::try_from(n)
                .ok()
                .filter(|&n| n <= 65536)
                .ok_or_else(|| Failure::param(format!("saltlen: {n}")))?;
        }
        Ok(Some(r))
    }

    /// Adds the restrictions to an export, as OpenSSL writes them: the digests that are
    /// not the defaults, and the salt length always (so that the receiver sees a
    /// restricted key even when every value is a default).
    pub fn push_params(&self, b: &mut Builder) {
        if self.md != HashAlg::Sha1 {
            b.push_utf8(names::DIGEST, digest_name(self.md));
        }
        if self.mgf1 != HashAlg::Sha1 {
            b.push_utf8(names::MGF1_DIGEST, digest_name(self.mgf1));
        }
        b.push_int(names::SALTLEN, i32::try_from(self.min_salt).unwrap_or(i32::MAX));
    }

    /// Answers a key parameter OpenSSL asks a restricted key for (`EVP_PKEY_get_params`):
    /// `None` if `p` is not one of them.
    pub fn answer(&self, p: &mut Param<'_>) -> Option<bool> {
        Some(match p.key() {
            b"mandatory-digest" | b"default-digest" | b"digest" => p.set_utf8(digest_name(self.md)),
            b"mgf1-digest" => p.set_utf8(digest_name(self.mgf1)),
            b"mgf" => p.set_utf8(c"MGF1"),
            b"saltlen" => p.set_i64(self.min_salt as i64),
            _ => return None,
        })
    }
}
