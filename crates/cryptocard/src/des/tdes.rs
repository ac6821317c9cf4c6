//! Triple-DES, the Triple Data Encryption Algorithm (TDEA) of NIST SP 800-67 Rev. 2:
//! `C = E_K3(D_K2(E_K1(P)))` and `P = D_K1(E_K2(D_K3(C)))` (section 3.2), with
//!
//! * keying option 1: three independent keys (24-byte key `K1 || K2 || K3`),
//! * keying option 2: `K3 = K1` (16-byte key `K1 || K2`; OpenSSL's `des-ede`),
//! * keying option 3: `K1 = K2 = K3` (8-byte key), which equals single DES.
//!
//! The three passes run back to back on the expanded halves: IP^-1 of one pass and IP of
//! the next cancel, so there is one IP and one IP^-1 per block, as in a single DES.
//!
//! **Legacy**: the 64-bit block makes birthday collisions practical after about 2^32
//! blocks under one key (Sweet32, Bhargavan and Leurent, CCS 2016); SP 800-131A Rev. 2
//! disallows TDEA encryption after 2023 (decryption stays allowed for legacy use), and
//! option 2 was disallowed for encryption earlier. Kept for legacy data and payment
//! systems (ANSI X9.24 keys, ISO 9797-1 retail MACs).

use super::cipher::{BlockCipher64, sealed::Inner};
use super::feistel::{Halves, KeySchedule};
use super::key::is_weak_key;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// Triple-DES EDE under any keying option (8-, 16- or 24-byte key). Key schedules are
/// zeroized on drop.
#[derive(Clone)]
pub struct Tdes {
    k1: KeySchedule,
    k2: KeySchedule,
    k3: KeySchedule,
}

impl core::fmt::Debug for Tdes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Tdes { .. }")
    }
}

/// Splits an 8/16/24-byte key into K1, K2, K3 per the keying options (zeroized on drop).
fn split_key(key: &[u8]) -> Result<Zeroizing<[[u8; 8]; 3]>> {
    let part = |i: usize| -> [u8; 8] {
        let mut k = [0u8; 8];
        k.copy_from_slice(&key[8 * i..8 * i + 8]);
        k
    };
    match key.len() {
        8 => Ok(Zeroizing::new([part(0), part(0), part(0)])),
        16 => Ok(Zeroizing::new([part(0), part(1), part(0)])),
        24 => Ok(Zeroizing::new([part(0), part(1), part(2)])),
        _ => Err(Error::InvalidKey("a triple-DES key is 8, 16 or 24 bytes")),
    }
}

impl Tdes {
    /// Block length in bytes.
    pub const BLOCK_LEN: usize = 8;

    /// The cipher for an 8-byte (option 3), 16-byte (option 2) or 24-byte (option 1) key.
    /// Parity bits are ignored; weak keys are accepted. Errors: `InvalidKey` for any other
    /// key length.
    pub fn new(key: &[u8]) -> Result<Tdes> {
        let parts = split_key(key)?;
        Ok(Tdes::from_parts(&parts[0], &parts[1], &parts[2]))
    }

    /// As [`Tdes::new`], but rejects keys SP 800-67 Rev. 2 rules out: a weak or semi-weak
    /// component key (section 3.3.2), `K1 = K2` or `K2 = K3` (the cipher collapses to
    /// single DES; this rejects option 3, whose purpose is exactly that). Parity bits are
    /// ignored in the comparisons. Errors: `InvalidKey` naming the check.
    pub fn new_checked(key: &[u8]) -> Result<Tdes> {
        let parts = split_key(key)?;
        if parts.iter().any(is_weak_key) {
            return Err(Error::InvalidKey("weak DES key in a triple-DES key"));
        }
        let strip = |k: &[u8; 8]| u64::from_be_bytes(*k) & 0xfefe_fefe_fefe_fefe;
        let (k1, k2, k3) = (strip(&parts[0]), strip(&parts[1]), strip(&parts[2]));
        let same = crate::ct::eq(k1, k2) | crate::ct::eq(k2, k3);
        if same.declassify() {
            return Err(Error::InvalidKey("triple-DES key parts repeat (K1 = K2 or K2 = K3)"));
        }
        Ok(Tdes::from_parts(&parts[0], &parts[1], &parts[2]))
    }

    /// The cipher from its three component keys.
    pub fn from_parts(k1: &[u8; 8], k2: &[u8; 8], k3: &[u8; 8]) -> Tdes {
        let ks = |k: &[u8; 8]| KeySchedule::new(u64::from_be_bytes(*k));
        Tdes { k1: ks(k1), k2: ks(k2), k3: ks(k3) }
    }
}

impl Inner for Tdes {
    #[inline(always)]
    fn encrypt_inner(&self, s: Halves) -> Halves {
        self.k3.encrypt_inner(self.k2.decrypt_inner(self.k1.encrypt_inner(s)))
    }
    #[inline(always)]
    fn decrypt_inner(&self, s: Halves) -> Halves {
        self.k1.decrypt_inner(self.k2.encrypt_inner(self.k3.decrypt_inner(s)))
    }
    #[inline(always)]
    fn encrypt_inner_par<const N: usize>(&self, s: &mut [Halves; N]) {
        self.k1.encrypt_inner_par(s);
        self.k2.decrypt_inner_par(s);
        self.k3.encrypt_inner_par(s);
    }
    #[inline(always)]
    fn decrypt_inner_par<const N: usize>(&self, s: &mut [Halves; N]) {
        self.k3.decrypt_inner_par(s);
        self.k2.encrypt_inner_par(s);
        self.k1.decrypt_inner_par(s);
    }
}

impl BlockCipher64 for Tdes {
    const NAME: &'static str = "des-ede3";
}

macro_rules! fixed_tdes {
    ($(#[$doc:meta])* $name:ident, $len:literal, $ossl:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name(Tdes);

        impl $name {
            /// Key length in bytes.
            pub const KEY_LEN: usize = $len;

            /// The cipher for a key of exactly this length. Parity bits are ignored; weak
            /// keys are accepted.
            pub fn from_key(key: &[u8; $len]) -> $name {
                match Tdes::new(key) {
                    Ok(t) => $name(t),
                    Err(_) => unreachable!("internal error: fixed-length key rejected"),
                }
            }

            /// The cipher for a key slice. Errors: `InvalidKey` unless it has this length.
            pub fn new(key: &[u8]) -> Result<$name> {
                let key: &[u8; $len] = key.try_into().map_err(|_| {
                    Error::InvalidKey(concat!("a ", $ossl, " key is ", $len, " bytes"))
                })?;
                Ok($name::from_key(key))
            }

            /// As [`Self::new`] with the checks of [`Tdes::new_checked`].
            pub fn new_checked(key: &[u8]) -> Result<$name> {
                if key.len() != $len {
                    return Err(Error::InvalidKey(concat!("a ", $ossl, " key is ", $len, " bytes")));
                }
                Tdes::new_checked(key).map($name)
            }

            /// The general triple-DES cipher inside.
            pub fn as_tdes(&self) -> &Tdes {
                &self.0
            }
        }

        impl Inner for $name {
            #[inline(always)]
            fn encrypt_inner(&self, s: Halves) -> Halves {
                self.0.encrypt_inner(s)
            }
            #[inline(always)]
            fn decrypt_inner(&self, s: Halves) -> Halves {
                self.0.decrypt_inner(s)
            }
            #[inline(always)]
            fn encrypt_inner_par<const N: usize>(&self, s: &mut [Halves; N]) {
                self.0.encrypt_inner_par(s)
            }
            #[inline(always)]
            fn decrypt_inner_par<const N: usize>(&self, s: &mut [Halves; N]) {
                self.0.decrypt_inner_par(s)
            }
        }

        impl BlockCipher64 for $name {
            const NAME: &'static str = $ossl;
        }
    };
}

fixed_tdes!(
    /// Triple-DES with keying option 2 (16-byte key `K1 || K2`, `K3 = K1`). Legacy.
    TdesEde2,
    16,
    "des-ede"
);
fixed_tdes!(
    /// Triple-DES with keying option 1 (24-byte key `K1 || K2 || K3`). Legacy.
    TdesEde3,
    24,
    "des-ede3"
);
