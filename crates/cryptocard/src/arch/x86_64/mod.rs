//! x86-64 kernels: AES-NI and VAES, BMI2/ADX (`mulx`, `adcx`, `adox`) scalar
//! multiplication, SHA-NI, and vector Montgomery arithmetic: AVX-512 IFMA (radix 2^52) and
//! AVX2 lanes (radix 2^28).

pub(crate) mod adx;
pub(crate) mod aesni;
#[cfg(feature = "hazmat")]
pub mod clock;
pub(crate) mod cpu;
pub(crate) mod ifma;
pub(crate) mod mb4;
pub(crate) mod radix;
pub(crate) mod select;
pub(crate) mod sha512;
pub(crate) mod sha_ni;
pub(crate) mod vaes;
#[cfg(feature = "ct-validation")]
pub(crate) mod valgrind;
