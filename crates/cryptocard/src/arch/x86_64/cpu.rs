//! CPU feature detection that returns proof tokens.
//!
//! A token is a zero-sized `Copy` value with a private field, so outside this module it
//! can only be obtained from its `detect` function, which checks the CPU (through
//! `is_x86_feature_detected!`, which caches CPUID). Holding a token proves the
//! instructions exist; kernels that need them take the token as an argument, so their
//! `unsafe` precondition is discharged by the type system (ring's `cpu::Features`).

/// BMI2 and ADX: `mulx`, `adcx`, `adox`.
#[derive(Clone, Copy, Debug)]
pub struct Adx {
    _proof: (),
}

impl Adx {
    /// The token, if this CPU has BMI2 and ADX.
    #[inline]
    pub fn detect() -> Option<Adx> {
        (std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("adx"))
            .then_some(Adx { _proof: () })
    }
}

/// AVX2: 256-bit integer vectors (`vpand`, `vpor`, `vpcmpeqq`, ...).
#[derive(Clone, Copy, Debug)]
pub struct Avx2 {
    _proof: (),
}

impl Avx2 {
    /// The token, if this CPU has AVX2 (and the OS saves the 256-bit registers, which
    /// `is_x86_feature_detected!` checks through XGETBV).
    #[inline]
    pub fn detect() -> Option<Avx2> {
        std::is_x86_feature_detected!("avx2").then_some(Avx2 { _proof: () })
    }
}

/// AVX-512 with IFMA: `vpmadd52luq`, `vpmadd52huq` on 512-bit and 256-bit vectors
/// (AVX512F, AVX512IFMA, AVX512VL, AVX512BW).
#[derive(Clone, Copy, Debug)]
pub struct Ifma {
    _proof: (),
}

impl Ifma {
    /// The token, if this CPU has AVX-512 IFMA and the AVX-512 subsets the kernels use.
    #[inline]
    pub fn detect() -> Option<Ifma> {
        (std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512ifma")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512bw"))
        .then_some(Ifma { _proof: () })
    }
}

/// The SHA extensions (`sha1rnds4`, `sha256rnds2`, ...) with the SSSE3/SSE4.1 shuffles
/// their kernels use.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShaNi {
    _proof: (),
}

impl ShaNi {
    /// The token, if this CPU has SHA-NI, SSSE3 and SSE4.1.
    #[inline]
    pub(crate) fn detect() -> Option<ShaNi> {
        (std::is_x86_feature_detected!("sha")
            && std::is_x86_feature_detected!("ssse3")
            && std::is_x86_feature_detected!("sse4.1"))
        .then_some(ShaNi { _proof: () })
    }
}

/// The AES New Instructions (`aesenc`, `aesdec`, `aesimc`, ...) with SSE2 and SSSE3
/// (`pshufb`, which byte-swaps CTR's counters; every AES-NI CPU has it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct AesNi {
    _proof: (),
}

impl AesNi {
    /// The token, if this CPU has AES-NI, SSE2 and SSSE3.
    #[inline]
    pub(crate) fn detect() -> Option<AesNi> {
        (std::is_x86_feature_detected!("aes")
            && std::is_x86_feature_detected!("sse2")
            && std::is_x86_feature_detected!("ssse3"))
        .then_some(AesNi { _proof: () })
    }
}

/// The vector AES instructions on 256-bit registers (`vaesenc ymm`, ...) with AES-NI and
/// AVX2 (the shuffles and XORs around them).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vaes {
    _proof: (),
}

impl Vaes {
    /// The token, if this CPU has VAES, AES-NI and AVX2 (with the OS saving the 256-bit
    /// registers, which `is_x86_feature_detected!` checks).
    #[inline]
    pub(crate) fn detect() -> Option<Vaes> {
        (std::is_x86_feature_detected!("vaes")
            && std::is_x86_feature_detected!("aes")
            && std::is_x86_feature_detected!("avx2"))
        .then_some(Vaes { _proof: () })
    }
}
