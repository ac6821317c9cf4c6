//! x86-64 kernels: AES-NI, BMI2/ADX (`mulx`, `adcx`, `adox`) scalar multiplication, SHA-NI, and
//! AVX-512 IFMA (radix 2^52) Montgomery arithmetic.

pub(crate) mod adx;
pub(crate) mod aesni;
#[cfg(feature = "hazmat")]
pub mod clock;
pub(crate) mod cpu;
pub(crate) mod ifma;
pub(crate) mod radix;
pub(crate) mod select;
pub(crate) mod sha512;
pub(crate) mod sha_ni;
#[cfg(feature = "ct-validation")]
pub(crate) mod valgrind;
