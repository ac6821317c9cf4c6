//! Reduction of long values mod n through Montgomery products, without division.
//!
//! **Wide values (< n*R).** For x < n*R, REDC(x) = x*R^-1 mod n arrives fully reduced
//! ((x + m*n)/R < 2n, one conditional subtraction). A Montgomery product with R^2 then
//! gives x mod n, and one with R^3 gives x*R mod n, its Montgomery form, directly. This
//! is what RSA-CRT needs to reduce c < p*q mod p with p's own limbs: q < R, so
//! c < p*R ([`Modulus::reduce_wide`]).
//!
//! **Any length.** Split x into k-limb chunks X_{t-1}, ..., X_0, x = sum X_j R^j, and run
//! Horner's rule with an accumulator a < n: the 2k-limb value a*R + X_j is < n*R, so
//! REDC(a*R + X_j) = (a*R + X_j) R^-1 mod n, and a product with R^2 restores the scale:
//! a <- (a*R + X_j) mod n. Two products per chunk ([`Modulus::reduce_limbs`]); when n
//! fills its top limb (n >= R/2), the top chunk X < R < 2n needs only a conditional
//! subtraction, so a 2k-limb x (c mod p in RSA-CRT) costs one REDC and one product.
//!
//! Both are constant time in the value of x; their cost depends on x's limb length.

use super::elem::{Elem, Mont, Plain};
use super::modulus::Modulus;
use super::mont::finish_full;
use super::mont_sqr::with_stack_limbs;
use crate::bignum::{LIMB_BITS, Limb, lt_n};
use crate::{Error, Result};
use zeroize::{Zeroize, Zeroizing};

impl<M> Modulus<M> {
    /// x mod n for `x` of any length (little-endian limbs; the length is public, the
    /// value is not). Two Montgomery products per k limbs of `x`.
    pub fn reduce_limbs(&self, x: &[Limb]) -> Elem<M, Plain> {
        Elem::from_boxed(self.reduce_chunks(x, false))
    }

    /// x*R mod n (the Montgomery form of x mod n) for `x` of any length.
    pub fn reduce_limbs_mont(&self, x: &[Limb]) -> Elem<M, Mont> {
        Elem::from_boxed(self.reduce_chunks(x, true))
    }

    /// x mod n for `x` of at most 2k limbs with x < n*R, by one REDC and one product
    /// with R^2. Fails with [`Error::InvalidArgument`] if `x` is longer or not < n*R;
    /// leaks only that.
    pub fn reduce_wide(&self, x: &[Limb]) -> Result<Elem<M, Plain>> {
        self.reduce_wide_with(x, false).map(Elem::from_boxed)
    }

    /// x*R mod n for `x` of at most 2k limbs with x < n*R, by one REDC and one product
    /// with R^3: straight into Montgomery form. Fails as [`Modulus::reduce_wide`].
    pub fn reduce_wide_mont(&self, x: &[Limb]) -> Result<Elem<M, Mont>> {
        self.reduce_wide_with(x, true).map(Elem::from_boxed)
    }

    fn reduce_wide_with(&self, x: &[Limb], mont: bool) -> Result<Box<[Limb]>> {
        let k = self.limbs();
        if x.len() > 2 * k {
            return Err(Error::InvalidArgument("value is longer than twice the modulus"));
        }
        let mut r = vec![0; k].into_boxed_slice();
        let ok = with_stack_limbs(2 * k, |t| {
            t[..x.len()].copy_from_slice(x);
            // x < n*R exactly when its high k limbs are < n.
            if !lt_n(&t[k..], &self.n).declassify() {
                return false;
            }
            // x R^-1 mod n: as secret as x mod n (wiped, as `reduce_chunks` wipes its y).
            let mut y = Zeroizing::new(vec![0; k]);
            self.redc_limbs(&mut y, t);
            self.mul_limbs(&mut r, &y, if mont { &self.rrr } else { &self.rr });
            true
        });
        if ok { Ok(r) } else { Err(Error::InvalidArgument("value is not less than n*R")) }
    }

    fn reduce_chunks(&self, x: &[Limb], mont: bool) -> Box<[Limb]> {
        let k = self.limbs();
        let mut acc = vec![0; k].into_boxed_slice();
        let mut y = vec![0; k];
        let mut chunks = x.len().div_ceil(k);
        // The top chunk with n >= R/2 (a full top limb: public): X < R <= 2n, so one
        // conditional subtraction reduces it, saving its Horner step (half the work for
        // a 2k-limb x, all of it for a k-limb one).
        if chunks > 0 && self.bits() == LIMB_BITS * k {
            chunks -= 1;
            let top = &x[chunks * k..];
            acc[..top.len()].copy_from_slice(top);
            finish_full(&mut acc, 0, self.as_limbs());
            if chunks == 0 && mont {
                y.copy_from_slice(&acc);
                self.mul_limbs(&mut acc, &y, &self.rr);
            }
        }
        with_stack_limbs(2 * k, |t| {
            for j in (0..chunks).rev() {
                let chunk = &x[j * k..x.len().min((j + 1) * k)];
                t.fill(0);
                t[..chunk.len()].copy_from_slice(chunk);
                t[k..].copy_from_slice(&acc);
                // acc < n and X_j < R, so acc*R + X_j < n*R.
                self.redc_limbs(&mut y, t);
                let scale = if mont && j == 0 { &self.rrr } else { &self.rr };
                self.mul_limbs(&mut acc, &y, scale);
            }
        });
        y.zeroize();
        acc
    }
}
