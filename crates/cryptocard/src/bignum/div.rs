//! Division of limb slices: by one limb, and Knuth's algorithm D (TAOCP vol. 2, 4.3.1).
//!
//! **Quotient digits by reciprocal.** Every quotient digit comes from a two-by-one division
//! `(u1·B + u0) / d` with `u1 < d` and `d` normalised (top bit set). Instead of a hardware
//! divide (which Rust does not expose for 128/64 bits), it multiplies by the precomputed
//! reciprocal `v = floor((B^2 - 1)/d) - B` and corrects at most twice (Möller and
//! Granlund, "Improved division by invariant integers", IEEE TC 2011, algorithm 4).
//!
//! **Algorithm D.** To divide `u` (`m + n` limbs) by `d` (`n >= 2` limbs), first normalise:
//! shift both left so that `d`'s top bit is set (step D1). Then for each quotient digit,
//! from the top, estimate it from the top two limbs of the current remainder and the top
//! limb of `d`:
//!
//! ```text
//! q̂ = min(floor((u_(j+n) B + u_(j+n-1)) / d_(n-1)), B - 1),   r̂ = the remainder of that
//! ```
//!
//! With `d` normalised, `q <= q̂ <= q + 2` (Knuth, theorem 4.3.1B). The two-limb test (step
//! D3) decrements `q̂` while `q̂ · d_(n-2) > r̂ B + u_(j+n-2)` (and `r̂ < B`), which removes
//! every case where `q̂` is two too large and most where it is one too large
//! (exercise 4.3.1-20): afterwards `q̂ ∈ {q, q + 1}`, and `q̂ = q + 1` has probability about
//! `2/B`. Step D4 subtracts `q̂ · d` from the window; if that borrows, `q̂` was one too
//! large and step D6 adds `d` back once.
//!
//! The two-by-one division, and so `divrem_1`, is constant time in the dividend for a
//! given divisor (both corrections are masked): key generation reduces secret primes
//! modulo the public exponent with it. Algorithm D is variable-time (its corrections
//! depend on the values); secret reductions go through [`crate::modular`] or
//! `div_ct.rs` instead.

use super::mul::submul_1;
use crate::limb::{LIMB_BITS, Limb, WideLimb, add_1};

/// A normalised divisor limb with its reciprocal, for repeated two-by-one divisions.
#[derive(Clone, Copy, Debug)]
pub struct Reciprocal {
    d: Limb,
    v: Limb,
}

impl Reciprocal {
    /// Prepares division by `d`, whose top bit must be set.
    pub fn new(d: Limb) -> Reciprocal {
        assert!(d >> (LIMB_BITS - 1) == 1, "internal error: reciprocal of an unnormalised limb");
        // (B^2 - 1) / d is in [B, 2B) for normalised d; dropping the top bit subtracts B.
        let v = (WideLimb::MAX / d as WideLimb) as Limb;
        Reciprocal { d, v }
    }

    /// The divisor.
    #[cfg_attr(not(feature = "hazmat"), allow(dead_code))] // public in `crate::hazmat`
    pub fn divisor(&self) -> Limb {
        self.d
    }

    /// `(u1·B + u0) / d` as `(quotient, remainder)`, for `u1 < d`.
    #[inline]
    pub fn div_2by1(&self, u1: Limb, u0: Limb) -> (Limb, Limb) {
        debug_assert!(u1 < self.d, "internal error: div_2by1 quotient overflow");
        let q = (self.v as WideLimb) * (u1 as WideLimb)
            + (((u1 as WideLimb) << LIMB_BITS) | u0 as WideLimb);
        let (mut q1, q0) = (((q >> LIMB_BITS) as Limb).wrapping_add(1), q as Limb);
        let mut r = u0.wrapping_sub(q1.wrapping_mul(self.d));
        // The candidate is at most one too large, or (rarely) one too small.
        let mask = ((r > q0) as Limb).wrapping_neg();
        q1 = q1.wrapping_add(mask);
        r = r.wrapping_add(mask & self.d);
        // The rare second correction, masked too: the dividend may be secret (a prime's
        // residue modulo the public exponent in key generation).
        let (less, borrow) = r.overflowing_sub(self.d);
        let mask = (borrow as Limb).wrapping_sub(1);
        q1 = q1.wrapping_add(mask & 1);
        r = (less & mask) | (r & !mask);
        (q1, r)
    }
}

/// `q = a / d`, returning `a mod d`. Contract: `q.len() == a.len()`, `d != 0`.
pub fn divrem_1(q: &mut [Limb], a: &[Limb], d: Limb) -> Limb {
    assert_eq!(q.len(), a.len(), "internal error: divrem_1 lengths");
    assert!(d != 0, "internal error: divrem_1 by zero");
    let s = d.leading_zeros();
    let recip = Reciprocal::new(d << s);
    if s == 0 {
        let mut r = 0;
        for (q, &a) in q.iter_mut().zip(a).rev() {
            (*q, r) = recip.div_2by1(r, a);
        }
        return r;
    }
    // Divide (a << s) by (d << s) with the shift done on the fly; the quotient is the same
    // and the remainder comes out shifted. The first remainder, a's top s bits, is below
    // 2^s <= d << s.
    let Some(&top) = a.last() else { return 0 };
    let mut r = top >> (LIMB_BITS as u32 - s);
    for i in (0..a.len()).rev() {
        let low = if i > 0 { a[i - 1] >> (LIMB_BITS as u32 - s) } else { 0 };
        (q[i], r) = recip.div_2by1(r, (a[i] << s) | low);
    }
    r >> s
}

/// Algorithm D on a normalised divisor. Contract: `d.len() = n >= 2` with the top bit of
/// `d[n - 1]` set; `u.len() == q.len() + n`; the top `n` limbs of `u` form a number less
/// than `d` (so the quotient fits in `q.len()` limbs). On return `q = floor(u / d)`,
/// `u[..n] = u mod d` and `u[n..]` is zero.
pub fn div_qr_normalized(q: &mut [Limb], u: &mut [Limb], d: &[Limb]) {
    let n = d.len();
    assert!(n >= 2 && u.len() == q.len() + n, "internal error: div_qr lengths");
    let (d1, d0) = (d[n - 1], d[n - 2]);
    let recip = Reciprocal::new(d1);
    for j in (0..q.len()).rev() {
        // D3: estimate q̂ from the window's top limbs u2 u1 u0.
        let (u2, u1, u0) = (u[j + n], u[j + n - 1], u[j + n - 2]);
        debug_assert!(u2 <= d1, "internal error: div_qr window");
        let (mut qhat, rhat) = if u2 < d1 {
            let (q, r) = recip.div_2by1(u2, u1);
            (q, Some(r))
        } else {
            // u2 = d1: q̂ = B - 1, r̂ = u2·B + u1 - (B - 1)·d1 = u1 + d1, if below B.
            let (r, overflow) = u1.overflowing_add(d1);
            (Limb::MAX, (!overflow).then_some(r))
        };
        // The two-limb test; it stops once r̂ reaches B.
        if let Some(mut rhat) = rhat {
            while (qhat as WideLimb) * (d0 as WideLimb)
                > (((rhat as WideLimb) << LIMB_BITS) | u0 as WideLimb)
            {
                qhat -= 1;
                let (r, overflow) = rhat.overflowing_add(d1);
                if overflow {
                    break;
                }
                rhat = r;
            }
        }
        // D4: subtract q̂·d from the window.
        let borrow = submul_1(&mut u[j..j + n], d, qhat);
        let (top, negative) = u[j + n].overflowing_sub(borrow);
        u[j + n] = top;
        // D6: q̂ was one too large (probability about 2/B): add d back.
        if negative {
            qhat -= 1;
            let carry = add_1(&mut u[j..j + n], d);
            u[j + n] = u[j + n].wrapping_add(carry);
        }
        debug_assert_eq!(u[j + n], 0, "internal error: div_qr remainder");
        q[j] = qhat;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_by_one_against_u128() {
        let ds = [1 << 63, (1 << 63) + 1, !0, 0xdead_beef_0000_0001 | (1 << 63)];
        let us = [0u64, 1, 0x1234_5678, !0 - 1, !0];
        for &d in &ds {
            let r = Reciprocal::new(d);
            for &u1 in us.iter().filter(|&&x| x < d) {
                for &u0 in &us {
                    let u = ((u1 as u128) << 64) | u0 as u128;
                    let want = ((u / d as u128) as u64, (u % d as u128) as u64);
                    assert_eq!(r.div_2by1(u1, u0), want, "d = {d:x}, u = {u:x}");
                }
            }
        }
    }

    #[test]
    fn divrem_1_small() {
        let a = [5, 0, 7];
        let mut q = [0; 3];
        let r = divrem_1(&mut q, &a, 3);
        // 7·2^128 + 5 = 3·q + r
        let mut back = [0; 3];
        super::super::mul::mul_1(&mut back, &q, 3);
        assert!(r < 3);
        assert_eq!(add_1(&mut back, &[r]), 0);
        assert_eq!(back, a);
    }
}
