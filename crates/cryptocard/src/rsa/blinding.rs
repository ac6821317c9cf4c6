//! Base blinding of the private operation (Kocher 1996, section 10; RFC 8017 section
//! 5.1.2 note; OpenSSL's `BN_BLINDING`).
//!
//! With a random r in [1, n), the private operation runs on c' = c * r^e mod n instead of
//! c, and its result m' = c'^d = m * r mod n is multiplied by r^-1. The exponentiations
//! then see a value the attacker neither knows nor chooses, which defeats timing and
//! power attacks that correlate chosen inputs with the exponent's bits (the constant-time
//! exponentiation is the first line; blinding is the second).
//!
//! Making a fresh pair (A, Ai) = (r^e, r^-1) costs a modular inverse and an
//! exponentiation by e, more than the CRT exponentiations it protects would save if done
//! per operation. So, as `BN_BLINDING` does, a pair is reused: after each use both halves
//! are squared, (r^e)^2 = (r^2)^e and (r^-1)^2 = (r^2)^-1, which is a valid pair for the
//! random-looking r^2; after [`REFRESH_AFTER`] uses the pair is dropped and a fresh r is
//! drawn. Two Montgomery squarings per operation instead of an inversion. In a batch,
//! the blinding products, the unblinding products and these squarings of all the
//! operations run together, eight to an IFMA call where the key runs there (`accel/ifma.rs`).
//!
//! Fresh pairs are made [`FRESH_PAIRS`] at a time with one inversion (Montgomery's
//! simultaneous inversion, "Speeding the Pollard and elliptic curve methods of
//! factorization", 1987, section 10.3.1): with prefix products P_i = r_1 ... r_i, one
//! inverse P_k^-1 gives every r_i^-1 = P_k^-1 (r_k ... r_{i+1}) P_{i-1} for 3 (k - 1)
//! products. The inversion is nearly all of a fresh pair's cost, and even spread over
//! [`REFRESH_AFTER`] uses it would be a visible part of an operation; shared by a set of
//! [`FRESH_PAIRS`], it and the pairs' own products (r^e is 17 of them for e = 65537) come
//! to a small fraction of one, which shows in `private_batch` rates (`crates/bench`,
//! `rsa -- backends`). The price is the rare operation that makes a set, once in
//! `REFRESH_AFTER * FRESH_PAIRS` operations of a key, which takes markedly longer than
//! an ordinary one. The pairs not used at once wait in the pool (the next operations,
//! or the next ones of a batch, take them).
//!
//! Concurrency: a key keeps a pool of pairs behind a mutex held only to pop or push one;
//! a caller takes a pair out, uses it without the lock, and puts its successor back. So
//! no two operations ever share a pair, and concurrent callers wait only for the push and
//! pop (a pool grows to the number of threads that ever ran at once, capped at
//! [`MAX_POOLED`]).
//!
//! Processes: the pool remembers the process id that filled it and empties itself in a
//! child after `fork()`, so a child never reuses a pair its parent used or will use.

use super::on_cores::map_chunks;
use super::tags::N;
use crate::bignum::{LIMB_BITS, LIMB_BYTES, Limb, Nat};
use crate::modular::{Elem, Modulus, Mont, Plain};
use crate::rng::RandomSource;
use crate::{Error, Result};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use zeroize::Zeroizing;

/// Uses of one random r (and its squares) before a new one is drawn (OpenSSL's
/// `BN_BLINDING_COUNTER`).
pub(crate) const REFRESH_AFTER: u32 = 32;

/// The most pairs a key keeps between operations, unless a batch reserved more room.
const MAX_POOLED: usize = 64;

/// The most room a batch may reserve ([`BlindingPool::reserve`]): the GPU's batches put
/// back one successor per operation, which a pool of 64 would mostly drop, so that every
/// batch would make its pairs afresh (an inversion and 32 powers by e per 32 pairs, on
/// the host, against about a microsecond of the device's time per operation). A large
/// GPU batch runs two chunks at once (`batch.rs`; 32,768 requests each unless
/// `CRYPTOCARD_GPU_CHUNK` says otherwise): at 65,536 a chunk, 131,072 pairs of an
/// RSA-4096 key hold 128 MiB.
#[cfg_attr(not(any(feature = "gpu", feature = "hazmat")), allow(dead_code))]
const MAX_RESERVED: usize = 1 << 17;

/// Batches of one key whose pairs may be out at once, each taking its pairs while the
/// others' are on their way: a large GPU batch's two chunks in flight (`batch.rs`), the
/// engine's two offload threads. A GPU batch reserves room for the successors of that
/// many (`gpu/whole.rs`).
pub(crate) const BATCHES_IN_FLIGHT: usize = 2;

/// Fresh pairs made with one inversion (see the module docs): a set lasts 32
/// operations of 32 callers, or 1024 of one.
pub(crate) const FRESH_PAIRS: usize = 32;

/// Tries to draw an invertible r before giving up (a non-invertible r < n would be a
/// factor of n: this loop never repeats for a real key).
const MAX_DRAWS: usize = 8;

/// Candidates drawn for one r below n before giving up: each is below n with probability
/// more than 1/2 (n's top bit is set), so failing all of them is a broken source.
const DRAWS_BELOW_N: usize = 128;

/// A uniform r in [0, n), in constant time: candidates of n's bit length until one is
/// below n. Only the verdict of each comparison is public (a rejected candidate is
/// dropped, so it tells nothing about the accepted one).
fn draw(n: &Modulus<N>, rng: &mut dyn RandomSource) -> Result<Elem<N, Plain>> {
    let k = n.limbs();
    let top_bits = n.bits() - LIMB_BITS * (k - 1);
    let mut bytes = Zeroizing::new(vec![0u8; k * LIMB_BYTES]);
    let mut limbs = Zeroizing::new(vec![0 as Limb; k]);
    for _ in 0..DRAWS_BELOW_N {
        rng.fill_bytes(&mut bytes)?;
        for (l, b) in limbs.iter_mut().zip(bytes.chunks_exact(LIMB_BYTES)) {
            *l = Limb::from_le_bytes(b.try_into().expect("internal error: a limb's bytes"));
        }
        if top_bits < LIMB_BITS {
            limbs[k - 1] &= (1 << top_bits) - 1;
        }
        if let Ok(r) = n.elem_from_limbs(&limbs) {
            return Ok(r);
        }
    }
    Err(Error::Rng)
}

/// A blinding pair in Montgomery form: A = r^e and Ai = r^-1 mod n.
pub(crate) struct Blinder {
    a: Elem<N, Mont>,
    ai: Elem<N, Mont>,
    uses: u32,
}

impl Blinder {
    /// `count` (>= 1) fresh pairs from random r_1, ..., r_count, with one inversion
    /// (Montgomery's trick, module docs). The inverse is a blinded one (BoringSSL's
    /// `BN_mod_inverse_blinded`): with a further random x, t = r_1 ... r_count * x mod n
    /// is inverted by the variable-time extended Euclid, which leaks t (uniform, and
    /// independent of the r_i for an unknown x), and (r_1 ... r_count)^-1 = t^-1 * x.
    /// That is faster than the constant-time inverse here. The exponentiations by e leak
    /// e (public), nothing about r_i.
    fn fresh(
        n: &Modulus<N>,
        e: &Nat,
        count: usize,
        rng: &mut dyn RandomSource,
    ) -> Result<Vec<Blinder>> {
        let n_nat = n.to_nat();
        for _ in 0..MAX_DRAWS {
            let rs: Vec<Elem<N, Mont>> =
                (0..count).map(|_| draw(n, rng).map(|r| n.to_mont(&r))).collect::<Result<_>>()?;
            // prefix[i] = r_1 ... r_(i+1), in Montgomery form.
            let mut prefix: Vec<Elem<N, Mont>> = Vec::with_capacity(count);
            for r in &rs {
                prefix.push(match prefix.last() {
                    Some(p) => n.mul(p, r),
                    None => r.clone(),
                });
            }
            let x = draw(n, rng)?;
            let t = n.mul(&prefix[count - 1], &x);
            super::declassify::blinded_product(&t);
            let t = t.to_nat();
            let Ok(t_inv) = t.mod_inverse_vartime(&n_nat) else { continue };
            // inv = (r_1 ... r_i)^-1 for i = count, then down.
            let inv = n.to_mont(&n.mul(&n.to_mont(&n.elem_from_nat(&t_inv)?), &x));
            let mut inv = faulted!(FreshSet, inv);
            let mut pairs: Vec<Blinder> = Vec::with_capacity(count);
            for i in (0..count).rev() {
                let ai = match i {
                    0 => inv.clone(),
                    _ => n.mul(&inv, &prefix[i - 1]),
                };
                inv = n.mul(&inv, &rs[i]);
                pairs.push(Blinder { a: n.pow_vartime(&rs[i], e), ai, uses: 0 });
            }
            return Ok(pairs);
        }
        Err(Error::Rng)
    }

    /// A = r^e, by which c is multiplied (c' = c A mod n).
    pub(crate) fn a(&self) -> &Elem<N, Mont> {
        &self.a
    }

    /// Ai = r^-1, by which m' is multiplied (m = m' Ai mod n).
    pub(crate) fn ai(&self) -> &Elem<N, Mont> {
        &self.ai
    }

    /// Whether the pair has a successor, (A^2, Ai^2), or is due for a fresh r.
    pub(crate) fn renews(&self) -> bool {
        self.uses + 1 < REFRESH_AFTER
    }

    /// The successor of a pair that [`Blinder::renews`], given A^2 and Ai^2.
    pub(crate) fn renewed(self, a2: Elem<N, Mont>, ai2: Elem<N, Mont>) -> Blinder {
        Blinder { a: a2, ai: ai2, uses: self.uses + 1 }
    }
}

/// A key's pool of blinding pairs, and the process that made them.
#[derive(Default)]
pub(crate) struct BlindingPool {
    free: Mutex<Pooled>,
    /// Room a batch reserved beyond [`MAX_POOLED`] (0: none).
    reserved: AtomicUsize,
}

/// The pooled pairs and the id of the process they belong to.
#[derive(Default)]
struct Pooled {
    pid: u32,
    pairs: Vec<Blinder>,
}

impl BlindingPool {
    /// The pool, emptied first if it holds another process's pairs. A child made by
    /// `fork()` inherits its parent's pool; were it to use those pairs, parent and child
    /// would blind with the same r, and each would know the other's blinding factors
    /// (OpenSSL's `BN_BLINDING` keeps the thread id for the same reason). So a pair is
    /// used only in the process that made it.
    fn lock(&self) -> MutexGuard<'_, Pooled> {
        // A panic while the lock was held cannot leave the vector half-changed (push,
        // pop and clear are the only operations under it), so a poisoned pool is still
        // sound.
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let pid = std::process::id();
        if free.pid != pid {
            free.pairs.clear();
            free.pid = pid;
        }
        free
    }

    /// A pair for one operation: a pooled one, or a fresh one if none is free.
    pub(crate) fn take(
        &self,
        n: &Modulus<N>,
        e: &Nat,
        rng: &mut dyn RandomSource,
    ) -> Result<Blinder> {
        let pooled = self.lock().pairs.pop();
        if let Some(b) = pooled {
            return Ok(b);
        }
        let mut fresh = Blinder::fresh(n, e, FRESH_PAIRS, rng)?;
        let first = fresh.pop().expect("internal error: no fresh blinding pair");
        let mut free = self.lock();
        let room = self.capacity().saturating_sub(free.pairs.len());
        free.pairs.extend(fresh.into_iter().take(room));
        Ok(first)
    }

    /// Fills the pool with fresh sets, made on `threads` threads each drawing from the
    /// operating system ([`crate::rng::OsRng`]), until it holds `want` pairs (whole sets:
    /// up to [`FRESH_PAIRS`] - 1 more), beyond its room if need be: a batch larger than
    /// the room takes them all at once, and only what it puts back is held to the room.
    /// For a GPU batch of thousands on a key whose pool is short (its first batch, or one
    /// larger than the last): [`BlindingPool::take`] would make them a set at a time on
    /// the caller's thread, an inversion and [`FRESH_PAIRS`] powers by e a set, which
    /// at tens of thousands of operations takes longer than the device's whole batch.
    #[cfg_attr(not(any(feature = "gpu", feature = "hazmat")), allow(dead_code))]
    pub(crate) fn fill(&self, n: &Modulus<N>, e: &Nat, want: usize, threads: usize) -> Result<()> {
        let missing = want.saturating_sub(self.lock().pairs.len());
        let sets: Vec<usize> = (0..missing.div_ceil(FRESH_PAIRS)).collect();
        let made = map_chunks(&sets, threads, |_| {
            Blinder::fresh(n, e, FRESH_PAIRS, &mut crate::rng::OsRng)
        });
        let mut free = self.lock();
        for pairs in made {
            free.pairs.extend(pairs?);
        }
        Ok(())
    }

    /// `count` pairs for a batch's operations, under one lock: the pooled ones, then
    /// fresh ones as [`BlindingPool::take`] makes them.
    #[cfg_attr(not(any(feature = "gpu", feature = "hazmat")), allow(dead_code))]
    pub(crate) fn take_many(
        &self,
        n: &Modulus<N>,
        e: &Nat,
        count: usize,
        rng: &mut dyn RandomSource,
    ) -> Vec<Result<Blinder>> {
        let mut got: Vec<Result<Blinder>> = {
            let mut free = self.lock();
            let keep = free.pairs.len().saturating_sub(count);
            free.pairs.drain(keep..).map(Ok).collect()
        };
        while got.len() < count {
            got.push(self.take(n, e, rng));
        }
        got
    }

    /// Puts a batch's successors back under one lock, as many as the pool has room for.
    pub(crate) fn put_many(&self, pairs: impl IntoIterator<Item = Blinder>) {
        let mut free = self.lock();
        let room = self.capacity().saturating_sub(free.pairs.len());
        free.pairs.extend(pairs.into_iter().take(room));
    }

    /// Puts a pair (a used pair's successor) into the pool, unless it is full.
    pub(crate) fn put(&self, pair: Blinder) {
        self.put_many(core::iter::once(pair));
    }

    /// Makes room for `n` pairs (at most [`MAX_RESERVED`]): a batch of n operations on
    /// the key, whose successors should all come back for the next batch.
    #[cfg_attr(not(any(feature = "gpu", feature = "hazmat")), allow(dead_code))]
    pub(crate) fn reserve(&self, n: usize) {
        self.reserved.fetch_max(n.min(MAX_RESERVED), Ordering::Relaxed);
    }

    /// The most pairs the pool keeps now.
    fn capacity(&self) -> usize {
        MAX_POOLED.max(self.reserved.load(Ordering::Relaxed))
    }

    /// Drops every pooled pair (after a failed fault check: they may share its fault).
    pub(crate) fn clear(&self) {
        self.lock().pairs.clear();
    }

    /// The number of pooled pairs (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().pairs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsa::key::test_key_2048 as key;

    /// Every pair of a simultaneous set is valid, A * Ai^e = r^e r^-e = 1 mod n, and
    /// the pairs differ; so are their successors (A^2, Ai^2).
    #[test]
    fn fresh_pairs_are_inverse_pairs() {
        let key = key();
        let (n, e) = (&key.public.n, &key.public.e);
        let mut rng = crate::rng::OsRng;
        for count in [1, 2, FRESH_PAIRS] {
            let pairs = Blinder::fresh(n, e, count, &mut rng).unwrap();
            assert_eq!(pairs.len(), count);
            let one = n.one::<Mont>();
            for (i, b) in pairs.iter().enumerate() {
                let ai_e = n.pow_vartime(&b.ai, e);
                assert!(n.mul(&b.a, &ai_e).ct_eq(&one).declassify(), "pair {i} of {count}");
                for other in &pairs[..i] {
                    assert!(!other.a.ct_eq(&b.a).declassify(), "pairs repeat");
                }
            }
            for b in pairs {
                assert!(b.renews());
                let (a2, ai2) = (n.sqr(&b.a), n.sqr(&b.ai));
                let next = b.renewed(a2, ai2);
                let ai_e = n.pow_vartime(&next.ai, e);
                assert!(n.mul(&next.a, &ai_e).ct_eq(&one).declassify());
            }
        }
    }

    /// A pool made empty hands out one fresh pair and keeps the rest of its set.
    #[test]
    fn empty_pool_keeps_the_rest_of_a_set() {
        let key = key();
        let (n, e) = (&key.public.n, &key.public.e);
        let pool = BlindingPool::default();
        let first = pool.take(n, e, &mut crate::rng::OsRng).unwrap();
        assert_eq!(pool.len(), FRESH_PAIRS - 1);
        pool.put(first);
        assert_eq!(pool.len(), FRESH_PAIRS);
    }

    /// `fill` makes the pairs a batch lacks on several threads, in whole sets, beyond
    /// the pool's room (which holds only what is put back), each a valid pair unlike the
    /// others; a pool that holds enough makes none.
    #[test]
    fn fill_makes_what_a_batch_lacks_on_threads() {
        let key = key();
        let (n, e) = (&key.public.n, &key.public.e);
        let pool = BlindingPool::default();
        pool.fill(n, e, 150, 3).unwrap();
        assert!((150..150 + FRESH_PAIRS).contains(&pool.len()), "whole sets: {}", pool.len());
        pool.fill(n, e, 200, 3).unwrap();
        let held = pool.len();
        assert!((200..200 + FRESH_PAIRS).contains(&held), "whole sets: {held}");
        pool.fill(n, e, 200, 3).unwrap();
        assert_eq!(pool.len(), held, "nothing lacks");
        let one = n.one::<Mont>();
        let pairs: Vec<Blinder> =
            (0..held).map(|_| pool.take(n, e, &mut crate::rng::OsRng).unwrap()).collect();
        assert_eq!(pool.len(), 0);
        for b in pairs.iter().take(MAX_POOLED + 1) {
            pool.put(Blinder { a: b.a.clone(), ai: b.ai.clone(), uses: 0 });
        }
        assert_eq!(pool.len(), MAX_POOLED, "what comes back is held to the room");
        for (i, b) in pairs.iter().enumerate() {
            let ai_e = n.pow_vartime(&b.ai, e);
            assert!(n.mul(&b.a, &ai_e).ct_eq(&one).declassify(), "pair {i}");
            assert!(pairs[..i].iter().all(|o| !o.a.ct_eq(&b.a).declassify()), "pairs repeat");
        }
    }

    /// A pool keeps at most 64 pairs, unless a batch reserved room for more (up to
    /// `MAX_RESERVED`); reserving less never shrinks it.
    #[test]
    fn reserved_room_keeps_a_batch_of_successors() {
        let key = key();
        let (n, e) = (&key.public.n, &key.public.e);
        let pairs = || Blinder::fresh(n, e, 200, &mut crate::rng::OsRng).unwrap();
        let pool = BlindingPool::default();
        pairs().into_iter().for_each(|p| pool.put(p));
        assert_eq!(pool.len(), MAX_POOLED);
        pool.reserve(150);
        pool.reserve(10);
        pairs().into_iter().for_each(|p| pool.put(p));
        assert_eq!(pool.len(), 150);
        pool.reserve(usize::MAX);
        assert_eq!(pool.capacity(), MAX_RESERVED);
    }
}
