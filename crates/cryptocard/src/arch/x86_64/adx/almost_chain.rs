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
//! The subtraction is a masked pass `r -= n & -c`, in two passes: first `n & -c` into
//! the scratch with plain `and` (no carry is live yet), then the `sub`/`sbb` chain over
//! those limbs. An `and` inside the chain would clobber its borrow. The mask must not
//! go through an instruction whose latency depends on its operands: `pext(x, mask)` is
//! flag-neutral and was used here before, but on AMD family 17h (Zen 1 and Zen 2) it is
//! microcoded with a latency that grows with the number of set bits in the mask, so a
//! mask of 0 or `!0` would time the secret carry `c` (the extra reduction that Walter and
//! Thompson, CT-RSA 2001, and Schindler, CHES 2002, recover from Montgomery
//! exponentiation). `and`, `mov`, `sub` and `sbb` take the same time for every value on
//! all x86-64 cores.
//!
//! Scratch: `2K + 2` limbs, the double-length product in `s[0..2K)`, then the remaining
//! squaring count at `s[2K]` and the modulus pointer at `s[2K + 1]`, so that the loop
//! needs two registers fewer (there are only 13 to give to `asm!` operands). Once REDC
//! has written `r`, `s[0..K)` is free and holds the masked modulus.
//!
//! Contracts as `mont_sqr_raw`/`mont_mul_raw` with the finish folded in: `n` odd,
//! `n0 = -n^-1 mod 2^64`, inputs any `K`-limb values (below `R`), results below `R` and
//! congruent to `a^(2^w) R^(1-2^w)` and `a b R^-1` modulo `n`. Constant time: no branch
//! or address depends on limb values; the loop count is `w`, which is public.

use super::mul::mul_unrolled_body;
use super::redc::redc_unrolled_body;
use super::row_asm::{addmul_step, mul1_step, row_carry_out, row_unrolled, row_unrolled_len};
use super::sqr::{diagonal_body, triangle_body};
use crate::arch::x86_64::cpu::Adx;
use crate::limb::Limb;
use core::arch::asm;

/// Scratch limbs the kernels here need for `k`-limb operands: the double-length product
/// and two words for the loop, plus (above 32 limbs, where the product is a Karatsuba
/// level over the unrolled half-size kernels) `|a0 - a1|`, `|b0 - b1|` and their product.
pub const fn scratch_len(k: usize) -> usize {
    if k > 32 { 4 * k + 2 } else { 2 * k + 2 }
}

/// `{r} -= {x} & -{lo}` over `{k}` limbs, `{lo}` the carry (0 or 1) of the REDC above,
/// `{t}` pointing `{k}` limbs past the start of a scratch of at least `{k}` limbs that is
/// free (as REDC leaves it). Pass 1 writes `{x} & -{lo}` to the scratch while no flag is
/// live, pass 2 is the borrow chain. Clobbers `{lo}`, `{h0}`, `{h1}`, the scratch.
macro_rules! finish_almost_body {
    () => {
        concat!(
            "neg {lo}\n",
            ".set ccj, 0\n",
            ".rept {half}\n",
            "mov {h0}, qword ptr [{x} + 8*ccj]\n",
            "mov {h1}, qword ptr [{x} + 8*ccj + 8]\n",
            "and {h0}, {lo}\n",
            "and {h1}, {lo}\n",
            "mov qword ptr [{t} + 8*ccj - 8*{k}], {h0}\n",
            "mov qword ptr [{t} + 8*ccj + 8 - 8*{k}], {h1}\n",
            ".set ccj, ccj + 2\n",
            ".endr\n",
            "mov {h0}, qword ptr [{r}]\n",
            "sub {h0}, qword ptr [{t} - 8*{k}]\n",
            "mov qword ptr [{r}], {h0}\n",
            ".set ccj, 1\n",
            ".rept {k} - 1\n",
            "mov {h0}, qword ptr [{r} + 8*ccj]\n",
            "sbb {h0}, qword ptr [{t} + 8*ccj - 8*{k}]\n",
            "mov qword ptr [{r} + 8*ccj], {h0}\n",
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
    // the square has read acc; the finish reads n[0..K), writes n & -c to s[0..K) (REDC
    // has left `{t}` at s + K) and reads it back, and rewrites acc[0..K). The counter at
    // s[2K] counts the w >= 1 rounds down. All within the slices (s has 2K + 2
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
    // s[0..2K) and acc[0..K), after the product has read acc; the finish reads n[0..K),
    // writes and reads back s[0..K) (`{t}` is s + K after REDC) and rewrites acc[0..K).
    // All within the slices. No stack use.
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
    // s[0..2K) and r[0..K) (see `redc_unrolled`); the finish reads n[0..K), writes and
    // reads back s[0..K) (`{t}` is s + K after REDC) and rewrites r[0..K). No stack use.
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
        (*x, borrow) = crate::limb::sbb(*x, y & mask, borrow);
    }
}

/// `mont_sqr_n_almost` for any `k >= 1`: the fused kernel for the even sizes 8 to 32,
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

/// `mont_mul_almost` for any `k >= 1` (the fused kernel for the unrolled sizes).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bignum::{self, mul::mul_basecase};
    use crate::modular::neg_inv_limb;

    struct Rng(u64);
    impl Rng {
        fn limbs(&mut self, k: usize) -> Vec<Limb> {
            (0..k)
                .map(|_| {
                    self.0 =
                        self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    self.0 ^ (self.0 >> 29)
                })
                .collect()
        }
        /// An odd modulus with the top bit set, so that REDC's carry is often 1.
        fn modulus(&mut self, k: usize) -> Vec<Limb> {
            let mut n = self.limbs(k);
            n[0] |= 1;
            n[k - 1] |= 1 << 63;
            n
        }
    }

    /// `t = V R - m n` (`2K` limbs) with `V = c R + v`: REDC of `t` gives exactly `(c, v)`,
    /// since `t + m n` is `V R` and the quotient REDC finds is the one `m` below `R`.
    /// Panics unless `0 <= t < R^2`.
    fn redc_preimage(c: Limb, v: &[Limb], m: &[Limb], n: &[Limb]) -> Vec<Limb> {
        let k = n.len();
        let mut t = vec![0; 2 * k + 1];
        t[k..2 * k].copy_from_slice(v);
        t[2 * k] = c;
        let mut mn = vec![0; 2 * k];
        mul_basecase(&mut mn, m, n);
        assert_eq!(bignum::sub_1(&mut t, &mn), 0, "t >= 0");
        assert_eq!(t.pop(), Some(0), "t < R^2");
        t
    }

    /// The finish on both sides of its mask, at the edges: with the carry set, `v` from
    /// 0 to `n - 1` (the result wraps to `R - n + v`); without, `v` from 0 to `R - 1`
    /// through `n - 1` and `n` (left alone: almost reduced). The finish is the same text
    /// in every kernel here; `redc_finish` runs it alone after REDC for any even `K`.
    fn finish_edges<const K: usize>(adx: Adx, rng: &mut Rng) {
        let n = rng.modulus(K);
        let n0 = neg_inv_limb(n[0]);
        let (zero, ones) = (vec![0; K], vec![!0; K]);
        let mut one = zero.clone();
        one[0] = 1;
        let mut n_minus_1 = n.clone();
        n_minus_1[0] -= 1;
        let mut below_n = rng.limbs(K);
        below_n[K - 1] = n[K - 1] >> 1;
        let cases: [(Limb, &[Limb], &[Limb]); 9] = [
            (1, &zero, &ones),
            (1, &n_minus_1, &ones),
            (1, &below_n, &ones),
            (0, &zero, &zero),
            (0, &n_minus_1, &zero),
            (0, &n_minus_1, &one),
            (0, &n, &ones),
            (0, &ones, &zero),
            (0, &ones, &ones),
        ];
        for (c, v, m) in cases {
            let mut want = v.to_vec();
            if c == 1 {
                // v < n, so this wraps: R + v - n.
                assert_eq!(bignum::sub_n(&mut want, v, &n), 1);
            }
            let mut s = redc_preimage(c, v, m, &n);
            let mut r = vec![0x5a5a; K];
            redc_finish::<K>(adx, &mut r, &mut s, &n, n0);
            assert_eq!(r, want, "K = {K}, c = {c}, v = {v:x?}");
        }
    }

    #[test]
    fn masked_subtraction_at_the_edges() {
        let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
        let mut rng = Rng(5);
        for _ in 0..4 {
            finish_edges::<4>(adx, &mut rng);
            finish_edges::<8>(adx, &mut rng);
            finish_edges::<16>(adx, &mut rng);
            finish_edges::<24>(adx, &mut rng);
            finish_edges::<32>(adx, &mut rng);
            finish_edges::<48>(adx, &mut rng);
            finish_edges::<64>(adx, &mut rng);
        }
    }

    /// The fused kernels against the raw Montgomery product and the portable finish,
    /// with the carry seen both set and clear at every fused size (so both values of the
    /// mask went through each kernel's subtraction).
    #[test]
    fn fused_kernels_take_both_branches() {
        let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
        let mut rng = Rng(9);
        for k in [8, 16, 24, 32, 48, 64] {
            let n = rng.modulus(k);
            let n0 = neg_inv_limb(n[0]);
            let mut seen = [[0; 2]; 2];
            for _ in 0..64 {
                let (a, b) = (rng.limbs(k), rng.limbs(k));
                let mut s = vec![0x5a5a; scratch_len(k)];

                let mut want = vec![0; k];
                let c = crate::arch::x86_64::adx::mont_mul_raw(adx, &mut want, &a, &b, &n, n0);
                finish_almost(&mut want, c, &n);
                let mut acc = a.clone();
                mul_almost(adx, &mut acc, &b, &n, n0, &mut s);
                assert_eq!(acc, want, "mul_almost k = {k}, c = {c}");
                seen[0][c as usize] += 1;

                let c = crate::arch::x86_64::adx::mont_sqr_raw(adx, &mut want, &a, &n, n0);
                finish_almost(&mut want, c, &n);
                let mut acc = a.clone();
                sqr_n_almost(adx, &mut acc, 1, &n, n0, &mut s);
                assert_eq!(acc, want, "sqr_n_almost k = {k}, c = {c}");
                seen[1][c as usize] += 1;
            }
            assert!(seen.iter().flatten().all(|&x| x > 0), "k = {k}: carries {seen:?}");
        }
    }
}
