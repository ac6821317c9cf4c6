//! The scalar unit: the modular core's constant-time fixed-window exponentiation, one
//! prime after the other ([`crate::rsa::crt`]'s `CrtKey::power`), which runs on the
//! BMI2/ADX kernels where the CPU has them, and the core's fault check and products (the
//! trait's defaults). Always available; the reference every other unit is tested
//! against.

use super::{Accelerator, Key};
use crate::modular::Modulus;
use crate::rsa::crt::{CrtKey, CrtResidues};
use crate::rsa::tags::N;

/// The scalar unit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scalar;

impl Accelerator for Scalar {
    type State = ();

    fn state(self, _: &CrtKey, _: &Modulus<N>) {}

    fn kernel_name(self, _: Key<'_, ()>) -> &'static str {
        "scalar"
    }

    fn exponentiate(self, ops: &mut [(Key<'_, ()>, &mut CrtResidues)]) {
        for (key, residues) in ops.iter_mut() {
            key.crt.power(residues);
        }
    }
}
