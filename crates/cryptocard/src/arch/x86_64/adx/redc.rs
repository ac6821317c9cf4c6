//! Montgomery reduction of a double-length value (GMP `mpn_redc_1`, Dusse-Kaliski
//! "Improvement 1": one quotient digit at a time).
//!
//! For `i = 0..k`: `m_i = t[i] * n0 mod 2^64`, then the row `t[i..i+k) += m_i * n` makes
//! `t[i]` zero. Its carry-out limb `cy_i` belongs at `t[i + k]`; instead of rippling it
//! upwards at once it is parked in the freed `t[i]` (GMP's trick): later quotient digits
//! read only `t[i + 1..]` below position `k`, so deferring the carry changes nothing they
//! see. At the end `c*R + r = t[k..2k) + t[0..k)`, one `adc` pass.
//!
//! Bound: any 2k-limb `t` is below `R^2`, so `(t + m n) / R < (R^2 + R n) / R = R + n
//! < 2R` and `c` is 0 or 1.

use super::row_asm::{addmul_step, row_carry_out, row_loop8};
use crate::arch::x86_64::cpu::Adx;
use crate::limb::Limb;
use core::arch::asm;

/// `c*R + r = (t + m*n) / R`, any `k = n.len() = r.len() >= 1`, `t.len() == 2k`
/// (destroyed).
pub(super) fn redc_loop(_adx: Adx, r: &mut [Limb], t: &mut [Limb], n: &[Limb], n0: Limb) -> Limb {
    let k = n.len();
    assert!(k >= 1 && r.len() == k && t.len() == 2 * k, "internal error: adx redc lengths");
    // SAFETY: the token proves BMI2/ADX. Row `i < k` (`{tb}` = t + i) reads n[0..k) and
    // t[i..i+k) and writes t[i..i+k), in bounds since t.len() = 2k. No stack use.
    unsafe {
        asm!(
            "mov {rows}, {k}",
            "2:",
            "mov rdx, qword ptr [{tb}]",
            "imul rdx, {n0}",
            "mov {x}, {n}",
            "mov {t}, {tb}",
            "mov rcx, {k}",
            row_loop8!(addmul_step),
            row_carry_out!(),
            "mov qword ptr [{tb}], {h1}",
            "lea {tb}, [{tb} + 8]",
            "dec {rows}",
            "jnz 2b",
            n = in(reg) n.as_ptr(),
            tb = inout(reg) t.as_mut_ptr() => _,
            k = in(reg) k,
            n0 = in(reg) n0,
            rows = out(reg) _,
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
    // The parked carry limbs t[0..k) go onto the high half (see the module docs); the
    // portable `add_n` is constant-time and one linear pass, little beside the k rows.
    let (lo, hi) = t.split_at(k);
    crate::limb::add_n(r, hi, lo)
}

/// The body of [`redc_unrolled`]: reduces `{t}[0..2K)` by `{x}[0..K)` (the modulus) into
/// `{r}[0..K)`, carry in `{lo}`; `K = 2 * {half} = {k}` (at least 4), `{n0}` in a register,
/// `{nx}` scratch. Leaves `{t}` advanced by `K` limbs. Uses label 3.
macro_rules! redc_unrolled_body {
    () => {
        concat!(
            "mov rdx, qword ptr [{t}]\n",
            "imul rdx, {n0}\n",
            "mov {rows:e}, {k}\n",
            "3:\n",
            "xor {h1:e}, {h1:e}\n",
            addmul_step!("0", "h0", "h1"),
            addmul_step!("8", "h1", "h0"),
            // t[i+1] is final now: keep it for the next quotient digit rather than
            // reload it through the store queue.
            "mov {nx}, {lo}\n",
            ".set ccj, 2\n",
            ".rept {half} - 1\n",
            addmul_step!("8*ccj", "h0", "h1"),
            addmul_step!("8*ccj + 8", "h1", "h0"),
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
