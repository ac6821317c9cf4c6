//! Eight Montgomery products in the modular core's form at once: the RSA layer's products
//! modulo n for a batch of operations (blinding, unblinding, and the squarings that renew
//! a blinding pair), on the transposed kernel of `exp_mb8`.
//!
//! The modular core keeps an `L`-limb modulus's Montgomery form with `R' = 2^(64 L)`:
//! `Modulus::mul(a, b) = a b / R' mod n`, fully reduced. The kernels divide by
//! `R = 2^(52 D)`, where `D` is the class of `n` (`52 D >= 64 L + 2`), so with the
//! difference `s = 52 D - 64 L` (16 bits at 1024-bit moduli, 24, 32, 48 at 1536, 2048,
//! 3072) one operand enters the kernel shifted by `s` bits:
//!
//! ```text
//! amm(a 2^s, b) = a 2^s b / 2^(52 D) = a b / 2^(64 L)   (mod n)
//! ```
//!
//! and as `a < 2^(64 L)` makes `a 2^s < R`, with `b < n` the product is below `R n` and
//! `amm = (a 2^s b + q n) / R < 2n` (see `super`). One conditional subtraction then gives
//! exactly the core's result: no number enters or leaves the kernels' own Montgomery
//! form, so no `RR` is needed, and an operation's numbers keep one representation
//! whichever path multiplies them.
//!
//! At 2048 bits (40 digits) the kernel is the Karatsuba product of `mb8_karatsuba`, and a
//! whole call of eight, the conversions included, takes less time than eight products on
//! the core's ADX kernel (`crates/bench`, `rsa -- products`); `rsa::accel` decides when a
//! call pays.

use super::LaneStatus;
use super::exp_mb8::amm_mb8_once;
use super::radix52::{DIGIT_MASK, Params52};
use super::vec52::{self, Mb8};
use crate::Error;
use crate::arch::x86_64::cpu::Ifma;
use core::arch::x86_64::*;

/// One lane of [`mont_mul_mb8`]: `out = x y / 2^(64 L) mod n`, with `n` given by
/// `params` (made from its `L` limbs), `x`, `y` and `out` of `L` limbs, and `y < n`.
pub(crate) struct ProductLane<'a, const D: usize> {
    pub(crate) params: &'a Params52<D>,
    pub(crate) x: &'a [u64],
    pub(crate) y: &'a [u64],
    pub(crate) out: &'a mut [u64],
}

/// Runs up to eight products at once (moduli may differ), returning each lane's status:
/// `None` lanes are [`LaneStatus::Empty`]; a lane whose inputs break the
/// [`ProductLane`] contract is [`LaneStatus::Failed`] with its `out` zero-filled; the
/// others are [`LaneStatus::Done`] with `out` fully reduced, the number
/// `Modulus::mul` gives. Constant-time in `x` and `y` (the checks reveal the lengths and
/// whether `y < n`).
pub(crate) fn mont_mul_mb8<const D: usize>(
    ifma: Ifma,
    mut lanes: [Option<ProductLane<'_, D>>; 8],
) -> [LaneStatus; 8] {
    let mut status = [LaneStatus::Empty; 8];
    // The operands' limbs, transposed (row j, column l: limb j of lane l); x's rows start
    // `up` rows higher: the whole limbs of its shift, and one more row of room for the
    // rest of the shift (52 D mod 64 bits, the same in every lane).
    let (mut x, mut y, mut n) = (Mb8::<D>::ZERO, Mb8::<D>::ZERO, Mb8::<D>::ZERO);
    // Lanes without a product compute modulo 1 (`k0 = -1 mod 2^52`) on zeros.
    let mut k0 = [DIGIT_MASK; 8];
    n.0[0] = [1; 8];
    for (l, slot) in lanes.iter_mut().enumerate() {
        let Some(lane) = slot else { continue };
        let limbs = lane.params.limbs();
        let why = if 64 * limbs > 52 * D {
            Some(Error::Unsupported("modulus limbs exceed the digit count"))
        } else if [lane.x.len(), lane.y.len(), lane.out.len()] != [limbs; 3] {
            Some(Error::InvalidArgument("operand must have the modulus's length"))
        } else {
            None
        };
        if let Some(why) = why {
            lane.out.fill(0);
            status[l] = LaneStatus::Failed(why);
            continue;
        }
        let up = 1 + (52 * D - 64 * limbs) / 64;
        for (j, (&xw, &yw)) in lane.x.iter().zip(lane.y).enumerate() {
            (x.0[up + j][l], y.0[j][l]) = (xw, yw);
        }
        for (k, &nd) in lane.params.n.iter().enumerate() {
            n.0[k][l] = nd;
        }
        k0[l] = lane.params.k0;
        status[l] = LaneStatus::Done;
    }
    let mut out = Mb8::<D>::ZERO;
    // SAFETY: `ifma` proves the CPU has AVX-512F.
    let below = unsafe { operand_digits(&mut x, &mut y, &n) };
    for (l, slot) in lanes.iter_mut().enumerate() {
        if let (Some(lane), LaneStatus::Done) = (slot, status[l])
            && below & (1 << l) == 0
        {
            // y >= n: the lane computes on zeros and fails.
            for k in 0..D {
                (x.0[k][l], y.0[k][l]) = (0, 0);
            }
            lane.out.fill(0);
            status[l] = LaneStatus::Failed(Error::InvalidArgument("operand must be below n"));
        }
    }
    amm_mb8_once(ifma, &x, &y, (&n, &k0), &mut out);
    // SAFETY: as above.
    unsafe { reduce_to_limbs(&mut out, &n, &mut x) };
    for (l, slot) in lanes.iter_mut().enumerate() {
        if let (Some(lane), LaneStatus::Done) = (slot, status[l]) {
            for (j, w) in lane.out.iter_mut().enumerate() {
                *w = x.0[j][l];
            }
        }
    }
    x.wipe();
    y.wipe();
    out.wipe();
    status
}

/// Turns the transposed limbs `x` and `y` (placed as [`mont_mul_mb8`] does) into their
/// radix-2^52 digits, `x` shifted by `s` (module docs), in place, and returns the mask of
/// the lanes where `y < n`.
#[target_feature(enable = "avx512f")]
fn operand_digits<const D: usize>(x: &mut Mb8<D>, y: &mut Mb8<D>, n: &Mb8<D>) -> u8 {
    // The shift's part below a limb, the same in every lane: 52 D - 64 L = 52 D mod 64.
    let below_limb = (52 * D) % 64;
    // Digit k of x 2^s is bits [52 k - s, ...) of x, at bit 52 k - s + 64 (up + L) of
    // the rows = 52 k + 64 - below_limb.
    let rows = x.clone();
    digits_from_rows(&rows, 64 - below_limb, x);
    let rows = y.clone();
    digits_from_rows(&rows, 0, y);
    // y - n borrows exactly where y < n.
    let mut borrow = _mm512_setzero_si512();
    for k in 0..D {
        let t = _mm512_sub_epi64(_mm512_sub_epi64(vec52::row(y, k), vec52::row(n, k)), borrow);
        borrow = _mm512_srli_epi64::<63>(t);
    }
    _mm512_test_epi64_mask(borrow, borrow)
}

/// `out[k]` = bits `[52 k + base, 52 k + base + 52)` of the eight numbers whose 64-bit
/// limbs are the rows of `rows`.
#[target_feature(enable = "avx512f")]
fn digits_from_rows<const D: usize>(rows: &Mb8<D>, base: usize, out: &mut Mb8<D>) {
    let mask = _mm512_set1_epi64(DIGIT_MASK as i64);
    for k in 0..D {
        let p = 52 * k + base;
        let (j, s) = (p / 64, (p % 64) as i64);
        let mut d = _mm512_srl_epi64(vec52::row(rows, j), _mm_cvtsi64_si128(s));
        if j + 1 < D {
            // (h << 1) << (63 - s): nothing when s = 0.
            let h = _mm512_slli_epi64::<1>(vec52::row(rows, j + 1));
            d = _mm512_or_si512(d, _mm512_sll_epi64(h, _mm_cvtsi64_si128(63 - s)));
        }
        vec52::set_row(out, k, _mm512_and_si512(d, mask));
    }
}

/// Reduces the products `x` (normalised digits below `2n`) once, `x - n` where `x >= n`
/// (a borrow chain and a bitwise select, in constant time), and writes their 64-bit limbs
/// to the rows of `limbs` (row `j`: limb `j` of each lane; as many rows as `D` digits
/// fill).
#[target_feature(enable = "avx512f")]
fn reduce_to_limbs<const D: usize>(x: &mut Mb8<D>, n: &Mb8<D>, limbs: &mut Mb8<D>) {
    let mask = _mm512_set1_epi64(DIGIT_MASK as i64);
    let mut borrow = _mm512_setzero_si512();
    for k in 0..D {
        let t = _mm512_sub_epi64(_mm512_sub_epi64(vec52::row(x, k), vec52::row(n, k)), borrow);
        borrow = _mm512_srli_epi64::<63>(t);
        vec52::set_row(limbs, k, _mm512_and_si512(t, mask));
    }
    // All ones where x < n (keep x), zero where x - n is the result.
    let keep = vec52::opaque(_mm512_sub_epi64(_mm512_setzero_si512(), borrow));
    for k in 0..D {
        let v = _mm512_ternarylogic_epi64::<0xca>(keep, vec52::row(x, k), vec52::row(limbs, k));
        vec52::set_row(x, k, v);
    }
    // Limb j is bits [64 j, 64 j + 64): from digit 64 j / 52 and the one or two above.
    for j in 0..52 * D / 64 {
        let (k, s) = ((64 * j) / 52, (64 * j) % 52);
        let mut w = _mm512_srl_epi64(vec52::row(x, k), _mm_cvtsi64_si128(s as i64));
        for (step, up) in [(1, 52 - s), (2, 104 - s)] {
            if k + step < D && up < 64 {
                let d = vec52::row(x, k + step);
                w = _mm512_or_si512(w, _mm512_sll_epi64(d, _mm_cvtsi64_si128(up as i64)));
            }
        }
        vec52::set_row(limbs, j, w);
    }
}
