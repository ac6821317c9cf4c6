//! aws-lc-rs as a peer: AWS-LC (Amazon's BoringSSL fork, built and linked by `aws-lc-sys`
//! with every symbol prefixed, so it cannot meet the static OpenSSL's) behind its
//! ring-compatible Rust API. It is rustls's default provider, so it is what a Rust TLS
//! server signs with unless told otherwise: the RSA figure cryptocard's `s_server` stands
//! beside.
//!
//! RSA: PKCS#1 v1.5 with SHA-256 ([`RSA_PKCS1_SHA256`]), signing with 2048- to 8192-bit
//! keys (all `RsaKeyPair` takes), verifying with 1024 to 8192 bits (1024 through the
//! `_FOR_LEGACY_USE_ONLY` parameters). Both hash the message themselves: the API takes no
//! digest for signing, so the peer is handed the message whose SHA-256 the others sign
//! (a few bytes; its hashing is well under 1% of an RSA operation). Digests: SHA-1, SHA-224,
//! SHA-256, SHA-384, SHA-512, SHA-512/256 and SHA3-256/384/512, one-shot.
//!
//! AWS-LC's RSA has a 52-bit-limb AVX-512 IFMA path (`rsaz-{2k,3k,4k}-avx512`, both CRT
//! halves at once) for 2048-, 3072- and 4096-bit keys, taken when the CPU has AVX-512 IFMA
//! and VL. The peer's name says whether this build carries it and whether this CPU runs it,
//! since it decides how the RSA rows compare on an Ice Lake or Zen 4 and later.
//!
//! [`RSA_PKCS1_SHA256`]: aws_lc_rs::signature::RSA_PKCS1_SHA256

use crate::{Origin, PeerError, PeerInfo, Result};
use aws_lc_rs::digest;
use aws_lc_rs::signature::{self, ParsedPublicKey, RsaKeyPair, VerificationAlgorithm};
use std::sync::OnceLock;

/// Modulus sizes `RsaKeyPair` signs with.
pub const SIGN_BITS: std::ops::RangeInclusive<u32> = 2048..=8192;
/// Modulus sizes the PKCS#1 v1.5 SHA-256 verification takes (below 2048: legacy).
pub const VERIFY_BITS: std::ops::RangeInclusive<u32> = 1024..=8192;

/// The AWS-LC release that added the IFMA RSA for 2048 to 4096 bits (v1.35).
const IFMA_SINCE: (u32, u32) = (1, 35);

/// Identity of aws-lc-rs: the crate's version (from Cargo.lock) and, in the name, the
/// AWS-LC release it runs and the state of its IFMA RSA path, e.g.
/// "aws-lc-rs (AWS-LC 5.12.0, IFMA RSA)".
pub fn info() -> &'static PeerInfo {
    static INFO: OnceLock<PeerInfo> = OnceLock::new();
    INFO.get_or_init(|| {
        let awslc = aws_lc_rs::awslc_version();
        // Made once per process: the name is `&'static` like every other peer's.
        let name = format!("aws-lc-rs (AWS-LC {awslc}, {})", ifma_rsa(awslc));
        PeerInfo {
            id: "aws-lc-rs",
            name: name.leak(),
            version: env!("COMPARE_AWS_LC_RS_VERSION").to_string(),
            origin: Origin::Crate,
        }
    })
}

/// "IFMA RSA" when AWS-LC has the AVX-512 IFMA RSA and this CPU runs it, else what is
/// missing: "IFMA RSA unused here" (this CPU lacks AVX-512 IFMA), "no IFMA RSA: <why>".
fn ifma_rsa(awslc: &str) -> String {
    let mut parts = awslc.split('.').map(|p| p.parse::<u32>().ok());
    let release = (parts.next().flatten(), parts.next().flatten());
    let too_old = match release {
        (Some(major), Some(minor)) => (major, minor) < IFMA_SINCE,
        _ => false,
    };
    let left_out = env!("COMPARE_AWS_LC_NO_AVX512");
    if too_old {
        "no IFMA RSA before AWS-LC 1.35".to_string()
    } else if !left_out.is_empty() {
        format!("no IFMA RSA: {left_out}")
    } else if cpu_has_ifma() {
        "IFMA RSA".to_string()
    } else {
        "IFMA RSA unused here".to_string()
    }
}

/// Whether this CPU has what AWS-LC's IFMA RSA needs (AVX-512 F, VL, BW, DQ and IFMA).
fn cpu_has_ifma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512ifma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A private key ready to sign with PKCS#1 v1.5 and SHA-256.
#[derive(Debug)]
pub struct RsaSigner {
    key: RsaKeyPair,
    rng: aws_lc_rs::rand::SystemRandom,
}

impl RsaSigner {
    /// Reads a PKCS#8 `PrivateKeyInfo` of a `bits`-bit key; a size outside [`SIGN_BITS`]
    /// is [`PeerError::Unavailable`].
    pub fn from_pkcs8(der: &[u8], bits: u32) -> Result<Self> {
        if !SIGN_BITS.contains(&bits) {
            return Err(PeerError::Unavailable(format!(
                "aws-lc-rs signs with 2048- to 8192-bit RSA keys, not {bits}"
            )));
        }
        let key = RsaKeyPair::from_pkcs8(der).map_err(|e| PeerError::Failed {
            call: "RsaKeyPair::from_pkcs8",
            detail: e.to_string(),
        })?;
        Ok(RsaSigner { key, rng: aws_lc_rs::rand::SystemRandom::new() })
    }

    /// The signature length in bytes.
    pub fn signature_len(&self) -> usize {
        self.key.public_modulus_len()
    }

    /// Signs `message` (hashing it with SHA-256) into `out`, which must be
    /// [`RsaSigner::signature_len`] bytes long.
    pub fn sign_into(&self, message: &[u8], out: &mut [u8]) -> Result<()> {
        if out.len() != self.signature_len() {
            return Err(PeerError::InvalidInput("signature buffer of the wrong length"));
        }
        self.key
            .sign(&signature::RSA_PKCS1_SHA256, &self.rng, message, out)
            .map_err(|_| PeerError::Failed { call: "RsaKeyPair::sign", detail: String::new() })
    }
}

/// A public key parsed once for PKCS#1 v1.5 SHA-256 verification (`ParsedPublicKey`).
#[derive(Debug)]
pub struct RsaVerifier {
    key: ParsedPublicKey,
}

impl RsaVerifier {
    /// Reads a SubjectPublicKeyInfo of a `bits`-bit key; a size outside [`VERIFY_BITS`] is
    /// [`PeerError::Unavailable`].
    pub fn from_spki(der: &[u8], bits: u32) -> Result<Self> {
        if !VERIFY_BITS.contains(&bits) {
            return Err(PeerError::Unavailable(format!(
                "aws-lc-rs verifies with 1024- to 8192-bit RSA keys, not {bits}"
            )));
        }
        let params: &'static dyn VerificationAlgorithm = if bits < 2048 {
            &signature::RSA_PKCS1_1024_8192_SHA256_FOR_LEGACY_USE_ONLY
        } else {
            &signature::RSA_PKCS1_2048_8192_SHA256
        };
        let key = ParsedPublicKey::new(params, der).map_err(|e| PeerError::Failed {
            call: "ParsedPublicKey::new",
            detail: e.to_string(),
        })?;
        Ok(RsaVerifier { key })
    }

    /// Whether `signature` is a PKCS#1 v1.5 SHA-256 signature of `message`.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        self.key.verify_sig(message, signature).is_ok()
    }
}

/// A digest algorithm of aws-lc-rs.
#[derive(Clone, Copy, Debug)]
pub struct Hash {
    alg: &'static digest::Algorithm,
}

impl Hash {
    /// The algorithm named as in `speed` ("sha256", "sha3-512"...).
    pub fn by_name(name: &str) -> Result<Hash> {
        let alg = match name {
            "sha1" => &digest::SHA1_FOR_LEGACY_USE_ONLY,
            "sha224" => &digest::SHA224,
            "sha256" => &digest::SHA256,
            "sha384" => &digest::SHA384,
            "sha512" => &digest::SHA512,
            "sha512-256" => &digest::SHA512_256,
            "sha3-256" => &digest::SHA3_256,
            "sha3-384" => &digest::SHA3_384,
            "sha3-512" => &digest::SHA3_512,
            _ => return Err(PeerError::Unavailable(format!("{name} is not in aws-lc-rs"))),
        };
        Ok(Hash { alg })
    }

    /// Output length in bytes.
    pub fn size(&self) -> usize {
        self.alg.output_len()
    }

    /// Hashes `message` from a fresh state into `out`; returns the length written.
    pub fn digest_into(&self, message: &[u8], out: &mut [u8]) -> Result<usize> {
        let d = digest::digest(self.alg, message);
        let d = d.as_ref();
        out.get_mut(..d.len())
            .ok_or(PeerError::InvalidInput("digest buffer too small"))?
            .copy_from_slice(d);
        Ok(d.len())
    }
}
