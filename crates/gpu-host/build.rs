//! Compiles the GPU kernel source (crates/cryptocard/src/rsa/accel/gpu/kernel) as C for
//! the host, with the shim header in place of CUDA's qualifiers: the run-time build
//! (`csrc/gpu_host.c`, every primitive) and one build per compile-time variant the
//! device may use (`csrc/gpu_host_sized.c`, the batch entry only; see `VARIANTS` in
//! src/lib.rs). Needs a C compiler only (no C++ compiler, no CUDA).

use std::path::PathBuf;

/// (prime limbs or 0 for the run-time build, squaring by the general product, the
/// product as carry chains, the secret exponentiation on the FP64 units): the same list
/// as `VARIANTS` in src/lib.rs. Each is named `l<limbs>_s<0|1>_c<0|1>`, with `_f64`
/// after it for the FP64 exponentiation.
const VARIANTS: &[(u32, u32, u32, u32)] = &[
    (0, 1, 0, 0),
    (0, 0, 1, 0),
    (16, 0, 0, 0),
    (16, 1, 0, 0),
    (16, 0, 1, 0),
    (16, 1, 1, 0),
    (32, 0, 0, 0),
    (32, 1, 0, 0),
    (32, 0, 1, 0),
    (32, 1, 1, 0),
    (48, 0, 0, 0),
    (48, 1, 0, 0),
    (48, 0, 1, 0),
    (48, 1, 1, 0),
    (64, 0, 0, 0),
    (64, 1, 0, 0),
    (64, 0, 1, 0),
    (64, 1, 1, 0),
    (0, 0, 0, 1),
    (16, 1, 1, 1),
    (32, 1, 1, 1),
    (32, 0, 1, 1),
    (48, 0, 1, 1),
    (64, 1, 1, 1),
];

fn main() {
    let kernel = "../cryptocard/src/rsa/accel/gpu/kernel";
    for f in ["host_shim.h", "prelude.cuh", "arith.cuh", "exp.cuh", "fp64.cuh", "rsa_op.cuh"] {
        println!("cargo:rerun-if-changed={kernel}/{f}");
    }
    println!("cargo:rerun-if-changed=csrc/gpu_host.c");
    println!("cargo:rerun-if-changed=csrc/gpu_host_sized.c");
    println!("cargo:rerun-if-changed=csrc/host_batch.h");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut build = cc::Build::new();
    build.file("csrc/gpu_host.c");
    for &(l, sqr, chain, f64) in VARIANTS {
        // One file per variant, so that each has its own object.
        let name = format!("l{l}_s{sqr}_c{chain}{}", if f64 == 1 { "_f64" } else { "" });
        let fixed = if l > 0 { format!("#define CC_FIXED_L {l}\n") } else { String::new() };
        let text = format!(
            "{fixed}#define CC_SQR_BY_MUL {sqr}\n#define CC_MUL_CHAIN {chain}\n\
             #define CC_EXP_F64 {f64}\n#define CC_VARIANT {name}\n#include \"gpu_host_sized.c\"\n"
        );
        let path = out.join(format!("gpu_host_{name}.c"));
        std::fs::write(&path, text).expect("writing a variant's source to OUT_DIR");
        build.file(path);
    }
    build
        .include(kernel)
        .include("csrc")
        .std("c11")
        .opt_level(3)
        .warnings(true)
        .extra_warnings(true)
        .flag_if_supported("-Wno-unused-function")
        // fp64.cuh's products round toward zero, a mode the host entries set at run time.
        .flag_if_supported("-frounding-math")
        .compile("cryptocard_gpu_host");
    // fma, fegetround and fesetround.
    println!("cargo:rustc-link-lib=m");
}
