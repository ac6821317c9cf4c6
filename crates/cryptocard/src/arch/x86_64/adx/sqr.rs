//! Schoolbook squaring `r = a^2` (GMP `mpn_sqr_basecase`; Dusse-Kaliski's remark that
//! squaring needs about half the digit products).
//!
//! 1. Triangle: `r = sum_{i<j} a_i a_j 2^(64(i+j))` by rows, row `i` adding
//!    `a_i * a[i+1..k)` into `r[2i+1..i+k)` with its carry-out limb at the fresh `r[i+k]`
//!    (`k(k-1)/2` products). `r[0]` and `r[2k-1]` are never touched and start at zero.
//! 2. Diagonal: `r = 2r + sum a_i^2 2^(128 i)` in one pass, two limbs per step: the CF chain
//!    doubles (`adcx x, x` shifts the top bit of one limb into the next), the OF chain adds
//!    `a_i^2`. Both final carries are zero because `a^2 < 2^(128k)` and `2 * triangle <= a^2`.

use super::row_asm::{addmul_step, mul1_step, row_carry_out, row_loop8, row_unrolled_len};
use crate::arch::x86_64::cpu::Adx;
use crate::limb::Limb;
use core::arch::asm;

/// `r = a^2` for any `k = a.len() >= 1`, `r.len() == 2k`.
pub(super) fn sqr_loop(adx: Adx, r: &mut [Limb], a: &[Limb]) {
    let k = a.len();
    assert!(k >= 1 && r.len() == 2 * k, "internal error: adx sqr lengths");
    r[0] = 0;
    r[2 * k - 1] = 0;
    if k >= 2 {
        // SAFETY: the token proves BMI2/ADX. Row `i` (0..k-1; `{a}` = a + i, `{s}` =
        // r + 2i) has length k-1-i: it reads a[i..k) and r[2i+1..i+k) and writes
        // r[2i+1..=i+k], within a and r. No stack use.
        unsafe {
            asm!(
                "mov rdx, qword ptr [{a}]",
                "lea {x}, [{a} + 8]",
                "lea {t}, [{s} + 8]",
                "mov rcx, {len}",
                row_loop8!(mul1_step),
                "mov {lo:e}, 0",
                "adcx {h1}, {lo}",
                "mov qword ptr [{t}], {h1}",
                "2:",
                "dec {len}",
                "jz 3f",
                "lea {a}, [{a} + 8]",
                "lea {s}, [{s} + 16]",
                "mov rdx, qword ptr [{a}]",
                "lea {x}, [{a} + 8]",
                "lea {t}, [{s} + 8]",
                "mov rcx, {len}",
                row_loop8!(addmul_step),
                row_carry_out!(),
                "mov qword ptr [{t}], {h1}",
                "jmp 2b",
                "3:",
                a = inout(reg) a.as_ptr() => _,
                s = inout(reg) r.as_mut_ptr() => _,
                len = inout(reg) k - 1 => _,
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
    double_add_diagonal(adx, r, a);
}

/// Step 2: `r = 2r + sum a_i^2 2^(128 i)`, `r.len() == 2 * a.len()`.
fn double_add_diagonal(_adx: Adx, r: &mut [Limb], a: &[Limb]) {
    let k = a.len();
    assert!(k >= 1 && r.len() == 2 * k, "internal error: adx diagonal lengths");
    // SAFETY: the token proves BMI2/ADX. Step `i` (k steps, `rcx` from -k to -1) reads
    // a[i] and r[2i..2i+2) and writes r[2i..2i+2). No stack use.
    unsafe {
        asm!(
            "xor {lo:e}, {lo:e}",
            "2:",
            "mov rdx, qword ptr [{a}]",
            "mulx {h1}, {h0}, rdx",
            "mov {lo}, qword ptr [{t}]",
            "mov {hi}, qword ptr [{t} + 8]",
            "adcx {lo}, {lo}",
            "adcx {hi}, {hi}",
            "adox {lo}, {h0}",
            "adox {hi}, {h1}",
            "mov qword ptr [{t}], {lo}",
            "mov qword ptr [{t} + 8], {hi}",
            "lea {a}, [{a} + 8]",
            "lea {t}, [{t} + 16]",
            "lea rcx, [rcx + 1]",
            "jrcxz 3f",
            "jmp 2b",
            "3:",
            a = inout(reg) a.as_ptr() => _,
            t = inout(reg) r.as_mut_ptr() => _,
            lo = out(reg) _,
            hi = out(reg) _,
            h0 = out(reg) _,
            h1 = out(reg) _,
            inout("rcx") (k as isize).wrapping_neg() => _,
            out("rdx") _,
            options(nostack),
        );
    }
}

/// `r = a^2` for `a.len() == K`, `r.len() == 2K`: the triangle fully unrolled for
/// `K <= 32`; larger even `K` splits `a = lo + hi 2^(64K/2)` so that the triangle is
/// `tri(lo) + lo*hi 2^(32K) + tri(hi) 2^(64K)`, two unrolled half triangles and one
/// unrolled rectangle, which keeps the code in the op cache.
pub(super) fn sqr_unrolled<const K: usize>(adx: Adx, r: &mut [Limb], a: &[Limb]) {
    assert!(a.len() == K && r.len() == 2 * K, "internal error: adx sqr_unrolled lengths");
    match K {
        ..=32 => triangle::<K>(adx, r, a),
        48 => split_triangle::<24>(adx, r, a),
        64 => split_triangle::<32>(adx, r, a),
        _ => unreachable!("internal error: no unrolled squaring for {K} limbs"),
    }
    diagonal::<K>(adx, r, a);
}

/// The off-diagonal triangle of `a` (length `2H`) from two of length `H` and a rectangle.
fn split_triangle<const H: usize>(adx: Adx, r: &mut [Limb], a: &[Limb]) {
    let (lo, hi) = a.split_at(H);
    let (rl, rh) = r.split_at_mut(2 * H);
    triangle::<H>(adx, rl, lo);
    triangle::<H>(adx, rh, hi);
    let mut s = [0 as Limb; 64];
    let s = &mut s[..2 * H];
    super::mul::mul_unrolled::<H>(adx, s, lo, hi);
    // r[H..) += lo*hi: the carry ripples through r[3H..4H) and dies there, since the sum
    // is the triangle of `a`, below 2^(64*4H).
    let carry = crate::limb::add_1(&mut r[H..], s);
    debug_assert_eq!(carry, 0, "internal error: squaring triangle overflow");
    // lo*hi is a product of the secret operand's halves: wiped, as `with_scratch` wipes.
    s.fill(0);
    core::hint::black_box(&mut *s);
}

/// The body of [`triangle`]: `{s}[1..2K-1)` = the triangle of `{a}[0..K)`, `K = {k} >= 2`;
/// `{s}[0]` and `{s}[2K-1]` are not written. Clobbers `{x}`, `{t}`.
macro_rules! triangle_body {
    () => {
        concat!(
            "lea {x}, [{a} + 8]\n",
            "lea {t}, [{s} + 8]\n",
            "mov rdx, qword ptr [{a}]\n",
            row_unrolled_len!(mul1_step, "{k} - 1"),
            "mov {lo:e}, 0\n",
            "adcx {h1}, {lo}\n",
            "mov qword ptr [{t} + 8*({k} - 1)], {h1}\n",
            ".set ccr, 1\n",
            ".rept {k} - 2\n",
            "lea {x}, [{a} + 8*ccr + 8]\n",
            "lea {t}, [{s} + 16*ccr + 8]\n",
            "mov rdx, qword ptr [{a} + 8*ccr]\n",
            row_unrolled_len!(addmul_step, "{k} - 1 - ccr"),
            row_carry_out!(),
            "mov qword ptr [{t} + 8*({k} - 1 - ccr)], {h1}\n",
            ".set ccr, ccr + 1\n",
            ".endr\n",
        )
    };
}

/// The body of [`diagonal`]: `{s}[0..2K) = 2 {s} + sum {a}_i^2 2^(128 i)`, `K = {k}`.
/// Clobbers `{lo}`, `{t}`, `{h0}`, `{h1}`.
macro_rules! diagonal_body {
    () => {
        concat!(
            "xor {lo:e}, {lo:e}\n",
            ".set ccj, 0\n",
            ".rept {k}\n",
            "mov rdx, qword ptr [{a} + 8*ccj]\n",
            "mulx {h1}, {h0}, rdx\n",
            "mov {lo}, qword ptr [{s} + 16*ccj]\n",
            "mov {t}, qword ptr [{s} + 16*ccj + 8]\n",
            "adcx {lo}, {lo}\n",
            "adcx {t}, {t}\n",
            "adox {lo}, {h0}\n",
            "adox {t}, {h1}\n",
            "mov qword ptr [{s} + 16*ccj], {lo}\n",
            "mov qword ptr [{s} + 16*ccj + 8], {t}\n",
            ".set ccj, ccj + 1\n",
            ".endr\n",
        )
    };
}
pub(super) use {diagonal_body, triangle_body};

/// Step 1 for `a.len() == K`, fully unrolled; also zeroes `r[0]` and `r[2K-1]`.
fn triangle<const K: usize>(_adx: Adx, r: &mut [Limb], a: &[Limb]) {
    assert!(a.len() == K && r.len() == 2 * K, "internal error: adx triangle lengths");
    r[0] = 0;
    r[2 * K - 1] = 0;
    if K < 2 {
        return;
    }
    // SAFETY: the token proves BMI2/ADX. Row `i` (0..K-1) has `{x}` = a + i + 1 and `{t}`
    // = r + 2i + 1 and length K-1-i: it reads a[i..K) and r[2i+1..i+K) and writes
    // r[2i+1..=i+K], within a and r. No stack use.
    unsafe {
        asm!(
            triangle_body!(),
            a = in(reg) a.as_ptr(),
            s = in(reg) r.as_mut_ptr(),
            x = out(reg) _,
            t = out(reg) _,
            lo = out(reg) _,
            h0 = out(reg) _,
            h1 = out(reg) _,
            k = const K,
            out("rdx") _,
            options(nostack),
        );
    }
}

/// Step 2 for `a.len() == K`, fully unrolled.
fn diagonal<const K: usize>(_adx: Adx, r: &mut [Limb], a: &[Limb]) {
    assert!(a.len() == K && r.len() == 2 * K, "internal error: adx diagonal lengths");
    // SAFETY: the token proves BMI2/ADX. Step `i < K` reads a[i] and r[2i..2i+2) and
    // writes r[2i..2i+2). No stack use.
    unsafe {
        asm!(
            diagonal_body!(),
            a = in(reg) a.as_ptr(),
            s = in(reg) r.as_mut_ptr(),
            lo = out(reg) _,
            t = out(reg) _,
            h0 = out(reg) _,
            h1 = out(reg) _,
            k = const K,
            out("rdx") _,
            options(nostack),
        );
    }
}
