//! The kernel's compile-time and launch choices (the layouts of the module docs of
//! `gpu`), read from the environment once, when the device is set up. The defaults are
//! the library's choice; the variables let the device check (`scripts/gpu-check`)
//! measure the alternatives in one run without a rebuild:
//!
//! | variable | values | default | what |
//! |---|---|---|---|
//! | `CRYPTOCARD_GPU_PTX` | 0, 1 | 1 | PTX carry chains (`mad.lo.cc`/`madc.hi`) or 64-bit products |
//! | `CRYPTOCARD_GPU_SIZED` | 0, 1 | 1 | one module per prime length (`CC_FIXED_L`: unrolled, arrays in registers) or one for every size |
//! | `CRYPTOCARD_GPU_UNROLL` | inner, full | inner | unroll the products' inner loops, or both loops (sized modules) |
//! | `CRYPTOCARD_GPU_SQR` | dedicated, mul | by size | the dedicated squaring and REDC (as carry chains, unrolled whole, in a sized chained module; on the FP64 units, product scanning then REDC), or squaring by the general product |
//! | `CRYPTOCARD_GPU_MUL` | chain, cios | chain | the product's rows as PTX carry chains (two instructions a word product), or CIOS with a four-instruction multiply-add |
//! | `CRYPTOCARD_GPU_ARITH` | int, f64 | by device | the secret exponentiations' products on the integer units (32-bit words, the choices above), or in radix 2^52 on the FP64 units (`kernel/fp64.cuh`, Emmart et al. 2018) |
//! | `CRYPTOCARD_GPU_WINDOW` | 1 to 5 | `layout::WINDOW` | the fixed window's bits |
//! | `CRYPTOCARD_GPU_BLOCK` | 32 to 1024, a multiple of 32 | 128 | threads per block |
//! | `CRYPTOCARD_GPU_MAXREG` | 0, or 32 to 255 | 0 | registers per thread at most (`--maxrregcount`); 0 leaves it to the compiler |
//! | `CRYPTOCARD_GPU_PINNED` | 0, 1 | 1 | a batch's planes on the host in page-locked memory, kept between batches, or on the heap (the driver then copies through bounce buffers) |
//! | `CRYPTOCARD_GPU_SPLIT` | 0, 1 | by size | each operation whole in one kernel, or split in three (blinding and reductions; the two exponentiations, a thread each; Garner to the fault check) |
//! | `CRYPTOCARD_GPU_STREAMS` | 1, 2 | 1 | batches on the device one at a time (the default stream), or two at once on streams of their own, so that one batch's copies and host work overlap another's kernel and two smaller launches fill the device together (with `CRYPTOCARD_GPU_CHUNK` below 65536) |
//! | `CRYPTOCARD_GPU_CHUNK` | 1024 to 1048576 | `layout::CHUNK` (32768) | the requests a large batch hands the device at a time (`rsa/batch.rs`): a batch of two chunks or more runs as a pipeline, one chunk's host work beside another's launch; smaller chunks overlap more of a batch, larger ones fill the device better |
//!
//! "By size" and "by device" are what the device runs measured best (H200 leases,
//! docs/gpu.md "What the device measured"):
//!
//! * The exponentiations run on the FP64 units where the device runs FP64 at half its
//!   FP32 rate ([`full_rate_fp64`]: the data-centre parts, compute capability 6.0, 7.0,
//!   8.0, 9.0 and 10.0; measured on 9.0 only), and on the integer units elsewhere,
//!   where FP64 runs at 1/32 of FP32 or less. On an H200 the FP64 kernel (4-bit window,
//!   the squaring below) ran RSA-2048 at 1.35M operations a second in the kernel
//!   against the integer kernel's 772k, RSA-4096 at 142k against 93k.
//! * A 4-bit window (`layout::WINDOW`): as fast as 5 bits or faster at every size on
//!   both units, by a third at RSA-1024 on the FP64 units (the table's scans).
//! * The split form at every sized length (at RSA-2048 with squaring by the product,
//!   759k operations a second against 541k for the whole kernel).
//! * On the integer units, squaring by the product except at RSA-3072, where the
//!   dedicated squaring is faster (238k against 141k). On the FP64 units, the dedicated
//!   square at RSA-1024 and 2048 (at 2048 1.35M against 1.21M), the product at 3072 and
//!   4096, where the square's unrolled products lose (388k against 355k at 3072, 142k
//!   against 111k at 4096).
//!
//! The module for every size, a fallback for other lengths, keeps the dedicated
//! squaring and the whole kernel. A variable that is set applies to every size and
//! every device.
//!
//! The register cap trades occupancy against spills: a kernel's register count is the
//! most any of its paths needs, and in the sized modules that is the cold code at `n`'s
//! length (blinding, Garner, the fault check), not the exponentiation's loop. ptxas's
//! figures for each choice are in `kernel_lint`'s report.
//!
//! Every choice computes the same words (the host build of each is tested against the
//! scalar backend, `tests/gpu_host_kernels.rs`); they differ in speed only. A value
//! outside its range makes the backend unusable with a message naming the variable,
//! rather than run something nobody asked for.

use super::layout::{CHUNK, WINDOW, WINDOW_MAX};

/// The prime lengths, in 32-bit limbs, that get a module of their own when
/// `CRYPTOCARD_GPU_SIZED` is on: RSA-1024, 2048, 3072 and 4096. Other keys the kernel
/// takes run in the module for every size.
pub(crate) const SIZED_PRIME_WORDS: [usize; 4] = [16, 32, 48, 64];

/// Whether a device of architecture `arch` (`sm_` and its compute capability's digits,
/// as the driver and `rsa::gpu_precompile` name it) runs FP64 at half its FP32 rate: the
/// data-centre parts (P100, V100, A100, H100 and H200, B200). The others run it at 1/32
/// to 1/64 of FP32, where the integer kernel is the faster by far.
pub(crate) fn full_rate_fp64(arch: &str) -> bool {
    matches!(arch, "sm_60" | "sm_70" | "sm_80" | "sm_90" | "sm_100")
}

/// The choices, as [`Tuning::from_env`] reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tuning {
    /// PTX carry chains for the multiply-adds.
    pub(crate) ptx: bool,
    /// A module per prime length of [`SIZED_PRIME_WORDS`].
    pub(crate) sized: bool,
    /// The outer loops of the products unrolled too (sized modules only).
    pub(crate) full_unroll: bool,
    /// Squaring by the general product; `None` for the choice by size.
    pub(crate) sqr_by_mul: Option<bool>,
    /// The product's rows as carry chains.
    pub(crate) mul_chain: bool,
    /// The secret exponentiations on the FP64 units (`CC_EXP_F64`); `None` for the
    /// choice by device, which [`Tuning::for_arch`] makes.
    pub(crate) exp_f64: Option<bool>,
    /// The fixed window's bits.
    pub(crate) window: u32,
    /// Threads per block.
    pub(crate) block: u32,
    /// Registers per thread at most; 0 for the compiler's choice.
    pub(crate) max_registers: u32,
    /// The operation in three kernels, the exponentiations a thread each; `None` for
    /// the choice by size.
    pub(crate) split: Option<bool>,
    /// The planes in page-locked host memory.
    pub(crate) pinned: bool,
    /// The requests of a large batch handed to the device at a time.
    pub(crate) chunk: usize,
    /// Batches on the device at once, each on a stream of its own where more than one.
    pub(crate) streams: usize,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            ptx: true,
            sized: true,
            full_unroll: false,
            sqr_by_mul: None,
            mul_chain: true,
            exp_f64: None,
            window: WINDOW,
            block: 128,
            max_registers: 0,
            split: None,
            pinned: true,
            chunk: CHUNK,
            streams: 1,
        }
    }
}

impl Tuning {
    /// The choices from the environment; the name and the accepted values of the first
    /// variable that has something else.
    pub(crate) fn from_env() -> Result<Tuning, String> {
        Tuning::from_lookup(|name| std::env::var(name).ok())
    }

    /// As [`Tuning::from_env`], with `get` in place of the environment (for the tests).
    pub(crate) fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Tuning, String> {
        let d = Tuning::default();
        let set = |name: &str, choices: &[(&str, bool)]| {
            let Some(v) = get(name) else { return Ok(None) };
            let v = v.trim().to_ascii_lowercase();
            choices.iter().find(|(s, _)| *s == v).map(|&(_, b)| Some(b)).ok_or_else(|| {
                let names: Vec<&str> = choices.iter().map(|(s, _)| *s).collect();
                format!("{name} must be {}", names.join(" or "))
            })
        };
        let pick = |name: &str, choices: &[(&str, bool)], default: bool| {
            set(name, choices).map(|v| v.unwrap_or(default))
        };
        let number = |name: &str, ok: &dyn Fn(u32) -> bool, what: &str, default: u32| {
            let Some(v) = get(name) else { return Ok(default) };
            v.trim().parse::<u32>().ok().filter(|&n| ok(n)).ok_or(format!("{name} must be {what}"))
        };
        let yes_no = [("0", false), ("1", true)];
        Ok(Tuning {
            ptx: pick("CRYPTOCARD_GPU_PTX", &yes_no, d.ptx)?,
            sized: pick("CRYPTOCARD_GPU_SIZED", &yes_no, d.sized)?,
            full_unroll: pick(
                "CRYPTOCARD_GPU_UNROLL",
                &[("inner", false), ("full", true)],
                d.full_unroll,
            )?,
            sqr_by_mul: set("CRYPTOCARD_GPU_SQR", &[("dedicated", false), ("mul", true)])?,
            mul_chain: pick(
                "CRYPTOCARD_GPU_MUL",
                &[("cios", false), ("chain", true)],
                d.mul_chain,
            )?,
            exp_f64: set("CRYPTOCARD_GPU_ARITH", &[("int", false), ("f64", true)])?,
            window: number(
                "CRYPTOCARD_GPU_WINDOW",
                &|w| (1..=WINDOW_MAX).contains(&w),
                "1 to 5",
                d.window,
            )?,
            block: number(
                "CRYPTOCARD_GPU_BLOCK",
                &|b| (32..=1024).contains(&b) && b % 32 == 0,
                "32 to 1024, a multiple of 32",
                d.block,
            )?,
            max_registers: number(
                "CRYPTOCARD_GPU_MAXREG",
                &|r| r == 0 || (32..=255).contains(&r),
                "0 or 32 to 255",
                d.max_registers,
            )?,
            split: set("CRYPTOCARD_GPU_SPLIT", &yes_no)?,
            pinned: pick("CRYPTOCARD_GPU_PINNED", &yes_no, d.pinned)?,
            chunk: number(
                "CRYPTOCARD_GPU_CHUNK",
                &|c| (1 << 10..=1 << 20).contains(&c),
                "1024 to 1048576",
                d.chunk as u32,
            )? as usize,
            streams: number(
                "CRYPTOCARD_GPU_STREAMS",
                &|s| s == 1 || s == 2,
                "1 or 2",
                d.streams as u32,
            )? as usize,
        })
    }

    /// NVRTC's options for a module: every prime length (`None`) or one.
    pub(crate) fn nvrtc_options(&self, arch: &str, prime_words: Option<usize>) -> Vec<String> {
        let mut o = vec![
            format!("--gpu-architecture={arch}"),
            format!("-DCC_USE_PTX={}", u8::from(self.ptx)),
            format!("-DCC_SQR_BY_MUL={}", u8::from(self.sqr_by_mul_for(prime_words))),
            format!("-DCC_MUL_CHAIN={}", u8::from(self.mul_chain)),
            format!("-DCC_EXP_F64={}", u8::from(self.f64())),
        ];
        if let Some(l) = prime_words {
            o.push(format!("-DCC_FIXED_L={l}"));
            o.push(format!("-DCC_FULL_UNROLL={}", u8::from(self.full_unroll)));
        }
        if self.max_registers != 0 {
            o.push(format!("--maxrregcount={}", self.max_registers));
        }
        o
    }

    /// The choices for a device of architecture `arch` ("sm_90"): the exponentiations'
    /// units by device where no variable chose them.
    pub(crate) fn for_arch(mut self, arch: &str) -> Tuning {
        self.exp_f64 = Some(self.exp_f64.unwrap_or_else(|| full_rate_fp64(arch)));
        self
    }

    /// Whether the exponentiations run on the FP64 units (the integer units until
    /// [`Tuning::for_arch`] has chosen).
    pub(crate) fn f64(&self) -> bool {
        self.exp_f64 == Some(true)
    }

    /// The module to use for keys of `prime_words` limbs: `Some(l)` for a module of its
    /// own, `None` for the one of every size.
    pub(crate) fn module_for(&self, prime_words: usize) -> Option<usize> {
        (self.sized && SIZED_PRIME_WORDS.contains(&prime_words)).then_some(prime_words)
    }

    /// Whether the module for `prime_words` (`None`: the one for every size) squares by
    /// the general product.
    pub(crate) fn sqr_by_mul_for(&self, prime_words: Option<usize>) -> bool {
        let by_mul: &[usize] = if self.f64() { &[48, 64] } else { &[16, 32, 64] };
        self.sqr_by_mul.unwrap_or(prime_words.is_some_and(|l| by_mul.contains(&l)))
    }

    /// Whether the module for `prime_words` (`None`: the one for every size) runs an
    /// operation in three kernels.
    pub(crate) fn split_for(&self, prime_words: Option<usize>) -> bool {
        self.split.unwrap_or(prime_words.is_some())
    }

    /// The sized modules' lengths where `choice` holds, in bits of RSA ("RSA-1024, 2048
    /// and 4096"), "every size" or "no size".
    fn sizes_where(&self, choice: impl Fn(Option<usize>) -> bool) -> String {
        let sized: Vec<usize> =
            SIZED_PRIME_WORDS.iter().copied().filter(|&l| self.module_for(l).is_some()).collect();
        let yes: Vec<String> =
            sized.iter().filter(|&&l| choice(Some(l))).map(|l| (64 * l).to_string()).collect();
        let every = choice(None);
        if every && yes.len() == sized.len() {
            return "every size".to_string();
        }
        let mut s = match yes.split_last() {
            None => return if every { "the module for every size" } else { "no size" }.into(),
            Some((last, [])) => format!("RSA-{last}"),
            Some((last, rest)) => format!("RSA-{} and {last}", rest.join(", ")),
        };
        if every {
            s.push_str(" and the module for every size");
        }
        s
    }

    /// The choices in a few words, for the speed report.
    pub(crate) fn describe(&self) -> String {
        format!(
            "{}, {} carry chains, {}, {}, squaring by the product at {}, window {}, {} threads a block, {}, split in three kernels at {}, {} planes, chunks of {}, {}",
            if self.f64() {
                "exponentiations on the FP64 units"
            } else {
                "exponentiations on the integer units"
            },
            if self.ptx { "PTX" } else { "64-bit product" },
            match (self.mul_chain, self.ptx) {
                (true, true) => "chained product (CIOS for every size)",
                (true, false) => "chained product",
                (false, _) => "CIOS product",
            },
            match (self.sized, self.full_unroll) {
                (false, _) => "one module for every size",
                (true, false) => "a module per prime size (inner loops unrolled)",
                (true, true) => "a module per prime size (fully unrolled)",
            },
            self.sizes_where(|l| self.sqr_by_mul_for(l)),
            self.window,
            self.block,
            match self.max_registers {
                0 => "registers as the compiler likes".to_string(),
                r => format!("at most {r} registers"),
            },
            self.sizes_where(|l| self.split_for(l)),
            if self.pinned { "page-locked" } else { "heap" },
            self.chunk,
            match self.streams {
                1 => "one batch at a time".to_string(),
                s => format!("{s} batches at once on streams of their own"),
            },
        )
    }
}

#[cfg(test)]
impl Tuning {
    /// As [`Tuning::from_env`], with `(variable, value)` pairs for the environment.
    pub(crate) fn from_pairs(pairs: &[(&str, &str)]) -> Result<Tuning, String> {
        Tuning::from_lookup(|name| {
            pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_every_choice() {
        assert_eq!(Tuning::from_pairs(&[]).unwrap(), Tuning::default());
        let t = Tuning::from_pairs(&[
            ("CRYPTOCARD_GPU_PTX", "0"),
            ("CRYPTOCARD_GPU_SIZED", "0"),
            ("CRYPTOCARD_GPU_UNROLL", "Full"),
            ("CRYPTOCARD_GPU_SQR", " MUL "),
            ("CRYPTOCARD_GPU_MUL", "cios"),
            ("CRYPTOCARD_GPU_ARITH", "F64"),
            ("CRYPTOCARD_GPU_WINDOW", "4"),
            ("CRYPTOCARD_GPU_BLOCK", "256"),
            ("CRYPTOCARD_GPU_MAXREG", "168"),
            ("CRYPTOCARD_GPU_SPLIT", "1"),
            ("CRYPTOCARD_GPU_PINNED", "0"),
            ("CRYPTOCARD_GPU_CHUNK", "16384"),
            ("CRYPTOCARD_GPU_STREAMS", "2"),
        ])
        .unwrap();
        let want = Tuning {
            ptx: false,
            sized: false,
            full_unroll: true,
            sqr_by_mul: Some(true),
            mul_chain: false,
            exp_f64: Some(true),
            window: 4,
            block: 256,
            max_registers: 168,
            split: Some(true),
            pinned: false,
            chunk: 16384,
            streams: 2,
        };
        assert_eq!(t, want);
        assert_eq!(t.module_for(32), None, "not sized: one module");
        assert!(t.describe().contains("window 4") && t.describe().contains("256 threads"));
        assert!(t.describe().contains("at most 168 registers"));
        assert!(t.describe().contains("split in three kernels at every size"));
        assert!(t.describe().contains("squaring by the product at every size"));
        let two = "heap planes, chunks of 16384, 2 batches at once on streams of their own";
        assert!(t.describe().ends_with(two), "{}", t.describe());
        let one = "page-locked planes, chunks of 32768, one batch at a time";
        assert!(Tuning::default().describe().ends_with(one));
        assert!(t.nvrtc_options("sm_90", None).contains(&"--maxrregcount=168".to_string()));
        assert!(t.nvrtc_options("sm_90", Some(32)).contains(&"-DCC_EXP_F64=1".to_string()));
        assert!(t.describe().starts_with("exponentiations on the FP64 units"));
        let int = Tuning::default().nvrtc_options("sm_90", Some(32));
        assert!(int.contains(&"-DCC_EXP_F64=0".to_string()));
    }

    #[test]
    fn values_out_of_range_name_their_variable() {
        for (name, bad) in [
            ("CRYPTOCARD_GPU_PTX", "yes"),
            ("CRYPTOCARD_GPU_SIZED", "2"),
            ("CRYPTOCARD_GPU_UNROLL", "outer"),
            ("CRYPTOCARD_GPU_SQR", "karatsuba"),
            ("CRYPTOCARD_GPU_MUL", "fft"),
            ("CRYPTOCARD_GPU_ARITH", "fp32"),
            ("CRYPTOCARD_GPU_WINDOW", "6"),
            ("CRYPTOCARD_GPU_WINDOW", "0"),
            ("CRYPTOCARD_GPU_BLOCK", "100"),
            ("CRYPTOCARD_GPU_BLOCK", "2048"),
            ("CRYPTOCARD_GPU_MAXREG", "16"),
            ("CRYPTOCARD_GPU_MAXREG", "256"),
            ("CRYPTOCARD_GPU_SPLIT", "yes"),
            ("CRYPTOCARD_GPU_CHUNK", "1023"),
            ("CRYPTOCARD_GPU_CHUNK", "2097152"),
            ("CRYPTOCARD_GPU_STREAMS", "3"),
            ("CRYPTOCARD_GPU_STREAMS", "0"),
        ] {
            let e = Tuning::from_pairs(&[(name, bad)]).unwrap_err();
            assert!(e.starts_with(name), "{name}={bad}: {e}");
        }
    }

    #[test]
    fn choices_by_size_unless_a_variable_sets_them() {
        let t = Tuning::default();
        let sqr = |t: &Tuning, l| t.nvrtc_options("sm_90", l).contains(&"-DCC_SQR_BY_MUL=1".into());
        assert!(sqr(&t, Some(16)) && sqr(&t, Some(32)) && sqr(&t, Some(64)));
        assert!(!sqr(&t, Some(48)) && !sqr(&t, None));
        assert!(SIZED_PRIME_WORDS.iter().all(|&l| t.split_for(Some(l))) && !t.split_for(None));
        let d = t.describe();
        assert!(d.contains("squaring by the product at RSA-1024, 2048 and 4096,"), "{d}");
        assert!(d.contains("split in three kernels at RSA-1024, 2048, 3072 and 4096"), "{d}");
        let one = Tuning::from_pairs(&[("CRYPTOCARD_GPU_SIZED", "1")]).unwrap();
        assert_eq!(one.sizes_where(|l| l == Some(48)), "RSA-3072");
        let set = Tuning::from_pairs(&[
            ("CRYPTOCARD_GPU_SQR", "dedicated"),
            ("CRYPTOCARD_GPU_SPLIT", "0"),
        ])
        .unwrap();
        assert!(!sqr(&set, Some(32)) && !set.split_for(Some(64)));
        assert!(set.describe().contains("squaring by the product at no size"));
        let every = Tuning::from_pairs(&[("CRYPTOCARD_GPU_SIZED", "0")]).unwrap();
        assert!(every.describe().contains("split in three kernels at no size"));
    }

    /// The FP64 kernel on the devices that run FP64 at full rate, unless a variable
    /// chose; its squaring by size differs from the integer kernel's.
    #[test]
    fn units_by_device_unless_a_variable_sets_them() {
        let sqr = |t: &Tuning, l| t.nvrtc_options("sm_90", l).contains(&"-DCC_SQR_BY_MUL=1".into());
        let f64_flag =
            |t: &Tuning| t.nvrtc_options("sm_90", Some(32)).contains(&"-DCC_EXP_F64=1".into());
        let hopper = Tuning::default().for_arch("sm_90");
        assert!(hopper.f64() && f64_flag(&hopper));
        assert!(hopper.describe().starts_with("exponentiations on the FP64 units"));
        assert!(!sqr(&hopper, Some(16)) && !sqr(&hopper, Some(32)) && !sqr(&hopper, None));
        assert!(sqr(&hopper, Some(48)) && sqr(&hopper, Some(64)));
        assert!(hopper.describe().contains("squaring by the product at RSA-3072 and 4096,"));
        for consumer in ["sm_86", "sm_89", "sm_120", "sm_75", "sm_61"] {
            let t = Tuning::default().for_arch(consumer);
            assert!(!t.f64() && !f64_flag(&t), "{consumer}");
            assert!(sqr(&t, Some(32)), "{consumer}: the integer kernel's squaring");
        }
        for (value, on) in [("int", false), ("f64", true)] {
            let chosen = Tuning::from_pairs(&[("CRYPTOCARD_GPU_ARITH", value)]).unwrap();
            assert_eq!(chosen.clone().for_arch("sm_90").f64(), on, "{value} on sm_90");
            assert_eq!(chosen.for_arch("sm_89").f64(), on, "{value} on sm_89");
        }
        assert!(!Tuning::default().f64(), "the integer units until a device is known");
    }

    #[test]
    fn modules_and_their_options() {
        let t = Tuning::default();
        assert_eq!(t.module_for(32), Some(32));
        assert_eq!(t.module_for(40), None, "no module of its own: the one for every size");
        let o = t.nvrtc_options("sm_90", Some(48));
        assert!(o.contains(&"-DCC_FIXED_L=48".to_string()));
        assert!(o.contains(&"--gpu-architecture=sm_90".to_string()));
        let every = t.nvrtc_options("sm_90", None);
        assert!(!every.iter().any(|s| s.starts_with("-DCC_FIXED_L")));
        assert!(!every.iter().any(|s| s.starts_with("--maxrregcount")), "the compiler's choice");
    }
}
