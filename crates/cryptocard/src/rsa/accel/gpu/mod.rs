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
//!   secret) and the public-exponent fault check; `fp64.cuh` the same exponentiation
//!   with its products in radix 2^52 on the FP64 units (Emmart, Zheng and Weems 2018); `rsa_op.cuh` the operation itself
//!   (blinding, c' mod p and q, both exponentiations, Garner, unblinding, the pair's
//!   successor, the fault check m^e = c mod n) and its batch layout; `kernel.cu` the
//!   entry point. `host_shim.h` turns CUDA's qualifiers into nothing so that a C
//!   compiler builds the same headers for the tests (`crates/gpu-host`,
//!   `tests/gpu_host_kernels.rs`): the device's arithmetic is checked against the scalar
//!   backend on every test run, GPU or not.
//! * `layout.rs`: the words the kernel reads, a key's image (uploaded once per key) and
//!   the interleaved planes of a batch, in safe Rust.
//! * `source.rs`, `nvrtc.rs`, `driver.rs` (feature `gpu`): the kernel source as one
//!   string, compiled by NVRTC at run time to the device's machine code (once per
//!   process and module; `module_cache.rs` keeps it between processes,
//!   `CRYPTOCARD_GPU_CACHE`), and the CUDA driver calls through `cudarc`, both libraries
//!   loaded at run time: the only `unsafe` code outside `arch/`. A
//!   machine with no driver, no device or no NVRTC gets [`crate::Error::Unsupported`]
//!   saying which, never a panic. `tuning.rs`: the kernel's compile-time and launch
//!   choices (`CRYPTOCARD_GPU_*`), which the device check measures against each other.
//!   `lane.rs`: the streams batches run on and their kept device memory; `staging.rs`:
//!   the planes' page-locked host memory.
//!   `kernel_lint.rs` (tests): every module compiled by NVRTC itself, without a GPU,
//!   where `libnvrtc` can be loaded, with ptxas's register and spill report.
//! * `whole.rs`: the host's side of a batch run whole on the device (key indices,
//!   blinding pairs in and out, each status to a result), in safe code over a `Runner`
//!   that is the device, or in the tests the host build of the kernel.
//! * `unit.rs` (feature `gpu`): the unit of the backend seam.
//! * `stand_in.rs` (feature `hazmat`): a device that answers with its input after a
//!   set time, to measure the host's side of a batch on any machine.
//!
//! The host keeps what is cheap and per request: hashing and padding, the blinding pairs
//! (taken from the key's pool and their successors put back, as for the other units),
//! the status of each operation.
//!
//! What the host takes on trust from the device: the fault check's verdict (the status
//! word; the device raises m to e itself) and the pairs' successors (A^2, Ai^2), which go
//! back to the key's pool. A wrong successor is caught by the fault check of the
//! operation that next uses it, on whatever unit; one that is wrong but consistent (a
//! pair whose factors are 1, or known) would not be, and would leave those operations
//! unblinded. Only a kernel bug could make one: the kernel is held against the host
//! build and the scalar core word for word, successors included, on every run of the
//! device check (`tests/gpu_device.rs`).
//!
//! Transfers: the device memory is kept from batch to batch and the planes are
//! page-locked (`CRYPTOCARD_GPU_PINNED`); a large batch runs as a pipeline of chunks
//! (`CRYPTOCARD_GPU_CHUNK`, `rsa/batch.rs`), one chunk's host work beside another's
//! launch, on one stream or on two at once (`CRYPTOCARD_GPU_STREAMS`, `lane.rs`'s
//! lanes). What each measured is in `docs/gpu.md`.
//!
//! # Layouts tried and what each measured
//!
//! Measured on an H200 (`scripts/gpu-check --sweep`; the tables and the end-to-end rows
//! are in `docs/gpu.md`), in kernel-only RSA-2048 operations a second: on the integer
//! units the whole kernel with the dedicated squaring 269k, squaring by the product
//! 541k, the split form with squaring by the product 759k (772k with a 4-bit window);
//! on the FP64 units 1.08M with the same choices and 1.35M with a 4-bit window and the
//! dedicated square, the default where the device runs FP64 at full rate (`tuning.rs`
//! says what is chosen by size and by device). A register cap, 64 or 256 threads a
//! block: within a few percent, or slower.
//! One thread per operation throughout, 32-bit limbs but for the FP64 choice; every
//! choice is built and tested on the host (`tests/gpu_host_kernels.rs`) and compiled for
//! the device by clang's CUDA mode there too, where clang has the NVPTX target, and by
//! NVRTC down to Hopper's machine code where NVRTC is present (`kernel_lint.rs`, whose
//! ptxas figures are in `docs/gpu.md`):
//!
//! * one module for every size (`CRYPTOCARD_GPU_SIZED=0`): limb loops of run-time
//!   length, so every limb array lives in local memory;
//! * a module per prime length (the default): the length a compile-time constant
//!   (`CC_FIXED_L`), the limb functions inlined and their inner loops unrolled; a batch
//!   mixing sizes runs one launch per size (`layout::by_size`);
//! * products as carry chains (the default; `CRYPTOCARD_GPU_MUL=cios` for the
//!   four-instruction multiply-add): two instructions per word product, the multiplier
//!   and the modulus copied into arrays the unrolled loops index by constants. In
//!   clang's PTX of the RSA-2048 module the hot loop's running sum, multiplier and
//!   modulus stay in registers (one local load a row, the multiplicand's word); read
//!   through their pointers instead, they did not;
//! * the dedicated squaring as carry chains, unrolled whole, with the reduction in
//!   CIOS's shape as a loop (`CRYPTOCARD_GPU_SQR=dedicated`; the default at RSA-3072
//!   only): for RSA-2048 3,104 chained instructions a squaring against 4,096, and yet
//!   half the product's rate there;
//! * the outer loops of the product unrolled too (`CRYPTOCARD_GPU_UNROLL=full`);
//! * windows of 4 or 5 bits, blocks of 64, 128 or 256 threads, PTX carry chains or
//!   64-bit products (`CRYPTOCARD_GPU_PTX=0`);
//! * a cap on the registers per thread (`CRYPTOCARD_GPU_MAXREG`): the kernel's count is
//!   set by its cold code at n's length (255 at RSA-2048, 8 warps an SM), while the
//!   exponentiation's loop needs about 160 (ptxas's figures: `docs/gpu.md`);
//! * the operation split in three kernels over a scratch (the default for the sized
//!   modules; `CRYPTOCARD_GPU_SPLIT=0` for the whole kernel):
//!   blinding and the reductions, the two exponentiations a thread each, then Garner to
//!   the fault check, so that the exponentiations have registers of their own (156 at
//!   RSA-2048) and a batch has twice the threads;
//! * the secret exponentiations on the FP64 units (`CRYPTOCARD_GPU_ARITH=f64`, the
//!   default on Hopper, `fp64.cuh`): 52-bit limbs as doubles, each product split
//!   exactly by two fused multiply-adds rounding toward zero and summed as 64-bit
//!   integers, CIOS in radix 2^52, with squaring by the product or a dedicated square
//!   (product scanning, then REDC). In ptxas's machine code for RSA-2048 a product's
//!   iteration is 2 DFMA, 1 DADD and 2.1 IADD3 a 52-bit word product, 20 iterations of
//!   221 instructions against the integer product's 32 of 267, so the FP64 pipe's
//!   bound is about 1.8 times the integer kernel's; measured, 1.4 times with the same
//!   choices (1.08M against 758k).
//!
//! One lesson from clang's PTX: a bare `#pragma unroll` there unrolls a loop of unknown
//! length in a function optimised before it is inlined, and then forbids the full
//! unrolling its caller's constant would allow, which leaves every array in local
//! memory; `prelude.cuh` gives each compiler the pragma that means "fully, when the
//! length is known".
//!
//! To try next: several threads per number (CGBN's TPI), for small batches and so that
//! the window tables, which at one thread an exponentiation outgrow L2 and stream from
//! HBM on every scan (docs/gpu.md), fit in shared memory.

// The driver uses the images and the planes, the tests (through `hazmat`) the images
// and the constants: each alone leaves some of it unused.
#[cfg(feature = "gpu")]
pub(crate) mod driver;
#[cfg(all(test, feature = "gpu"))]
mod kernel_lint;
#[cfg(feature = "gpu")]
mod lane;
#[cfg(any(feature = "gpu", feature = "hazmat"))]
#[cfg_attr(not(all(feature = "gpu", feature = "hazmat")), allow(dead_code))]
pub(crate) mod layout;
#[cfg(feature = "gpu")]
mod module_cache;
#[cfg(feature = "gpu")]
pub(crate) mod nvrtc;
#[cfg(feature = "gpu")]
mod source;
#[cfg(feature = "gpu")]
pub(crate) mod staging;
#[cfg(feature = "hazmat")]
pub(crate) mod stand_in;
#[cfg(feature = "gpu")]
pub(crate) mod tuning;
#[cfg(feature = "gpu")]
pub(crate) mod unit;
#[cfg(any(feature = "gpu", feature = "hazmat"))]
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
pub(crate) mod whole;
