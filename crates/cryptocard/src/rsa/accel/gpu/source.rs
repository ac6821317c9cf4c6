//! The kernel source NVRTC compiles: the headers of `kernel/` in one string, in the
//! order the host build includes them (`crates/gpu-host/csrc/gpu_host.c`), so the device
//! and the tests compile the same text. No `#include` inside: NVRTC gets no file system.

/// The whole device program.
pub(crate) const KERNEL_SOURCE: &str = concat!(
    include_str!("kernel/prelude.cuh"),
    "\n",
    include_str!("kernel/arith.cuh"),
    "\n",
    include_str!("kernel/exp.cuh"),
    "\n",
    include_str!("kernel/fp64.cuh"),
    "\n",
    include_str!("kernel/rsa_op.cuh"),
    "\n",
    include_str!("kernel/kernel.cu"),
);

/// The entry point's name (`extern "C"` in `kernel/kernel.cu`).
pub(crate) const KERNEL_NAME: &str = "cc_rsa_private";

/// The split form's three entry points, in the order they run.
pub(crate) const SPLIT_NAMES: [&str; 3] = ["cc_rsa_blind", "cc_rsa_exp", "cc_rsa_join"];

#[cfg(test)]
mod tests {
    use super::*;

    /// The string holds every header, the entry point, and no include directive or host
    /// shim (NVRTC has neither).
    #[test]
    fn source_is_self_contained() {
        assert!(KERNEL_SOURCE.contains(&format!("void {KERNEL_NAME}(")));
        for name in SPLIT_NAMES {
            assert!(KERNEL_SOURCE.contains(&format!("__global__ void {name}(")), "{name}");
        }
        for f in [
            "cc_mont_mul",
            "cc_mont_exp_ct",
            "cc_mont_exp_ct_f64",
            "cc_rsa_private_at",
            "CC_KEY_MAGIC",
        ] {
            assert!(KERNEL_SOURCE.contains(f), "{f}");
        }
        assert!(!KERNEL_SOURCE.contains("#include"));
        assert!(!KERNEL_SOURCE.contains("CC_HOST_SHIM_H"));
        assert!(KERNEL_SOURCE.contains(&format!("{:#x}u", super::super::layout::KEY_MAGIC)));
    }
}
