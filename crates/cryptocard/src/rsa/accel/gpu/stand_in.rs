//! A stand-in for the GPU (feature `hazmat`): a [`Runner`] that answers each operation
//! with its input after a set time, so that the host's side of a GPU batch can be
//! measured on any machine (`crates/bench/benches/gpu_host.rs`, through
//! `hazmat::gpu::private_batch_stand_in`). Apart from `whole.rs`, which the private
//! operation uses, since it runs whole keys' operations.

use super::layout::{self, Planes};
use super::whole::{Runner, WholeOp, private_whole};
use crate::modular::{Elem, Plain};
use crate::rng::RandomSource;
use crate::rsa::RsaPrivateKey;
use crate::rsa::private::Ops;
use crate::rsa::tags::N;
use crate::{Error, Result};

/// A stand-in for the device: it answers every operation with its
/// own input planes, so m = c and each pair comes back as its own successor (still a
/// valid pair), every status OK, after `per_op` for each operation (a device of that
/// rate). With `per_op` zero a batch costs what the host's side costs and nothing
/// else: `crates/bench/benches/gpu_host.rs` measures that ceiling on any machine, and
/// with a device's time, how much of the host's work overlaps it.
pub(crate) struct StandIn {
    per_op: core::time::Duration,
    /// One batch at a time, as the device's lane (with one stream, the default).
    one_at_a_time: std::sync::Mutex<()>,
}

impl StandIn {
    /// A stand-in that takes `per_op` an operation.
    pub(crate) fn new(per_op: core::time::Duration) -> StandIn {
        StandIn { per_op, one_at_a_time: std::sync::Mutex::new(()) }
    }
}

impl Runner for StandIn {
    type Key = RsaPrivateKey;

    fn n_words(key: &Self::Key) -> usize {
        2 * key.public.n.limbs()
    }

    fn run(
        &self,
        keys: &[&Self::Key],
        op_key: &[u32],
        input: &Planes,
    ) -> Result<(Planes, Vec<u32>)> {
        let status =
            op_key
                .iter()
                .map(|&k| {
                    if (k as usize) < keys.len() {
                        layout::STATUS_OK
                    } else {
                        layout::STATUS_BAD_KEY
                    }
                })
                .collect();
        let out = Planes::from_vec(input.words, input.count, input.buf.to_vec());
        let count = u32::try_from(input.count).unwrap_or(u32::MAX);
        let _device = self.one_at_a_time.lock().unwrap_or_else(|p| p.into_inner());
        std::thread::sleep(self.per_op.saturating_mul(count));
        Ok((out, status))
    }
}

/// [`private_whole`] on the [`StandIn`] for every operation whose key the kernel takes;
/// the others fail with [`Error::Unsupported`].
pub(crate) fn private_all_on_stand_in(
    ops: Ops<'_, Elem<N, Plain>>,
    rng: &mut dyn RandomSource,
    stand_in: &StandIn,
) -> Vec<Result<Elem<N, Plain>>> {
    let mut results: Vec<Option<Result<Elem<N, Plain>>>> = Vec::with_capacity(ops.len());
    let mut whole = Vec::new();
    for (key, c) in ops {
        let (n, e) = (&key.public.n, &key.public.e);
        match c {
            Ok(c) if layout::prime_words(&key.crt, n, e).is_some() => {
                whole.push(WholeOp { pool: &key.blinding, n, e, image: key, c });
                results.push(None);
            }
            Ok(_) => results.push(Some(Err(Error::Unsupported("the key does not fit the kernel")))),
            Err(e) => results.push(Some(Err(e))),
        }
    }
    let mut done = private_whole(stand_in, &whole, rng).into_iter();
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| done.next().unwrap_or(Err(Error::Internal("a result short")))))
        .collect()
}
