//! A SET of SignedData kept as its elements' DER, as they came: the `crls` field
//! (RFC 5652 section 10.2.1, `RevocationInfoChoices`), read CRL by CRL with `cert::Crl`
//! (the `cms` crate's type reads CRLs with `x509-cert`'s CertificateList, which refuses a
//! version 1 CRL, no version field, and would fail the whole message for one), and the
//! certificates written as issued (`signed.rs`) or in the order given (`certs_only.rs`).

use crate::Result;
use crate::cert::Crl;
use der::asn1::AnyRef;
use der::{Encode, Reader, Tag, Tagged};

/// A SET (`RevocationInfoChoices`, `CertificateSet`, ...): the DER of its elements, one
/// after the other, as they came.
#[derive(Clone, Debug)]
pub(super) struct RawSet(Vec<u8>);

impl RawSet {
    /// The set of `crls` (in DER's SET OF order), or `None` for none: the field is then
    /// left out.
    pub(super) fn of(crls: &[Crl]) -> Option<RawSet> {
        RawSet::sorted(crls.iter().map(Crl::to_der))
    }

    /// The set of `ders` in DER's SET OF order, repeats dropped, or `None` for none.
    pub(super) fn sorted<'a>(ders: impl IntoIterator<Item = &'a [u8]>) -> Option<RawSet> {
        let mut ders: Vec<&[u8]> = ders.into_iter().collect();
        if ders.is_empty() {
            return None;
        }
        // X.690 11.6: SET OF elements in ascending order of their encodings.
        ders.sort();
        ders.dedup();
        Some(RawSet(ders.concat()))
    }

    /// The DER of `items` in the order given (OpenSSL writes a certs-only message's
    /// certificates and CRLs in its stack's order, not sorted).
    pub(super) fn in_order<'a>(items: impl IntoIterator<Item = &'a [u8]>) -> RawSet {
        RawSet(items.into_iter().flatten().copied().collect())
    }

    /// The elements that are SEQUENCEs (a `CertificateChoices`' certificate, a
    /// `RevocationInfoChoice`'s CRL), each as its DER; the tagged choices are passed over.
    pub(super) fn sequences(&self) -> Result<Vec<Vec<u8>>> {
        let mut reader = der::SliceReader::new(&self.0)?;
        let mut out = Vec::new();
        while !reader.is_finished() {
            let item: AnyRef<'_> = reader.decode()?;
            if item.tag() == Tag::Sequence {
                out.push(item.to_der()?);
            }
        }
        Ok(out)
    }

    /// The CRLs: each `crl` choice (a SEQUENCE); the `other` choices (`[1]`, OCSP
    /// responses and the like) are passed over.
    pub(super) fn crls(&self) -> Result<Vec<Crl>> {
        self.sequences()?.iter().map(|der| Crl::from_der(der)).collect()
    }
}

impl<'a> der::DecodeValue<'a> for RawSet {
    type Error = der::Error;

    fn decode_value<R: Reader<'a>>(reader: &mut R, header: der::Header) -> der::Result<Self> {
        Ok(RawSet(reader.read_vec(header.length())?))
    }
}

impl der::EncodeValue for RawSet {
    fn value_len(&self) -> der::Result<der::Length> {
        der::Length::try_from(self.0.len())
    }

    fn encode_value(&self, writer: &mut impl der::Writer) -> der::Result<()> {
        writer.write(&self.0)
    }
}

impl der::FixedTag for RawSet {
    const TAG: Tag = Tag::Set;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_choices_are_passed_over_and_garbage_refused() {
        // An `other` choice ([1] constructed, empty) alone: no CRL.
        assert!(RawSet(vec![0xa1, 0x00]).crls().unwrap().is_empty());
        assert!(RawSet(vec![0x30, 0x03, 0x02, 0x01]).crls().is_err());
        assert!(RawSet(vec![0x30, 0x00]).crls().is_err());
        assert!(RawSet::of(&[]).is_none());
    }
}
