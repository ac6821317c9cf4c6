//! The RSA primitives without padding (RFC 8017 sections 4 and 5): OS2IP/I2OSP, RSAEP =
//! RSAVP1 (m^e mod n) and RSADP = RSASP1 (c^d mod n).
//!
//! "Raw RSA" is for callers who know what they do (building a padding scheme of their
//! own, `openssl pkeyutl -pkeyopt rsa_padding_mode:none`): unpadded RSA is malleable and
//! deterministic, so it is neither a signature nor an encryption scheme by itself.
//!
//! The public operation runs on the fastest unit the CPU has (`accel/public.rs`: the IFMA
//! kernels, else the core's variable-time exponentiation). Both are variable-time in e
//! only: e is public, and the base (a signature, or a plaintext being encrypted) is
//! processed in constant time; only e's bits decide the sequence of operations.

use super::key::{RsaPrivateKey, RsaPublicKey};
use super::tags::N;
use crate::modular::{Elem, Plain};
use crate::rng::RandomSource;
use crate::{Error, Result};

const OUT_OF_RANGE: Error = Error::InvalidArgument("input is not less than the modulus");

impl RsaPublicKey {
    /// OS2IP (RFC 8017 4.2) of at most k bytes, and the range check 0 <= x < n of RSAEP
    /// step 1 / RSAVP1 step 1. Leaks whether x < n.
    pub(crate) fn elem_from_be_bytes(&self, bytes: &[u8]) -> Result<Elem<N, Plain>> {
        if bytes.len() > self.size() {
            return Err(OUT_OF_RANGE);
        }
        self.n.elem_from_be_bytes(bytes).map_err(|_| OUT_OF_RANGE)
    }

    /// x^e mod n (RSAEP / RSAVP1 step 2).
    pub(crate) fn public_elem(&self, x: &Elem<N, Plain>) -> Elem<N, Plain> {
        self.accel.power(&self.n, &self.e, x)
    }

    /// Raw RSA with the public key: `input`^e mod n, as exactly k bytes (I2OSP). `input`
    /// is exactly k bytes, big-endian, and less than n ([`Error::InvalidArgument`]
    /// otherwise), as OpenSSL's `RSA_NO_PADDING`.
    pub fn raw_public(&self, input: &[u8]) -> Result<Vec<u8>> {
        if input.len() != self.size() {
            return Err(Error::InvalidArgument("raw RSA input must be exactly k bytes"));
        }
        let x = self.elem_from_be_bytes(input)?;
        Ok(self.n.to_be_bytes(&self.public_elem(&x)))
    }
}

impl RsaPrivateKey {
    /// Raw RSA with the private key: `input`^d mod n, as exactly k bytes, by CRT with
    /// blinding and the fault check (see the [module docs](super)). `input` is exactly k bytes,
    /// big-endian, and less than n ([`Error::InvalidArgument`] otherwise). Constant time in
    /// the input and the key; `rng` draws the blinding factors.
    pub fn raw_private(&self, input: &[u8], rng: &mut dyn RandomSource) -> Result<Vec<u8>> {
        let c = self.rsadp_input(input)?;
        let m = self.private_elem(&c, rng)?;
        Ok(self.public.n.to_be_bytes(&m))
    }

    /// RSADP's input checks (exactly k bytes, less than n) and OS2IP.
    pub(crate) fn rsadp_input(&self, input: &[u8]) -> Result<Elem<N, Plain>> {
        if input.len() != self.size() {
            return Err(Error::InvalidArgument("raw RSA input must be exactly k bytes"));
        }
        self.public.elem_from_be_bytes(input)
    }
}
