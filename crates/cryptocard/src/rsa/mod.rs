//! RSA (RFC 8017, PKCS #1 v2.2): keys, key generation, the CRT private operation with
//! blinding and a fault check, PKCS#1 v1.5 signatures and encryption (with implicit
//! rejection), OAEP, PSS, ANSI X9.31 signatures ([`x931`]), and the PKCS#1 / PKCS#8 /
//! SPKI key formats.
//!
//! ```
//! use cryptocard::digest::HashAlg;
//! use cryptocard::rng::OsRng;
//! use cryptocard::rsa::{Pss, RsaPrivateKey};
//!
//! let key = RsaPrivateKey::generate(2048, &mut OsRng)?;
//! let sig = key.sign_pss(&Pss::new(HashAlg::Sha256), b"message", &mut OsRng)?;
//! key.public_key().verify_pss(&Pss::new(HashAlg::Sha256), b"message", &sig)?;
//! let pem = key.public_key().to_public_key_pem()?; // "-----BEGIN PUBLIC KEY-----"
//! # Ok::<(), cryptocard::Error>(())
//! ```
//!
//! # Where RFC 8017 is implemented
//!
//! | RFC 8017 | what | here |
//! |---|---|---|
//! | 3.1, 3.2 | public and private keys, multi-prime (r_i, d_i, t_i) | `key.rs`, [`validate`], `components.rs`, `recover.rs` |
//! | 4.1, 4.2 | I2OSP, OS2IP | `raw.rs` |
//! | 5.1.1, 5.2.2 | RSAEP / RSAVP1, m^e mod n | `raw.rs` ([`RsaPublicKey::raw_public`]), `accel/public.rs` |
//! | 5.1.2, 5.2.1 | RSADP / RSASP1 by CRT (step 2.b) | `private.rs`, `crt.rs`, `blinding.rs`, `accel/` |
//! | 7.1 | RSAES-OAEP | `oaep.rs` ([`Oaep`]) |
//! | 7.2 | RSAES-PKCS1-v1_5 (+ implicit rejection) | `pkcs1v15_enc.rs`, `implicit.rs` |
//! | 8.1, 9.1 | RSASSA-PSS, EMSA-PSS (+ SHAKE, RFC 8702) | `pss.rs` ([`Pss`]) |
//! | 8.2, 9.2 | RSASSA-PKCS1-v1_5, EMSA-PKCS1-v1_5 | `pkcs1v15.rs` |
//! | B.2.1 | MGF1 | `mgf.rs` ([`Mgf`]) |
//! | A.1 | RSAPublicKey, RSAPrivateKey (version 0 and multi) | [`encoding`] |
//!
//! Key generation follows FIPS 186-5 appendix A.1.3 ([`keygen`]); recovery of p and q
//! from (n, e, d) follows NIST SP 800-56B rev. 2 appendix C.2 (`recover.rs`); implicit
//! rejection follows draft-irtf-cfrg-rsa-guidance as OpenSSL 3.2 implements it
//! (`implicit.rs`).
//!
//! # The private operation and its seam
//!
//! c^d mod n is computed by the Chinese remainder theorem, m_i = c^(d_i) mod r_i and
//! Garner's recombination (RFC 8017 5.1.2 step 2.b), as every accelerator paper since
//! the 1980s does (Kaliski's Z80180 article; Shand, Bertin and Vuillemin's PAM boards,
//! where the host did the CRT; Markovic, Unkasevic and Djordjevic measured "more than 2.5
//! times" on the TMS320C54x for 1024 bits, table 4). It runs in three phases:
//!
//! 1. `prepare` (`private.rs`): take a blinding pair, c' = c * r^e, reduce c' mod every
//!    prime;
//! 2. `exponentiate`: the per-prime exponentiations, on the key's unit behind the
//!    `Accelerator` trait of `accel/` (the seam, one file per unit). The scalar unit is
//!    the modular core's constant-time fixed window; the IFMA unit runs both halves of
//!    one request in one AVX-512 register set ("x2") and, for [`private_batch`], the
//!    halves of up to four requests in the eight lanes of one "mb8" call. Which one runs
//!    is chosen per key, per process or by `CRYPTOCARD_BACKEND` ([`Backend`]; IFMA by
//!    default where the CPU has it);
//! 3. `finish`: Garner, unblinding, and the fault check m^e = c modulo n of the whole
//!    operation.
//!
//! Every phase takes a slice of operations (a single operation is a batch of one), so a
//! [`private_batch`] runs each phase for all its operations together: the
//! exponentiations and the fault checks in mb8 calls, and the products modulo n
//! (blinding, unblinding, the renewal of the pairs) eight to an IFMA call.
//!
//! Nearly all of the time is in phase 2: beside two private exponentiations, the other
//! phases are a few products modulo n and modulo each prime and the fault check's short
//! exponentiation by e (`crates/bench`'s `rsa -- sign_loop` is the loop to profile).
//!
//! # Security
//!
//! * **Constant time.** Everything that touches the private key or a secret value is
//!   constant time: Montgomery products and reductions, the fixed-window exponentiation
//!   with masked table reads over exponents padded to their prime's limb length,
//!   Garner's steps, the fault check, OAEP and PKCS#1 v1.5 unpadding (masked scans,
//!   one decision at the end), implicit rejection (the synthetic message is derived on
//!   every call). What leaks is what is announced: key sizes, the number of primes,
//!   whether an operation failed, and the length of what it returned. Key generation and
//!   import say in their docs what little more they show (`keygen`, `validate`).
//! * **Blinding** (`blinding.rs`): the exponentiations never see the caller's c but
//!   c * r^e for a fresh-looking r, so inputs cannot be chosen to correlate with the
//!   exponent (Kocher 1996). Pairs (r^e, r^-1) are reused by squaring and renewed every
//!   32 uses, as OpenSSL's `BN_BLINDING`; a pool behind a briefly-held lock serves
//!   concurrent callers.
//! * **Fault check** (`private.rs`): a wrong CRT half would factor n from one signature
//!   (Boneh, DeMillo, Lipton 1997; Lenstra); every result, after unblinding, is checked
//!   against the caller's input with e and withheld on a mismatch
//!   ([`crate::Error::FaultDetected`]).
//! * **Errors without detail**: decryption fails with [`crate::Error::Decryption`] only,
//!   verification with [`crate::Error::Verification`] only; PKCS#1 v1.5 decryption by
//!   default does not fail at all on bad padding (implicit rejection), so no padding
//!   oracle (Bleichenbacher 1998, Manger 2001, ROBOT, Marvin).
//! * **No panics on input**: the parsers and schemes return errors; the fuzz targets
//!   below run them on arbitrary bytes. Secrets are zeroised on drop.
//!
//! # Speed
//!
//! The rates of sign, verify, encrypt and decrypt at 2048 to 4096 bits, one at a time
//! and in batches, on the IFMA and on the scalar path, beside OpenSSL 3.0 and 4.0, are in
//! `docs/performance.md` (`cryptocard speed rsa2048 rsa3072 rsa4096 --compare openssl`,
//! written by `scripts/readme-speed` with the date and the CPU). `crates/bench`'s `rsa`
//! benchmark times the backends and batch sizes one against another. The private
//! operation's speed is that of its exponentiation units: see `accel/` and the kernels
//! they run on. The public operation (verification, encryption) runs on the IFMA x2
//! kernel where the CPU has it (`accel/public.rs`), else on the core's sliding window.
//!
//! # Fuzzing
//!
//! `crates/cryptocard/fuzz` is a cargo-fuzz project (outside the workspace, nightly) with
//! four targets, behind the `fuzzing` feature (the fuzz crate enables it): `parse_keys`,
//! `verify` and `decrypt`, whose bodies are in the `fuzzing` module, and `private_batch`,
//! a differential test of [`private_batch`] and the engine against the scalar single
//! operation (`engine::fuzzing`). `tests/fuzz_corpus.rs` runs every body over its target's
//! committed seed corpus (`fuzz/corpus/<target>/`), `tests/rsa_fuzz_bodies.rs` the first
//! three on random and mutated inputs; `scripts/fuzz [SECONDS] [TARGET ...]` runs the
//! fuzzer itself, ten minutes a target by default.

/// `faulted!(Phase, value)`: the value, with a bit flipped where a test armed a fault
/// for that phase (the `fault` module); the value untouched without the
/// `fault-injection` feature.
macro_rules! faulted {
    ($phase:ident, $value:expr) => {{
        let value = $value;
        #[cfg(feature = "fault-injection")]
        let value = crate::rsa::fault::hit(crate::rsa::fault::Phase::$phase, value);
        value
    }};
}

pub(crate) mod accel;
pub mod batch;
mod blinding;
pub(crate) use blinding::BATCHES_IN_FLIGHT;
mod components;
mod crt;
mod ct_bytes;
#[cfg(feature = "ct-validation")]
mod ct_marks;
mod declassify;
pub mod encoding;
#[cfg(feature = "fault-injection")]
pub mod fault;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod implicit;
mod key;
pub mod keygen;
mod keygen_arith;
mod mgf;
mod oaep;
mod on_cores;
pub mod pkcs1v15;
mod pkcs1v15_enc;
mod private;
#[cfg(feature = "hazmat")]
pub(crate) mod product_jobs;
pub mod pss;
mod pss_params;
mod raw;
mod recover;
#[cfg(feature = "rustcrypto-traits")]
pub(crate) mod signing;
mod tags;
pub mod validate;
pub mod x931;

/// The RustCrypto `signature` crate, as `rsa::signature`.
#[cfg(feature = "rustcrypto-traits")]
pub use ::signature;
/// The key format crates, as the `rsa` crate re-exports them (`rsa::pkcs8::...`).
pub use {::pkcs1, ::pkcs8, ::spki};

/// The GPU backend's device in one line (name, SMs, clock), or why there is none; its
/// launches, operations and seconds in the kernel; its kernels' registers and occupancy.
#[cfg(feature = "gpu")]
pub use accel::gpu::driver::{
    GpuCounters, counters as gpu_counters, kernels as gpu_kernels, status as gpu_status,
};
/// Compiles the GPU kernel's modules for a GPU architecture into the module cache
/// (`CRYPTOCARD_GPU_CACHE`), without a device.
#[cfg(feature = "gpu")]
pub use accel::gpu::nvrtc::precompile as gpu_precompile;
pub use accel::{BACKEND_VAR, Backend, default_backend, set_default_backend};
pub use batch::{BatchClass, PrivateRequest, private_batch};
pub use encoding::{
    KeyParseOptions, RsaKey, decrypt_pkcs8_der, encrypt_pkcs8_der, key_from_der, key_from_der_with,
    key_from_pem, key_from_pem_with,
};
pub use key::{RsaPrivateKey, RsaPublicKey};
pub use keygen::{DEFAULT_PUBLIC_EXPONENT, KeyGenOptions, max_primes};
pub use mgf::Mgf;
pub use oaep::Oaep;
pub use pss::{Pss, PssHash, SaltLength};
