//! Message digests: MD2, MD4, MD5, SHA-1, SHA-2, SHA-3, RIPEMD-160, HMAC over each of
//! them, PBKDF2, and the extendable-output functions SHAKE128 and SHAKE256.
//!
//! | type | standard | block | output | status |
//! |---|---|---|---|---|
//! | [`Md2`] | RFC 1319 | 16 | 16 | legacy (broken): verify old signatures only |
//! | [`Md4`] | RFC 1320 | 64 | 16 | legacy (broken): interoperability only |
//! | [`Md5`] | RFC 1321 | 64 | 16 | legacy (collisions): old data; HMAC-MD5 in old protocols |
//! | [`Sha1`] | FIPS 180-4 6.1 | 64 | 20 | legacy (collisions): HMAC-SHA1, old signatures |
//! | [`Sha224`], [`Sha256`] | FIPS 180-4 6.2, 6.3 | 64 | 28, 32 | current |
//! | [`Sha384`], [`Sha512`] | FIPS 180-4 6.4, 6.5 | 128 | 48, 64 | current |
//! | [`Sha512_224`], [`Sha512_256`] | FIPS 180-4 6.7 | 128 | 28, 32 | current |
//! | [`Sha3_224`], [`Sha3_256`] | FIPS 202 6.1 | 144, 136 (rate) | 28, 32 | current |
//! | [`Sha3_384`], [`Sha3_512`] | FIPS 202 6.1 | 104, 72 (rate) | 48, 64 | current |
//! | [`Shake128`], [`Shake256`] | FIPS 202 6.2 | 168, 136 (rate) | any (XOF) | current |
//! | [`Ripemd160`] | Dobbertin, Bosselaers, Preneel 1996; ISO/IEC 10118-3 | 64 | 20 | legacy (short): old banking and OpenPGP signatures |
//!
//! "Legacy" means broken for collision resistance and not for new designs; each type's
//! documentation says what use remains acceptable.
//!
//! Every hasher has the same shape: `new`, `update`, `finalize`, `finalize_reset`,
//! `reset`, the one-shot `digest(data)`, and `BLOCK_LEN` / `OUTPUT_LEN` constants; the
//! [`HashFunction`] trait names that shape for generic code ([`Hmac`], [`pbkdf2_hmac`]).
//! [`HashAlg`] picks an algorithm at run time by name or OID (what the RSA and CLI
//! layers need), [`Hasher`] hashes with it, [`DynHmac`] and [`hmac()`] MAC with it, and
//! [`HashAlg::digest_info_prefix`] gives the DER prefix of PKCS#1 v1.5 signatures
//! (RFC 8017 section 9.2). The XOFs have their own shape: `update`, then `finalize_xof`
//! into a reader whose `read` fills any number of bytes ([`shake128`], [`shake256`] in
//! one call); [`XofAlg`] and [`DynXof`] choose one at run time (RSASSA-PSS with SHAKE,
//! RFC 8702). With the `rustcrypto-traits` feature each hasher also implements the
//! RustCrypto `digest` 0.11 traits (`Digest`, `DynDigest`, ...; `ExtendableOutput` and
//! `XofReader` for SHAKE), so other crates can use our types.
//!
//! ```
//! use cryptocard::digest::{HashAlg, Hasher, Sha256, hmac};
//!
//! let d = Sha256::digest(b"abc"); // FIPS 180-2 appendix B.1
//! assert_eq!(d[..4], [0xba, 0x78, 0x16, 0xbf]);
//! let mut h = Hasher::new(HashAlg::Sha256); // the same, chosen at run time
//! h.update(b"a");
//! h.update(b"bc");
//! assert_eq!(h.finalize().as_bytes(), &d[..]);
//! let tag = hmac(HashAlg::Sha256, b"key", b"message");
//! assert_eq!(tag.as_bytes().len(), 32);
//! ```
//!
//! Run-time dispatch: SHA-1 and SHA-256 use the x86 SHA extensions, SHA-384/512 a vector
//! message schedule (AVX2, or AVX-512VL) with BMI2 assembly rounds, when the CPU has
//! them, detected once when a hasher is made (not per block). The portable code is
//! always compiled and is the reference the kernels are tested against;
//! [`Kernels::Portable`] (per hasher, through `with_kernels`) or the environment variable
//! `CRYPTOCARD_DIGEST_PORTABLE=1` (read once per process) forces it.
//!
//! Timing: the MD, SHA and SHA-3 families are constant-time (additions, rotations, Boolean
//! functions only). MD2 indexes its S-box by data and so leaks through the cache what it
//! hashes; it is here to verify old signatures, not to hash secrets.
//!
//! # Speed
//!
//! The x86-64 kernels (SHA-NI for SHA-1 and SHA-256; an AVX2 or AVX-512VL schedule with
//! BMI2 rounds for SHA-384/512) run level with OpenSSL's assembly, and so do the portable
//! MD4, MD5 and SHA-3; MD2 runs ahead of nettle and RustCrypto. The rates, one thread on
//! 16 KiB buffers beside OpenSSL, nettle and RustCrypto in one process, are in
//! `docs/performance.md` (`cryptocard speed md2 md4 md5 sha1 sha256 sha512 --compare
//! all`; `sha3-256` and `sha3-512` too). Dusse and Kaliski's DSP56000 ran MD2 at 190
//! Kbit/s (24 KB/s); `cryptocard speed --seeds` puts ours beside it.

mod alg;
mod buffer;
mod dynamic;
mod hasher_macros;
mod hmac;
mod keccak;
mod kernels;
mod md2;
mod md4;
mod md5;
mod pbkdf2;
mod ripemd160;
mod sha1;
mod sha256;
mod sha3;
mod sha512;
mod shake;
mod sponge;
#[cfg(feature = "rustcrypto-traits")]
mod traits;
mod xof;

pub use alg::HashAlg;
pub use dynamic::{DynHmac, HashOutput, Hasher};
pub use hmac::{Hmac, MIN_TRUNCATED_TAG_LEN, hmac};
pub use kernels::Kernels;
pub use md2::{MD2_BLOCK_LEN, MD2_OUTPUT_LEN, Md2};
pub use md4::{MD4_BLOCK_LEN, MD4_OUTPUT_LEN, Md4};
pub use md5::{MD5_BLOCK_LEN, MD5_OUTPUT_LEN, Md5};
pub use pbkdf2::{pbkdf2_hmac, pbkdf2_hmac_alg};
pub use ripemd160::{RIPEMD160_BLOCK_LEN, RIPEMD160_OUTPUT_LEN, Ripemd160};
pub use sha1::{SHA1_BLOCK_LEN, SHA1_OUTPUT_LEN, Sha1};
pub use sha3::{
    SHA3_224_BLOCK_LEN, SHA3_224_OUTPUT_LEN, SHA3_256_BLOCK_LEN, SHA3_256_OUTPUT_LEN,
    SHA3_384_BLOCK_LEN, SHA3_384_OUTPUT_LEN, SHA3_512_BLOCK_LEN, SHA3_512_OUTPUT_LEN, Sha3_224,
    Sha3_256, Sha3_384, Sha3_512,
};
pub use sha256::{SHA224_OUTPUT_LEN, SHA256_BLOCK_LEN, SHA256_OUTPUT_LEN, Sha224, Sha256};
pub use sha512::{
    SHA384_OUTPUT_LEN, SHA512_224_OUTPUT_LEN, SHA512_256_OUTPUT_LEN, SHA512_BLOCK_LEN,
    SHA512_OUTPUT_LEN, Sha384, Sha512, Sha512_224, Sha512_256,
};
pub use shake::{
    SHAKE128_BLOCK_LEN, SHAKE256_BLOCK_LEN, Shake128, Shake128Reader, Shake256, Shake256Reader,
    shake128, shake256,
};
pub use xof::{DynXof, DynXofReader, XofAlg};

pub(crate) use hasher_macros::{hasher_common, md_hasher, state_impls};
#[cfg(test)]
pub(crate) use {
    sha1::compress_portable as sha1_portable, sha256::compress_portable as sha256_portable,
    sha512::compress_portable as sha512_portable,
};

/// The largest block length of any fixed-length digest here (SHA3-224's rate: 144 bytes).
pub const MAX_BLOCK_LEN: usize = 144;
/// The largest output length of any digest here (SHA-512: 64 bytes).
pub const MAX_OUTPUT_LEN: usize = 64;

/// A hash function with the streaming interface every digest here shares.
///
/// Generic code ([`Hmac`], [`pbkdf2_hmac`]) is written against this trait; the hashers
/// also have the same methods inherently, so callers need not import it.
pub trait HashFunction: Clone + Default + Send + Sync + 'static {
    /// Which algorithm this is.
    const ALG: HashAlg;
    /// The block length in bytes (what HMAC pads its key to).
    const BLOCK_LEN: usize;
    /// The digest length in bytes.
    const OUTPUT_LEN: usize;
    /// The digest: a byte array of `OUTPUT_LEN` bytes.
    type Output: Copy + AsRef<[u8]> + AsMut<[u8]> + core::fmt::Debug + Send + Sync + 'static;

    /// A hasher at the initial state.
    fn new() -> Self;
    /// Absorbs `data`.
    fn update(&mut self, data: &[u8]);
    /// The digest of everything absorbed so far; the hasher starts over.
    fn finalize_reset(&mut self) -> Self::Output;
    /// Returns to the initial state.
    fn reset(&mut self);

    /// The digest of everything absorbed so far.
    fn finalize(mut self) -> Self::Output {
        self.finalize_reset()
    }

    /// The digest of `data` in one call.
    fn digest(data: &[u8]) -> Self::Output {
        let mut h = Self::new();
        h.update(data);
        h.finalize_reset()
    }
}

/// Runs `$body` with the type alias `$h` naming the hasher of `$alg` (a [`HashAlg`]):
/// the bridge from a run-time choice to the generic code.
macro_rules! dispatch {
    ($alg:expr, $h:ident => $body:expr) => {{
        use $crate::digest::HashAlg as A;
        match $alg {
            A::Md2 => {
                type $h = $crate::digest::Md2;
                $body
            }
            A::Md4 => {
                type $h = $crate::digest::Md4;
                $body
            }
            A::Md5 => {
                type $h = $crate::digest::Md5;
                $body
            }
            A::Sha1 => {
                type $h = $crate::digest::Sha1;
                $body
            }
            A::Sha224 => {
                type $h = $crate::digest::Sha224;
                $body
            }
            A::Sha256 => {
                type $h = $crate::digest::Sha256;
                $body
            }
            A::Sha384 => {
                type $h = $crate::digest::Sha384;
                $body
            }
            A::Sha512 => {
                type $h = $crate::digest::Sha512;
                $body
            }
            A::Sha512_224 => {
                type $h = $crate::digest::Sha512_224;
                $body
            }
            A::Sha512_256 => {
                type $h = $crate::digest::Sha512_256;
                $body
            }
            A::Sha3_224 => {
                type $h = $crate::digest::Sha3_224;
                $body
            }
            A::Sha3_256 => {
                type $h = $crate::digest::Sha3_256;
                $body
            }
            A::Sha3_384 => {
                type $h = $crate::digest::Sha3_384;
                $body
            }
            A::Sha3_512 => {
                type $h = $crate::digest::Sha3_512;
                $body
            }
            A::Ripemd160 => {
                type $h = $crate::digest::Ripemd160;
                $body
            }
        }
    }};
}
pub(crate) use dispatch;
