//! Montgomery multiplication and reduction on limb slices: the raw kernels and the
//! finishing steps.
//!
//! # The raw kernels
//!
//! For an odd k-limb modulus n, R = 2^(64k) and n0 = -n^-1 mod 2^64, Montgomery's REDC
//! (Montgomery 1985; Dusse and Kaliski 1990, Theorem 1) maps a value t to
//!
//! ```text
//! REDC(t) = (t + m*n) / R,   m = t * (-n^-1) mod R,
//! ```
//!
//! which is an integer congruent to t * R^-1 (mod n). Digit by digit (Dusse-Kaliski's
//! "Improvement 1"), m is built one limb at a time: m_i = t_i * n0 mod 2^64 clears the
//! lowest remaining limb, so only n0 = -n_0^-1 mod 2^64 is needed, never all of -n^-1.
//!
//! **Bound.** With m < R: (t + m*n)/R < t/R + n. For a product t = a*b of two k-limb
//! values (a, b < R) this is < R + n < 2R, so the result is a k-limb `r` and a carry
//! `c` in {0, 1}: `c*R + r`. The same holds for any 2k-limb t (t < R^2). If a, b < n
//! (t < n^2 < n*R) the result is < 2n, and one conditional subtraction of n leaves the
//! fully reduced value in [0, n).
//!
//! Every kernel here returns `c` and leaves `r` as the low k limbs; what to do with `c`
//! is the caller's finishing step (below). Contracts, for all three kernels:
//! `k = n.len() >= 1`, every slice has exactly its stated length, `n` is odd,
//! `n0 = -n^-1 mod 2^64`; outputs never alias inputs (the borrow checker enforces it).
//! They run in time that depends only on k. The x86-64 `mulx/adcx/adox` kernels in
//! `arch::x86_64::adx` implement the same contracts with a leading `Adx` token argument.
//!
//! # Which Montgomery multiplication
//!
//! [`mont_mul_raw`] is Koç, Acar and Kaliski's CIOS ("coarsely integrated operand
//! scanning", IEEE Micro 1996): for each limb b_i of b, one fused pass adds a*b_i and
//! m_i*n to the k+1-limb accumulator and shifts it down a limb. That is Dusse-Kaliski's
//! "Improvement 2" (multiplication interleaved with reduction) on operand scanning. The
//! accumulator is k+1 limbs, so no scratch is needed. Here each pass takes two limbs of
//! b, so four independent multiply-accumulate chains overlap in the pipeline. In portable
//! Rust (`mul`, not `mulx`) at 1024 to 4096 bits this measured the fastest of the forms
//! tried on AMD Zen 4, ahead of classic CIOS, then of separated operand scanning (full
//! product, then REDC row by row) and Dusse-Kaliski's product scanning (FIPS). Dusse and
//! Kaliski chose product scanning for the DSP56000, whose wide accumulator made right
//! shifts the expensive operation; on a 64-bit CPU with add-with-carry the carry chains
//! are the cost, and CIOS keeps them short and independent.
//!
//! Squaring has a dedicated kernel ([`super::mont_sqr::mont_sqr_raw`]): the full square is
//! formed with each cross product a_i*a_j counted once and doubled, about k^2/2 products
//! instead of k^2 (Dusse-Kaliski section 3.2, Markovic et al.), then reduced by
//! [`redc_raw`]. In portable code that REDC is the slower loop, and the CIOS product
//! squares faster; the kernel sets choose (`kernel.rs` gives the reason).
//!
//! # Finishing steps
//!
//! * [`finish_full`]: subtract n when `c*R + r >= n` (masked, constant time). Needs
//!   `c*R + r < 2n`, which holds when the inputs were < n; leaves `r < n`.
//! * [`finish_almost`]: "almost Montgomery" multiplication (Gueron, "Efficient software
//!   implementations of modular exponentiation", 2011): subtract n only when `c = 1`.
//!   Inputs < R give `c*R + r < R + n`, so the result is again < R: a k-limb value that
//!   may exceed n but is congruent to the right residue. Closed under the kernels.
//! * No subtraction at all: if n has headroom (bits(n) <= 64k - 2, so 4n < R) and the
//!   inputs are < 2n, then (a*b + m*n)/R < (4n^2 + R*n)/R = n*(4n/R + 1) < 2n: the result
//!   is < 2n again, `c` is always 0 and the redundant range [0, 2n) is kept through a
//!   whole exponentiation (Dusse-Kaliski Theorem 2 in its unsigned form, which they note
//!   needs N < R/4; Shand-Bertin-Vuillemin's redundant Montgomery results).
//!
//! A chain of almost or redundant products is normalised once at its end ([`normalize`]).

use crate::bignum::{Limb, adc, mac, sbb};
use crate::ct::Choice;

/// Montgomery product: returns `c` with `c*R + r = (a*b + m*n) / R` for the `m` in
/// `[0, R)` that makes the division exact. Any k-limb `a`, `b` (then `c` is 0 or 1).
/// CIOS, two limbs of `b` per pass; constant time. `r`, `a`, `b`, `n` all have k >= 1
/// limbs; n odd; `n0 = -n^-1 mod 2^64`.
pub fn mont_mul_raw(r: &mut [Limb], a: &[Limb], b: &[Limb], n: &[Limb], n0: Limb) -> Limb {
    let k = n.len();
    assert!(
        k > 0 && r.len() == k && a.len() == k && b.len() == k,
        "internal error: mont_mul_raw lengths"
    );
    r.fill(0);
    let mut hi = 0;
    let pairs = k / 2 * 2;
    for i in (0..pairs).step_by(2) {
        cios_pass::<2>(r, &mut hi, a, &b[i..i + 2], n, n0);
    }
    if pairs < k {
        cios_pass::<1>(r, &mut hi, a, &b[k - 1..], n, n0);
    }
    hi
}

/// One CIOS pass over `B` limbs b_0..b_{B-1} of b: the accumulator T = (hi, r) becomes
/// (T + sum_q (a*b_q + m_q*n) 2^(64q)) / 2^(64B), each m_q chosen at column q to clear
/// it. Row q's two products (a*b_q and m_q*n) are two carry chains; with B = 2 the four
/// chains are independent and overlap, which measured faster than one limb per pass (and
/// than four, which runs out of registers).
///
/// Bound: before the pass T < a + n (it starts at 0 and each pass keeps it so: (a + n +
/// a(2^(64B) - 1) + (2^(64B) - 1) n) / 2^(64B) < a + n), so T < 2R and `hi` is 0 or 1.
#[inline(always)]
fn cios_pass<const B: usize>(
    r: &mut [Limb],
    hi: &mut Limb,
    a: &[Limb],
    b: &[Limb],
    n: &[Limb],
    n0: Limb,
) {
    let k = n.len();
    let (r, a, n, b) = (&mut r[..k], &a[..k], &n[..k], &b[..B]);
    let mut m = [0 as Limb; B];
    let mut cab = [0 as Limb; B];
    let mut cmn = [0 as Limb; B];
    // Columns 0..B: row q joins at column q, where m_q is fixed; these columns end at 0.
    for p in 0..B {
        let mut x = r[p];
        for q in 0..p {
            (x, cab[q]) = mac(x, a[p - q], b[q], cab[q]);
            (x, cmn[q]) = mac(x, m[q], n[p - q], cmn[q]);
        }
        (x, cab[p]) = mac(x, a[0], b[p], 0);
        m[p] = x.wrapping_mul(n0);
        // x + m_p*n[0] = 0 mod 2^64 by the choice of m_p: only the carry survives.
        (_, cmn[p]) = mac(x, m[p], n[0], 0);
    }
    // Columns B..k: every row active; column p lands at p - B.
    for p in B..k {
        let mut x = r[p];
        for q in 0..B {
            (x, cab[q]) = mac(x, a[p - q], b[q], cab[q]);
            (x, cmn[q]) = mac(x, m[q], n[p - q], cmn[q]);
        }
        r[p - B] = x;
    }
    // Columns k..k+B: rows run out of products (a, n read as 0 beyond k) and flush their
    // carries; `hi` enters at column k.
    for p in k..k + B {
        let mut x = if p == k { *hi } else { 0 };
        for q in 0..B {
            let j = p - q;
            let (aj, nj) = if j < k { (a[j], n[j]) } else { (0, 0) };
            (x, cab[q]) = mac(x, aj, b[q], cab[q]);
            (x, cmn[q]) = mac(x, m[q], nj, cmn[q]);
        }
        r[p - B] = x;
    }
    // What is left is the carry out of column k+B-1: the new `hi`, 0 or 1 by the bound.
    *hi = cab.iter().chain(&cmn).fold(0, |h: Limb, &c| h.wrapping_add(c));
}

/// Montgomery reduction of a 2k-limb `t` (destroyed): returns `c` with
/// `c*R + r = (t + m*n) / R`, `m` in `[0, R)`. Any 2k-limb `t` (then `c` is 0 or 1).
/// Constant time. `r` and `n` have k >= 1 limbs, `t` has 2k; n odd; `n0 = -n^-1 mod 2^64`.
pub fn redc_raw(r: &mut [Limb], t: &mut [Limb], n: &[Limb], n0: Limb) -> Limb {
    let k = n.len();
    assert!(k > 0 && r.len() == k && t.len() == 2 * k, "internal error: redc_raw lengths");
    // Two rows at a time: the second row's multiplier m1 depends only on the limb the
    // first row leaves at position i+1, so it is ready after two products, and the two
    // rows then run as two independent multiply-accumulate chains (as in CIOS).
    // `hi` is the carry out of the highest position the rows so far have written
    // (i+k-1 after the pair ending at row i-1); it belongs at position i+k. It is 0 or 1:
    // every partial sum is (t + M*n) with M < 2^(64 i), below R^2 + 2^(64 i) n < 2 R^2.
    let n = &n[..k];
    let mut hi: Limb = 0;
    let mut i = 0;
    while i + 2 <= k {
        let row = &mut t[i..i + k + 2];
        let m0 = row[0].wrapping_mul(n0);
        // row[0] + m0*n[0] = 0 mod 2^64 by the choice of m0: only the carry survives.
        let (_, c0) = mac(row[0], m0, n[0], 0);
        let (x, mut c0) = mac(row[1], m0, n[1], c0);
        let m1 = x.wrapping_mul(n0);
        let (_, mut c1) = mac(x, m1, n[0], 0);
        // Positions p = 2..k: row 0 adds m0*n[p], row 1 adds m1*n[p-1].
        for ((rp, &n_p), &n_p1) in row[2..k].iter_mut().zip(&n[2..]).zip(&n[1..k - 1]) {
            let (y, c) = mac(*rp, m0, n_p, c0);
            c0 = c;
            let (z, c) = mac(y, m1, n_p1, c1);
            c1 = c;
            *rp = z;
        }
        // Position k: row 0's carry, the previous pair's `hi`, row 1's last product.
        let (y, cy) = adc(row[k], c0, hi);
        let (z, c) = mac(y, m1, n[k - 1], c1);
        row[k] = z;
        // Position k+1: row 1's carry and the carry out of position k.
        let (s, x) = adc(row[k + 1], c, cy);
        row[k + 1] = s;
        hi = x;
        i += 2;
    }
    if i < k {
        // One row left (k odd): t[k-1..2k] += m*n, plus `hi` at position k-1+k.
        let row = &mut t[i..];
        let m = row[0].wrapping_mul(n0);
        let mut c = 0;
        for (rp, &n_p) in row[..k].iter_mut().zip(n) {
            (*rp, c) = mac(*rp, m, n_p, c);
        }
        let (s, x) = adc(row[k], c, hi);
        row[k] = s;
        hi = x;
    }
    r.copy_from_slice(&t[k..]);
    hi
}

/// `r -= n & mask` over k limbs, returning the borrow masked to `mask` (0 or 1).
#[inline]
pub(crate) fn masked_sub(r: &mut [Limb], n: &[Limb], mask: Limb) -> Limb {
    let mut borrow = 0;
    for (x, &y) in r.iter_mut().zip(n) {
        (*x, borrow) = sbb(*x, y & mask, borrow);
    }
    borrow
}

/// `r += n & mask` over k limbs, returning the carry (0 or 1).
#[inline]
pub(crate) fn masked_add(r: &mut [Limb], n: &[Limb], mask: Limb) -> Limb {
    let mut carry = 0;
    for (x, &y) in r.iter_mut().zip(n) {
        (*x, carry) = adc(*x, y & mask, carry);
    }
    carry
}

/// Full reduction: given `c*R + r < 2n` (`c` in {0, 1}), leaves `r = (c*R + r) mod n`,
/// i.e. subtracts n exactly when `c = 1` or `r >= n`. Constant time: the comparison is a
/// borrow computed over every limb and the subtraction is masked.
#[inline]
pub fn finish_full(r: &mut [Limb], c: Limb, n: &[Limb]) {
    assert_eq!(r.len(), n.len(), "internal error: finish_full lengths");
    let below = crate::bignum::lt_n(r, n);
    let subtract = Choice::from_bit(c) | !below;
    masked_sub(r, n, subtract.mask());
}

/// Almost-Montgomery finish: given `c*R + r < R + n` (`c` in {0, 1}), subtracts n when
/// `c = 1`, leaving a k-limb `r < R` congruent to `c*R + r` but possibly `>= n`.
/// Constant time.
#[inline]
pub fn finish_almost(r: &mut [Limb], c: Limb, n: &[Limb]) {
    assert_eq!(r.len(), n.len(), "internal error: finish_almost lengths");
    masked_sub(r, n, Choice::from_bit(c).mask());
}

/// Brings a k-limb `r < bound_multiple * n` into `[0, n)` with `bound_multiple - 1`
/// masked conditional subtractions. Used once at the end of a chain of almost (`r < R`,
/// so `r < 4n` when n has at least 64k - 1 bits) or redundant (`r < 2n`) products.
/// Constant time for a fixed `bound_multiple`, which is public.
pub fn normalize(r: &mut [Limb], n: &[Limb], bound_multiple: usize) {
    for _ in 1..bound_multiple {
        finish_full(r, 0, n);
    }
}

/// How the exponentiation loops finish each Montgomery product; chosen once per modulus
/// from its (public) size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// Subtract n when the result is >= n: results in [0, n). Needs inputs < n.
    Full,
    /// Subtract n when the carry is set: results in [0, R). Any inputs < R.
    Almost,
    /// No subtraction: results in [0, 2n) for inputs < 2n. Only when 4n < R.
    Redundant,
}

impl Finish {
    /// The cheapest finish that is correct for a modulus of `bits` bits in `k` limbs,
    /// for chains of products whose inputs come from earlier products of the chain.
    pub fn for_size(bits: usize, k: usize) -> Finish {
        if bits + 2 <= 64 * k { Finish::Redundant } else { Finish::Almost }
    }

    /// Applies the finish to a kernel's `(c, r)`.
    #[inline(always)]
    pub fn apply(self, r: &mut [Limb], c: Limb, n: &[Limb]) {
        match self {
            Finish::Full => finish_full(r, c, n),
            Finish::Almost => finish_almost(r, c, n),
            Finish::Redundant => {
                debug_assert_eq!(c, 0, "internal error: redundant product overflowed");
            }
        }
    }

    /// How many multiples of n bound the values a chain under this finish produces
    /// (for [`normalize`]): 1, 4 (n >= R/4 is the only case `Almost` is chosen for, so
    /// R < 4n) and 2.
    pub fn bound_multiple(self) -> usize {
        match self {
            Finish::Full => 1,
            Finish::Almost => 4,
            Finish::Redundant => 2,
        }
    }
}
