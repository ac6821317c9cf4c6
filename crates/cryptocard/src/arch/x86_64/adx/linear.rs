//! Linear passes for the multiplication recursion: addition and subtraction with carry
//! chains (GMP's `mpn_add_n`, `mpn_sub_n`, `mpn_add_1` with full propagation).
//!
//! Karatsuba and Toom-Cook spend their time outside the basecase in passes like these
//! (the evaluations, the middle terms, the interpolation); in portable Rust the carry goes
//! through a `bool` at every limb, here it stays in `CF` across the whole pass. The loop
//! is unrolled four times; only flag-neutral instructions sit between two steps (`mov`,
//! `lea`, `dec` leaves `CF` alone, `jrcxz`), so one chain runs through the quads and the
//! tail.
//!
//! Contracts: `r`, `a`, `b` have the stated lengths; `r` may be `a` or `b` themselves
//! (the same limbs, in place: each step reads its inputs before it writes), never
//! partially overlapping. Time depends on the lengths only.

use super::row_asm::{addmul_step, row_carry_out, row_loop8};
use crate::arch::x86_64::cpu::Adx;
use crate::limb::Limb;
use core::arch::asm;

/// One carry chain over `n` limbs: `r[i] = a[i] OP b[i] OP carry`, `$op` being `adc` or
/// `sbb`, with the incoming carry in `{c}` (0 or 1); leaves the outgoing carry in `{c}`.
macro_rules! chain_asm {
    ($op:literal, $r:expr, $a:expr, $b:expr, $n:expr, $cin:expr) => {{
        let c: Limb;
        // SAFETY: (the caller's) `r`, `a`, `b` are valid for `n` limbs; step `i` reads
        // a[i] and b[i] and then writes r[i], so exact aliasing of `r` with `a` or `b` is
        // fine. No stack use.
        unsafe {
            asm!(
                "mov {t}, rcx",
                "shr rcx, 2",
                "and {t:e}, 3",
                "neg {c}",             // CF = carry in
                "jrcxz 3f",
                "2:",
                "mov {x0}, qword ptr [{a}]",
                "mov {x1}, qword ptr [{a} + 8]",
                concat!($op, " {x0}, qword ptr [{b}]"),
                concat!($op, " {x1}, qword ptr [{b} + 8]"),
                "mov qword ptr [{r}], {x0}",
                "mov qword ptr [{r} + 8], {x1}",
                "mov {x0}, qword ptr [{a} + 16]",
                "mov {x1}, qword ptr [{a} + 24]",
                concat!($op, " {x0}, qword ptr [{b} + 16]"),
                concat!($op, " {x1}, qword ptr [{b} + 24]"),
                "mov qword ptr [{r} + 16], {x0}",
                "mov qword ptr [{r} + 24], {x1}",
                "lea {a}, [{a} + 32]",
                "lea {b}, [{b} + 32]",
                "lea {r}, [{r} + 32]",
                "dec rcx",
                "jnz 2b",
                "3:",
                "mov rcx, {t}",
                "jrcxz 5f",
                "4:",
                "mov {x0}, qword ptr [{a}]",
                concat!($op, " {x0}, qword ptr [{b}]"),
                "mov qword ptr [{r}], {x0}",
                "lea {a}, [{a} + 8]",
                "lea {b}, [{b} + 8]",
                "lea {r}, [{r} + 8]",
                "dec rcx",
                "jnz 4b",
                "5:",
                "mov {c:e}, 0",
                "adc {c:e}, 0",
                r = inout(reg) $r => _,
                a = inout(reg) $a => _,
                b = inout(reg) $b => _,
                c = inout(reg) $cin => c,
                t = out(reg) _,
                x0 = out(reg) _,
                x1 = out(reg) _,
                inout("rcx") $n => _,
                options(nostack),
            );
        }
        c
    }};
}

/// `r = a + b + cin` over `r.len()` limbs (`a`, `b` as long), returning the carry.
pub fn add_n(_adx: Adx, r: &mut [Limb], a: &[Limb], b: &[Limb], cin: Limb) -> Limb {
    let n = r.len();
    assert!(a.len() == n && b.len() == n && cin <= 1, "internal error: add_n lengths");
    chain_asm!("adc", r.as_mut_ptr(), a.as_ptr(), b.as_ptr(), n, cin)
}

/// `a = a + b + cin` in place over `a.len()` limbs (`b` as long), returning the carry.
pub(crate) fn add_n_assign(_adx: Adx, a: &mut [Limb], b: &[Limb], cin: Limb) -> Limb {
    let n = a.len();
    assert!(b.len() == n && cin <= 1, "internal error: add_n_assign lengths");
    let p = a.as_mut_ptr();
    chain_asm!("adc", p, p.cast_const(), b.as_ptr(), n, cin)
}

/// `r = a - b - bin` over `r.len()` limbs, returning the borrow.
pub(crate) fn sub_n(_adx: Adx, r: &mut [Limb], a: &[Limb], b: &[Limb], bin: Limb) -> Limb {
    let n = r.len();
    assert!(a.len() == n && b.len() == n && bin <= 1, "internal error: sub_n lengths");
    chain_asm!("sbb", r.as_mut_ptr(), a.as_ptr(), b.as_ptr(), n, bin)
}

/// `a = a - b - bin` in place, returning the borrow.
pub(crate) fn sub_n_assign(_adx: Adx, a: &mut [Limb], b: &[Limb], bin: Limb) -> Limb {
    let n = a.len();
    assert!(b.len() == n && bin <= 1, "internal error: sub_n_assign lengths");
    let p = a.as_mut_ptr();
    chain_asm!("sbb", p, p.cast_const(), b.as_ptr(), n, bin)
}

/// `a = a + x + c` for the limb `x` repeated over all of `a` (`x` is 0 to propagate a
/// carry, `!0` to sign-extend a subtraction) with the carry `c` in; returns the carry out.
pub(crate) fn add_repeated(_adx: Adx, a: &mut [Limb], x: Limb, c: Limb) -> Limb {
    assert!(c <= 1, "internal error: add_repeated carry");
    let n = a.len();
    let out: Limb;
    // SAFETY: `{a}` walks a[0..n), each limb read then written. No stack use.
    unsafe {
        asm!(
            "neg {c}",
            "jrcxz 3f",
            "2:",
            "adc qword ptr [{a}], {x}",
            "lea {a}, [{a} + 8]",
            "dec rcx",
            "jnz 2b",
            "3:",
            "mov {c:e}, 0",
            "adc {c:e}, 0",
            a = inout(reg) a.as_mut_ptr() => _,
            x = in(reg) x,
            c = inout(reg) c => out,
            inout("rcx") n => _,
            options(nostack),
        );
    }
    out
}

/// `a += b` with `b` no longer than `a`, the carry propagated through the rest of `a`;
/// returns the final carry (`bignum::add_1`).
pub fn add_1(adx: Adx, a: &mut [Limb], b: &[Limb]) -> Limb {
    assert!(a.len() >= b.len(), "internal error: add_1 lengths");
    let (lo, hi) = a.split_at_mut(b.len());
    let c = add_n_assign(adx, lo, b, 0);
    add_repeated(adx, hi, 0, c)
}

/// `a -= b` with `b` no longer than `a`, the borrow propagated through the rest of `a`;
/// returns the final borrow (`bignum::sub_1`).
pub(crate) fn sub_1(adx: Adx, a: &mut [Limb], b: &[Limb]) -> Limb {
    assert!(a.len() >= b.len(), "internal error: sub_1 lengths");
    let (lo, hi) = a.split_at_mut(b.len());
    let c = sub_n_assign(adx, lo, b, 0);
    // a - borrow = a + !0 + (1 - borrow) with the carry meaning "no borrow".
    1 - add_repeated(adx, hi, !0, 1 - c)
}

/// A loop of `{cnt}` steps (any count, 0 included) over the pointer bumps `$bump` (one
/// step's worth), unrolled twice, with only flag-neutral instructions around the steps so
/// that both carry chains run through: the odd step first (the parity of `{cnt}` as
/// `{cnt} << 63` and the half as `{cnt} >> 1`, by the BMI2 shifts `shlx`/`shrx` with the
/// count in `rcx`, branches by `jrcxz`). `$step` is a macro taking the byte offset.
/// Clobbers `rcx`. Labels `$a`, `$b`, `$c` must be unique local numbers.
///
/// (`pext` with the masks 1 and `!1` does the same without a count register, but on AMD
/// family 17h, Zen 1 and Zen 2, it is microcoded and slow for a mask with many set bits;
/// `shlx`/`shrx` are single fast instructions everywhere.)
macro_rules! loop2 {
    ($step:ident, $bump:ident, $a:literal, $b:literal, $c:literal) => {
        concat!(
            "mov ecx, 63\n",
            "shlx rcx, {cnt}, rcx\n",
            "jrcxz ",
            $a,
            "f\n",
            $step!("0"),
            $bump!("8"),
            $a,
            ":\n",
            "mov ecx, 1\n",
            "shrx rcx, {cnt}, rcx\n",
            "jmp ",
            $c,
            "f\n",
            $b,
            ":\n",
            $step!("0"),
            $step!("8"),
            $bump!("16"),
            "lea rcx, [rcx - 1]\n",
            $c,
            ":\n",
            "jrcxz ",
            $c,
            "f\n",
            "jmp ",
            $b,
            "b\n",
            $c,
            ":\n",
        )
    };
}

/// Pass 1 step: `S' = H0 + L2` (`CF`) into the `H0` slot, `S' + H2` (`OF`) into the `L2`
/// slot.
macro_rules! p1_step {
    ($o:literal) => {
        concat!(
            "mov {x}, qword ptr [{pa} + ",
            $o,
            "]\n",
            "adcx {x}, qword ptr [{pb} + ",
            $o,
            "]\n",
            "mov qword ptr [{pa} + ",
            $o,
            "], {x}\n",
            "adox {x}, qword ptr [{pc} + ",
            $o,
            "]\n",
            "mov qword ptr [{pb} + ",
            $o,
            "], {x}\n",
        )
    };
}
/// Pass 1 step past the end of `H2` (zero-extended).
macro_rules! p1z_step {
    ($o:literal) => {
        concat!(
            "mov {x}, qword ptr [{pa} + ",
            $o,
            "]\n",
            "adcx {x}, qword ptr [{pb} + ",
            $o,
            "]\n",
            "mov qword ptr [{pa} + ",
            $o,
            "], {x}\n",
            "adox {x}, qword ptr [rip + {zero}]\n",
            "mov qword ptr [{pb} + ",
            $o,
            "], {x}\n",
        )
    };
}
macro_rules! p1_bump {
    ($o:literal) => {
        concat!(
            "lea {pa}, [{pa} + ",
            $o,
            "]\n",
            "lea {pb}, [{pb} + ",
            $o,
            "]\n",
            "lea {pc}, [{pc} + ",
            $o,
            "]\n",
        )
    };
}
/// Pass 2 step over `r[h..2h)`: `±zm` (`CF`) and `L0` (`OF`).
macro_rules! p2_step {
    ($o:literal) => {
        concat!(
            "mov {x}, qword ptr [{pa} + ",
            $o,
            "]\n",
            "adcx {x}, qword ptr [{pz} + ",
            $o,
            "]\n",
            "adox {x}, qword ptr [{pc} + ",
            $o,
            "]\n",
            "mov qword ptr [{pa} + ",
            $o,
            "], {x}\n",
        )
    };
}
macro_rules! p2_bump {
    ($o:literal) => {
        concat!(
            "lea {pa}, [{pa} + ",
            $o,
            "]\n",
            "lea {pz}, [{pz} + ",
            $o,
            "]\n",
            "lea {pc}, [{pc} + ",
            $o,
            "]\n",
        )
    };
}
/// Pass 2 step over `r[2h+1..3h)`: `±zm` (`CF`), the `OF` carry.
macro_rules! p2z_step {
    ($o:literal) => {
        concat!(
            "mov {x}, qword ptr [{pa} + ",
            $o,
            "]\n",
            "adcx {x}, qword ptr [{pz} + ",
            $o,
            "]\n",
            "adox {x}, qword ptr [rip + {zero}]\n",
            "mov qword ptr [{pa} + ",
            $o,
            "], {x}\n",
        )
    };
}
macro_rules! p2z_bump {
    ($o:literal) => {
        concat!("lea {pa}, [{pa} + ", $o, "]\n", "lea {pz}, [{pz} + ", $o, "]\n")
    };
}
/// Pass 3 step over `r[3h+1..L)`: the sign extension `m` (`CF`), the `OF` carry.
macro_rules! p3_step {
    ($o:literal) => {
        concat!(
            "mov {x}, qword ptr [{pa} + ",
            $o,
            "]\n",
            "adcx {x}, {m}\n",
            "adox {x}, qword ptr [rip + {zero}]\n",
            "mov qword ptr [{pa} + ",
            $o,
            "], {x}\n",
        )
    };
}
macro_rules! p3_bump {
    ($o:literal) => {
        concat!("lea {pa}, [{pa} + ", $o, "]\n")
    };
}

/// `r = |a - b|`, returning 1 where `a < b` (`bignum::abs_diff`): `r.len() == a.len() >=
/// b.len()`, `b` zero-extended. One `asm!` block, three passes: the `sbb` chain into `r`,
/// the complement under the borrow mask (SSE2 `pxor`, two limbs at a time, which leaves
/// the flags alone), and the `+1` of the two's complement on an `adc` chain.
pub(crate) fn abs_diff(_adx: Adx, r: &mut [Limb], a: &[Limb], b: &[Limb]) -> Limb {
    let (n, lb) = (a.len(), b.len());
    assert!(r.len() == n && n >= lb, "internal error: abs_diff lengths");
    if n == 0 {
        return 0;
    }
    let sign: Limb;
    // SAFETY: pass 1 reads a[0..n) and b[0..lb) and writes r[0..n); passes 2 and 3 read
    // and write r[0..n) (pass 2 in pairs while two limbs remain, then one). No stack use;
    // xmm0 and xmm1 are declared clobbered.
    unsafe {
        asm!(
            // Pass 1: r = a - b over lb limbs, then a - borrow over the rest.
            "mov {p}, {r}",
            "mov rcx, {lb}",
            "clc",
            "jrcxz 3f",
            "2:",
            "mov {x}, qword ptr [{a}]",
            "sbb {x}, qword ptr [{b}]",
            "mov qword ptr [{p}], {x}",
            "lea {a}, [{a} + 8]",
            "lea {b}, [{b} + 8]",
            "lea {p}, [{p} + 8]",
            "dec rcx",
            "jnz 2b",
            "3:",
            "mov rcx, {rest}",
            "jrcxz 5f",
            "4:",
            "mov {x}, qword ptr [{a}]",
            "sbb {x}, 0",
            "mov qword ptr [{p}], {x}",
            "lea {a}, [{a} + 8]",
            "lea {p}, [{p} + 8]",
            "dec rcx",
            "jnz 4b",
            "5:",
            // m = -borrow; sign = borrow.
            "sbb {m}, {m}",
            "mov {sign}, {m}",
            "neg {sign}",
            // Pass 2: r ^= m.
            "movq xmm0, {m}",
            "punpcklqdq xmm0, xmm0",
            "mov {p}, {r}",
            "mov rcx, {n}",
            "shr rcx, 1",
            "jz 7f",
            "6:",
            "movdqu xmm1, xmmword ptr [{p}]",
            "pxor xmm1, xmm0",
            "movdqu xmmword ptr [{p}], xmm1",
            "add {p}, 16",
            "dec rcx",
            "jnz 6b",
            "7:",
            "test {n:e}, 1",
            "jz 8f",
            "xor qword ptr [{p}], {m}",
            "8:",
            // Pass 3: r += sign (carry through all of r).
            "mov {p}, {r}",
            "mov rcx, {n}",
            "mov {x}, {sign}",
            "neg {x}",                  // CF = sign
            "9:",
            "adc qword ptr [{p}], 0",
            "lea {p}, [{p} + 8]",
            "dec rcx",
            "jnz 9b",
            r = in(reg) r.as_mut_ptr(),
            a = inout(reg) a.as_ptr() => _,
            b = inout(reg) b.as_ptr() => _,
            n = in(reg) n,
            lb = in(reg) lb,
            rest = in(reg) n - lb,
            p = out(reg) _,
            x = out(reg) _,
            m = out(reg) _,
            sign = out(reg) sign,
            out("rcx") _,
            out("xmm0") _,
            out("xmm1") _,
            options(nostack),
        );
    }
    sign
}

/// `r += a * d` over `r.len() == a.len() >= 1` limbs, returning the high limb (GMP's
/// `mpn_addmul_1`): one `mulx` row with both carry chains (see `row_asm`).
pub(crate) fn addmul_1(_adx: Adx, r: &mut [Limb], a: &[Limb], d: Limb) -> Limb {
    let n = r.len();
    assert!(n >= 1 && a.len() == n, "internal error: addmul_1 lengths");
    let hi: Limb;
    // SAFETY: the token proves BMI2/ADX. The row reads a[0..n) and r[0..n) and writes
    // r[0..n) (see `row_asm::row_loop8`). No stack use.
    unsafe {
        asm!(
            row_loop8!(addmul_step),
            row_carry_out!(),
            x = inout(reg) a.as_ptr() => _,
            t = inout(reg) r.as_mut_ptr() => _,
            lo = out(reg) _,
            h0 = out(reg) _,
            h1 = out(reg) hi,
            inout("rdx") d => _,
            inout("rcx") n => _,
            options(nostack),
        );
    }
    hi
}

/// Karatsuba's middle term in three two-chain passes: `r += (z0 + z2 ± zm)·B^h` with
/// `z0 = r[..2h]` and `z2 = r[2h..]` in place (`r.len() = L`, `3h <= L <= 4h`), where
/// `zx` is `zm` already complemented under the mask `m` (`zm ^ m`, `2h` limbs) and `m` is
/// `!0` to subtract, 0 to add. The portable twin is `bignum::mul::karatsuba`'s `middle`,
/// whose docs derive
///
/// ```text
/// r = L0 + (S' + L0)·B^h + (S' + H2)·B^(2h) + H2·B^(3h) + c1·(B^(2h) + B^(3h)) ± zm·B^h
/// ```
///
/// with `S = H0 + L2 = S' + c1·B^h`. Every pass adds two operands per limb, one on each
/// carry flag (`adcx` on `CF`, `adox` on `OF`):
///
/// 1. `h` steps: `S' = H0 + L2` into `r[h..2h)` and `V = S' + H2` (`H2 = r[3h..]`,
///    zero-extended) into `r[2h..3h)`; the carries `c1` (of `S'`) and `c3` (of `V`) both
///    belong at `3h`, and `c1` also at `2h`.
/// 2. `2h` steps over `r[h..3h)`: `±zm` on `CF` (carry in `m & 1`), and on `OF` `L0`
///    under the low half, `c1` at `2h` (as an addend), zeros above.
/// 3. `L - 3h` steps over `r[3h..L)`: the sign extension `m` on `CF`, `c1 + c3` at `3h`
///    then zeros on `OF`, both carries coming in from pass 2.
///
/// About `3.5h` limb steps against about `9h` in portable Rust. Each pass is exact modulo
/// `B^L` and the product is below `B^L`, so carries out of the top are dropped. Loop
/// counts depend on `h` and `L` only.
pub fn karatsuba_middle(_adx: Adx, r: &mut [Limb], zx: &[Limb], h: usize, m: Limb) {
    let len = r.len();
    assert!(
        h >= 1 && 3 * h <= len && len <= 4 * h && zx.len() == 2 * h && (m == 0 || m == !0),
        "internal error: karatsuba_middle lengths"
    );
    let hl = len - 3 * h;
    let p = r.as_mut_ptr();
    // SAFETY: pass 1 walks `{pa}`, `{pb}` over r[h..2h), r[2h..3h) and `{pc}` over
    // r[3h..L) (only its first L - 3h steps read there), each step reading before it
    // writes at the same index and never writing r[3h..); pass 2 walks r[h..3h),
    // r[0..h) and zx[0..2h); pass 3 walks r[3h..L). All within r (L >= 3h) and zx. No
    // stack use.
    unsafe {
        asm!(
            "lea {pa}, [{r} + {h}*8]",
            "lea {pb}, [{pa} + {h}*8]",
            "lea {pc}, [{pb} + {h}*8]",
            // Pass 1: hl steps with H2, then h - hl without.
            "mov {cnt}, {hl}",
            "xor {x:e}, {x:e}",
            loop2!(p1_step, p1_bump, "40", "41", "42"),
            "mov {cnt}, {hl}",
            "not {cnt}",
            "lea {cnt}, [{h} + {cnt} + 1]",
            loop2!(p1z_step, p1_bump, "43", "44", "45"),
            "mov {c1:e}, 0",
            "mov {c3:e}, 0",
            "setc {c1:l}",
            "seto {c3:l}",
            "lea {c3}, [{c1} + {c3}]",
            // Pass 2: CF = m & 1, OF = 0.
            "lea {pa}, [{r} + {h}*8]",
            "mov {pc}, {r}",
            "mov {x}, {m}",
            "xor {cnt:e}, {cnt:e}",
            "neg {x}",
            "mov {cnt}, {h}",
            loop2!(p2_step, p2_bump, "20", "21", "22"),
            "mov {x}, qword ptr [{pa}]",
            "adcx {x}, qword ptr [{pz}]",
            "adox {x}, {c1}",
            "mov qword ptr [{pa}], {x}",
            "lea {pa}, [{pa} + 8]",
            "lea {pz}, [{pz} + 8]",
            "lea {cnt}, [{h} - 1]",
            loop2!(p2z_step, p2z_bump, "23", "24", "25"),
            // Pass 3, if L > 3h: c1 + c3 at 3h, then the carries.
            "mov rcx, {hl}",
            "jrcxz 38f",
            "jmp 37f",
            "38:",
            "jmp 39f",
            "37:",
            "mov {x}, qword ptr [{pa}]",
            "adcx {x}, {m}",
            "adox {x}, {c3}",
            "mov qword ptr [{pa}], {x}",
            "lea {pa}, [{pa} + 8]",
            "lea {cnt}, [{hl} - 1]",
            loop2!(p3_step, p3_bump, "30", "31", "32"),
            "39:",
            x = out(reg) _,
            c1 = out(reg) _,
            c3 = out(reg) _,
            cnt = out(reg) _,
            pa = out(reg) _,
            pb = out(reg) _,
            pc = out(reg) _,
            pz = inout(reg) zx.as_ptr() => _,
            r = in(reg) p,
            h = in(reg) h,
            hl = in(reg) hl,
            m = in(reg) m,
            zero = sym ZERO,
            out("rcx") _,
            options(nostack),
        );
    }
}

/// A zero addend for memory operands of the loops above, so that it takes no register.
static ZERO: Limb = 0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bignum;

    fn limbs(seed: &mut u64, n: usize, kind: usize) -> Vec<Limb> {
        let mut g = crate::test_rng::Lcg64(*seed);
        let v = (0..n)
            .map(|_| {
                let x = g.next_u64();
                match kind {
                    0 => x,
                    1 => !0,
                    _ => 0,
                }
            })
            .collect();
        *seed = g.0;
        v
    }

    #[test]
    fn match_the_portable_passes() {
        let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
        let mut seed = 1;
        for n in (0..=20).chain([31, 32, 33, 64, 127, 257]) {
            for (ka, kb) in [(0, 0), (1, 1), (1, 2), (2, 1), (0, 1), (2, 2)] {
                let a = limbs(&mut seed, n, ka);
                let b = limbs(&mut seed, n, kb);
                for cin in [0, 1] {
                    // add_n against bignum::add_n plus the carry in.
                    let mut want = a.clone();
                    let mut c_want = bignum::add_1(&mut want, &b);
                    c_want += bignum::add_limb(&mut want, cin);
                    let mut r = vec![0x5a; n];
                    assert_eq!(add_n(adx, &mut r, &a, &b, cin), c_want, "add_n n = {n}");
                    assert_eq!(r, want);
                    let mut x = a.clone();
                    assert_eq!(add_n_assign(adx, &mut x, &b, cin), c_want);
                    assert_eq!(x, want);

                    let mut want = a.clone();
                    let mut b_want = bignum::sub_1(&mut want, &b);
                    b_want += bignum::sub_limb(&mut want, cin);
                    let mut r = vec![0x5a; n];
                    assert_eq!(sub_n(adx, &mut r, &a, &b, cin), b_want, "sub_n n = {n}");
                    assert_eq!(r, want);
                    let mut x = a.clone();
                    assert_eq!(sub_n_assign(adx, &mut x, &b, cin), b_want);
                    assert_eq!(x, want);
                }
                for m in 0..=n {
                    let mut want = a.clone();
                    let cw = bignum::add_1(&mut want, &b[..m]);
                    let mut x = a.clone();
                    assert_eq!(add_1(adx, &mut x, &b[..m]), cw, "add_1 {n}/{m}");
                    assert_eq!(x, want);
                    let mut want = a.clone();
                    let bw = bignum::sub_1(&mut want, &b[..m]);
                    let mut x = a.clone();
                    assert_eq!(sub_1(adx, &mut x, &b[..m]), bw, "sub_1 {n}/{m}");
                    assert_eq!(x, want);
                }
                // add_repeated: carry propagation and sign extension.
                for (x, c) in [(0, 0), (0, 1), (!0, 0), (!0, 1)] {
                    let mut want = a.clone();
                    let mut cw = 0;
                    let mut carry = c;
                    for w in want.iter_mut() {
                        let (s, o) = bignum::adc(*w, x, carry);
                        *w = s;
                        carry = o;
                    }
                    cw += carry;
                    let mut y = a.clone();
                    assert_eq!(add_repeated(adx, &mut y, x, c), cw, "add_repeated n = {n}");
                    assert_eq!(y, want);
                }
            }
        }
    }

    /// The middle term on real Karatsuba inputs (so that the result is the product),
    /// every shape `n >= m > ceil(n/2)` up to 40 limbs, both signs.
    #[test]
    fn karatsuba_middle_gives_the_product() {
        use crate::bignum::mul::mul_basecase;
        let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
        let mut seed = 3;
        for n in 2usize..=40 {
            let h = n.div_ceil(2);
            for m in h + 1..=n {
                for kind in [0, 1, 0] {
                    let a = limbs(&mut seed, n, kind);
                    let mut b = limbs(&mut seed, m, kind);
                    if kind == 1 {
                        b[0] = 0;
                    }
                    let mut want = vec![0; n + m];
                    mul_basecase(&mut want, &a, &b);
                    let (a0, a1) = a.split_at(h);
                    let (b0, b1) = b.split_at(h);
                    let mut r = vec![0; n + m];
                    mul_basecase(&mut r[..2 * h], a0, b0);
                    mul_basecase(&mut r[2 * h..], a1, b1);
                    let (mut da, mut db) = (vec![0; h], vec![0; h]);
                    let sa = bignum::abs_diff(&mut da, a0, a1);
                    let sb = bignum::abs_diff(&mut db, b0, b1);
                    let mut zm = vec![0; 2 * h];
                    mul_basecase(&mut zm, &da, &db);
                    let m_ = (1 ^ sa ^ sb).wrapping_neg();
                    let zx: Vec<Limb> = zm.iter().map(|&x| x ^ m_).collect();
                    karatsuba_middle(adx, &mut r, &zx, h, m_);
                    assert_eq!(r, want, "n = {n}, m = {m}");
                }
            }
        }
    }

    #[test]
    fn addmul_1_matches_the_portable_row() {
        let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
        let mut seed = 7;
        for n in (1..=20).chain([31, 64, 65]) {
            for (ka, kr) in [(0, 0), (1, 1), (0, 1)] {
                let a = limbs(&mut seed, n, ka);
                let r0 = limbs(&mut seed, n, kr);
                for d in [0, 1, 15, 65, !0, 0x1234_5678_9abc_def1] {
                    let mut want = r0.clone();
                    let cw = crate::bignum::mul::addmul_1(&mut want, &a, d);
                    let mut got = r0.clone();
                    assert_eq!(addmul_1(adx, &mut got, &a, d), cw, "n = {n}, d = {d}");
                    assert_eq!(got, want);
                }
            }
        }
    }

    #[test]
    fn abs_diff_matches_the_portable_one() {
        let Some(adx) = Adx::detect() else { return eprintln!("skipped: no BMI2/ADX") };
        let mut seed = 11;
        for n in 1usize..=40 {
            for lb in [0, 1, n / 2, n - 1, n] {
                for (ka, kb) in [(0, 0), (1, 1), (2, 1), (1, 2), (2, 2), (0, 1)] {
                    let a = limbs(&mut seed, n, ka);
                    let b = limbs(&mut seed, lb, kb);
                    let mut want = vec![0; n];
                    let sw = bignum::abs_diff(&mut want, &a, &b);
                    let mut got = vec![0x5a; n];
                    assert_eq!(abs_diff(adx, &mut got, &a, &b), sw, "n = {n}, lb = {lb}");
                    assert_eq!(got, want, "n = {n}, lb = {lb}");
                }
            }
        }
    }
}
