//! Constant-time building blocks: masks, selection and comparison without secret-dependent
//! branches or memory indices.
//!
//! A [`Choice`] is a full-width mask, `0` or `!0`, rather than a `bool`, so that selecting
//! between two words is `(a & m) | (b & !m)` and never a branch (BearSSL's `CCOPY`, Go's
//! `choice`). Every value that decides a choice passes through [`core::hint::black_box`]
//! before it is widened into a mask, so that the optimiser cannot see it is a boolean and
//! turn the arithmetic back into a branch.
//!
//! What leaks: the lengths of the slices these functions take (they are public sizes),
//! never their contents.
//!
//! ```
//! use cryptocard::ct::{self, Choice};
//!
//! let tag_ok = ct::bytes_eq(b"expected tag", b"expected tag");
//! let c: Choice = ct::lt(3, 5) & tag_ok;
//! assert_eq!(c.select(10, 20), 10); // a mask, not a branch
//! let mut dst = [1u64, 2];
//! ct::conditional_copy(!c, &mut dst, &[7, 8]); // not copied: !c is false
//! assert_eq!(dst, [1, 2]);
//! assert!(c.declassify()); // the one place a choice becomes a bool
//! ```

use crate::limb::Limb;
use core::hint::black_box;
use core::ops::{BitAnd, BitOr, BitXor, Not};

/// A secret boolean held as a mask: all ones for true, all zeros for false.
#[derive(Clone, Copy, Debug)]
#[must_use]
pub struct Choice(Limb);

impl Choice {
    /// False.
    pub const FALSE: Choice = Choice(0);
    /// True.
    pub const TRUE: Choice = Choice(!0);

    /// Makes a choice from the low bit of `bit`, which must be 0 or 1.
    #[inline]
    pub fn from_bit(bit: Limb) -> Choice {
        debug_assert!(bit <= 1, "internal error: Choice::from_bit takes 0 or 1");
        Choice(black_box(bit).wrapping_neg())
    }

    /// Makes a choice from a public `bool`. The value is not secret, so this may branch.
    #[inline]
    pub fn from_bool_public(b: bool) -> Choice {
        if b { Choice::TRUE } else { Choice::FALSE }
    }

    /// The mask itself: `0` or `!0`.
    #[inline]
    pub fn mask(self) -> Limb {
        self.0
    }

    /// The choice as 0 or 1.
    #[inline]
    pub fn bit(self) -> Limb {
        self.0 & 1
    }

    /// Declassifies the choice. Call this only where the result is public (a verification
    /// result, the final answer of a comparison the caller will branch on anyway). Under
    /// the constant-time validation, the one place a secret choice becomes public
    /// ([`mark_public`]).
    #[inline]
    pub fn declassify(self) -> bool {
        declassify(self.0) != 0
    }

    /// `a` if the choice is true, else `b`.
    #[inline]
    pub fn select(self, a: Limb, b: Limb) -> Limb {
        b ^ (self.0 & (a ^ b))
    }
}

impl BitAnd for Choice {
    type Output = Choice;
    #[inline]
    fn bitand(self, rhs: Choice) -> Choice {
        Choice(self.0 & rhs.0)
    }
}

impl BitOr for Choice {
    type Output = Choice;
    #[inline]
    fn bitor(self, rhs: Choice) -> Choice {
        Choice(self.0 | rhs.0)
    }
}

impl BitXor for Choice {
    type Output = Choice;
    #[inline]
    fn bitxor(self, rhs: Choice) -> Choice {
        Choice(self.0 ^ rhs.0)
    }
}

impl Not for Choice {
    type Output = Choice;
    #[inline]
    fn not(self) -> Choice {
        Choice(!self.0)
    }
}

/// True when `x == 0`.
#[inline]
pub fn is_zero(x: Limb) -> Choice {
    // (x | -x) has its top bit set exactly when x != 0.
    let nz = (x | x.wrapping_neg()) >> (Limb::BITS - 1);
    !Choice::from_bit(nz)
}

/// True when `a == b`.
#[inline]
pub fn eq(a: Limb, b: Limb) -> Choice {
    is_zero(a ^ b)
}

/// True when `a < b` (unsigned).
#[inline]
pub fn lt(a: Limb, b: Limb) -> Choice {
    // The borrow out of a - b, computed without a comparison instruction the compiler
    // could turn into a branch (Hacker's Delight 2-12).
    let borrow = ((!a & b) | ((!(a ^ b)) & a.wrapping_sub(b))) >> (Limb::BITS - 1);
    Choice::from_bit(borrow)
}

/// `dst = src` where `c` is true; `dst` unchanged otherwise. Both slices have the same
/// (public) length.
#[inline]
pub fn conditional_copy(c: Choice, dst: &mut [Limb], src: &[Limb]) {
    assert_eq!(dst.len(), src.len(), "internal error: conditional_copy length mismatch");
    let m = c.mask();
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= m & (*d ^ *s);
    }
}

/// Swaps `a` and `b` where `c` is true.
#[inline]
pub fn conditional_swap(c: Choice, a: &mut [Limb], b: &mut [Limb]) {
    assert_eq!(a.len(), b.len(), "internal error: conditional_swap length mismatch");
    let m = c.mask();
    for (x, y) in a.iter_mut().zip(b.iter_mut()) {
        let t = m & (*x ^ *y);
        *x ^= t;
        *y ^= t;
    }
}

/// True when the two limb slices (of equal public length) hold the same value.
#[inline]
pub fn limbs_eq(a: &[Limb], b: &[Limb]) -> Choice {
    assert_eq!(a.len(), b.len(), "internal error: limbs_eq length mismatch");
    let diff = a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x ^ y));
    is_zero(diff)
}

/// True when two byte strings are equal. Leaks their lengths (a length mismatch returns
/// false at once), never where they differ: use it for MAC tags and padding checks.
#[inline]
pub fn bytes_eq(a: &[u8], b: &[u8]) -> Choice {
    if a.len() != b.len() {
        return Choice::FALSE;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    is_zero(Limb::from(diff))
}

/// Copies `table[index]` into `out` by reading every entry and keeping one with a mask:
/// neither the memory access pattern nor the branches depend on `index`. Every entry of
/// `table` has `out.len()` limbs. The masked full-table scan of fixed-window
/// exponentiation.
#[inline]
pub fn select_from_table(out: &mut [Limb], table: &[Limb], index: usize) {
    let w = out.len();
    assert!(w > 0 && table.len().is_multiple_of(w), "internal error: select_from_table shape");
    out.fill(0);
    for (i, entry) in table.chunks_exact(w).enumerate() {
        let m = eq(i as Limb, index as Limb).mask();
        for (o, e) in out.iter_mut().zip(entry) {
            *o |= m & *e;
        }
    }
}

/// The valgrind client requests of the constant-time validation, or, without them,
/// requests that do nothing.
#[cfg(all(feature = "ct-validation", target_arch = "x86_64"))]
use crate::arch::x86_64::valgrind;
#[cfg(not(all(feature = "ct-validation", target_arch = "x86_64")))]
mod valgrind {
    pub(super) fn mark_secret(_: *const u8, _: usize) {}
    pub(super) fn mark_public(_: *const u8, _: usize) {}
    pub(super) fn running_on_valgrind() -> bool {
        false
    }
}

/// Marks `x` secret for the constant-time validation: under valgrind's memcheck with the
/// `ct-validation` feature, every branch and memory index that depends on it, or on a
/// value computed from it, is then reported as a use of undefined memory (Langley's
/// ctgrind; BoringSSL's `CONSTTIME_SECRET`). Does nothing otherwise.
#[inline]
pub fn mark_secret<T: Copy>(x: &[T]) {
    valgrind::mark_secret(x.as_ptr().cast(), core::mem::size_of_val(x));
}

/// Marks `x` public again for the constant-time validation ([`mark_secret`]): where a
/// value computed from secrets becomes public by design (a verdict, a signature, a
/// decryption's length). Does nothing otherwise.
#[inline]
pub fn mark_public<T: Copy>(x: &[T]) {
    valgrind::mark_public(x.as_ptr().cast(), core::mem::size_of_val(x));
}

/// Declassifies a value computed from secrets, where it is public by design (a length,
/// a verdict): under the constant-time validation, marks it public ([`mark_public`]) and
/// returns it as read back from the marked memory. Otherwise the value itself.
#[inline]
pub fn declassify<T: Copy>(x: T) -> T {
    let value = black_box(x);
    mark_public(core::slice::from_ref(&value));
    // Read back from the memory just marked, not from a register copy of it.
    *black_box(&value)
}

/// Whether the process runs under valgrind (always false without the `ct-validation`
/// feature).
pub fn on_valgrind() -> bool {
    valgrind::running_on_valgrind()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_and_comparisons() {
        for &(a, b) in &[(0u64, 0u64), (0, 1), (1, 0), (5, 5), (!0, 0), (0, !0), (1 << 63, 1)] {
            assert_eq!(eq(a, b).declassify(), a == b, "eq {a} {b}");
            assert_eq!(lt(a, b).declassify(), a < b, "lt {a} {b}");
            assert_eq!(is_zero(a).declassify(), a == 0);
            let c = Choice::from_bool_public(a < b);
            assert_eq!(c.select(a, b), if a < b { a } else { b });
        }
    }

    #[test]
    fn table_select_reads_the_right_entry() {
        let table: Vec<Limb> = (0..32).collect();
        let mut out = [0; 4];
        for i in 0..8 {
            select_from_table(&mut out, &table, i);
            let want: Vec<Limb> = (4 * i as Limb..4 * i as Limb + 4).collect();
            assert_eq!(out.to_vec(), want);
        }
    }

    #[test]
    fn conditional_copy_and_swap() {
        let mut a = [1, 2, 3];
        let mut b = [4, 5, 6];
        conditional_swap(Choice::FALSE, &mut a, &mut b);
        assert_eq!((a, b), ([1, 2, 3], [4, 5, 6]));
        conditional_swap(Choice::TRUE, &mut a, &mut b);
        assert_eq!((a, b), ([4, 5, 6], [1, 2, 3]));
        conditional_copy(Choice::TRUE, &mut a, &b);
        assert_eq!(a, [1, 2, 3]);
        assert!(limbs_eq(&a, &b).declassify());
        assert!(bytes_eq(b"abc", b"abc").declassify());
        assert!(!bytes_eq(b"abc", b"abd").declassify());
        assert!(!bytes_eq(b"abc", b"ab").declassify());
    }
}
