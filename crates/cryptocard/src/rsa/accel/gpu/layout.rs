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
/// The fixed window the backend runs: 4 bits. At 5 an RSA-2048 exponent takes fewer
/// products, but every table entry is read at every window, so the table's size costs
/// time too; on an H200 the 4-bit window was as fast or faster at every size, by a third
/// at RSA-1024 on the FP64 units (docs/gpu.md).
pub const WINDOW: u32 = 4;
/// The requests a large batch hands the device at a time, unless `CRYPTOCARD_GPU_CHUNK`
/// says otherwise (`rsa/batch.rs` runs a batch of two chunks or more as a pipeline):
/// 32,768, on an H200 the fastest end to end at batches of 262,144 (against 65,536 and
/// 16,384) and within a tenth of the fastest, 16,384, at 65,536 (docs/gpu.md).
pub const CHUNK: usize = 32768;

/// The operation's result left the device (`CC_STATUS_OK`).
pub const STATUS_OK: u32 = 0;
/// The fault check m^e = c mod n failed (`CC_STATUS_FAULT`): no result.
pub const STATUS_FAULT: u32 = 1;
/// An input was not below n (`CC_STATUS_BAD_INPUT`).
pub const STATUS_BAD_INPUT: u32 = 2;
/// The key image or its index was unusable (`CC_STATUS_BAD_KEY`).
pub const STATUS_BAD_KEY: u32 = 3;
/// What the driver writes in every status word before a launch, and no kernel writes:
/// an operation the kernels did not reach fails with it instead of reading as
/// [`STATUS_OK`].
pub const STATUS_UNSET: u32 = u32::MAX;

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

/// Operations a block of [`Columns::put_block`] and [`Columns::get_block`]: a row's
/// words of a block are a kilobyte of one page, so that a block touches each row's page
/// once, while the block's operations (three planes of 256 bytes each at RSA-2048) stay
/// in the core's cache across the rows.
pub(crate) const BLOCK: usize = 256;

/// A batch's operations, interleaved as the kernel reads them: word j of plane k of
/// operation i at `(k words + j) count + i`, so that the threads of a warp (one
/// operation each) read consecutive words. `words` is the widest n of the batch.
pub(crate) struct Planes {
    pub(crate) words: usize,
    pub(crate) count: usize,
    pub(crate) buf: PlaneBuf,
}

/// Where a batch's planes live: the heap, or (feature `gpu`) page-locked host memory
/// that the device copies from and to directly, kept between batches
/// (`staging.rs`'s [`super::staging::Staging`]). Both are wiped when dropped.
pub(crate) enum PlaneBuf {
    Heap(Zeroizing<Vec<u32>>),
    #[cfg(feature = "gpu")]
    Pinned(super::staging::Staging),
}

impl PlaneBuf {
    /// Gives the memory up without wiping, keeping or freeing it: page-locked planes a
    /// device copy may still be writing to (the stream could not say that it ended), so
    /// that nothing else ever gets that memory. Heap planes are copied to synchronously
    /// (CUDA waits for a copy to pageable memory), so nothing is in flight on them.
    #[cfg(feature = "gpu")]
    pub(crate) fn abandon(&mut self) {
        if let PlaneBuf::Pinned(s) = self {
            s.abandon();
        }
    }
}

impl core::ops::Deref for PlaneBuf {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match self {
            PlaneBuf::Heap(v) => v,
            #[cfg(feature = "gpu")]
            PlaneBuf::Pinned(s) => s,
        }
    }
}

impl core::ops::DerefMut for PlaneBuf {
    fn deref_mut(&mut self) -> &mut [u32] {
        match self {
            PlaneBuf::Heap(v) => v,
            #[cfg(feature = "gpu")]
            PlaneBuf::Pinned(s) => s,
        }
    }
}

/// Consecutive operations of [`Planes`] (columns `first..first + count`), each row's
/// part of them a slice of its own: threads pack and unpack the planes a range each.
pub(crate) struct Columns<'a> {
    /// The planes' width in 32-bit words.
    pub(crate) words: usize,
    pub(crate) first: usize,
    pub(crate) count: usize,
    /// Row r (word r % words of plane r / words): the range's words.
    rows: Vec<&'a mut [u32]>,
}

impl Planes {
    /// Zeroed planes for `count` operations of up to `words` limbs.
    pub(crate) fn new(planes: usize, words: usize, count: usize) -> Planes {
        Planes::from_vec(words, count, vec![0; planes * words * count])
    }

    /// Planes for `count` operations of `words` limbs in `buf`.
    pub(crate) fn from_vec(words: usize, count: usize, buf: Vec<u32>) -> Planes {
        Planes { words, count, buf: PlaneBuf::Heap(Zeroizing::new(buf)) }
    }

    /// The planes cut into ranges of `per` operations (the last shorter), in order.
    pub(crate) fn columns(&mut self, per: usize) -> Vec<Columns<'_>> {
        let (words, count, per) = (self.words, self.count, per.max(1));
        let mut parts: Vec<Columns<'_>> = (0..count)
            .step_by(per)
            .map(|first| Columns { words, first, count: per.min(count - first), rows: Vec::new() })
            .collect();
        if count == 0 {
            return parts;
        }
        for mut row in self.buf.chunks_mut(count) {
            for part in parts.iter_mut() {
                let (mine, rest) = core::mem::take(&mut row).split_at_mut(part.count);
                part.rows.push(mine);
                row = rest;
            }
        }
        parts
    }
}

impl Columns<'_> {
    /// Writes plane `k` of the operations from `first` on (the batch's index), `ops[o]`
    /// the 64-bit limbs of operation `first + o` (at most [`BLOCK`] of them, all in this
    /// range; limbs past the end of a short one stay as they are). Word by word across
    /// the block, so that each row's words are written together rather than a cache
    /// line per operation.
    pub(crate) fn put_block(&mut self, k: usize, first: usize, ops: &[&[Limb]]) {
        let at = first - self.first;
        let longest = ops.iter().map(|l| l.len()).max().unwrap_or(0);
        for j in 0..longest {
            let (lo, hi) = self.rows[k * self.words + 2 * j..].split_at_mut(1);
            let (lo, hi) = (&mut lo[0][at..at + ops.len()], &mut hi[0][at..at + ops.len()]);
            for (o, limbs) in ops.iter().enumerate() {
                if let Some(&l) = limbs.get(j) {
                    lo[o] = l as u32;
                    hi[o] = (l >> 32) as u32;
                }
            }
        }
    }

    /// Plane `k` of the `n` operations from `first` on (the batch's index, all in this
    /// range), the first `limbs` 64-bit limbs of each; read word by word across them, as
    /// [`Columns::put_block`] writes.
    pub(crate) fn get_block(
        &self,
        k: usize,
        first: usize,
        n: usize,
        limbs: usize,
    ) -> Vec<Zeroizing<Vec<Limb>>> {
        let at = first - self.first;
        let mut out: Vec<Zeroizing<Vec<Limb>>> =
            (0..n).map(|_| Zeroizing::new(vec![0; limbs])).collect();
        for j in 0..limbs {
            let lo = &self.rows[k * self.words + 2 * j][at..at + n];
            let hi = &self.rows[k * self.words + 2 * j + 1][at..at + n];
            for (x, (&lo, &hi)) in out.iter_mut().zip(lo.iter().zip(hi)) {
                x[j] = Limb::from(lo) | (Limb::from(hi) << 32);
            }
        }
        out
    }
}

/// One operation at a time: the tests' reference for the blocks.
#[cfg(test)]
impl Planes {
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

/// Runs a batch as one launch per size of n: `launch(n_words, op_key, input)` gets the
/// operations whose keys have an n of `n_words` limbs, in planes of that width (the
/// device compiles a module per prime length, which takes its own size only), and their
/// outputs and status words are put back in the batch's order. `key_words[k]` is key
/// k's n in limbs; an operation whose key index is out of range gets
/// [`STATUS_BAD_KEY`] and no launch. A batch of one size whose planes have its width is
/// passed through as it is.
pub(crate) fn by_size(
    key_words: &[usize],
    op_key: &[u32],
    input: &Planes,
    mut launch: impl FnMut(usize, &[u32], &Planes) -> crate::Result<(Planes, Vec<u32>)>,
) -> crate::Result<(Planes, Vec<u32>)> {
    // A key wider than the planes cannot be read from them: no launch, as the kernel.
    let size_of =
        |i: usize| key_words.get(op_key[i] as usize).copied().filter(|&nw| nw <= input.words);
    let mut sizes: Vec<usize> = (0..op_key.len()).filter_map(size_of).collect();
    sizes.sort_unstable();
    sizes.dedup();
    if let [only] = sizes[..]
        && only == input.words
        && (0..op_key.len()).all(|i| size_of(i).is_some())
    {
        return launch(only, op_key, input);
    }
    let (words, count) = (input.words, input.count);
    let mut out = Planes::new(OUT_PLANES, words, count);
    let mut status = vec![STATUS_BAD_KEY; count];
    for nw in sizes {
        let ops: Vec<usize> = (0..count).filter(|&i| size_of(i) == Some(nw)).collect();
        let n = ops.len();
        let mut sub = Planes::new(IN_PLANES, nw, n);
        for (g, &i) in ops.iter().enumerate() {
            for k in 0..IN_PLANES {
                for j in 0..nw {
                    sub.buf[(k * nw + j) * n + g] = input.buf[(k * words + j) * count + i];
                }
            }
        }
        let sub_keys: Vec<u32> = ops.iter().map(|&i| op_key[i]).collect();
        let (sub_out, sub_status) = launch(nw, &sub_keys, &sub)?;
        if sub_status.len() != n || sub_out.buf.len() != OUT_PLANES * nw * n {
            return Err(crate::Error::Unsupported("GPU backend: a short answer"));
        }
        for (g, &i) in ops.iter().enumerate() {
            status[i] = sub_status[g];
            for k in 0..OUT_PLANES {
                for j in 0..nw {
                    out.buf[(k * words + j) * count + i] = sub_out.buf[(k * nw + j) * n + g];
                }
            }
        }
    }
    Ok((out, status))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A mixed batch reaches each launch as its own size, in planes of that width, and
    /// the answers come back to their places; a bad index or a key wider than the
    /// planes fails alone, without a launch.
    #[test]
    fn by_size_splits_and_puts_back() {
        let key_words = [4usize, 2, 4, 8];
        let op_key = [0u32, 1, 2, 1, 9, 3, 0];
        let (words, count) = (4, op_key.len());
        let mut input = Planes::new(IN_PLANES, words, count);
        for (i, w) in input.buf.iter_mut().enumerate() {
            *w = i as u32 + 1;
        }
        let mut launches = Vec::new();
        let (out, status) = by_size(&key_words, &op_key, &input, |nw, keys, planes| {
            assert_eq!(planes.words, nw);
            assert!(keys.iter().all(|&k| key_words[k as usize] == nw));
            launches.push((nw, planes.count));
            // echo the input planes, status = the width
            let out = Planes::from_vec(nw, planes.count, planes.buf.to_vec());
            Ok((out, vec![nw as u32; planes.count]))
        })
        .unwrap();
        assert_eq!(launches, vec![(2, 2), (4, 3)]);
        assert_eq!(status, vec![4, 2, 4, 2, STATUS_BAD_KEY, STATUS_BAD_KEY, 4]);
        for (i, &st) in status.iter().enumerate() {
            let nw = match st {
                STATUS_BAD_KEY => 0,
                s => s as usize,
            };
            for k in 0..OUT_PLANES {
                for j in 0..words {
                    let got = out.buf[(k * words + j) * count + i];
                    let want = if j < nw { input.buf[(k * words + j) * count + i] } else { 0 };
                    assert_eq!(got, want, "op {i} plane {k} word {j}");
                }
            }
        }
        // One size at the planes' width: passed through whole.
        let mut calls = 0;
        let one = by_size(&key_words, &[0, 2, 0], &Planes::new(IN_PLANES, 4, 3), |nw, _, p| {
            calls += 1;
            assert_eq!((nw, p.count), (4, 3));
            Ok((Planes::new(OUT_PLANES, 4, 3), vec![STATUS_OK; 3]))
        })
        .unwrap();
        assert_eq!((calls, one.1), (1, vec![STATUS_OK; 3]));
    }
}
