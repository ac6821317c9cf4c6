//! Which digests the provider's operations accept: those of OpenSSL's default provider,
//! and the legacy ones (MD2, MD4) only where the operator's configuration asks for them.
//!
//! OpenSSL 3 moved MD2 and MD4 into its legacy provider (migration_guide(7), "Legacy
//! Algorithms"): a program that has not loaded it cannot fetch them, so its default
//! provider's RSA signature refuses an MD4 signature (rsa_sig.c `rsa_setup_md`: "md4
//! could not be fetched"). Our provider hashes with the library's own digests and never
//! fetches one, so without this policy a configuration that prefers it for speed
//! (`?provider=cryptocard`) would quietly bring MD2 and MD4 back: `openssl verify` would
//! accept a certificate signed `md4WithRSAEncryption`, whose signature anyone who can
//! find an MD4 collision (a matter of seconds, Wang and others, EUROCRYPT 2005) can
//! transfer to a certificate of their choosing.
//!
//! So ours takes them only with `legacy-digests = yes` in its section of `openssl.cnf`
//! (read once, when the provider loads; any other value keeps them off), for the legacy
//! data and payment systems that still need them. The policy covers every digest an
//! operation names: the signature's, PSS's MGF1 digest, and OAEP's digest and MGF1
//! digest.

use crate::errors::{Failure, Outcome};
use crate::padding::digest_name;
use cryptocard::digest::HashAlg;

/// The provider's digest policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DigestPolicy {
    /// Whether MD2 and MD4 are taken (`legacy-digests = yes`).
    pub legacy: bool,
}

/// The configuration key that allows the legacy digests.
pub const LEGACY_DIGESTS_KEY: &core::ffi::CStr = c"legacy-digests";

impl DigestPolicy {
    /// The policy of the configuration's `legacy-digests` value, if it has one: the
    /// legacy digests for yes, true, on or 1 (in any case); none for anything else or
    /// no value, as OpenSSL's FIPS provider reads its switches (a typo keeps them off).
    pub fn from_config(value: Option<&str>) -> DigestPolicy {
        let yes = ["yes", "true", "on", "1"];
        let legacy = value.is_some_and(|v| yes.iter().any(|y| v.trim().eq_ignore_ascii_case(y)));
        DigestPolicy { legacy }
    }

    /// Whether OpenSSL keeps `alg` in its legacy provider. Not the library's
    /// [`HashAlg::is_legacy`], a judgement of strength that counts MD5, SHA-1 and
    /// RIPEMD-160 too: those are in OpenSSL's default provider, so they stay.
    fn is_legacy(alg: HashAlg) -> bool {
        matches!(alg, HashAlg::Md2 | HashAlg::Md4)
    }

    /// `alg`, if the policy takes it for `what` (a parameter's name, for the message).
    pub fn check(self, alg: HashAlg, what: &str) -> Outcome<HashAlg> {
        if DigestPolicy::is_legacy(alg) && !self.legacy {
            let name = digest_name(alg).to_string_lossy();
            let key = LEGACY_DIGESTS_KEY.to_string_lossy();
            return Err(Failure::param(format!(
                "{what}: {name} is a legacy digest; the cryptocard provider takes it only \
                 with `{key} = yes` in its configuration section"
            )));
        }
        Ok(alg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_digests_need_the_configuration() {
        let strict = DigestPolicy::default();
        let open = DigestPolicy { legacy: true };
        for alg in [HashAlg::Md2, HashAlg::Md4] {
            let err = strict.check(alg, "digest").unwrap_err();
            assert!(format!("{err:?}").contains("legacy-digests = yes"), "{err:?}");
            assert_eq!(open.check(alg, "digest").unwrap(), alg);
        }
        for alg in [HashAlg::Md5, HashAlg::Sha1, HashAlg::Sha256, HashAlg::Ripemd160] {
            assert_eq!(strict.check(alg, "digest").unwrap(), alg);
        }
    }

    #[test]
    fn configuration_values() {
        for v in ["yes", "YES", " true", "On", "1"] {
            assert!(DigestPolicy::from_config(Some(v)).legacy, "{v}");
        }
        for v in ["no", "False", "off", "0", "", "maybe", "2", "yes please"] {
            assert!(!DigestPolicy::from_config(Some(v)).legacy, "{v}");
        }
        assert!(!DigestPolicy::from_config(None).legacy);
    }
}
