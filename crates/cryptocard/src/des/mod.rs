//! DES and triple-DES (FIPS 46-3, NIST SP 800-67 Rev. 2), their modes of operation
//! (FIPS 81, NIST SP 800-38A), and the FIPS 113 / ISO/IEC 9797-1 MACs.

mod cipher;
#[allow(clippy::module_inception)]
mod des;
mod feistel;
pub mod key;
pub mod mac;
#[cfg(feature = "rustcrypto-traits")]
mod rustcrypto;
mod tables;
mod tdes;

pub use cipher::BlockCipher64;
pub use des::Des;
pub use key::{has_odd_parity, is_weak_key, set_odd_parity};
pub use tdes::{Tdes, TdesEde2, TdesEde3};
pub mod modes;

pub use modes::{CipherCtx, Direction, Mode, Padding};
