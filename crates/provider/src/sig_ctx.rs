//! The signature context behind OpenSSL's RSA `EVP_SIGNATURE` (provider-signature(7)):
//! its parameters and the operations, in plain Rust. `signature.rs` is the C side.
//!
//! It follows OpenSSL's own RSA signature (providers/implementations/signature/rsa_sig.c)
//! where the caller can see it: PKCS#1 v1.5 by default; with a digest set, the input of
//! `sign` is a digest and is wrapped in its DigestInfo (RFC 8017 9.2), without one it is
//! padded as it is (`openssl pkeyutl -sign` without `-digest`); PSS takes SHA-1 when no
//! digest was set, MGF1 over the signature digest unless told otherwise, and any salt
//! when verifying; no padding takes exactly k bytes; ANSI X9.31 (`x931`) signs a SHA-1
//! or SHA-2 digest, which must be set, since the signature names it; TLS 1.0/1.1's
//! MD5-SHA1 (`sig_digest`) signs with PKCS#1 v1.5 and no DigestInfo. Verify-recover
//! (`openssl pkeyutl -verifyrecover`) gives back the digest, or without one the data
//! inside the padding. Private operations go through
//! [`crate::dispatch::run_private`]. MD2 and MD4, which OpenSSL keeps in its legacy
//! provider, are refused as digests of any kind unless the provider's configuration
//! allows them ([`crate::digest_policy`]).
//!
//! The default PSS salt when signing is the one of the libcrypto the provider is loaded
//! into, since that is what its callers expect: OpenSSL 3.0 signs with the maximum salt
//! (`RSA_PSS_SALTLEN_AUTO`), OpenSSL 3.1 and later with at most the digest's length
//! (`RSA_PSS_SALTLEN_AUTO_DIGEST_MAX`, FIPS 186-4 section 5.5; rsa_sig.c `rsa_newctx`).
//! The provider reads the core's version when loaded ([`crate::provider`]) and gives
//! each context that default ([`SigCtx::with_default_salt`]); without one, the later
//! behaviour.

use crate::digest_policy::DigestPolicy;
use crate::dispatch::run_private;
use crate::errors::{Failure, Outcome, Reason};
use crate::key::KeyData;
use crate::padding::{Pad, Salt};
use crate::pss_key::PssRestriction;
use crate::sig_digest::{SigHasher, SigMd};
use crate::stats::{self, Op};
use cryptocard::digest::HashAlg;
use cryptocard::rsa::{PrivateRequest, Pss, SaltLength};
use cryptocard_pki::sig::SigScheme;
use std::sync::Arc;

/// What the context was initialised for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Not yet initialised.
    None,
    /// sign / digest_sign.
    Sign,
    /// verify / digest_verify.
    Verify,
    /// verify_recover.
    VerifyRecover,
}

/// An RSA signature context.
#[derive(Clone, Debug)]
pub struct SigCtx {
    key: Option<Arc<KeyData>>,
    purpose: Purpose,
    /// The padding mode.
    pub pad: Pad,
    /// The signature digest, if set.
    pub md: Option<SigMd>,
    /// The MGF1 digest for PSS, if set (else `md`).
    pub mgf1: Option<HashAlg>,
    /// The PSS salt length.
    pub salt: Salt,
    /// The salt length every init starts from (see the module docs).
    default_salt: Salt,
    /// The running hash of digest_sign / digest_verify.
    hasher: Option<SigHasher>,
    /// The restrictions of the RSA-PSS key, if it has any: its digests are the only
    /// ones, its salt length the least (and the default).
    restriction: Option<PssRestriction>,
    /// The digests the provider's configuration takes (`digest_policy`).
    digests: DigestPolicy,
}

impl Default for SigCtx {
    /// A context with OpenSSL 3.1's default salt, `auto-digestmax`.
    fn default() -> SigCtx {
        SigCtx::with_default_salt(Salt::AutoDigestMax)
    }
}

impl SigCtx {
    /// A context whose inits start from the PSS salt length `salt` (`Salt::Auto` in
    /// OpenSSL 3.0, `Salt::AutoDigestMax` since 3.1).
    pub fn with_default_salt(salt: Salt) -> SigCtx {
        SigCtx {
            key: None,
            purpose: Purpose::None,
            pad: Pad::Pkcs1,
            md: None,
            mgf1: None,
            salt,
            default_salt: salt,
            hasher: None,
            restriction: None,
            digests: DigestPolicy::default(),
        }
    }

    /// The same context with the digest policy `digests` (the default takes no legacy
    /// digests), kept through every init.
    pub fn with_digest_policy(self, digests: DigestPolicy) -> SigCtx {
        SigCtx { digests, ..self }
    }

    /// sign_init / verify_init: a fresh context on `key`.
    pub fn init(&mut self, key: Arc<KeyData>, purpose: Purpose) -> Outcome<()> {
        let ok = if purpose == Purpose::Sign { key.has(true, true) } else { key.has(false, true) };
        if !ok {
            return Err(Failure::new(Reason::InvalidKey, "no key, or no private key to sign"));
        }
        // An RSA-PSS key signs with PSS only (and its hash is SHA-1 until set, as
        // RFC 4055's defaults).
        let pad = if key.pss { Pad::Pss } else { Pad::Pkcs1 };
        let md = key.pss.then_some(SigMd::Hash(HashAlg::Sha1));
        let restriction = key.restriction();
        *self = SigCtx {
            key: Some(key),
            purpose,
            pad,
            md,
            ..SigCtx::with_default_salt(self.default_salt).with_digest_policy(self.digests)
        };
        // A restricted key signs with its digests and, unless told a longer one, its
        // least salt length (rsa_sig.c `rsa_signverify_init`), which must fit the key.
        if let Some(r) = restriction {
            let bits = self.key()?.public().map_or(0, |p| p.bits());
            if r.min_salt > max_salt(bits, r.md) {
                return Err(Failure::new(
                    Reason::InvalidKey,
                    "the key's salt length does not fit it",
                ));
            }
            self.md = Some(SigMd::Hash(self.digests.check(r.md, "the key's digest")?));
            self.mgf1 = Some(self.digests.check(r.mgf1, "the key's mgf1-digest")?);
            self.salt = Salt::Exact(r.min_salt);
            self.restriction = Some(r);
        }
        Ok(())
    }

    /// digest_sign_init / digest_verify_init: [`SigCtx::init`] and the digest (SHA-256
    /// if none is named, the key's default digest).
    pub fn init_digest(
        &mut self,
        key: Arc<KeyData>,
        purpose: Purpose,
        md: Option<&str>,
    ) -> Outcome<()> {
        self.init(key, purpose)?;
        let md = match md.filter(|m| !m.is_empty()) {
            Some(name) => SigMd::from_name(name)?,
            // A restricted key's mandatory digest, else the default.
            None => SigMd::Hash(self.restriction.map_or(HashAlg::Sha256, |r| r.md)),
        };
        self.set_md(md)?;
        self.check_digest()?;
        self.hasher = Some(SigHasher::new(md));
        Ok(())
    }

    /// Sets the pad mode (checked against the purpose as OpenSSL does).
    pub fn set_pad(&mut self, pad: Pad) -> Outcome<()> {
        if pad != Pad::Pss && self.key.as_ref().is_some_and(|k| k.pss) {
            return Err(Failure::param("an RSA-PSS key signs with pad-mode pss only"));
        }
        match pad {
            Pad::Pkcs1 | Pad::None => {}
            Pad::Pss => {
                if self.md.is_none() {
                    self.md = Some(SigMd::Hash(HashAlg::Sha1));
                }
            }
            // Checked with the digest once all parameters are set (`check_digest`).
            Pad::X931 => {}
            Pad::Oaep | Pad::Tls => {
                return Err(Failure::param("pad-mode: not a signature padding"));
            }
        }
        if pad == Pad::Pss && self.purpose == Purpose::VerifyRecover {
            return Err(Failure::param("pad-mode pss cannot recover the message"));
        }
        if pad == Pad::None && self.hasher.is_some() {
            return Err(Failure::param("pad-mode none with a digest"));
        }
        self.pad = pad;
        Ok(())
    }

    /// Sets the signature digest (not in the middle of a digest_sign with another), if
    /// the digest policy takes it.
    pub fn set_md(&mut self, md: SigMd) -> Outcome<()> {
        if let SigMd::Hash(alg) = md {
            self.digests.check(alg, "digest")?;
        }
        if let Some(h) = &self.hasher
            && h.md() != md
        {
            return Err(Failure::param("digest cannot change after digest_sign_init"));
        }
        if let Some(r) = self.restriction.filter(|r| SigMd::Hash(r.md) != md) {
            let only = crate::padding::digest_name(r.md).to_string_lossy();
            return Err(Failure::param(format!("digest not allowed: the key signs {only} only")));
        }
        self.md = Some(md);
        Ok(())
    }

    /// The digest and the padding together, once the parameters of a call are applied
    /// (rsa_sig.c `rsa_check_padding`): X9.31 names its digest in the signature, so it
    /// needs one with an X9.31 id ("invalid x931 digest"); MD5-SHA1 has no OID for PSS
    /// to name, and signs with PKCS#1 v1.5 only.
    pub fn check_digest(&self) -> Outcome<()> {
        match (self.pad, self.md) {
            (Pad::X931, None) => Err(Failure::param("pad-mode x931 needs a digest")),
            (Pad::X931, Some(md)) => x931_digest(md).map(|_| ()),
            (Pad::Pss, Some(SigMd::Md5Sha1)) => {
                Err(Failure::param("MD5-SHA1 signs with pad-mode pkcs1 only"))
            }
            (Pad::None, Some(_)) => Err(Failure::param("pad-mode none with a digest")),
            _ => Ok(()),
        }
    }

    /// The library's digest of PSS: the one set, SHA-1 until then (`check_digest` keeps
    /// MD5-SHA1 out).
    fn pss_md(&self) -> HashAlg {
        self.md.and_then(SigMd::hash).unwrap_or(HashAlg::Sha1)
    }

    /// Sets the PSS salt length (PSS padding only, as OpenSSL).
    pub fn set_salt(&mut self, salt: Salt) -> Outcome<()> {
        if self.pad != Pad::Pss {
            return Err(Failure::param("saltlen needs pad-mode pss"));
        }
        // A restricted key's least salt length (rsa_sig.c `rsa_set_ctx_params`).
        if let Some(r) = self.restriction {
            let too_small = match salt {
                Salt::Auto | Salt::AutoDigestMax => self.purpose == Purpose::Sign,
                Salt::Digest => r.min_salt > r.md.output_len(),
                Salt::Exact(n) => n < r.min_salt,
                Salt::Max => false,
            };
            if too_small {
                return Err(Failure::param(format!(
                    "saltlen: the key wants at least {} bytes of salt",
                    r.min_salt
                )));
            }
        }
        self.salt = salt;
        Ok(())
    }

    /// Sets the MGF1 digest (PSS padding only, as OpenSSL), if the digest policy takes
    /// it.
    pub fn set_mgf1(&mut self, alg: HashAlg) -> Outcome<()> {
        if self.pad != Pad::Pss {
            return Err(Failure::param("mgf1-digest needs pad-mode pss"));
        }
        self.digests.check(alg, "mgf1-digest")?;
        if let Some(r) = self.restriction.filter(|r| r.mgf1 != alg) {
            let only = crate::padding::digest_name(r.mgf1).to_string_lossy();
            return Err(Failure::param(format!("mgf1-digest not allowed: the key's is {only}")));
        }
        self.mgf1 = Some(alg);
        Ok(())
    }

    /// The key the context was initialised with.
    pub fn key_data(&self) -> Option<Arc<KeyData>> {
        self.key.clone()
    }

    fn key(&self) -> Outcome<&Arc<KeyData>> {
        self.key.as_ref().ok_or_else(|| Failure::new(Reason::InvalidKey, "context not initialised"))
    }

    /// The signature's length k (what a sign with no buffer answers).
    pub fn sig_len(&self) -> Outcome<usize> {
        let public =
            self.key()?.public().ok_or_else(|| Failure::new(Reason::InvalidKey, "no key"))?;
        Ok(public.size())
    }

    /// The PSS parameters for signing or verifying.
    fn pss(&self, signing: bool) -> Pss {
        let md = self.pss_md();
        let salt = match (self.salt, signing) {
            (Salt::Digest, _) => SaltLength::DigestLength,
            (Salt::Max, _) | (Salt::Auto, true) => SaltLength::Maximum,
            (Salt::AutoDigestMax, true) => SaltLength::DigestLength,
            (Salt::Auto | Salt::AutoDigestMax, false) => SaltLength::Auto,
            (Salt::Exact(n), _) => SaltLength::Exact(n),
        };
        Pss::new(md).with_mgf1(self.mgf1.unwrap_or(md)).with_salt(salt)
    }

    /// The PSS parameters a signature with a `bits`-bit key uses: OpenSSL 3.1's
    /// auto-digestmax is the digest length, or less if that does not fit: emLen - hLen - 2,
    /// where emLen = ceil((bits - 1) / 8) is k, or k - 1 when bits = 8m + 1 (RFC 8017
    /// 9.1.1; rsa_sig.c `rsa_pss_compute_saltlen`).
    fn signing_pss(&self, bits: usize) -> Pss {
        let params = self.pss(true);
        if self.salt != Salt::AutoDigestMax {
            return params;
        }
        let md = self.pss_md();
        params.with_salt(SaltLength::Exact(md.output_len().min(max_salt(bits, md))))
    }

    /// The DER `AlgorithmIdentifier` of the signatures this context makes (OpenSSL's
    /// `algorithm-id` parameter, which X.509, CMS and OCSP signing ask for to name the
    /// signature): `shaNWithRSAEncryption`, or `id-RSASSA-PSS` with the parameters in use
    /// (RFC 4055). Needs a digest and a key; none for no padding.
    pub fn algorithm_id(&self) -> Outcome<Vec<u8>> {
        let public =
            self.key()?.public().ok_or_else(|| Failure::new(Reason::InvalidKey, "no key"))?;
        let scheme = match (self.pad, self.md) {
            (Pad::Pkcs1, Some(md)) => {
                return md.pkcs1_algorithm_id().ok_or_else(|| {
                    Failure::new(Reason::Unsupported, "no algorithm id for MD5-SHA1")
                });
            }
            (Pad::Pss, _) => SigScheme::Pss(self.signing_pss(public.bits())),
            _ => return Err(Failure::new(Reason::Unsupported, "no algorithm id without a digest")),
        };
        let unsupported =
            |e: cryptocard_pki::Error| Failure::new(Reason::Unsupported, e.to_string());
        let alg =
            scheme.for_key(&public).and_then(|s| s.algorithm_identifier()).map_err(unsupported)?;
        der::Encode::to_der(&alg).map_err(|e| Failure::new(Reason::Unsupported, e.to_string()))
    }

    /// The private-key request that signs `tbs` (a digest when a digest is set) with a
    /// `bits`-bit key.
    fn request(&self, tbs: &[u8], bits: usize) -> Outcome<PrivateRequest> {
        let k = bits.div_ceil(8);
        let digest = tbs.to_vec();
        if let Some(md) = self.md {
            check_digest_len(md, tbs)?;
        }
        Ok(match (self.pad, self.md) {
            (Pad::Pkcs1, Some(SigMd::Hash(hash))) => {
                PrivateRequest::SignPkcs1v15Prehashed { hash, digest }
            }
            // MD5-SHA1 and no digest: PKCS#1 v1.5 padding of the input itself.
            (Pad::Pkcs1, _) => PrivateRequest::SignPkcs1v15Raw { data: digest },
            (Pad::X931, Some(SigMd::Hash(hash))) => {
                PrivateRequest::SignX931Prehashed { hash, digest }
            }
            (Pad::Pss, _) => {
                check_digest_len(SigMd::Hash(self.pss_md()), tbs)?;
                PrivateRequest::SignPssPrehashed { params: self.signing_pss(bits), digest }
            }
            (Pad::None, _) => {
                if tbs.len() != k {
                    return Err(Failure::new(
                        Reason::InvalidLength,
                        "no padding: input must be k bytes",
                    ));
                }
                PrivateRequest::RawPrivate { input: digest }
            }
            _ => return Err(Failure::new(Reason::Unsupported, "padding")),
        })
    }

    /// sign: the signature of `tbs`.
    pub fn sign(&self, tbs: &[u8]) -> Outcome<Vec<u8>> {
        if self.purpose != Purpose::Sign {
            return Err(Failure::new(
                Reason::OperationFailed,
                "context not initialised for signing",
            ));
        }
        let key = self.key()?;
        let private =
            key.private().ok_or_else(|| Failure::new(Reason::InvalidKey, "no private key"))?;
        let req = self.request(tbs, private.bits())?;
        let sig = run_private(&private, req)?;
        stats::count(Op::Sign);
        Ok(sig)
    }

    /// verify: whether `sig` is a signature of `tbs`.
    pub fn verify(&self, sig: &[u8], tbs: &[u8]) -> Outcome<()> {
        if self.purpose != Purpose::Verify {
            return Err(Failure::new(
                Reason::OperationFailed,
                "context not initialised for verifying",
            ));
        }
        let public =
            self.key()?.public().ok_or_else(|| Failure::new(Reason::InvalidKey, "no key"))?;
        stats::count(Op::Verify);
        let (pad, md) = (self.pad, self.md);
        if !matches!(pad, Pad::Pkcs1 | Pad::Pss | Pad::None | Pad::X931) {
            return Err(Failure::new(Reason::Unsupported, "padding"));
        }
        if md.is_some_and(|md| md.output_len() != tbs.len()) {
            return Err(Failure::new(Reason::VerificationFailed, "signature does not verify"));
        }
        let pss = (pad == Pad::Pss).then(|| self.pss(false));
        // Inside an async job, off the job's small stack (`async_job::off_job_stack`).
        let r = crate::async_job::off_job_stack(|| match (pad, md, &pss) {
            (Pad::Pkcs1, Some(SigMd::Hash(hash)), _) => {
                public.verify_pkcs1v15_prehashed(hash, tbs, sig)
            }
            (Pad::Pkcs1, _, _) => public.verify_pkcs1v15_raw(tbs, sig),
            (Pad::Pss, _, Some(pss)) => public.verify_pss_prehashed(pss, tbs, sig),
            (Pad::X931, Some(SigMd::Hash(hash)), _) => public.verify_x931_prehashed(hash, tbs, sig),
            (Pad::None, _, _) => {
                let ok =
                    sig.len() == public.size() && public.raw_public(sig).is_ok_and(|m| m == tbs);
                if ok { Ok(()) } else { Err(cryptocard::Error::Verification) }
            }
            // X9.31 without a digest with an id, which `check_digest` keeps out.
            _ => Err(cryptocard::Error::Verification),
        });
        r.map_err(|_| Failure::new(Reason::VerificationFailed, "signature does not verify"))
    }

    /// verify_recover: what `sig` signs, as OpenSSL's RSA signature recovers it. With a
    /// digest set, the digest: out of its DigestInfo (PKCS#1 v1.5, which must name that
    /// digest) or before its id byte (X9.31, which must be that digest's id). Without
    /// one, the bytes inside the PKCS#1 v1.5 padding (the DigestInfo included), or for no
    /// padding the whole k bytes.
    pub fn verify_recover(&self, sig: &[u8]) -> Outcome<Vec<u8>> {
        if self.purpose != Purpose::VerifyRecover {
            return Err(Failure::new(
                Reason::OperationFailed,
                "context not initialised for verify-recover",
            ));
        }
        let public =
            self.key()?.public().ok_or_else(|| Failure::new(Reason::InvalidKey, "no key"))?;
        stats::count(Op::Verify);
        let (pad, md) = (self.pad, self.md);
        if pad == Pad::None && md.is_some() {
            return Err(Failure::param("pad-mode none with a digest"));
        }
        if !matches!(pad, Pad::Pkcs1 | Pad::X931 | Pad::None) {
            return Err(Failure::param("only pkcs1, x931 and none recover the message"));
        }
        let recovered = crate::async_job::off_job_stack(|| match (pad, md) {
            (Pad::Pkcs1, Some(SigMd::Hash(hash))) => public.recover_pkcs1v15_digest(hash, sig),
            // MD5-SHA1 has no DigestInfo: its 36 bytes are the data itself.
            (Pad::Pkcs1, Some(SigMd::Md5Sha1)) => public.recover_pkcs1v15_raw(sig).and_then(|d| {
                if d.len() == SigMd::Md5Sha1.output_len() {
                    Ok(d)
                } else {
                    Err(cryptocard::Error::Verification)
                }
            }),
            (Pad::Pkcs1, None) => public.recover_pkcs1v15_raw(sig),
            (Pad::X931, Some(SigMd::Hash(hash))) => public.recover_x931_digest(hash, sig),
            (Pad::None, None) => public.raw_public(sig),
            // X9.31 without a digest with an id, which `check_digest` keeps out.
            _ => Err(cryptocard::Error::Verification),
        });
        recovered.map_err(|_| Failure::new(Reason::VerificationFailed, "signature does not verify"))
    }

    /// digest_sign_update / digest_verify_update.
    pub fn update(&mut self, data: &[u8]) -> Outcome<()> {
        let h = self
            .hasher
            .as_mut()
            .ok_or_else(|| Failure::new(Reason::OperationFailed, "no digest_sign_init"))?;
        h.update(data);
        Ok(())
    }

    /// The digest of what was hashed (digest_sign_final / digest_verify_final); the
    /// context hashes nothing more afterwards.
    fn finish_digest(&mut self) -> Outcome<Vec<u8>> {
        let h = self
            .hasher
            .take()
            .ok_or_else(|| Failure::new(Reason::OperationFailed, "no digest_sign_init"))?;
        Ok(h.finalize())
    }

    /// digest_sign_final.
    pub fn digest_sign_final(&mut self) -> Outcome<Vec<u8>> {
        let digest = self.finish_digest()?;
        self.sign(&digest)
    }

    /// digest_verify_final.
    pub fn digest_verify_final(&mut self, sig: &[u8]) -> Outcome<()> {
        let digest = self.finish_digest()?;
        self.verify(sig, &digest)
    }
}

/// The X9.31 id byte of `md`, or the parameter error for a digest without one (OpenSSL's
/// "invalid x931 digest").
fn x931_digest(md: SigMd) -> Outcome<u8> {
    md.hash()
        .and_then(cryptocard::rsa::x931::hash_id)
        .ok_or_else(|| Failure::param("pad-mode x931 signs SHA-1 and SHA-2 digests only"))
}

/// The longest PSS salt a `bits`-bit key holds with digest `md`: emLen - hLen - 2, where
/// emLen = ceil((bits - 1) / 8) (RFC 8017 9.1.1 step 3).
fn max_salt(bits: usize, md: HashAlg) -> usize {
    bits.saturating_sub(1).div_ceil(8).saturating_sub(md.output_len() + 2)
}

fn check_digest_len(md: SigMd, tbs: &[u8]) -> Outcome<()> {
    if tbs.len() != md.output_len() {
        return Err(Failure::new(
            Reason::InvalidLength,
            "input is not a digest of the set digest's length",
        ));
    }
    Ok(())
}
