//! The GPU unit of the backend seam: a key's state on the device, and the device as the
//! [`Runner`] of `whole.rs`, which runs a batch's GPU operations whole in one launch.
//!
//! A key that does not fit the kernel (`layout.rs`: multi-prime, primes of unequal
//! length, over 4096 bits) runs on the scalar core through the phased path, as IFMA does
//! with sizes it has no kernel for; so does the seam's per-phase interface
//! ([`Accelerator`]), which no GPU operation reaches.

use super::driver::{Device, DeviceKey};
use super::layout::{self, Planes};
use super::whole::Runner;
use crate::Result;
use crate::bignum::Nat;
use crate::modular::Modulus;
use crate::rsa::accel::{Accelerator, Key};
use crate::rsa::crt::{CrtKey, CrtResidues};
use crate::rsa::tags::N;

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

impl Runner for Device {
    type Key = DeviceKey;

    fn n_words(key: &DeviceKey) -> usize {
        key.n_words
    }

    fn planes(&self, planes: usize, words: usize, count: usize) -> Planes {
        Device::planes(self, planes, words, count)
    }

    fn run(
        &self,
        keys: &[&DeviceKey],
        op_key: &[u32],
        input: &Planes,
    ) -> Result<(Planes, Vec<u32>)> {
        Device::run(self, keys, op_key, input)
    }
}
