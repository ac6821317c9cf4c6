//! A hasher chosen at run time: [`Hasher`] wraps each digest in one enum (no allocation,
//! no virtual calls), [`DynHmac`] does the same for HMAC, and [`HashOutput`] carries a
//! digest of any length.

use super::{
    HashAlg, HashFunction, Hmac, MAX_OUTPUT_LEN, Md2, Md4, Md5, Ripemd160, Sha1, Sha3_224,
    Sha3_256, Sha3_384, Sha3_512, Sha224, Sha256, Sha384, Sha512, Sha512_224, Sha512_256,
};
use crate::Error;

/// A digest value of up to [`MAX_OUTPUT_LEN`] bytes; `as_ref()` gives exactly the digest.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct HashOutput {
    bytes: [u8; MAX_OUTPUT_LEN],
    len: usize,
}

impl HashOutput {
    /// Copies a digest of at most [`MAX_OUTPUT_LEN`] bytes.
    pub(crate) fn from_slice(digest: &[u8]) -> HashOutput {
        let mut bytes = [0u8; MAX_OUTPUT_LEN];
        bytes[..digest.len()].copy_from_slice(digest);
        HashOutput { bytes, len: digest.len() }
    }

    /// The digest bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// The digest length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Zeroes the bytes, for a digest that is a secret (implicit rejection's key, an
    /// OAEP mask): the value is `Copy`, so its holder wipes its own copy when done.
    pub(crate) fn wipe(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.bytes);
    }

    /// Always false: every digest has at least 16 bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl AsRef<[u8]> for HashOutput {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl core::fmt::Debug for HashOutput {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// Calls `$body` with `$h` bound to the concrete hasher inside `$self`.
macro_rules! each {
    ($self:expr, $h:ident => $body:expr) => {
        match $self {
            Hasher::Md2($h) => $body,
            Hasher::Md4($h) => $body,
            Hasher::Md5($h) => $body,
            Hasher::Sha1($h) => $body,
            Hasher::Sha224($h) => $body,
            Hasher::Sha256($h) => $body,
            Hasher::Sha384($h) => $body,
            Hasher::Sha512($h) => $body,
            Hasher::Sha512_224($h) => $body,
            Hasher::Sha512_256($h) => $body,
            Hasher::Sha3_224($h) => $body,
            Hasher::Sha3_256($h) => $body,
            Hasher::Sha3_384($h) => $body,
            Hasher::Sha3_512($h) => $body,
            Hasher::Ripemd160($h) => $body,
        }
    };
}

/// A streaming hasher for an algorithm picked at run time.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub enum Hasher {
    Md2(Md2),
    Md4(Md4),
    Md5(Md5),
    Sha1(Sha1),
    Sha224(Sha224),
    Sha256(Sha256),
    Sha384(Sha384),
    Sha512(Sha512),
    Sha512_224(Sha512_224),
    Sha512_256(Sha512_256),
    Sha3_224(Sha3_224),
    Sha3_256(Sha3_256),
    Sha3_384(Sha3_384),
    Sha3_512(Sha3_512),
    Ripemd160(Ripemd160),
}

impl Hasher {
    /// A hasher for `alg` at its initial state.
    pub fn new(alg: HashAlg) -> Hasher {
        match alg {
            HashAlg::Md2 => Hasher::Md2(Md2::new()),
            HashAlg::Md4 => Hasher::Md4(Md4::new()),
            HashAlg::Md5 => Hasher::Md5(Md5::new()),
            HashAlg::Sha1 => Hasher::Sha1(Sha1::new()),
            HashAlg::Sha224 => Hasher::Sha224(Sha224::new()),
            HashAlg::Sha256 => Hasher::Sha256(Sha256::new()),
            HashAlg::Sha384 => Hasher::Sha384(Sha384::new()),
            HashAlg::Sha512 => Hasher::Sha512(Sha512::new()),
            HashAlg::Sha512_224 => Hasher::Sha512_224(Sha512_224::new()),
            HashAlg::Sha512_256 => Hasher::Sha512_256(Sha512_256::new()),
            HashAlg::Sha3_224 => Hasher::Sha3_224(Sha3_224::new()),
            HashAlg::Sha3_256 => Hasher::Sha3_256(Sha3_256::new()),
            HashAlg::Sha3_384 => Hasher::Sha3_384(Sha3_384::new()),
            HashAlg::Sha3_512 => Hasher::Sha3_512(Sha3_512::new()),
            HashAlg::Ripemd160 => Hasher::Ripemd160(Ripemd160::new()),
        }
    }

    /// The algorithm.
    pub fn alg(&self) -> HashAlg {
        fn alg_of<H: HashFunction>(_: &H) -> HashAlg {
            H::ALG
        }
        each!(self, h => alg_of(h))
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        each!(self, h => h.update(data))
    }

    /// The digest of everything absorbed so far; the hasher starts over.
    pub fn finalize_reset(&mut self) -> HashOutput {
        each!(self, h => HashOutput::from_slice(&h.finalize_reset()))
    }

    /// The digest of everything absorbed.
    pub fn finalize(mut self) -> HashOutput {
        self.finalize_reset()
    }

    /// Returns to the initial state.
    pub fn reset(&mut self) {
        each!(self, h => h.reset())
    }

    /// The digest of `data` under `alg`, in one call.
    pub fn digest(alg: HashAlg, data: &[u8]) -> HashOutput {
        let mut h = Hasher::new(alg);
        h.update(data);
        h.finalize_reset()
    }
}

impl HashAlg {
    /// The digest of `data` under this algorithm, in one call.
    pub fn digest(self, data: &[u8]) -> HashOutput {
        Hasher::digest(self, data)
    }
}

/// Calls `$body` with `$m` bound to the concrete HMAC inside `$self`.
macro_rules! each_mac {
    ($self:expr, $m:ident => $body:expr) => {
        match $self {
            DynHmac::Md2($m) => $body,
            DynHmac::Md4($m) => $body,
            DynHmac::Md5($m) => $body,
            DynHmac::Sha1($m) => $body,
            DynHmac::Sha224($m) => $body,
            DynHmac::Sha256($m) => $body,
            DynHmac::Sha384($m) => $body,
            DynHmac::Sha512($m) => $body,
            DynHmac::Sha512_224($m) => $body,
            DynHmac::Sha512_256($m) => $body,
            DynHmac::Sha3_224($m) => $body,
            DynHmac::Sha3_256($m) => $body,
            DynHmac::Sha3_384($m) => $body,
            DynHmac::Sha3_512($m) => $body,
            DynHmac::Ripemd160($m) => $body,
        }
    };
}

/// A streaming HMAC whose digest is picked at run time (what `dgst -hmac` needs).
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub enum DynHmac {
    Md2(Hmac<Md2>),
    Md4(Hmac<Md4>),
    Md5(Hmac<Md5>),
    Sha1(Hmac<Sha1>),
    Sha224(Hmac<Sha224>),
    Sha256(Hmac<Sha256>),
    Sha384(Hmac<Sha384>),
    Sha512(Hmac<Sha512>),
    Sha512_224(Hmac<Sha512_224>),
    Sha512_256(Hmac<Sha512_256>),
    Sha3_224(Hmac<Sha3_224>),
    Sha3_256(Hmac<Sha3_256>),
    Sha3_384(Hmac<Sha3_384>),
    Sha3_512(Hmac<Sha3_512>),
    Ripemd160(Hmac<Ripemd160>),
}

impl DynHmac {
    /// HMAC with digest `alg`, keyed with `key`.
    pub fn new(alg: HashAlg, key: &[u8]) -> DynHmac {
        match alg {
            HashAlg::Md2 => DynHmac::Md2(Hmac::new(key)),
            HashAlg::Md4 => DynHmac::Md4(Hmac::new(key)),
            HashAlg::Md5 => DynHmac::Md5(Hmac::new(key)),
            HashAlg::Sha1 => DynHmac::Sha1(Hmac::new(key)),
            HashAlg::Sha224 => DynHmac::Sha224(Hmac::new(key)),
            HashAlg::Sha256 => DynHmac::Sha256(Hmac::new(key)),
            HashAlg::Sha384 => DynHmac::Sha384(Hmac::new(key)),
            HashAlg::Sha512 => DynHmac::Sha512(Hmac::new(key)),
            HashAlg::Sha512_224 => DynHmac::Sha512_224(Hmac::new(key)),
            HashAlg::Sha512_256 => DynHmac::Sha512_256(Hmac::new(key)),
            HashAlg::Sha3_224 => DynHmac::Sha3_224(Hmac::new(key)),
            HashAlg::Sha3_256 => DynHmac::Sha3_256(Hmac::new(key)),
            HashAlg::Sha3_384 => DynHmac::Sha3_384(Hmac::new(key)),
            HashAlg::Sha3_512 => DynHmac::Sha3_512(Hmac::new(key)),
            HashAlg::Ripemd160 => DynHmac::Ripemd160(Hmac::new(key)),
        }
    }

    /// Absorbs message bytes.
    pub fn update(&mut self, data: &[u8]) {
        each_mac!(self, m => m.update(data))
    }

    /// The tag of everything absorbed so far; the MAC starts over with the same key.
    pub fn finalize_reset(&mut self) -> HashOutput {
        each_mac!(self, m => HashOutput::from_slice(m.finalize_reset().as_ref()))
    }

    /// The tag of everything absorbed.
    pub fn finalize(mut self) -> HashOutput {
        self.finalize_reset()
    }

    /// Checks a full-length tag in constant time (see [`Hmac::verify`]).
    pub fn verify(self, tag: &[u8]) -> Result<(), Error> {
        each_mac!(self, m => m.verify(tag))
    }

    /// Checks a truncated tag in constant time (see [`Hmac::verify_truncated`]).
    pub fn verify_truncated(self, tag: &[u8]) -> Result<(), Error> {
        each_mac!(self, m => m.verify_truncated(tag))
    }
}
