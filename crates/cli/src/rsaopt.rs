//! RSA operation parameters as OpenSSL spells them in `-pkeyopt` (pkeyutl) and `-sigopt`
//! (dgst), with OpenSSL 3.0's defaults:
//!
//! | option | values | default |
//! |---|---|---|
//! | `rsa_padding_mode` | `pkcs1`, `pss`, `oaep`, `none` | `pkcs1` |
//! | `digest` | a digest name | none (PSS: SHA-1) |
//! | `rsa_pss_saltlen` | `digest` (-1), `auto` (-2), `max` (-3), or a byte count | signing: `max`; verifying: `auto` |
//! | `rsa_mgf1_md` | a digest name | the signature or OAEP digest |
//! | `rsa_oaep_md` | a digest name | SHA-1 (RFC 8017's default) |
//! | `rsa_oaep_label` | hex | empty |
//! | `rsa_pkcs1_implicit_rejection` | `0`, `1` | `1` (see below) |
//!
//! PKCS#1 v1.5 decryption uses implicit rejection by default, as OpenSSL 3.2 and later
//! do: a ciphertext whose padding is bad decrypts to a deterministic pseudo-random message
//! derived from the key and the ciphertext (draft-irtf-cfrg-rsa-guidance, its "implicit
//! rejection" section, which `cryptocard::rsa` implements), instead of failing. An error
//! that tells a bad padding from a good one is the oracle of Bleichenbacher's attack
//! (CRYPTO '98), and the Marvin attack (Kario, 2023) showed that even the time taken to
//! handle that error serves as one: whoever can submit ciphertexts to a decrypting script
//! and watch its exit status, or its timing, can decrypt any ciphertext for that key.
//! `rsa_pkcs1_implicit_rejection:0` asks for the explicit error (OpenSSL 3.0's
//! behaviour), where no such adversary exists and a script must learn that the file did
//! not decrypt. A ciphertext of the wrong length is an error either way (RFC 8017 7.2.2
//! step 1: the length is public).

use crate::fail::{CmdResult, Fail};
use crate::hex;
use cryptocard::digest::HashAlg;
use cryptocard::rsa::{Oaep, Pss, SaltLength};

/// The padding scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// PKCS#1 v1.5 (RFC 8017 sections 7.2 and 8.2).
    Pkcs1,
    /// RSASSA-PSS (section 8.1).
    Pss,
    /// RSAES-OAEP (section 7.1).
    Oaep,
    /// No padding: raw RSA on k-byte blocks.
    None,
    /// ANSI X9.31 signatures of a SHA-1 or SHA-2 digest (`rsa::x931`).
    X931,
}

/// `rsa_pss_saltlen` as given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Salt {
    Digest,
    Auto,
    Max,
    Exact(usize),
}

/// Everything `-pkeyopt`/`-sigopt` set.
#[derive(Clone, Debug, Default)]
pub struct RsaOpts {
    /// `rsa_padding_mode`.
    pub padding: Option<Padding>,
    /// `digest`.
    pub digest: Option<HashAlg>,
    salt: Option<Salt>,
    mgf1: Option<HashAlg>,
    oaep_md: Option<HashAlg>,
    label: Option<Vec<u8>>,
    /// `rsa_pkcs1_implicit_rejection:0`: report bad PKCS#1 v1.5 padding as an error.
    pub explicit_rejection: bool,
}

fn digest(v: &str, flag: &str) -> CmdResult<HashAlg> {
    HashAlg::from_name(v).map_err(|_| Fail::msg(format!("-{flag}: unknown digest '{v}'")))
}

impl RsaOpts {
    /// Parses `OPT:VALUE` words of `-flag`.
    pub fn parse(opts: &[&str], flag: &str) -> CmdResult<RsaOpts> {
        let mut o = RsaOpts::default();
        for opt in opts {
            let (k, v) = opt
                .split_once(':')
                .ok_or_else(|| Fail::msg(format!("-{flag} '{opt}': expected OPT:VALUE")))?;
            let bad = || Fail::msg(format!("-{flag} {k}: invalid value '{v}'"));
            match k {
                "rsa_padding_mode" => {
                    o.padding = Some(match v {
                        "pkcs1" => Padding::Pkcs1,
                        "pss" => Padding::Pss,
                        "oaep" | "oeap" => Padding::Oaep,
                        "none" => Padding::None,
                        "x931" => Padding::X931,
                        _ => return Err(bad()),
                    })
                }
                "digest" => o.digest = Some(digest(v, flag)?),
                "rsa_pss_saltlen" => {
                    o.salt = Some(match v {
                        "digest" | "-1" => Salt::Digest,
                        "auto" | "-2" => Salt::Auto,
                        "max" | "-3" => Salt::Max,
                        n => Salt::Exact(n.parse().map_err(|_| bad())?),
                    })
                }
                "rsa_mgf1_md" => o.mgf1 = Some(digest(v, flag)?),
                "rsa_oaep_md" => o.oaep_md = Some(digest(v, flag)?),
                "rsa_oaep_label" => {
                    o.label = Some(
                        hex::decode(v)
                            .map_err(|e| Fail::msg(format!("-{flag} rsa_oaep_label: {e}")))?,
                    )
                }
                "rsa_pkcs1_implicit_rejection" => {
                    o.explicit_rejection = match v {
                        "0" => true,
                        "1" => false,
                        _ => return Err(bad()),
                    }
                }
                _ => return Err(Fail::msg(format!("-{flag}: unknown RSA option '{k}'"))),
            }
        }
        Ok(o)
    }

    /// The padding, PKCS#1 v1.5 unless set.
    pub fn padding(&self) -> Padding {
        self.padding.unwrap_or(Padding::Pkcs1)
    }

    /// PSS parameters over `hash` (the message digest) for signing or verifying.
    pub fn pss(&self, hash: HashAlg, signing: bool) -> Pss {
        let salt = match (self.salt, signing) {
            (Some(Salt::Digest), _) => SaltLength::DigestLength,
            (Some(Salt::Max), _) => SaltLength::Maximum,
            (Some(Salt::Exact(n)), _) => SaltLength::Exact(n),
            (Some(Salt::Auto) | None, true) => SaltLength::Maximum,
            (Some(Salt::Auto) | None, false) => SaltLength::Auto,
        };
        Pss::new(hash).with_mgf1(self.mgf1.unwrap_or(hash)).with_salt(salt)
    }

    /// OAEP parameters.
    pub fn oaep(&self) -> Oaep {
        let md = self.oaep_md.unwrap_or(HashAlg::Sha1);
        let mut o = Oaep::new(md).with_mgf1(self.mgf1.unwrap_or(md));
        if let Some(l) = &self.label {
            o = o.with_label(l);
        }
        o
    }

    /// Fails if options were set that `padding` does not use (OpenSSL refuses them too).
    pub fn check_for(&self, padding: Padding, flag: &str) -> CmdResult {
        let pss_only = self.salt.is_some();
        let oaep_only = self.oaep_md.is_some() || self.label.is_some();
        let mgf = self.mgf1.is_some();
        let bad = match padding {
            Padding::Pss => oaep_only,
            Padding::Oaep => pss_only,
            Padding::Pkcs1 | Padding::None | Padding::X931 => pss_only || oaep_only || mgf,
        };
        if bad {
            return Err(Fail::msg(format!(
                "-{flag}: option not valid with rsa_padding_mode:{}",
                match padding {
                    Padding::Pkcs1 => "pkcs1",
                    Padding::Pss => "pss",
                    Padding::Oaep => "oaep",
                    Padding::None => "none",
                    Padding::X931 => "x931",
                }
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_openssl_spellings_with_openssl_defaults() {
        let o = RsaOpts::parse(
            &["rsa_padding_mode:pss", "rsa_pss_saltlen:-1", "rsa_mgf1_md:sha1"],
            "x",
        )
        .unwrap();
        assert_eq!(o.padding(), Padding::Pss);
        assert_eq!(
            o.pss(HashAlg::Sha256, true),
            Pss::new(HashAlg::Sha256).with_mgf1(HashAlg::Sha1).with_salt(SaltLength::DigestLength)
        );
        let d = RsaOpts::parse(&[], "x").unwrap();
        assert_eq!(d.padding(), Padding::Pkcs1);
        assert!(!d.explicit_rejection, "implicit rejection by default, as OpenSSL 3.2+");
        let ex = RsaOpts::parse(&["rsa_pkcs1_implicit_rejection:0"], "x").unwrap();
        assert!(ex.explicit_rejection);
        let ir = RsaOpts::parse(&["rsa_pkcs1_implicit_rejection:1"], "x").unwrap();
        assert!(!ir.explicit_rejection);
        assert_eq!(
            d.pss(HashAlg::Sha1, true),
            Pss::new(HashAlg::Sha1).with_salt(SaltLength::Maximum)
        );
        assert_eq!(
            d.pss(HashAlg::Sha1, false),
            Pss::new(HashAlg::Sha1).with_salt(SaltLength::Auto)
        );
        let oaep =
            RsaOpts::parse(&["rsa_oaep_md:sha256", "rsa_oaep_label:0102"], "x").unwrap().oaep();
        assert_eq!(oaep, Oaep::new(HashAlg::Sha256).with_label(&[1, 2]));
        assert_eq!(d.oaep(), Oaep::new(HashAlg::Sha1));
    }

    #[test]
    fn bad_options_are_one_line() {
        for (opt, want) in [
            ("rsa_padding_mode:x962", "invalid value 'x962'"),
            ("rsa_pss_saltlen:lots", "invalid value 'lots'"),
            ("rsa_oaep_md:nope", "unknown digest 'nope'"),
            ("rsa_oaep_label:zz", "rsa_oaep_label"),
            ("colour:red", "unknown RSA option 'colour'"),
            ("nocolon", "expected OPT:VALUE"),
        ] {
            let e = RsaOpts::parse(&[opt], "pkeyopt").unwrap_err().to_string();
            assert!(e.contains(want), "{opt}: {e}");
        }
        let o = RsaOpts::parse(&["rsa_pss_saltlen:20"], "x").unwrap();
        assert!(o.check_for(Padding::Pkcs1, "x").is_err());
        assert!(o.check_for(Padding::Pss, "x").is_ok());
    }
}
