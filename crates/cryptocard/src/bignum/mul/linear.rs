//! The linear passes of Karatsuba and Toom-3, written over the [`Basecase`] seam so that a
//! kernel set can bring faster carry chains (the x86-64 `adc`/`sbb` loops keep the carry
//! in the flags, where the portable ones pass it through a `bool`).
//!
//! The primitives are [`Basecase`] methods with portable defaults (`add_n`, `sub_n` with a
//! carry in, their in-place forms, `add_1`, `sub_1` and `add_repeated`); this file builds
//! the composite steps the recursion needs from them. All run in time that depends on the
//! lengths only: signs are masks.

use super::Basecase;
use crate::ct::Choice;
use crate::limb::{LIMB_BITS, Limb, WideLimb, adc_bit, sbb_bit};

/// Portable `r = a + b + cin` over equal lengths, returning the carry.
pub(super) fn add_n_portable(r: &mut [Limb], a: &[Limb], b: &[Limb], cin: Limb) -> Limb {
    assert!(r.len() == a.len() && a.len() == b.len(), "internal error: add_n lengths");
    let mut carry = cin != 0;
    for ((r, &a), &b) in r.iter_mut().zip(a).zip(b) {
        (*r, carry) = adc_bit(a, b, carry);
    }
    carry as Limb
}

/// Portable `a = a + b + cin` in place.
pub(super) fn add_n_assign_portable(a: &mut [Limb], b: &[Limb], cin: Limb) -> Limb {
    assert_eq!(a.len(), b.len(), "internal error: add_n_assign lengths");
    let mut carry = cin != 0;
    for (a, &b) in a.iter_mut().zip(b) {
        (*a, carry) = adc_bit(*a, b, carry);
    }
    carry as Limb
}

/// Portable `r = a - b - bin` over equal lengths, returning the borrow.
pub(super) fn sub_n_portable(r: &mut [Limb], a: &[Limb], b: &[Limb], bin: Limb) -> Limb {
    assert!(r.len() == a.len() && a.len() == b.len(), "internal error: sub_n lengths");
    let mut borrow = bin != 0;
    for ((r, &a), &b) in r.iter_mut().zip(a).zip(b) {
        (*r, borrow) = sbb_bit(a, b, borrow);
    }
    borrow as Limb
}

/// Portable `a = a - b - bin` in place.
pub(super) fn sub_n_assign_portable(a: &mut [Limb], b: &[Limb], bin: Limb) -> Limb {
    assert_eq!(a.len(), b.len(), "internal error: sub_n_assign lengths");
    let mut borrow = bin != 0;
    for (a, &b) in a.iter_mut().zip(b) {
        (*a, borrow) = sbb_bit(*a, b, borrow);
    }
    borrow as Limb
}

/// Portable `a = a + x + c` with the limb `x` repeated over all of `a`.
pub(super) fn add_repeated_portable(a: &mut [Limb], x: Limb, c: Limb) -> Limb {
    let mut carry = c != 0;
    for a in a.iter_mut() {
        (*a, carry) = adc_bit(*a, x, carry);
    }
    carry as Limb
}

/// `a += x` for a small limb value `x`, the carry propagated through all of `a`; returns
/// the carry out (`bignum::add_limb` on the kernel's chain).
pub(super) fn add_small<K: Basecase + ?Sized>(k: &K, a: &mut [Limb], x: Limb) -> Limb {
    match a.split_first_mut() {
        None => (x != 0) as Limb,
        Some((a0, rest)) => {
            let (s, c) = a0.overflowing_add(x);
            *a0 = s;
            k.add_repeated(rest, 0, c as Limb)
        }
    }
}

/// `a = -a mod 2^(64 a.len())` where `c` is true: complement under the mask (a plain
/// loop the compiler vectorises), then add the carry-in 1 on the kernel's chain.
pub(super) fn cnd_neg<K: Basecase + ?Sized>(k: &K, c: Choice, a: &mut [Limb]) {
    let m = c.mask();
    for x in a.iter_mut() {
        *x ^= m;
    }
    k.add_repeated(a, 0, c.bit());
}

/// `r = |a - b|`, returning 1 where `a < b`. `r.len() == a.len() >= b.len()`, `b`
/// zero-extended (`bignum::abs_diff`).
pub fn abs_diff<K: Basecase + ?Sized>(k: &K, r: &mut [Limb], a: &[Limb], b: &[Limb]) -> Limb {
    assert!(r.len() == a.len() && a.len() >= b.len(), "internal error: abs_diff lengths");
    let n = b.len();
    let (rl, rh) = r.split_at_mut(n);
    let mut borrow = k.sub_n(rl, &a[..n], b, 0);
    if !rh.is_empty() {
        rh.copy_from_slice(&a[n..]);
        // rh - borrow = rh + !0 + (1 - borrow), the carry meaning "no borrow".
        borrow = 1 - k.add_repeated(rh, !0, 1 - borrow);
    }
    cnd_neg(k, Choice::from_bit(borrow), r);
    borrow
}

/// `a = a - b` where `sub` is true, `a = a + b` where false, modulo `2^(64 a.len())`,
/// `b` (no longer than `a`) zero-extended. `b` is the caller's scratch and is complemented
/// in place under the mask (`bignum::add_or_sub_assign`, destroying `b`).
pub(super) fn add_or_sub<K: Basecase + ?Sized>(k: &K, a: &mut [Limb], b: &mut [Limb], sub: Choice) {
    assert!(a.len() >= b.len(), "internal error: add_or_sub lengths");
    let m = sub.mask();
    for x in b.iter_mut() {
        *x ^= m;
    }
    let (lo, hi) = a.split_at_mut(b.len());
    let c = k.add_n_assign(lo, b, sub.bit());
    k.add_repeated(hi, m, c);
}

/// `v = v / d` for a two's complement `v` known to be a multiple of the odd `d < 16`
/// (Jebelean's exact division, GMP's `mpn_divexact_1`): `q_i = (v_i - c) inv mod B` with
/// `inv = d^-1 mod B`, and the carry `c` (below `d`) is the high limb of `d q_i` plus the
/// borrow of `v_i - c`.
pub(super) fn divexact_assign(v: &mut [Limb], d: Limb) {
    // Newton: x <- x (2 - d x) doubles the correct low bits; x = d is right to 3 bits.
    let mut inv = d;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(d.wrapping_mul(inv)));
    }
    debug_assert_eq!(d.wrapping_mul(inv), 1, "internal error: divexact inverse");
    let mut c: Limb = 0;
    for x in v.iter_mut() {
        let (t, borrow) = x.overflowing_sub(c);
        let q = t.wrapping_mul(inv);
        *x = q;
        c = ((d as WideLimb * q as WideLimb) >> LIMB_BITS) as Limb + borrow as Limb;
    }
}
