//! A time-stamp response read (RFC 3161 section 2.4.2), or a bare token: its status, and
//! for a granted one the token, read whole (its certificates and signers too, as
//! OpenSSL's `d2i_TS_RESP` reads it), and the TSTInfo inside it, found as OpenSSL finds
//! it (`PKCS7_to_TS_TST_INFO`: a SignedData with its content, of type id-ct-TSTInfo, in
//! an OCTET STRING).

use super::asn1::{GRANTED, GRANTED_WITH_MODS, PkiStatusInfo, TimeStampResp, TstInfo, small};
use super::{Failure, ID_CT_TST_INFO};
use crate::{Error, Result};
use cms::content_info::ContentInfo;
use const_oid::db::rfc5911::ID_SIGNED_DATA;
use der::asn1::{Int, ObjectIdentifier};
use der::{Any, Decode, Encode, Reader, Sequence, SliceReader, Tag, Tagged};

/// A response, or a token read as the granted response around it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    pub(crate) status: PkiStatusInfo,
    /// The token (a ContentInfo), as received.
    pub(crate) token: Option<Vec<u8>>,
    pub(crate) tst_info: Option<TstInfo>,
}

/// EncapsulatedContentInfo with its content kept as any type, to refuse one that is not
/// an OCTET STRING.
#[derive(Sequence)]
struct Encapsulated {
    econtent_type: ObjectIdentifier,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    econtent: Option<Any>,
}

impl Response {
    /// Reads a TimeStampResp (DER or BER).
    pub fn parse(der: &[u8]) -> Result<Response> {
        let resp = TimeStampResp::from_ber(der)
            .map_err(|e| Error::Malformed(format!("TimeStampResp: {e}")))?;
        let granted = small(&resp.status.status)
            .is_some_and(|s| s == i64::from(GRANTED) || s == i64::from(GRANTED_WITH_MODS));
        let (token, tst_info) = match (resp.time_stamp_token, granted) {
            (Some(_), false) => {
                return Err(Error::Malformed("a token in a response that is not granted".into()));
            }
            (None, true) => {
                return Err(Error::Malformed("a granted response without a token".into()));
            }
            (None, false) => (None, None),
            (Some(t), true) => {
                let der = t.to_der()?;
                let tst = tst_info_of(&der)?;
                (Some(der), Some(tst))
            }
        };
        Ok(Response { status: resp.status, token, tst_info })
    }

    /// A token (a SignedData ContentInfo, DER or BER) as the granted response around it
    /// (`openssl ts -token_in`).
    pub fn from_token(token: &[u8]) -> Result<Response> {
        let tst_info = tst_info_of(token)?;
        let ci =
            ContentInfo::from_ber(token).map_err(|e| Error::Malformed(format!("token: {e}")))?;
        let status =
            PkiStatusInfo { status: Int::new(&[GRANTED])?, status_string: None, fail_info: None };
        Ok(Response { status, token: Some(ci.to_der()?), tst_info: Some(tst_info) })
    }

    /// The response as DER.
    pub fn to_der(&self) -> Result<Vec<u8>> {
        let token = self.token.as_deref().map(Any::from_der).transpose()?;
        Ok(TimeStampResp { status: self.status.clone(), time_stamp_token: token }.to_der()?)
    }

    /// Whether a token was granted (status 0 or 1).
    pub fn granted(&self) -> bool {
        self.token.is_some()
    }

    /// The status value, `None` where it is negative or does not fit.
    pub fn status(&self) -> Option<i64> {
        small(&self.status.status)
    }

    /// The status texts.
    pub fn status_text(&self) -> &[String] {
        self.status.status_string.as_deref().unwrap_or_default()
    }

    /// The failure bits set.
    pub fn failures(&self) -> Vec<Failure> {
        let Some(bits) = &self.status.fail_info else { return Vec::new() };
        let bytes = bits.raw_bytes();
        let set = |bit: usize| bytes.get(bit / 8).is_some_and(|b| b & (0x80 >> (bit % 8)) != 0);
        Failure::ALL.into_iter().filter(|f| set(*f as usize)).collect()
    }

    /// The token (a SignedData ContentInfo, DER), if granted.
    pub fn token(&self) -> Option<&[u8]> {
        self.token.as_deref()
    }

    /// The serial number of the token's TSTInfo (INTEGER contents), if granted.
    pub fn serial(&self) -> Option<&[u8]> {
        self.tst_info.as_ref().map(|t| t.serial_number.as_bytes())
    }

    /// The time of the token's TSTInfo as written (`YYYYMMDDhhmmss[.s]Z`), if granted.
    pub fn gen_time(&self) -> Option<&str> {
        self.tst_info.as_ref().map(|t| t.gen_time.0.as_str())
    }

    /// The hash of the data the token's TSTInfo dates, if granted.
    pub fn digest(&self) -> Option<&[u8]> {
        self.tst_info.as_ref().map(|t| t.message_imprint.hashed_message.as_bytes())
    }

    /// The token's TSTInfo (DER), if granted.
    pub fn tst_info_der(&self) -> Option<Vec<u8>> {
        self.tst_info.as_ref().and_then(|t| t.to_der().ok())
    }

    /// The policy of the token's TSTInfo, if granted.
    pub fn policy(&self) -> Option<ObjectIdentifier> {
        self.tst_info.as_ref().map(|t| t.policy)
    }
}

/// The TSTInfo of a token.
pub(crate) fn tst_info_of(token: &[u8]) -> Result<TstInfo> {
    let bad = |what: &str| Error::Malformed(format!("time-stamp token: {what}"));
    let ci = ContentInfo::from_ber(token).map_err(|e| bad(&e.to_string()))?;
    if ci.content_type != ID_SIGNED_DATA {
        return Err(bad("not a SignedData"));
    }
    // All of it must read (its certificates too), as OpenSSL reads a token.
    crate::cms::parse_signed(token).map_err(|e| bad(&e.to_string()))?;
    let sd = ci.content.to_der()?;
    let encap = SliceReader::new(&sd)?.sequence(|r| -> der::Result<Encapsulated> {
        let _version: Int = r.decode()?;
        let _digest_algorithms: Any = r.decode()?;
        let encap: Encapsulated = r.decode()?;
        let rest = r.remaining_len();
        r.drain(rest)?;
        Ok(encap)
    })?;
    let Some(content) = encap.econtent else { return Err(bad("detached content")) };
    if encap.econtent_type != ID_CT_TST_INFO {
        return Err(bad("content type is not id-ct-TSTInfo"));
    }
    if content.tag() != Tag::OctetString {
        return Err(bad("content is not an OCTET STRING"));
    }
    TstInfo::from_der(content.value()).map_err(|e| bad(&format!("TSTInfo: {e}")))
}
