//! The structures of RFC 7292 (section 4 and appendix D) and their object identifiers.
//! The `ContentInfo` and `EncryptedData` around them are CMS's (the `cms` crate).

use der::Sequence;
use der::asn1::{Any, ObjectIdentifier as Oid, OctetString};
use spki::AlgorithmIdentifierOwned;
use x509_cert::attr::Attributes;

/// id-data (RFC 5652 section 4): an authenticated safe, or a plain SafeContents.
pub const ID_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.1");
/// id-encryptedData (RFC 5652 section 8): a SafeContents under a password.
pub const ID_ENCRYPTED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.6");
/// id-envelopedData (RFC 5652 section 6): a SafeContents under a public key.
pub const ID_ENVELOPED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.3");
/// id-signedData: a PFX in public-key integrity mode (RFC 7292 section 4).
pub const ID_SIGNED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.2");

/// The bag types of appendix D (`bagtypes`, 1.2.840.113549.1.12.10.1).
pub const KEY_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.1");
pub const SHROUDED_KEY_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.2");
pub const CERT_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.3");
pub const SAFE_CONTENTS_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.6");

/// x509Certificate (PKCS#9 certTypes, RFC 2985): a certBag's DER certificate.
pub const X509_CERTIFICATE: Oid = Oid::new_unwrap("1.2.840.113549.1.9.22.1");

/// PKCS#9's friendlyName (a BMPString) and localKeyID (an OCTET STRING), RFC 2985 5.5.
pub const FRIENDLY_NAME: Oid = Oid::new_unwrap("1.2.840.113549.1.9.20");
pub const LOCAL_KEY_ID: Oid = Oid::new_unwrap("1.2.840.113549.1.9.21");

/// PBMAC1 (RFC 9579), the MAC of OpenSSL 3.4's `-pbmac1_pbkdf2`.
pub const PBMAC1: Oid = Oid::new_unwrap("1.2.840.113549.1.5.14");

/// `PFX` (section 4).
#[derive(Sequence)]
pub struct Pfx {
    pub version: u8,
    pub auth_safe: cms::content_info::ContentInfo,
    pub mac_data: Option<MacData>,
}

/// `MacData` (section 4); `iterations` DEFAULT 1.
#[derive(Sequence)]
pub struct MacData {
    pub mac: DigestInfo,
    pub mac_salt: OctetString,
    pub iterations: Option<u32>,
}

/// `DigestInfo` (RFC 8017 section 9.2).
#[derive(Sequence)]
pub struct DigestInfo {
    pub algorithm: AlgorithmIdentifierOwned,
    pub digest: OctetString,
}

/// `SafeBag` (section 4.2).
#[derive(Clone, Sequence)]
pub struct SafeBag {
    pub bag_id: Oid,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT")]
    pub bag_value: Any,
    pub bag_attributes: Option<Attributes>,
}

/// `CertBag` (section 4.2.3).
#[derive(Sequence)]
pub struct CertBag {
    pub cert_id: Oid,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT")]
    pub cert_value: OctetString,
}

/// `EncryptedPrivateKeyInfo` (RFC 5208 section 6), a pkcs8ShroudedKeyBag's value.
#[derive(Sequence)]
pub struct EncryptedPrivateKeyInfo {
    pub algorithm: AlgorithmIdentifierOwned,
    pub data: OctetString,
}

/// PKCS#8's `PrivateKeyInfo` / `OneAsymmetricKey` (RFC 5958 section 2), borrowed from the
/// decrypted buffer (no copy of the key outlives it); read for its attributes.
#[derive(Sequence)]
pub struct KeyInfo<'a> {
    pub version: u8,
    pub algorithm: spki::AlgorithmIdentifierRef<'a>,
    pub private_key: &'a der::asn1::OctetStringRef,
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    pub attributes: Option<Attributes>,
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", optional = "true")]
    pub public_key: Option<der::asn1::BitStringRef<'a>>,
}
