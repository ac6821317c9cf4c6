//! The GPU backend: the whole private operation but padding on a CUDA device, one
//! thread per operation, for batches of thousands (issue 19; DESIGN.md section 9).
//!
//! * `kernel/`: the device code, CUDA C that is also C. `arith.cuh` has the 32-bit limb
//!   arithmetic: Montgomery products by CIOS and a dedicated squaring with a separate
//!   REDC (Montgomery 1985; Koc, Acar and Kaliski 1996, "Analyzing and Comparing
//!   Montgomery Multiplication Algorithms"), each multiply-add a PTX carry chain
//!   (`mad.lo.cc.u32` / `madc.hi.u32`) on the device and a 64-bit product on the host;
//!   `exp.cuh` the constant-time fixed window with a full masked table scan (as
//!   sDPF-RSA, Dong et al. 2018; unlike CGBN, whose table read is indexed by the
//!   secret) and the public-exponent fault check; `rsa_op.cuh` the operation itself
//!   (blinding, c' mod p and q, both exponentiations, Garner, unblinding, the pair's
//!   successor, the fault check m^e = c mod n) and its batch layout; `kernel.cu` the
//!   entry point. `host_shim.h` turns CUDA's qualifiers into nothing so that a C
//!   compiler builds the same headers for the tests (`crates/gpu-host`,
//!   `tests/gpu_host_kernels.rs`): the device's arithmetic is checked against the scalar
//!   backend on every test run, GPU or not.
//! * `layout.rs`: the words the kernel reads, a key's image (uploaded once per key) and
//!   the interleaved planes of a batch, in safe Rust.
//! * `source.rs`, `driver.rs` (feature `gpu`): the kernel source as one string, compiled
//!   by NVRTC at run time (once per process and module), and the CUDA driver calls
//!   through `cudarc`, loaded at run time: the only `unsafe` code outside `arch/`. A
//!   machine with no driver, no device or no NVRTC gets [`crate::Error::Unsupported`]
//!   saying which, never a panic. `tuning.rs`: the kernel's compile-time and launch
//!   choices (`CRYPTOCARD_GPU_*`), which the device check measures against each other.
//! * `whole.rs`: the host's side of a batch run whole on the device (key indices,
//!   blinding pairs in and out, each status to a result), in safe code over a `Runner`
//!   that is the device, or in the tests the host build of the kernel.
//! * `unit.rs` (feature `gpu`): the unit of the backend seam.
//!
//! The host keeps what is cheap and per request: hashing and padding, the blinding pairs
//! (taken from the key's pool and their successors put back, as for the other units),
//! the status of each operation.
//!
//! # Layouts tried and what each measured
//!
//! Not yet measured on a device: the first device run (`scripts/gpu-check`, then
//! `scripts/gpu-check --sweep` for the choices below) fills this in. Built and tested
//! on the host so far, one thread per operation and 32-bit limbs throughout:
//!
//! * one module for every size: limb loops of run-time length, so every limb array
//!   lives in local memory (`CRYPTOCARD_GPU_SIZED=0`);
//! * a module per prime length (the default): the length a compile-time constant
//!   (`CC_FIXED_L`), the limb functions inlined, the inner loops unrolled, so that the
//!   running sum and the multiplier stay in registers; a batch mixing sizes runs one
//!   launch per size (`layout::by_size`);
//! * the same with the outer loops unrolled too (`CRYPTOCARD_GPU_UNROLL=full`): no
//!   array indexed by a variable, much more code;
//! * dedicated squaring and REDC (the default) or squaring by the CIOS product
//!   (`CRYPTOCARD_GPU_SQR=mul`), whose word indices stay constant in the inner loop;
//! * windows of 4 or 5 bits, blocks of 64, 128 or 256 threads, PTX carry chains or
//!   64-bit products.
//!
//! To try after that: the table in shared memory, several threads per number (CGBN's
//! TPI) for small batches, the floating-point products of Emmart et al. 2018.

// The driver uses the images and the planes, the tests (through `hazmat`) the images
// and the constants: each alone leaves some of it unused.
#[cfg(feature = "gpu")]
pub(crate) mod driver;
#[cfg(any(feature = "gpu", feature = "hazmat"))]
#[cfg_attr(not(all(feature = "gpu", feature = "hazmat")), allow(dead_code))]
pub(crate) mod layout;
#[cfg(feature = "gpu")]
mod source;
#[cfg(feature = "gpu")]
pub(crate) mod tuning;
#[cfg(feature = "gpu")]
pub(crate) mod unit;
#[cfg(any(feature = "gpu", feature = "hazmat"))]
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
pub(crate) mod whole;
