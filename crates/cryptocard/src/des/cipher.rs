//! The one small trait the modes of operation are written against: a 64-bit block cipher
//! of this crate (single DES or triple-DES).
//!
//! It is sealed. Besides whole-block encryption it gives the modes (through a hidden
//! supertrait) the cipher *between* IP and IP^-1, on expanded halves, so that CBC, CFB and
//! OFB keep their serial chain inside the permuted domain (see `feistel`'s module docs).

use super::feistel::{Halves, fp_contract, ip_expand};

pub(crate) mod sealed {
    use super::Halves;

    /// The rounds without the initial and final permutations, on one block or on `N`
    /// independent blocks interleaved. Not nameable outside the crate.
    pub trait Inner {
        /// The rounds of encryption, from `IP(block)` (expanded) to the pre-output.
        fn encrypt_inner(&self, s: Halves) -> Halves;
        /// The rounds of decryption.
        fn decrypt_inner(&self, s: Halves) -> Halves;
        /// Encryption rounds on `N` independent blocks, interleaved round by round.
        fn encrypt_inner_par<const N: usize>(&self, s: &mut [Halves; N]);
        /// Decryption rounds on `N` independent blocks, interleaved round by round.
        fn decrypt_inner_par<const N: usize>(&self, s: &mut [Halves; N]);
    }
}

/// A 64-bit block cipher of this crate: [`super::Des`], [`super::Tdes`],
/// [`super::TdesEde2`] or [`super::TdesEde3`]. Sealed.
pub trait BlockCipher64: sealed::Inner + Clone {
    /// The OpenSSL name of the cipher in ECB mode (`des-ecb`, `des-ede`, `des-ede3`).
    const NAME: &'static str;

    /// Encrypts one block, read and written big-endian as a `u64`.
    #[inline]
    fn encrypt_u64(&self, block: u64) -> u64 {
        fp_contract(self.encrypt_inner(ip_expand(block)))
    }

    /// Decrypts one block, read and written big-endian as a `u64`.
    #[inline]
    fn decrypt_u64(&self, block: u64) -> u64 {
        fp_contract(self.decrypt_inner(ip_expand(block)))
    }

    /// Encrypts one 8-byte block in place.
    #[inline]
    fn encrypt_block(&self, block: &mut [u8; 8]) {
        *block = self.encrypt_u64(u64::from_be_bytes(*block)).to_be_bytes();
    }

    /// Decrypts one 8-byte block in place.
    #[inline]
    fn decrypt_block(&self, block: &mut [u8; 8]) {
        *block = self.decrypt_u64(u64::from_be_bytes(*block)).to_be_bytes();
    }
}
