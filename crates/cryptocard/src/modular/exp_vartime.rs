//! Variable-time modular exponentiation, for public exponents (RSA's e, signature
//! verification, Miller-Rabin on a candidate that is discarded or made public).
//!
//! * [`Modulus::pow_vartime`]: left-to-right sliding windows over odd powers (Koç,
//!   "Analysis of sliding window techniques for exponentiation", 1995, as used by
//!   Markovic et al.). Zero bits cost one squaring and nothing else; each window is a
//!   run of at most w bits that starts and ends with a 1, so it costs one product with
//!   base^odd. Precomputation is base^2 and the 2^(w-1) odd powers; on average about
//!   L/(w+1) multiplications for an L-bit exponent.
//! * [`Modulus::pow_binary_vartime`]: left-to-right binary, square and multiply (the
//!   method of Tang, Tsui and Leong's exponentiation unit): L - 1 squarings and one
//!   multiplication per 1 bit after the first. Best for e = 65537 (16 squarings, one
//!   product) and kept as the baseline the others are measured against.
//!
//! Both leak the exponent through their timing (its bit length, and which bits are set)
//! and nothing about the base or the modulus beyond their lengths.

use super::elem::{Elem, Mont};
use super::kernel::{MontKernel, with_kernel};
use super::modulus::Modulus;
use super::mont::{Finish, normalize};
use crate::bignum::{Limb, Nat};
use zeroize::Zeroizing;

/// Sliding-window sizes by exponent bit length (thresholds of the form "more than
/// this many bits"); the classic table (OpenSSL's `BN_window_bits_for_exponent_size`).
/// `crates/bench`'s `modexp -- speed` times [`Modulus::pow_vartime`] beside the other
/// exponentiation forms.
pub const VARTIME_WINDOW_THRESHOLDS: [(usize, usize); 4] = [(671, 6), (239, 5), (79, 4), (23, 3)];

/// The sliding window for an exponent of `bits` bits.
pub fn vartime_window_bits(bits: usize) -> usize {
    VARTIME_WINDOW_THRESHOLDS.iter().find(|&&(t, _)| bits > t).map_or(1, |&(_, w)| w)
}

impl<M> Modulus<M> {
    /// base^exp mod n by sliding windows. Variable time: leaks `exp` (which must be
    /// public), not the base.
    pub fn pow_vartime(&self, base: &Elem<M, Mont>, exp: &Nat) -> Elem<M, Mont> {
        self.pow_vartime_with(base, exp, vartime_window_bits(exp.bits()), false)
    }

    /// base^exp mod n by left-to-right binary square-and-multiply. Variable time: leaks
    /// `exp` (which must be public), not the base.
    pub fn pow_binary_vartime(&self, base: &Elem<M, Mont>, exp: &Nat) -> Elem<M, Mont> {
        self.pow_vartime_with(base, exp, 1, true)
    }

    fn pow_vartime_with(
        &self,
        base: &Elem<M, Mont>,
        exp: &Nat,
        w: usize,
        binary: bool,
    ) -> Elem<M, Mont> {
        assert_eq!(base.limbs.len(), self.limbs(), "internal error: element of another modulus");
        let mut out = self.one::<Mont>();
        if exp.is_zero() {
            return out;
        }
        let finish = Finish::for_size(self.bits(), self.limbs());
        let ctx = Ctx { n: &self.n, n0: self.n0, finish };
        with_kernel!(self.kernels, |kern| if binary {
            binary_ltr(kern, &ctx, &base.limbs, exp, &mut out.limbs)
        } else {
            sliding(kern, &ctx, &base.limbs, exp, w, &mut out.limbs)
        });
        normalize(&mut out.limbs, &self.n, finish.bound_multiple());
        out
    }
}

struct Ctx<'a> {
    n: &'a [Limb],
    n0: Limb,
    finish: Finish,
}

impl Ctx<'_> {
    /// acc <- acc^2, through `tmp`.
    #[inline(always)]
    fn sqr<K: MontKernel>(&self, kern: K, acc: &mut [Limb], tmp: &mut [Limb]) {
        let c = kern.sqr(tmp, acc, self.n, self.n0);
        self.finish.apply(tmp, c, self.n);
        acc.copy_from_slice(tmp);
    }

    /// acc <- acc * b, through `tmp`.
    #[inline(always)]
    fn mul<K: MontKernel>(&self, kern: K, acc: &mut [Limb], b: &[Limb], tmp: &mut [Limb]) {
        let c = kern.mul(tmp, acc, b, self.n, self.n0);
        self.finish.apply(tmp, c, self.n);
        acc.copy_from_slice(tmp);
    }
}

/// out = base^exp, exp > 0, left to right, one bit at a time.
fn binary_ltr<K: MontKernel>(kern: K, ctx: &Ctx<'_>, base: &[Limb], exp: &Nat, out: &mut [Limb]) {
    // The exponent is public, the base may not be (the fault check's m, a blinding
    // factor): every buffer that holds a power of it is wiped when dropped.
    let mut tmp = Zeroizing::new(vec![0; base.len()]);
    out.copy_from_slice(base);
    for i in (0..exp.bits() - 1).rev() {
        ctx.sqr(kern, out, &mut tmp);
        if exp.bit(i) {
            ctx.mul(kern, out, base, &mut tmp);
        }
    }
}

/// out = base^exp, exp > 0, by left-to-right sliding windows of at most `w` bits.
fn sliding<K: MontKernel>(
    kern: K,
    ctx: &Ctx<'_>,
    base: &[Limb],
    exp: &Nat,
    w: usize,
    out: &mut [Limb],
) {
    let k = base.len();
    let odd = 1usize << (w - 1);
    // table[i] = base^(2i+1); base^2 in `sq`.
    // Wiped when dropped, as in `binary_ltr`.
    let mut table = Zeroizing::new(vec![0 as Limb; odd * k]);
    let mut sq = Zeroizing::new(vec![0; k]);
    let mut tmp = Zeroizing::new(vec![0; k]);
    table[..k].copy_from_slice(base);
    if odd > 1 {
        sq.copy_from_slice(base);
        ctx.sqr(kern, &mut sq, &mut tmp);
        for i in 1..odd {
            let (done, next) = table.split_at_mut(i * k);
            let c = kern.mul(&mut next[..k], &done[(i - 1) * k..], &sq, ctx.n, ctx.n0);
            ctx.finish.apply(&mut next[..k], c, ctx.n);
        }
    }
    let mut started = false;
    let mut i = exp.bits();
    while i > 0 {
        let top = i - 1;
        if !exp.bit(top) {
            ctx.sqr(kern, out, &mut tmp);
            i -= 1;
            continue;
        }
        // The longest run top..=low of at most w bits that ends in a 1.
        let mut low = (top + 1).saturating_sub(w);
        while !exp.bit(low) {
            low += 1;
        }
        let value = (low..=top).rev().fold(0usize, |v, b| (v << 1) | exp.bit(b) as usize);
        let entry = &table[(value >> 1) * k..(value >> 1) * k + k];
        if started {
            for _ in low..=top {
                ctx.sqr(kern, out, &mut tmp);
            }
            ctx.mul(kern, out, entry, &mut tmp);
        } else {
            out.copy_from_slice(entry);
            started = true;
        }
        i = low;
    }
}
