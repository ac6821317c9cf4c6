//! Montgomery reduction of a double-length value (GMP `mpn_redc_1`, Dusse-Kaliski
//! "Improvement 1": one quotient digit at a time).
//!
//! For `i = 0..k`: `m_i = t[i] * n0 mod 2^64`, then the row `t[i..i+k) += m_i * n` makes
//! `t[i]` zero. Its carry-out limb `cy_i` belongs at `t[i + k]`; instead of rippling it
//! upwards at once it is parked in the freed `t[i]` (GMP's trick): later quotient digits
//! read only `t[i + 1..]` below position `k`, so deferring the carry changes nothing they
//! see. At the end `c*R + r = t[k..2k) + t[0..k)`, one `adc` pass.
//!
//! Bound: `(t + m n) / R < (R^2 + R n) / R = R + n < 2R`, so `c` is 0 or 1 when
//! `t < R^2`.

use super::rows::{addmul_step, row_carry_out, row_loop};
use crate::arch::x86_64::cpu::Adx;
use crate::bignum::Limb;
use core::arch::asm;

/// `c*R + r = (t + m*n) / R`, any `k = n.len() = r.len() >= 1`, `t.len() == 2k`
/// (destroyed).
pub(super) fn redc_loop(_adx: Adx, r: &mut [Limb], t: &mut [Limb], n: &[Limb], n0: Limb) -> Limb {
    let k = n.len();
    assert!(k >= 1 && r.len() == k && t.len() == 2 * k, "internal error: adx redc lengths");
    let neg_k = (k as isize).wrapping_neg();
    let carry: Limb;
    // SAFETY: the token proves BMI2/ADX. Row `i` has `{t}` = t + i + k and touches
    // t[i..i+k) (indices -k..-1 from `{t}`); the final pass reads t[0..2k) and writes
    // r[0..k) through `{r}` = r + k with indices -k..-1. All in bounds. No stack use.
    unsafe {
        asm!(
            "mov {rows}, {nn}",
            "2:",
            "mov rdx, qword ptr [{t} + {nn}*8]",
            "imul rdx, {n0}",
            "mov {i}, {nn}",
            row_loop!(addmul_step),
            row_carry_out!(),
            "mov qword ptr [{t} + {nn}*8], {h1}",
            "lea {t}, [{t} + 8]",
            "inc {rows}",
            "jnz 2b",
            // {t} = t + 2k ends the high half; {x} = t + k ends the parked carries.
            "lea {x}, [{t} + {nn}*8]",
            "mov rcx, {nn}",
            "xor {lo:e}, {lo:e}",
            "3:",
            "mov {lo}, qword ptr [{t} + rcx*8]",
            "adc {lo}, qword ptr [{x} + rcx*8]",
            "mov qword ptr [{r} + rcx*8], {lo}",
            "inc rcx",
            "jnz 3b",
            "mov {lo:e}, 0",
            "adc {lo}, 0",
            x = inout(reg) n.as_ptr().add(k) => _,
            t = inout(reg) t.as_mut_ptr().add(k) => _,
            r = in(reg) r.as_mut_ptr().add(k),
            nn = in(reg) neg_k,
            n0 = in(reg) n0,
            rows = out(reg) _,
            i = out(reg) _,
            lo = out(reg) carry,
            h0 = out(reg) _,
            h1 = out(reg) _,
            out("rdx") _,
            out("rcx") _,
            options(nostack),
        );
    }
    carry
}

/// The body of [`redc_unrolled`]: reduces `{t}[0..2K)` by `{x}[0..K)` (the modulus) into
/// `{r}[0..K)`, carry in `{lo}`; `K = 2 * {half} = {k}` (at least 4), `{n0}` in a register,
/// `{nx}` scratch. Leaves `{t}`
/// advanced by `K` limbs. Uses label 3.
macro_rules! redc_unrolled_body {
    () => {
        concat!(
            "mov rdx, qword ptr [{t}]\n",
            "imul rdx, {n0}\n",
            "mov {rows:e}, {k}\n",
            "3:\n",
            "xor {h1:e}, {h1:e}\n",
            addmul_step!("0", "0", "h0", "h1"),
            addmul_step!("0", "8", "h1", "h0"),
            // t[i+1] is final now: keep it for the next quotient digit rather than
            // reload it through the store queue.
            "mov {nx}, {lo}\n",
            ".set ccj, 2\n",
            ".rept {half} - 1\n",
            addmul_step!("0", "8*ccj", "h0", "h1"),
            addmul_step!("0", "8*ccj + 8", "h1", "h0"),
            ".set ccj, ccj + 2\n",
            ".endr\n",
            row_carry_out!(),
            "mov qword ptr [{t}], {h1}\n",
            "lea {t}, [{t} + 8]\n",
            "mov rdx, {nx}\n",
            "imul rdx, {n0}\n",
            "dec {rows:e}\n",
            "jnz 3b\n",
            "mov {lo}, qword ptr [{t}]\n",
            "add {lo}, qword ptr [{t} - 8*{k}]\n",
            "mov qword ptr [{r}], {lo}\n",
            ".set ccj, 1\n",
            ".rept {k} - 1\n",
            "mov {lo}, qword ptr [{t} + 8*ccj]\n",
            "adc {lo}, qword ptr [{t} + 8*ccj - 8*{k}]\n",
            "mov qword ptr [{r} + 8*ccj], {lo}\n",
            ".set ccj, ccj + 1\n",
            ".endr\n",
            "mov {lo:e}, 0\n",
            "adc {lo}, 0\n",
        )
    };
}
pub(super) use redc_unrolled_body;

/// As [`redc_loop`] for `k = K` (even, at least 2): rows and the final pass unrolled.
pub(super) fn redc_unrolled<const K: usize>(
    _adx: Adx,
    r: &mut [Limb],
    t: &mut [Limb],
    n: &[Limb],
    n0: Limb,
) -> Limb {
    const { assert!(K >= 2 && K.is_multiple_of(2)) };
    assert!(
        n.len() == K && r.len() == K && t.len() == 2 * K,
        "internal error: adx redc_unrolled lengths"
    );
    let carry: Limb;
    // SAFETY: the token proves BMI2/ADX. Row `i` has `{t}` = t + i and touches
    // t[i..i+K); the final pass reads t[0..2K) (from `{t}` = t + K, offsets -K..K-1) and
    // writes r[0..K). All in bounds. No stack use.
    unsafe {
        asm!(
            redc_unrolled_body!(),
            x = in(reg) n.as_ptr(),
            t = inout(reg) t.as_mut_ptr() => _,
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
}
