//! Randomness: the operating system's entropy source, and the trait that lets tests supply
//! their own.
//!
//! Dusse and Kaliski's accelerator card carried a noise diode as its key source; ours is
//! the kernel's CSPRNG (`getrandom(2)` on Linux), which mixes hardware noise sources of the
//! same kind. Every function that needs randomness (prime generation, blinding, padding,
//! salts) takes a `&mut dyn RandomSource`, so that a test can make it deterministic and a
//! caller can bring a source of their own.

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

impl RandomSource for OsRng {
    fn fill_bytes(&mut self, dest: &mut [u8]) -> Result<()> {
        getrandom::fill(dest).map_err(|_| Error::Rng)
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
