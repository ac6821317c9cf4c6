//! Choosing the algorithm for each product, and unbalanced operands.
//!
//! [`Multiplier`] carries the basecase kernel and the thresholds down the recursion; every
//! algorithm calls back into [`Multiplier::mul`] / [`Multiplier::sqr`] for its sub-products, so the
//! choice at each level is made afresh from the sub-product's sizes, and the kernel is
//! reached through the one [`Basecase`] trait.
//!
//! For `n >= m` limbs:
//!
//! * `m` below the Karatsuba threshold: the basecase, whatever `n` is.
//! * `m <= ceil(n/2)` (unbalanced): `a` is cut into chunks of `m` limbs,
//!   `a·b = Σ_i (a_i·b) B^(im)`; each chunk is a balanced product, added at its offset.
//! * `m` at least the Toom-4 threshold and `m > 3·ceil(n/4)`: Toom-4.
//! * `m` at least the Toom-3 threshold and `m > 2·ceil(n/3)`: Toom-3.
//! * otherwise Karatsuba, which accepts any `m` in `(ceil(n/2), n]`.
//!
//! Squaring has no unbalanced case; Toom-3 needs `n > 2 ceil(n/3)` (all `n >= 5`), Toom-4
//! `n > 3 ceil(n/4)`.
//!
//! Scratch: each algorithm needs a fixed number of limbs for its own level plus what its
//! largest sub-product needs. [`Multiplier::mul_scratch_len`] computes that exactly by following
//! the same choices; the caller allocates it once, and the levels share it
//! stack-fashion (a level uses the front, its sub-products the rest).

use super::{Basecase, Thresholds, karatsuba, toom3, toom4};
use crate::limb::Limb;

/// The algorithm for one product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Algo {
    Basecase,
    Chunked,
    Karatsuba,
    Toom3,
    Toom4,
}

/// A basecase kernel together with the thresholds tuned for it.
#[derive(Debug)]
pub struct Multiplier<'a, K: Basecase> {
    /// The kernel every algorithm bottoms out in.
    pub kernel: &'a K,
    /// The cut-over sizes.
    pub thresholds: &'a Thresholds,
}

impl<K: Basecase> Multiplier<'_, K> {
    fn choose_mul(&self, n: usize, m: usize) -> Algo {
        debug_assert!(n >= m && m >= 1);
        let th = self.thresholds;
        if m < th.mul_karatsuba.max(2) {
            Algo::Basecase
        } else if m <= n.div_ceil(2) {
            Algo::Chunked
        } else if m >= th.mul_toom4.max(4) && m > 3 * n.div_ceil(4) {
            Algo::Toom4
        } else if m >= th.mul_toom3.max(3) && m > 2 * n.div_ceil(3) {
            Algo::Toom3
        } else {
            Algo::Karatsuba
        }
    }

    fn choose_sqr(&self, n: usize) -> Algo {
        let th = self.thresholds;
        if n < th.sqr_karatsuba.max(2) {
            Algo::Basecase
        } else if n >= th.sqr_toom4.max(4) && n > 3 * n.div_ceil(4) {
            Algo::Toom4
        } else if n >= th.sqr_toom3.max(3) && n > 2 * n.div_ceil(3) {
            Algo::Toom3
        } else {
            Algo::Karatsuba
        }
    }

    /// Scratch limbs needed by [`Multiplier::mul`] for operands of `an` and `bn` limbs.
    pub fn mul_scratch_len(&self, an: usize, bn: usize) -> usize {
        let (n, m) = if an >= bn { (an, bn) } else { (bn, an) };
        if m == 0 {
            return 0;
        }
        match self.choose_mul(n, m) {
            Algo::Basecase => 0,
            Algo::Chunked => {
                let tail = n % m;
                2 * m + self.mul_scratch_len(m, m).max(self.mul_scratch_len(m, tail))
            }
            Algo::Karatsuba => {
                let h = n.div_ceil(2);
                karatsuba::mul_own_scratch(h)
                    + self.mul_scratch_len(h, h).max(self.mul_scratch_len(n - h, m - h))
            }
            Algo::Toom3 => {
                let k = n.div_ceil(3);
                toom3::mul_own_scratch(k)
                    + self
                        .mul_scratch_len(k + 1, k + 1)
                        .max(self.mul_scratch_len(k, k))
                        .max(self.mul_scratch_len(n - 2 * k, m - 2 * k))
            }
            Algo::Toom4 => {
                let k = n.div_ceil(4);
                toom4::mul_own_scratch(k)
                    + self
                        .mul_scratch_len(k + 1, k + 1)
                        .max(self.mul_scratch_len(k, k))
                        .max(self.mul_scratch_len(n - 3 * k, m - 3 * k))
            }
        }
    }

    /// Scratch limbs needed by [`Multiplier::sqr`] for an operand of `n` limbs.
    pub fn sqr_scratch_len(&self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        match self.choose_sqr(n) {
            Algo::Basecase | Algo::Chunked => 0,
            Algo::Karatsuba => {
                let h = n.div_ceil(2);
                karatsuba::sqr_own_scratch(h)
                    + self.sqr_scratch_len(h).max(self.sqr_scratch_len(n - h))
            }
            Algo::Toom3 => {
                let k = n.div_ceil(3);
                toom3::sqr_own_scratch(k)
                    + self
                        .sqr_scratch_len(k + 1)
                        .max(self.sqr_scratch_len(k))
                        .max(self.sqr_scratch_len(n - 2 * k))
            }
            Algo::Toom4 => {
                let k = n.div_ceil(4);
                toom4::sqr_own_scratch(k)
                    + self
                        .sqr_scratch_len(k + 1)
                        .max(self.sqr_scratch_len(k))
                        .max(self.sqr_scratch_len(n - 3 * k))
            }
        }
    }

    /// `r = a * b`. Contract: `r.len() == a.len() + b.len()`, neither input empty,
    /// `scratch.len() >= self.mul_scratch_len(a.len(), b.len())`. `r` is written, never
    /// read before; the scratch contents are garbage afterwards. Time depends only on the
    /// lengths (every algorithm handles signs with masks).
    pub fn mul(&self, r: &mut [Limb], a: &[Limb], b: &[Limb], scratch: &mut [Limb]) {
        let (a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
        assert!(!b.is_empty(), "internal error: mul empty input");
        assert_eq!(r.len(), a.len() + b.len(), "internal error: mul lengths");
        match self.choose_mul(a.len(), b.len()) {
            Algo::Basecase => self.kernel.mul_basecase(r, a, b),
            Algo::Chunked => self.mul_chunked(r, a, b, scratch),
            Algo::Karatsuba => karatsuba::mul(self, r, a, b, scratch),
            Algo::Toom3 => toom3::mul(self, r, a, b, scratch),
            Algo::Toom4 => toom4::mul(self, r, a, b, scratch),
        }
    }

    /// `r = a^2`. Contract: `r.len() == 2 * a.len()`, `a` not empty,
    /// `scratch.len() >= self.sqr_scratch_len(a.len())`. Time depends only on the length.
    pub fn sqr(&self, r: &mut [Limb], a: &[Limb], scratch: &mut [Limb]) {
        assert!(!a.is_empty(), "internal error: sqr empty input");
        assert_eq!(r.len(), 2 * a.len(), "internal error: sqr lengths");
        match self.choose_sqr(a.len()) {
            Algo::Basecase | Algo::Chunked => self.kernel.sqr_basecase(r, a),
            Algo::Karatsuba => karatsuba::sqr(self, r, a, scratch),
            Algo::Toom3 => toom3::sqr(self, r, a, scratch),
            Algo::Toom4 => toom4::sqr(self, r, a, scratch),
        }
    }

    /// Unbalanced product, `n = a.len() >= 2 m`, `m = b.len()`: chunks of `m` limbs.
    fn mul_chunked(&self, r: &mut [Limb], a: &[Limb], b: &[Limb], scratch: &mut [Limb]) {
        let m = b.len();
        let (tmp, rest) = scratch.split_at_mut(2 * m);
        let (first, others) = a.split_at(m);
        self.mul(&mut r[..2 * m], first, b, rest);
        r[2 * m..].fill(0);
        for (i, chunk) in others.chunks(m).enumerate() {
            let off = (i + 1) * m;
            let len = chunk.len() + m;
            self.mul(&mut tmp[..len], chunk, b, rest);
            // r holds a[..off + len - m]·b < B^(off + len): no carry leaves the window.
            let carry = self.kernel.add_1(&mut r[off..off + len], &tmp[..len]);
            debug_assert_eq!(carry, 0, "internal error: chunked product carry");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Portable, mul_basecase_rows, thresholds};
    use super::*;

    fn limbs(n: usize, seed: &mut u64, all_ones: bool) -> Vec<Limb> {
        let mut x = crate::test_rng::XorShift64(*seed);
        let v = (0..n)
            .map(|_| {
                let v = x.next_u64();
                if all_ones { !0 } else { v }
            })
            .collect();
        *seed = x.0;
        v
    }

    /// Every algorithm, forced down to its smallest sizes, against the schoolbook rows.
    #[test]
    fn every_algorithm_matches_the_schoolbook() {
        let mut seed = 0x1234_5678_9abc_def1;
        let mid = Thresholds {
            mul_karatsuba: 4,
            mul_toom3: 9,
            sqr_karatsuba: 4,
            sqr_toom3: 9,
            mul_toom4: 16,
            sqr_toom4: 16,
        };
        for th in [thresholds::MINIMUM, mid, thresholds::PORTABLE] {
            let ctx = Multiplier { kernel: &Portable, thresholds: &th };
            for n in 1..48 {
                for m in 1..=n {
                    for ones in [false, true] {
                        let a = limbs(n, &mut seed, ones);
                        let b = limbs(m, &mut seed, ones);
                        let mut want = vec![0; n + m];
                        mul_basecase_rows(&mut want, &a, &b);
                        let mut got = vec![!0; n + m];
                        let mut s = vec![!0; ctx.mul_scratch_len(n, m)];
                        ctx.mul(&mut got, &a, &b, &mut s);
                        assert_eq!(got, want, "mul n = {n}, m = {m}, {th:?}");
                        ctx.mul(&mut got, &b, &a, &mut s);
                        assert_eq!(got, want, "mul swapped n = {n}, m = {m}, {th:?}");
                    }
                }
                let a = limbs(n, &mut seed, n % 2 == 0);
                let mut want = vec![0; 2 * n];
                mul_basecase_rows(&mut want, &a, &a);
                let mut got = vec![!0; 2 * n];
                let mut s = vec![!0; ctx.sqr_scratch_len(n)];
                ctx.sqr(&mut got, &a, &mut s);
                assert_eq!(got, want, "sqr n = {n}, {th:?}");
            }
        }
    }
}
