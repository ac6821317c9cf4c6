//! Constant-time fixed-window exponentiation over almost-Montgomery products, shared by
//! the x2 and mb8 layouts.
//!
//! Left to right with windows of `W` bits (Kaliski's "k-ary" method; `W` is 5 for x2 and
//! 4 for transposed mb8, tuned per layout): a table of `x^0 .. x^(2^W - 1)` in Montgomery
//! form (the even entries by squaring), then per window `W` squarings and one
//! multiplication by the table entry the window selects.
//! The entry is read by a masked scan of the whole table, so neither branches nor memory
//! addresses depend on the exponent. Every lane runs the same number of windows, set by
//! the longest exponent slice (a public length); a shorter exponent is read as if padded
//! with zeros, which selects `x^0` (Montgomery one) and leaves the result unchanged.
//!
//! Values stay below `2n` throughout (almost-Montgomery, never reduced): `amm(x, y) < 2n`
//! for `x, y < 2n` when `4n < R`. The last product, by plain 1, leaves Montgomery form and
//! lands in `[0, n]`; the caller reduces it once.

use super::window_bits;
use zeroize::Zeroize;

/// The widest window, in bits; each layout picks its own width up to this.
pub(crate) const MAX_WINDOW: usize = 5;
/// Entries of the largest power table.
pub(crate) const TABLE: usize = 1 << MAX_WINDOW;

/// The exponents of a layout's `L` lanes: one secret exponent per lane (fixed window,
/// [`exp`]), or one public exponent for all (binary, [`exp_public`]: the RSA fault check).
#[derive(Clone, Copy)]
pub(crate) enum Exponents<'a, const L: usize> {
    Secret([&'a [u64]; L]),
    Public(&'a [u64]),
}

impl<const L: usize> Exponents<'_, L> {
    /// [`exp`] with windows of `W` bits or [`exp_public`], as the exponents are.
    pub(crate) fn run<K: Kernels, const W: usize>(
        self,
        k: &mut K,
        base: &K::Num,
        rr: &K::Num,
        out: &mut K::Num,
    ) {
        match self {
            Exponents::Secret(e) => exp::<_, W>(k, base, rr, &e, out),
            Exponents::Public(e) => exp_public(k, base, rr, e, out),
        }
    }
}

/// The products of one layout, bound to its moduli.
pub(crate) trait Kernels {
    /// The layout's numbers (all lanes).
    type Num: Clone + Zeroize;
    /// Lanes (independent exponents).
    const LANES: usize;
    /// Zero in every lane.
    fn zero(&self) -> Self::Num;
    /// The plain number 1 in every lane.
    fn one(&self) -> Self::Num;
    /// `out = amm(a, b)`.
    fn mul(&mut self, a: &Self::Num, b: &Self::Num, out: &mut Self::Num);
    /// `out = amm(a, a)`.
    fn sqr(&mut self, a: &Self::Num, out: &mut Self::Num);
    /// `out = table[idx[l]]` in lane `l`, reading every entry of `table` (sealed, see
    /// [`Kernels::seal_table`]). `out` is a kernel operand (the first window's select
    /// goes straight to the accumulator, which is then squared): a layout whose select
    /// leaves packed rows (mb4: digit 2k+1 in row 2k's high half) must have kernels that
    /// read operands only through 32-bit multiplies, as `amm_mb4`/`ams_mb4` do.
    fn select(&self, table: &[Self::Num], idx: &[u64; 8], out: &mut Self::Num);
    /// Called once the power table is complete, before any [`Kernels::select`] from it: a
    /// layout may rewrite the entries into the form its scan reads (by default they stay
    /// as they are).
    fn seal_table(&mut self, _table: &mut [Self::Num]) {}
    /// `out = amm(a, a)` and part `part` of `parts` of `select(table, idx, t)`: a layout
    /// may spread a window's selection over its squarings, where it runs in their shadow;
    /// the selection is complete after part `parts - 1`. By default the whole selection
    /// is the last part.
    #[allow(clippy::too_many_arguments)]
    fn sqr_select(
        &mut self,
        a: &Self::Num,
        out: &mut Self::Num,
        table: &[Self::Num],
        idx: &[u64; 8],
        t: &mut Self::Num,
        part: usize,
        parts: usize,
    ) {
        self.sqr(a, out);
        if part + 1 == parts {
            self.select(table, idx, t);
        }
    }
}

/// `out = x^e mod n` in every lane, in `[0, n]` (`n` itself standing for 0), given
/// `base = x < n` and `rr = R^2 mod n` (digits normalised), with windows of `W` bits
/// (`1 <= W <= MAX_WINDOW`); `exps[l]` is lane `l`'s exponent, `exps.len() == K::LANES`.
pub(crate) fn exp<K: Kernels, const W: usize>(
    k: &mut K,
    base: &K::Num,
    rr: &K::Num,
    exps: &[&[u64]],
    out: &mut K::Num,
) {
    assert_eq!(exps.len(), K::LANES, "internal error: one exponent per lane");
    const { assert!(W >= 1 && W <= MAX_WINDOW, "internal error: window width") };
    let one = k.one();
    let mut table: [K::Num; TABLE] = core::array::from_fn(|_| k.zero());
    let table = &mut table[..1 << W];
    // table[0] = R mod n, table[1] = x R mod n, table[j] = x^j R mod n.
    k.mul(rr, &one, &mut table[0]);
    k.mul(base, rr, &mut table[1]);
    for j in 2..1 << W {
        let (done, rest) = table.split_at_mut(j);
        if j.is_multiple_of(2) {
            k.sqr(&done[j / 2], &mut rest[0]);
        } else {
            k.mul(&done[j - 1], &done[1], &mut rest[0]);
        }
    }

    let bits = exps.iter().map(|e| 64 * e.len()).max().unwrap_or(0);
    let windows = bits.div_ceil(W);
    let (mut x, mut y, mut t) = (k.zero(), k.zero(), k.zero());
    let mut idx = [0u64; 8];
    let (mut acc, mut spare) = (&mut x, &mut y);
    acc.clone_from(&table[0]);
    k.seal_table(table);
    for w in (0..windows).rev() {
        for (i, e) in idx.iter_mut().zip(exps) {
            *i = window_bits(e, W * w, W);
        }
        if w + 1 == windows {
            k.select(table, &idx, acc);
            continue;
        }
        for s in 0..W {
            k.sqr_select(acc, spare, table, &idx, &mut t, s, W);
            core::mem::swap(&mut acc, &mut spare);
        }
        k.mul(acc, &t, spare);
        core::mem::swap(&mut acc, &mut spare);
    }
    // amm(acc, 1) = acc / R mod n, at most n since acc < 2n < R.
    k.mul(acc, &one, out);

    for e in table.iter_mut() {
        e.zeroize();
    }
    x.zeroize();
    y.zeroize();
    t.zeroize();
    idx.zeroize();
}

/// `out = x^e mod n` in every lane for one public exponent `e` shared by the lanes, in
/// `[0, n]` like [`exp`], by left-to-right binary exponentiation: a squaring per bit below
/// the top one and a multiplication per set bit (17 products for e = 65537, against a
/// table of `2^W` entries and a fixed window's worth of work for [`exp`]). For the RSA
/// fault check, whose exponent is public: branches depend on `e`'s bits, nothing on `x`.
pub(crate) fn exp_public<K: Kernels>(
    k: &mut K,
    base: &K::Num,
    rr: &K::Num,
    e: &[u64],
    out: &mut K::Num,
) {
    let one = k.one();
    let bits = crate::limb::bit_length(e);
    let (mut xm, mut x, mut y) = (k.zero(), k.zero(), k.zero());
    if bits == 0 {
        // x^0 = 1: R mod n, out of Montgomery form below.
        k.mul(rr, &one, &mut x);
    } else {
        k.mul(base, rr, &mut xm);
        x.clone_from(&xm);
    }
    let (mut acc, mut spare) = (&mut x, &mut y);
    for i in (0..bits.saturating_sub(1)).rev() {
        k.sqr(acc, spare);
        core::mem::swap(&mut acc, &mut spare);
        if (e[i / 64] >> (i % 64)) & 1 == 1 {
            k.mul(acc, &xm, spare);
            core::mem::swap(&mut acc, &mut spare);
        }
    }
    k.mul(acc, &one, out);
    xm.zeroize();
    x.zeroize();
    y.zeroize();
}
