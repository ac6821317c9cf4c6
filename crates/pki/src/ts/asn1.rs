//! The ASN.1 of time-stamping (RFC 3161 section 2.4 and appendix C, an IMPLICIT-tagged
//! module) and of the ESS signing-certificate attributes that bind a token to the TSA's
//! certificate (RFC 2634 section 5.4, RFC 5035 section 3).

use der::asn1::{Any, BitString, Int, ObjectIdentifier, OctetString};
use der::{DecodeValue, EncodeValue, FixedTag, Header, Length, Reader, Sequence, Tag, Writer};
use spki::AlgorithmIdentifierOwned;
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::serial_number::SerialNumber;

/// `MessageImprint`: the hash of the data time-stamped, with its algorithm.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct MessageImprint {
    pub hash_algorithm: AlgorithmIdentifierOwned,
    pub hashed_message: OctetString,
}

/// `TimeStampReq` (section 2.4.1).
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct TimeStampReq {
    pub version: Int,
    pub message_imprint: MessageImprint,
    #[asn1(optional = "true")]
    pub req_policy: Option<ObjectIdentifier>,
    #[asn1(optional = "true")]
    pub nonce: Option<Int>,
    #[asn1(default = "Default::default")]
    pub cert_req: bool,
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    pub extensions: Option<Vec<Extension>>,
}

/// `PKIStatusInfo` (section 2.4.2, from RFC 4210).
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct PkiStatusInfo {
    pub status: Int,
    #[asn1(optional = "true")]
    pub status_string: Option<Vec<String>>,
    #[asn1(optional = "true")]
    pub fail_info: Option<BitString>,
}

/// `TimeStampResp` (section 2.4.2): the token is a ContentInfo, kept as received.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct TimeStampResp {
    pub status: PkiStatusInfo,
    #[asn1(optional = "true")]
    pub time_stamp_token: Option<Any>,
}

/// `Accuracy` (section 2.4.2).
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct Accuracy {
    #[asn1(optional = "true")]
    pub seconds: Option<Int>,
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    pub millis: Option<Int>,
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", optional = "true")]
    pub micros: Option<Int>,
}

/// `TSTInfo` (section 2.4.2): what a token says, the signed content of its SignedData.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct TstInfo {
    pub version: Int,
    pub policy: ObjectIdentifier,
    pub message_imprint: MessageImprint,
    pub serial_number: Int,
    pub gen_time: GenTime,
    #[asn1(optional = "true")]
    pub accuracy: Option<Accuracy>,
    #[asn1(default = "Default::default")]
    pub ordering: bool,
    #[asn1(optional = "true")]
    pub nonce: Option<Int>,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    pub tsa: Option<GeneralName>,
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", optional = "true")]
    pub extensions: Option<Vec<Extension>>,
}

/// `IssuerSerial` (RFC 2634 section 5.4.1; RFC 5035 section 4).
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct IssuerSerial {
    pub issuer: Vec<GeneralName>,
    pub serial_number: SerialNumber,
}

/// `ESSCertID`: a certificate by its SHA-1 hash.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct EssCertId {
    pub cert_hash: OctetString,
    #[asn1(optional = "true")]
    pub issuer_serial: Option<IssuerSerial>,
}

/// `SigningCertificate` (RFC 2634 section 5.4).
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct SigningCertificate {
    pub certs: Vec<EssCertId>,
    #[asn1(optional = "true")]
    pub policies: Option<Vec<Any>>,
}

/// `ESSCertIDv2`: a certificate by a hash named beside it (SHA-256 when absent).
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct EssCertIdV2 {
    #[asn1(optional = "true")]
    pub hash_algorithm: Option<AlgorithmIdentifierOwned>,
    pub cert_hash: OctetString,
    #[asn1(optional = "true")]
    pub issuer_serial: Option<IssuerSerial>,
}

/// `SigningCertificateV2` (RFC 5035 section 3).
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub(crate) struct SigningCertificateV2 {
    pub certs: Vec<EssCertIdV2>,
    #[asn1(optional = "true")]
    pub policies: Option<Vec<Any>>,
}

/// A GeneralizedTime as `genTime` carries it: RFC 3161 section 2.4.2 allows fractions
/// of a second (`YYYYMMDDhhmmss[.s...]Z`), which the `der` crate's type refuses. The
/// text is kept as received; [`GenTime::parts`] reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GenTime(pub String);

/// A GeneralizedTime's fields: year, month, day, hour, minute, second, and the fraction's
/// digits (empty for none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TimeParts<'a> {
    pub year: u32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub fraction: &'a str,
}

impl GenTime {
    /// The fields of a `YYYYMMDDhhmmss[.d+]Z` time with every field in range, or `None`.
    pub fn parts(&self) -> Option<TimeParts<'_>> {
        let s = self.0.strip_suffix('Z')?;
        let (whole, fraction) = match s.split_once('.') {
            Some((w, f)) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => (w, f),
            Some(_) => return None,
            None => (s, ""),
        };
        if whole.len() != 14 || !whole.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n = |r: core::ops::Range<usize>| whole[r].parse::<u32>().ok();
        let t = TimeParts {
            year: n(0..4)?,
            month: n(4..6)?,
            day: n(6..8)?,
            hour: n(8..10)?,
            minute: n(10..12)?,
            second: n(12..14)?,
            fraction,
        };
        let days = crate::asn1::days_in_month(t.year, t.month)?;
        let day_ok = t.day >= 1 && t.day <= days;
        (day_ok && t.hour < 24 && t.minute < 60 && t.second < 60).then_some(t)
    }
}

impl FixedTag for GenTime {
    const TAG: Tag = Tag::GeneralizedTime;
}

impl<'a> DecodeValue<'a> for GenTime {
    type Error = der::Error;

    fn decode_value<R: Reader<'a>>(reader: &mut R, header: Header) -> der::Result<GenTime> {
        let bytes = reader.read_vec(header.length())?;
        let text = String::from_utf8(bytes)
            .map_err(|_| der::Error::from(der::ErrorKind::Value { tag: Tag::GeneralizedTime }))?;
        Ok(GenTime(text))
    }
}

impl EncodeValue for GenTime {
    fn value_len(&self) -> der::Result<Length> {
        Length::try_from(self.0.len())
    }

    fn encode_value(&self, writer: &mut impl Writer) -> der::Result<()> {
        writer.write(self.0.as_bytes())
    }
}

/// PKIStatus values (RFC 3161 section 2.4.2).
pub(crate) const GRANTED: u8 = 0;
pub(crate) const GRANTED_WITH_MODS: u8 = 1;
pub(crate) const REJECTION: u8 = 2;

/// An INTEGER's content as a small unsigned value (the status and version fields), or
/// `None` where it is negative or does not fit.
pub(crate) fn small(i: &Int) -> Option<i64> {
    let b = i.as_bytes();
    if b.is_empty() || b[0] & 0x80 != 0 || b.len() > 8 {
        return None;
    }
    Some(b.iter().fold(0i64, |a, &x| (a << 8) | i64::from(x)))
}

/// The INTEGER with magnitude `m` (big-endian, no sign): a leading zero where the top bit
/// is set.
pub(crate) fn positive(m: &[u8]) -> der::Result<Int> {
    let start = m.iter().position(|&b| b != 0).unwrap_or(m.len().saturating_sub(1));
    let m = &m[start.min(m.len())..];
    if m.is_empty() {
        return Int::new(&[0]);
    }
    if m[0] & 0x80 != 0 { Int::new(&[&[0], m].concat()) } else { Int::new(m) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use der::{Decode, Encode};

    #[test]
    fn times_with_and_without_fractions() {
        let t = GenTime("20261203131500.25Z".into());
        let p = t.parts().unwrap();
        assert_eq!((p.year, p.month, p.day, p.hour, p.minute, p.second), (2026, 12, 3, 13, 15, 0));
        assert_eq!(p.fraction, "25");
        assert!(GenTime("20261203131500Z".into()).parts().is_some());
        for bad in [
            "20261203131500",
            "20261303131500Z",
            "20260230131500Z",
            "20261203131500.Z",
            "2026120313150Z",
        ] {
            assert!(GenTime(bad.into()).parts().is_none(), "{bad}");
        }
        assert!(GenTime("20240229000000Z".into()).parts().is_some());
        let der = t.to_der().unwrap();
        assert_eq!(der[0], 0x18);
        assert_eq!(GenTime::from_der(&der).unwrap(), t);
    }

    #[test]
    fn integers() {
        assert_eq!(positive(&[0x80]).unwrap().as_bytes(), [0, 0x80]);
        assert_eq!(positive(&[0, 0, 5]).unwrap().as_bytes(), [5]);
        assert_eq!(positive(&[]).unwrap().as_bytes(), [0]);
        assert_eq!(small(&positive(&[1]).unwrap()), Some(1));
        assert_eq!(small(&Int::new(&[0xff]).unwrap()), None);
    }
}
