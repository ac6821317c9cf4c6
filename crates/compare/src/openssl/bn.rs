//! Modular exponentiation and multiplication with OpenSSL's `BIGNUM`s.
//!
//! [`ModExp`] precomputes the Montgomery context once and then runs
//! `BN_mod_exp_mont_consttime` (fixed window, constant-time table access: what RSA
//! private keys use) or `BN_mod_exp_mont` (sliding window, variable time).

use super::fns::{BIGNUM, BN_CTX, BN_MONT_CTX};
use super::{Openssl, c_len};
use crate::{PeerError, Result};
use std::ptr;

/// Owned BIGNUMs plus a BN_CTX, freed together.
struct Nums<const N: usize> {
    lib: &'static Openssl,
    bn: [*mut BIGNUM; N],
    ctx: *mut BN_CTX,
}

impl<const N: usize> Nums<N> {
    /// `N` numbers: the first is a fresh zero (the result), the rest read from `values`.
    fn new(lib: &'static Openssl, values: [&[u8]; N]) -> Result<Self> {
        let mut nums = Nums { lib, bn: [ptr::null_mut(); N], ctx: ptr::null_mut() };
        // SAFETY: allocates a fresh context.
        nums.ctx = lib.non_null(unsafe { (lib.fns.BN_CTX_new)() }, "BN_CTX_new")?;
        for (slot, value) in nums.bn.iter_mut().zip(values) {
            // SAFETY: `value` is readable for its (checked) length; a NULL `ret` makes
            // BN_bin2bn allocate a new BIGNUM, owned by `nums` from here on.
            *slot = lib.non_null(
                unsafe {
                    (lib.fns.BN_bin2bn)(value.as_ptr(), c_len(value.len())?, ptr::null_mut())
                },
                "BN_bin2bn",
            )?;
        }
        Ok(nums)
    }

    /// Number `i` as big-endian bytes, left-padded to `len`.
    fn to_bytes(&self, i: usize, len: usize) -> Result<Vec<u8>> {
        let mut out = vec![0u8; len];
        // SAFETY: `out` is writable for `len` bytes; BN_bn2binpad fails rather than
        // overflow when the number needs more.
        let n = unsafe { (self.lib.fns.BN_bn2binpad)(self.bn[i], out.as_mut_ptr(), c_len(len)?) };
        if n < 0 {
            Err(PeerError::InvalidInput("number longer than the requested length"))
        } else {
            Ok(out)
        }
    }

    /// Bits of number `i`.
    fn bits(&self, i: usize) -> usize {
        // SAFETY: `bn[i]` is a valid BIGNUM.
        unsafe { (self.lib.fns.BN_num_bits)(self.bn[i]) }.max(0) as usize
    }
}

impl<const N: usize> Drop for Nums<N> {
    fn drop(&mut self) {
        // SAFETY: all owned by this value (or NULL, which the free functions accept).
        unsafe {
            for &b in &self.bn {
                (self.lib.fns.BN_free)(b);
            }
            (self.lib.fns.BN_CTX_free)(self.ctx);
        }
    }
}

/// A prepared `base^exp mod modulus` (numbers as big-endian bytes).
pub struct ModExp {
    // Indices: 0 result, 1 base, 2 exponent, 3 modulus.
    nums: Nums<4>,
    mont: *mut BN_MONT_CTX,
    len: usize,
}

impl std::fmt::Debug for ModExp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModExp").field("modulus_bytes", &self.len).finish()
    }
}

// SAFETY: the BIGNUMs and contexts belong to this value alone; `&mut self` on every
// operation keeps them to one thread at a time.
unsafe impl Send for ModExp {}

impl Openssl {
    /// Prepares `base^exp mod modulus`. The modulus must be odd (Montgomery form) and
    /// above one.
    pub fn modexp(&'static self, base: &[u8], exp: &[u8], modulus: &[u8]) -> Result<ModExp> {
        let nums = Nums::new(self, [&[], base, exp, modulus])?;
        // SAFETY: `bn[3]` is a valid BIGNUM.
        if unsafe { (self.fns.BN_is_odd)(nums.bn[3]) } != 1 || nums.bits(3) < 2 {
            return Err(PeerError::InvalidInput("modulus must be odd and greater than one"));
        }
        let len = nums.bits(3).div_ceil(8);
        let mut m = ModExp { nums, mont: ptr::null_mut(), len };
        // SAFETY: allocates a fresh Montgomery context, owned by `m`.
        m.mont = self.non_null(unsafe { (self.fns.BN_MONT_CTX_new)() }, "BN_MONT_CTX_new")?;
        // SAFETY: the modulus is odd, the BN_CTX valid.
        let rc = unsafe { (self.fns.BN_MONT_CTX_set)(m.mont, m.nums.bn[3], m.nums.ctx) };
        self.check(rc, "BN_MONT_CTX_set")?;
        Ok(m)
    }
}

impl ModExp {
    /// Computes with `BN_mod_exp_mont_consttime`.
    pub fn run_consttime(&mut self) -> Result<()> {
        let (lib, n) = (self.nums.lib, &self.nums);
        // SAFETY: all BIGNUMs, the BN_CTX and the Montgomery context (for this modulus) are
        // valid; the result does not alias an input.
        let rc = unsafe {
            (lib.fns.BN_mod_exp_mont_consttime)(
                n.bn[0], n.bn[1], n.bn[2], n.bn[3], n.ctx, self.mont,
            )
        };
        lib.check(rc, "BN_mod_exp_mont_consttime")
    }

    /// Computes with `BN_mod_exp_mont` (variable time).
    pub fn run_vartime(&mut self) -> Result<()> {
        let (lib, n) = (self.nums.lib, &self.nums);
        // SAFETY: as in `run_consttime`.
        let rc = unsafe {
            (lib.fns.BN_mod_exp_mont)(n.bn[0], n.bn[1], n.bn[2], n.bn[3], n.ctx, self.mont)
        };
        lib.check(rc, "BN_mod_exp_mont")
    }

    /// The last result, big-endian, as long as the modulus.
    pub fn result(&self) -> Result<Vec<u8>> {
        self.nums.to_bytes(0, self.len)
    }
}

impl Drop for ModExp {
    fn drop(&mut self) {
        // SAFETY: owned by this value (or NULL), not used again.
        unsafe { (self.nums.lib.fns.BN_MONT_CTX_free)(self.mont) };
    }
}

/// A prepared product `a * b` (big-endian bytes), computed by `BN_mul`.
pub struct BnMul {
    // Indices: 0 result, 1 a, 2 b.
    nums: Nums<3>,
}

impl std::fmt::Debug for BnMul {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BnMul").finish_non_exhaustive()
    }
}

// SAFETY: as for `ModExp`.
unsafe impl Send for BnMul {}

impl Openssl {
    /// Prepares the product `a * b`.
    pub fn bn_mul(&'static self, a: &[u8], b: &[u8]) -> Result<BnMul> {
        Ok(BnMul { nums: Nums::new(self, [&[], a, b])? })
    }
}

impl BnMul {
    /// Computes the product.
    pub fn run(&mut self) -> Result<()> {
        let (lib, n) = (self.nums.lib, &self.nums);
        // SAFETY: valid BIGNUMs and BN_CTX; the result does not alias an input.
        let rc = unsafe { (lib.fns.BN_mul)(n.bn[0], n.bn[1], n.bn[2], n.ctx) };
        lib.check(rc, "BN_mul")
    }

    /// The last product, big-endian, minimal length.
    pub fn result(&self) -> Result<Vec<u8>> {
        self.nums.to_bytes(0, self.nums.bits(0).div_ceil(8))
    }
}
