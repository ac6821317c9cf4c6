//! RSA signature verification for rustls (`SignatureVerificationAlgorithm`, used for
//! certificate chains and for the peer's handshake signature): RSASSA-PKCS1-v1_5 (RFC 8017
//! section 8.2) and RSASSA-PSS (section 8.1; salt as long as the hash, MGF1 with the same
//! hash, RFC 8446 section 4.2.3) with SHA-256/384/512, for `rsaEncryption` keys of 2048 to
//! 8192 bits, the same set and bounds as webpki's own RSA algorithms. A PKCS#1 v1.5
//! `AlgorithmIdentifier` whose NULL parameters are missing is accepted as webpki does
//! (RFC 4055 section 5 asks for NULL, some signers omit it).

use crate::keys::{MAX_BITS, MIN_BITS};
use cryptocard::digest::HashAlg;
use cryptocard::rsa::{Pss, RsaPublicKey};
use rustls::SignatureScheme;
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{
    AlgorithmIdentifier, InvalidSignature, SignatureVerificationAlgorithm, alg_id,
};

/// The padding a verifier checks.
#[derive(Clone, Copy, Debug)]
enum Padding {
    Pkcs1,
    Pss,
}

/// One RSA signature algorithm.
#[derive(Debug)]
struct RsaVerify {
    padding: Padding,
    hash: HashAlg,
    signature_alg_id: AlgorithmIdentifier,
}

impl SignatureVerificationAlgorithm for RsaVerify {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        let key = RsaPublicKey::from_pkcs1_der(public_key).map_err(|_| InvalidSignature)?;
        if !(MIN_BITS..=MAX_BITS).contains(&key.bits()) {
            return Err(InvalidSignature);
        }
        let checked = match self.padding {
            Padding::Pkcs1 => key.verify_pkcs1v15(self.hash, message, signature),
            Padding::Pss => key.verify_pss(&Pss::new(self.hash), message, signature),
        };
        checked.map_err(|_| InvalidSignature)
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        alg_id::RSA_ENCRYPTION
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        self.signature_alg_id
    }
}

/// The DER of a PKCS#1 v1.5 `AlgorithmIdentifier` (its contents, as rustls compares
/// them) without the NULL parameters: the OID sha{256,384,512}WithRSAEncryption alone.
const fn absent_params(last: u8) -> [u8; 11] {
    [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, last]
}
const SHA256_ABSENT: [u8; 11] = absent_params(0x0b);
const SHA384_ABSENT: [u8; 11] = absent_params(0x0c);
const SHA512_ABSENT: [u8; 11] = absent_params(0x0d);

const fn rsa(padding: Padding, hash: HashAlg, signature_alg_id: AlgorithmIdentifier) -> RsaVerify {
    RsaVerify { padding, hash, signature_alg_id }
}

static PKCS1_SHA256: RsaVerify = rsa(Padding::Pkcs1, HashAlg::Sha256, alg_id::RSA_PKCS1_SHA256);
static PKCS1_SHA384: RsaVerify = rsa(Padding::Pkcs1, HashAlg::Sha384, alg_id::RSA_PKCS1_SHA384);
static PKCS1_SHA512: RsaVerify = rsa(Padding::Pkcs1, HashAlg::Sha512, alg_id::RSA_PKCS1_SHA512);
static PKCS1_SHA256_ABSENT: RsaVerify =
    rsa(Padding::Pkcs1, HashAlg::Sha256, AlgorithmIdentifier::from_slice(&SHA256_ABSENT));
static PKCS1_SHA384_ABSENT: RsaVerify =
    rsa(Padding::Pkcs1, HashAlg::Sha384, AlgorithmIdentifier::from_slice(&SHA384_ABSENT));
static PKCS1_SHA512_ABSENT: RsaVerify =
    rsa(Padding::Pkcs1, HashAlg::Sha512, AlgorithmIdentifier::from_slice(&SHA512_ABSENT));
static PSS_SHA256: RsaVerify = rsa(Padding::Pss, HashAlg::Sha256, alg_id::RSA_PSS_SHA256);
static PSS_SHA384: RsaVerify = rsa(Padding::Pss, HashAlg::Sha384, alg_id::RSA_PSS_SHA384);
static PSS_SHA512: RsaVerify = rsa(Padding::Pss, HashAlg::Sha512, alg_id::RSA_PSS_SHA512);

/// cryptocard's RSA verification algorithms, each with the TLS scheme it serves (`None`
/// for those that only certificates use).
pub static RSA_ALGORITHMS: [(Option<SignatureScheme>, &dyn SignatureVerificationAlgorithm); 9] = [
    (Some(SignatureScheme::RSA_PSS_SHA512), &PSS_SHA512),
    (Some(SignatureScheme::RSA_PSS_SHA384), &PSS_SHA384),
    (Some(SignatureScheme::RSA_PSS_SHA256), &PSS_SHA256),
    (Some(SignatureScheme::RSA_PKCS1_SHA512), &PKCS1_SHA512),
    (Some(SignatureScheme::RSA_PKCS1_SHA384), &PKCS1_SHA384),
    (Some(SignatureScheme::RSA_PKCS1_SHA256), &PKCS1_SHA256),
    (None, &PKCS1_SHA256_ABSENT),
    (None, &PKCS1_SHA384_ABSENT),
    (None, &PKCS1_SHA512_ABSENT),
];

/// Whether `alg` verifies RSA signatures (and is replaced by ours).
fn is_rsa(alg: &dyn SignatureVerificationAlgorithm) -> bool {
    alg.public_key_alg_id() == alg_id::RSA_ENCRYPTION
}

/// `base`'s algorithms with every RSA one replaced by cryptocard's; the others (ECDSA,
/// Ed25519, ML-DSA) stay `base`'s. rustls keeps these tables as `&'static`: they are
/// leaked, once per call.
pub fn rsa_verification(base: &WebPkiSupportedAlgorithms) -> WebPkiSupportedAlgorithms {
    let ours = RSA_ALGORITHMS.iter().map(|&(_, alg)| alg);
    let all: Vec<&'static dyn SignatureVerificationAlgorithm> =
        base.all.iter().copied().filter(|a| !is_rsa(*a)).chain(ours).collect();
    let mut mapping: Vec<(
        SignatureScheme,
        &'static [&'static dyn SignatureVerificationAlgorithm],
    )> =
        base.mapping.iter().copied().filter(|(_, algs)| !algs.iter().any(|a| is_rsa(*a))).collect();
    for (scheme, alg) in RSA_ALGORITHMS.iter() {
        if let Some(scheme) = scheme {
            mapping.push((*scheme, std::slice::from_ref(alg)));
        }
    }
    WebPkiSupportedAlgorithms { all: Vec::leak(all), mapping: Vec::leak(mapping) }
}
