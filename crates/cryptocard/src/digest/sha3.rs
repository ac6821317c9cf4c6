//! SHA-3 (FIPS 202 section 6.1): SHA3-224, SHA3-256, SHA3-384 and SHA3-512.
//!
//! `SHA3-d(M) = KECCAK[2d](M || 01, d)`: the sponge over Keccak-f\[1600\] ([`super::keccak`])
//! with capacity `c = 2d` bits and rate `r = 1600 - 2d` bits (144, 136, 104 and 72 bytes),
//! the message followed by the suffix `01` and pad10*1 (section 5.1; in
//! [`super::buffer::BlockBuffer::finish_sponge`]). The digest is the first `d` bits of the
//! state after the last absorbing permutation: `d < r`, so no further permutation runs.
//!
//! The rate plays the part of the block: it is [`HashFunction::BLOCK_LEN`](super::HashFunction),
//! the chunk the streaming buffer collects, and the length HMAC pads its key to (HMAC-SHA3
//! as in NIST SP 800-224 and OpenSSL: `B` is the rate).
//!
//! Timing: constant-time (the permutation has no data-dependent branches or indices).

use super::buffer::BlockBuffer;
use super::sponge::KeccakState;

/// SHA3-224 rate in bytes (`1600 - 2·224` bits, FIPS 202 section 6.1).
pub const SHA3_224_BLOCK_LEN: usize = 144;
/// SHA3-256 rate in bytes (`1600 - 2·256` bits).
pub const SHA3_256_BLOCK_LEN: usize = 136;
/// SHA3-384 rate in bytes (`1600 - 2·384` bits).
pub const SHA3_384_BLOCK_LEN: usize = 104;
/// SHA3-512 rate in bytes (`1600 - 2·512` bits).
pub const SHA3_512_BLOCK_LEN: usize = 72;
/// SHA3-224 digest size in bytes.
pub const SHA3_224_OUTPUT_LEN: usize = 28;
/// SHA3-256 digest size in bytes.
pub const SHA3_256_OUTPUT_LEN: usize = 32;
/// SHA3-384 digest size in bytes.
pub const SHA3_384_OUTPUT_LEN: usize = 48;
/// SHA3-512 digest size in bytes.
pub const SHA3_512_OUTPUT_LEN: usize = 64;

/// The suffix `01` and the first bit of pad10*1, as one byte read least significant bit
/// first (FIPS 202 section 6.1, appendix B.2).
const SHA3_DOMAIN: u8 = 0x06;

/// Defines a SHA-3 hasher `$ty`: the Keccak state, the partial block of the rate, and the
/// API every hasher shares ([`super::hasher_common`]).
macro_rules! sha3_hasher {
    ($(#[$doc:meta])* $ty:ident, $name:expr, rate: $rate:expr, out: $out:expr $(,)?) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $ty {
            core: KeccakState,
            buffer: BlockBuffer<{ $rate }>,
        }

        impl $ty {
            /// A hasher at the initial (all-zero) state.
            pub fn new() -> Self {
                $ty { core: KeccakState::new(), buffer: BlockBuffer::new() }
            }

            /// A hasher at the initial state; SHA-3 has one implementation, whatever
            /// `kernels`.
            pub fn with_kernels(_backend: super::Kernels) -> Self {
                Self::new()
            }

            /// Always false: SHA-3 runs the portable permutation.
            pub fn is_accelerated(&self) -> bool {
                false
            }

            /// Absorbs `data`.
            pub fn update(&mut self, data: &[u8]) {
                self.buffer.update(&mut self.core, data);
            }

            /// The digest of everything absorbed so far; the hasher starts over.
            pub fn finalize_reset(&mut self) -> [u8; $out] {
                self.buffer.finish_sponge(&mut self.core, SHA3_DOMAIN);
                let out = self.core.bytes::<{ $out }>();
                self.reset();
                out
            }

            /// Returns to the initial state, overwriting the old one.
            pub fn reset(&mut self) {
                self.core = KeccakState::new();
                self.buffer.clear();
            }
        }

        super::hasher_common!($ty, $ty, $rate, $out, $name);
    };
}

sha3_hasher!(
    /// SHA3-224 hasher (FIPS 202 section 6.1).
    Sha3_224, "SHA3-224", rate: SHA3_224_BLOCK_LEN, out: SHA3_224_OUTPUT_LEN,
);
sha3_hasher!(
    /// SHA3-256 hasher (FIPS 202 section 6.1).
    Sha3_256, "SHA3-256", rate: SHA3_256_BLOCK_LEN, out: SHA3_256_OUTPUT_LEN,
);
sha3_hasher!(
    /// SHA3-384 hasher (FIPS 202 section 6.1).
    Sha3_384, "SHA3-384", rate: SHA3_384_BLOCK_LEN, out: SHA3_384_OUTPUT_LEN,
);
sha3_hasher!(
    /// SHA3-512 hasher (FIPS 202 section 6.1).
    Sha3_512, "SHA3-512", rate: SHA3_512_BLOCK_LEN, out: SHA3_512_OUTPUT_LEN,
);
