//! The code every hasher shares, as macros: the streaming struct of the Merkle-Damgård
//! hashers (MD4, MD5, SHA-1, SHA-2) around a compression core, and the API and trait
//! impls every hasher (MD2 too) derives from its `new`/`update`/`finalize_reset`/`reset`.

/// Defines a Merkle-Damgård hasher `$ty` around the core type `$core` (which implements
/// `BlockCompress<$block>`, `Zeroize`, and has `accelerated(&self) -> bool`):
/// `new`, `with_kernels`, `is_accelerated`, `update`, `finalize_reset`, `reset`, then
/// everything of [`hasher_common`].
///
/// * `init: |kernels| expr`: the core at the initial value, for a [`super::Kernels`];
/// * `set_iv: |core| expr`: puts the initial chaining value back (keeping the kernels);
/// * `length: |bits| expr`: the length field, from the message length in bits as a u128
///   (MD4/MD5: the low 64 bits little-endian, RFC 1321 section 3.2; SHA-1/SHA-256: 64
///   bits big-endian, SHA-384/512: 128 bits big-endian, FIPS 180-4 section 5.1);
/// * `digest: |core| expr`: the output bytes from the final state.
macro_rules! md_hasher {
    (
        $(#[$doc:meta])*
        $ty:ident, $name:expr, core: $core:ty, block: $block:expr, out: $out:expr,
        init: |$kernels:ident| $init:expr,
        set_iv: |$c:ident| $set_iv:expr,
        length: |$bits:ident| $length:expr,
        digest: |$d:ident| $digest:expr $(,)?
    ) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $ty {
            core: $core,
            buffer: $crate::digest::buffer::BlockBuffer<{ $block }>,
            /// Whole blocks compressed so far (the length counter).
            blocks: u64,
        }

        impl $ty {
            /// A hasher at the initial state, using the fastest code this CPU supports.
            pub fn new() -> Self {
                Self::with_kernels($crate::digest::Kernels::Auto)
            }

            /// A hasher at the initial state, using `kernels`'s code (for the hashers
            /// without an accelerated kernel both choices are the portable code).
            pub fn with_kernels($kernels: $crate::digest::Kernels) -> Self {
                $ty { core: $init, buffer: $crate::digest::buffer::BlockBuffer::new(), blocks: 0 }
            }

            /// Whether this hasher runs an accelerated kernel (SHA extensions, AVX2).
            pub fn is_accelerated(&self) -> bool {
                self.core.accelerated()
            }

            /// Absorbs `data`.
            pub fn update(&mut self, data: &[u8]) {
                let n = self.buffer.update(&mut self.core, data);
                self.blocks = self.blocks.wrapping_add(n);
            }

            /// The digest of everything absorbed so far; the hasher starts over.
            pub fn finalize_reset(&mut self) -> [u8; $out] {
                // A u64 block count bounds the length far below 2^128 bits.
                let $bits = (u128::from(self.blocks) * $block as u128
                    + self.buffer.pos() as u128)
                    * 8;
                self.buffer.finish_md(&mut self.core, &$length);
                let out = {
                    let $d = &self.core;
                    $digest
                };
                self.reset();
                out
            }

            /// Returns to the initial state, overwriting the old one; keeps the kernels.
            pub fn reset(&mut self) {
                {
                    let $c = &mut self.core;
                    $set_iv;
                }
                self.buffer.clear();
                self.blocks = 0;
            }
        }

        $crate::digest::hasher_common!($ty, $ty, $block, $out, $name);
    };
}
pub(crate) use md_hasher;

// The three writers below store whole words: written byte by byte, the digest's stores
// could not forward to the caller's wide reads of it, which stalled for about a quarter
// of a 16-byte message's SHA-256.

/// The first `N` bytes of `words` written little-endian (MD4, MD5).
#[inline]
pub(crate) fn words_le<const N: usize>(words: &[u32]) -> [u8; N] {
    let mut out = [0u8; N];
    for (o, w) in out.chunks_mut(4).zip(words) {
        o.copy_from_slice(&w.to_le_bytes()[..o.len()]);
    }
    out
}

/// The first `N` bytes of `words` written big-endian (SHA-1, SHA-224, SHA-256).
#[inline]
pub(crate) fn words_be<const N: usize>(words: &[u32]) -> [u8; N] {
    let mut out = [0u8; N];
    for (o, w) in out.chunks_mut(4).zip(words) {
        o.copy_from_slice(&w.to_be_bytes()[..o.len()]);
    }
    out
}

/// The first `N` bytes of `words` written big-endian (SHA-384, SHA-512, SHA-512/t).
#[inline]
pub(crate) fn words64_be<const N: usize>(words: &[u64]) -> [u8; N] {
    let mut out = [0u8; N];
    for (o, w) in out.chunks_mut(8).zip(words) {
        o.copy_from_slice(&w.to_be_bytes()[..o.len()]);
    }
    out
}

/// `Default` (from `new`), a `Debug` that hides the state, and zeroize-on-drop of the
/// `core` and `buffer` fields: what every hasher and XOF type has.
macro_rules! state_impls {
    ($ty:ident) => {
        impl Default for $ty {
            fn default() -> Self {
                Self::new()
            }
        }

        impl core::fmt::Debug for $ty {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                // The state may derive from secrets (HMAC keys, MGF seeds): never print it.
                f.write_str(concat!(stringify!($ty), " { .. }"))
            }
        }

        impl Drop for $ty {
            fn drop(&mut self) {
                zeroize::Zeroize::zeroize(&mut self.core);
                zeroize::Zeroize::zeroize(&mut self.buffer);
            }
        }
    };
}
pub(crate) use state_impls;

/// The parts every hasher shares, given its inherent `new`, `update`, `finalize_reset`
/// and `reset`, and `core`/`buffer` fields that implement `Zeroize`: the size constants,
/// `finalize`, `digest`, [`state_impls`], [`HashFunction`](crate::digest::HashFunction) and the RustCrypto traits.
macro_rules! hasher_common {
    ($ty:ident, $alg:ident, $block:expr, $out:expr, $name:expr) => {
        impl $ty {
            /// The block length in bytes.
            pub const BLOCK_LEN: usize = $block;
            /// The digest length in bytes.
            pub const OUTPUT_LEN: usize = $out;

            /// The digest of everything absorbed.
            pub fn finalize(mut self) -> [u8; $out] {
                self.finalize_reset()
            }

            /// The digest of `data` in one call.
            pub fn digest(data: &[u8]) -> [u8; $out] {
                let mut h = Self::new();
                h.update(data);
                h.finalize_reset()
            }
        }

        $crate::digest::state_impls!($ty);

        impl $crate::digest::HashFunction for $ty {
            const ALG: $crate::digest::HashAlg = $crate::digest::HashAlg::$alg;
            const BLOCK_LEN: usize = $block;
            const OUTPUT_LEN: usize = $out;
            type Output = [u8; $out];

            fn new() -> Self {
                $ty::new()
            }
            fn update(&mut self, data: &[u8]) {
                $ty::update(self, data)
            }
            fn finalize_reset(&mut self) -> [u8; $out] {
                $ty::finalize_reset(self)
            }
            fn reset(&mut self) {
                $ty::reset(self)
            }
        }

        #[cfg(feature = "rustcrypto-traits")]
        $crate::digest::traits::rustcrypto_impls!($ty, $block, $out, $name);
    };
}
pub(crate) use hasher_common;
