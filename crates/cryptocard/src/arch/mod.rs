//! Architecture-specific code: the only place in the crate with `unsafe`, `asm!` and
//! `#[target_feature]`.
//!
//! Every kernel here is reachable only through a CPU feature token (see
//! `x86_64::cpu`), a zero-sized value that can be made only by run-time detection, so a
//! kernel cannot run on a CPU without its instructions. Each kernel has a portable twin
//! outside `arch/` that is always compiled and is the reference it is tested against.
//!
//! `sha2_constants` holds the SHA-2 round constants, plain data that the SHA kernels here
//! share with their portable twins in `digest`.

#![allow(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]

pub(crate) mod sha2_constants;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;
