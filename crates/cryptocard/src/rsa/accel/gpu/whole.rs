//! The whole private operation of a batch on a device ([`private_whole`]): the host's
//! side of it, in safe code and apart from the CUDA calls, so that the tests run it with
//! the kernel built for the host (`crates/gpu-host`) in the device's place.
//!
//! `private.rs` hands the GPU whole operations rather than phases: blinding, the
//! reductions, both exponentiations, Garner, unblinding, the pairs' successors and the
//! fault check all run on the device (`kernel/rsa_op.cuh`), because at a million
//! operations a second the host cannot afford their big-number work. Here the host
//! gives each key of the batch an index (each resident image once), takes a blinding
//! pair from the key's pool for each operation, interleaves c and the pair into the
//! input planes, and afterwards turns each status into a result: the result and the
//! pair's successor (back into the pool, as `private.rs` does for the other units), or,
//! for a failed fault check, [`Error::FaultDetected`] with the operation's pair and the
//! key's pooled ones dropped (a wrong set of pairs would fail each of its operations).
//! A large batch's planes are packed and read on every core, a range of operations a
//! thread ([`Columns`]), into planes the runner gives ([`Runner::planes`]: page-locked
//! memory for the device).

use super::layout::{self, BLOCK, Columns, IN_PLANES, Planes};
use crate::bignum::{Limb, Nat};
use crate::modular::{Elem, Modulus, Plain};
use crate::rng::RandomSource;
use crate::rsa::blinding::{BATCHES_IN_FLIGHT, Blinder, BlindingPool};
use crate::rsa::on_cores::{cores, host_threads, map_parts};
use crate::rsa::tags::N;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// What runs a batch in the kernel's format: the device (`driver.rs`), or in the tests
/// the host build of the same source.
pub(crate) trait Runner {
    /// A key image where the runner reads it.
    type Key: Sync;

    /// The image's n in 32-bit limbs.
    fn n_words(key: &Self::Key) -> usize;

    /// Zeroed planes for `count` operations of `words` limbs, where this runner copies
    /// from fastest (the device: page-locked memory).
    fn planes(&self, planes: usize, words: usize, count: usize) -> Planes {
        Planes::new(planes, words, count)
    }

    /// Runs the batch: `op_key[i]` indexes `keys` (`u32::MAX`: fail the operation), the
    /// input planes are (c, A R, Ai R). The output planes (m, A^2 R, Ai^2 R) and one
    /// status word per operation.
    fn run(
        &self,
        keys: &[&Self::Key],
        op_key: &[u32],
        input: &Planes,
    ) -> Result<(Planes, Vec<u32>)>;
}

/// Operations on one key in a batch from which the pairs its pool lacks are made on
/// every core before the batch ([`BlindingPool::fill`]), rather than a set at a time.
const FILL_MIN: usize = 1024;

/// One operation for [`private_whole`]: its key's pool of pairs, n, e and resident
/// image, and its c (< n).
pub(crate) struct WholeOp<'a, K> {
    pub(crate) pool: &'a BlindingPool,
    pub(crate) n: &'a Modulus<N>,
    pub(crate) e: &'a Nat,
    pub(crate) image: &'a K,
    pub(crate) c: Elem<N, Plain>,
}

/// The whole private operation c^d mod n of `ops` in one run. Results in order; each
/// operation fails alone.
pub(crate) fn private_whole<R: Runner>(
    runner: &R,
    ops: &[WholeOp<'_, R::Key>],
    rng: &mut dyn RandomSource,
) -> Vec<Result<Elem<N, Plain>>> {
    // The keys of the batch, each once (by image), and every operation's index there.
    let mut table: Vec<&R::Key> = Vec::new();
    let mut op_key: Vec<u32> = Vec::with_capacity(ops.len());
    for image in ops.iter().map(|op| op.image) {
        let at = match table.iter().position(|t| core::ptr::eq(*t, image)) {
            Some(i) => i,
            None => {
                table.push(image);
                table.len() - 1
            }
        };
        op_key.push(at as u32);
    }
    // Room in each key's pool for the successors of this batch and of one more in
    // flight, which the next batches take; and for a large batch, the pairs it lacks
    // made now on every core.
    let mut per_key: Vec<(usize, Option<&WholeOp<'_, R::Key>>)> = vec![(0, None); table.len()];
    for (op, &k) in ops.iter().zip(&op_key) {
        let (count, first) = &mut per_key[k as usize];
        *count += 1;
        first.get_or_insert(op);
    }
    // A pair per operation from its key's pool, taken in bulk (one lock a key; an
    // empty pool makes fresh sets).
    let mut taken: Vec<std::vec::IntoIter<Result<Blinder>>> = per_key
        .iter()
        .map(|&(count, first)| match first {
            Some(op) => {
                op.pool.reserve(BATCHES_IN_FLIGHT * count);
                if count >= FILL_MIN {
                    // A failure here leaves the pairs to `take_many`, which reports it.
                    let _ = op.pool.fill(op.n, op.e, count, cores());
                }
                op.pool.take_many(op.n, op.e, count, rng).into_iter()
            }
            None => Vec::new().into_iter(),
        })
        .collect();
    let pairs: Vec<Result<Blinder>> = op_key
        .iter()
        .map(|&k| taken[k as usize].next().unwrap_or(Err(Error::Internal("a pair short"))))
        .collect();
    // The input planes, packed on every core for a large batch (a range of operations
    // a thread, a block at a time).
    let words = table.iter().map(|k| R::n_words(k)).max().unwrap_or(0);
    let per = per_thread(ops.len());
    let mut input = runner.planes(IN_PLANES, words, ops.len());
    map_parts(input.columns(per), |mut part| {
        let end = part.first + part.count;
        for first in (part.first..end).step_by(BLOCK) {
            let block = first..(first + BLOCK).min(end);
            let (ops, pairs) = (&ops[block.clone()], &pairs[block]);
            let of_pair = |f: &dyn Fn(&Blinder) -> &[Limb]| -> Vec<&[Limb]> {
                pairs.iter().map(|p| p.as_ref().map_or(&[][..], f)).collect()
            };
            let cs: Vec<&[Limb]> = ops
                .iter()
                .zip(pairs)
                .map(|(op, p)| if p.is_ok() { op.c.as_limbs() } else { &[] })
                .collect();
            part.put_block(0, first, &cs);
            part.put_block(1, first, &of_pair(&|p| p.a().as_limbs()));
            part.put_block(2, first, &of_pair(&|p| p.ai().as_limbs()));
        }
    });
    for (k, pair) in op_key.iter_mut().zip(&pairs) {
        if pair.is_err() {
            *k = u32::MAX; // the kernel fails it alone (no such key)
        }
    }
    let whole = |(out, status): &(Planes, Vec<u32>)| {
        (out.words, out.count, out.buf.len(), status.len())
            == (words, ops.len(), layout::OUT_PLANES * words * ops.len(), ops.len())
    };
    let (mut out, status) = match runner.run(&table, &op_key, &input) {
        Ok(r) if whole(&r) => r,
        Ok(_) => {
            return ops
                .iter()
                .map(|_| Err(Error::Unsupported("GPU backend: a short answer")))
                .collect();
        }
        Err(e) => return ops.iter().map(|_| Err(e)).collect(),
    };
    // The results and the pairs' successors, read on every core for a large batch (a
    // range of operations a thread, as packed).
    let pair_parts = split_every(pairs, per);
    let parts =
        map_parts(out.columns(per).into_iter().zip(pair_parts).collect(), |(part, pairs)| {
            read_results(
                &part,
                pairs,
                &ops[part.first..],
                &op_key[part.first..],
                &status[part.first..],
            )
        });
    // Each key's successors put back in bulk unless one of its operations failed its
    // fault check (then its pool is emptied instead: a wrong set of pairs would fail each
    // of its operations).
    let mut back: Vec<Vec<Blinder>> = (0..table.len()).map(|_| Vec::new()).collect();
    let mut faulted = vec![false; table.len()];
    let mut results = Vec::with_capacity(ops.len());
    for part in parts {
        results.extend(part.results);
        for (key, pair) in part.successors {
            back[key as usize].push(pair);
        }
        for key in part.faulted {
            faulted[key as usize] = true;
        }
    }
    for ((&(_, first), successors), faulted) in per_key.iter().zip(back).zip(faulted) {
        if let Some(op) = first {
            if faulted {
                op.pool.clear();
            } else {
                op.pool.put_many(successors);
            }
        }
    }
    results
}

/// Operations a thread packs or unpacks in a batch of `count`: the batch spread over
/// [`host_threads`], in whole blocks.
fn per_thread(count: usize) -> usize {
    count.div_ceil(host_threads(count)).next_multiple_of(BLOCK)
}

/// `v` cut into parts of `per` (the last shorter), in order.
fn split_every<T>(v: Vec<T>, per: usize) -> Vec<Vec<T>> {
    let mut items = v.into_iter();
    core::iter::from_fn(|| Some(items.by_ref().take(per.max(1)).collect::<Vec<T>>()))
        .take_while(|part| !part.is_empty())
        .collect()
}

/// What a range of a batch's operations gave: each result in order, the successors of
/// its pairs with their keys' indices, and the keys whose fault check failed.
struct PartResults {
    results: Vec<Result<Elem<N, Plain>>>,
    successors: Vec<(u32, Blinder)>,
    faulted: Vec<u32>,
}

/// The results of the operations of `part` (output planes), a block at a time: `pairs`,
/// `ops`, `op_key` and `status` start at the part's first operation.
fn read_results<K>(
    part: &Columns<'_>,
    pairs: Vec<Result<Blinder>>,
    ops: &[WholeOp<'_, K>],
    op_key: &[u32],
    status: &[u32],
) -> PartResults {
    let mut got = PartResults {
        results: Vec::with_capacity(part.count),
        successors: Vec::new(),
        faulted: Vec::new(),
    };
    let limbs = part.words / 2;
    let end = part.first + part.count;
    let outputs = (part.first..end).step_by(BLOCK).flat_map(|first| {
        let count = BLOCK.min(end - first);
        let [ms, a2s, ai2s] = [0, 1, 2].map(|k| part.get_block(k, first, count, limbs));
        ms.into_iter().zip(a2s).zip(ai2s)
    });
    for (i, (pair, ((m, a2), ai2))) in pairs.into_iter().zip(outputs).enumerate() {
        let (n, key) = (ops[i].n, op_key[i]);
        let result = pair.and_then(|pair| match status[i] {
            layout::STATUS_OK => {
                let m = n.elem_from_limbs(&m[..n.limbs()])?;
                if pair.renews() {
                    // Copied out at its exact length (a shrinking `into_boxed_slice`
                    // may move the words and free the old block unwiped); `x` wipes
                    // itself.
                    let own = |x: Zeroizing<Vec<Limb>>| {
                        Elem::from_boxed(x[..n.limbs()].to_vec().into_boxed_slice())
                    };
                    got.successors.push((key, pair.renewed(own(a2), own(ai2))));
                }
                Ok(m)
            }
            layout::STATUS_FAULT => {
                got.faulted.push(key);
                Err(Error::FaultDetected)
            }
            layout::STATUS_BAD_INPUT => {
                Err(Error::InvalidArgument("value is not less than the modulus"))
            }
            layout::STATUS_BAD_KEY => Err(Error::Internal("the GPU kernel rejected a key image")),
            _ => Err(Error::Internal("the GPU kernels did not reach the operation")),
        });
        got.results.push(result);
    }
    got
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsa::RsaPrivateKey;
    use crate::rsa::accel::gpu::stand_in::StandIn;
    use crate::rsa::key::test_key_2048;
    use zeroize::Zeroizing;

    /// The kernel built for the host, in the device's place: the build for every size,
    /// or (`Sized`) as the driver runs a sized build, one launch per size through
    /// `layout::by_size`, each in the host build of that size's module.
    #[derive(Clone, Copy)]
    enum Host {
        Every,
        Sized,
    }

    impl Runner for Host {
        type Key = Zeroizing<Vec<u32>>;

        fn n_words(key: &Self::Key) -> usize {
            key[2] as usize
        }

        fn run(
            &self,
            keys: &[&Self::Key],
            op_key: &[u32],
            input: &Planes,
        ) -> Result<(Planes, Vec<u32>)> {
            let refs: Vec<&[u32]> = keys.iter().map(|k| k.as_slice()).collect();
            let w = layout::WINDOW;
            let planes = |out: cryptocard_gpu_host::BatchOut, words, count| {
                Ok((Planes::from_vec(words, count, out.out), out.status))
            };
            match self {
                Host::Every => {
                    let out =
                        cryptocard_gpu_host::rsa_private(&refs, op_key, &input.buf, input.words, w);
                    planes(out, input.words, input.count)
                }
                Host::Sized => {
                    let key_words: Vec<usize> = keys.iter().map(|k| Self::n_words(k)).collect();
                    layout::by_size(&key_words, op_key, input, |nw, op_key, sub| {
                        let v = cryptocard_gpu_host::VARIANTS
                            .iter()
                            .find(|v| v.fixed_l == Some(nw / 2) && !v.sqr_by_mul && v.mul_chain)
                            .expect("a sized host build for every test key's size");
                        let out = cryptocard_gpu_host::rsa_private_variant(
                            v, &refs, op_key, &sub.buf, nw, w,
                        );
                        planes(out, nw, sub.count)
                    })
                }
            }
        }
    }

    fn image(key: &RsaPrivateKey) -> Zeroizing<Vec<u32>> {
        layout::key_image(&key.crt, &key.public.n, &key.public.e).unwrap()
    }

    /// Operation c on `key` whose image for the runner is `image`.
    fn whole<'a, K>(key: &'a RsaPrivateKey, image: &'a K, c: &[u8]) -> WholeOp<'a, K> {
        let (pool, n, e) = (&key.blinding, &key.public.n, &key.public.e);
        WholeOp { pool, n, e, image, c: key.rsadp_input(c).unwrap() }
    }

    /// A batch mixing two keys gives the scalar core's results, in order, and puts each
    /// pair's successor back: the pools then hold valid pairs, which later operations on
    /// the CPU use (their fault checks would fail on a wrong one).
    #[test]
    fn whole_batches_match_the_scalar_core_and_renew_pairs() {
        let mut rng = crate::rng::OsRng;
        let keys = [test_key_2048(), RsaPrivateKey::generate(1024, &mut rng).unwrap()];
        let images = [image(&keys[0]), image(&keys[1])];
        let inputs: Vec<(usize, Vec<u8>)> = (0..40u8)
            .map(|i| {
                let k = usize::from(i % 3 == 0);
                let mut x = vec![i; keys[k].size()];
                x[0] = 0x3f;
                (k, x)
            })
            .collect();
        for (round, host) in [Host::Every, Host::Sized, Host::Every, Host::Sized].iter().enumerate()
        {
            let ops: Vec<_> =
                inputs.iter().map(|(k, x)| whole(&keys[*k], &images[*k], x)).collect();
            let got = private_whole(host, &ops, &mut rng);
            assert_eq!(got.len(), inputs.len());
            for (i, ((k, x), m)) in inputs.iter().zip(got).enumerate() {
                let key = &keys[*k];
                let want = key.raw_private(x, &mut rng).unwrap();
                assert_eq!(key.public.n.to_be_bytes(&m.unwrap()), want, "round {round} op {i}");
            }
            assert!(keys[0].blinding.len() > 0 && keys[1].blinding.len() > 0);
        }
    }

    /// A batch reserves room in its key's pool for all its successors (and another
    /// batch's), so the next batch of the same size takes renewed pairs instead of making
    /// them afresh (a pool keeps 64 otherwise).
    #[test]
    fn a_batch_keeps_its_successors_for_the_next() {
        let mut rng = crate::rng::OsRng;
        let key = RsaPrivateKey::generate(1024, &mut rng).unwrap();
        let img = image(&key);
        let inputs: Vec<Vec<u8>> = (0..100u8)
            .map(|i| {
                let mut x = vec![i | 1; key.size()];
                x[0] = 0; // below n
                x
            })
            .collect();
        // The first batch makes its pairs in sets (the rest of the last set stays in
        // the pool); the second takes 100 and puts 100 successors back.
        let mut pooled = Vec::new();
        for _ in 0..2 {
            let ops: Vec<_> = inputs.iter().map(|x| whole(&key, &img, x)).collect();
            let got = private_whole(&Host::Sized, &ops, &mut rng);
            assert!(got.iter().all(Result::is_ok));
            pooled.push(key.blinding.len());
        }
        assert!(pooled[0] >= 100, "every successor kept: {pooled:?}");
        assert_eq!(pooled[0], pooled[1], "the second batch made no pairs");
    }

    /// A fault in the kernel fails the faulty key's operations with FaultDetected and
    /// empties its pool; the other key's operations in the batch succeed.
    #[test]
    fn a_fault_fails_its_operations_alone() {
        let mut rng = crate::rng::OsRng;
        let keys = [test_key_2048(), RsaPrivateKey::generate(1024, &mut rng).unwrap()];
        let mut bad = image(&keys[0]);
        bad[layout::FAULT_PHASE_WORD] = layout::FAULT_MP;
        bad[layout::FAULT_BIT_WORD] = 5;
        let good = image(&keys[1]);
        let x0 = vec![0x11u8; keys[0].size()];
        let x1 = vec![0x22u8; keys[1].size()];
        let ops = vec![
            whole(&keys[0], &bad, &x0),
            whole(&keys[1], &good, &x1),
            whole(&keys[0], &bad, &x0),
        ];
        let got = private_whole(&Host::Sized, &ops, &mut rng);
        assert!(matches!(got[0], Err(Error::FaultDetected)));
        assert!(matches!(got[2], Err(Error::FaultDetected)));
        let m = got[1].as_ref().unwrap();
        assert_eq!(keys[1].public.n.to_be_bytes(m), keys[1].raw_private(&x1, &mut rng).unwrap());
        assert_eq!(keys[0].blinding.len(), 0, "the faulty key's pool is emptied");
    }

    /// The stand-in device (m = c, the pair its own successor), with a fault for every
    /// operation on key `faulty`.
    struct Echo {
        faulty: Option<u32>,
        stand_in: StandIn,
    }

    impl Runner for Echo {
        type Key = RsaPrivateKey;

        fn n_words(key: &Self::Key) -> usize {
            StandIn::n_words(key)
        }

        fn run(
            &self,
            keys: &[&Self::Key],
            op_key: &[u32],
            input: &Planes,
        ) -> Result<(Planes, Vec<u32>)> {
            let (out, mut status) = self.stand_in.run(keys, op_key, input)?;
            for (s, &k) in status.iter_mut().zip(op_key) {
                if Some(k) == self.faulty {
                    *s = layout::STATUS_FAULT;
                }
            }
            Ok((out, status))
        }
    }

    /// A batch large enough to be packed and read on several threads (where there are
    /// several cores) keeps every operation in its place: each result is its own c, each
    /// key's successors come back, and a fault on one key fails that key's operations
    /// alone, wherever they fall among the threads' ranges.
    #[test]
    fn large_batches_keep_their_order_across_threads() {
        let mut rng = crate::rng::OsRng;
        let keys = [
            RsaPrivateKey::generate(1024, &mut rng).unwrap(),
            RsaPrivateKey::generate(1024, &mut rng).unwrap(),
        ];
        let count = crate::rsa::on_cores::PARALLEL_MIN + 3 * BLOCK + 77;
        assert!(per_thread(count) < count || cores() == 1, "more than one range");
        let inputs: Vec<(usize, Vec<u8>)> = (0..count)
            .map(|i| {
                let k = usize::from(i % 7 == 2);
                let mut x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).to_be_bytes().repeat(16);
                x[0] = 0; // below n
                (k, x)
            })
            .collect();
        for faulty in [None, Some(1)] {
            let ops: Vec<_> = inputs.iter().map(|(k, x)| whole(&keys[*k], &keys[*k], x)).collect();
            let echo = Echo { faulty, stand_in: StandIn::new(core::time::Duration::ZERO) };
            let got = private_whole(&echo, &ops, &mut rng);
            assert_eq!(got.len(), count);
            for (i, ((k, x), m)) in inputs.iter().zip(got).enumerate() {
                match (faulty, k) {
                    (Some(1), 1) => assert!(matches!(m, Err(Error::FaultDetected)), "op {i}"),
                    _ => assert_eq!(keys[*k].public.n.to_be_bytes(&m.unwrap()), *x, "op {i}"),
                }
            }
            // Every successor back: at least one pair a operation in the pool, at most
            // the rest of the last set of fresh pairs beside them.
            let on = |k: usize| inputs.iter().filter(|(key, _)| *key == k).count();
            let kept = |k: usize| keys[k].blinding.len();
            assert!((on(0)..on(0) + 32).contains(&kept(0)), "key 0 keeps {}", kept(0));
            match faulty {
                Some(_) => assert_eq!(kept(1), 0, "a faulty key's pool is emptied"),
                None => assert!((on(1)..on(1) + 32).contains(&kept(1)), "key 1 keeps {}", kept(1)),
            }
        }
    }

    /// An operation whose status word no kernel wrote (it keeps the driver's
    /// `STATUS_UNSET`) fails, whatever its output planes hold, and gives no successor;
    /// the others stand.
    #[test]
    fn an_operation_the_kernels_did_not_reach_fails() {
        struct Unreached(StandIn);
        impl Runner for Unreached {
            type Key = RsaPrivateKey;
            fn n_words(key: &Self::Key) -> usize {
                StandIn::n_words(key)
            }
            fn run(
                &self,
                keys: &[&RsaPrivateKey],
                op_key: &[u32],
                input: &Planes,
            ) -> Result<(Planes, Vec<u32>)> {
                let (out, mut status) = self.0.run(keys, op_key, input)?;
                status.iter_mut().step_by(3).for_each(|s| *s = layout::STATUS_UNSET);
                Ok((out, status))
            }
        }
        let mut rng = crate::rng::OsRng;
        let key = RsaPrivateKey::generate(1024, &mut rng).unwrap();
        let inputs: Vec<Vec<u8>> = (1..=9u8)
            .map(|i| [&[0u8][..], &[i; 127]].concat()) // below n
            .collect();
        let ops: Vec<_> = inputs.iter().map(|x| whole(&key, &key, x)).collect();
        let got =
            private_whole(&Unreached(StandIn::new(core::time::Duration::ZERO)), &ops, &mut rng);
        for (i, (x, m)) in inputs.iter().zip(got).enumerate() {
            match i % 3 {
                0 => assert_eq!(
                    m.unwrap_err(),
                    Error::Internal("the GPU kernels did not reach the operation")
                ),
                _ => assert_eq!(key.public.n.to_be_bytes(&m.unwrap()), *x, "op {i}"),
            }
        }
    }

    /// The planes put words where the kernel reads them: word j of plane k of operation
    /// i at (k words + j) count + i, low half of each 64-bit limb first.
    #[test]
    fn planes_interleave_as_the_kernel_reads() {
        let mut p = Planes::new(3, 4, 5);
        p.put(2, 3, &[0x1111_2222_3333_4444, 0x5555_6666_7777_8888]);
        assert_eq!(p.buf[(2 * 4) * 5 + 3], 0x3333_4444);
        assert_eq!(p.buf[(2 * 4 + 1) * 5 + 3], 0x1111_2222);
        assert_eq!(p.buf[(2 * 4 + 3) * 5 + 3], 0x5555_6666);
        assert_eq!(p.buf.iter().filter(|&&w| w != 0).count(), 4);
        assert_eq!(p.get(2, 3, 2).to_vec(), vec![0x1111_2222_3333_4444, 0x5555_6666_7777_8888]);
        assert_eq!(p.get(1, 3, 2).to_vec(), vec![0, 0]);
    }

    /// A block writes and reads what one operation at a time would, a short operation
    /// (a failed pair's empty planes) leaving its words zero, and nothing outside the
    /// block's operations; the planes cut in ranges give each range its own operations.
    #[test]
    fn blocks_put_and_get_what_single_operations_do() {
        let (words, count) = (8, 2 * BLOCK + 3);
        let limbs = |i: usize| -> Vec<Limb> { (0..4).map(|j| (i as Limb) << 40 | j).collect() };
        let mut one = Planes::new(3, words, count);
        let mut blocked = Planes::new(3, words, count);
        let all: Vec<Vec<Limb>> = (0..count).map(limbs).collect();
        for (i, l) in all.iter().enumerate().filter(|(i, _)| (BLOCK..2 * BLOCK).contains(i)) {
            if i != BLOCK + 5 {
                one.put(1, i, l);
            }
        }
        let ops: Vec<&[Limb]> = (BLOCK..2 * BLOCK)
            .map(|i| if i == BLOCK + 5 { &[][..] } else { &all[i][..] })
            .collect();
        let mut parts = blocked.columns(BLOCK);
        assert_eq!(
            parts.iter().map(|p| (p.first, p.count)).collect::<Vec<_>>(),
            vec![(0, BLOCK), (BLOCK, BLOCK), (2 * BLOCK, 3)]
        );
        parts[1].put_block(1, BLOCK, &ops);
        let got = parts[1].get_block(1, BLOCK, BLOCK, 4);
        drop(parts);
        assert_eq!(one.buf[..], blocked.buf[..]);
        for (o, g) in got.iter().enumerate() {
            assert_eq!(g.to_vec(), one.get(1, BLOCK + o, 4).to_vec(), "operation {}", BLOCK + o);
        }
        assert_eq!(got[5].to_vec(), vec![0; 4]);
        // The last, short range: its operations, at their places in every row.
        let mut parts = blocked.columns(BLOCK);
        parts[2].put_block(2, 2 * BLOCK + 1, &[&all[0][..2], &all[1][..2]]);
        drop(parts);
        for (o, i) in [(0, 2 * BLOCK + 1), (1, 2 * BLOCK + 2)] {
            assert_eq!(blocked.get(2, i, 2).to_vec(), all[o][..2].to_vec());
        }
        assert_eq!(blocked.get(2, 2 * BLOCK, 2).to_vec(), vec![0, 0]);
    }
}
