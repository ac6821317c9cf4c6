//! Montgomery product without scratch, by coarsely integrated operand scanning (CIOS,
//! Koc-Acar-Kaliski 1996; Dusse-Kaliski "Improvement 2": interleave multiplication and
//! reduction one digit at a time). Used where the double-length scratch of the separated
//! form (product, then REDC) would not fit on the stack.
//!
//! The accumulator is `T = r[0..k) + top 2^(64k)`, starting at 0. For each digit `b_i`:
//!
//! 1. row A: `T += a * b_i` (both chains); its carry-out limb `ca` is held back;
//! 2. `m = T mod 2^64 * n0`, row B: `T = (T + m n) / 2^64`, the shifting row; its first
//!    step only makes the carry (its sum is 0 mod 2^64 by the choice of `m`), which is
//!    folded into its high half;
//! 3. `r[k-1] + top 2^64 = top + ca + cb` with `cb` row B's carry-out limb.
//!
//! Bound: if `T < R + n` then the next `T < (R + n + (R-1)(2^64-1) + (2^64-1) n) / 2^64
//! < R + n`, so `top` is 0 or 1 between digits, and `top + ca + cb < 2^65`.

use super::row_asm::{addmul_shift_step, addmul_step, row_carry_out, row_loop8, row_loop8_from_h1};
use crate::arch::x86_64::cpu::Adx;
use crate::limb::Limb;
use core::arch::asm;

/// The loop constants, read from memory so that the kernel fits in the registers.
#[repr(C)]
struct Ctx {
    n0: Limb,           // 0
    a: *const Limb,     // 8
    n: *const Limb,     // 16
    k: usize,           // 24
    b_end: *const Limb, // 32
}

/// `c*R + r = (a*b + m*n) / R` for any `k = n.len() = a.len() = b.len() = r.len() >= 2`.
pub fn mont_mul_cios(
    _adx: Adx,
    r: &mut [Limb],
    a: &[Limb],
    b: &[Limb],
    n: &[Limb],
    n0: Limb,
) -> Limb {
    let k = n.len();
    assert!(
        k >= 2 && r.len() == k && a.len() == k && b.len() == k,
        "internal error: adx cios lengths"
    );
    r.fill(0);
    let ctx = Ctx { n0, a: a.as_ptr(), n: n.as_ptr(), k, b_end: b.as_ptr_range().end };
    let top: Limb;
    // SAFETY: the token proves BMI2/ADX. Row A reads a[0..k) and r[0..k) and writes
    // r[0..k); row B reads n[0..k) and r[0..k) and writes r[0..k-1) (each sum one limb
    // below where it was read); the fix-up writes r[k-1]. `{b}` walks b[0..k) and stops
    // at b_end. `ctx` outlives the asm and is only read. No stack use.
    unsafe {
        asm!(
            "xor {top:e}, {top:e}",
            "2:",
            // Row A: T += a * b_i.
            "mov rdx, qword ptr [{b}]",
            "mov {x}, qword ptr [{ctx} + 8]",
            "mov {t}, {r}",
            "mov rcx, qword ptr [{ctx} + 24]",
            row_loop8!(addmul_step),
            row_carry_out!(),
            "mov {ca}, {h1}",
            // Row B: T = (T + m n) / 2^64. Step 0 only makes a carry, which joins its high
            // half (no overflow: hi(m n_0) <= 2^64 - 2).
            "mov rdx, qword ptr [{r}]",
            "imul rdx, qword ptr [{ctx}]",
            "mov {x}, qword ptr [{ctx} + 16]",
            "mov {t}, {r}",
            "mulx {h1}, {lo}, qword ptr [{x}]",
            "add {lo}, qword ptr [{t}]",
            "adc {h1}, 0",
            "lea {x}, [{x} + 8]",
            "lea {t}, [{t} + 8]",
            "mov rcx, qword ptr [{ctx} + 24]",
            "dec rcx",
            row_loop8_from_h1!(addmul_shift_step),
            row_carry_out!(),
            // r[k-1] + top 2^64 = top + ca + cb.
            "xor {lo:e}, {lo:e}",
            "add {h1}, {top}",
            "adc {lo}, 0",
            "add {h1}, {ca}",
            "adc {lo}, 0",
            "mov qword ptr [{t} - 8], {h1}",
            "mov {top}, {lo}",
            "lea {b}, [{b} + 8]",
            "cmp {b}, qword ptr [{ctx} + 32]",
            "jne 2b",
            ctx = in(reg) &ctx,
            r = in(reg) r.as_mut_ptr(),
            b = inout(reg) b.as_ptr() => _,
            top = out(reg) top,
            x = out(reg) _,
            t = out(reg) _,
            ca = out(reg) _,
            lo = out(reg) _,
            h0 = out(reg) _,
            h1 = out(reg) _,
            out("rdx") _,
            out("rcx") _,
            options(nostack),
        );
    }
    top
}
