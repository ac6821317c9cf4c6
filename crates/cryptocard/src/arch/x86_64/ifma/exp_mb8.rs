//! Eight independent modular exponentiations, one per lane of a `zmm` register (Intel
//! crypto_mb's `mbx_rsa_private_mb8` organisation).
//!
//! Each lane has its own modulus, base and exponent; only the digit count `D` is shared,
//! and exponents may differ in length (the longest sets the time of the batch). Lanes are
//! independent: an empty lane, or one whose inputs are invalid, computes on a harmless
//! dummy modulus (`n = 1`) and is reported in its [`LaneStatus`], and the other lanes are
//! unaffected.
//!
//! The data is transposed ([`Mb8`]): digit `k` of all eight lanes is one register. The
//! products run by column groups (`mb8_columns`) wherever a group width divides `D` (every even
//! RSA size: 10, 20, 30, 40, 60, 80 digits), with a few registers of accumulators whatever
//! the size. Otherwise, up to [`MB8_TRANSPOSED_MAX_DIGITS`] digits, they run by rows
//! (`amm`, `ams`): the accumulator of a product is `D` registers and a shift by one digit
//! is a renaming. Above that (odd digit counts only) the row accumulator no longer fits
//! the 32 registers and every step would spill it, which makes a product by rows several
//! times slower than an x2 pair's; there the batch runs as four x2 pairs.

use super::LaneStatus;
use super::amm::amm_mb8;
use super::ams::ams_mb8;
use super::exp_x2::{PairInputs, exp_pair};
use super::mb8_columns::{self, amm_mb8_ps, ams_mb8_ps};
use super::mb8_karatsuba::{amm_mb8_ks, ams_mb8_ks, ks_fits};
use super::radix52::{self, DIGIT_BITS, Params52};
use super::vec52::{self, Mb8, X2};
use super::window::{self, Exponents, Kernels};
use crate::Error;
use crate::arch::x86_64::cpu::Ifma;
use crate::arch::x86_64::radix::LaneDigits;
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// The largest digit count run transposed by rows; larger ones without a column-group
/// width run as x2 pairs (the row accumulator's `D` registers must fit the 32, see the
/// module docs).
pub const MB8_TRANSPOSED_MAX_DIGITS: usize = 32;

/// One lane's job: `out = base^exp mod modulus`.
///
/// `modulus` is odd with at most `52 D - 2` bits, `rr = 2^(2 * 52 * D) mod modulus`, and
/// `base` and `out` have exactly `modulus.len()` limbs, `base < modulus`. `exp` has any
/// length. Its `Debug` shows the lengths only: modulus, exponent and base may be secret.
#[cfg(any(test, feature = "hazmat"))]
pub struct Mb8Lane<'a> {
    pub(crate) modulus: &'a [u64],
    pub(crate) rr: &'a [u64],
    pub(crate) base: &'a [u64],
    pub(crate) exp: &'a [u64],
    pub(crate) out: &'a mut [u64],
}

#[cfg(any(test, feature = "hazmat"))]
impl core::fmt::Debug for Mb8Lane<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Mb8Lane")
            .field("limbs", &self.modulus.len())
            .field("exp_limbs", &self.exp.len())
            .finish_non_exhaustive()
    }
}

/// One lane's job on prepared parameters: `out = base^exp mod n`, `n` and `RR` given by
/// `params` (digits already converted, nothing about the modulus is checked again: the
/// constant-time path for secret moduli). `base` and `out` have `params.limbs()` limbs,
/// `base < n`; `exp` has any length.
pub(crate) struct Mb8PreparedLane<'a, const D: usize> {
    pub(crate) params: &'a Params52<D>,
    pub(crate) base: &'a [u64],
    pub(crate) exp: &'a [u64],
    pub(crate) out: &'a mut [u64],
}

/// A lane of a batch, whichever way its modulus comes: its digits, exponent and output.
pub(super) trait LaneInput<const D: usize> {
    /// The lane's digits in radix 2^52, or why its inputs break the contract.
    fn digits(&self) -> Result<LaneDigits<D, DIGIT_BITS>, Error>;
    fn exp(&self) -> &[u64];
    fn out(&mut self) -> &mut [u64];
}

#[cfg(any(test, feature = "hazmat"))]
impl<const D: usize> LaneInput<D> for Mb8Lane<'_> {
    /// Builds the parameters from the limbs: the `RR < n` check is variable-time in `n`.
    fn digits(&self) -> Result<LaneDigits<D, DIGIT_BITS>, Error> {
        let p = Params52::<D>::new(self.modulus, self.rr)?;
        LaneDigits::from_params(&p, self.base, self.out.len())
    }
    fn exp(&self) -> &[u64] {
        self.exp
    }
    fn out(&mut self) -> &mut [u64] {
        self.out
    }
}

impl<const D: usize> LaneInput<D> for Mb8PreparedLane<'_, D> {
    /// Constant-time in the modulus: only the base's conversion and its `base < n` check
    /// (which reveals that one bit) run here.
    fn digits(&self) -> Result<LaneDigits<D, DIGIT_BITS>, Error> {
        LaneDigits::from_params(self.params, self.base, self.out.len())
    }
    fn exp(&self) -> &[u64] {
        self.exp
    }
    fn out(&mut self) -> &mut [u64] {
        self.out
    }
}

/// Runs up to eight exponentiations at once, returning each lane's status. `None` lanes
/// are [`LaneStatus::Empty`] (nothing is written for them); a lane whose inputs break the
/// [`Mb8Lane`] contract is [`LaneStatus::Failed`] and its `out` is zero-filled; the others
/// are [`LaneStatus::Done`] with `out` fully reduced. Constant-time in bases and exponents
/// (the validity checks reveal only public facts: sizes, the modulus, and whether
/// `base < modulus`).
#[cfg(any(test, feature = "hazmat"))]
pub(crate) fn exp_mb8<const D: usize>(
    ifma: Ifma,
    lanes: [Option<Mb8Lane<'_>>; 8],
) -> [LaneStatus; 8] {
    exp_mb8_lanes::<D, _>(ifma, lanes, None)
}

/// [`exp_mb8`] on prepared parameters ([`Mb8PreparedLane`]): the entry point for secret
/// moduli, constant-time in them. Statuses as [`exp_mb8`].
pub(crate) fn exp_mb8_prepared<const D: usize>(
    ifma: Ifma,
    lanes: [Option<Mb8PreparedLane<'_, D>>; 8],
) -> [LaneStatus; 8] {
    exp_mb8_lanes::<D, _>(ifma, lanes, None)
}

/// [`exp_mb8_prepared`] with one public exponent `e` for every lane (the lanes' own `exp`
/// is not read): binary exponentiation, whose time follows `e` (`window::exp_public`), for
/// the RSA fault checks of a batch. Statuses as [`exp_mb8`].
pub(crate) fn exp_mb8_prepared_public<const D: usize>(
    ifma: Ifma,
    lanes: [Option<Mb8PreparedLane<'_, D>>; 8],
    e: &[u64],
) -> [LaneStatus; 8] {
    exp_mb8_lanes::<D, _>(ifma, lanes, Some(e))
}

/// The batch with each lane's exponent, or with the public exponent `public` in every
/// lane (which leaves the window width unused).
fn exp_mb8_lanes<const D: usize, L: LaneInput<D>>(
    ifma: Ifma,
    lanes: [Option<L>; 8],
    public: Option<&[u64]>,
) -> [LaneStatus; 8] {
    if const { transposed_fits::<D>() && D < FUSED_SELECT_MIN_DIGITS } {
        exp_mb8_with::<D, MB8_WINDOW, L>(ifma, lanes, public)
    } else {
        exp_mb8_with::<D, 5, L>(ifma, lanes, public)
    }
}

/// The digit count from which a window's table selection is spread over its squarings
/// (`Kernels::sqr_select`) rather than scanned on its own. A 32-entry table of 40 digits
/// is 80 KiB, read from the second-level cache at every window: alone, the scan is a
/// sizeable part of a batch, and spread over the squarings its loads hide behind the
/// products. At 30 digits the gain is small; at 20 and below the table is in or near the
/// first-level cache and the spread scan's extra loads cost more than they hide (tuned on
/// AMD Zen 4 with `crates/bench`'s `ifma -- fused`; rerun it to retune).
pub(crate) const FUSED_SELECT_MIN_DIGITS: usize = 30;

/// Window width of the transposed exponentiations below [`FUSED_SELECT_MIN_DIGITS`]: 4,
/// not 5, because the table of 16 entries (20 KiB at 20 digits) stays in the 32 KiB
/// first-level cache, where the 32 of a 5-bit window are read from the second level at
/// every window. From there up, with the selection spread over the squarings, windows
/// are 5 bits (x2 pairs too, `X2_WINDOW`). Tuned on AMD Zen 4 with `crates/bench`'s
/// `ifma -- windows`, which times both widths per digit count; rerun it to retune.
pub(crate) const MB8_WINDOW: usize = 4;

/// [`exp_mb8`] with windows of `W` bits.
#[cfg(any(test, feature = "hazmat"))]
pub(super) fn exp_mb8_window<const D: usize, const W: usize, L: LaneInput<D>>(
    ifma: Ifma,
    lanes: [Option<L>; 8],
) -> [LaneStatus; 8] {
    exp_mb8_with::<D, W, L>(ifma, lanes, None)
}

/// [`exp_mb8`] with windows of `W` bits and each lane's exponent, or with the public
/// exponent `public` for every lane.
fn exp_mb8_with<const D: usize, const W: usize, L: LaneInput<D>>(
    ifma: Ifma,
    mut lanes: [Option<L>; 8],
    public: Option<&[u64]>,
) -> [LaneStatus; 8] {
    let mut status = [LaneStatus::Empty; 8];
    let mut lane_digits = [LaneDigits::<D, DIGIT_BITS>::DUMMY; 8];
    for (l, slot) in lanes.iter_mut().enumerate() {
        let Some(lane) = slot else { continue };
        match lane.digits() {
            Ok(d) => {
                lane_digits[l] = d;
                status[l] = LaneStatus::Done;
            }
            Err(e) => {
                lane.out().fill(0);
                status[l] = LaneStatus::Failed(e);
            }
        }
    }
    let exps: [&[u64]; 8] = core::array::from_fn(|l| match (&lanes[l], status[l]) {
        (Some(lane), LaneStatus::Done) => lane.exp(),
        _ => &[][..],
    });
    let exps = match public {
        Some(e) => Exponents::Public(e),
        None => Exponents::Secret(exps),
    };
    let mut result = [[0u64; D]; 8];
    if const { transposed_fits::<D>() } {
        match const { mb8_columns::group_width(D) } {
            4 => transposed::<D, W, 4>(ifma, &lane_digits, exps, &mut result),
            6 => transposed::<D, W, 6>(ifma, &lane_digits, exps, &mut result),
            10 => transposed::<D, W, 10>(ifma, &lane_digits, exps, &mut result),
            _ => transposed::<D, W, 0>(ifma, &lane_digits, exps, &mut result),
        }
    } else {
        for p in 0..4 {
            let mut inp = PairInputs::<D>::default();
            for s in 0..2 {
                let d = &lane_digits[2 * p + s];
                inp.set(s, &d.n, &d.rr, &d.base, d.k0);
            }
            let mut out = X2::<D>::ZERO;
            let pair_exps = match exps {
                Exponents::Public(e) => Exponents::Public(e),
                Exponents::Secret(e) => Exponents::Secret([e[2 * p], e[2 * p + 1]]),
            };
            exp_pair::<D, W>(ifma, &inp, pair_exps, &mut out);
            for s in 0..2 {
                result[2 * p + s] = core::array::from_fn(|k| out.d[k][s]);
            }
            out.zeroize();
            inp.base.zeroize();
        }
    }
    for (l, slot) in lanes.iter_mut().enumerate() {
        if let (Some(lane), LaneStatus::Done) = (slot, status[l]) {
            let fits = radix52::from_radix52(lane.out(), &result[l]);
            assert!(fits.declassify(), "internal error: result does not fit the modulus");
        }
    }
    result.zeroize();
    for d in lane_digits.iter_mut() {
        d.base.zeroize();
    }
    status
}

/// Whether the batch runs transposed: by column groups where a width fits `D`
/// (`mb8_columns::group_width`), else by rows up to [`MB8_TRANSPOSED_MAX_DIGITS`].
const fn transposed_fits<const D: usize>() -> bool {
    mb8_columns::group_width(D) != 0 || D <= MB8_TRANSPOSED_MAX_DIGITS
}

/// The batch in the transposed layout, by column groups of `G` (`G = 0`: by rows);
/// `result[l]` gets lane `l`'s reduced digits.
fn transposed<const D: usize, const W: usize, const G: usize>(
    ifma: Ifma,
    lanes: &[LaneDigits<D, DIGIT_BITS>; 8],
    exps: Exponents<'_, 8>,
    result: &mut [[u64; D]; 8],
) {
    let (mut n, mut rr, mut base) = (Mb8::<D>::ZERO, Mb8::<D>::ZERO, Mb8::<D>::ZERO);
    for (l, d) in lanes.iter().enumerate() {
        for k in 0..D {
            (n.0[k][l], rr.0[k][l], base.0[k][l]) = (d.n[k], d.rr[k], d.base[k]);
        }
    }
    let mut k = Mb8Kernels::<D, G>::new(ifma, &n, lanes.map(|d| d.k0));
    let mut out = Mb8::<D>::ZERO;
    exps.run::<_, W>(&mut k, &base, &rr, &mut out);
    k.scrub();
    for (l, r) in result.iter_mut().enumerate() {
        *r = core::array::from_fn(|j| out.0[j][l]);
        radix52::reduce_once(r, &lanes[l].n);
    }
    out.zeroize();
    base.zeroize();
}

/// The transposed products bound to eight moduli, by column groups of `G` (0: by rows).
struct Mb8Kernels<'a, const D: usize, const G: usize> {
    _ifma: Ifma,
    n: &'a Mb8<D>,
    k0: [u64; 8],
    /// `2a` of the squarings by rows (`ams_mb8`).
    a2: Mb8<D>,
    /// The quotient digits of the column-group products.
    y: Mb8<D>,
    /// The Karatsuba squaring's columns and difference (`mb8_karatsuba`).
    ks: [Mb8<D>; 3],
    /// The selection masks of a window spread over its squarings: lane `l` of entry `k`
    /// is all ones where `idx[l] = k`.
    masks: [[u64; 8]; window::TABLE],
}

impl<'a, const D: usize, const G: usize> Mb8Kernels<'a, D, G> {
    fn new(ifma: Ifma, n: &'a Mb8<D>, k0: [u64; 8]) -> Self {
        Mb8Kernels {
            _ifma: ifma,
            n,
            k0,
            a2: Mb8::ZERO,
            y: Mb8::ZERO,
            ks: [Mb8::ZERO, Mb8::ZERO, Mb8::ZERO],
            masks: [[0; 8]; window::TABLE],
        }
    }

    /// Zeroizes the scratch (secret: digits of the operands and quotients).
    fn scrub(&mut self) {
        self.a2.zeroize();
        self.y.zeroize();
        self.ks.zeroize();
        self.masks.zeroize();
    }
}

/// `out = amm(a, b)` for eight lanes with moduli `n` (normalised digits below `2n`, as
/// `amm::amm_mb8`), on the kernel the exponentiations use at `D`: one product outside an
/// exponentiation (`mont_mb8`), with only the scratch that kernel needs.
pub(super) fn amm_mb8_once<const D: usize>(
    ifma: Ifma,
    a: &Mb8<D>,
    b: &Mb8<D>,
    (n, k0): (&Mb8<D>, &[u64; 8]),
    out: &mut Mb8<D>,
) {
    let mut y = Mb8::ZERO;
    let mut ks = [Mb8::ZERO, Mb8::ZERO, Mb8::ZERO];
    let scratch = (&mut y, &mut ks);
    match const { mb8_columns::group_width(D) } {
        4 => mul_groups::<D, 4>(ifma, (n, k0), scratch, a, b, out),
        6 => mul_groups::<D, 6>(ifma, (n, k0), scratch, a, b, out),
        10 => mul_groups::<D, 10>(ifma, (n, k0), scratch, a, b, out),
        _ => mul_groups::<D, 0>(ifma, (n, k0), scratch, a, b, out),
    }
    y.wipe();
    ks.iter_mut().for_each(Mb8::wipe);
}

impl<const D: usize, const G: usize> Kernels for Mb8Kernels<'_, D, G> {
    type Num = Mb8<D>;
    const LANES: usize = 8;

    fn zero(&self) -> Mb8<D> {
        Mb8::ZERO
    }

    fn one(&self) -> Mb8<D> {
        let mut one = Mb8::ZERO;
        one.0[0] = [1; 8];
        one
    }

    fn mul(&mut self, a: &Mb8<D>, b: &Mb8<D>, out: &mut Mb8<D>) {
        let scratch = (&mut self.y, &mut self.ks);
        mul_groups::<D, G>(self._ifma, (self.n, &self.k0), scratch, a, b, out);
    }

    fn sqr(&mut self, a: &Mb8<D>, out: &mut Mb8<D>) {
        if const { G == 0 } {
            // SAFETY: as in `mul`.
            unsafe { ams_mb8(a, self.n, &self.k0, out, &mut self.a2) }
        } else {
            let scratch = (&mut self.y, &mut self.ks);
            sqr_groups::<D, G>(self._ifma, (self.n, &self.k0), scratch, a, out, || {});
        }
    }

    fn select(&self, table: &[Mb8<D>], idx: &[u64; 8], out: &mut Mb8<D>) {
        // SAFETY: as in `mul`.
        unsafe { select_mb8(table, idx, out) }
    }

    /// By column groups from [`FUSED_SELECT_MIN_DIGITS`] up, the selection's rows are
    /// read two at a time between the groups of the squarings (`ceil(D / parts)` rows per
    /// squaring, spread evenly over its groups), where their loads and masking overlap the
    /// multiplications.
    fn sqr_select(
        &mut self,
        a: &Mb8<D>,
        out: &mut Mb8<D>,
        table: &[Mb8<D>],
        idx: &[u64; 8],
        t: &mut Mb8<D>,
        part: usize,
        parts: usize,
    ) {
        if const { G == 0 || D < FUSED_SELECT_MIN_DIGITS } {
            self.sqr(a, out);
            if part + 1 == parts {
                self.select(table, idx, t);
            }
            return;
        }
        if part == 0 {
            // SAFETY: as in `mul`.
            unsafe { select_masks(idx, &mut self.masks) };
        }
        let per_part = D.div_ceil(parts);
        let (first, end) = (part * per_part, D.min((part + 1) * per_part));
        let masks = &self.masks;
        // Spread evenly over the 2D / G groups, in pairs of rows.
        let (mut next, mut calls, groups) = (first, 0, 2 * D / G);
        let mut side = || {
            calls += 1;
            let due = first + (end - first) * calls / groups;
            while next < end && next < due {
                // SAFETY: as in `mul`.
                unsafe { select_rows(table, masks, t, next) };
                next += 2;
            }
        };
        let scratch = (&mut self.y, &mut self.ks);
        sqr_groups::<D, G>(self._ifma, (self.n, &self.k0), scratch, a, out, &mut side);
        while next < end {
            // SAFETY: as in `mul`.
            unsafe { select_rows(table, masks, t, next) };
            next += 2;
        }
    }
}

/// The product by column groups of `G` (0: by rows) for [`Mb8Kernels`] (its moduli, `k0`
/// and scratch): a Karatsuba product where its halves are whole groups (`ks_fits`; among
/// the classes, 40 digits with groups of 4, where it beats the plain column groups:
/// `crates/bench`, `ifma -- products40`), else `amm_mb8_ps`.
fn mul_groups<const D: usize, const G: usize>(
    ifma: Ifma,
    (n, k0): (&Mb8<D>, &[u64; 8]),
    (y, ks): (&mut Mb8<D>, &mut [Mb8<D>; 3]),
    a: &Mb8<D>,
    b: &Mb8<D>,
    out: &mut Mb8<D>,
) {
    let _ = ifma;
    if const { G == 0 } {
        // SAFETY: `ifma` proves the CPU has the features `amm_mb8` enables.
        unsafe { amm_mb8(a, b, n, k0, out) }
    } else if const { ks_fits::<D, G>() } {
        // SAFETY: as above, for `amm_mb8_ks`.
        unsafe { amm_mb8_ks::<D, G>(a, b, n, k0, out, y, ks) }
    } else {
        // SAFETY: as above, for `amm_mb8_ps`.
        unsafe { amm_mb8_ps::<D, G>(a, b, n, k0, out, y) }
    }
}

/// The squaring by column groups of `G > 0` for [`Mb8Kernels`] (its moduli, `k0` and
/// scratch), with `side` between the groups: with a Karatsuba square where its halves are
/// whole groups (`ks_fits`; among the classes, 40 digits with groups of 4, where it beats
/// the plain column groups: `crates/bench`, `ifma -- products40`), else `ams_mb8_ps`.
fn sqr_groups<const D: usize, const G: usize>(
    ifma: Ifma,
    (n, k0): (&Mb8<D>, &[u64; 8]),
    (y, ks): (&mut Mb8<D>, &mut [Mb8<D>; 3]),
    a: &Mb8<D>,
    out: &mut Mb8<D>,
    side: impl FnMut(),
) {
    let _ = ifma;
    if const { ks_fits::<D, G>() } {
        // SAFETY: `ifma` proves the CPU has the features `ams_mb8_ks` enables.
        unsafe { ams_mb8_ks::<D, G>(a, n, k0, out, y, ks, side) }
    } else {
        // SAFETY: as above, for `ams_mb8_ps`.
        unsafe { ams_mb8_ps::<D, G>(a, n, k0, out, y, side) }
    }
}

/// `masks[k]` = all ones in the lanes `l` where `idx[l] = k`, zero elsewhere.
#[target_feature(enable = "avx512f")]
fn select_masks(idx: &[u64; 8], masks: &mut [[u64; 8]]) {
    let idx = vec52::load8(idx);
    for (k, m) in masks.iter_mut().enumerate() {
        let hit = _mm512_cmpeq_epi64_mask(idx, _mm512_set1_epi64(k as i64));
        let v = _mm512_maskz_mov_epi64(hit, _mm512_set1_epi64(-1));
        // SAFETY: `m` is 64 writable bytes; the store is unaligned.
        unsafe { _mm512_storeu_si512(m.as_mut_ptr().cast(), v) };
    }
}

/// Rows `j` and `j + 1` (if below `D`) of `out = table[idx]`, with `masks[k]` all ones in
/// the lanes where `idx = k`: every entry's rows are read and masked.
#[target_feature(enable = "avx512f")]
pub(super) fn select_rows<const D: usize>(
    table: &[Mb8<D>],
    masks: &[[u64; 8]],
    out: &mut Mb8<D>,
    j: usize,
) {
    let j1 = (j + 1).min(D - 1);
    let (mut acc0, mut acc1) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    for (entry, m) in table.iter().zip(masks) {
        let m = vec52::load8(m);
        // acc | (entry & m)
        acc0 = _mm512_ternarylogic_epi64::<0xf8>(acc0, vec52::row(entry, j), m);
        acc1 = _mm512_ternarylogic_epi64::<0xf8>(acc1, vec52::row(entry, j1), m);
    }
    vec52::set_row(out, j, acc0);
    vec52::set_row(out, j1, acc1);
}

/// `out = table[idx[l]]` lane by lane, by a masked scan of the whole table.
#[target_feature(enable = "avx512f")]
pub(super) fn select_mb8<const D: usize>(table: &[Mb8<D>], idx: &[u64; 8], out: &mut Mb8<D>) {
    let idx = vec52::load8(idx);
    let zero = _mm512_setzero_si512();
    let mut acc = [zero; D];
    for (k, entry) in table.iter().enumerate() {
        let hit = _mm512_cmpeq_epi64_mask(idx, _mm512_set1_epi64(k as i64));
        // The mask as an opaque vector: left visible, LLVM folds it into a masked `vporq`
        // with a memory operand, a data path that depends on the secret index.
        let m = vec52::opaque(_mm512_maskz_mov_epi64(hit, _mm512_set1_epi64(-1)));
        unroll!(j in 0..D => {
            acc[j] = _mm512_or_si512(acc[j], _mm512_and_si512(vec52::row(entry, j), m));
        });
    }
    unroll!(j in 0..D => {
        vec52::set_row(out, j, acc[j]);
    });
}
