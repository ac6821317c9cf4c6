//! Implicit rejection for RSAES-PKCS1-v1_5 decryption, as the IRTF CFRG draft
//! "Implementation Guidance for the PKCS #1 RSA Cryptography Specification"
//! (draft-irtf-cfrg-rsa-guidance, Kario; "implicit rejection" section) specifies and
//! OpenSSL 3.2+ implements (`ossl_rsa_padding_check_PKCS1_type_2`, `derive_kdk`,
//! `ossl_rsa_prf`).
//!
//! On an invalid padding, decryption returns a synthetic message that depends only on
//! the private key and the ciphertext, so an attacker who sends invalid ciphertexts sees
//! messages as random-looking as real ones, and a caller cannot branch on validity:
//!
//! ```text
//! D    = SHA-256(I2OSP(d, k))                           (once per key)
//! KDK  = HMAC-SHA256(D, I2OSP(c, k))                    key-derivation key
//! PRF(KDK, label, L bits) = T_0 || T_1 || ... truncated to L/8 bytes,
//!        T_i = HMAC-SHA256(KDK, I2OSP(i, 2) || label || I2OSP(L, 2))
//! message = PRF(KDK, "message", 8k)                     k bytes
//! lengths = PRF(KDK, "length", 128 * 16)                128 big-endian 16-bit candidates
//! ```
//!
//! Each length candidate is masked to the bit length of max = k - 10 (the longest
//! message a valid padding can carry), and the last candidate below max is taken (0 if
//! none is: probability about 2^-128). The synthetic message is the last `length` bytes
//! of `message`. The hash is fixed (SHA-256) whatever the key, so that different versions
//! cannot be told apart by their synthetic messages. Every step is constant time: the
//! length selection is masked, and the whole derivation runs on every decryption before
//! the padding is looked at.

use crate::bignum::Limb;
use crate::ct;
use crate::digest::{Hmac, Sha256};
use zeroize::Zeroizing;

/// The number of 16-bit length candidates (OpenSSL's `MAX_LEN_GEN_TRIES`).
const LENGTH_CANDIDATES: usize = 128;

/// PRF(KDK, label, 8 * out.len() bits) into `out`.
fn prf(kdk: &[u8], label: &[u8], out: &mut [u8]) {
    let bits = (out.len() * 8) as u16;
    let mac = Hmac::<Sha256>::new(kdk);
    for (i, chunk) in out.chunks_mut(32).enumerate() {
        let mut m = mac.clone();
        m.update(&(i as u16).to_be_bytes());
        m.update(label);
        m.update(&bits.to_be_bytes());
        let mut t = m.finalize();
        chunk.copy_from_slice(&t.as_ref()[..chunk.len()]);
        zeroize::Zeroize::zeroize(t.as_mut());
    }
}

/// The synthetic message for ciphertext `ct` (at most k bytes) under a key with
/// `d_hash` = SHA-256(I2OSP(d, k)): a k-byte buffer and the index where the message
/// starts in it (the message is `buf[start..]`).
pub(crate) fn synthetic_message(
    d_hash: &[u8; 32],
    ct: &[u8],
    k: usize,
) -> (Zeroizing<Vec<u8>>, usize) {
    let mut mac = Hmac::<Sha256>::new(d_hash);
    mac.update(&vec![0u8; k.saturating_sub(ct.len())]);
    mac.update(ct);
    let kdk = Zeroizing::new(mac.finalize());
    let mut message = Zeroizing::new(vec![0u8; k]);
    prf(kdk.as_ref(), b"message", &mut message);
    let mut lengths = Zeroizing::new([0u8; 2 * LENGTH_CANDIDATES]);
    prf(kdk.as_ref(), b"length", &mut lengths[..]);
    // max = k - 10; the mask covers its bit length.
    let max = k.saturating_sub(10) as Limb;
    let mut mask = max;
    for s in [1, 2, 4, 8] {
        mask |= mask >> s;
    }
    let mut length: Limb = 0;
    for pair in lengths.chunks_exact(2) {
        let candidate = Limb::from(u16::from_be_bytes([pair[0], pair[1]])) & mask;
        length = ct::lt(candidate, max).select(candidate, length);
    }
    (message, k - length as usize)
}
