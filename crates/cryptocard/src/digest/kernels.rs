//! The choice between the portable compression functions and the CPU-specific kernels.
//!
//! The SHA-1/SHA-256 hashers use the SHA extensions, the SHA-384/512 hashers AVX2 (or
//! AVX-512VL) with BMI2. Detection happens once, when a hasher is made
//! ([`ShaAccel::new`]); the hasher keeps the result (proof tokens, see
//! `arch::x86_64::cpu`) and every block goes straight to the chosen code. Clones (HMAC's
//! saved states, PBKDF2's iterations) inherit it without detecting again.

use std::sync::OnceLock;

/// Which compression code a hasher runs (it matters for SHA-1 and SHA-2, which have
/// kernels; MD2, MD4 and MD5 have one implementation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Kernels {
    /// The fastest code the CPU supports (SHA extensions, AVX2/AVX-512VL where present),
    /// unless the environment variable `CRYPTOCARD_DIGEST_PORTABLE` is `1` when first
    /// looked at.
    #[default]
    Auto,
    /// The portable Rust code, on every CPU.
    Portable,
}

/// The environment switch that forces [`Kernels::Portable`] for `Auto` hashers.
const FORCE_PORTABLE_VAR: &str = "CRYPTOCARD_DIGEST_PORTABLE";

impl Kernels {
    /// `self`, with `Auto` turned into `Portable` when the environment asks for it (read
    /// once per process).
    fn resolve(self) -> Kernels {
        static FORCED: OnceLock<bool> = OnceLock::new();
        let forced =
            *FORCED.get_or_init(|| std::env::var_os(FORCE_PORTABLE_VAR).is_some_and(|v| v == "1"));
        if forced { Kernels::Portable } else { self }
    }
}

/// The accelerated kernels a hasher may use: the proof tokens of the SHA extensions (for
/// SHA-1/SHA-256) and of AVX2 with BMI2 (for SHA-384/512), where the CPU has them and the
/// choice allows them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShaAccel {
    #[cfg(target_arch = "x86_64")]
    pub(crate) sha_ni: Option<crate::arch::x86_64::cpu::ShaNi>,
    #[cfg(target_arch = "x86_64")]
    pub(crate) avx2: Option<crate::arch::x86_64::sha512::Avx2Bmi2>,
}

impl ShaAccel {
    /// Detects the CPU's features, unless `kernels` (or the environment) says portable.
    pub(crate) fn new(kernels: Kernels) -> ShaAccel {
        let auto = kernels.resolve() == Kernels::Auto;
        #[cfg(target_arch = "x86_64")]
        {
            use crate::arch::x86_64::{cpu::ShaNi, sha512::Avx2Bmi2};
            if auto {
                ShaAccel { sha_ni: ShaNi::detect(), avx2: Avx2Bmi2::detect() }
            } else {
                ShaAccel { sha_ni: None, avx2: None }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = auto;
            ShaAccel {}
        }
    }

    /// Whether the SHA extensions will be used (SHA-1, SHA-256).
    pub(crate) fn uses_sha_ni(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            self.sha_ni.is_some()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Whether the AVX2/BMI2 kernel will be used (SHA-384/512).
    pub(crate) fn uses_avx2(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            self.avx2.is_some()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }
}
