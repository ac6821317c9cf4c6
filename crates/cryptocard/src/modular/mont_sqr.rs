//! Dedicated Montgomery squaring.
//!
//! a^2 = sum_i a_i^2 2^(128 i) + 2 * sum_{i<j} a_i a_j 2^(64(i+j)): the k(k-1)/2 cross
//! products are formed once (rows of `addmul_1`), the partial sum doubled by a one-bit
//! shift, and the k diagonal squares added in the same pass (GMP's `sqr_basecase` with
//! `sqr_diag_addlsh1`). That is k(k+1)/2 limb products instead of k^2; the REDC that
//! follows costs k^2 more, so a Montgomery squaring costs about 3/4 of a Montgomery
//! multiplication (Dusse and Kaliski: "asymptotically 25 percent faster").
//!
//! The 2k-limb square lives in a stack buffer sized by the modulus length class, so the
//! kernel allocates nothing and keeps the raw-kernel contract (no scratch argument).
//!
//! This is the portable twin of the `mulx/adcx/adox` squaring kernel. The portable kernel
//! set itself squares with the CIOS product (see `kernel::Portable` for why):
//! here the REDC after the square runs at one carry chain per row and gives back what the
//! halved cross products saved.

use super::mont::redc_raw;
use crate::bignum::mul::{addmul_1, mul_1};
use crate::bignum::{Limb, adc, mac};
use zeroize::Zeroize;

/// The largest modulus, in limbs, that the modular layer accepts (16384 bits).
pub const MAX_LIMBS: usize = 256;

/// Montgomery square: returns `c` with `c*R + r = (a^2 + m*n) / R`, `m` in `[0, R)`.
/// Any k-limb `a` (then `c` is 0 or 1). Constant time. `r`, `a`, `n` have k limbs,
/// `1 <= k <= MAX_LIMBS`; n odd; `n0 = -n^-1 mod 2^64`.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))] // public in `crate::hazmat`
pub fn mont_sqr_raw(r: &mut [Limb], a: &[Limb], n: &[Limb], n0: Limb) -> Limb {
    let k = n.len();
    assert!(
        k > 0 && k <= MAX_LIMBS && r.len() == k && a.len() == k,
        "internal error: mont_sqr_raw lengths"
    );
    with_stack_limbs(2 * k, |t| {
        sqr_product(t, a);
        redc_raw(r, t, n, n0)
    })
}

/// `t = a^2`, `t.len() == 2 * a.len()`, `a` not empty. Time depends only on the length.
pub(crate) fn sqr_product(t: &mut [Limb], a: &[Limb]) {
    let k = a.len();
    debug_assert!(k > 0 && t.len() == 2 * k);
    // Cross products: row i adds a[i] * a[i+1..] at positions 2i+1 ..= i+k-1 and
    // writes its carry to position i+k. Every position a row adds into was written by an
    // earlier row (row 0 writes 1..=k, row i-1's carry is at i-1+k), so no clearing is
    // needed except t[0] and t[2k-1], which no row reaches.
    t[0] = 0;
    t[2 * k - 1] = 0;
    if k == 1 {
        t[1] = 0;
    } else {
        t[k] = mul_1(&mut t[1..k], &a[1..], a[0]);
        let mut i = 1;
        // Rows i and i+1 together, as two independent carry chains (GMP's addmul_2).
        while i + 3 <= k {
            cross_rows_2(&mut t[2 * i + 1..i + k + 2], a[i], a[i + 1], &a[i + 1..]);
            i += 2;
        }
        if i + 2 == k {
            t[i + k] = addmul_1(&mut t[2 * i + 1..i + k], &a[i + 1..], a[i]);
        }
    }
    // t = 2t + sum a_i^2 2^(128 i). The cross sum is < R^2 / 2, so the bit shifted out
    // of t[2k-1] is 0, and the square is < R^2, so the final carry is 0.
    let mut shift_in = 0;
    let mut carry = 0;
    for (i, &ai) in a.iter().enumerate() {
        let (lo, hi) = mac(0, ai, ai, 0);
        let (t0, t1) = (t[2 * i], t[2 * i + 1]);
        let d0 = (t0 << 1) | shift_in;
        let d1 = (t1 << 1) | (t0 >> 63);
        shift_in = t1 >> 63;
        (t[2 * i], carry) = adc(d0, lo, carry);
        (t[2 * i + 1], carry) = adc(d1, hi, carry);
    }
    debug_assert!(shift_in == 0 && carry == 0, "internal error: square overflowed");
}

/// Rows i and i+1 of the cross products, with v = a[i+1..] (L = v.len() >= 2) and `t`
/// starting at position 2i+1 (L + 2 limbs). Relative to that base, row i adds
/// `ai * v[q]` at q = 0..L-1 and row i+1 adds `ai1 * v[q-1]` at q = 2..L (its term with
/// `v[0] = a[i+1]` is the diagonal square, added later). Positions 0..L-1 already hold
/// earlier rows' sums; positions L and L+1 are written (the two rows' carries).
#[inline(always)]
fn cross_rows_2(t: &mut [Limb], ai: Limb, ai1: Limb, v: &[Limb]) {
    let l = v.len();
    debug_assert!(l >= 2 && t.len() == l + 2);
    let (x, c0) = mac(t[0], ai, v[0], 0);
    t[0] = x;
    let (x, mut c0) = mac(t[1], ai, v[1], c0);
    t[1] = x;
    let mut c1 = 0;
    for ((tq, &vq), &vq1) in t[2..l].iter_mut().zip(&v[2..]).zip(&v[1..l - 1]) {
        let (x, c) = mac(*tq, ai, vq, c0);
        c0 = c;
        let (y, c) = mac(x, ai1, vq1, c1);
        c1 = c;
        *tq = y;
    }
    let (x, c) = mac(c0, ai1, v[l - 1], c1);
    t[l] = x;
    t[l + 1] = c;
}

/// Runs `f` on a zeroed stack buffer of `len <= 2 * MAX_LIMBS` limbs, and wipes the
/// buffer when `f` returns or unwinds ([`run_wiped`]): it holds squares and products of
/// secret residues, and a stack frame's memory is reused, unwiped, by whatever runs next.
/// The buffer is taken from a few size classes, so clearing and wiping it cost about as
/// much as `len` limbs, not the maximum.
#[inline(always)]
pub(crate) fn with_stack_limbs<T>(len: usize, f: impl FnOnce(&mut [Limb]) -> T) -> T {
    macro_rules! size_classes {
        ($($cap:literal),*) => {$(
            if len <= $cap {
                let mut buf = [0 as Limb; $cap];
                return run_wiped(&mut buf[..len], f);
            }
        )*};
    }
    size_classes!(8, 16, 32, 64, 128, 256, 512);
    panic!("internal error: scratch of {len} limbs exceeds the largest modulus")
}

/// Runs `f` on `buf`, then zeroes `buf` by `zeroize` (writes the compiler keeps although
/// the buffer is dead after them), also when `f` unwinds.
#[inline(always)]
fn run_wiped<T>(buf: &mut [Limb], f: impl FnOnce(&mut [Limb]) -> T) -> T {
    /// Zeroes the borrowed limbs when dropped.
    struct WipeOnDrop<'a>(&'a mut [Limb]);
    impl Drop for WipeOnDrop<'_> {
        fn drop(&mut self) {
            self.0.zeroize();
        }
    }
    let guard = WipeOnDrop(buf);
    f(&mut *guard.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bignum::mul::mul_basecase;

    #[test]
    fn square_matches_product() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for k in 1..=20 {
            let a: Vec<Limb> = (0..k)
                .map(|i| {
                    x = x.wrapping_mul(0x5851_f42d_4c95_7f2d).wrapping_add(1442695040888963407);
                    if i % 3 == 0 { !0 } else { x }
                })
                .collect();
            let mut want = vec![0; 2 * k];
            mul_basecase(&mut want, &a, &a);
            let mut got = vec![0; 2 * k];
            sqr_product(&mut got, &a);
            assert_eq!(got, want, "k = {k}");
        }
    }

    /// The scratch that `with_stack_limbs` lends is zero after `f`, whether `f` returns
    /// or panics.
    #[test]
    fn scratch_is_wiped_after_use_and_on_unwind() {
        let mut buf = [0 as Limb; 8];
        let first = run_wiped(&mut buf, |t| {
            t.fill(0x005e_c2e7);
            t[3]
        });
        assert_eq!(first, 0x005e_c2e7);
        assert_eq!(buf, [0; 8]);
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_wiped(&mut buf, |t| {
                t.fill(0x005e_c2e7);
                panic!("a bug inside the kernel");
            })
        }));
        assert!(unwound.is_err());
        assert_eq!(buf, [0; 8]);
        // And through the size classes: the result is computed on the lent buffer.
        let sum = with_stack_limbs(40, |t| {
            assert!(t.len() == 40 && t.iter().all(|&l| l == 0));
            t.fill(1);
            t.iter().sum::<Limb>()
        });
        assert_eq!(sum, 40);
    }
}
