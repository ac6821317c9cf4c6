//! Eight independent modular exponentiations, one per lane of a `zmm` register (Intel
//! crypto_mb's `mbx_rsa_private_mb8` organisation).
//!
//! Each lane has its own modulus, base and exponent; only the digit count `D` is shared.
//! The data is transposed ([`Mb8`]) so that every instruction works on digit `k` of all
//! eight lanes at once. Lanes are independent: a lane whose inputs are invalid, or an
//! empty lane, is computed on a harmless dummy modulus (`n = 1`) and reported in its
//! [`LaneStatus`], and the other lanes are unaffected.
//!
//! Fixed-window exponentiation (window [`WINDOW`]), left to right: a table of the 32 powers
//! `x^0..x^31` in Montgomery form, then for each window five squarings and one
//! multiplication by the table entry, read by a masked scan of the whole table. All
//! intermediate values are almost-Montgomery (below `2n`, never reduced); only the final
//! result is reduced below `n`. Time depends on `D` and on the longest exponent slice of
//! the batch (public lengths), never on the values.

use super::amm::amm_mb8;
use super::radix52::{self, Params52};
use super::vec52::{self, Mb8};
use super::{LaneStatus, window_bits};
use crate::Error;
use crate::arch::x86_64::cpu::Ifma;
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// Window width of the mb8 exponentiation (tuned on AMD Zen 4, see `super`).
pub(crate) const WINDOW: usize = 5;
const TABLE: usize = 1 << WINDOW;

/// One lane's job: `out = base^exp mod modulus`.
///
/// `modulus` is odd with at most `52 D - 2` bits, `rr = 2^(2 * 52 * D) mod modulus`, and
/// `base` and `out` have exactly `modulus.len()` limbs, `base < modulus`. `exp` has any
/// length (its slice length, not its value, sets the time of the whole batch).
#[derive(Debug)]
pub(crate) struct Mb8Lane<'a> {
    pub(crate) modulus: &'a [u64],
    pub(crate) rr: &'a [u64],
    pub(crate) base: &'a [u64],
    pub(crate) exp: &'a [u64],
    pub(crate) out: &'a mut [u64],
}

/// Runs up to eight exponentiations at once, returning each lane's status. `None` lanes
/// are [`LaneStatus::Empty`]; a lane whose inputs break the [`Mb8Lane`] contract is
/// [`LaneStatus::Failed`] and its `out` is zero-filled; the others are
/// [`LaneStatus::Done`] with `out` fully reduced. Constant-time in bases and exponents
/// (what the validity checks reveal is public anyway: sizes, the modulus, and whether
/// `base < modulus`).
pub(crate) fn exp_mb8<const D: usize>(
    _ifma: Ifma,
    mut lanes: [Option<Mb8Lane<'_>>; 8],
) -> [LaneStatus; 8] {
    let mut status = [LaneStatus::Empty; 8];
    let mut inputs = Inputs::<D>::dummy();
    let mut exps: [&[u64]; 8] = [&[]; 8];
    for (l, slot) in lanes.iter_mut().enumerate() {
        let Some(lane) = slot else { continue };
        match inputs.set_lane(l, lane) {
            Ok(()) => {
                exps[l] = lane.exp;
                status[l] = LaneStatus::Done;
            }
            Err(e) => {
                lane.out.fill(0);
                status[l] = LaneStatus::Failed(e);
            }
        }
    }
    let mut result = Mb8::<D>::ZERO;
    // SAFETY: the `Ifma` token proves the CPU has the features `exp_kernel` enables.
    unsafe { exp_kernel(&inputs, &exps, &mut result) };
    for (l, slot) in lanes.iter_mut().enumerate() {
        if let (Some(lane), LaneStatus::Done) = (slot, status[l]) {
            let digits: [u64; D] = core::array::from_fn(|k| result.0[k][l]);
            let fits = radix52::from_radix52(lane.out, &digits);
            assert!(fits.declassify(), "internal error: result does not fit the modulus");
        }
    }
    result.zeroize();
    inputs.base.zeroize();
    status
}

/// The transposed inputs of a batch.
struct Inputs<const D: usize> {
    n: Mb8<D>,
    rr: Mb8<D>,
    base: Mb8<D>,
    k0: [u64; 8],
}

impl<const D: usize> Inputs<D> {
    /// Every lane on the dummy modulus 1 (k0 = -1 mod 2^52), base 0, RR 0.
    fn dummy() -> Self {
        let mut n = Mb8::ZERO;
        n.0[0] = [1; 8];
        Inputs { n, rr: Mb8::ZERO, base: Mb8::ZERO, k0: [radix52::DIGIT_MASK; 8] }
    }

    fn set_lane(&mut self, l: usize, lane: &Mb8Lane<'_>) -> Result<(), Error> {
        let p = Params52::<D>::new(lane.modulus, lane.rr)?;
        if lane.base.len() != p.limbs() || lane.out.len() != p.limbs() {
            return Err(Error::InvalidArgument("base and result must have the modulus's length"));
        }
        if !p.is_reduced(lane.base).declassify() {
            return Err(Error::InvalidArgument("base must be below the modulus"));
        }
        let mut digits = [0u64; D];
        // Fits: base < n < 2^(52 D).
        let _ = radix52::to_radix52(&mut digits, lane.base);
        for k in 0..D {
            self.n.0[k][l] = p.n[k];
            self.rr.0[k][l] = p.rr[k];
            self.base.0[k][l] = digits[k];
        }
        digits.zeroize();
        self.k0[l] = p.k0;
        Ok(())
    }
}

/// The exponentiation proper; see the module docs.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl,avx512bw")]
fn exp_kernel<const D: usize>(inp: &Inputs<D>, exps: &[&[u64]; 8], out: &mut Mb8<D>) {
    // SAFETY: `k0` is 64 readable bytes; the load is unaligned.
    let k0 = unsafe { _mm512_loadu_si512(inp.k0.as_ptr().cast()) };
    let n = &inp.n;
    let mul = |a: &Mb8<D>, b: &Mb8<D>, o: &mut Mb8<D>| amm_mb8(a, b, n, k0, o);
    let mut one = Mb8::<D>::ZERO;
    one.0[0] = [1; 8];

    // table[k] = x^k R mod n, below 2n.
    let mut table = [const { Mb8::<D>::ZERO }; TABLE];
    {
        let (t0, rest) = table.split_at_mut(1);
        mul(&inp.rr, &one, &mut t0[0]);
        mul(&inp.base, &inp.rr, &mut rest[0]);
    }
    for k in 2..TABLE {
        let (done, rest) = table.split_at_mut(k);
        if k % 2 == 0 {
            mul(&done[k / 2], &done[k / 2], &mut rest[0]);
        } else {
            mul(&done[k - 1], &done[1], &mut rest[0]);
        }
    }

    let bits = exps.iter().map(|e| 64 * e.len()).max().unwrap_or(0);
    let windows = bits.div_ceil(WINDOW);
    let mut acc = Mb8::<D>::ZERO;
    let mut tmp = Mb8::<D>::ZERO;
    let mut idx = [0u64; 8];
    if windows == 0 {
        acc = table[0].clone();
    }
    for w in (0..windows).rev() {
        for (i, e) in idx.iter_mut().zip(exps) {
            *i = window_bits(e, WINDOW * w, WINDOW);
        }
        if w + 1 == windows {
            select(&table, &idx, &mut acc);
            continue;
        }
        for _ in 0..WINDOW {
            mul(&acc, &acc, &mut tmp);
            core::mem::swap(&mut acc, &mut tmp);
        }
        select(&table, &idx, &mut tmp);
        let t = tmp.clone();
        mul(&acc, &t, &mut tmp);
        core::mem::swap(&mut acc, &mut tmp);
    }
    // Out of Montgomery form: amm(acc, 1) = acc / R mod n is at most n (acc < 2n < R),
    // and equals n only for a residue of 0: one conditional subtraction reduces it.
    mul(&acc, &one, &mut tmp);
    reduce_once(&tmp, n, out);

    table.zeroize();
    acc.zeroize();
    tmp.zeroize();
    idx.zeroize();
}

/// `out = table[idx[l]]` lane by lane, reading every entry (a masked scan: neither the
/// addresses nor the branches depend on the indices).
#[target_feature(enable = "avx512f")]
fn select<const D: usize>(table: &[Mb8<D>; TABLE], idx: &[u64; 8], out: &mut Mb8<D>) {
    // SAFETY: `idx` is 64 readable bytes; the load is unaligned.
    let idx = unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) };
    let zero = _mm512_setzero_si512();
    let mut acc = [zero; D];
    for (k, entry) in table.iter().enumerate() {
        let hit = _mm512_cmpeq_epi64_mask(idx, _mm512_set1_epi64(k as i64));
        let m = _mm512_maskz_mov_epi64(hit, _mm512_set1_epi64(-1));
        for (j, a) in acc.iter_mut().enumerate() {
            *a = _mm512_or_si512(*a, _mm512_and_si512(vec52::row(entry, j), m));
        }
    }
    for (j, a) in acc.iter().enumerate() {
        vec52::set_row(out, j, *a);
    }
}

/// `out = x - n` in the lanes where `x >= n`, else `x`, for normalised `x <= n`...`x < 2n`.
#[target_feature(enable = "avx512f")]
fn reduce_once<const D: usize>(x: &Mb8<D>, n: &Mb8<D>, out: &mut Mb8<D>) {
    let mask = _mm512_set1_epi64(radix52::DIGIT_MASK as i64);
    let mut borrow = _mm512_setzero_si512();
    let mut diff = [borrow; D];
    for (k, d) in diff.iter_mut().enumerate() {
        let t = _mm512_sub_epi64(_mm512_sub_epi64(vec52::row(x, k), vec52::row(n, k)), borrow);
        borrow = _mm512_srli_epi64::<63>(t);
        *d = _mm512_and_si512(t, mask);
    }
    // Keep x where the subtraction borrowed (x < n).
    let keep = _mm512_test_epi64_mask(borrow, borrow);
    for (k, d) in diff.iter().enumerate() {
        vec52::set_row(out, k, _mm512_mask_blend_epi64(keep, *d, vec52::row(x, k)));
    }
}
