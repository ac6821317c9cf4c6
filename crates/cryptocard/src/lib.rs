//! cryptocard: the 1989-2003 "crypto-accelerator" papers rebuilt for today's machines:
//! RSA (PKCS#1 v1.5, OAEP, PSS, ANSI X9.31; PKCS#1 / PKCS#8 / SPKI keys), DES and 3DES,
//! the MD, SHA, SHA-3 and RIPEMD-160 digests, on a Montgomery core with AVX-512 IFMA
//! kernels and a batching engine.
//!
//! # Quick start
//!
//! Sign and verify with the RustCrypto `signature` traits (as with the `rsa` crate; see
//! `examples/from_rsa_crate.rs`), or with the key's own methods:
//!
//! ```
//! use cryptocard::digest::{HashAlg, Sha256};
//! use cryptocard::rng::OsRng;
//! use cryptocard::rsa::RsaPrivateKey;
//! use cryptocard::rsa::pkcs1v15::SigningKey;
//! use cryptocard::rsa::signature::{Keypair, Signer, Verifier};
//!
//! let key = RsaPrivateKey::generate(1024, &mut OsRng)?; // 2048 or more in real use
//!
//! let signing_key = SigningKey::<Sha256>::new(key.clone());
//! let signature = signing_key.sign(b"hello");
//! assert!(signing_key.verifying_key().verify(b"hello", &signature).is_ok());
//!
//! let sig = key.sign_pkcs1v15(HashAlg::Sha256, b"hello", &mut OsRng)?;
//! assert_eq!(sig, signature.as_bytes()); // PKCS#1 v1.5 is deterministic
//! key.public_key().verify_pkcs1v15(HashAlg::Sha256, b"hello", &sig)?;
//! assert!(key.public_key().verify_pkcs1v15(HashAlg::Sha256, b"hullo", &sig).is_err());
//! # Ok::<(), cryptocard::Error>(())
//! ```
//!
//! Data flows one way, parse → validate → compute → encode, and so do the imports.
//!
//! # Layers
//!
//! Each module uses only modules on lower lines (modules on one line do not use each
//! other); `scripts/layers` prints any import that points the other way:
//!
//! ```text
//! hazmat               (feature) the internals, re-exported for the benchmark crate
//! engine               queue → batcher → worker pool, over rsa's batch API
//! rsa                  keys, the CRT private operation and its backends, padding, formats
//! modular              Modulus, Montgomery arithmetic, exponentiation, CRT, primes
//! pbe                  password-based encryption (PBES2, PKCS#12's schemes, PBES1)
//! cmac                 CMAC (SP 800-38B) over AES and the DES family
//! cipher               OpenSSL cipher names over DES, 3DES and AES
//! aes                  AES and its modes, on the modes' shared pieces in des
//! bignum  digest  des  Nat and the limb-slice algorithms; hash functions; DES and 3DES;
//!   rc2                RC2 (legacy, for PKCS#12 files)
//! arch                 CPU kernels: the only unsafe, asm! and target_feature code
//! ct  rng              constant-time masks and selection; randomness sources
//! limb                 the limb, its carries, the plain carry chains over limb slices
//! error                Error and Result
//! ```
//!
//! * [`bignum`]: [`bignum::Nat`], arbitrary-precision unsigned integers on 64-bit limbs,
//!   and the limb-slice kernels (GMP's `mpn` level).
//! * [`modular`]: [`modular::Modulus`] and Montgomery arithmetic, constant-time and
//!   variable-time exponentiation, Garner CRT recombination, probable primes.
//! * [`rsa`]: keys, key generation, the blinded and fault-checked CRT private operation,
//!   the padding schemes, the key formats, and the RustCrypto trait types
//!   ([`rsa::pkcs1v15`], [`rsa::pss`]).
//! * [`engine`]: many callers' RSA private-key operations batched into the IFMA lanes
//!   and spread over the cores; it calls [`rsa`] ([`rsa::private_batch`]).
//! * [`des`], [`digest`]: DES/3DES with their modes and MACs; the message digests, HMAC,
//!   PBKDF2 and SHAKE.
//! * [`aes`], [`cipher`]: AES (VAES, AES-NI or a portable constant-time core) in the SP 800-38A
//!   modes; every block cipher by its OpenSSL name. [`cmac`]: CMAC (SP 800-38B) over them.
//! * [`pbe`], [`rc2`]: password-based encryption of keys and PKCS#12 files (PBES2 with
//!   PBKDF2, RFC 7292's derivation and schemes, PBES1); RC2 (RFC 2268), which only the
//!   old PKCS#12 schemes need.
//! * [`ct`], [`rng`]: constant-time selection and comparison; the random source.
//! * `arch`: the only module with `unsafe`, `asm!` and `target_feature` code, behind CPU
//!   feature tokens that can only be made by run-time detection. The one other place
//!   with `unsafe` is the GPU backend's driver layer (`rsa/accel/gpu/driver.rs`, feature
//!   `gpu`): the CUDA driver calls through `cudarc`, each with its `// SAFETY:` line, as
//!   DESIGN.md section 9 asks; its kernel is CUDA C compiled at run time, not Rust.
//!
//! Nothing below `rsa` knows about padding; nothing below `modular` knows about RSA; only
//! `arch` knows about the CPU. Secret-dependent code is constant-time unless its name ends
//! in `_vartime`; every such function says in its documentation what it leaks.
//!
//! Where the rule could have bent, it holds this way:
//!
//! * `arch` sits below the algorithms it speeds up. A kernel takes limb slices and state
//!   arrays and knows neither `Nat` nor the traits of the layers above; the seams are up
//!   there and call down: `bignum::mul`'s `Basecase` (the BMI2/ADX adapter is
//!   `bignum/mul/adx.rs`), `modular`'s `kernel.rs`, `digest`'s `kernels.rs` and `rsa`'s
//!   `accel/` (one file per unit; RSA's choice of sizes and batches is there, `arch`
//!   keeps the kernels in their compiled sizes) pick a kernel by its CPU feature token.
//!   No file of `rsa` imports another in a circle (`scripts/layers` checks it). What a kernel shares with its
//!   portable twin lives at or below `arch`: the limb, its carries and the plain carry
//!   chains and comparisons in `limb` (which `bignum` re-exports), the SHA-2 round
//!   constants in `arch`'s `sha2_constants.rs` (which `digest` uses).
//! * [`ct`] works on limbs and bytes, not on `Nat`, so it sits below `arch`, whose table
//!   scans and radix conversions use its masks. One arrow goes up, and stays: with the
//!   `ct-validation` feature, `ct`'s marks (`mark_secret`, `mark_public`, and
//!   `Choice::declassify`) are valgrind client requests, an `asm!` sequence that lives in
//!   `arch/x86_64/valgrind.rs` and imports nothing.
//! * Primality testing is in [`modular::prime`], not in `bignum`: Miller-Rabin is modular
//!   exponentiation.
//! * Tests may import upward: a kernel's unit tests compare it with its portable
//!   reference above it (the tests under `arch` use `bignum` and `digest`). The rule is
//!   for the code compiled into the library.
//!
//! # Features
//!
//! * `rustcrypto-traits` (default): the RustCrypto `digest`, `cipher`, `signature` 3,
//!   `pkcs8` / `spki` and `rand_core` 0.10 traits on our types.
//! * `hazmat`: the `cryptocard::hazmat` module (limb kernels, raw Montgomery helpers,
//!   window tuning tables, the CPU kernels), for tests, benchmarks and experts; no
//!   stability promise.
//! * `fault-injection`, `fuzzing`: test hooks (`rsa::fault`, bit flips in each phase of
//!   the private operation; the bodies of the fuzz targets), for this crate's tests and
//!   fuzz targets only.
//! * `ct-validation`: valgrind client requests at every mark and declassification of
//!   [`ct`], for the constant-time validation under memcheck (`scripts/ct-valgrind`).

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod aes;
pub mod bignum;
pub mod cipher;
pub mod cmac;
pub mod ct;
pub mod des;
pub mod digest;
pub mod engine;
mod error;
mod limb;
pub mod modular;
pub mod pbe;
pub mod rc2;
pub mod rng;
pub mod rsa;

pub(crate) mod arch;
#[cfg(feature = "hazmat")]
pub mod hazmat;

#[cfg(test)]
pub(crate) mod test_rng;

pub use error::Error;

/// The result type of every fallible operation in this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;
