//! The context behind OpenSSL's RSA `EVP_ASYM_CIPHER` (provider-asym_cipher(7)) in plain
//! Rust; `asym_cipher.rs` is the C side.
//!
//! As OpenSSL's own (providers/implementations/asymciphers/rsa_enc.c): PKCS#1 v1.5 by
//! default, decrypted with implicit rejection (OpenSSL 3.2's default: a bad padding
//! gives a synthetic message, not an error; `implicit-rejection` = 0 switches to the
//! explicit error); OAEP with SHA-1 unless a digest is set, MGF1 over the OAEP digest
//! unless told otherwise (MD2 and MD4 only under the provider's `legacy-digests`,
//! [`crate::digest_policy`]), and an optional label (RFC 8017 7.1); no padding on exactly k
//! bytes; and "pkcs1-tls", the RSA key exchange of TLS 1.2 (`tls_premaster`).
//! Decryptions go through [`crate::dispatch::run_private`].
//!
//! The output buffer is checked before any work, as OpenSSL checks it: at least k bytes,
//! or 48 for "pkcs1-tls" ([`CipherCtx::out_size`]). Checking after decrypting would tell
//! a short plaintext from a long one, and with implicit rejection a real message (often
//! short) from a synthetic one (of any length): a padding oracle. Plaintexts (and the
//! decrypted block and PreMasterSecret of "pkcs1-tls") are held in buffers wiped when
//! dropped.

use crate::digest_policy::DigestPolicy;
use crate::dispatch::run_private;
use crate::errors::{Failure, Outcome, Reason};
use crate::key::KeyData;
use crate::padding::Pad;
use crate::stats::{self, Op};
use crate::tls_premaster::{PREMASTER_LEN, premaster};
use cryptocard::digest::HashAlg;
use cryptocard::rng::OsRng;
use cryptocard::rng::RandomSource;
use cryptocard::rsa::{Oaep, PrivateRequest, RsaPrivateKey};
use std::sync::Arc;
use zeroize::Zeroizing;

/// An RSA asymmetric cipher context.
#[derive(Clone, Debug)]
pub struct CipherCtx {
    key: Option<Arc<KeyData>>,
    decrypting: bool,
    /// The padding mode.
    pub pad: Pad,
    /// The OAEP digest, if set (else SHA-1).
    pub oaep_md: Option<HashAlg>,
    /// The MGF1 digest, if set (else the OAEP digest).
    pub mgf1: Option<HashAlg>,
    /// The OAEP label.
    pub label: Vec<u8>,
    /// PKCS#1 v1.5 implicit rejection (on by default).
    pub implicit_rejection: bool,
    /// "pkcs1-tls": the version the client offered (`tls-client-version`).
    pub tls_client_version: u16,
    /// "pkcs1-tls": an alternative version accepted too (`tls-negotiated-version`).
    pub tls_negotiated_version: u16,
    /// The digests OAEP may name (the provider's configuration).
    digests: DigestPolicy,
}

impl Default for CipherCtx {
    fn default() -> CipherCtx {
        CipherCtx {
            key: None,
            decrypting: false,
            pad: Pad::Pkcs1,
            oaep_md: None,
            mgf1: None,
            label: Vec::new(),
            implicit_rejection: true,
            tls_client_version: 0,
            tls_negotiated_version: 0,
            digests: DigestPolicy::default(),
        }
    }
}

impl CipherCtx {
    /// A context whose OAEP digests follow `digests` (the default takes no legacy ones).
    pub fn with_digest_policy(digests: DigestPolicy) -> CipherCtx {
        CipherCtx { digests, ..CipherCtx::default() }
    }

    /// encrypt_init / decrypt_init: a fresh context on `key` (the old one if `None`).
    pub fn init(&mut self, key: Option<Arc<KeyData>>, decrypting: bool) -> Outcome<()> {
        let key = key
            .or_else(|| self.key.clone())
            .ok_or_else(|| Failure::new(Reason::InvalidKey, "no key"))?;
        if !key.has(decrypting, true) {
            return Err(Failure::new(Reason::InvalidKey, "no key, or no private key to decrypt"));
        }
        if key.pss {
            return Err(Failure::new(Reason::InvalidKey, "an RSA-PSS key does not encrypt"));
        }
        *self =
            CipherCtx { key: Some(key), decrypting, ..CipherCtx::with_digest_policy(self.digests) };
        Ok(())
    }

    /// Sets the OAEP digest, if the policy takes it.
    pub fn set_oaep_md(&mut self, alg: HashAlg) -> Outcome<()> {
        self.oaep_md = Some(self.digests.check(alg, "digest")?);
        Ok(())
    }

    /// Sets OAEP's MGF1 digest, if the policy takes it.
    pub fn set_mgf1(&mut self, alg: HashAlg) -> Outcome<()> {
        self.mgf1 = Some(self.digests.check(alg, "mgf1-digest")?);
        Ok(())
    }

    /// Sets the pad mode.
    pub fn set_pad(&mut self, pad: Pad) -> Outcome<()> {
        match pad {
            Pad::None | Pad::Pkcs1 | Pad::Oaep | Pad::Tls => {
                self.pad = pad;
                Ok(())
            }
            Pad::Pss => Err(Failure::param("pad-mode pss is not an encryption padding")),
            Pad::X931 => Err(Failure::new(Reason::Unsupported, "padding not supported")),
        }
    }

    fn oaep(&self) -> Oaep {
        let md = self.oaep_md.unwrap_or(HashAlg::Sha1);
        Oaep::new(md).with_mgf1(self.mgf1.unwrap_or(md)).with_label(&self.label)
    }

    fn key(&self) -> Outcome<&Arc<KeyData>> {
        self.key.as_ref().ok_or_else(|| Failure::new(Reason::InvalidKey, "context not initialised"))
    }

    /// The output size: what the size query with a null buffer answers, and the least
    /// buffer encrypt and decrypt take, checked before any work (rsa_enc.c, OpenSSL 3.0 to
    /// 4.0): 48 bytes (the PreMasterSecret) when decrypting with "pkcs1-tls", else k.
    pub fn out_size(&self) -> Outcome<usize> {
        if self.decrypting && self.pad == Pad::Tls {
            return Ok(PREMASTER_LEN);
        }
        let public =
            self.key()?.public().ok_or_else(|| Failure::new(Reason::InvalidKey, "no key"))?;
        Ok(public.size())
    }

    /// encrypt.
    pub fn encrypt(&self, msg: &[u8]) -> Outcome<Vec<u8>> {
        if self.decrypting {
            return Err(Failure::new(
                Reason::OperationFailed,
                "context initialised for decryption",
            ));
        }
        let public =
            self.key()?.public().ok_or_else(|| Failure::new(Reason::InvalidKey, "no key"))?;
        let pad = self.pad;
        match pad {
            Pad::Pkcs1 | Pad::Oaep => {}
            Pad::None if msg.len() == public.size() => {}
            Pad::None => {
                return Err(Failure::new(
                    Reason::InvalidLength,
                    "no padding: input must be k bytes",
                ));
            }
            _ => return Err(Failure::new(Reason::Unsupported, "padding")),
        }
        let oaep = (pad == Pad::Oaep).then(|| self.oaep());
        // Inside an async job, off the job's small stack (`async_job::off_job_stack`).
        let ct = crate::async_job::off_job_stack(|| match (pad, &oaep) {
            (Pad::Oaep, Some(oaep)) => public.encrypt_oaep(oaep, msg, &mut OsRng),
            (Pad::Pkcs1, _) => public.encrypt_pkcs1v15(msg, &mut OsRng),
            _ => public.raw_public(msg),
        })?;
        stats::count(Op::Encrypt);
        Ok(ct)
    }

    /// decrypt: the plaintext, in a buffer wiped when dropped. The caller checks its
    /// output buffer against [`CipherCtx::out_size`] first.
    pub fn decrypt(&self, ct: &[u8]) -> Outcome<Zeroizing<Vec<u8>>> {
        if !self.decrypting {
            return Err(Failure::new(
                Reason::OperationFailed,
                "context initialised for encryption",
            ));
        }
        let key = self
            .key()?
            .private()
            .ok_or_else(|| Failure::new(Reason::InvalidKey, "no private key"))?;
        let ciphertext = ct.to_vec();
        if self.pad == Pad::Tls {
            return self.decrypt_tls(&key, ciphertext);
        }
        let req = match self.pad {
            Pad::Pkcs1 if self.implicit_rejection => PrivateRequest::DecryptPkcs1v15 { ciphertext },
            Pad::Pkcs1 => PrivateRequest::DecryptPkcs1v15Explicit { ciphertext },
            Pad::Oaep => PrivateRequest::DecryptOaep { params: self.oaep(), ciphertext },
            Pad::None => {
                if ct.len() != key.size() {
                    return Err(Failure::new(Reason::InvalidLength, "ciphertext must be k bytes"));
                }
                PrivateRequest::RawPrivate { input: ciphertext }
            }
            _ => return Err(Failure::new(Reason::Unsupported, "padding")),
        };
        stats::count(Op::Decrypt);
        // Any failure is "decryption failed", without detail (no padding oracle).
        run_private(&key, req)
            .map(Zeroizing::new)
            .map_err(|_| Failure::new(Reason::DecryptionFailed, "decryption failed"))
    }

    /// "pkcs1-tls": always 48 bytes, the PreMasterSecret or random ones (see
    /// `tls_premaster`). Only a publicly wrong ciphertext (not k bytes, not below n) or a
    /// fault is an error.
    fn decrypt_tls(
        &self,
        key: &Arc<RsaPrivateKey>,
        ciphertext: Vec<u8>,
    ) -> Outcome<Zeroizing<Vec<u8>>> {
        if self.tls_client_version == 0 {
            return Err(Failure::param("pkcs1-tls needs tls-client-version"));
        }
        if ciphertext.len() != key.size() || key.size() < PREMASTER_LEN + 11 {
            return Err(Failure::new(Reason::DecryptionFailed, "decryption failed"));
        }
        let mut random = Zeroizing::new([0u8; PREMASTER_LEN]);
        OsRng.fill_bytes(&mut *random)?;
        stats::count(Op::Decrypt);
        let em = run_private(key, PrivateRequest::RawPrivate { input: ciphertext })
            .map(Zeroizing::new)
            .map_err(|_| Failure::new(Reason::DecryptionFailed, "decryption failed"))?;
        let alt = self.tls_negotiated_version;
        let mut secret = Zeroizing::new([0u8; PREMASTER_LEN]);
        premaster(&em, self.tls_client_version, alt, &random, &mut secret);
        Ok(Zeroizing::new(secret.to_vec()))
    }
}
