//! The kernels in their compiled digit counts: Montgomery parameters of a secret modulus
//! held as one of a fixed set of `D` (`DIGITS`), and the x2 and mb8 exponentiations and
//! mb8 products dispatched on it. The kernels are generic in `D`; this file names the
//! instantiations, so that callers (the RSA layer, which decides which moduli run in
//! which count: `rsa/accel/ifma_key.rs`) never see a const generic.
//!
//! Each `D` is a separate instantiation of every kernel, so the set is short: the counts
//! that hold the primes of the common RSA sizes. A count of `D` digits holds every odd
//! modulus of at most `52 D - 2` bits ([`max_modulus_bits`], see `super`). The
//! transposed mb8 kernels exist up to 60 digits ([`SecretParams52::has_mb8`]): above, the
//! accumulator of eight lanes does not fit the register file.
//!
//! # Secrets
//!
//! The modulus may be secret (an RSA prime). [`SecretParams52::new`] takes `RR = 2^(104
//! D) mod p` from the caller, computed in constant time by the modular core, so nothing
//! here divides by `p`; the parameters are built with `RadixParams::new_secret`, in
//! constant time (only the verdict that `p` is odd and fits the digit count, public facts
//! about an RSA prime, is made public). The digits of `p`, `RR` and `k0` are zeroized on
//! drop.
//!
//! The mb8 batches take the prepared parameters as they are ([`exp_mb8_prepared`]); the
//! kernel does not rebuild them from limbs (`Params52::new`'s `RR < p` check is a
//! variable-time comparison, fine for public moduli only).
//!
//! [`max_modulus_bits`]: super::radix52::max_modulus_bits

use super::LaneStatus;
use super::exp_mb8::{Mb8PreparedLane, exp_mb8_prepared, exp_mb8_prepared_public};
use super::exp_x2::{exp_public_x2, exp_x2};
use super::mont_mb8;
use super::radix52::Params52;
use crate::Error;
use crate::arch::x86_64::cpu::Ifma;

/// The digit counts the kernels are compiled for, in increasing order (the arms of
/// [`SecretParams52`]; the tests check the RSA layer's classes against them).
pub(crate) const DIGITS: [usize; 6] = [10, 20, 30, 40, 60, 79];

/// The smallest compiled digit count that holds every odd modulus of `limbs` 64-bit
/// limbs, for 8 to 64 limbs (512- to 4096-bit moduli); `None` outside that range.
pub(crate) fn digits_for_limbs(limbs: usize) -> Option<usize> {
    if limbs < 8 {
        return None;
    }
    DIGITS.into_iter().find(|&d| super::radix52::max_modulus_bits(d) >= 64 * limbs)
}

/// The Montgomery parameters of a (possibly secret) modulus in one of `DIGITS`.
pub(crate) enum SecretParams52 {
    D10(Box<Params52<10>>),
    D20(Box<Params52<20>>),
    D30(Box<Params52<30>>),
    D40(Box<Params52<40>>),
    D60(Box<Params52<60>>),
    D79(Box<Params52<79>>),
}

/// Runs `$body` with `$p` bound to the inner `Params52<D>` and `D` as a constant.
macro_rules! with_class {
    ($self:expr, $p:ident, $d:ident => $body:expr) => {
        match $self {
            SecretParams52::D10($p) => {
                const $d: usize = 10;
                $body
            }
            SecretParams52::D20($p) => {
                const $d: usize = 20;
                $body
            }
            SecretParams52::D30($p) => {
                const $d: usize = 30;
                $body
            }
            SecretParams52::D40($p) => {
                const $d: usize = 40;
                $body
            }
            SecretParams52::D60($p) => {
                const $d: usize = 60;
                $body
            }
            SecretParams52::D79($p) => {
                const $d: usize = 79;
                $body
            }
        }
    };
}

/// Runs `$body` with `$pair` bound to the two primes' `[&Params52<D>; 2]` and `D` as a
/// constant when both primes of `$params` are of class `D`; [`Error::Internal`]
/// otherwise.
macro_rules! with_pair {
    ($params:expr, $pair:ident, $d:ident => $body:expr) => {
        with_pair!(@ $params, $pair, $d, $body, D10 10, D20 20, D30 30, D40 40, D60 60, D79 79)
    };
    (@ $params:expr, $pair:ident, $d:ident, $body:expr, $($v:ident $n:literal),*) => {
        match $params {
            $([SecretParams52::$v(a), SecretParams52::$v(b)] => {
                const $d: usize = $n;
                let $pair = [&**a, &**b];
                $body
            })*
            _ => Err(Error::Internal("x2 needs two moduli of one digit count")),
        }
    };
}

fn build<const D: usize>(p: &[u64], rr: &[u64]) -> Result<Box<Params52<D>>, Error> {
    Params52::<D>::new_secret(p, rr).map(Box::new)
}

impl SecretParams52 {
    /// Parameters for the odd modulus `p` (little-endian limbs) in `digits` digits (one of
    /// `DIGITS`, with room for `p`) with `rr = 2^(2 * 52 * D) mod p`, fully reduced, in
    /// at most `p.len()` limbs (empty for the products of [`mont_mul_mb8`], which need
    /// none). [`Error::Internal`] for a digit count not in `DIGITS`. `rr` is not
    /// checked: a wrong one gives wrong results (the RSA layer's fault check catches
    /// them). Constant time in `p` and `rr`.
    pub(crate) fn new(p: &[u64], rr: &[u64], digits: usize) -> Result<SecretParams52, Error> {
        Ok(match digits {
            10 => SecretParams52::D10(build(p, rr)?),
            20 => SecretParams52::D20(build(p, rr)?),
            30 => SecretParams52::D30(build(p, rr)?),
            40 => SecretParams52::D40(build(p, rr)?),
            60 => SecretParams52::D60(build(p, rr)?),
            79 => SecretParams52::D79(build(p, rr)?),
            _ => return Err(Error::Internal("no IFMA kernels for this digit count")),
        })
    }

    /// The digit count `D`.
    pub(crate) fn digits(&self) -> usize {
        with_class!(self, _p, D => D)
    }

    /// `out[s] = base[s]^exp[s] mod p_s` for the two primes `params` of one class,
    /// interleaved ([`exp_x2`]; its contract). [`Error::Internal`] if the classes
    /// differ.
    pub(crate) fn exp_x2(
        ifma: Ifma,
        out: [&mut [u64]; 2],
        base: [&[u64]; 2],
        exp: [&[u64]; 2],
        params: [&SecretParams52; 2],
    ) -> Result<(), Error> {
        with_pair!(params, pair, D => exp_x2::<D>(ifma, out, base, exp, pair))
    }

    /// `out[s] = base[s]^e mod p_s` for the two primes `params` of one class and the
    /// public exponent `e` ([`exp_public_x2`]; its contract), in time that depends on
    /// `e`. [`Error::Internal`] if the classes differ.
    pub(crate) fn exp_public_x2(
        ifma: Ifma,
        out: [&mut [u64]; 2],
        base: [&[u64]; 2],
        e: &[u64],
        params: [&SecretParams52; 2],
    ) -> Result<(), Error> {
        with_pair!(params, pair, D => exp_public_x2::<D>(ifma, out, base, e, pair))
    }

    /// `out = base^exp mod p` for one number, in one slot of x2 (the other slot repeats
    /// it, its work wasted: still faster than the scalar core). Contract as
    /// [`SecretParams52::exp_x2`]; constant time in `base`, `exp` and `p`.
    pub(crate) fn exp_one(
        &self,
        ifma: Ifma,
        out: &mut [u64],
        base: &[u64],
        exp: &[u64],
    ) -> Result<(), Error> {
        let mut spare = zeroize::Zeroizing::new(vec![0; out.len()]);
        Self::exp_x2(ifma, [out, &mut spare], [base, base], [exp, exp], [self, self])
    }

    /// `out = base^e mod p` for one number and a public `e`, in one slot of x2 as
    /// [`SecretParams52::exp_one`]; time depends on `e`.
    pub(crate) fn exp_public_one(
        &self,
        ifma: Ifma,
        out: &mut [u64],
        base: &[u64],
        e: &[u64],
    ) -> Result<(), Error> {
        let mut spare = zeroize::Zeroizing::new(vec![0; out.len()]);
        Self::exp_public_x2(ifma, [out, &mut spare], [base, base], e, [self, self])
    }

    /// The parameters as those of class `D`, if that is this class.
    fn class<const D: usize>(&self) -> Option<&Params52<D>> {
        with_class!(self, p, _E => (&**p as &dyn core::any::Any).downcast_ref::<Params52<D>>())
    }

    /// Whether the transposed 8-lane kernels ([`exp_mb8_secret`], [`mont_mul_mb8`]) are
    /// compiled for this digit count: those with a column-group width (`mb8_columns`), 10 to 60
    /// digits. At 79 the generic `exp_mb8` would run four x2 pairs, which a caller runs
    /// better itself.
    pub(crate) fn has_mb8(&self) -> bool {
        !matches!(self, SecretParams52::D79(_))
    }
}

impl Drop for SecretParams52 {
    fn drop(&mut self) {
        with_class!(self, p, _D => p.zeroize_secrets())
    }
}

/// One lane of [`exp_mb8_secret`]: `out = base^exp mod p`, `p` given by its parameters
/// (the kernel takes their digits as they are: nothing about `p` is checked or converted
/// again).
pub(crate) struct SecretLane<'a> {
    pub(crate) params: &'a SecretParams52,
    pub(crate) base: &'a [u64],
    pub(crate) exp: &'a [u64],
    pub(crate) out: &'a mut [u64],
}

/// Up to eight exponentiations in one mb8 batch; every lane's prime must be of the class
/// `D` of the first lane with [`SecretParams52::has_mb8`], or that lane fails
/// ([`LaneStatus::Failed`] with [`Error::Internal`]). Per-lane status as
/// [`exp_mb8`](super::exp_mb8::exp_mb8).
pub(crate) fn exp_mb8_secret(ifma: Ifma, lanes: [Option<SecretLane<'_>>; 8]) -> [LaneStatus; 8] {
    exp_mb8_classes(ifma, lanes, None)
}

/// [`exp_mb8_secret`] with the public exponent `e` in every lane (the lanes' `exp` is not
/// read; binary exponentiation, whose time follows `e`).
pub(crate) fn exp_mb8_public(
    ifma: Ifma,
    lanes: [Option<SecretLane<'_>>; 8],
    e: &[u64],
) -> [LaneStatus; 8] {
    exp_mb8_classes(ifma, lanes, Some(e))
}

fn exp_mb8_classes(
    ifma: Ifma,
    lanes: [Option<SecretLane<'_>>; 8],
    public: Option<&[u64]>,
) -> [LaneStatus; 8] {
    struct Exp<'e> {
        ifma: Ifma,
        public: Option<&'e [u64]>,
    }
    impl<'a> ClassRun<'a, SecretLane<'a>> for Exp<'_> {
        fn run<const D: usize>(
            self,
            lanes: [Option<(SecretLane<'a>, &'a Params52<D>)>; 8],
        ) -> [LaneStatus; 8] {
            let lanes = lanes.map(|l| {
                l.map(|(l, params)| Mb8PreparedLane {
                    params,
                    base: l.base,
                    exp: l.exp,
                    out: l.out,
                })
            });
            match self.public {
                Some(e) => exp_mb8_prepared_public::<D>(self.ifma, lanes, e),
                None => exp_mb8_prepared::<D>(self.ifma, lanes),
            }
        }
    }
    by_class(lanes, Exp { ifma, public })
}

/// One lane of [`mont_mul_mb8`]: `out = x y / 2^(64 L) mod n`, the modular core's
/// Montgomery product (`Modulus::mul`), for the `L`-limb modulus `n` of `params` (made
/// with an empty `RR`: the products need none); `x`, `y` and `out` have `L` limbs and
/// `y < n`.
pub(crate) struct ProductLane<'a> {
    pub(crate) params: &'a SecretParams52,
    pub(crate) x: &'a [u64],
    pub(crate) y: &'a [u64],
    pub(crate) out: &'a mut [u64],
}

/// Up to eight products modulo moduli of one mb8 class in one call
/// ([`mont_mb8::mont_mul_mb8`]); the first lane's class sets the batch's, as in
/// [`exp_mb8_secret`], and statuses are per lane.
pub(crate) fn mont_mul_mb8(ifma: Ifma, lanes: [Option<ProductLane<'_>>; 8]) -> [LaneStatus; 8] {
    struct Mul(Ifma);
    impl<'a> ClassRun<'a, ProductLane<'a>> for Mul {
        fn run<const D: usize>(
            self,
            lanes: [Option<(ProductLane<'a>, &'a Params52<D>)>; 8],
        ) -> [LaneStatus; 8] {
            let lanes = lanes.map(|l| {
                l.map(|(l, params)| mont_mb8::ProductLane { params, x: l.x, y: l.y, out: l.out })
            });
            mont_mb8::mont_mul_mb8::<D>(self.0, lanes)
        }
    }
    by_class(lanes, Mul(ifma))
}

/// A lane of a batch on class parameters.
trait ClassLane<'a> {
    fn params(&self) -> &'a SecretParams52;
}

impl<'a> ClassLane<'a> for SecretLane<'a> {
    fn params(&self) -> &'a SecretParams52 {
        self.params
    }
}

impl<'a> ClassLane<'a> for ProductLane<'a> {
    fn params(&self) -> &'a SecretParams52 {
        self.params
    }
}

/// A batch's kernel call for the class `D`, each lane given with its parameters.
trait ClassRun<'a, L> {
    fn run<const D: usize>(self, lanes: [Option<(L, &'a Params52<D>)>; 8]) -> [LaneStatus; 8];
}

/// Runs `run` in the class of the first lane (which must have an mb8 batch), with the
/// lanes of that class; a lane of another class fails with [`Error::Internal`].
fn by_class<'a, L: ClassLane<'a>>(
    lanes: [Option<L>; 8],
    run: impl ClassRun<'a, L>,
) -> [LaneStatus; 8] {
    let Some(first) = lanes.iter().flatten().next() else { return [LaneStatus::Empty; 8] };
    match first.params().digits() {
        10 => in_class::<10, L>(lanes, run),
        20 => in_class::<20, L>(lanes, run),
        30 => in_class::<30, L>(lanes, run),
        40 => in_class::<40, L>(lanes, run),
        60 => in_class::<60, L>(lanes, run),
        _ => lanes.map(|l| match l {
            Some(_) => LaneStatus::Failed(Error::Internal("no mb8 batch for this class")),
            None => LaneStatus::Empty,
        }),
    }
}

fn in_class<'a, const D: usize, L: ClassLane<'a>>(
    lanes: [Option<L>; 8],
    run: impl ClassRun<'a, L>,
) -> [LaneStatus; 8] {
    let mut wrong_class = [false; 8];
    let mut kernel_lanes: [Option<(L, &'a Params52<D>)>; 8] = Default::default();
    for (l, lane) in lanes.into_iter().enumerate() {
        let Some(lane) = lane else { continue };
        match lane.params().class::<D>() {
            Some(params) => kernel_lanes[l] = Some((lane, params)),
            None => wrong_class[l] = true,
        }
    }
    let mut status = run.run::<D>(kernel_lanes);
    for (s, wrong) in status.iter_mut().zip(wrong_class) {
        if wrong {
            *s = LaneStatus::Failed(Error::Internal("mixed classes in one mb8 batch"));
        }
    }
    status
}
