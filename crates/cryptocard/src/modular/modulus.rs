//! `Modulus`: an odd modulus with its Montgomery constants, computed once and reused.
//!
//! For n odd with k limbs and R = 2^(64k), a `Modulus` holds
//!
//! * n0 = -n^-1 mod 2^64, the only part of -n^-1 mod R that digit-serial REDC needs;
//! * R mod n (the Montgomery form of 1), R^2 mod n (to enter Montgomery form: a*R^2/R =
//!   a*R) and R^3 mod n (to enter it straight from a REDC result: x*R^-1 * R^3 / R = x*R,
//!   Shand-Bertin-Vuillemin's "B^3 precomputation");
//! * the kernel set ([`super::kernel::KernelSet`]) chosen for this CPU.
//!
//! # n0 by Newton or bit by bit
//!
//! Dusse and Kaliski's MODULAR-INVERSE builds y = x^-1 mod 2^64 one bit at a time: with
//! x*y = 1 mod 2^(i-1), bit i-1 of x*y is either 0 (keep y) or 1 (add 2^(i-1) to y, which
//! adds x*2^(i-1), odd times 2^(i-1), clearing it): 63 multiplications.
//! Newton's iteration y <- y(2 - xy) doubles the number of correct low bits each step
//! (if xy = 1 + e 2^j then x*y(2 - xy) = 1 - e^2 2^(2j)); x is its own inverse mod 8
//! (3 bits), so 5 steps (3, 6, 12, 24, 48, 96) reach 64 bits: 10 multiplications.
//! Both are branch-free; Newton is about six times faster and is the one used
//! ([`neg_inv_limb`]); the tests check that they agree.
//!
//! # R mod n and R^2 mod n without division
//!
//! Let b = bits(n). Then 2^(b-1) < n (n is odd, so n != 2^(b-1)). Doubling with one
//! conditional subtraction keeps a value in [0, n) (2x < 2n), so 64k - b + 1 doublings
//! from 2^(b-1) give R mod n, and k more give 2^k R mod n, the Montgomery form of 2^k.
//! Six Montgomery squarings then square the represented power six times: 2^k -> 2^(64k),
//! i.e. the Montgomery form of R, which is R^2 mod n. One more product gives R^3 mod n.
//! The cost depends on k and b only (public sizes), never on the other bits of n: at most
//! 64 + k masked doublings and seven products.

use super::kernel::{KernelSet, MontKernel, with_kernel};
use super::mont::finish_full;
use super::mont_sqr::MAX_LIMBS;
use crate::bignum::{LIMB_BITS, Limb, Nat, shape};
use crate::{Error, Result};
use core::marker::PhantomData;
use zeroize::Zeroize;

/// The largest modulus accepted, in bits.
pub const MAX_BITS: usize = MAX_LIMBS * LIMB_BITS;

/// The tag of a modulus that needs no name of its own (see [`Modulus`]).
#[derive(Debug)]
pub enum Anon {}

/// An odd modulus n, 3 <= n < 2^16384, with its Montgomery constants.
///
/// `M` is a type-level tag naming the modulus, so that residues of different moduli
/// cannot be mixed: the RSA layer uses one tag for p, one for q, one for n and one shared
/// by the extra primes of a multi-prime key. Tags are uninhabited types
/// (`enum P {}`); [`Anon`] serves where no name is needed. One tag must name one modulus
/// at a time: elements are checked only for having the modulus's length.
///
/// The modulus may be secret (an RSA prime): it is zeroised on drop, and nothing here
/// branches on or indexes by its value; its limb count and bit length are public.
pub struct Modulus<M = Anon> {
    pub(crate) n: Box<[Limb]>,
    pub(crate) n0: Limb,
    /// R mod n.
    pub(crate) one: Box<[Limb]>,
    /// R^2 mod n.
    pub(crate) rr: Box<[Limb]>,
    /// R^3 mod n.
    pub(crate) rrr: Box<[Limb]>,
    bits: usize,
    pub(crate) kernels: KernelSet,
    _tag: PhantomData<fn() -> M>,
}

impl<M> Modulus<M> {
    /// Marks the modulus and its Montgomery constants secret for the constant-time
    /// validation under valgrind ([`crate::ct::mark_secret`]; a secret prime's). Its
    /// length stays public.
    #[cfg(feature = "ct-validation")]
    pub fn mark_secret_for_validation(&self) {
        use crate::ct::mark_secret;
        for x in [&self.n, &self.one, &self.rr, &self.rrr] {
            mark_secret(x);
        }
        mark_secret(core::slice::from_ref(&self.n0));
    }

    /// Builds the modulus from a `Nat`. Fails with [`Error::InvalidArgument`] for an even
    /// modulus, zero, one, or more than [`MAX_BITS`] bits.
    pub fn from_nat(n: &Nat) -> Result<Self> {
        Self::from_limbs(n.as_limbs())
    }

    /// Builds the modulus from big-endian bytes (leading zeros allowed), with the checks
    /// of [`Modulus::from_nat`].
    pub fn from_be_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_nat(&Nat::from_be_bytes(bytes))
    }

    /// Builds the modulus from little-endian limbs (high zero limbs are dropped), with
    /// the checks of [`Modulus::from_nat`].
    pub fn from_limbs(limbs: &[Limb]) -> Result<Self> {
        // Its size and parity are public even for a secret prime (`bignum::shape`).
        let len = shape::limbs(limbs);
        let limbs = &limbs[..len];
        if limbs.is_empty() {
            return Err(Error::InvalidArgument("modulus is zero"));
        }
        if !shape::odd(limbs) {
            return Err(Error::InvalidArgument("modulus is even"));
        }
        let bits = shape::bits(limbs);
        if bits == 1 {
            return Err(Error::InvalidArgument("modulus is one"));
        }
        if len > MAX_LIMBS {
            return Err(Error::InvalidArgument("modulus is larger than 16384 bits"));
        }
        let n: Box<[Limb]> = limbs.into();
        let n0 = neg_inv_limb(n[0]);
        let kernels = KernelSet::detect();
        let RPowers { one, rr, rrr } = with_kernel!(kernels, |k| r_powers(k, &n, n0, bits));
        Ok(Modulus { n, n0, one, rr, rrr, bits, kernels, _tag: PhantomData })
    }

    /// The same modulus on the portable kernels, whatever the CPU offers: the reference
    /// the CPU-specific kernels are tested against (the integration tests) and the
    /// baseline the benchmark crate (`crates/bench`, `modexp`) times them against. Behind
    /// the `hazmat` feature: a user has no reason to refuse the faster kernels.
    #[cfg(feature = "hazmat")]
    pub fn with_portable_kernels(mut self) -> Self {
        self.kernels = KernelSet::Portable;
        self
    }

    /// The name of the kernel set this modulus runs on: `"portable"` or `"adx"`
    /// (x86-64 `mulx/adcx/adox`).
    pub fn kernels(&self) -> &'static str {
        match self.kernels {
            KernelSet::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            KernelSet::Adx(_) => "adx",
        }
    }

    /// The modulus's bit length.
    pub fn bits(&self) -> usize {
        self.bits
    }

    /// The modulus's length in limbs, k; R = 2^(64k).
    pub fn limbs(&self) -> usize {
        self.n.len()
    }

    /// The modulus's length in bytes (of its minimal big-endian encoding).
    pub fn byte_len(&self) -> usize {
        self.bits.div_ceil(8)
    }

    /// The modulus's little-endian limbs (k of them, the top one non-zero).
    pub fn as_limbs(&self) -> &[Limb] {
        &self.n
    }

    /// The modulus as a `Nat`.
    pub fn to_nat(&self) -> Nat {
        Nat::from_slice(&self.n)
    }

    /// n0 = -n^-1 mod 2^64.
    pub fn n0(&self) -> Limb {
        self.n0
    }

    /// True when n has at least two bits of headroom in its top limb (bits <= 64k - 2),
    /// so that Montgomery products can stay redundant in [0, 2n) with no subtraction.
    pub fn has_headroom(&self) -> bool {
        self.bits + 2 <= LIMB_BITS * self.n.len()
    }

    /// `r = a*b/R mod n`, fully reduced; needs `a*b < n*R` (e.g. a, b < n). Constant time.
    pub(crate) fn mul_limbs(&self, r: &mut [Limb], a: &[Limb], b: &[Limb]) {
        let c = with_kernel!(self.kernels, |k| k.mul(r, a, b, &self.n, self.n0));
        finish_full(r, c, &self.n);
    }

    /// `r = a^2/R mod n`, fully reduced; needs `a < n`. Constant time.
    pub(crate) fn sqr_limbs(&self, r: &mut [Limb], a: &[Limb]) {
        let c = with_kernel!(self.kernels, |k| k.sqr(r, a, &self.n, self.n0));
        finish_full(r, c, &self.n);
    }

    /// `r = t/R mod n` for a 2k-limb `t < n*R` (destroyed), fully reduced. Constant time.
    pub(crate) fn redc_limbs(&self, r: &mut [Limb], t: &mut [Limb]) {
        let c = with_kernel!(self.kernels, |k| k.redc(r, t, &self.n, self.n0));
        finish_full(r, c, &self.n);
    }
}

/// -x^-1 mod 2^64 for odd `x`, by Newton's iteration (see the module docs). Constant
/// time. For even `x` the result is meaningless.
pub const fn neg_inv_limb(x: Limb) -> Limb {
    // x*x = 1 mod 8 for odd x: 3 correct bits; each step doubles them.
    let mut y = x;
    let mut i = 0;
    while i < 5 {
        y = y.wrapping_mul(2u64.wrapping_sub(x.wrapping_mul(y)));
        i += 1;
    }
    y.wrapping_neg()
}

/// -x^-1 mod 2^64 for odd `x`, by Dusse and Kaliski's bit-by-bit MODULAR-INVERSE (kept
/// as the reference for [`neg_inv_limb`]). Constant time: the bit decision is a mask.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))] // public in `crate::hazmat`
pub const fn neg_inv_limb_dusse_kaliski(x: Limb) -> Limb {
    // Invariant: x*y = 1 mod 2^i. If bit i of x*y is set, adding 2^i to y clears it.
    let mut y: Limb = 1;
    let mut i = 1;
    while i < 64 {
        let bit = (x.wrapping_mul(y) >> i) & 1;
        y |= bit << i;
        i += 1;
    }
    y.wrapping_neg()
}

/// R mod n, R^2 mod n and R^3 mod n.
struct RPowers {
    one: Box<[Limb]>,
    rr: Box<[Limb]>,
    rrr: Box<[Limb]>,
}

/// The powers of R mod the k-limb odd n of `bits` bits, n > 1.
fn r_powers<K: MontKernel>(kern: K, n: &[Limb], n0: Limb, bits: usize) -> RPowers {
    let k = n.len();
    let mut x = vec![0; k];
    x[(bits - 1) / LIMB_BITS] = 1 << ((bits - 1) % LIMB_BITS);
    for _ in 0..LIMB_BITS * k - bits + 1 {
        double_mod(&mut x, n);
    }
    let one: Box<[Limb]> = x.as_slice().into();
    for _ in 0..k {
        double_mod(&mut x, n);
    }
    // x = 2^k R mod n; six squarings: 2^(k 2^6) R = R * R mod n.
    let mut y = vec![0; k];
    for _ in 0..6 {
        let c = kern.sqr(&mut y, &x, n, n0);
        finish_full(&mut y, c, n);
        core::mem::swap(&mut x, &mut y);
    }
    let c = kern.mul(&mut y, &x, &x, n, n0);
    finish_full(&mut y, c, n);
    RPowers { one, rr: x.into_boxed_slice(), rrr: y.into_boxed_slice() }
}

/// x = 2x mod n for x < n, in constant time.
fn double_mod(x: &mut [Limb], n: &[Limb]) {
    let mut top = 0;
    for l in x.iter_mut() {
        let t = *l >> (LIMB_BITS - 1);
        *l = (*l << 1) | top;
        top = t;
    }
    // 2x < 2n: one conditional subtraction.
    finish_full(x, top, n);
}

impl<M> Clone for Modulus<M> {
    fn clone(&self) -> Self {
        Modulus {
            n: self.n.clone(),
            n0: self.n0,
            one: self.one.clone(),
            rr: self.rr.clone(),
            rrr: self.rrr.clone(),
            bits: self.bits,
            kernels: self.kernels,
            _tag: PhantomData,
        }
    }
}

impl<M> Drop for Modulus<M> {
    fn drop(&mut self) {
        self.n.zeroize();
        self.n0.zeroize();
        self.one.zeroize();
        self.rr.zeroize();
        self.rrr.zeroize();
    }
}

impl<M> core::fmt::Debug for Modulus<M> {
    /// Prints the size only: the modulus may be a secret prime.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Modulus").field("bits", &self.bits).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverses_agree() {
        let mut x = 1u64;
        for i in 0..10_000u64 {
            let odd = x | 1;
            let n0 = neg_inv_limb(odd);
            assert_eq!(odd.wrapping_mul(n0), u64::MAX, "x = {odd:#x}");
            assert_eq!(n0, neg_inv_limb_dusse_kaliski(odd));
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i | 1);
        }
        for odd in [1u64, 3, u64::MAX, 1 << 63 | 1, 0xffff_ffff] {
            assert_eq!(odd.wrapping_mul(neg_inv_limb(odd)), u64::MAX);
            assert_eq!(neg_inv_limb(odd), neg_inv_limb_dusse_kaliski(odd));
        }
    }

    #[test]
    fn rejects_bad_moduli() {
        let bad = [vec![], vec![0], vec![1], vec![2], vec![0, 1], vec![1; MAX_LIMBS + 1]];
        for limbs in bad {
            assert!(matches!(Modulus::<Anon>::from_limbs(&limbs), Err(Error::InvalidArgument(_))));
        }
        assert!(Modulus::<Anon>::from_be_bytes(&[0, 0, 3]).is_ok());
        assert!(Modulus::<Anon>::from_limbs(&[!0; MAX_LIMBS]).is_ok());
    }

    #[test]
    fn small_modulus_constants() {
        // n = 3, k = 1: R = 2^64 = 1 mod 3, R^2 = 1, R^3 = 1.
        let m = Modulus::<Anon>::from_limbs(&[3]).unwrap();
        assert_eq!((&*m.one, &*m.rr, &*m.rrr), (&[1][..], &[1][..], &[1][..]));
        // n = 2^64 - 59 (prime): R mod n = 59, R^2 mod n = 59^2, R^3 = 59^3.
        let m = Modulus::<Anon>::from_limbs(&[!0 - 58]).unwrap();
        assert_eq!((m.one[0], m.rr[0], m.rrr[0]), (59, 59 * 59, 59 * 59 * 59));
        assert_eq!(m.bits(), 64);
        assert!(!m.has_headroom());
    }
}
