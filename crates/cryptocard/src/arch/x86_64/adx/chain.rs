//! Chains of almost-Montgomery products for exponentiation: `w` squarings in one call, and
//! a product, each finished inside the kernel.
//!
//! An almost-Montgomery product (Gueron 2011; `modular::mont::finish_almost`) takes
//! `a, b < R` and returns `r = c*R + r' - c*n < R`, where `c*R + r'` is the raw Montgomery
//! result below `R + n`: subtract `n` exactly when the carry `c` is set. The chain never
//! leaves `[0, R)`, so a fixed-window exponentiation can run on it and reduce once at the
//! end. Doing the subtraction here, in the same `asm!` block as the product and REDC,
//! saves a pass through the Rust slice code per product; doing `w` squarings per call
//! saves the call, the length checks and the scratch set-up per squaring. OpenSSL's
//! `bn_powerx5` (five squarings and a product in one call) is the same idea.
//!
//! The subtraction is a masked pass `r -= n & -c`. `and` would clobber the borrow chain,
//! so the mask is applied with `pext` (BMI2, flag-neutral): `pext(x, !0) = x` and
//! `pext(x, 0) = 0`.
//!
//! Scratch: `2K + 2` limbs, the double-length product in `s[0..2K)`, then the remaining
//! squaring count at `s[2K]` and the modulus pointer at `s[2K + 1]`, so that the loop
//! needs two registers fewer (there are only 13 to give to `asm!` operands).
//!
//! Contracts as `mont_sqr_raw`/`mont_mul_raw` with the finish folded in: `n` odd,
//! `n0 = -n^-1 mod 2^64`, inputs any `K`-limb values (below `R`), results below `R` and
//! congruent to `a^(2^w) R^(1-2^w)` and `a b R^-1` modulo `n`. Constant time: no branch
//! or address depends on limb values; the loop count is `w`, which is public.

use super::mul::mul_unrolled_body;
use super::redc::redc_unrolled_body;
use super::rows::{addmul_step, mul1_step, row_carry_out, row_unrolled, row_unrolled_len};
use super::sqr::{diagonal_body, triangle_body};
use crate::arch::x86_64::cpu::Adx;
use crate::bignum::Limb;
use core::arch::asm;

/// Scratch limbs the kernels here need for `k`-limb operands: the double-length product
/// and two words for the loop, plus (above 32 limbs, where the product is a Karatsuba
/// level over the unrolled half-size kernels) `|a0 - a1|`, `|b0 - b1|` and their product.
pub const fn scratch_len(k: usize) -> usize {
    if k > 32 { 4 * k + 2 } else { 2 * k + 2 }
}

/// `{r} -= {x} & -{lo}` over `{k}` limbs, `{lo}` the carry (0 or 1) of the REDC above.
/// Clobbers `{lo}`, `{h0}`, `{h1}`.
macro_rules! finish_almost_body {
    () => {
        concat!(
            "neg {lo}\n",
            "mov {h0}, qword ptr [{x}]\n",
            "pext {h0}, {h0}, {lo}\n",
            "sub qword ptr [{r}], {h0}\n",
            ".set ccj, 1\n",
            ".rept {k} - 1\n",
            "mov {h0}, qword ptr [{x} + 8*ccj]\n",
            "pext {h0}, {h0}, {lo}\n",
            "sbb qword ptr [{r} + 8*ccj], {h0}\n",
            ".set ccj, ccj + 1\n",
            ".endr\n",
        )
    };
}

/// `acc = acc^(2^w) / R^(2^w - 1)`, almost reduced, by `w >= 1` squarings, `k = K` (even,
/// 8 to 32: the fully unrolled square). `s` has [`scratch_len`]`(K)` limbs; its contents
/// on return are garbage (the caller wipes it).
pub(crate) fn mont_sqr_n_almost<const K: usize>(
    _adx: Adx,
    acc: &mut [Limb],
    w: usize,
    n: &[Limb],
    n0: Limb,
    s: &mut [Limb],
) {
    const { assert!(K >= 8 && K <= 32 && K.is_multiple_of(2)) };
    assert!(
        acc.len() == K && n.len() == K && s.len() == scratch_len(K) && w >= 1,
        "internal error: adx mont_sqr_n_almost lengths"
    );
    s[2 * K] = w as Limb;
    s[2 * K + 1] = n.as_ptr() as Limb;
    let acc = acc.as_mut_ptr();
    // SAFETY: the token proves BMI2/ADX. Each round: the square reads acc[0..K) and
    // writes s[0..2K) (see `triangle` and `diagonal` in `sqr`); REDC reads n[0..K) (its
    // address loaded from s[2K+1]) and s[0..2K) and writes s[0..2K) and acc[0..K), after
    // the square has read acc; the finish reads n[0..K) and rewrites acc[0..K). The
    // counter at s[2K] counts the w >= 1 rounds down. All within the slices (s has 2K + 2
    // limbs). No stack use.
    unsafe {
        asm!(
            "7:",
            "mov qword ptr [{s}], 0",
            "mov qword ptr [{s} + 16*{k} - 8], 0",
            triangle_body!(),
            diagonal_body!(),
            "mov {x}, qword ptr [{s} + 16*{k} + 8]",
            "mov {t}, {s}",
            redc_unrolled_body!(),
            finish_almost_body!(),
            "dec qword ptr [{s} + 16*{k}]",
            "jnz 7b",
            a = in(reg) acc,
            r = in(reg) acc,
            s = in(reg) s.as_mut_ptr(),
            x = out(reg) _,
            t = out(reg) _,
            n0 = in(reg) n0,
            rows = out(reg) _,
            lo = out(reg) _,
            h0 = out(reg) _,
            h1 = out(reg) _,
            nx = out(reg) _,
            k = const K,
            half = const K / 2,
            out("rdx") _,
            options(nostack),
        );
    }
}

/// `acc = acc * b / R`, almost reduced, `k = K` (even, at least 8). `s` has
/// [`scratch_len`]`(K)` limbs (garbage on return).
pub(crate) fn mont_mul_almost<const K: usize>(
    _adx: Adx,
    acc: &mut [Limb],
    b: &[Limb],
    n: &[Limb],
    n0: Limb,
    s: &mut [Limb],
) {
    const { assert!(K >= 8 && K.is_multiple_of(2)) };
    assert!(
        acc.len() == K && b.len() == K && n.len() == K && s.len() == scratch_len(K),
        "internal error: adx mont_mul_almost lengths"
    );
    let acc = acc.as_mut_ptr();
    // SAFETY: the token proves BMI2/ADX. The product rows read acc[0..K) and b[0..K) and
    // write s[0..2K) (see `mul_unrolled`); REDC reads n[0..K) and s[0..2K) and writes
    // s[0..2K) and acc[0..K), after the product has read acc; the finish reads n[0..K)
    // and rewrites acc[0..K). All within the slices. No stack use.
    unsafe {
        asm!(
            mul_unrolled_body!(),
            "mov {x}, {n}",
            "mov {t}, {s}",
            redc_unrolled_body!(),
            finish_almost_body!(),
            x = inout(reg) acc => _,
            b = inout(reg) b.as_ptr() => _,
            n = in(reg) n.as_ptr(),
            s = in(reg) s.as_mut_ptr(),
            t = inout(reg) s.as_mut_ptr() => _,
            r = in(reg) acc,
            n0 = in(reg) n0,
            rows = out(reg) _,
            lo = out(reg) _,
            h0 = out(reg) _,
            h1 = out(reg) _,
            nx = out(reg) _,
            k = const K,
            half = const K / 2,
            out("rdx") _,
            options(nostack),
        );
    }
}

/// `c*R + r = (t + m n) / R` (REDC of `t = s[0..2K)`) and then `r -= n & -c`, in one
/// `asm!` block; `r` and `n` have `K` limbs (even, at least 4), `s` at least `2K`.
fn redc_finish<const K: usize>(_adx: Adx, r: &mut [Limb], s: &mut [Limb], n: &[Limb], n0: Limb) {
    const { assert!(K >= 4 && K.is_multiple_of(2)) };
    assert!(
        r.len() == K && n.len() == K && s.len() >= 2 * K,
        "internal error: adx redc_finish lengths"
    );
    // SAFETY: the token proves BMI2/ADX. REDC reads n[0..K) and s[0..2K) and writes
    // s[0..2K) and r[0..K) (see `redc_unrolled`); the finish reads n[0..K) and rewrites
    // r[0..K). No stack use.
    unsafe {
        asm!(
            redc_unrolled_body!(),
            finish_almost_body!(),
            x = in(reg) n.as_ptr(),
            t = inout(reg) s.as_mut_ptr() => _,
            r = in(reg) r.as_mut_ptr(),
            n0 = in(reg) n0,
            rows = out(reg) _,
            lo = out(reg) _,
            h0 = out(reg) _,
            h1 = out(reg) _,
            nx = out(reg) _,
            k = const K,
            half = const K / 2,
            out("rdx") _,
            options(nostack),
        );
    }
}

/// [`mont_sqr_n_almost`] for `K = 2H` of 48 or 64 limbs: the square by one Karatsuba
/// level, then REDC and the finish in one `asm!` block.
fn mont_sqr_n_almost_k<const K: usize, const H: usize>(
    adx: Adx,
    acc: &mut [Limb],
    w: usize,
    n: &[Limb],
    n0: Limb,
    s: &mut [Limb],
) {
    const { assert!(K == 2 * H) };
    assert!(s.len() == scratch_len(K), "internal error: adx chain scratch");
    let (p, t) = s.split_at_mut(2 * K + 2);
    for _ in 0..w {
        super::karatsuba::karatsuba_product::<H>(adx, p, acc, None, t);
        redc_finish::<K>(adx, acc, p, n, n0);
    }
}

/// [`mont_mul_almost`] for `K = 2H` of 48 or 64 limbs, the product by one Karatsuba
/// level.
fn mont_mul_almost_k<const K: usize, const H: usize>(
    adx: Adx,
    acc: &mut [Limb],
    b: &[Limb],
    n: &[Limb],
    n0: Limb,
    s: &mut [Limb],
) {
    const { assert!(K == 2 * H) };
    assert!(s.len() == scratch_len(K), "internal error: adx chain scratch");
    let (p, t) = s.split_at_mut(2 * K + 2);
    super::karatsuba::karatsuba_product::<H>(adx, p, acc, Some(b), t);
    redc_finish::<K>(adx, acc, p, n, n0);
}

/// `r -= n & -c` for a carry `c` in {0, 1}, in portable Rust (the sizes without a chain
/// kernel).
fn finish_almost(r: &mut [Limb], c: Limb, n: &[Limb]) {
    let mask = c.wrapping_neg();
    let mut borrow = 0;
    for (x, &y) in r.iter_mut().zip(n) {
        (*x, borrow) = crate::bignum::sbb(*x, y & mask, borrow);
    }
}

/// [`mont_sqr_n_almost`] for any `k >= 1`: the fused kernel for the even sizes 8 to 32,
/// else `w` rounds of [`super::mont_sqr_raw`] and a masked subtraction. `s` has
/// [`scratch_len`]`(k)` limbs.
pub fn sqr_n_almost(adx: Adx, acc: &mut [Limb], w: usize, n: &[Limb], n0: Limb, s: &mut [Limb]) {
    match n.len() {
        8 => mont_sqr_n_almost::<8>(adx, acc, w, n, n0, s),
        16 => mont_sqr_n_almost::<16>(adx, acc, w, n, n0, s),
        24 => mont_sqr_n_almost::<24>(adx, acc, w, n, n0, s),
        32 => mont_sqr_n_almost::<32>(adx, acc, w, n, n0, s),
        48 => mont_sqr_n_almost_k::<48, 24>(adx, acc, w, n, n0, s),
        64 => mont_sqr_n_almost_k::<64, 32>(adx, acc, w, n, n0, s),
        k => {
            assert!(s.len() == scratch_len(k), "internal error: adx sqr_n_almost scratch");
            for _ in 0..w {
                let c = super::mont_sqr_raw(adx, &mut s[..k], acc, n, n0);
                finish_almost(&mut s[..k], c, n);
                acc.copy_from_slice(&s[..k]);
            }
        }
    }
}

/// [`mont_mul_almost`] for any `k >= 1` (the fused kernel for the unrolled sizes).
pub fn mul_almost(adx: Adx, acc: &mut [Limb], b: &[Limb], n: &[Limb], n0: Limb, s: &mut [Limb]) {
    match n.len() {
        8 => mont_mul_almost::<8>(adx, acc, b, n, n0, s),
        16 => mont_mul_almost::<16>(adx, acc, b, n, n0, s),
        24 => mont_mul_almost::<24>(adx, acc, b, n, n0, s),
        32 => mont_mul_almost::<32>(adx, acc, b, n, n0, s),
        48 => mont_mul_almost_k::<48, 24>(adx, acc, b, n, n0, s),
        64 => mont_mul_almost_k::<64, 32>(adx, acc, b, n, n0, s),
        k => {
            assert!(s.len() == scratch_len(k), "internal error: adx mul_almost scratch");
            let c = super::mont_mul_raw(adx, &mut s[..k], acc, b, n, n0);
            finish_almost(&mut s[..k], c, n);
            acc.copy_from_slice(&s[..k]);
        }
    }
}
