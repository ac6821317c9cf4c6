//! HMAC (RFC 2104; FIPS 198-1) over any [`HashFunction`].
//!
//! `HMAC(K, m) = H((K0 ^ opad) || H((K0 ^ ipad) || m))`, where `K0` is the key padded
//! with zeros to the hash's block length `B`, or, for keys longer than `B`, the hash of
//! the key padded so (RFC 2104 section 2; FIPS 198-1 section 4 steps 1-3); `ipad` is the
//! byte 0x36 and `opad` 0x5c repeated `B` times.
//!
//! The two padded-key blocks are absorbed once, when the key is set, and the two hash
//! states after them are kept, so a message costs only its own blocks plus one outer
//! block, and [`Hmac::reset`] costs a copy. Those states are key material: they are wiped
//! when the `Hmac` is dropped (each hasher zeroizes itself), as is the padded key.
//!
//! Verification compares in constant time ([`crate::ct::bytes_eq`]). Truncated tags
//! (RFC 2104 section 5) are checked against the leftmost bytes of the full tag; the RFC
//! recommends at least half the digest and never fewer than 80 bits;
//! [`Hmac::verify_truncated`] refuses tags under 80 bits, the floor (protocols truncate
//! below half: RFC 4231's test case 5 takes 128 bits of HMAC-SHA-512).
//!
//! HMAC is constant time only where its hash is: MD2 looks up its S-box by the bytes it
//! hashes (`md2.rs`), and the first of those are `K0 ^ ipad`, so HMAC-MD2 leaks its key
//! through the cache to a neighbour who can time it. It is here for old data only.
//!
//! HMAC-MD5 and HMAC-SHA1 remain acceptable where a protocol requires them: HMAC needs
//! the compression function to be a PRF, which the known collision attacks do not break
//! (RFC 6151 section 2.3, RFC 6194 section 3.2).

use super::{HashAlg, HashFunction, HashOutput, MAX_BLOCK_LEN};
use crate::{Error, ct};
use zeroize::Zeroize;

/// The inner pad byte (RFC 2104 section 2).
const IPAD: u8 = 0x36;
/// The outer pad byte (RFC 2104 section 2).
const OPAD: u8 = 0x5c;
/// The shortest truncated tag accepted, in bytes: 80 bits (RFC 2104 section 5).
pub const MIN_TRUNCATED_TAG_LEN: usize = 10;

/// HMAC with hash `H`: streaming, one-shot, and constant-time verification.
#[derive(Clone)]
pub struct Hmac<H: HashFunction> {
    /// The state absorbing the message: `H((K0 ^ ipad) || m...`.
    inner: H,
    /// The state after `K0 ^ ipad`, to restart from.
    inner_start: H,
    /// The state after `K0 ^ opad`.
    outer_start: H,
}

impl<H: HashFunction> Hmac<H> {
    /// An HMAC keyed with `key` (any length; longer than the block is hashed first).
    pub fn new(key: &[u8]) -> Self {
        let block_len = H::BLOCK_LEN;
        let mut k0 = [0u8; MAX_BLOCK_LEN];
        if key.len() > block_len {
            let mut digest = H::digest(key);
            k0[..H::OUTPUT_LEN].copy_from_slice(digest.as_ref());
            digest.as_mut().zeroize();
        } else {
            k0[..key.len()].copy_from_slice(key);
        }
        let mut pad = [0u8; MAX_BLOCK_LEN];
        let mut keyed = |byte: u8| {
            for (p, k) in pad.iter_mut().zip(&k0[..block_len]) {
                *p = k ^ byte;
            }
            let mut h = H::new();
            h.update(&pad[..block_len]);
            h
        };
        let inner_start = keyed(IPAD);
        let outer_start = keyed(OPAD);
        k0.zeroize();
        pad.zeroize();
        Hmac { inner: inner_start.clone(), inner_start, outer_start }
    }

    /// Absorbs message bytes.
    pub fn update(&mut self, data: &[u8]) {
        self.inner.update(data);
    }

    /// The tag of everything absorbed so far; the MAC starts over with the same key.
    pub fn finalize_reset(&mut self) -> H::Output {
        let inner = self.inner.finalize_reset();
        self.inner.clone_from(&self.inner_start);
        let mut outer = self.outer_start.clone();
        outer.update(inner.as_ref());
        outer.finalize_reset()
    }

    /// The tag of everything absorbed.
    pub fn finalize(mut self) -> H::Output {
        self.finalize_reset()
    }

    /// Back to the state just after keying: the message so far is dropped.
    pub fn reset(&mut self) {
        self.inner.clone_from(&self.inner_start);
    }

    /// `HMAC(key, data)` in one call.
    pub fn mac(key: &[u8], data: &[u8]) -> H::Output {
        let mut m = Self::new(key);
        m.update(data);
        m.finalize_reset()
    }

    /// Checks a full-length tag in constant time: `Err(Error::Verification)` unless `tag`
    /// is the tag of everything absorbed. Leaks only whether it matched (and `tag.len()`).
    pub fn verify(self, tag: &[u8]) -> Result<(), Error> {
        let want = self.finalize();
        if ct::bytes_eq(want.as_ref(), tag).declassify() {
            Ok(())
        } else {
            Err(Error::Verification)
        }
    }

    /// Checks a tag truncated to its leftmost `tag.len()` bytes (RFC 2104 section 5), in
    /// constant time. Tags shorter than [`MIN_TRUNCATED_TAG_LEN`] (80 bits, the floor: see
    /// the module docs) or longer than the digest are refused with
    /// `Error::InvalidArgument` before any comparison.
    pub fn verify_truncated(self, tag: &[u8]) -> Result<(), Error> {
        if tag.len() < MIN_TRUNCATED_TAG_LEN || tag.len() > H::OUTPUT_LEN {
            return Err(Error::InvalidArgument("HMAC tag length out of range"));
        }
        let want = self.finalize();
        if ct::bytes_eq(&want.as_ref()[..tag.len()], tag).declassify() {
            Ok(())
        } else {
            Err(Error::Verification)
        }
    }
}

impl<H: HashFunction> core::fmt::Debug for Hmac<H> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Hmac<{}> {{ .. }}", H::ALG.name())
    }
}

/// `HMAC(key, data)` with the digest `alg` chosen at run time.
pub fn hmac(alg: HashAlg, key: &[u8], data: &[u8]) -> HashOutput {
    fn run<H: HashFunction>(key: &[u8], data: &[u8]) -> HashOutput {
        HashOutput::from_slice(Hmac::<H>::mac(key, data).as_ref())
    }
    super::dispatch!(alg, H => run::<H>(key, data))
}
