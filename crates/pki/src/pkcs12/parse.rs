//! Reading a PFX: the MAC, then each safe, then each bag, with the work a file may ask
//! for bounded before it is done.

use super::asn1::{
    CERT_BAG, CertBag, EncryptedPrivateKeyInfo, ID_DATA, ID_ENCRYPTED_DATA, ID_ENVELOPED_DATA,
    ID_SIGNED_DATA, KEY_BAG, KeyInfo, Pfx, SAFE_CONTENTS_BAG, SHROUDED_KEY_BAG, SafeBag,
    X509_CERTIFICATE,
};
use super::{Bag, BagContent, MacInfo, Pkcs12, Safe, attr, mac};
use crate::{Error, Result};
use cms::content_info::ContentInfo;
use cms::encrypted_data::EncryptedData;
use cryptocard::pbe::{self, DEFAULT_MAX_ITERATIONS, TOO_MANY_ITERATIONS};
use der::asn1::OctetString;
use der::{Decode, Encode};
use x509_cert::Certificate;
use zeroize::Zeroizing;

/// How deep safeContentsBags may nest (OpenSSL writes none; one level is rare).
const MAX_NESTING: usize = 4;

/// What reading a file may cost, and whether its MAC is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// The most iterations one derivation (the MAC's, a safe's, a key's) may ask for;
    /// default [`DEFAULT_MAX_ITERATIONS`].
    pub max_iterations: u32,
    /// The most iterations all of a file's derivations may ask for together, a MAC
    /// checked twice (the empty password, then the absent one) counting twice; default
    /// four times [`DEFAULT_MAX_ITERATIONS`] (a MAC, a safe of certificates and a key at
    /// the single limit fit, and the MAC of the empty password once more).
    pub max_total_iterations: u64,
    /// Whether the MAC is checked (default); `false` reads a file whose MAC is broken
    /// or made under another password (`openssl pkcs12 -nomacver`): a wrong password
    /// then fails where a safe or key does not decrypt, and nothing vouches for the
    /// file's integrity.
    pub verify_mac: bool,
}

impl Default for ParseOptions {
    fn default() -> ParseOptions {
        ParseOptions {
            max_iterations: DEFAULT_MAX_ITERATIONS,
            max_total_iterations: 4 * u64::from(DEFAULT_MAX_ITERATIONS),
            verify_mac: true,
        }
    }
}

/// Reads a DER PKCS#12 file with `password` under the default [`ParseOptions`].
pub fn parse(der: &[u8], password: &[u8]) -> Result<Pkcs12> {
    parse_with(der, password, &ParseOptions::default())
}

/// Reads a DER PKCS#12 file with `password`: checks the MAC (unless `opts` says not
/// to), decrypts every safe and shrouded key, parses every certificate.
///
/// Errors: `Verify` for a MAC that does not verify (a wrong password); `Malformed` for
/// structures that do not parse; `Unsupported` for public-key modes, PBMAC1 and schemes
/// [`cryptocard::pbe`] lacks; `Crypto(TOO_MANY_ITERATIONS)` for a derivation above either
/// limit of `opts`, before it is run.
pub fn parse_with(der: &[u8], password: &[u8], opts: &ParseOptions) -> Result<Pkcs12> {
    let pfx = Pfx::from_der(der).map_err(|e| malformed("PKCS#12 file (PFX)", e))?;
    if pfx.version != 3 {
        return Err(Error::Malformed(format!("PFX version {} (3 expected)", pfx.version)));
    }
    match pfx.auth_safe.content_type {
        ID_DATA => {}
        ID_SIGNED_DATA => {
            return Err(Error::Unsupported("a PFX in public-key integrity mode".into()));
        }
        other => return Err(Error::Malformed(format!("PFX content type {other}"))),
    }
    let data: OctetString =
        pfx.auth_safe.content.decode_as().map_err(|e| malformed("authenticated safe", e))?;
    let mut reader = Reader { opts, spent: 0, password: Some(password) };
    let mac = match &pfx.mac_data {
        Some(m) if !opts.verify_mac => Some(MacInfo::of(m)?),
        Some(m) => {
            // The empty password may be tried twice (empty, then absent).
            for _ in 0..if password.is_empty() { 2 } else { 1 } {
                reader.charge(MacInfo::of(m)?.iterations)?;
            }
            reader.password = mac::verify(m, password, data.as_bytes(), opts.max_iterations)?;
            Some(MacInfo::of(m)?)
        }
        None => None,
    };
    let auth_safe = Vec::<ContentInfo>::from_der(data.as_bytes())
        .map_err(|e| malformed("authenticated safe", e))?;
    let mut safes = Vec::with_capacity(auth_safe.len());
    for info in &auth_safe {
        safes.push(reader.safe(info)?);
    }
    Ok(Pkcs12 { mac, safes })
}

fn malformed(what: &str, e: der::Error) -> Error {
    Error::Malformed(format!("{what}: {e}"))
}

struct Reader<'a> {
    opts: &'a ParseOptions,
    /// Iterations charged so far.
    spent: u64,
    /// The password in the form the MAC verified with.
    password: Option<&'a [u8]>,
}

impl Reader<'_> {
    /// Charges a derivation to the file's budget, before it runs.
    fn charge(&mut self, iterations: u32) -> Result<()> {
        self.spent += u64::from(iterations);
        if iterations > self.opts.max_iterations || self.spent > self.opts.max_total_iterations {
            return Err(Error::Crypto(TOO_MANY_ITERATIONS));
        }
        Ok(())
    }

    /// Decrypts under a scheme (a DER `AlgorithmIdentifier`): the plaintext and
    /// OpenSSL's words for the scheme.
    fn decrypt(&mut self, alg: &[u8], ciphertext: &[u8]) -> Result<(Zeroizing<Vec<u8>>, String)> {
        self.charge(pbe::iterations(alg)?)?;
        let plain = pbe::decrypt(alg, self.password, ciphertext, self.opts.max_iterations)?;
        Ok((plain, pbe::describe(alg)?))
    }

    fn safe(&mut self, info: &ContentInfo) -> Result<Safe> {
        match info.content_type {
            ID_DATA => {
                let data: OctetString =
                    info.content.decode_as().map_err(|e| malformed("SafeContents", e))?;
                Ok(Safe { encryption: None, bags: self.bags(data.as_bytes(), 0)? })
            }
            ID_ENCRYPTED_DATA => {
                let enc: EncryptedData =
                    info.content.decode_as().map_err(|e| malformed("EncryptedData", e))?;
                let content = enc.enc_content_info;
                let alg = content.content_enc_alg.to_der()?;
                let ciphertext = content
                    .encrypted_content
                    .ok_or_else(|| Error::Malformed("EncryptedData without content".into()))?;
                let (plain, scheme) = self.decrypt(&alg, ciphertext.as_bytes())?;
                Ok(Safe { encryption: Some(scheme), bags: self.bags(&plain, 0)? })
            }
            ID_ENVELOPED_DATA => {
                Err(Error::Unsupported("a safe enveloped to a public key (privacy mode)".into()))
            }
            other => Err(Error::Malformed(format!("safe of content type {other}"))),
        }
    }

    /// The bags of a SafeContents, nested ones flattened in place.
    fn bags(&mut self, safe_contents: &[u8], depth: usize) -> Result<Vec<Bag>> {
        let bags =
            Vec::<SafeBag>::from_der(safe_contents).map_err(|e| malformed("SafeContents", e))?;
        let mut out = Vec::with_capacity(bags.len());
        for bag in bags {
            if bag.bag_id == SAFE_CONTENTS_BAG {
                if depth == MAX_NESTING {
                    return Err(Error::Malformed("safeContentsBags nested too deep".into()));
                }
                out.extend(self.bags(&bag.bag_value.to_der()?, depth + 1)?);
                continue;
            }
            let content = self.content(&bag)?;
            out.push(Bag { content, attributes: attr::read(bag.bag_attributes.as_ref()) });
        }
        Ok(out)
    }

    fn content(&mut self, bag: &SafeBag) -> Result<BagContent> {
        Ok(match bag.bag_id {
            KEY_BAG => {
                let pkcs8 = Zeroizing::new(bag.bag_value.to_der()?);
                let attributes = key_attributes(&pkcs8)?;
                BagContent::Key { pkcs8, shrouded: None, attributes }
            }
            SHROUDED_KEY_BAG => {
                let info: EncryptedPrivateKeyInfo =
                    bag.bag_value.decode_as().map_err(|e| malformed("shrouded key", e))?;
                let (pkcs8, scheme) =
                    self.decrypt(&info.algorithm.to_der()?, info.data.as_bytes())?;
                let attributes = key_attributes(&pkcs8)?;
                BagContent::Key { pkcs8, shrouded: Some(scheme), attributes }
            }
            CERT_BAG => {
                let cert: CertBag =
                    bag.bag_value.decode_as().map_err(|e| malformed("certBag", e))?;
                if cert.cert_id != X509_CERTIFICATE {
                    return Ok(BagContent::Other(bag.bag_id));
                }
                let cert = Certificate::from_der(cert.cert_value.as_bytes())
                    .map_err(|e| malformed("certificate in a certBag", e))?;
                BagContent::Cert(Box::new(cert))
            }
            other => BagContent::Other(other),
        })
    }
}

/// A key bag must hold a PKCS#8 `PrivateKeyInfo` (a decrypted one that does not was
/// decrypted with a wrong password whose padding happened to pass, or is corrupt): its
/// attributes.
fn key_attributes(pkcs8: &[u8]) -> Result<Vec<super::BagAttribute>> {
    let info = KeyInfo::from_der(pkcs8).map_err(|_| {
        Error::Malformed("private key bag: not a PKCS#8 key (wrong password?)".into())
    })?;
    Ok(attr::read(info.attributes.as_ref()))
}
