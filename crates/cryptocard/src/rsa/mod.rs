//! RSA (RFC 8017): keys, key generation, CRT private operations, PKCS#1 v1.5, OAEP, PSS.

mod blinding;
mod components;
mod crt;
mod ct_bytes;
pub mod encoding;
#[doc(hidden)]
pub mod fuzzing;
mod implicit;
mod key;
pub mod keygen;
mod keygen_arith;
mod mgf;
mod oaep;
mod pkcs1v15;
mod pkcs1v15_enc;
mod private;
mod pss;
mod raw;
pub mod validate;

pub use encoding::{RsaKey, key_from_der, key_from_pem};
pub use key::{RsaPrivateKey, RsaPublicKey};
pub use keygen::{DEFAULT_PUBLIC_EXPONENT, KeyGenOptions, max_primes};
pub use mgf::Mgf;
pub use oaep::Oaep;
pub use pss::{Pss, PssHash, SaltLength};
