//! The integrity of a PFX in password mode (RFC 7292 section 5.1 and appendix B): an
//! HMAC over the authenticated safe's bytes, keyed by the PKCS#12 derivation with purpose
//! 3 and the `MacData`'s salt and iteration count. The digest is the `DigestInfo`'s
//! (SHA-1 in old files, SHA-256 from OpenSSL 3).

use super::asn1::{DigestInfo, MacData, PBMAC1};
use crate::{Error, Result};
use cryptocard::digest::{DynHmac, HashAlg};
use cryptocard::pbe::{Purpose, TOO_MANY_ITERATIONS, bmp_password, pkcs12_kdf};
use der::Any;
use der::asn1::OctetString;
use spki::AlgorithmIdentifierOwned;
use zeroize::Zeroizing;

/// What a file's MAC is: its digest, iterations, and lengths (for `-info`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacInfo {
    /// The HMAC's digest.
    pub digest: HashAlg,
    /// The derivation's iteration count.
    pub iterations: u32,
    /// The MAC's length in bytes.
    pub mac_len: usize,
    /// The salt's length in bytes.
    pub salt_len: usize,
}

impl MacInfo {
    /// Reads a `MacData` without checking it. Errors: `Unsupported` for PBMAC1 (RFC
    /// 9579) and digests the PKCS#12 derivation is not defined on here.
    pub(super) fn of(mac: &MacData) -> Result<MacInfo> {
        let oid = mac.mac.algorithm.oid;
        if oid == PBMAC1 {
            return Err(Error::Unsupported("PBMAC1 (RFC 9579) integrity".into()));
        }
        let digest = HashAlg::from_oid(&oid.to_string())
            .ok()
            .filter(|h| !matches!(h, HashAlg::Md2 | HashAlg::Md4))
            .ok_or_else(|| Error::Unsupported(format!("PKCS#12 MAC digest {oid}")))?;
        Ok(MacInfo {
            digest,
            iterations: mac.iterations.unwrap_or(1),
            mac_len: mac.mac.digest.as_bytes().len(),
            salt_len: mac.mac_salt.as_bytes().len(),
        })
    }
}

/// The HMAC of `data` under the key derived from `password` (a BMPString, see
/// [`bmp_password`]).
fn compute(info: &MacInfo, salt: &[u8], password: &[u8], data: &[u8]) -> Result<DynHmac> {
    let mut key = Zeroizing::new(vec![0u8; info.digest.output_len()]);
    pkcs12_kdf(info.digest, password, salt, Purpose::Mac, info.iterations, &mut key)?;
    let mut hmac = DynHmac::new(info.digest, &key);
    hmac.update(data);
    Ok(hmac)
}

/// Checks the MAC over `data`, trying `password` and, where it is empty, the absent
/// password too (OpenSSL 3 writes the empty one; older tools wrote none). Returns which
/// form verified, for the decryption of the bags. Errors: `Verify` when neither does;
/// [`TOO_MANY_ITERATIONS`] above `max_iterations`, before any work.
pub(super) fn verify<'a>(
    mac: &MacData,
    password: &'a [u8],
    data: &[u8],
    max_iterations: u32,
) -> Result<Option<&'a [u8]>> {
    let info = MacInfo::of(mac)?;
    if info.iterations == 0 {
        return Err(Error::Malformed("MAC iteration count is zero".into()));
    }
    if info.iterations > max_iterations {
        return Err(Error::Crypto(TOO_MANY_ITERATIONS));
    }
    let forms: &[Option<&[u8]>] =
        if password.is_empty() { &[Some(password), None] } else { &[Some(password)] };
    for &form in forms {
        let hmac = compute(&info, mac.mac_salt.as_bytes(), &bmp_password(form), data)?;
        if hmac.verify(mac.mac.digest.as_bytes()).is_ok() {
            return Ok(form);
        }
    }
    Err(Error::Verify("mac verify error: invalid password?".into()))
}

/// A `MacData` over `data` with `digest`, `iterations` and `salt`.
pub(super) fn make(
    digest: HashAlg,
    iterations: u32,
    salt: &[u8],
    password: &[u8],
    data: &[u8],
) -> Result<MacData> {
    let info = MacInfo { digest, iterations, mac_len: digest.output_len(), salt_len: salt.len() };
    let tag = compute(&info, salt, &bmp_password(Some(password)), data)?.finalize();
    let oid = digest.oid().parse().map_err(|_| Error::Unsupported(digest.name().into()))?;
    Ok(MacData {
        mac: DigestInfo {
            algorithm: AlgorithmIdentifierOwned { oid, parameters: Some(Any::null()) },
            digest: OctetString::new(tag.as_bytes())?,
        },
        mac_salt: OctetString::new(salt)?,
        iterations: Some(iterations),
    })
}
