//! `cryptocard version`: the version, as `openssl version` prints its own, and which of
//! the library's CPU-specific backends this machine runs.
//!
//! ```text
//! cryptocard version [-a] [-v]
//! ```
//!
//! The backends: the modular-arithmetic kernels the library picked for this CPU
//! (`modular::Modulus::kernels`: `adx` for `mulx/adcx/adox`, else `portable`) and the
//! digest kernels it uses where the CPU has them (SHA-NI for SHA-1/SHA-256, AVX2 or
//! AVX-512VL with BMI2 for SHA-384/512; `CRYPTOCARD_DIGEST_PORTABLE=1` turns them off),
//! and AES's (`aes::Implementation`: VAES with AES-NI, or AES-NI alone).
//! The `cpu:` line lists the extensions present that matter here, AVX-512 IFMA (the
//! 52-bit multiply-add the batched RSA kernels are built around) among them.

use super::{Spec, no_positional};
use crate::args::Flag;
use crate::fail::CmdResult;
use cryptocard::aes::Implementation;
use cryptocard::modular::{Anon, Modulus};

const SPEC: Spec = Spec {
    usage: "version [options]",
    flags: &[
        Flag::switch("a").about("Show all information"),
        Flag::switch("v").about("Show the version only"),
    ],
    notes: "",
    more: None,
};

/// Runs `version`.
pub fn main(argv: &[String]) -> CmdResult {
    let Some(a) = SPEC.parse(argv)? else { return Ok(()) };
    no_positional(&a)?;
    let mut text = format!("cryptocard {}\n", env!("CARGO_PKG_VERSION"));
    if !a.has("v") {
        text += &format!("backends: {}\n", backends().join(", "));
        text += &format!("cpu: {}\n", cpu_features().join(", "));
    }
    if a.has("a") {
        text += &format!(
            "target: {} {}\nprofile: {}\n",
            std::env::consts::ARCH,
            std::env::consts::OS,
            if cfg!(debug_assertions) { "debug" } else { "release" }
        );
    }
    super::print_text(&text);
    Ok(())
}

/// The kernels the library runs on this CPU: "modular arithmetic adx", "SHA-1/SHA-256
/// SHA-NI", ...
pub fn backends() -> Vec<String> {
    // Any odd modulus shows which kernel set the library chose for this CPU.
    let kernels =
        Modulus::<Anon>::from_be_bytes(&[0x80, 0x01]).map(|m| m.kernels()).unwrap_or("portable");
    let mut v = vec![format!("modular arithmetic {kernels}")];
    let portable = std::env::var_os("CRYPTOCARD_DIGEST_PORTABLE").is_some_and(|v| v == "1");
    let has = |f: &str| cpu_features().contains(&f);
    if !portable && has("SHA-NI") {
        v.push("SHA-1/SHA-256 SHA-NI".into());
    }
    if !portable && has("BMI2") && has("AVX-512VL") {
        v.push("SHA-384/SHA-512 AVX-512VL+BMI2".into());
    } else if !portable && has("BMI2") && has("AVX2") {
        v.push("SHA-384/SHA-512 AVX2+BMI2".into());
    }
    match Implementation::fastest() {
        Implementation::Vaes => v.push("AES VAES+AES-NI".into()),
        Implementation::AesNi => v.push("AES AES-NI".into()),
        _ => {}
    }
    v
}

/// The instruction-set extensions present that the library has kernels for or plans
/// them around.
#[cfg(target_arch = "x86_64")]
pub fn cpu_features() -> Vec<&'static str> {
    let mut v = Vec::new();
    if std::is_x86_feature_detected!("aes") {
        v.push("AES-NI");
    }
    if std::is_x86_feature_detected!("vaes") {
        v.push("VAES");
    }
    if std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("adx") {
        v.extend(["BMI2", "ADX"]);
    }
    if std::is_x86_feature_detected!("sha") {
        v.push("SHA-NI");
    }
    if std::is_x86_feature_detected!("avx2") {
        v.push("AVX2");
    }
    if std::is_x86_feature_detected!("avx512vl") {
        v.push("AVX-512VL");
    }
    if std::is_x86_feature_detected!("avx512ifma") {
        v.push("AVX-512 IFMA");
    }
    v
}

/// No x86 extensions elsewhere.
#[cfg(not(target_arch = "x86_64"))]
pub fn cpu_features() -> Vec<&'static str> {
    Vec::new()
}
