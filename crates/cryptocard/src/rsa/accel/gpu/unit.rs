//! The GPU unit of the backend seam: a key's state on the device, and the whole private
//! operation of a batch's GPU operations in one launch ([`private_whole`]).
//!
//! `private.rs` hands this unit whole operations rather than phases: blinding, the
//! reductions, both exponentiations, Garner, unblinding, the pairs' successors and the
//! fault check all run on the device (`kernel/rsa_op.cuh`), because at a million
//! operations a second the host cannot afford their big-number work. The host takes a
//! blinding pair from the key's pool for each operation and puts the device's successor
//! back, exactly as `private.rs` does for the other units, and turns each status into a
//! result: a failed fault check drops the operation's pair and the key's pooled ones
//! and gives [`Error::FaultDetected`].
//!
//! A key that does not fit the kernel (`layout.rs`: multi-prime, primes of unequal
//! length, over 4096 bits) runs on the scalar core through the phased path, as IFMA does
//! with sizes it has no kernel for; so does the seam's per-phase interface
//! ([`Accelerator`]), which no GPU operation reaches.

use super::driver::{Device, DeviceKey};
use super::layout::{self, IN_PLANES, Planes};
use crate::bignum::Nat;
use crate::modular::{Elem, Modulus, Plain};
use crate::rng::RandomSource;
use crate::rsa::accel::{Accelerator, Key};
use crate::rsa::blinding::BlindingPool;
use crate::rsa::crt::{CrtKey, CrtResidues};
use crate::rsa::tags::N;
use crate::{Error, Result};

/// The GPU unit, with the device that proves it runs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GpuUnit(pub(crate) &'static Device);

/// A key on the device: its resident image, or why it runs on the CPU.
#[derive(Debug)]
pub(crate) struct GpuKeyState {
    pub(crate) key: core::result::Result<DeviceKey, &'static str>,
}

impl GpuUnit {
    /// The unit, if this machine has a usable GPU.
    pub(crate) fn detect() -> Result<GpuUnit> {
        super::driver::device().map(GpuUnit)
    }
}

impl Accelerator for GpuUnit {
    type State = GpuKeyState;

    /// Unused: the image needs e too, so the seam makes the state with
    /// [`GpuUnit::key_state`]; this one keeps the key on the CPU.
    fn state(self, _: &CrtKey, _: &Modulus<N>) -> GpuKeyState {
        GpuKeyState { key: Err("no public exponent given") }
    }

    fn kernel_name(self, key: Key<'_, GpuKeyState>) -> &'static str {
        match key.state.key {
            Ok(_) => "gpu",
            Err(_) => "scalar",
        }
    }

    /// The phased path's exponentiations (keys the kernel does not take): the scalar
    /// core.
    fn exponentiate(self, ops: &mut [(Key<'_, GpuKeyState>, &mut CrtResidues)]) {
        for (key, residues) in ops.iter_mut() {
            key.crt.power(residues);
        }
    }
}

impl GpuUnit {
    /// A key's state: its image uploaded, or the reason it stays on the CPU.
    pub(crate) fn key_state(self, crt: &CrtKey, n: &Modulus<N>, e: &Nat) -> GpuKeyState {
        let key = match layout::key_image(crt, n, e) {
            None => Err("the key does not fit the GPU kernel"),
            Some(image) => self.0.upload(&image).map_err(|_| "the key's upload failed"),
        };
        GpuKeyState { key }
    }
}

/// One operation for [`private_whole`]: its key's pool of pairs, n, e and resident
/// image, and its c (< n).
pub(crate) struct WholeOp<'a> {
    pub(crate) pool: &'a BlindingPool,
    pub(crate) n: &'a Modulus<N>,
    pub(crate) e: &'a Nat,
    pub(crate) image: &'a DeviceKey,
    pub(crate) c: Elem<N, Plain>,
}

/// The whole private operation c^d mod n of `ops` on the device, in one launch. Results
/// in order; each operation fails alone.
pub(crate) fn private_whole(
    unit: GpuUnit,
    ops: &[WholeOp<'_>],
    rng: &mut dyn RandomSource,
) -> Vec<Result<Elem<N, Plain>>> {
    // The keys of the batch, each once (by image), and every operation's index there.
    let mut table: Vec<&DeviceKey> = Vec::new();
    let mut op_key: Vec<u32> = Vec::with_capacity(ops.len());
    for dk in ops.iter().map(|op| op.image) {
        let at = match table.iter().position(|t| core::ptr::eq(*t, dk)) {
            Some(i) => i,
            None => {
                table.push(dk);
                table.len() - 1
            }
        };
        op_key.push(at as u32);
    }
    let words = table.iter().map(|k| k.n_words).max().unwrap_or(0);
    // A pair per operation, from its key's pool (an empty pool makes a fresh set).
    let mut pairs = Vec::with_capacity(ops.len());
    let mut input = Planes::new(IN_PLANES, words, ops.len());
    for (i, op) in ops.iter().enumerate() {
        let pair = op.pool.take(op.n, op.e, rng);
        if let Ok(b) = &pair {
            input.put(0, i, op.c.as_limbs());
            input.put(1, i, b.a().as_limbs());
            input.put(2, i, b.ai().as_limbs());
        } else {
            op_key[i] = u32::MAX; // the kernel fails it alone (no such key)
        }
        pairs.push(pair);
    }
    let (out, status) = match unit.0.run(&table, &op_key, &input) {
        Ok(r) => r,
        Err(e) => return ops.iter().map(|_| Err(e)).collect(),
    };
    ops.iter()
        .zip(pairs)
        .enumerate()
        .map(|(i, (op, pair))| {
            let pair = pair?;
            let n = op.n;
            match status[i] {
                layout::STATUS_OK => {
                    let m = n.elem_from_limbs(&out.get(0, i, n.limbs()))?;
                    if pair.renews() {
                        let a2 = Elem::from_boxed(out.get(1, i, n.limbs()).to_vec().into());
                        let ai2 = Elem::from_boxed(out.get(2, i, n.limbs()).to_vec().into());
                        op.pool.put(pair.renewed(a2, ai2));
                    }
                    Ok(m)
                }
                layout::STATUS_FAULT => {
                    op.pool.clear();
                    Err(Error::FaultDetected)
                }
                layout::STATUS_BAD_INPUT => {
                    Err(Error::InvalidArgument("value is not less than the modulus"))
                }
                _ => panic!("internal error: the GPU kernel rejected a key image"),
            }
        })
        .collect()
}
