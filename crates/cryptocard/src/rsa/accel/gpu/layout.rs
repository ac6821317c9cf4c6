//! The words the GPU kernel reads and writes (`kernel/rsa_op.cuh` documents the same
//! layout from its side): a key's image, uploaded once per key, and the interleaved
//! planes of a batch of operations.
//!
//! The device works in 32-bit limbs (its multiplier's width); the host's limbs are 64
//! bits. A key runs on the device only when its two primes have the same number of
//! 64-bit limbs, L64, and n has 2 L64 of them: then L = 2 L64 and R = 2^(32 L) =
//! 2^(64 L64), so the host's Montgomery constants (R^2 mod p, q, n; qInv R mod p; the
//! blinding pair's A R and Ai R mod n) are the device's, limb for limb, and the low half
//! of the host's -p^-1 mod 2^64 is the device's -p^-1 mod 2^32. Such a key's primes are
//! below R, so its cofactors are too, which the kernel's reduction of c' mod p (one
//! REDC and a product by R^2, valid for c' < p R) needs. Every two-prime key cryptocard
//! makes or reads whose primes have equal length qualifies (RSA-1024 to RSA-4096); others
//! (multi-prime, unbalanced primes, over 4096 bits, e over 64 bits) run on the CPU.

use crate::bignum::{Limb, Nat};
use crate::modular::Modulus;
use crate::rsa::crt::CrtKey;
use crate::rsa::tags::N;
use zeroize::Zeroizing;

/// The image's first word (`CC_KEY_MAGIC`).
pub const KEY_MAGIC: u32 = 0x4343_0001;
/// Words of the image's header (`CC_KEY_HDR`).
pub const KEY_HDR: usize = 16;
/// The largest prime in 32-bit limbs (`CC_PRIME_MAX`).
pub const PRIME_MAX: usize = 64;
/// The widest fixed window the kernel takes (`CC_WINDOW_MAX`).
pub const WINDOW_MAX: u32 = 5;
/// The fixed window the backend runs (4 or 5: a 1024- to 2048-bit exponent is cheapest
/// in products at 5, and every table entry is read each time, so the table's size costs
/// time too). Not yet chosen by measurement: see the module docs of `gpu`.
pub const WINDOW: u32 = 5;

/// The operation's result left the device (`CC_STATUS_OK`).
pub const STATUS_OK: u32 = 0;
/// The fault check m^e = c mod n failed (`CC_STATUS_FAULT`): no result.
pub const STATUS_FAULT: u32 = 1;
/// An input was not below n (`CC_STATUS_BAD_INPUT`).
pub const STATUS_BAD_INPUT: u32 = 2;
/// The key image or its index was unusable (`CC_STATUS_BAD_KEY`).
pub const STATUS_BAD_KEY: u32 = 3;

/// The input planes: c, A R mod n, Ai R mod n.
pub const IN_PLANES: usize = 3;
/// The output planes: m, A^2 R mod n, Ai^2 R mod n.
pub const OUT_PLANES: usize = 3;

/// Words of the image of a key with primes of `l` limbs (`CC_KEY_WORDS`).
pub const fn key_words(l: usize) -> usize {
    KEY_HDR + 11 * l
}

/// Appends 64-bit limbs as pairs of 32-bit ones, low half first.
fn push_limbs(out: &mut Vec<u32>, limbs: &[Limb]) {
    for &l in limbs {
        out.push(l as u32);
        out.push((l >> 32) as u32);
    }
}

/// The primes' length in 32-bit limbs if the key runs on the device (module docs),
/// else `None`.
pub(crate) fn prime_words(crt: &CrtKey, n: &Modulus<N>, e: &Nat) -> Option<usize> {
    let l64 = crt.p.modulus.limbs();
    let fits = crt.others.is_empty()
        && crt.q.modulus.limbs() == l64
        && n.limbs() == 2 * l64
        && 2 * l64 <= PRIME_MAX
        && e.bits() <= 64;
    fits.then_some(2 * l64)
}

/// The key's image (see `kernel/rsa_op.cuh`), or `None` for a key that runs on the CPU.
/// Holds the primes and CRT exponents: wiped when dropped.
pub(crate) fn key_image(crt: &CrtKey, n: &Modulus<N>, e: &Nat) -> Option<Zeroizing<Vec<u32>>> {
    let l = prime_words(crt, n, e)?;
    let e64 = e.as_limbs().first().copied().unwrap_or(0);
    let (p, q) = (&crt.p.modulus, &crt.q.modulus);
    let mut img = Zeroizing::new(Vec::with_capacity(key_words(l)));
    img.extend_from_slice(&[
        KEY_MAGIC,
        l as u32,
        2 * l as u32,
        p.n0 as u32,
        q.n0 as u32,
        n.n0 as u32,
        e64 as u32,
        (e64 >> 32) as u32,
    ]);
    img.resize(KEY_HDR, 0);
    push_limbs(&mut img, &p.n);
    push_limbs(&mut img, &q.n);
    push_limbs(&mut img, &crt.p.exponent);
    push_limbs(&mut img, &crt.q.exponent);
    push_limbs(&mut img, crt.q_inv.as_limbs());
    push_limbs(&mut img, &p.rr);
    push_limbs(&mut img, &q.rr);
    push_limbs(&mut img, &n.n);
    push_limbs(&mut img, &n.rr);
    debug_assert_eq!(img.len(), key_words(l), "internal error: a key image's length");
    Some(img)
}

/// A batch's operations, interleaved as the kernel reads them: word j of plane k of
/// operation i at `(k words + j) count + i`, so that the threads of a warp (one
/// operation each) read consecutive words. `words` is the widest n of the batch.
pub(crate) struct Planes {
    pub(crate) words: usize,
    pub(crate) count: usize,
    pub(crate) buf: Zeroizing<Vec<u32>>,
}

impl Planes {
    /// Zeroed planes for `count` operations of up to `words` limbs.
    pub(crate) fn new(planes: usize, words: usize, count: usize) -> Planes {
        Planes { words, count, buf: Zeroizing::new(vec![0; planes * words * count]) }
    }

    /// Writes 64-bit limbs as plane `k` of operation `i`.
    pub(crate) fn put(&mut self, k: usize, i: usize, limbs: &[Limb]) {
        let (words, count) = (self.words, self.count);
        for (j, &l) in limbs.iter().enumerate() {
            self.buf[(k * words + 2 * j) * count + i] = l as u32;
            self.buf[(k * words + 2 * j + 1) * count + i] = (l >> 32) as u32;
        }
    }

    /// Plane `k` of operation `i`, its first `limbs` 64-bit limbs.
    pub(crate) fn get(&self, k: usize, i: usize, limbs: usize) -> Zeroizing<Vec<Limb>> {
        let (words, count) = (self.words, self.count);
        let w = |j: usize| Limb::from(self.buf[(k * words + j) * count + i]);
        Zeroizing::new((0..limbs).map(|j| w(2 * j) | (w(2 * j + 1) << 32)).collect())
    }
}

/// The kernel's fault hook (`cc_fault`): image word 8 names a phase whose value gets the
/// bit of word 9 flipped; 0 (the library's images) flips nothing. For the tests of the
/// fault check.
pub const FAULT_PHASE_WORD: usize = 8;
/// The bit the hook flips (modulo the value's width).
pub const FAULT_BIT_WORD: usize = 9;
/// Flip a bit of m_p = c_p^dP mod p (`CC_FAULT_MP`).
pub const FAULT_MP: u32 = 1;
/// Flip a bit of m_q (`CC_FAULT_MQ`).
pub const FAULT_MQ: u32 = 2;
/// Flip a bit of Garner's m' (`CC_FAULT_GARNER`).
pub const FAULT_GARNER: u32 = 3;
/// Flip a bit of the unblinded m (`CC_FAULT_UNBLIND`).
pub const FAULT_UNBLIND: u32 = 4;
