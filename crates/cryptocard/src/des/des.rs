//! Single DES (FIPS 46-3), with a 64-bit key of which 56 bits are used.
//!
//! **Broken**: a 56-bit key is found by exhaustive search in hours (EFF's Deep Crack did it
//! in 1998; FIPS 46-3 was withdrawn in 2005). Use it only to read legacy data or to talk to
//! legacy systems.

use super::cipher::{BlockCipher64, sealed::Inner};
use super::feistel::{Halves, KeySchedule};
use super::key::is_weak_key;
use crate::{Error, Result};

/// Single DES: a key schedule (zeroized on drop). See the module docs: DES is broken.
#[derive(Clone)]
pub struct Des {
    ks: KeySchedule,
}

impl core::fmt::Debug for Des {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Des { .. }")
    }
}

impl Des {
    /// Key length in bytes (56 key bits and 8 parity bits).
    pub const KEY_LEN: usize = 8;
    /// Block length in bytes.
    pub const BLOCK_LEN: usize = 8;

    /// The cipher for an 8-byte key. Parity bits are ignored; weak keys are accepted (see
    /// [`Des::new_checked`]).
    pub fn from_key(key: &[u8; 8]) -> Des {
        Des { ks: KeySchedule::new(u64::from_be_bytes(*key)) }
    }

    /// The cipher for an 8-byte key given as a slice. Parity bits are ignored and weak keys
    /// accepted. Errors: `InvalidKey` if the key is not 8 bytes long.
    pub fn new(key: &[u8]) -> Result<Des> {
        let key: &[u8; 8] =
            key.try_into().map_err(|_| Error::InvalidKey("a DES key is 8 bytes"))?;
        Ok(Des::from_key(key))
    }

    /// As [`Des::new`], but also rejects the 4 weak and 12 semi-weak keys (SP 800-67 Rev. 2,
    /// section 3.3.2) with `InvalidKey("weak DES key")`.
    pub fn new_checked(key: &[u8]) -> Result<Des> {
        let des = Des::new(key)?;
        let key: &[u8; 8] =
            key.try_into().map_err(|_| Error::InvalidKey("a DES key is 8 bytes"))?;
        if is_weak_key(key) {
            return Err(Error::InvalidKey("weak DES key"));
        }
        Ok(des)
    }
}

impl Inner for Des {
    #[inline(always)]
    fn encrypt_inner(&self, s: Halves) -> Halves {
        self.ks.encrypt_inner(s)
    }
    #[inline(always)]
    fn decrypt_inner(&self, s: Halves) -> Halves {
        self.ks.decrypt_inner(s)
    }
    #[inline(always)]
    fn encrypt_inner_par<const N: usize>(&self, s: &mut [Halves; N]) {
        self.ks.encrypt_inner_par(s)
    }
    #[inline(always)]
    fn decrypt_inner_par<const N: usize>(&self, s: &mut [Halves; N]) {
        self.ks.decrypt_inner_par(s)
    }
}

impl BlockCipher64 for Des {
    const NAME: &'static str = "des-ecb";
}
