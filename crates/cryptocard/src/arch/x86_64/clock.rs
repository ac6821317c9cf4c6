//! The CPU probes the benchmark crate times with (`hazmat::clock`, feature `hazmat`):
//! the time-stamp counter, and two chains of known length whose time gives the TSC's
//! ratio to the core clock and to the IFMA unit's throughput. Not used by the library.

/// The time-stamp counter (`rdtsc`).
pub fn ticks() -> u64 {
    // SAFETY: `rdtsc` exists on every x86-64 CPU and has no memory effects.
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// 1000 dependent `add`s: 1000 core cycles, whatever the CPU.
pub fn add_chain_1000() {
    let mut x: u64 = 1;
    // SAFETY: register arithmetic only, no memory or stack use.
    unsafe {
        core::arch::asm!(".rept 1000", "add {x}, {x}", ".endr", x = inout(reg) x, options(nomem, nostack));
    }
    core::hint::black_box(x);
}

/// 2048 `vpmadd52luq` on eight independent chains: the IFMA unit at full throughput.
pub fn ifma_chains_2048(_ifma: super::cpu::Ifma) {
    // SAFETY: the token proves AVX-512 IFMA; register-only arithmetic on clobbered zmm0-9.
    unsafe {
        core::arch::asm!(
            ".rept 256",
            "vpmadd52luq zmm0, zmm8, zmm9", "vpmadd52luq zmm1, zmm8, zmm9",
            "vpmadd52luq zmm2, zmm8, zmm9", "vpmadd52luq zmm3, zmm8, zmm9",
            "vpmadd52luq zmm4, zmm8, zmm9", "vpmadd52luq zmm5, zmm8, zmm9",
            "vpmadd52luq zmm6, zmm8, zmm9", "vpmadd52luq zmm7, zmm8, zmm9",
            ".endr",
            out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
            out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
            out("zmm8") _, out("zmm9") _, options(nomem, nostack)
        )
    };
}
