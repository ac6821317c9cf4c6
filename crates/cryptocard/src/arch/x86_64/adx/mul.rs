//! Schoolbook multiplication `r = a * b` by rows (GMP `mpn_mul_basecase`).
//!
//! Row 0 writes `a * b[0]` (a `mul_1` row, CF chain only); row `i` adds `a * b[i]` into
//! `r[i..]` (an `addmul_1` row, both chains, see `row_asm`) and writes its carry-out limb to
//! the fresh position `r[i + n]`. Rows are independent except through memory, so the
//! core overlaps one row's tail with the next row's head.

use super::row_asm::{addmul_step, mul1_step, row_carry_out, row_loop8, row_unrolled};
use crate::arch::x86_64::cpu::Adx;
use crate::limb::Limb;
use core::arch::asm;

/// `r = a * b` for `a.len() >= b.len() >= 1`, `r.len() == a.len() + b.len()`; any lengths.
pub(super) fn mul_loop(_adx: Adx, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
    let (n, m) = (a.len(), b.len());
    assert!(n >= m && m >= 1 && r.len() == n + m, "internal error: adx mul lengths");
    // SAFETY: the token proves BMI2/ADX. Row `i < m` (`{r}` = r + i) reads a[0..n), b[i]
    // and r[i..i+n) and writes r[i..=i+n], in bounds since r.len() = n + m. No stack use.
    unsafe {
        asm!(
            "mov rdx, qword ptr [{b}]",
            "mov {x}, {a}",
            "mov {t}, {r}",
            "mov rcx, {n}",
            row_loop8!(mul1_step),
            "mov {lo:e}, 0",
            "adcx {h1}, {lo}",
            "mov qword ptr [{t}], {h1}",
            "test {rows}, {rows}",
            "jz 3f",
            "2:",
            "lea {b}, [{b} + 8]",
            "lea {r}, [{r} + 8]",
            "mov rdx, qword ptr [{b}]",
            "mov {x}, {a}",
            "mov {t}, {r}",
            "mov rcx, {n}",
            row_loop8!(addmul_step),
            row_carry_out!(),
            "mov qword ptr [{t}], {h1}",
            "dec {rows}",
            "jnz 2b",
            "3:",
            a = in(reg) a.as_ptr(),
            r = inout(reg) r.as_mut_ptr() => _,
            b = inout(reg) b.as_ptr() => _,
            n = in(reg) n,
            rows = inout(reg) m - 1 => _,
            x = out(reg) _,
            t = out(reg) _,
            lo = out(reg) _,
            h0 = out(reg) _,
            h1 = out(reg) _,
            out("rdx") _,
            out("rcx") _,
            options(nostack),
        );
    }
}

/// The body of [`mul_unrolled`]: `{t}[0..2K) = {x}[0..K) * {b}[0..K)` with `K = 2 * {half}
/// = {k}`. Leaves `{t}` and `{b}` advanced by `K - 1` limbs. Uses label 2.
macro_rules! mul_unrolled_body {
    () => {
        concat!(
            "mov rdx, qword ptr [{b}]\n",
            row_unrolled!(mul1_step),
            "mov {lo:e}, 0\n",
            "adcx {h1}, {lo}\n",
            "mov qword ptr [{t} + 8*{k}], {h1}\n",
            "mov {rows:e}, {k} - 1\n",
            "2:\n",
            "lea {b}, [{b} + 8]\n",
            "lea {t}, [{t} + 8]\n",
            "mov rdx, qword ptr [{b}]\n",
            row_unrolled!(addmul_step),
            row_carry_out!(),
            "mov qword ptr [{t} + 8*{k}], {h1}\n",
            "dec {rows:e}\n",
            "jnz 2b\n",
        )
    };
}
pub(super) use mul_unrolled_body;

/// `r = a * b` for `a.len() == b.len() == K`, `r.len() == 2K`, `K` even and at least 2:
/// rows fully unrolled by the assembler, a loop over the rows.
pub(super) fn mul_unrolled<const K: usize>(_adx: Adx, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
    const { assert!(K >= 2 && K.is_multiple_of(2)) };
    assert!(
        a.len() == K && b.len() == K && r.len() == 2 * K,
        "internal error: adx mul_unrolled lengths"
    );
    // SAFETY: the token proves BMI2/ADX. Row `i` (`{t}` = r + i) reads a[0..K], b[i],
    // r[i..i+K) and writes r[i..=i+K], in bounds for i < K. No stack use.
    unsafe {
        asm!(
            mul_unrolled_body!(),
            x = in(reg) a.as_ptr(),
            t = inout(reg) r.as_mut_ptr() => _,
            b = inout(reg) b.as_ptr() => _,
            rows = out(reg) _,
            lo = out(reg) _,
            h0 = out(reg) _,
            h1 = out(reg) _,
            k = const K,
            half = const K / 2,
            out("rdx") _,
            options(nostack),
        );
    }
}
