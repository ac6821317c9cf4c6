//! A time-stamping authority's answer (RFC 3161 section 2.4.2), as OpenSSL's TSA makes it
//! (`TS_RESP_create_response`): a request is checked (version 1, a hash the TSA accepts,
//! with NULL or no parameters and a digest of its length, a policy it offers, no
//! extensions) and refused with a status and failure bit saying why, or granted with a
//! token: a SignedData (version 3) whose content is the TSTInfo (the request's imprint
//! and nonce, the policy, a serial number, the time to the configured precision, the
//! accuracy, ordering and the TSA's name if configured), signed with PKCS#1 v1.5 over
//! the content type, signing time, message digest and the ESS signing-certificate
//! attributes ([`super::ess`]); the TSA's certificate and chain are included when the
//! request asks for them. A request refused never spends a serial number (OpenSSL's TSA
//! takes one before it refuses a request for its extensions).
//!
//! The token's RSA operation runs on the calling thread ([`Tsa::reply`]), through the
//! engine, where the operations of a server's connections batch ([`Tsa::reply_on`]), or
//! for many requests at once in one batch ([`Tsa::reply_batch`]): a TSA is a signing
//! service, the work the seed papers' accelerator card was for.

use super::asn1::{
    Accuracy as AccuracyAsn1, GRANTED, GenTime, PkiStatusInfo, REJECTION, TimeStampResp, TstInfo,
    positive,
};
use super::request::Request;
use super::{Failure, ID_CT_TST_INFO};
use crate::cert::Purpose;
use crate::cms::{self, SignOptions, Signer};
use crate::sig::SigScheme;
use crate::{Error, Result};
use const_oid::ObjectIdentifier;
use cryptocard::digest::HashAlg;
use cryptocard::engine::Engine;
use cryptocard::rsa::RsaPrivateKey;
use der::asn1::{BitString, Int};
use der::{Any, Decode, Encode};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use x509_cert::Certificate;
use x509_cert::ext::pkix::name::GeneralName;

/// The most fraction digits a TSA's clock gives (OpenSSL's `TS_MAX_CLOCK_PRECISION_DIGITS`).
pub const MAX_CLOCK_PRECISION_DIGITS: u8 = 6;

/// How accurate the TSA's time is: the accuracy field of its tokens, left out when all
/// three are zero, each part left out when zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accuracy {
    /// Seconds.
    pub seconds: u32,
    /// Milliseconds (1 to 999).
    pub millis: u32,
    /// Microseconds (1 to 999).
    pub micros: u32,
}

/// A time-stamping authority: its key and certificate, and how it answers.
#[derive(Clone, Debug)]
pub struct Tsa {
    key: Arc<RsaPrivateKey>,
    cert: Certificate,
    /// The TSA's CA certificates: sent when a request asks for certificates, and named
    /// in the signing-certificate attribute with `ess_cert_id_chain`.
    pub chain: Vec<Certificate>,
    /// The hash of the token's signature (`signer_digest`).
    pub signer_digest: HashAlg,
    /// The hash of the signing-certificate attribute (`ess_cert_id_alg`): SHA-1 makes a
    /// version 1 attribute, another hash version 2.
    pub ess_cert_id_alg: HashAlg,
    /// Name the chain in the signing-certificate attribute too (`ess_cert_id_chain`).
    pub ess_cert_id_chain: bool,
    /// The policy of tokens whose request names none (`default_policy`).
    pub default_policy: ObjectIdentifier,
    /// The other policies a request may name (`other_policies`).
    pub other_policies: Vec<ObjectIdentifier>,
    /// The hashes accepted in requests (`digests`).
    pub digests: Vec<HashAlg>,
    /// The accuracy stated (`accuracy`).
    pub accuracy: Accuracy,
    /// Fraction-of-second digits of the time (`clock_precision_digits`, at most
    /// [`MAX_CLOCK_PRECISION_DIGITS`]).
    pub clock_precision_digits: u8,
    /// Tokens are ordered by their times (`ordering`).
    pub ordering: bool,
    /// Put the TSA's subject in its tokens (`tsa_name`).
    pub tsa_name: bool,
}

/// An answer: the TimeStampResp (DER), and whether it grants a token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The TimeStampResp.
    pub der: Vec<u8>,
    /// Whether a token was granted (so the serial number was used).
    pub granted: bool,
}

impl Tsa {
    /// A TSA signing with `key` under `cert`, which must be for time stamping (RFC 3161
    /// section 2.3: a critical extendedKeyUsage of id-kp-timeStamping alone) and match
    /// the key; the other settings at OpenSSL's defaults (SHA-256 signatures and
    /// signing-certificate IDs, SHA-256 requests only, no accuracy, whole seconds).
    pub fn new(
        key: Arc<RsaPrivateKey>,
        cert: Certificate,
        default_policy: ObjectIdentifier,
    ) -> Result<Tsa> {
        if !Purpose::TimestampSign.allows(&cert) {
            return Err(Error::Unsupported(
                "invalid signer certificate purpose: a TSA certificate needs a critical extendedKeyUsage of timeStamping alone".into(),
            ));
        }
        let cert_key =
            crate::sig::public_key_from_spki(cert.tbs_certificate().subject_public_key_info())?;
        if cert_key != *key.public_key() {
            return Err(Error::NoMatch(
                "the private key does not match the signer certificate".into(),
            ));
        }
        Ok(Tsa {
            key,
            cert,
            chain: Vec::new(),
            signer_digest: HashAlg::Sha256,
            ess_cert_id_alg: HashAlg::Sha256,
            ess_cert_id_chain: false,
            default_policy,
            other_policies: Vec::new(),
            digests: vec![HashAlg::Sha256],
            accuracy: Accuracy::default(),
            clock_precision_digits: 0,
            ordering: false,
            tsa_name: false,
        })
    }

    /// The answer to the request `der`: a token with time `now` and the serial number
    /// `serial` gives (big-endian magnitude; it is asked for only once the request has
    /// passed every check, so that a refused request spends none, and `None` refuses the
    /// request as OpenSSL does when its serial file cannot be read), or a rejection
    /// saying why. An error only where the token cannot be made (a signing failure).
    pub fn reply(
        &self,
        der: &[u8],
        serial: &mut dyn FnMut() -> Option<Vec<u8>>,
        now: SystemTime,
    ) -> Result<Reply> {
        self.answer(der, serial, now, |tst_info, signer, opts| cms::sign(tst_info, &[signer], opts))
    }

    /// [`Tsa::reply`] with the token's RSA operation run by `engine`, which batches the
    /// operations of the threads that call it at once (a TSA server's connections).
    pub fn reply_on(
        &self,
        engine: &Engine,
        der: &[u8],
        serial: &mut dyn FnMut() -> Option<Vec<u8>>,
        now: SystemTime,
    ) -> Result<Reply> {
        self.answer(der, serial, now, |tst_info, signer, opts| {
            let mut out = cms::sign_many(engine, &[tst_info], &signer, opts);
            out.pop().unwrap_or_else(|| Err(Error::Unsupported("no token made".into())))
        })
    }

    /// The answer to `der`: a rejection, or the token `sign` makes of the TSTInfo.
    fn answer(
        &self,
        der: &[u8],
        serial: &mut dyn FnMut() -> Option<Vec<u8>>,
        now: SystemTime,
        sign: impl FnOnce(&[u8], Signer, &SignOptions) -> Result<Vec<u8>>,
    ) -> Result<Reply> {
        match self.step(der, serial, now)? {
            Step::Done(reply) => Ok(reply),
            Step::Sign { tst_info, with_certs } => {
                let (signer, opts) = self.signing(with_certs, now)?;
                granted(sign(&tst_info, signer, &opts)?)
            }
        }
    }

    /// [`Tsa::reply`] for each of `requests`, their tokens' RSA operations in one
    /// [`private_batch`](cryptocard::rsa::private_batch) on the calling thread (the IFMA
    /// unit's eight lanes filled where the CPU has it). Serial numbers are asked for in
    /// the order of the requests; each request fails alone.
    pub fn reply_batch(
        &self,
        requests: &[&[u8]],
        serial: &mut dyn FnMut() -> Option<Vec<u8>>,
        now: SystemTime,
    ) -> Vec<Result<Reply>> {
        let steps: Vec<Result<Step>> = requests.iter().map(|r| self.step(r, serial, now)).collect();
        let mut out: Vec<Option<Result<Reply>>> = Vec::with_capacity(steps.len());
        // Tokens with and without the certificates are signed in two batches.
        let mut pending: [Vec<(usize, Vec<u8>)>; 2] = [Vec::new(), Vec::new()];
        for (i, step) in steps.into_iter().enumerate() {
            match step {
                Ok(Step::Done(reply)) => out.push(Some(Ok(reply))),
                Err(e) => out.push(Some(Err(e))),
                Ok(Step::Sign { tst_info, with_certs }) => {
                    out.push(None);
                    pending[usize::from(with_certs)].push((i, tst_info));
                }
            }
        }
        for (with_certs, group) in pending.iter().enumerate() {
            if group.is_empty() {
                continue;
            }
            let signing = self.signing(with_certs == 1, now);
            let contents: Vec<&[u8]> = group.iter().map(|(_, t)| t.as_slice()).collect();
            let tokens = match &signing {
                Ok((signer, opts)) => cms::sign_batch(&contents, signer, opts),
                Err(_) => Vec::new(),
            };
            let mut tokens = tokens.into_iter();
            for (i, _) in group {
                out[*i] = Some(match (&signing, tokens.next()) {
                    (Err(e), _) => Err(Error::Unsupported(format!("signing: {e}"))),
                    (Ok(_), Some(token)) => token.and_then(granted),
                    (Ok(_), None) => Err(Error::Unsupported("no token made".into())),
                });
            }
        }
        out.into_iter().map(|r| r.unwrap_or(Err(Error::Unsupported("no answer".into())))).collect()
    }

    /// The request `der` checked, as `TS_RESP_create_response` checks it: a rejection,
    /// or the TSTInfo (DER) to sign and whether the certificates go with the token.
    fn step(
        &self,
        der: &[u8],
        serial: &mut dyn FnMut() -> Option<Vec<u8>>,
        now: SystemTime,
    ) -> Result<Step> {
        let refuse = |text: &str, failure: Failure| rejection(text, failure).map(Step::Done);
        let Ok(request) = Request::parse(der) else {
            return refuse("Bad request format or system error.", Failure::BadDataFormat);
        };
        if let Err((text, failure)) = self.check(&request) {
            return refuse(text, failure);
        }
        let policy = match request.policy() {
            None => self.default_policy,
            Some(p) if p == self.default_policy || self.other_policies.contains(&p) => p,
            Some(_) => {
                return refuse("Requested policy is not supported.", Failure::UnacceptedPolicy);
            }
        };
        // (OpenSSL takes the serial number before it looks at the extensions.)
        if !request.extensions().is_empty() {
            return refuse("Unsupported extension.", Failure::UnacceptedExtension);
        }
        let Some(serial) = serial() else {
            return refuse("Error during serial number generation.", Failure::AddInfoNotAvailable);
        };
        let tst_info = self.tst_info(&request, policy, &serial, now)?.to_der()?;
        Ok(Step::Sign { tst_info, with_certs: request.cert_req() })
    }

    /// The checks of `TS_RESP_create_response` before the policy, with the status text
    /// and failure of the first that fails.
    fn check(&self, request: &Request) -> core::result::Result<(), (&'static str, Failure)> {
        if request.version() != Some(1) {
            return Err(("Bad request version.", Failure::BadRequest));
        }
        let imprint = &request.req.message_imprint;
        let hash = HashAlg::from_oid(&imprint.hash_algorithm.oid.to_string())
            .ok()
            .filter(|h| self.digests.contains(h))
            .ok_or(("Message digest algorithm is not supported.", Failure::BadAlg))?;
        if imprint.hash_algorithm.parameters.as_ref().is_some_and(|p| !p.is_null()) {
            return Err(("Superfluous message digest parameter.", Failure::BadAlg));
        }
        if request.digest().len() != hash.output_len() {
            return Err(("Bad message digest.", Failure::BadDataFormat));
        }
        Ok(())
    }

    fn tst_info(
        &self,
        request: &Request,
        policy: ObjectIdentifier,
        serial: &[u8],
        now: SystemTime,
    ) -> Result<TstInfo> {
        let a = self.accuracy;
        let part = |v: u32| (v != 0).then(|| positive(&v.to_be_bytes())).transpose();
        let accuracy = match a == Accuracy::default() {
            true => None,
            false => Some(AccuracyAsn1 {
                seconds: part(a.seconds)?,
                millis: part(a.millis)?,
                micros: part(a.micros)?,
            }),
        };
        Ok(TstInfo {
            version: Int::new(&[1])?,
            policy,
            message_imprint: request.req.message_imprint.clone(),
            serial_number: positive(serial)?,
            gen_time: gen_time(now, self.clock_precision_digits)?,
            accuracy,
            ordering: self.ordering,
            nonce: request.req.nonce.clone(),
            tsa: self
                .tsa_name
                .then(|| GeneralName::DirectoryName(self.cert.tbs_certificate().subject().clone())),
            extensions: None,
        })
    }

    /// The signer and options of a token: SignedData over the TSTInfo, with the
    /// certificates if asked for.
    fn signing(&self, with_certs: bool, now: SystemTime) -> Result<(Signer, SignOptions)> {
        let named_chain = if self.ess_cert_id_chain { self.chain.as_slice() } else { &[] };
        let signer = Signer {
            key: Arc::clone(&self.key),
            cert: self.cert.clone(),
            scheme: SigScheme::Pkcs1v15(self.signer_digest),
            by_key_id: false,
        };
        let opts = SignOptions {
            detached: false,
            include_certs: with_certs,
            extra_certs: if with_certs { self.chain.clone() } else { Vec::new() },
            signed_attrs: true,
            smime_capabilities: false,
            signing_time: Some(now),
            crls: Vec::new(),
            content_type: ID_CT_TST_INFO,
            extra_attrs: vec![super::ess::attribute(
                &self.cert,
                named_chain,
                self.ess_cert_id_alg,
            )?],
        };
        Ok((signer, opts))
    }
}

/// What a checked request comes to.
enum Step {
    /// A rejection.
    Done(Reply),
    /// A TSTInfo (DER) to sign, with or without the TSA's certificates.
    Sign { tst_info: Vec<u8>, with_certs: bool },
}

/// The granted response around `token`.
fn granted(token: Vec<u8>) -> Result<Reply> {
    let resp = TimeStampResp {
        status: PkiStatusInfo {
            status: Int::new(&[GRANTED])?,
            status_string: None,
            fail_info: None,
        },
        time_stamp_token: Some(Any::from_der(&token)?),
    };
    Ok(Reply { der: resp.to_der()?, granted: true })
}

/// A rejection (status 2) with `text` and the `failure` bit.
fn rejection(text: &str, failure: Failure) -> Result<Reply> {
    let bit = failure as usize;
    let mut bytes = vec![0u8; bit / 8 + 1];
    bytes[bit / 8] |= 0x80 >> (bit % 8);
    let unused = (7 - bit % 8) as u8;
    let resp = TimeStampResp {
        status: PkiStatusInfo {
            status: Int::new(&[REJECTION])?,
            status_string: Some(vec![text.to_string()]),
            fail_info: Some(BitString::new(unused, bytes)?),
        },
        time_stamp_token: None,
    };
    Ok(Reply { der: resp.to_der()?, granted: false })
}

/// `now` as genTime with `digits` digits of fraction, trailing zeros dropped (DER), as
/// OpenSSL's `TS_RESP_set_genTime_with_precision` writes it.
fn gen_time(now: SystemTime, digits: u8) -> Result<GenTime> {
    if digits > MAX_CLOCK_PRECISION_DIGITS {
        return Err(Error::Unsupported(format!(
            "clock_precision_digits above {MAX_CLOCK_PRECISION_DIGITS}"
        )));
    }
    let since = now
        .duration_since(UNIX_EPOCH)
        .map_err(|_| Error::Unsupported("a time before 1970".into()))?;
    let whole = der::asn1::GeneralizedTime::from_unix_duration(std::time::Duration::from_secs(
        since.as_secs(),
    ))?;
    let mut text = String::from_utf8(whole.to_der()?[2..].to_vec())
        .map_err(|_| Error::Unsupported("time text".into()))?;
    text.pop(); // the Z
    let fraction = format!("{:06}", since.subsec_micros());
    let fraction = fraction[..usize::from(digits)].trim_end_matches('0');
    if !fraction.is_empty() {
        text.push('.');
        text.push_str(fraction);
    }
    text.push('Z');
    Ok(GenTime(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn times_to_the_precision_asked() {
        let t = UNIX_EPOCH + Duration::from_micros(1_764_767_700_120_300);
        assert_eq!(gen_time(t, 0).unwrap().0, "20251203131500Z");
        assert_eq!(gen_time(t, 1).unwrap().0, "20251203131500.1Z");
        assert_eq!(gen_time(t, 3).unwrap().0, "20251203131500.12Z");
        assert_eq!(gen_time(t, 6).unwrap().0, "20251203131500.1203Z");
        let whole = UNIX_EPOCH + Duration::from_secs(1_764_767_700);
        assert_eq!(gen_time(whole, 6).unwrap().0, "20251203131500Z");
        assert!(gen_time(t, 7).is_err());
    }

    #[test]
    fn rejections_carry_one_failure_bit() {
        let r = rejection("Bad message digest.", Failure::BadDataFormat).unwrap();
        let resp = TimeStampResp::from_der(&r.der).unwrap();
        let bits = resp.status.fail_info.unwrap();
        // badDataFormat is bit 5: one byte, two unused bits.
        assert_eq!(bits.raw_bytes(), [0x04]);
        assert_eq!(bits.unused_bits(), 2);
        assert!(!r.granted);
        let r = rejection("x", Failure::SystemFailure).unwrap();
        let bits = TimeStampResp::from_der(&r.der).unwrap().status.fail_info.unwrap();
        assert_eq!(bits.raw_bytes(), [0, 0, 0, 0x40]);
    }
}
