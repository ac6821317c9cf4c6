//! Montgomery product and square for the unrolled sizes, each one `asm!` block: the
//! double-length product (or square) goes to a stack scratch, then REDC (separated
//! operand scanning, Koc-Acar-Kaliski 1996), with no call or set-up in between.

use super::mul::mul_unrolled_body;
use super::redc::redc_unrolled_body;
use super::row_asm::{addmul_step, mul1_step, row_carry_out, row_unrolled, row_unrolled_len};
use super::sqr::{diagonal_body, triangle_body};
use crate::arch::x86_64::cpu::Adx;
use crate::limb::Limb;
use core::arch::asm;

/// `c*R + r = (a*b + m*n) / R` for `k = K` (even, at least 8).
pub(super) fn mont_mul_unrolled<const K: usize>(
    _adx: Adx,
    r: &mut [Limb],
    a: &[Limb],
    b: &[Limb],
    n: &[Limb],
    n0: Limb,
) -> Limb {
    const { assert!(K >= 8 && K.is_multiple_of(2)) };
    assert!(
        r.len() == K && a.len() == K && b.len() == K && n.len() == K,
        "internal error: adx mont_mul_unrolled lengths"
    );
    super::with_scratch(K, |s| {
        let carry: Limb;
        // SAFETY: the token proves BMI2/ADX. The product rows read a[0..K), b[0..K) and
        // write s[0..2K) (see `mul_unrolled`); REDC reads n[0..K), s[0..2K) and writes
        // s[0..2K) and r[0..K) (see `redc_unrolled`); s has 2K limbs. No stack use.
        unsafe {
            asm!(
                mul_unrolled_body!(),
                "mov {x}, {n}",
                "mov {t}, {s}",
                redc_unrolled_body!(),
                x = inout(reg) a.as_ptr() => _,
                b = inout(reg) b.as_ptr() => _,
                n = in(reg) n.as_ptr(),
                s = in(reg) s.as_mut_ptr(),
                t = inout(reg) s.as_mut_ptr() => _,
                r = in(reg) r.as_mut_ptr(),
                n0 = in(reg) n0,
                rows = out(reg) _,
                lo = out(reg) carry,
                h0 = out(reg) _,
                h1 = out(reg) _,
                nx = out(reg) _,
                k = const K,
                half = const K / 2,
                out("rdx") _,
                options(nostack),
            );
        }
        carry
    })
}

/// `c*R + r = (a^2 + m*n) / R` for `k = K` (even, 8 to 32: the fully unrolled triangle).
pub(super) fn mont_sqr_unrolled<const K: usize>(
    _adx: Adx,
    r: &mut [Limb],
    a: &[Limb],
    n: &[Limb],
    n0: Limb,
) -> Limb {
    const { assert!(K >= 8 && K <= 32 && K.is_multiple_of(2)) };
    assert!(
        r.len() == K && a.len() == K && n.len() == K,
        "internal error: adx mont_sqr_unrolled lengths"
    );
    super::with_scratch(K, |s| {
        let carry: Limb;
        // SAFETY: the token proves BMI2/ADX. The square reads a[0..K) and writes s[0..2K)
        // (see `triangle` and `diagonal`); REDC reads n[0..K), s[0..2K) and writes
        // s[0..2K) and r[0..K); s has 2K limbs. No stack use.
        unsafe {
            asm!(
                "mov qword ptr [{s}], 0",
                "mov qword ptr [{s} + 16*{k} - 8], 0",
                triangle_body!(),
                diagonal_body!(),
                "mov {x}, {n}",
                "mov {t}, {s}",
                redc_unrolled_body!(),
                a = in(reg) a.as_ptr(),
                n = in(reg) n.as_ptr(),
                s = in(reg) s.as_mut_ptr(),
                x = out(reg) _,
                t = out(reg) _,
                r = in(reg) r.as_mut_ptr(),
                n0 = in(reg) n0,
                rows = out(reg) _,
                lo = out(reg) carry,
                h0 = out(reg) _,
                h1 = out(reg) _,
                nx = out(reg) _,
                k = const K,
                half = const K / 2,
                out("rdx") _,
                options(nostack),
            );
        }
        carry
    })
}
