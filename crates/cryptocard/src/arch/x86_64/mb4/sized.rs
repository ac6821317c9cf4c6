//! The four-lane kernels in their compiled digit counts ([`DIGITS`]): the Montgomery
//! parameters of a secret modulus held as one of them, and the exponentiation dispatched
//! on it, so that the RSA layer (`rsa/accel/avx2.rs`) never sees a const generic.
//!
//! # Secrets
//!
//! The modulus may be an RSA prime. [`SecretParams28::new`] takes `RR = 2^(56 D) mod p`
//! from the caller, computed in constant time by the modular core, so nothing here
//! divides by `p`, and the parameters are built in constant time
//! (`RadixParams::new_secret`). The digits of `p`, `RR` and `k0` are zeroized on drop.

use super::exp::{LANES, Mb4Lane, exp_mb4};
use super::{DIGITS, Params28};
use crate::Error;
use crate::arch::x86_64::cpu::Avx2;
use crate::arch::x86_64::ifma::LaneStatus;

/// The Montgomery parameters of a (possibly secret) modulus in one of [`DIGITS`].
pub(crate) enum SecretParams28 {
    D20(Box<Params28<20>>),
    D38(Box<Params28<38>>),
    D56(Box<Params28<56>>),
    D74(Box<Params28<74>>),
}

fn build<const D: usize>(p: &[u64], rr: &[u64]) -> Result<Box<Params28<D>>, Error> {
    Params28::<D>::new_secret(p, rr).map(Box::new)
}

impl SecretParams28 {
    /// Parameters for the odd modulus `p` (little-endian limbs) in `digits` digits (one of
    /// [`DIGITS`]), with `rr = 2^(56 digits) mod p`. Fails if the count is not compiled, or
    /// as `RadixParams::new` (even modulus, too long for the count).
    pub(crate) fn new(p: &[u64], rr: &[u64], digits: usize) -> Result<SecretParams28, Error> {
        Ok(match digits {
            20 => SecretParams28::D20(build(p, rr)?),
            38 => SecretParams28::D38(build(p, rr)?),
            56 => SecretParams28::D56(build(p, rr)?),
            74 => SecretParams28::D74(build(p, rr)?),
            _ => return Err(Error::InvalidArgument("no AVX2 kernels for this digit count")),
        })
    }

    /// The digit count.
    pub(crate) fn digits(&self) -> usize {
        match self {
            SecretParams28::D20(_) => 20,
            SecretParams28::D38(_) => 38,
            SecretParams28::D56(_) => 56,
            SecretParams28::D74(_) => 74,
        }
    }
}

impl Drop for SecretParams28 {
    fn drop(&mut self) {
        match self {
            SecretParams28::D20(p) => p.zeroize_secrets(),
            SecretParams28::D38(p) => p.zeroize_secrets(),
            SecretParams28::D56(p) => p.zeroize_secrets(),
            SecretParams28::D74(p) => p.zeroize_secrets(),
        }
    }
}

/// One lane of [`exp_mb4_secret`]: `out = base^exp mod p`, `p` given by its parameters.
pub(crate) struct SecretLane28<'a> {
    pub(crate) params: &'a SecretParams28,
    pub(crate) base: &'a [u64],
    pub(crate) exp: &'a [u64],
    pub(crate) out: &'a mut [u64],
}

/// Up to four exponentiations in one call, each lane's exponent its own (`public` is
/// `None`) or the public `e` in every lane. Every lane's modulus must be of the digit
/// count of the first lane, or that lane fails ([`LaneStatus::Failed`] with
/// [`Error::Internal`], its output zero-filled). Statuses as [`exp_mb4`].
pub(crate) fn exp_mb4_secret(
    avx2: Avx2,
    lanes: [Option<SecretLane28<'_>>; LANES],
    public: Option<&[u64]>,
) -> [LaneStatus; LANES] {
    let Some(first) = lanes.iter().flatten().next() else { return [LaneStatus::Empty; LANES] };
    match first.params.digits() {
        20 => run::<20>(avx2, lanes, public, |p| match p {
            SecretParams28::D20(p) => Some(p),
            _ => None,
        }),
        38 => run::<38>(avx2, lanes, public, |p| match p {
            SecretParams28::D38(p) => Some(p),
            _ => None,
        }),
        56 => run::<56>(avx2, lanes, public, |p| match p {
            SecretParams28::D56(p) => Some(p),
            _ => None,
        }),
        _ => run::<74>(avx2, lanes, public, |p| match p {
            SecretParams28::D74(p) => Some(p),
            _ => None,
        }),
    }
}

/// The call in the class `D`; `class` gives a lane's parameters if they are of it.
fn run<'a, const D: usize>(
    avx2: Avx2,
    mut lanes: [Option<SecretLane28<'a>>; LANES],
    public: Option<&[u64]>,
    class: impl Fn(&'a SecretParams28) -> Option<&'a Box<Params28<D>>>,
) -> [LaneStatus; LANES] {
    debug_assert!(DIGITS.contains(&D));
    let mut wrong = [false; LANES];
    let lanes = core::array::from_fn(|l| {
        let lane = lanes[l].take()?;
        match class(lane.params) {
            Some(params) => Some(Mb4Lane { params, base: lane.base, exp: lane.exp, out: lane.out }),
            None => {
                lane.out.fill(0);
                wrong[l] = true;
                None
            }
        }
    });
    let mut status = exp_mb4::<D>(avx2, lanes, public);
    for (s, w) in status.iter_mut().zip(wrong) {
        if w {
            *s = LaneStatus::Failed(Error::Internal("lanes of one call must share a digit count"));
        }
    }
    status
}
