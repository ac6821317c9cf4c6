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
//!   by NVRTC at run time (once per process), and the CUDA driver calls through
//!   `cudarc`, loaded at run time: the only `unsafe` code outside `arch/`. A machine with
//!   no driver, no device or no NVRTC gets [`crate::Error::Unsupported`] saying which,
//!   never a panic.
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
//! Not yet measured: the first device run (`scripts/gpu-check`) fills this in. Tried so
//! far: one thread per operation, 32-bit limbs, limb loops of run-time length (one
//! kernel for every size), CIOS products, dedicated squaring, fixed window of
//! [`layout::WINDOW`] bits with the table in local memory. To try: sizes as compile-time
//! constants (unrolled loops), the table in shared memory, several threads per number
//! (CGBN's TPI), the floating-point products of Emmart et al. 2018.

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
pub(crate) mod unit;
#[cfg(any(feature = "gpu", feature = "hazmat"))]
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
pub(crate) mod whole;
