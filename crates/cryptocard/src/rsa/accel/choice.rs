//! The user's choice of unit for the private operation ([`Backend`]), and what it
//! resolves to on this CPU ([`Unit`]).
//!
//! * [`Backend::Scalar`]: the modular core's constant-time fixed window on 64-bit limbs
//!   (BMI2/ADX kernels where the CPU has them). Always available; the reference.
//! * [`Backend::Ifma`]: the AVX-512 IFMA kernels in radix 2^52 (`ifma.rs`): one
//!   operation's two CRT halves interleaved in one register set (x2), batches of
//!   [`crate::rsa::private_batch`] in 8-lane mb8 calls. Two-prime keys of 1024 to 8192
//!   bits (primes of 8 to 64 limbs; 1024-, 2048-, 3072-, 4096-, 6144- and 8192-bit keys
//!   have kernels of their exact size, others run in the next size up, `ifma_key.rs`);
//!   other keys (multi-prime, shorter, longer) run on the scalar core whatever is chosen.
//! * [`Backend::Gpu`]: a CUDA GPU (`gpu/`, with the cargo feature `gpu`): the whole
//!   private operation but padding on the device, batches of [`crate::rsa::private_batch`]
//!   in one launch. Two-prime keys whose primes have the same length, up to 4096 bits;
//!   other keys run on the scalar core. Chosen explicitly only: `Auto` never picks it
//!   (a GPU pays for deep batches, not for one operation). Without the feature, or
//!   without a driver, a device or NVRTC, choosing it fails with [`Error::Unsupported`]
//!   saying which.
//! * [`Backend::Avx2`]: for CPUs without IFMA: single operations on the scalar core,
//!   batches of [`crate::rsa::private_batch`] in the four 64-bit lanes of AVX2 registers
//!   (`avx2.rs`), two operations to a call. Two-prime keys of 1024 to 4096 bits; others on
//!   the scalar core. Available on every x86-64 CPU with AVX2 (IFMA ones too, where it is
//!   slower than [`Backend::Ifma`] but shows what a CPU without IFMA gets).
//! * [`Backend::Auto`] (the default): IFMA where the CPU has it, else AVX2 where it has
//!   that, else scalar.
//!
//! The choice, from the most to the least specific: a key's own
//! ([`RsaPrivateKey::with_backend`](crate::rsa::RsaPrivateKey::with_backend)), the process
//! default set by [`set_default_backend`],
//! the environment variable `CRYPTOCARD_BACKEND` (`scalar`, `avx2`, `ifma`, `gpu` or `auto`, read once,
//! at the first private operation), [`Backend::Auto`]. Choosing `ifma` (or `avx2`) through
//! the API on a CPU without it fails with [`Error::Unsupported`]; through the environment (where
//! there is nobody to tell), every private operation then fails with that error, as does
//! an unknown value, rather than silently run elsewhere.
//!
//! Public operations (verification, encryption) follow the process default as well
//! (`public.rs`): on IFMA where it resolves to a unit other than `scalar` and `avx2` and
//! the CPU has it, else on the core; they never fail for the choice's sake. Key
//! generation is not a unit's work: its Miller-Rabin rounds run on the fastest kernels
//! the CPU has (`modular::prime::miller_rabin`), whatever the choice.
//!
//! Every backend gives the same results bit for bit (the tests in `tests/rsa_accel*.rs`
//! compare them), so the choice is one of speed only.

use crate::{Error, Result};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// The environment variable that picks the default backend.
pub const BACKEND_VAR: &str = "CRYPTOCARD_BACKEND";

/// A backend for the private operation's exponentiations (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// IFMA where the CPU has it, else AVX2, else scalar.
    #[default]
    Auto,
    /// The portable 64-bit-limb path.
    Scalar,
    /// The AVX-512 IFMA kernels (the CPU must have them).
    Ifma,
    /// A CUDA GPU (the `gpu` feature, and a GPU with its driver and NVRTC).
    Gpu,
    /// Batches in AVX2 lanes, single operations scalar (the CPU must have AVX2).
    Avx2,
}

/// The unit a choice resolves to on this CPU, with the proof that the CPU runs it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Unit {
    /// `scalar.rs`.
    Scalar,
    /// `ifma.rs`.
    #[cfg(target_arch = "x86_64")]
    Ifma(crate::arch::x86_64::cpu::Ifma),
    /// `avx2.rs`.
    #[cfg(target_arch = "x86_64")]
    Avx2(crate::arch::x86_64::cpu::Avx2),
    /// `gpu/unit.rs`.
    #[cfg(feature = "gpu")]
    Gpu(super::gpu::unit::GpuUnit),
}

impl Unit {
    /// Whether this is the GPU.
    #[cfg(feature = "gpu")]
    pub(crate) fn is_gpu(self) -> bool {
        matches!(self, Unit::Gpu(_))
    }

    /// Whether two units are the same (their proofs are alike).
    pub(crate) fn same(self, other: Unit) -> bool {
        core::mem::discriminant(&self) == core::mem::discriminant(&other)
    }
}

impl Backend {
    /// Parses `scalar`, `avx2`, `ifma`, `gpu` or `auto` (the values of
    /// `CRYPTOCARD_BACKEND`).
    pub fn parse(s: &str) -> Result<Backend> {
        match s.trim().to_ascii_lowercase().as_str() {
            "scalar" => Ok(Backend::Scalar),
            "avx2" => Ok(Backend::Avx2),
            "ifma" => Ok(Backend::Ifma),
            "gpu" => Ok(Backend::Gpu),
            "auto" | "" => Ok(Backend::Auto),
            _ => Err(Error::Unsupported(
                "CRYPTOCARD_BACKEND must be scalar, avx2, ifma, gpu or auto",
            )),
        }
    }

    /// Whether this CPU can run the backend (`Auto` and `Scalar` always can).
    pub fn is_available(self) -> bool {
        self.resolve().is_ok()
    }

    /// The unit this choice runs on here; [`Error::Unsupported`] for `Ifma` without IFMA,
    /// `Avx2` without AVX2, and `Gpu` without a usable GPU (or without the `gpu` feature).
    pub(crate) fn resolve(self) -> Result<Unit> {
        if self == Backend::Gpu {
            #[cfg(feature = "gpu")]
            return super::gpu::unit::GpuUnit::detect().map(Unit::Gpu);
            #[cfg(not(feature = "gpu"))]
            return Err(Error::Unsupported("this build has no GPU backend (cargo feature `gpu`)"));
        }
        #[cfg(target_arch = "x86_64")]
        {
            use crate::arch::x86_64::cpu::{Avx2, Ifma};
            match (self, Ifma::detect(), Avx2::detect()) {
                (Backend::Scalar, ..) | (Backend::Auto, None, None) => Ok(Unit::Scalar),
                (Backend::Auto | Backend::Ifma, Some(t), _) => Ok(Unit::Ifma(t)),
                (Backend::Ifma, None, _) => Err(Error::Unsupported("this CPU has no AVX-512 IFMA")),
                (Backend::Auto, None, Some(t)) | (Backend::Avx2, _, Some(t)) => Ok(Unit::Avx2(t)),
                (Backend::Avx2, _, None) => Err(Error::Unsupported("this CPU has no AVX2")),
                (Backend::Gpu, ..) => unreachable!("internal error: Gpu resolved above"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        match self {
            Backend::Scalar | Backend::Auto => Ok(Unit::Scalar),
            Backend::Ifma => Err(Error::Unsupported("this CPU has no AVX-512 IFMA")),
            Backend::Avx2 => Err(Error::Unsupported("this CPU has no AVX2")),
            Backend::Gpu => unreachable!("internal error: Gpu resolved above"),
        }
    }

    fn code(self) -> u8 {
        match self {
            Backend::Auto => 1,
            Backend::Scalar => 2,
            Backend::Ifma => 3,
            Backend::Gpu => 4,
            Backend::Avx2 => 5,
        }
    }
}

/// The process default set through the API: 0 while unset, else `Backend::code`.
static DEFAULT: AtomicU8 = AtomicU8::new(0);

/// Sets the backend of every key without one of its own
/// ([`RsaPrivateKey::with_backend`](crate::rsa::RsaPrivateKey::with_backend)),
/// overriding `CRYPTOCARD_BACKEND`. [`Error::Unsupported`] (and no change) for
/// [`Backend::Ifma`] or [`Backend::Avx2`] on a CPU without it, and for [`Backend::Gpu`]
/// without a usable GPU.
pub fn set_default_backend(backend: Backend) -> Result<()> {
    backend.resolve()?;
    DEFAULT.store(backend.code(), Ordering::Relaxed);
    Ok(())
}

/// The process default: the one set by [`set_default_backend`], else the environment's,
/// else [`Backend::Auto`]. [`Error::Unsupported`] if `CRYPTOCARD_BACKEND` has a value it
/// cannot use (see the module docs).
pub fn default_backend() -> Result<Backend> {
    match DEFAULT.load(Ordering::Relaxed) {
        1 => Ok(Backend::Auto),
        2 => Ok(Backend::Scalar),
        3 => Ok(Backend::Ifma),
        4 => Ok(Backend::Gpu),
        5 => Ok(Backend::Avx2),
        _ => env_backend(),
    }
}

/// `CRYPTOCARD_BACKEND`, read and checked once.
fn env_backend() -> Result<Backend> {
    static ENV: OnceLock<Result<Backend>> = OnceLock::new();
    *ENV.get_or_init(|| {
        let backend = match std::env::var(BACKEND_VAR) {
            Ok(v) => Backend::parse(&v)?,
            Err(std::env::VarError::NotPresent) => Backend::Auto,
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(Error::Unsupported("CRYPTOCARD_BACKEND is not UTF-8"));
            }
        };
        backend.resolve().map(|_| backend)
    })
}
