//! RSAES-OAEP (RFC 8017 section 7.1) with EME-OAEP encoding.
//!
//! ```text
//! DB = lHash || PS (zeros) || 0x01 || M          lHash = Hash(L), L the label
//! maskedDB   = DB   xor MGF(seed, k - hLen - 1)
//! maskedSeed = seed xor MGF(maskedDB, hLen)
//! EM = 0x00 || maskedSeed || maskedDB
//! ```
//!
//! The hash, the MGF1 hash and the label are separate parameters ([`Oaep`]), as in
//! RFC 4055 `RSAES-OAEP-params` and OpenSSL's `rsa_oaep_md`, `rsa_mgf1_md`,
//! `rsa_oaep_label`.
//!
//! # Decryption in constant time (7.1.2 note; Manger, CRYPTO 2001)
//!
//! Manger's attack needs only to tell "the first byte Y was not zero" from any other
//! failure, by the error or by the time it took. So decryption computes everything
//! whatever Y is: both masks, the label hash comparison, and a scan of the whole DB for
//! the 0x01 separator with masked index selection; the three outcomes are combined into
//! one mask and tested once, at the end. A failure is [`Error::Decryption`], with no
//! detail. What leaks: whether decryption succeeded, and the length of a message that
//! did (it is returned).

use super::ct_bytes::{eq, is_zero, select_index};
use super::key::{RsaPrivateKey, RsaPublicKey};
use super::mgf::mgf1_xor;
use crate::ct::{self, Choice};
use crate::digest::{HashAlg, Hasher};
use crate::rng::RandomSource;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// RSAES-OAEP parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Oaep {
    /// The hash of the label (and the seed length hLen).
    pub hash: HashAlg,
    /// The hash MGF1 uses.
    pub mgf1: HashAlg,
    /// The label L (empty by default).
    pub label: Vec<u8>,
}

impl Oaep {
    /// OAEP with `hash` for the label and MGF1, and an empty label.
    pub fn new(hash: HashAlg) -> Oaep {
        Oaep { hash, mgf1: hash, label: Vec::new() }
    }

    /// The same with MGF1 over `mgf1`.
    pub fn with_mgf1(self, mgf1: HashAlg) -> Oaep {
        Oaep { mgf1, ..self }
    }

    /// The same with label `label`.
    pub fn with_label(self, label: &[u8]) -> Oaep {
        Oaep { label: label.to_vec(), ..self }
    }

    fn l_hash(&self) -> Vec<u8> {
        Hasher::digest(self.hash, &self.label).as_bytes().to_vec()
    }
}

impl RsaPublicKey {
    /// RSAES-OAEP-ENCRYPT (7.1.1): k bytes. [`Error::MessageTooLong`] if `msg` is longer
    /// than k - 2 hLen - 2.
    pub fn encrypt_oaep(
        &self,
        params: &Oaep,
        msg: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        let k = self.size();
        let h_len = params.hash.output_len();
        if k < 2 * h_len + 2 || msg.len() > k - 2 * h_len - 2 {
            return Err(Error::MessageTooLong);
        }
        let mut em = Zeroizing::new(vec![0u8; k]);
        let (seed, db) = em[1..].split_at_mut(h_len);
        db[..h_len].copy_from_slice(&params.l_hash());
        let m_start = db.len() - msg.len();
        db[m_start - 1] = 0x01;
        db[m_start..].copy_from_slice(msg);
        rng.fill_bytes(seed)?;
        mgf1_xor(params.mgf1, seed, db);
        mgf1_xor(params.mgf1, db, seed);
        self.raw_public(&em)
    }
}

impl RsaPrivateKey {
    /// RSAES-OAEP-DECRYPT (7.1.2), in constant time (see the module docs). Any failure
    /// is [`Error::Decryption`].
    pub fn decrypt_oaep(
        &self,
        params: &Oaep,
        ct: &[u8],
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<u8>> {
        self.oaep_check(params, ct)?;
        oaep_finish(params, self.raw_private(ct, rng))
    }

    /// RSAES-OAEP-DECRYPT step 1, the public length checks (shared with `batch.rs`).
    pub(super) fn oaep_check(&self, params: &Oaep, ct: &[u8]) -> Result<()> {
        let k = self.size();
        if ct.len() != k || k < 2 * params.hash.output_len() + 2 {
            return Err(Error::Decryption);
        }
        Ok(())
    }
}

/// RSAES-OAEP-DECRYPT after RSADP (step 2's result, c >= n being a public failure):
/// steps 3 and 4 (shared with `batch.rs`).
pub(super) fn oaep_finish(params: &Oaep, rsadp: Result<Vec<u8>>) -> Result<Vec<u8>> {
    let mut em = super::pkcs1v15_enc::open_result(rsadp)?;
    let (good, msg_start) = decode(params, &mut em, params.hash.output_len());
    if !good.declassify() {
        return Err(Error::Decryption);
    }
    Ok(em[super::declassify::message_start(msg_start)..].to_vec())
}

/// EME-OAEP decoding (7.1.2 step 3) of the k-byte `em`, unmasked in place: whether it
/// is valid, and where the message starts. Constant time.
fn decode(params: &Oaep, em: &mut [u8], h_len: usize) -> (Choice, usize) {
    let y = em[0];
    let (seed, db) = em[1..].split_at_mut(h_len);
    mgf1_xor(params.mgf1, db, seed);
    mgf1_xor(params.mgf1, seed, db);
    let mut good = is_zero(y) & ct::bytes_eq(&db[..h_len], &params.l_hash());
    // DB = lHash' || PS || 0x01 || M: find the first non-zero byte after lHash'; it must
    // be 0x01.
    let mut looking = Choice::TRUE;
    let mut index = 0;
    for (i, &b) in db.iter().enumerate().skip(h_len) {
        let one = eq(b, 1);
        index = select_index(looking & one, i, index);
        good = good & !(looking & !one & !is_zero(b));
        looking = looking & is_zero(b);
    }
    good = good & !looking;
    // The message follows the 0x01 at db[index], i.e. em[1 + h_len + index + 1].
    (good, 1 + h_len + index + 1)
}
