//! Randomness: the operating system's entropy source, and the trait that lets tests supply
//! their own.
//!
//! Dusse and Kaliski's accelerator card carried a noise diode as its key source; ours is
//! the kernel's CSPRNG (`getrandom(2)` on Linux), which mixes hardware noise sources of the
//! same kind. Every function that needs randomness (prime generation, blinding, padding,
//! salts) takes a `&mut dyn RandomSource`, so that a test can make it deterministic and a
//! caller can bring a source of their own.
//!
//! With the `rustcrypto-traits` feature (on by default) every `rand_core` 0.10
//! cryptographic generator is a `RandomSource` too (a blanket impl over
//! `rand_core::TryCryptoRng`, the trait `signature` 3's `RandomizedSigner` takes), so
//! code written for the RustCrypto crates passes its generator as it is:
//!
//! ```
//! use cryptocard::rng::{OsRng, RandomSource};
//!
//! let mut salt = [0u8; 16];
//! OsRng.fill_bytes(&mut salt)?;
//! assert_ne!(salt, [0u8; 16]); // 2^-128 chance of a false failure
//!
//! // Any source works where a `&mut dyn RandomSource` is taken.
//! fn draw(rng: &mut dyn RandomSource) -> cryptocard::Result<u64> {
//!     rng.next_u64()
//! }
//! let (a, b) = (draw(&mut OsRng)?, draw(&mut OsRng)?);
//! assert_ne!(a, b); // 2^-64
//! # Ok::<(), cryptocard::Error>(())
//! ```

use crate::{Error, Result};

/// A source of cryptographically secure random bytes.
pub trait RandomSource {
    /// Fills `dest` entirely with random bytes, or fails without partial success.
    fn fill_bytes(&mut self, dest: &mut [u8]) -> Result<()>;

    /// A uniformly random 64-bit word.
    fn next_u64(&mut self) -> Result<u64> {
        let mut b = [0u8; 8];
        self.fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
}

/// The operating system's entropy source.
#[derive(Clone, Copy, Debug, Default)]
pub struct OsRng;

/// Without `rustcrypto-traits`; with it, `OsRng` is a `rand_core` generator (below) and a
/// `RandomSource` through the blanket impl.
#[cfg(not(feature = "rustcrypto-traits"))]
impl RandomSource for OsRng {
    fn fill_bytes(&mut self, dest: &mut [u8]) -> Result<()> {
        getrandom::fill(dest).map_err(|_| Error::Rng)
    }
}

/// `OsRng` as a `rand_core` generator, so that it can be passed to the RustCrypto
/// traits' `try_sign_with_rng` and the like. Fallible (`getrandom::Error`), as the
/// operating system's source is.
#[cfg(feature = "rustcrypto-traits")]
impl rand_core::TryRng for OsRng {
    type Error = getrandom::Error;

    fn try_next_u32(&mut self) -> core::result::Result<u32, getrandom::Error> {
        getrandom::u32()
    }

    fn try_next_u64(&mut self) -> core::result::Result<u64, getrandom::Error> {
        getrandom::u64()
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> core::result::Result<(), getrandom::Error> {
        getrandom::fill(dest)
    }
}

#[cfg(feature = "rustcrypto-traits")]
impl rand_core::TryCryptoRng for OsRng {}

/// Every `rand_core` cryptographic generator (including `&mut R` of one, through
/// `rand_core`'s own impl for `DerefMut`) is a source; its error becomes [`Error::Rng`].
#[cfg(feature = "rustcrypto-traits")]
impl<R: rand_core::TryCryptoRng + ?Sized> RandomSource for R {
    fn fill_bytes(&mut self, dest: &mut [u8]) -> Result<()> {
        self.try_fill_bytes(dest).map_err(|_| Error::Rng)
    }

    fn next_u64(&mut self) -> Result<u64> {
        self.try_next_u64().map_err(|_| Error::Rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_rng_fills_and_differs() {
        let mut a = [0u8; 32];
        let mut b = [0u8; 32];
        OsRng.fill_bytes(&mut a).unwrap();
        OsRng.fill_bytes(&mut b).unwrap();
        // 2^-256 chance of a false failure.
        assert_ne!(a, b);
    }
}
