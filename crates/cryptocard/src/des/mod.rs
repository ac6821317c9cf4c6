//! DES and triple-DES (FIPS 46-3, NIST SP 800-67 Rev. 2), their modes of operation
//! (FIPS 81, NIST SP 800-38A), and the FIPS 113 / ISO/IEC 9797-1 MACs.
//!
//! # Status: broken and legacy
//!
//! **DES is broken**: its 56-bit key falls to exhaustive search (EFF's Deep Crack, 1998),
//! and FIPS 46-3 was withdrawn in 2005. **Triple-DES is legacy**: its 64-bit block gives
//! birthday collisions after about 2^32 blocks under one key (Sweet32, Bhargavan and
//! Leurent, CCS 2016), and NIST SP 800-131A Rev. 2 disallows it for encryption after 2023
//! (decryption of legacy data stays allowed). Both are here to read legacy data and to
//! talk to legacy and payment systems (ANSI X9.19 retail MACs, X9.24 keys, EMV); do not
//! choose them for anything new.
//!
//! # How it is built
//!
//! * `tables` (private): the FIPS 46-3 tables written once in the standard's
//!   order, and the combined S-box/P/E tables derived from them by `const fn` at compile
//!   time: Davio et al.'s "48-bit model", the technique Dusse and Kaliski used for DES on
//!   the Motorola DSP56000 ("A cryptographic library for the Motorola DSP56000", EUROCRYPT
//!   '90, section 4). E and P fold into the S-box tables, so a round is eight table
//!   lookups and XORs on the expanded 48-bit halves.
//! * `feistel` (private): IP and IP^-1 by delta swaps, the key schedule (PC-1, rotations,
//!   PC-2), and the sixteen rounds with the key XOR moved off the critical path.
//! * [`Des`], [`Tdes`] (keying options 1, 2 and 3 from 24-, 16- and 8-byte keys),
//!   [`TdesEde2`], [`TdesEde3`]: the block ciphers, behind the sealed [`BlockCipher64`]
//!   trait. Parity bits are ignored; [`key`] checks and sets odd parity and finds the 4
//!   weak and 12 semi-weak keys (FIPS 74 section 3.6, SP 800-67 Rev. 2 section 3.3.2), and
//!   `new_checked` constructors refuse them. Key schedules are zeroized on drop.
//! * [`modes`]: ECB, CBC, CFB-64, CFB-8, OFB and CTR in an OpenSSL-EVP-style streaming
//!   [`CipherCtx`] (`update`, `finalize`) with PKCS#7 padding removed in constant time,
//!   one-shot [`modes::encrypt`] / [`modes::decrypt`], and [`crate::cipher::lookup`] from OpenSSL
//!   names (`des-ede3-cbc`, `des3`, ...) to cipher, mode, key and IV lengths.
//! * [`mac`]: the FIPS 113 Data Authentication Algorithm / ISO/IEC 9797-1 MAC algorithm 1
//!   ([`mac::CbcMac`]) and algorithm 3, the ANSI X9.19 retail MAC ([`mac::RetailMac`]),
//!   with padding methods 1, 2 and 3, streaming, and constant-time verification.
//! * With the `rustcrypto-traits` feature (on by default): the RustCrypto `cipher` 0.5
//!   traits (`KeyInit`, `BlockCipherEncrypt`, `BlockCipherDecrypt`) for [`Des`],
//!   [`TdesEde2`] and [`TdesEde3`].
//!
//! The serial modes (CBC and CFB-64 encryption, OFB, CBC-MAC) keep their chain on the
//! internal expanded halves: `IP(P xor C) = IP(P) xor IP(C)`, and IP of a ciphertext is
//! the state it came from, so IP, E and their inverses leave the chain, and the three
//! passes of triple-DES run with no permutation between them. ECB, CTR and the
//! decryptions of CBC, CFB-64 and CFB-8 interleave three blocks.
//!
//! ```
//! use cryptocard::des::{modes, Padding};
//! use cryptocard::cipher::lookup;
//!
//! let spec = lookup("des-ede3-cbc").unwrap();
//! let (key, iv) = ([0x42u8; 24], [0x24u8; 8]);
//! let ct = modes::encrypt(
//!     &cryptocard::des::Tdes::new(&key)?, spec.mode, &iv, Padding::Pkcs7, b"legacy data")?;
//! assert_eq!(ct.len(), 16);
//! let pt = modes::decrypt(
//!     &cryptocard::des::Tdes::new(&key)?, spec.mode, &iv, Padding::Pkcs7, &ct)?;
//! assert_eq!(pt, b"legacy data");
//! # Ok::<(), cryptocard::Error>(())
//! ```
//!
//! # Speed
//!
//! CBC and CFB encryption and OFB are serial chains, so their speed is the latency of
//! sixteen rounds a block (`feistel` docs); the parallel modes (ECB, CTR, CBC and CFB
//! decryption) interleave independent blocks and are bound by throughput instead, which
//! makes them markedly faster. A key schedule is computed in constant time (fixed
//! rotate-and-mask terms), triple-DES's three of them; that costs more than OpenSSL's
//! table-driven `DES_set_key_unchecked`, about as much as a few blocks. The rates beside
//! OpenSSL and nettle are in `docs/performance.md`; `cryptocard speed --seeds` sets
//! DES-CBC beside Dusse and Kaliski's DSP56000 (350 Kbit/s, section 6), and `cargo bench
//! -p cryptocard-bench --bench des` times every mode against OpenSSL's EVP ciphers.
//!
//! # Side channels
//!
//! The S-box lookups are indexed by secret-dependent values, as in every table-driven DES
//! (OpenSSL, Go): the 4 KiB of tables stay in L1, but cache timing can leak to an attacker
//! sharing the core. Padding checks and MAC comparisons are constant time.

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
