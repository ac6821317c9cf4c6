//! Scalar Montgomery and schoolbook kernels on BMI2/ADX (`mulx`, `adcx`, `adox`), in
//! inline assembly.
//!
//! The entry points take the [`Adx`] token first, so they cannot run on a CPU without
//! the instructions; all are safe and panic only on a length mismatch. Limbs are `u64`,
//! little-endian; `r` never aliases an input. With `R = 2^(64k)`, `n` odd and
//! `n0 = -n^-1 mod 2^64`:
//!
//! | kernel | contract |
//! |---|---|
//! | [`mont_mul_raw`] | `c*R + r = (a*b + m*n) / R`, any k-limb `a`, `b`, so `c` is 0 or 1 |
//! | [`mont_sqr_raw`] | the same with `b = a` |
//! | [`redc_raw`] | `c*R + r = (t + m*n) / R` for a 2k-limb `t` (destroyed) |
//! | [`mul_basecase`] | `r = a*b`, any non-empty lengths |
//! | [`sqr_basecase`] | `r = a^2` |
//! | [`sqr_n_almost`] | `acc = acc^(2^w) R^(1-2^w)` below `R`, each square finished almost-Montgomery |
//! | [`mul_almost`] | `acc = acc b R^-1` below `R`, finished almost-Montgomery |
//!
//! Here `m` is the one value in `[0, R)` that makes the division exact. The portable
//! twins (same contracts) are `modular::mont` (with `Finish::apply` for the chains) and
//! `bignum::mul`; the tests here check against a plain `u128` reference and num-bigint.
//!
//! # Method
//!
//! Everything is built from one *row* (Kaliski's operand scanning, seed 001): add
//! `d * X[0..len]` into `T[0..len]` for one digit `d`. `mulx` gives `(h_j, l_j) = d * X[j]`
//! without touching the flags, and the row is the sum of two shifted vectors, so it gets
//! two independent carry chains (Ozturk, Guilford, Gopal and Feghali, "New instructions
//! supporting large integer arithmetic on Intel architecture processors", 2012):
//!
//! ```text
//!   mulx  h_j, l_j, [X + 8j]      ; rdx = d
//!   adcx  l_j, [T + 8j]           ; CF chain:  T_j + l_j
//!   adox  l_j, h_{j-1}            ; OF chain:  ... + h_{j-1}
//!   mov   [T + 8j], l_j
//! ```
//!
//! The row's carry-out limb `h_{len-1} + CF + OF` never overflows (see `row_asm`). A chain
//! can take one addition per limb position per pass (its carry always goes one position
//! up), so one row, with a low and a high half to add at every position, already keeps
//! both flags busy; giving the `a*b_i` row one flag and the `m*n` row the other would
//! need two additions per position on each. Rows of the product and of the reduction are
//! instead overlapped by the out-of-order core: a row depends on the previous one only
//! through the `T` limbs in memory (store forwarding), and REDC's next quotient digit only
//! through one limb, which the unrolled REDC keeps in a register. The kernels are thus
//! bound by instruction throughput, not by latency (see "Throughput" below).
//!
//! Register allocation (names of the `asm!` operands): `rdx` the digit (the implicit
//! `mulx` source), `{x}` the multiplicand and `{t}` the accumulator (both memory operands
//! with constant displacements), `{lo}` the low half and sum, `{h0}`/`{h1}` the high
//! halves of consecutive products in turn (so `h_{j-1}` survives the `mulx` of step `j`),
//! `rcx` the loop count of the run-time-length rows (`jrcxz` reads no flags and `lea`
//! writes none, so both chains survive the loop), plus row counters and base pointers.
//! No kernel touches the stack or allocates.
//!
//! * Product: rows `a * b_i` into `r[i..]` (GMP `mul_basecase`).
//! * Square: the off-diagonal triangle by rows, then one pass `2t + sum a_i^2 2^(128i)`
//!   where the CF chain doubles (`adcx x, x`) and the OF chain adds the squares
//!   (Dusse-Kaliski's Montgomery squaring, seed 000: about half the digit products).
//! * REDC: one quotient digit and row per limb, the row's carry parked in the limb it
//!   zeroed and added back in one final pass (GMP `redc_1`; Dusse-Kaliski Improvement 1).
//! * Montgomery product and square = product or square into a stack scratch, then REDC
//!   (separated operand scanning, Koc-Acar-Kaliski 1996); for the unrolled sizes both in
//!   one `asm!` block. Above [`MAX_SCRATCH_LIMBS`] the product uses CIOS instead
//!   (reduction interleaved digit by digit, Dusse-Kaliski Improvement 2), which needs no
//!   scratch but is slower, its rows being serially dependent.
//!
//! Sizes 8, 16, 24, 32, 48, 64 limbs (the RSA-1024 to RSA-8192 CRT halves and the
//! 1024/2048/4096-bit moduli) have kernels unrolled by the assembler: `.rept` over a
//! const-generic length, so one source gives every size. Other lengths use loop kernels
//! that enter an eight-step unrolled body part-way (Duff's device). The triangle of a
//! square is fully unrolled up to 32 limbs and split into two half triangles and an
//! unrolled rectangle at 48 and 64, to stay within the op cache.
//!
//! Constant time: no branch or address depends on limb values; loop trip counts and jump
//! targets depend on the lengths only. The carry `c` is returned for the caller to fold
//! in with a mask.
//!
//! # Exponentiation chains
//!
//! A fixed-window exponentiation is `w` squarings and one product per window, each
//! finished almost-Montgomery (subtract `n` when the carry is set). `almost_chain` runs the `w`
//! squarings in one `asm!` block (square, REDC and the masked subtraction of `n`, the
//! masked `n` staged in the scratch by `and` before the borrow chain, a loop counter kept
//! in the scratch) and the product in another, for 8 to 32 limbs; at 48 and 64 limbs the
//! double-length product is one Karatsuba level over the unrolled half-size kernels
//! (`karatsuba`), then REDC and the finish in one block. OpenSSL's `bn_powerx5` is the
//! same idea. `modular::exp` drives them through `MontKernel::sqr_n` and `mul_into`, with
//! the table scan on AVX2 (`arch::x86_64::select`).
//!
//! # Linear passes
//!
//! `linear` has the carry-chain passes the bignum recursion needs (Karatsuba, Toom-3,
//! Toom-4), behind the `Basecase` seam: `adc`/`sbb` loops four limbs a trip, the carry
//! kept in `CF` where the portable loops pass it through a `bool`, `abs_diff` in one block,
//! `addmul_1` on one `mulx` row, and Karatsuba's middle term in three passes that each add
//! two operands per limb, one on `CF` (`adcx`) and one on `OF` (`adox`), sharing
//! `H0 + L2` between the two halves (GMP's `toom22` order) where the portable code makes
//! five-operand sums. (These passes need only `adc`/`sbb`; they take the `Adx` token
//! because they live with the kernels they serve.)
//!
//! # Throughput
//!
//! A row's `mulx` and its `adcx`/`adox` pair share the integer ALUs, so the unrolled rows
//! run at the issue rate of those three instructions together, not at one product a
//! cycle. Keeping the accumulator in a sliding window of registers (OpenSSL's `sqrx8x`)
//! instead of memory, or choosing other registers for the halves, did not beat that, so
//! the kernels keep the accumulator in memory and gain by removing work around the rows.
//! A `mulx` or `adcx` with an indexed memory operand (`[x + rcx*8]`) is markedly slower
//! than one with a constant displacement, hence constant displacements and pointer bumps
//! in the loops; `loop` is no faster than `lea`+`jrcxz`+`jmp`; loading the operand or the
//! accumulator limb into a register first is slower. The squaring, with about half the
//! digit products, beats the Montgomery product at every size, and at 48 and 64 limbs the
//! chains' Karatsuba forms beat the raw kernels. `crates/bench` measures every kernel
//! (`cargo bench -p cryptocard-bench --bench adx -- kernels chain`, cycles per call,
//! OpenSSL's `bn_mul_mont` and GMP's `mpn_mul_basecase` beside them) and the whole
//! constant-time exponentiations against OpenSSL's `BN_mod_exp_mont_consttime` (`--bench
//! modexp -- cycles`); the `modexpN` rows of `docs/performance.md` give the rates.
//!
//! # As the bignum basecase
//!
//! `AdxBasecase` (in `bignum/mul/adx.rs`, beside the seam, so that this module needs
//! nothing from `bignum`) puts [`mul_basecase`] and [`sqr_basecase`] (a 32 x 32 product as
//! one Karatsuba level over the 16-limb kernel) and the linear passes behind `bignum::mul`'s
//! `Basecase` seam, with Karatsuba and Toom-4 cut-overs tuned over them
//! (`THRESHOLDS` there). The products through that recursion, against GMP's `mpz_mul`, are
//! the `mulN` rows of `docs/performance.md` (`cryptocard speed mul4096 mul65536 --compare
//! gmp`) and `crates/bench`'s `adx -- products_gmp`, which also times the portable
//! kernels.

mod almost_chain;
mod cios;
mod karatsuba;
pub(crate) mod linear;
mod mont;
mod mul;
mod redc;
mod row_asm;
mod sqr;

#[cfg(feature = "hazmat")]
pub mod hazmat;
#[cfg(test)]
mod tests;

use crate::arch::x86_64::cpu::Adx;
use crate::limb::Limb;

/// Calls `$f::<K>` for the sizes with an unrolled kernel, `$generic` otherwise.
macro_rules! by_size {
    ($k:expr, $f:ident, ($($arg:expr),*), $generic:expr) => {
        match $k {
            8 => $f::<8>($($arg),*),
            16 => $f::<16>($($arg),*),
            24 => $f::<24>($($arg),*),
            32 => $f::<32>($($arg),*),
            48 => $f::<48>($($arg),*),
            64 => $f::<64>($($arg),*),
            _ => $generic,
        }
    };
}

/// The largest `k` whose double-length product fits the stack scratch of
/// [`mont_mul_raw`] and [`mont_sqr_raw`] (8192-bit CRT halves of 16384-bit RSA keys).
pub(crate) const MAX_SCRATCH_LIMBS: usize = 128;

/// Runs `f` on a zeroed scratch of `2k` limbs on the stack, and wipes it afterwards.
///
/// The wipe is a plain `fill(0)` kept alive by `black_box` rather than `zeroize`'s
/// volatile stores: those go one limb at a time, a noticeable part of a small product,
/// where the compiler turns the fill into a few vector stores.
#[inline(always)]
fn with_scratch<T>(k: usize, f: impl FnOnce(&mut [Limb]) -> T) -> T {
    #[inline(always)]
    fn run<const N: usize, T>(k: usize, f: impl FnOnce(&mut [Limb]) -> T) -> T {
        let mut s = [0 as Limb; N];
        let out = f(&mut s[..2 * k]);
        s[..2 * k].fill(0);
        core::hint::black_box(&mut s);
        out
    }
    match k {
        0..=8 => run::<16, T>(k, f),
        9..=16 => run::<32, T>(k, f),
        17..=32 => run::<64, T>(k, f),
        33..=64 => run::<128, T>(k, f),
        _ => run::<{ 2 * MAX_SCRATCH_LIMBS }, T>(k, f),
    }
}

/// `r = a * b`, `r.len() == a.len() + b.len()`, `a` and `b` non-empty, any lengths
/// (fastest for equal ones). Time depends only on the lengths.
pub fn mul_basecase(adx: Adx, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
    assert!(
        !a.is_empty() && !b.is_empty() && r.len() == a.len() + b.len(),
        "internal error: mul_basecase lengths"
    );
    if a.len() == b.len() {
        by_size!(a.len(), mul_unrolled, (adx, r, a, b), mul::mul_loop(adx, r, a, b))
    } else if a.len() > b.len() {
        mul::mul_loop(adx, r, a, b)
    } else {
        mul::mul_loop(adx, r, b, a)
    }
}

/// `r = a^2`, `r.len() == 2 * a.len()`, `a` non-empty. Time depends only on the length.
/// (Faster than [`mul_basecase`]: about half the digit products.)
pub fn sqr_basecase(adx: Adx, r: &mut [Limb], a: &[Limb]) {
    assert!(!a.is_empty() && r.len() == 2 * a.len(), "internal error: sqr_basecase lengths");
    by_size!(a.len(), sqr_unrolled, (adx, r, a), sqr::sqr_loop(adx, r, a))
}

/// Montgomery reduction: `c*R + r = (t + m*n) / R` for the `m` in `[0, R)` that makes the
/// division exact, `R = 2^(64k)`, `k = n.len() = r.len() >= 1`, `t.len() == 2k` (its
/// contents are destroyed), `n` odd, `n0 = -n^-1 mod 2^64`. `c` is 0 or 1, since
/// `(t + m n) / R < (R^2 + R n) / R < 2R`. Constant time.
pub fn redc_raw(adx: Adx, r: &mut [Limb], t: &mut [Limb], n: &[Limb], n0: Limb) -> Limb {
    let k = n.len();
    assert!(k >= 1 && r.len() == k && t.len() == 2 * k, "internal error: redc_raw lengths");
    by_size!(k, redc_unrolled, (adx, r, t, n, n0), redc::redc_loop(adx, r, t, n, n0))
}

/// Montgomery product: `c*R + r = (a*b + m*n) / R` for the `m` in `[0, R)` that makes the
/// division exact, `R = 2^(64k)`, `k = n.len() = a.len() = b.len() = r.len() >= 1`, `n`
/// odd, `n0 = -n^-1 mod 2^64`. Holds for any k-limb `a`, `b`: the value is below `R + n`,
/// so `c` is 0 or 1. Constant time: no data-dependent branches or addresses.
pub fn mont_mul_raw(
    adx: Adx,
    r: &mut [Limb],
    a: &[Limb],
    b: &[Limb],
    n: &[Limb],
    n0: Limb,
) -> Limb {
    let k = n.len();
    assert!(
        k >= 1 && r.len() == k && a.len() == k && b.len() == k,
        "internal error: mont_mul_raw lengths"
    );
    if k > MAX_SCRATCH_LIMBS {
        return cios::mont_mul_cios(adx, r, a, b, n, n0);
    }
    by_size!(
        k,
        mont_mul_unrolled,
        (adx, r, a, b, n, n0),
        with_scratch(k, |t| {
            mul::mul_loop(adx, t, a, b);
            redc::redc_loop(adx, r, t, n, n0)
        })
    )
}

/// Montgomery square: [`mont_mul_raw`] with `b = a` (faster: the square takes about half
/// the digit products).
pub fn mont_sqr_raw(adx: Adx, r: &mut [Limb], a: &[Limb], n: &[Limb], n0: Limb) -> Limb {
    let k = n.len();
    assert!(k >= 1 && r.len() == k && a.len() == k, "internal error: mont_sqr_raw lengths");
    if k > MAX_SCRATCH_LIMBS {
        return cios::mont_mul_cios(adx, r, a, a, n, n0);
    }
    match k {
        8 => return mont::mont_sqr_unrolled::<8>(adx, r, a, n, n0),
        16 => return mont::mont_sqr_unrolled::<16>(adx, r, a, n, n0),
        24 => return mont::mont_sqr_unrolled::<24>(adx, r, a, n, n0),
        32 => return mont::mont_sqr_unrolled::<32>(adx, r, a, n, n0),
        _ => {}
    }
    with_scratch(k, |t| {
        sqr_basecase(adx, t, a);
        redc_raw(adx, r, t, n, n0)
    })
}

pub(crate) use almost_chain::{mul_almost, scratch_len as chain_scratch_len, sqr_n_almost};
// For the bignum recursion's adapter, `bignum/mul/adx.rs` (see the note at the top).
pub(crate) use karatsuba::karatsuba_product;
// The tests and benchmarks beside the kernels also run them through bignum's recursion.
#[cfg(test)]
use crate::bignum::mul::adx::{AdxBasecase, THRESHOLDS as BASECASE_THRESHOLDS};
use mont::mont_mul_unrolled;
use mul::mul_unrolled;
use redc::redc_unrolled;
use sqr::sqr_unrolled;
