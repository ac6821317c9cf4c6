//! The `crls` field of SignedData (RFC 5652 section 10.2.1, `RevocationInfoChoices`),
//! read and written as the SET's content, CRL by CRL with `cert::Crl`: the `cms` crate's
//! type reads CRLs with `x509-cert`'s CertificateList, which refuses a version 1 CRL (no
//! version field), so one such CRL would fail the whole message.

use crate::Result;
use crate::cert::Crl;
use der::asn1::AnyRef;
use der::{Encode, Reader, Tag, Tagged};

/// `RevocationInfoChoices`: the DER of its elements, one after the other.
#[derive(Clone, Debug)]
pub(super) struct RevocationSet(Vec<u8>);

impl RevocationSet {
    /// The set of `crls` (in DER's SET OF order), or `None` for none: the field is then
    /// left out.
    pub(super) fn of(crls: &[Crl]) -> Option<RevocationSet> {
        let mut ders: Vec<&[u8]> = crls.iter().map(Crl::to_der).collect();
        if ders.is_empty() {
            return None;
        }
        // X.690 11.6: SET OF elements in ascending order of their encodings.
        ders.sort();
        ders.dedup();
        Some(RevocationSet(ders.concat()))
    }

    /// The CRLs: each `crl` choice (a SEQUENCE); the `other` choices (`[1]`, OCSP
    /// responses and the like) are passed over.
    pub(super) fn crls(&self) -> Result<Vec<Crl>> {
        let mut reader = der::SliceReader::new(&self.0)?;
        let mut crls = Vec::new();
        while !reader.is_finished() {
            let item: AnyRef<'_> = reader.decode()?;
            if item.tag() == Tag::Sequence {
                crls.push(Crl::from_der(&item.to_der()?)?);
            }
        }
        Ok(crls)
    }
}

impl<'a> der::DecodeValue<'a> for RevocationSet {
    type Error = der::Error;

    fn decode_value<R: Reader<'a>>(reader: &mut R, header: der::Header) -> der::Result<Self> {
        Ok(RevocationSet(reader.read_vec(header.length())?))
    }
}

impl der::EncodeValue for RevocationSet {
    fn value_len(&self) -> der::Result<der::Length> {
        der::Length::try_from(self.0.len())
    }

    fn encode_value(&self, writer: &mut impl der::Writer) -> der::Result<()> {
        writer.write(&self.0)
    }
}

impl der::FixedTag for RevocationSet {
    const TAG: Tag = Tag::Set;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_choices_are_passed_over_and_garbage_refused() {
        // An `other` choice ([1] constructed, empty) alone: no CRL.
        assert!(RevocationSet(vec![0xa1, 0x00]).crls().unwrap().is_empty());
        assert!(RevocationSet(vec![0x30, 0x03, 0x02, 0x01]).crls().is_err());
        assert!(RevocationSet(vec![0x30, 0x00]).crls().is_err());
        assert!(RevocationSet::of(&[]).is_none());
    }
}
