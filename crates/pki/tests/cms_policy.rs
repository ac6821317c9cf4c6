//! What CMS verification and decryption must refuse, whatever the message brings: decoy
//! certificates that would buy unbounded RSA work, CAs not meant for S/MIME, signers'
//! RSA keys under 1024 bits, unsigned attributes over content other than id-data, and an
//! envelope opened without `-recip` where another recipient's entry also "opens".

mod common;

use ::cms::content_info::ContentInfo;
use ::cms::enveloped_data::{EnvelopedData, RecipientIdentifier, RecipientInfo};
use common::{cert, ext, key, small_key, trust};
use const_oid::db::rfc5280::{ID_KP_EMAIL_PROTECTION, ID_KP_SERVER_AUTH};
use cryptocard::cipher::lookup;
use cryptocard::des::{Direction, Padding};
use cryptocard::digest::{HashAlg, Hasher};
use cryptocard::rng::OsRng;
use cryptocard::rsa::RsaPrivateKey;
use cryptocard_pki::Error;
use cryptocard_pki::cert::{self, CertBuilder, Extension, Profile};
use cryptocard_pki::cms::{
    self, ContentCipher, KeyTransport, Recipient, SignOptions, Signer, VerifyOptions,
};
use cryptocard_pki::sig::SigScheme;
use der::asn1::{ObjectIdentifier, OctetString};
use der::{Any, Decode, Encode};
use std::sync::Arc;
use x509_cert::Certificate;
use x509_cert::ext::pkix::{ExtendedKeyUsage, SubjectKeyIdentifier};

const MSG: &[u8] = b"Policy is what a verifier refuses.\n";

fn attached() -> SignOptions {
    SignOptions { detached: false, ..Default::default() }
}

fn eku(oid: ObjectIdentifier) -> Extension {
    ext(&ExtendedKeyUsage(vec![oid]), false)
}

fn signer(key: RsaPrivateKey, cert: Certificate) -> Signer {
    Signer { key: Arc::new(key), cert, scheme: SigScheme::DEFAULT, by_key_id: false }
}

/// A leaf for `key` with emailProtection, issued by `issuer`.
fn email_leaf(
    key: &RsaPrivateKey,
    issuer: &Certificate,
    issuer_key: &RsaPrivateKey,
) -> Certificate {
    CertBuilder::new(cert::parse_subject("/CN=policy signer").unwrap(), key.public_key())
        .unwrap()
        .profile(Profile::Leaf)
        .extension(eku(ID_KP_EMAIL_PROTECTION))
        .signed_by(issuer, issuer_key)
        .unwrap()
}

#[test]
fn decoy_certificates_in_a_message_buy_bounded_work() {
    // 250 certificates named like the intermediate, forging its key identifier, each
    // with another key; the real intermediate comes last.
    let inter = cert("inter");
    let ski = cert::subject_key_id(&inter).unwrap().unwrap();
    let (decoy_key, root_key) = (key("signer.key"), key("root.key"));
    let decoys: Vec<Certificate> = (1..=250u16)
        .map(|i| {
            CertBuilder::for_spki(inter.tbs_certificate().subject().clone(), {
                cryptocard_pki::sig::spki_of(decoy_key.public_key()).unwrap()
            })
            .serial(&i.to_be_bytes())
            .extension(ext(&SubjectKeyIdentifier(OctetString::new(ski.clone()).unwrap()), false))
            .signed_by(&cert("root"), &root_key)
            .unwrap()
        })
        .collect();
    let s = signer(key("signer.key"), cert("signer"));
    let opts = SignOptions { extra_certs: decoys, ..attached() };
    let der = cms::sign(MSG, std::slice::from_ref(&s), &opts).unwrap();
    let e = cms::verify(&der, None, &trust()).unwrap_err().to_string();
    assert!(e.contains("gave up after 16 failed signature checks"), "{e}");
    // Without the decoys the same signer verifies.
    let der = cms::sign(MSG, &[s], &attached()).unwrap();
    assert_eq!(cms::verify(&der, None, &trust()).unwrap().content, MSG);
}

#[test]
fn a_ca_restricted_to_tls_certifies_no_smime_signer() {
    let (root_key, ik, sk) = (key("root.key"), key("inter.key"), key("signer.key"));
    for (oid, ok) in [(ID_KP_SERVER_AUTH, false), (ID_KP_EMAIL_PROTECTION, true)] {
        let inter =
            CertBuilder::new(cert::parse_subject("/CN=policy CA").unwrap(), ik.public_key())
                .unwrap()
                .extension(eku(oid))
                .signed_by(&cert("root"), &root_key)
                .unwrap();
        let leaf = email_leaf(&sk, &inter, &ik);
        let opts = SignOptions { extra_certs: vec![inter], ..attached() };
        let der = cms::sign(MSG, &[signer(key("signer.key"), leaf)], &opts).unwrap();
        match cms::verify(&der, None, &trust()) {
            Ok(v) => assert!(ok && v.content == MSG),
            Err(e) => {
                let want = "unsuitable certificate purpose (depth 1: CN = policy CA)";
                assert!(!ok && e.to_string().contains(want), "{e}");
            }
        }
    }
}

#[test]
fn signer_keys_under_1024_bits_do_not_sign() {
    let k = small_key(768);
    let leaf = email_leaf(&k, &cert("inter"), &key("inter.key"));
    let der = cms::sign(MSG, &[signer(k, leaf)], &attached()).unwrap();
    let e = cms::verify(&der, None, &trust()).unwrap_err().to_string();
    assert!(e.contains("EE certificate key too weak (depth 0: CN = policy signer)"), "{e}");
    // Not even unchained (-noverify).
    let sig_only = VerifyOptions { no_chain: true, ..trust() };
    let e = cms::verify(&der, None, &sig_only).unwrap_err().to_string();
    assert!(e.contains("EE certificate key too weak"), "{e}");
    // A CA key under 1024 bits.
    let ik = small_key(768);
    let inter = CertBuilder::new(cert::parse_subject("/CN=small CA").unwrap(), ik.public_key())
        .unwrap()
        .signed_by(&cert("root"), &key("root.key"))
        .unwrap();
    let leaf = email_leaf(&key("signer.key"), &inter, &ik);
    let opts = SignOptions { extra_certs: vec![inter], ..attached() };
    let der = cms::sign(MSG, &[signer(key("signer.key"), leaf)], &opts).unwrap();
    let e = cms::verify(&der, None, &trust()).unwrap_err().to_string();
    assert!(e.contains("CA certificate key too weak (depth 1: CN = small CA)"), "{e}");
}

/// `der` with its first id-data OID (the encapsulated content type; the outer one is
/// id-signedData) changed to id-digestedData.
fn retyped(der: &[u8]) -> Vec<u8> {
    let id_data = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01];
    let at = der.windows(id_data.len()).position(|w| w == id_data).unwrap();
    let mut out = der.to_vec();
    out[at + id_data.len() - 1] = 0x05;
    out
}

#[test]
fn content_other_than_data_needs_signed_attributes() {
    let s = signer(key("signer.key"), cert("signer"));
    // Without attributes, the signature covers the content only: the type can be changed.
    let bare = SignOptions { signed_attrs: false, ..attached() };
    let der = cms::sign(MSG, std::slice::from_ref(&s), &bare).unwrap();
    assert!(cms::verify(&der, None, &trust()).is_ok());
    let e = cms::verify(&retyped(&der), None, &trust()).unwrap_err().to_string();
    assert!(e.contains("no signed attributes"), "{e}");
    // With them, the content-type attribute catches the change.
    let der = cms::sign(MSG, &[s], &attached()).unwrap();
    let e = cms::verify(&retyped(&der), None, &trust()).unwrap_err().to_string();
    assert!(e.contains("content type attribute does not match"), "{e}");
}

/// The CBC decryption of `ciphertext` under `cipher`, or `None` where its padding fails.
fn cbc_decrypt(cipher: &str, key: &[u8], iv: &[u8], ciphertext: &[u8]) -> Option<Vec<u8>> {
    let spec = lookup(cipher).unwrap();
    let mut ctx = spec.new_ctx(key, iv, Direction::Decrypt, Padding::Pkcs7).unwrap();
    let mut out = vec![0u8; ciphertext.len() + 16];
    let n = ctx.update(ciphertext, &mut out).ok()?;
    let m = ctx.finalize(&mut out[n..]).ok()?;
    out.truncate(n + m);
    Some(out)
}

/// An envelope to the signer and then to us (the test recipient), whose first entry
/// "opens" with our key: its encrypted key is a key, found by search, under which the
/// content's padding checks, encrypted to our key. Opening the signer's real entry with
/// our key gives a random key that does this one time in about 256; here it always does.
fn envelope_whose_other_entry_opens(ours_by_key_id: bool) -> Vec<u8> {
    let recipients = [
        Recipient { cert: cert("signer"), transport: KeyTransport::Pkcs1v15, by_key_id: false },
        Recipient {
            cert: cert("recipient"),
            transport: KeyTransport::Pkcs1v15,
            by_key_id: ours_by_key_id,
        },
    ];
    let der = cms::encrypt(MSG, &recipients, ContentCipher::from_name("aes128").unwrap()).unwrap();
    let ci = ContentInfo::from_der(&der).unwrap();
    let mut ed: EnvelopedData = ci.content.decode_as().unwrap();
    let eci = &ed.encrypted_content;
    let iv =
        OctetString::from_der(&eci.content_enc_alg.parameters.as_ref().unwrap().to_der().unwrap())
            .unwrap();
    let ciphertext = eci.encrypted_content.as_ref().unwrap().as_bytes();
    let (garbage_key, garbage) = (0u32..)
        .map(|i| Hasher::digest(HashAlg::Sha256, &i.to_be_bytes()).as_bytes()[..16].to_vec())
        .find_map(|k| cbc_decrypt("aes-128-cbc", &k, iv.as_bytes(), ciphertext).map(|g| (k, g)))
        .unwrap();
    assert_ne!(garbage, MSG);
    let mut infos: Vec<RecipientInfo> = ed.recip_infos.0.iter().cloned().collect();
    // The signer's entry (a SET OF is sorted by encoding, so it may come first or not).
    let signer_serial = cert("signer").tbs_certificate().serial_number().clone();
    let theirs = infos
        .iter_mut()
        .find_map(|ri| match ri {
            RecipientInfo::Ktri(k) => match &k.rid {
                RecipientIdentifier::IssuerAndSerialNumber(isn)
                    if isn.serial_number == signer_serial =>
                {
                    Some(k)
                }
                _ => None,
            },
            _ => None,
        })
        .unwrap();
    let ours = key("recipient.key");
    let wrapped = ours.public_key().encrypt_pkcs1v15(&garbage_key, &mut OsRng).unwrap();
    theirs.enc_key = OctetString::new(wrapped).unwrap();
    ed.recip_infos = infos.try_into().unwrap();
    ContentInfo { content_type: ci.content_type, content: Any::encode_from(&ed).unwrap() }
        .to_der()
        .unwrap()
}

#[test]
fn without_recip_another_recipients_entry_never_gives_garbage() {
    let ours = key("recipient.key");
    let der = envelope_whose_other_entry_opens(false);
    // Two entries open, to different keys: which one is ours is not guessed.
    let e = cms::decrypt(&der, &ours, None).unwrap_err();
    assert!(matches!(e, Error::NoMatch(_)), "{e}");
    assert!(e.to_string().contains("-recip"), "{e}");
    // With the certificate, ours is used.
    assert_eq!(&cms::decrypt(&der, &ours, Some(&cert("recipient"))).unwrap()[..], MSG);
    // Named by our key's identifier, ours is found without the certificate.
    let der = envelope_whose_other_entry_opens(true);
    assert_eq!(&cms::decrypt(&der, &ours, None).unwrap()[..], MSG);
    // Several entries for the same key open to the same content: no ambiguity.
    let same =
        Recipient { cert: cert("recipient"), transport: KeyTransport::Pkcs1v15, by_key_id: false };
    let der = cms::encrypt(MSG, &[same.clone(), same], ContentCipher::aes256()).unwrap();
    assert_eq!(&cms::decrypt(&der, &ours, None).unwrap()[..], MSG);
}
