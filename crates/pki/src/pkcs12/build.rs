//! Writing a PFX as OpenSSL's `PKCS12_create` lays one out.

use super::asn1::{
    CERT_BAG, CertBag, EncryptedPrivateKeyInfo, ID_DATA, ID_ENCRYPTED_DATA, KEY_BAG, MacData, Pfx,
    SHROUDED_KEY_BAG, SafeBag, X509_CERTIFICATE,
};
use super::{attr, mac};
use crate::sig::public_key_from_spki;
use crate::{Error, Result};
use cms::content_info::{CmsVersion, ContentInfo};
use cms::encrypted_data::EncryptedData;
use cms::enveloped_data::EncryptedContentInfo;
use cryptocard::digest::{HashAlg, Hasher};
use cryptocard::pbe::{self, PBKDF2_ITERATIONS, PbeScheme};
use cryptocard::rng::RandomSource;
use cryptocard::rsa::RsaPrivateKey;
use der::asn1::OctetString;
use der::{Any, Decode, Encode};
use spki::AlgorithmIdentifierOwned;
use x509_cert::Certificate;
use x509_cert::attr::Attribute;
use zeroize::Zeroizing;

/// The MAC's salt length (OpenSSL's `PKCS12_SALT_LEN`).
const MAC_SALT_LEN: usize = 8;

/// A PKCS#12 file to write: a key, its certificate, more certificates, names, and the
/// schemes. [`Pkcs12Builder::new`] starts from OpenSSL 3's choices.
///
/// ```no_run
/// # fn f(key: &cryptocard::rsa::RsaPrivateKey, cert: &x509_cert::Certificate) -> cryptocard_pki::Result<()> {
/// use cryptocard::rng::OsRng;
/// use cryptocard_pki::pkcs12::{Pkcs12Builder, parse};
///
/// let der = Pkcs12Builder::new().key(key).cert(cert).name("server").build(b"secret", &mut OsRng)?;
/// let p12 = parse(&der, b"secret")?;
/// assert_eq!(p12.rsa_private_key()?.as_ref(), Some(key));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Pkcs12Builder<'a> {
    key: Option<&'a RsaPrivateKey>,
    cert: Option<&'a Certificate>,
    ca: Vec<&'a Certificate>,
    name: Option<String>,
    ca_names: Vec<String>,
    key_scheme: Option<PbeScheme>,
    cert_scheme: Option<PbeScheme>,
    mac: Option<(HashAlg, u32)>,
}

impl Default for Pkcs12Builder<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> Pkcs12Builder<'a> {
    /// Nothing in it yet; key and certificates under [`PbeScheme::DEFAULT`] (PBES2,
    /// AES-256-CBC), a SHA-256 MAC over 2048 iterations: `openssl pkcs12 -export` in 3.0.
    pub fn new() -> Self {
        Pkcs12Builder {
            key: None,
            cert: None,
            ca: Vec::new(),
            name: None,
            ca_names: Vec::new(),
            key_scheme: Some(PbeScheme::DEFAULT),
            cert_scheme: Some(PbeScheme::DEFAULT),
            mac: Some((HashAlg::Sha256, PBKDF2_ITERATIONS)),
        }
    }

    /// OpenSSL 1.x's schemes (`pkcs12 -legacy`), for consumers that know no newer ones
    /// (Windows before Server 2019, Java before 8u301, macOS's Keychain): the key under
    /// pbeWithSHA1And3-KeyTripleDES-CBC, the certificates under
    /// pbeWithSHA1And40BitRC2-CBC, a SHA-1 MAC. Weak: use only where needed.
    pub fn legacy(self) -> Self {
        let scheme = |name| PbeScheme::from_name(name).expect("internal error: a legacy scheme");
        Pkcs12Builder {
            key_scheme: Some(scheme("PBE-SHA1-3DES")),
            cert_scheme: Some(scheme("PBE-SHA1-RC2-40")),
            mac: Some((HashAlg::Sha1, PBKDF2_ITERATIONS)),
            ..self
        }
    }

    /// The private key.
    pub fn key(self, key: &'a RsaPrivateKey) -> Self {
        Pkcs12Builder { key: Some(key), ..self }
    }

    /// The key's certificate (it must match the key).
    pub fn cert(self, cert: &'a Certificate) -> Self {
        Pkcs12Builder { cert: Some(cert), ..self }
    }

    /// More certificates (a chain, trusted roots), in order.
    pub fn ca_certs(mut self, certs: impl IntoIterator<Item = &'a Certificate>) -> Self {
        self.ca.extend(certs);
        self
    }

    /// The friendly name of the key and its certificate.
    pub fn name(self, name: &str) -> Self {
        Pkcs12Builder { name: Some(name.into()), ..self }
    }

    /// Friendly names of the further certificates, in their order (fewer names than
    /// certificates leave the rest unnamed).
    pub fn ca_names(self, names: Vec<String>) -> Self {
        Pkcs12Builder { ca_names: names, ..self }
    }

    /// The key's scheme, or `None` for a plain keyBag.
    pub fn key_scheme(self, scheme: Option<PbeScheme>) -> Self {
        Pkcs12Builder { key_scheme: scheme, ..self }
    }

    /// The certificates' scheme, or `None` for a plain safe.
    pub fn cert_scheme(self, scheme: Option<PbeScheme>) -> Self {
        Pkcs12Builder { cert_scheme: scheme, ..self }
    }

    /// The MAC's digest and iterations, or `None` for no MAC.
    pub fn mac(self, mac: Option<(HashAlg, u32)>) -> Self {
        Pkcs12Builder { mac, ..self }
    }

    /// The DER file, with salts and IVs from `rng`. Errors: `NoMatch` when the
    /// certificate is not the key's; `Malformed` with nothing to write.
    pub fn build(&self, password: &[u8], rng: &mut dyn RandomSource) -> Result<Vec<u8>> {
        if self.key.is_none() && self.cert.is_none() && self.ca.is_empty() {
            return Err(Error::Malformed("a PKCS#12 file needs a key or a certificate".into()));
        }
        let key_id = self.key_id()?;
        let mut leaf_attrs = Vec::new();
        if let Some(name) = &self.name {
            leaf_attrs.push(attr::friendly_name(name)?);
        }
        if let Some(id) = &key_id {
            leaf_attrs.push(attr::local_key_id(id)?);
        }
        let mut safes = Vec::new();
        if self.cert.is_some() || !self.ca.is_empty() {
            let mut bags = Vec::new();
            if let Some(cert) = self.cert {
                bags.push(cert_bag(cert, leaf_attrs.clone())?);
            }
            for (i, cert) in self.ca.iter().enumerate() {
                let attrs = match self.ca_names.get(i) {
                    Some(name) => vec![attr::friendly_name(name)?],
                    None => Vec::new(),
                };
                bags.push(cert_bag(cert, attrs)?);
            }
            safes.push(safe(bags, self.cert_scheme.as_ref(), password, rng)?);
        }
        if let Some(key) = self.key {
            let pkcs8 = Zeroizing::new(key.to_pkcs8_der()?);
            let (bag_id, bag_value) = match &self.key_scheme {
                Some(scheme) => {
                    let (alg, data) = pbe::encrypt(scheme, Some(password), &pkcs8, rng)?;
                    let info = EncryptedPrivateKeyInfo {
                        algorithm: AlgorithmIdentifierOwned::from_der(&alg)?,
                        data: OctetString::new(data)?,
                    };
                    (SHROUDED_KEY_BAG, Any::encode_from(&info)?)
                }
                None => (KEY_BAG, Any::from_der(&pkcs8)?),
            };
            let bag = SafeBag { bag_id, bag_value, bag_attributes: attr::set(leaf_attrs)? };
            safes.push(safe(vec![bag], None, password, rng)?);
        }
        let auth_safe = safes.to_der()?;
        let mac_data = match self.mac {
            Some((digest, iterations)) => {
                Some(self.make_mac(digest, iterations, password, &auth_safe, rng)?)
            }
            None => None,
        };
        let pfx = Pfx {
            version: 3,
            auth_safe: ContentInfo {
                content_type: ID_DATA,
                content: Any::encode_from(&OctetString::new(auth_safe)?)?,
            },
            mac_data,
        };
        Ok(pfx.to_der()?)
    }

    /// The local key ID pairing the key with its certificate: the SHA-1 of the
    /// certificate's DER, as OpenSSL makes it; `None` without both.
    fn key_id(&self) -> Result<Option<Vec<u8>>> {
        let (Some(key), Some(cert)) = (self.key, self.cert) else { return Ok(None) };
        let public = public_key_from_spki(cert.tbs_certificate().subject_public_key_info())?;
        if &public != key.public_key() {
            return Err(Error::NoMatch("the certificate is not the private key's".into()));
        }
        Ok(Some(Hasher::digest(HashAlg::Sha1, &crate::cert::to_der(cert)?).as_bytes().to_vec()))
    }

    fn make_mac(
        &self,
        digest: HashAlg,
        iterations: u32,
        password: &[u8],
        data: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<MacData> {
        let mut salt = [0u8; MAC_SALT_LEN];
        rng.fill_bytes(&mut salt)?;
        mac::make(digest, iterations, &salt, password, data)
    }
}

fn cert_bag(cert: &Certificate, attrs: Vec<Attribute>) -> Result<SafeBag> {
    let value = CertBag {
        cert_id: X509_CERTIFICATE,
        cert_value: OctetString::new(crate::cert::to_der(cert)?)?,
    };
    Ok(SafeBag {
        bag_id: CERT_BAG,
        bag_value: Any::encode_from(&value)?,
        bag_attributes: attr::set(attrs)?,
    })
}

/// A SafeContents as a ContentInfo: plain (id-data), or encrypted under `scheme`.
fn safe(
    bags: Vec<SafeBag>,
    scheme: Option<&PbeScheme>,
    password: &[u8],
    rng: &mut dyn RandomSource,
) -> Result<ContentInfo> {
    let contents = Zeroizing::new(bags.to_der()?);
    let Some(scheme) = scheme else {
        let content = Any::encode_from(&OctetString::new(contents.as_slice())?)?;
        return Ok(ContentInfo { content_type: ID_DATA, content });
    };
    let (alg, ciphertext) = pbe::encrypt(scheme, Some(password), &contents, rng)?;
    let data = EncryptedData {
        version: CmsVersion::V0,
        enc_content_info: EncryptedContentInfo {
            content_type: ID_DATA,
            content_enc_alg: AlgorithmIdentifierOwned::from_der(&alg)?,
            encrypted_content: Some(OctetString::new(ciphertext)?),
        },
        unprotected_attrs: None,
    };
    Ok(ContentInfo { content_type: ID_ENCRYPTED_DATA, content: Any::encode_from(&data)? })
}
