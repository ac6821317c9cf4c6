//! NVRTC, the host library that compiles the kernel source (`source.rs`) down to a GPU's
//! machine code: for the driver at setup, for [`precompile`] (the module cache filled
//! without a device: `module_cache.rs`), and for the kernel lint. No driver or device is
//! involved; `libnvrtc.so.13` is loaded at run time through `cudarc`, and this file's
//! FFI is the only `unsafe` here.

#![allow(unsafe_code)]

use super::module_cache::{CACHE_VAR, ModuleCache};
use super::source::KERNEL_SOURCE;
use super::tuning::{SIZED_PRIME_WORDS, Tuning};
use std::time::Instant;

/// "for every size" (`None`) or "for 32-limb primes".
pub(super) fn module_name(prime_words: Option<usize>) -> String {
    prime_words.map_or("for every size".to_string(), |l| format!("for {l}-limb primes"))
}

/// What NVRTC made of the kernel source: the machine code for the architecture the
/// options name (a real one, `sm_90`), and its log (ptxas's report, when asked for).
pub(crate) struct Compiled {
    pub(crate) cubin: Vec<u8>,
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) log: String,
}

/// The stack NVRTC runs on. It recurses deeply over the unrolled modules: the build with
/// 64-bit products (`CRYPTOCARD_GPU_PTX=0`) overflowed the 2 MiB a spawned thread gets.
/// Only what is touched is ever mapped.
const NVRTC_STACK: usize = 256 << 20;

/// Compiles the kernel with `options` (`Tuning::nvrtc_options`) down to machine code, on
/// a thread with [`NVRTC_STACK`]. NVRTC only: no driver or device is involved. The error
/// holds NVRTC's log.
pub(crate) fn nvrtc_compile(options: &[String]) -> core::result::Result<Compiled, String> {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("cryptocard-nvrtc".into())
            .stack_size(NVRTC_STACK)
            .spawn_scoped(s, || nvrtc_compile_here(options))
            .map_err(|e| format!("no thread for NVRTC: {e}"))?
            .join()
            .unwrap_or_else(|_| Err("NVRTC failed (a panic in cudarc)".into()))
    })
}

fn nvrtc_compile_here(options: &[String]) -> core::result::Result<Compiled, String> {
    use cudarc::nvrtc::{result, sys};
    let src = std::ffi::CString::new(KERNEL_SOURCE).map_err(|e| e.to_string())?;
    let prog = result::create_program(&src, Some(c"kernel.cu")).map_err(|e| format!("{e:?}"))?;
    // SAFETY: `prog` was just created and is destroyed below, once; the options are
    // plain strings that cudarc turns into C strings for the call.
    let compiled = unsafe { result::compile_program(prog, options) };
    // SAFETY: `prog` is live; the log is copied out before the program is destroyed.
    let log = unsafe { result::get_program_log(prog) }
        .map(|l| l.iter().take_while(|&&c| c != 0).map(|&c| c as u8 as char).collect())
        .unwrap_or_default();
    let cubin = compiled.and_then(|()| {
        let mut size = 0usize;
        // SAFETY: `prog` is live and compiled; NVRTC writes the size to `size`.
        unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) }.result()?;
        let mut cubin = vec![0u8; size];
        // SAFETY: `cubin` has the `size` bytes NVRTC just said it will write.
        unsafe { sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr().cast()) }.result()?;
        Ok(cubin)
    });
    // SAFETY: `prog` is live and not used afterwards.
    let _ = unsafe { result::destroy_program(prog) };
    match cubin {
        Ok(cubin) if !cubin.is_empty() => Ok(Compiled { cubin, log }),
        Ok(_) => Err("NVRTC made no machine code (the architecture must be sm_XY)".into()),
        Err(e) => Err(format!("{e:?}\n{log}")),
    }
}

/// Compiles, without a device, the modules the tuning (`CRYPTOCARD_GPU_*`) has the driver
/// load on a GPU of architecture `arch` (`sm_90`: the H100 and H200) into the module
/// cache that `CRYPTOCARD_GPU_CACHE` names (`module_cache.rs`), so that the device's
/// processes load them instead of compiling: for a deployment image, or the device
/// check's bundle. Needs NVRTC (`libnvrtc.so.13`) and no driver. One line per module:
/// compiled, or already there; the error says which modules failed and why.
pub fn precompile(arch: &str) -> core::result::Result<String, String> {
    let digits = arch.strip_prefix("sm_").unwrap_or_default();
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{arch:?} is not a GPU architecture of the form sm_90"));
    }
    let tuning = Tuning::from_env()?.for_arch(arch);
    let cache = ModuleCache::from_env()
        .ok_or_else(|| format!("{CACHE_VAR} is not set: there is nowhere to keep the modules"))??;
    if !nvrtc_present() {
        return Err("no NVRTC (libnvrtc.so.13 not found), which compiles the kernel".into());
    }
    let modules: Vec<Option<usize>> = core::iter::once(None)
        .chain(SIZED_PRIME_WORDS.iter().filter_map(|&l| tuning.module_for(l)).map(Some))
        .collect();
    let lines: Vec<core::result::Result<String, String>> = std::thread::scope(|s| {
        let running: Vec<_> = modules
            .iter()
            .map(|&l| {
                let (tuning, cache) = (&tuning, &cache);
                s.spawn(move || precompile_module(arch, tuning, cache, l))
            })
            .collect();
        running
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("NVRTC's thread panicked".into())))
            .collect()
    });
    let failed = lines.iter().any(|l| l.is_err());
    let text = lines.into_iter().map(|l| l.unwrap_or_else(|e| e)).collect::<Vec<_>>().join("\n");
    if failed { Err(text) } else { Ok(text) }
}

/// One module of [`precompile`]: "module for 32-limb primes: compiled in 4.2 s (812345
/// bytes)" or "...: already in the cache".
pub(crate) fn precompile_module(
    arch: &str,
    tuning: &Tuning,
    cache: &ModuleCache,
    prime_words: Option<usize>,
) -> core::result::Result<String, String> {
    let which = module_name(prime_words);
    let options = tuning.nvrtc_options(arch, prime_words);
    let key = ModuleCache::key(KERNEL_SOURCE, &options);
    if cache.get(&key).is_some() {
        return Ok(format!("module {which}: already in the cache"));
    }
    let t = Instant::now();
    let compiled = nvrtc_compile(&options)
        .map_err(|e| format!("module {which}: NVRTC could not compile it: {e}"))?;
    cache.put(&key, &compiled.cubin).map_err(|e| format!("module {which}: {e}"))?;
    Ok(format!(
        "module {which}: compiled in {:.1} s ({} bytes)",
        t.elapsed().as_secs_f64(),
        compiled.cubin.len()
    ))
}

/// NVRTC alone, for the kernel lint (`kernel_lint.rs`): compiles the kernel with
/// `options` and ptxas's report on; the log (which holds the report), or NVRTC's error
/// and log.
#[cfg(test)]
pub(crate) fn nvrtc_compile_log(options: &[String]) -> Result<String, String> {
    let mut opts = options.to_vec();
    opts.push("--ptxas-options=-v".to_string());
    nvrtc_compile(&opts).map(|c| c.log)
}

/// Whether NVRTC can be loaded here (no driver or device needed).
pub(crate) fn nvrtc_present() -> bool {
    // SAFETY: loads libnvrtc by its usual names (libloading), which runs its
    // initialisers; nothing of it is called yet.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}
