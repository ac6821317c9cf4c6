//! Certificates signed with cryptocard RSA keys, made on the spot: a root CA and the
//! server certificates it issues (X.509 v3, RFC 5280; sha256WithRSAEncryption, RFC 4055
//! section 5), written by rcgen, which does no cryptography of its own here. For tests,
//! the example server and `cryptocard speed --tls`; a real deployment brings its own.

use cryptocard::digest::HashAlg;
use cryptocard::rng::{OsRng, RandomSource};
use cryptocard::rsa::RsaPrivateKey;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyUsagePurpose, PKCS_RSA_SHA256, PublicKeyData, SerialNumber, SignatureAlgorithm,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::fmt;

pub use rcgen::Error;

/// A cryptocard RSA key as rcgen's signer: PKCS#1 v1.5 with SHA-256.
struct RcgenKey<'a> {
    key: &'a RsaPrivateKey,
    /// The `RSAPublicKey` DER (the BIT STRING of the `SubjectPublicKeyInfo`).
    public: Vec<u8>,
}

impl<'a> RcgenKey<'a> {
    fn new(key: &'a RsaPrivateKey) -> Result<Self, Error> {
        let public = key.public_key().to_pkcs1_der().map_err(|_| Error::RemoteKeyError)?;
        Ok(RcgenKey { key, public })
    }
}

impl PublicKeyData for RcgenKey<'_> {
    fn der_bytes(&self) -> &[u8] {
        &self.public
    }

    fn algorithm(&self) -> &'static SignatureAlgorithm {
        &PKCS_RSA_SHA256
    }
}

impl rcgen::SigningKey for RcgenKey<'_> {
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, Error> {
        self.key.sign_pkcs1v15(HashAlg::Sha256, msg, &mut OsRng).map_err(|_| Error::RemoteKeyError)
    }
}

/// A fresh serial number: 16 random bytes, the first below 0x80 so that the INTEGER is
/// positive (RFC 5280 section 4.1.2.2: at most 20 octets, unique per issuer).
fn serial() -> Result<SerialNumber, Error> {
    let mut bytes = [0u8; 16];
    OsRng.fill_bytes(&mut bytes).map_err(|_| Error::RemoteKeyError)?;
    bytes[0] &= 0x7f;
    Ok(SerialNumber::from_slice(&bytes))
}

/// A root certification authority with a cryptocard RSA key.
pub struct Authority {
    key: RsaPrivateKey,
    params: CertificateParams,
    cert: CertificateDer<'static>,
}

impl Authority {
    /// A new root named `name`, with a fresh RSA key of `bits` bits.
    pub fn generate(name: &str, bits: usize) -> Result<Authority, Error> {
        let key = RsaPrivateKey::generate(bits, &mut OsRng).map_err(|_| Error::RemoteKeyError)?;
        Authority::new(name, key)
    }

    /// A new root named `name` whose key is `key`.
    pub fn new(name: &str, key: RsaPrivateKey) -> Result<Authority, Error> {
        let mut params = CertificateParams::new(Vec::<String>::new())?;
        params.distinguished_name = DistinguishedName::new();
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.serial_number = Some(serial()?);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let cert = params.self_signed(&RcgenKey::new(&key)?)?.der().clone();
        Ok(Authority { key, params, cert })
    }

    /// The root certificate, for a client's trust store.
    pub fn cert(&self) -> &CertificateDer<'static> {
        &self.cert
    }

    /// A server certificate for `names` (DNS names or IP addresses) and the public key
    /// `subject`, signed by this root.
    pub fn issue(
        &self,
        subject: &impl PublicKeyData,
        names: &[&str],
    ) -> Result<CertificateDer<'static>, Error> {
        let mut params =
            CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())?;
        params.distinguished_name = DistinguishedName::new();
        params
            .distinguished_name
            .push(DnType::CommonName, names.first().copied().unwrap_or("server"));
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.serial_number = Some(serial()?);
        let signer = RcgenKey::new(&self.key)?;
        let issuer = Issuer::from_params(&self.params, &signer);
        Ok(params.signed_by(subject, &issuer)?.der().clone())
    }

    /// A server with a fresh RSA key of `bits` bits and its certificate for `names`.
    pub fn issue_rsa(&self, bits: usize, names: &[&str]) -> Result<ServerIdentity, Error> {
        let key = RsaPrivateKey::generate(bits, &mut OsRng).map_err(|_| Error::RemoteKeyError)?;
        let cert = self.issue(&RcgenKey::new(&key)?, names)?;
        let pkcs8 = key.to_pkcs8_der().map_err(|_| Error::RemoteKeyError)?;
        Ok(ServerIdentity {
            chain: vec![cert, self.cert.clone()],
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pkcs8.to_vec())),
        })
    }
}

/// A server's certificate chain (its own certificate first, then the root) and its key.
pub struct ServerIdentity {
    /// The chain.
    pub chain: Vec<CertificateDer<'static>>,
    /// The private key, PKCS#8.
    pub key: PrivateKeyDer<'static>,
}

/// PEM text of a certificate chain, as `openssl` and the example server read it.
pub fn chain_pem(chain: &[CertificateDer<'_>]) -> String {
    chain.iter().map(|c| pem("CERTIFICATE", c)).collect()
}

/// PEM text of one DER object (RFC 7468).
pub fn pem(label: &str, der: &[u8]) -> String {
    let lf = pem::EncodeConfig::new().set_line_ending(pem::LineEnding::LF);
    pem::encode_config(&pem::Pem::new(label, der), lf)
}

impl fmt::Debug for Authority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authority").field("bits", &self.key.bits()).finish_non_exhaustive()
    }
}

impl fmt::Debug for ServerIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerIdentity").field("certs", &self.chain.len()).finish_non_exhaustive()
    }
}
