//! Compiles the GPU kernel source (crates/cryptocard/src/rsa/accel/gpu/kernel) as C for
//! the host, with the shim header in place of CUDA's qualifiers. Needs a C compiler only
//! (no C++ compiler, no CUDA).

fn main() {
    let kernel = "../cryptocard/src/rsa/accel/gpu/kernel";
    for f in ["host_shim.h", "prelude.cuh", "arith.cuh", "exp.cuh", "rsa_op.cuh"] {
        println!("cargo:rerun-if-changed={kernel}/{f}");
    }
    println!("cargo:rerun-if-changed=csrc/gpu_host.c");
    cc::Build::new()
        .file("csrc/gpu_host.c")
        .include(kernel)
        .std("c11")
        .opt_level(3)
        .warnings(true)
        .extra_warnings(true)
        .flag_if_supported("-Wno-unused-function")
        .compile("cryptocard_gpu_host");
}
