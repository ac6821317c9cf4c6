//! Constant-time modular exponentiation: the fixed-window (2^w-ary) method.
//!
//! Kaliski's "quaternary" method reads the exponent two bits at a time; the 2^w-ary
//! method generalises it to w bits: precompute base^0 .. base^(2^w - 1), then for each
//! w-bit digit d of the exponent, from the top, square w times and multiply by base^d.
//! For an L-bit exponent that is L squarings, L/w multiplications and 2^w - 2 table
//! products. The window trades the table (grows as 2^w) against the multiplications
//! (shrink as L/w); with the full-table scan below, each multiplication also reads
//! every table entry (2^w k limbs, a sizeable fraction of a product even with the AVX2
//! scan), so the best w grows slowly with L (see [`ct_window_bits`]: 5 for 1024-bit
//! exponents, 6 from 1536).
//!
//! What makes it constant time:
//!
//! * every digit costs the same w squarings and one multiplication, including zero
//!   digits (multiplying by base^0 = 1);
//! * the table entry is read by a masked scan of the whole table
//!   ([`crate::ct::select_from_table`]): no memory address depends on the digit;
//! * the number of digits depends only on the exponent's limb length, which is the
//!   public length: leading zero digits are processed like any other;
//! * Montgomery products finish without branches: "almost Montgomery" (subtract n when
//!   the carry is set) or, when the modulus has two bits of headroom, no subtraction at
//!   all, staying in [0, 2n) (see [`super::mont`]); one normalisation at the end.
//!
//! The table is one contiguous buffer together with the accumulators and the kernels'
//! scratch, on the stack up to 4096-bit moduli (heap above), wiped afterwards; the loop
//! allocates nothing and squarings use the dedicated kernel.

use super::elem::{Elem, Mont};
use super::kernel::{MontKernel, with_kernel};
use super::modulus::Modulus;
use super::mont::{Finish, normalize};
use crate::bignum::{LIMB_BITS, Limb, Nat};
use crate::{Error, Result};
use zeroize::Zeroize;

/// The largest window [`Modulus::pow_kary`] accepts (a 128-entry table).
pub const MAX_WINDOW: usize = 7;

/// Exponents of at least this many bits use a 5-bit window, below it 4 (3 up to 32
/// bits). Tuned on AMD Zen 4 with the ADX chain kernels and the AVX2 table scan, where 5
/// bits is the fastest at 1024 bits by a small margin; a cheaper scan or costlier
/// products move the cut-over down, a costlier scan up. To retune, run `WINDOWS=1 cargo
/// bench -p cryptocard-bench --bench modexp -- cycles` (`crates/bench`), which times
/// windows 4, 5 and 6 interleaved with full-length exponents.
pub const CT_WINDOW_5_MIN_BITS: usize = 1024;
/// Exponents of at least this many bits use a 6-bit window, the fastest from 1536 to 4096
/// bits on the machine and benchmark above. (A 7-bit table of 4096-bit entries, 64 KiB,
/// no longer fits the 32 KiB L1 its scan reads.)
pub const CT_WINDOW_6_MIN_BITS: usize = 1536;

/// The window [`Modulus::pow`] uses for an exponent of `bits` (public) bits.
pub fn ct_window_bits(bits: usize) -> usize {
    if bits >= CT_WINDOW_6_MIN_BITS {
        6
    } else if bits >= CT_WINDOW_5_MIN_BITS {
        5
    } else if bits > 32 {
        4
    } else {
        3
    }
}

impl<M> Modulus<M> {
    /// base^exp mod n in constant time: fixed window of `ct_window_bits` bits. Leaks
    /// the limb length of `exp` (its public length), nothing else about it or the base.
    pub fn pow(&self, base: &Elem<M, Mont>, exp: &Nat) -> Elem<M, Mont> {
        let window = ct_window_bits(exp.limb_len() * LIMB_BITS);
        self.pow_window(base, exp.as_limbs(), window)
    }

    /// base^exp mod n in constant time by the 2^w-ary method with a caller-chosen window
    /// `1 <= window <= MAX_WINDOW` (w = 1 is square-and-always-multiply, w = 2 Kaliski's
    /// quaternary method). Leaks what [`Modulus::pow`] leaks.
    pub fn pow_kary(
        &self,
        base: &Elem<M, Mont>,
        exp: &Nat,
        window: usize,
    ) -> Result<Elem<M, Mont>> {
        if !(1..=MAX_WINDOW).contains(&window) {
            return Err(Error::InvalidArgument("window must be 1 to 7 bits"));
        }
        Ok(self.pow_window(base, exp.as_limbs(), window))
    }

    /// base^exp for an exponent given as limbs of public length.
    pub(crate) fn pow_window(&self, base: &Elem<M, Mont>, exp: &[Limb], w: usize) -> Elem<M, Mont> {
        assert_eq!(base.limbs.len(), self.limbs(), "internal error: element of another modulus");
        let mut out = self.one::<Mont>();
        let finish = Finish::for_size(self.bits(), self.limbs());
        with_kernel!(self.kernels, |kern| fixed_window(
            kern,
            &self.n,
            self.n0,
            &self.one,
            &base.limbs,
            exp,
            w,
            finish,
            &mut out.limbs
        ));
        out
    }
}

/// The w-bit digit of `exp` at bit `pos` (bits beyond the exponent read as 0). Branches
/// and indices depend only on `pos` and `w`, which are public.
#[inline]
fn digit(exp: &[Limb], pos: usize, w: usize) -> usize {
    let (i, s) = (pos / LIMB_BITS, pos % LIMB_BITS);
    let mut v = exp[i] >> s;
    if s + w > LIMB_BITS && i + 1 < exp.len() {
        v |= exp[i + 1] << (LIMB_BITS - s);
    }
    (v & ((1 << w) - 1)) as usize
}

/// out = base^exp (Montgomery form, fully reduced) for `base < n`, `one = R mod n`.
#[allow(clippy::too_many_arguments)]
fn fixed_window<K: MontKernel>(
    kern: K,
    n: &[Limb],
    n0: Limb,
    one: &[Limb],
    base: &[Limb],
    exp: &[Limb],
    w: usize,
    finish: Finish,
    out: &mut [Limb],
) {
    let k = n.len();
    let bits = exp.len() * LIMB_BITS;
    if bits == 0 {
        out.copy_from_slice(one);
        return;
    }
    let entries = 1 << w;
    // One buffer: the table, the accumulator, the selected entry and the kernels' scratch;
    // on the stack up to 4096-bit moduli with 6-bit windows (36 KiB), so that an
    // exponentiation allocates nothing but its result.
    let len = (entries + 2) * k + kern.chain_scratch_len(k);
    match len {
        0..=1024 => with_stack_buffer::<1024>(len, |b| {
            window_loop(kern, n, n0, one, base, exp, w, finish, out, b)
        }),
        1025..=4096 => with_stack_buffer::<4096>(len, |b| {
            window_loop(kern, n, n0, one, base, exp, w, finish, out, b)
        }),
        4097..=STACK_LIMBS => with_stack_buffer::<STACK_LIMBS>(len, |b| {
            window_loop(kern, n, n0, one, base, exp, w, finish, out, b)
        }),
        _ => {
            let mut buf = vec![0 as Limb; len];
            window_loop(kern, n, n0, one, base, exp, w, finish, out, &mut buf);
            buf.zeroize();
        }
    }
}

/// The largest exponentiation buffer kept on the stack, in limbs: the 64-entry table,
/// accumulator, entry and chain scratch of a 64-limb modulus.
const STACK_LIMBS: usize = 66 * 64 + 4 * 64 + 2;

/// Runs `f` on a zeroed stack buffer of `len <= N` limbs and wipes it afterwards.
#[inline(always)]
fn with_stack_buffer<const N: usize>(len: usize, f: impl FnOnce(&mut [Limb])) {
    let mut b = [0 as Limb; N];
    f(&mut b[..len]);
    b[..len].zeroize();
}

/// The body of [`fixed_window`] on its buffer (`buf.len()` is exactly
/// `(2^w + 2) k + chain_scratch_len(k)`); the caller wipes the buffer.
#[allow(clippy::too_many_arguments)]
fn window_loop<K: MontKernel>(
    kern: K,
    n: &[Limb],
    n0: Limb,
    one: &[Limb],
    base: &[Limb],
    exp: &[Limb],
    w: usize,
    finish: Finish,
    out: &mut [Limb],
    buf: &mut [Limb],
) {
    let k = n.len();
    let bits = exp.len() * LIMB_BITS;
    let entries = 1 << w;
    let (table, rest) = buf.split_at_mut(entries * k);
    let (acc, rest) = rest.split_at_mut(k);
    let (sel, scratch) = rest.split_at_mut(k);

    // table[i] = base^i: even entries by squaring, odd ones by one more product.
    table[..k].copy_from_slice(one);
    if entries > 1 {
        table[k..2 * k].copy_from_slice(base);
    }
    for i in 2..entries {
        let (done, next) = table.split_at_mut(i * k);
        let r = &mut next[..k];
        let c = if i % 2 == 0 {
            kern.sqr(r, &done[(i / 2) * k..(i / 2 + 1) * k], n, n0)
        } else {
            kern.mul(r, &done[(i - 1) * k..i * k], base, n, n0)
        };
        finish.apply(r, c, n);
    }

    let windows = bits.div_ceil(w);
    let top = bits - (windows - 1) * w;
    kern.select(acc, table, digit(exp, (windows - 1) * w, top));
    for win in (0..windows - 1).rev() {
        kern.sqr_n(acc, w, n, n0, finish, scratch);
        kern.select(sel, table, digit(exp, win * w, w));
        kern.mul_into(acc, sel, n, n0, finish, scratch);
    }
    normalize(acc, n, finish.bound_multiple());
    out.copy_from_slice(acc);
}
