//! The kernel through NVRTC on a machine without a GPU: NVRTC is a host library, so
//! wherever `libnvrtc.so.13` can be loaded (`scripts/nvrtc` fetches NVIDIA's wheel of
//! it into `target/nvrtc`, and `scripts/test` puts that on the library path) the
//! modules the driver would build are compiled here, exactly as the driver compiles them
//! (`Tuning::nvrtc_options`), for the GPUs the device check runs on (Hopper, `sm_90`),
//! down to machine code by NVRTC's own ptxas. A kernel that only clang's CUDA mode had
//! seen could still fail on the device on the first run; this catches that in every
//! test run.
//!
//! ptxas's report (`--ptxas-options=-v`) gives what no host test can: registers per
//! thread, the stack frame (each thread's local memory) and spills, per module and per
//! function. The test prints it as a table and holds two properties: every module has
//! the four entry points and only the whole kernel and the split form's second pass hold
//! an exponentiation; and in the default build the exponentiation, where a private
//! operation spends nearly all its time, spills nothing at the RSA-1024 and RSA-2048
//! prime lengths in either kernel. The figures for the other lengths and choices are
//! printed to read, not held: they are the compiler's business, and the device check
//! measures what they cost.

use super::module_cache::ModuleCache;
use super::module_cache::tests::TempDir;
use super::nvrtc::{nvrtc_compile_log, nvrtc_present, precompile_module};
use super::source::KERNEL_SOURCE;
use super::tuning::{SIZED_PRIME_WORDS, Tuning};
use std::cmp::Reverse;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Hopper, the device check's GPUs (H100, H200).
const ARCH: &str = "sm_90";

/// What ptxas says of one function of a module, as compiled for one entry point (a
/// device function has a copy in each kernel that calls it).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct FunctionReport {
    entry: String,
    name: String,
    stack_bytes: u32,
    spill_stores: u32,
    spill_loads: u32,
}

/// ptxas's report of a module: each entry point's registers, and each function's frame
/// (entry points included).
#[derive(Debug, Default)]
struct ModuleReport {
    entries: Vec<(String, u32)>,
    functions: Vec<FunctionReport>,
}

impl ModuleReport {
    /// The function of `entry`'s kernel whose (possibly mangled) name contains `part`.
    fn function(&self, entry: &str, part: &str) -> Option<&FunctionReport> {
        self.functions.iter().find(|f| f.entry == entry && f.name.contains(part))
    }
}

/// The number before `unit` in `line` ("... 428 bytes spill stores, ...").
fn number_before(line: &str, unit: &str) -> Option<u32> {
    let head = &line[..line.find(unit)?];
    head.split(|c: char| !c.is_ascii_digit()).rfind(|s| !s.is_empty())?.parse().ok()
}

/// Reads ptxas's verbose log: "Compiling entry function 'NAME'", then "Used R
/// registers" for it; "Function properties for NAME" then a line of the frame and
/// spills.
fn parse_report(log: &str) -> ModuleReport {
    let mut report = ModuleReport::default();
    for line in log.lines() {
        if let Some((_, rest)) = line.split_once("Compiling entry function '") {
            let name = rest.split('\'').next().unwrap_or_default();
            report.entries.push((name.to_string(), 0));
        } else if let Some((_, name)) = line.split_once("Function properties for ") {
            let entry = report.entries.last().map(|(e, _)| e.clone()).unwrap_or_default();
            let name = name.trim().to_string();
            report.functions.push(FunctionReport { entry, name, ..Default::default() });
        } else if line.contains("bytes stack frame")
            && let Some(f) = report.functions.last_mut()
        {
            f.stack_bytes = number_before(line, "bytes stack frame").unwrap_or(0);
            f.spill_stores = number_before(line, "bytes spill stores").unwrap_or(0);
            f.spill_loads = number_before(line, "bytes spill loads").unwrap_or(0);
        } else if line.contains("Used ")
            && line.contains(" registers")
            && let Some(entry) = report.entries.last_mut()
        {
            entry.1 = number_before(line, " registers").unwrap_or(0);
        }
    }
    report
}

/// A tuning from `CRYPTOCARD_GPU_*` pairs over the defaults.
fn tuning(pairs: &[(&str, &str)]) -> Tuning {
    Tuning::from_pairs(pairs).expect("a valid tuning")
}

#[test]
fn kernel_compiles_with_nvrtc_for_hopper() {
    if !nvrtc_present() {
        return eprintln!(
            "skipped: no libnvrtc.so.13 on the library path (scripts/nvrtc fetches one into \
             target/nvrtc; scripts/test uses it)"
        );
    }
    // The integer build at every size, and a register cap at the RSA-2048 prime length
    // (each build is seconds of NVRTC: the device check's other choices compile there).
    let mut builds: Vec<(String, Tuning, Option<usize>)> = Vec::new();
    // The integer kernel's defaults (what a device without full-rate FP64 runs), then
    // the FP64 kernel's at RSA-2048 and 4096 (Hopper's defaults: the dedicated square
    // at 2048, the product at 4096) and with the other squaring at 2048.
    let int = tuning(&[("CRYPTOCARD_GPU_ARITH", "int")]);
    builds.push(("int".into(), int.clone(), None));
    for l in SIZED_PRIME_WORDS {
        builds.push(("int".into(), int.clone(), Some(l)));
    }
    builds.push(("MAXREG=168".into(), tuning(&[("CRYPTOCARD_GPU_MAXREG", "168")]), Some(32)));
    let f64 = tuning(&[("CRYPTOCARD_GPU_ARITH", "f64")]);
    for l in [32, 64] {
        builds.push(("ARITH=f64".into(), f64.clone(), Some(l)));
    }
    let f64_mul = tuning(&[("CRYPTOCARD_GPU_ARITH", "f64"), ("CRYPTOCARD_GPU_SQR", "mul")]);
    builds.push(("f64+sqr=mul".into(), f64_mul, Some(32)));

    // NVRTC compiles one program per thread: as many threads as there are cores, each
    // taking the next build, the largest modules first (their compile takes up to four
    // times a small one's), so no thread waits long for the last.
    builds.sort_by_key(|(_, _, module)| Reverse(module.unwrap_or(0)));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = AtomicUsize::new(0);
    let mut logs: Vec<_> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..cores.min(builds.len()))
            .map(|_| {
                s.spawn(|| {
                    let mut compiled = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((_, t, module)) = builds.get(i) else { break compiled };
                        let start = Instant::now();
                        let log = nvrtc_compile_log(&t.nvrtc_options(ARCH, *module));
                        compiled.push((i, log, start.elapsed().as_secs_f64()));
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("an NVRTC thread")).collect()
    });
    logs.sort_by_key(|&(i, ..)| i);
    assert_eq!(logs.len(), builds.len(), "every build compiled once");
    let logs = logs.into_iter().map(|(_, log, seconds)| (log, seconds));
    eprintln!("ptxas for {ARCH}: registers; stack frame / spill stores / spill loads in bytes");
    eprintln!("(the exponentiation's own frame and spills are those of cc_mont_exp_ct)");
    eprintln!(
        "{:<12} {:>6} {:<15} {:>5} {:>18} {:>14}",
        "build", "module", "entry", "regs", "frame/spills", "exponentiation"
    );
    let mut failures = Vec::new();
    for ((name, _, module), (compiled, seconds)) in builds.iter().zip(logs) {
        let which = module.map_or("every".to_string(), |l| format!("L={l}"));
        eprintln!("{name} {which}: {seconds:.1} s of NVRTC");
        let log = match compiled {
            Ok(log) => log,
            Err(e) => {
                failures.push(format!("{name} {which}: {e}"));
                continue;
            }
        };
        let report = parse_report(&log);
        let show = |f: Option<&FunctionReport>| {
            f.map_or("-".to_string(), |f| {
                format!("{}/{}/{}", f.stack_bytes, f.spill_stores, f.spill_loads)
            })
        };
        for (entry, registers) in &report.entries {
            eprintln!(
                "{:<12} {:>6} {:<15} {:>5} {:>18} {:>14}",
                name,
                which,
                entry,
                registers,
                show(report.function(entry, entry)),
                show(report.function(entry, "cc_mont_exp_ct")),
            );
        }
        let mut names: Vec<&str> = report.entries.iter().map(|(e, _)| e.as_str()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            ["cc_rsa_blind", "cc_rsa_exp", "cc_rsa_join", "cc_rsa_private"],
            "{name} {which}: the entry points in ptxas's report:\n{log}"
        );
        assert!(
            report.entries.iter().all(|&(_, r)| r > 0),
            "{name} {which}: an entry without its registers in the report:\n{log}"
        );
        // The exponentiation is in the whole kernel and the split one's second pass only.
        for entry in ["cc_rsa_blind", "cc_rsa_join"] {
            let exp = report.function(entry, "cc_mont_exp_ct");
            assert!(exp.is_none(), "{name} {which}: {entry} holds an exponentiation");
        }
        if name == "int" && matches!(module, Some(16 | 32)) {
            for entry in ["cc_rsa_private", "cc_rsa_exp"] {
                let exp = report.function(entry, "cc_mont_exp_ct").expect("the exponentiation");
                assert_eq!(
                    (exp.spill_stores, exp.spill_loads),
                    (0, 0),
                    "{name} {which}: the exponentiation spills in {entry}"
                );
            }
        }
    }
    assert!(failures.is_empty(), "NVRTC failed:\n{}", failures.join("\n"));
}

/// The module for every size made ahead into a module cache, as `rsa::gpu_precompile`
/// makes each (`module_cache.rs`): compiled and stored once, as machine code for Hopper
/// (an ELF file), then found there. That module, not unrolled for one length, is the
/// quickest to compile (about half the RSA-1024 one's time).
#[test]
fn precompiles_a_module_into_the_cache() {
    if !nvrtc_present() {
        return eprintln!("skipped: no libnvrtc.so.13 on the library path (scripts/nvrtc)");
    }
    let dir = TempDir::new("precompile");
    let cache = ModuleCache::open(&dir.0).unwrap();
    let t = tuning(&[]);
    let first = precompile_module(ARCH, &t, &cache, None);
    let again = precompile_module(ARCH, &t, &cache, None);
    let key = ModuleCache::key(KERNEL_SOURCE, &t.nvrtc_options(ARCH, None));
    let stored = cache.get(&key);
    let first = first.unwrap();
    assert!(first.starts_with("module for every size: compiled in "), "{first}");
    assert_eq!(again.unwrap(), "module for every size: already in the cache");
    let cubin = stored.expect("the module is in the cache");
    assert_eq!(&cubin[..4], b"\x7fELF", "machine code, not PTX");
    assert!(first.ends_with(&format!("({} bytes)", cubin.len())), "{first}");
}

#[test]
fn reads_ptxas_reports() {
    let log = "ptxas info    : Compiling entry function 'cc_rsa_private' for 'sm_90'\n\
        ptxas info    : Function properties for cc_rsa_private\n\
        ptxas         .     7696 bytes stack frame, 428 bytes spill stores, 1004 bytes spill loads\n\
        ptxas info    : Used 255 registers, used 0 barriers, 7696 bytes cumulative stack size\n\
        ptxas info    : Function properties for _ZN39_INTERNAL_kernel14cc_mont_exp_ctEPjPKj\n\
        ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
    let r = parse_report(log);
    assert_eq!(r.entries, [("cc_rsa_private".to_string(), 255)]);
    let entry = r.function("cc_rsa_private", "cc_rsa_private").unwrap();
    assert_eq!((entry.stack_bytes, entry.spill_stores, entry.spill_loads), (7696, 428, 1004));
    let exp = r.function("cc_rsa_private", "cc_mont_exp_ct").unwrap();
    assert_eq!((exp.stack_bytes, exp.spill_stores, exp.spill_loads), (0, 0, 0));
    assert!(r.function("cc_rsa_private", "cc_mont_exp_pub_eq").is_none());
    assert!(r.function("cc_rsa_exp", "cc_mont_exp_ct").is_none(), "another kernel's");
}
