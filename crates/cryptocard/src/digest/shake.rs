//! The SHA-3 extendable-output functions SHAKE128 and SHAKE256 (FIPS 202 section 6.2).
//!
//! `SHAKE128(M, d) = KECCAK[256](M || 1111, d)` and `SHAKE256(M, d) = KECCAK[512](M ||
//! 1111, d)`: the sponge over Keccak-f\[1600\] ([`super::keccak`]) with rate 168 and 136
//! bytes, the suffix `1111` before pad10*1, and as many output bytes as asked for,
//! squeezed a rate at a time (Algorithm 8 steps 8-10). SHAKE128 has 128 bits of security
//! against every attack when its output is at least 256 bits long, SHAKE256 256 bits at
//! 512 (FIPS 202 appendix A.1); RFC 8702 uses them so, with 32 and 64 output bytes, as the
//! hash and as the mask generation function of RSASSA-PSS.
//!
//! The XOF is absorbed like a hash ([`Shake128::update`]), then
//! [`Shake128::finalize_xof`] turns it into a reader whose [`Shake128Reader::read`] may be
//! called any number of times: the output is one stream, however it is cut.
//! [`shake128`] and [`shake256`] do both in one call.
//!
//! Timing: constant-time; the output length is public.

use super::buffer::BlockBuffer;
use super::sponge::{KeccakState, Squeezer};

/// SHAKE128 rate in bytes (`1600 - 256` bits, FIPS 202 section 6.2).
pub const SHAKE128_BLOCK_LEN: usize = 168;
/// SHAKE256 rate in bytes (`1600 - 512` bits, FIPS 202 section 6.2).
pub const SHAKE256_BLOCK_LEN: usize = 136;

/// The suffix `1111` and the first bit of pad10*1, as one byte read least significant bit
/// first (FIPS 202 section 6.2, appendix B.2).
const SHAKE_DOMAIN: u8 = 0x1f;

/// Defines a SHAKE XOF `$ty` with its reader `$reader` and one-shot function `$oneshot`.
macro_rules! shake {
    (
        $(#[$doc:meta])*
        $ty:ident, $reader:ident, $oneshot:ident, $name:expr, rate: $rate:expr,
        security: $security:ty $(,)?
    ) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $ty {
            core: KeccakState,
            buffer: BlockBuffer<{ $rate }>,
        }

        #[doc = concat!("The output stream of ", $name, ": made by `finalize_xof`, read with [`",
            stringify!($reader), "::read`].")]
        #[derive(Clone)]
        pub struct $reader {
            squeezer: Squeezer<{ $rate }>,
        }

        impl $ty {
            /// The rate in bytes: the block the sponge absorbs and squeezes.
            pub const BLOCK_LEN: usize = $rate;

            /// An XOF at the initial (all-zero) state.
            pub fn new() -> Self {
                $ty { core: KeccakState::new(), buffer: BlockBuffer::new() }
            }

            /// Absorbs `data`.
            pub fn update(&mut self, data: &[u8]) {
                self.buffer.update(&mut self.core, data);
            }

            /// Ends the input: the reader of the output stream of everything absorbed.
            pub fn finalize_xof(mut self) -> $reader {
                self.finalize_xof_reset()
            }

            /// Ends the input and returns the reader of its output; the XOF starts over.
            pub fn finalize_xof_reset(&mut self) -> $reader {
                self.buffer.finish_sponge(&mut self.core, SHAKE_DOMAIN);
                let reader = $reader { squeezer: Squeezer::new(self.core.clone()) };
                self.reset();
                reader
            }

            /// Fills `out` with the first `out.len()` output bytes of everything absorbed.
            pub fn finalize_into(self, out: &mut [u8]) {
                self.finalize_xof().read(out);
            }

            /// Returns to the initial state, overwriting the old one.
            pub fn reset(&mut self) {
                self.core = KeccakState::new();
                self.buffer.clear();
            }
        }

        impl $reader {
            /// Fills `out` with the next `out.len()` bytes of the output stream.
            pub fn read(&mut self, out: &mut [u8]) {
                self.squeezer.read(out);
            }
        }

        #[doc = concat!("Fills `out` with ", $name, "(`data`, `8 · out.len()`), in one call.")]
        pub fn $oneshot(data: &[u8], out: &mut [u8]) {
            let mut x = $ty::new();
            x.update(data);
            x.finalize_into(out);
        }

        super::state_impls!($ty);

        impl core::fmt::Debug for $reader {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(concat!(stringify!($reader), " { .. }"))
            }
        }

        impl Drop for $reader {
            fn drop(&mut self) {
                zeroize::Zeroize::zeroize(&mut self.squeezer);
            }
        }

        #[cfg(feature = "rustcrypto-traits")]
        $crate::digest::traits::rustcrypto_xof_impls!($ty, $reader, $rate, $security, $name);
    };
}

shake!(
    /// SHAKE128 (FIPS 202 section 6.2): 128-bit security with at least 32 output bytes.
    Shake128, Shake128Reader, shake128, "SHAKE128", rate: SHAKE128_BLOCK_LEN,
    security: ::digest::typenum::U16,
);
shake!(
    /// SHAKE256 (FIPS 202 section 6.2): 256-bit security with at least 64 output bytes.
    Shake256, Shake256Reader, shake256, "SHAKE256", rate: SHAKE256_BLOCK_LEN,
    security: ::digest::typenum::U32,
);
