//! The sponge construction over Keccak-f\[1600\] at the byte level (FIPS 202 section 4,
//! Algorithm 8), shared by SHA-3 and SHAKE.
//!
//! Absorbing is [`BlockCompress`] over blocks of the rate `r` (so the streaming buffer of
//! every other hasher, [`super::buffer::BlockBuffer`], collects them, and its
//! `finish_sponge` pads the last one); squeezing is [`Squeezer`]. The state's bytes are
//! its lanes written little-endian (FIPS 202 appendix B.1): byte `k` is byte `k mod 8` of
//! lane `k / 8`. Every rate here (72 to 168 bytes) is a whole number of lanes.

use super::buffer::BlockCompress;
use super::keccak::keccak_f1600;
use zeroize::Zeroize;

/// The Keccak-f\[1600\] state of a sponge.
#[derive(Clone, Zeroize)]
pub(crate) struct KeccakState {
    lanes: [u64; 25],
}

impl KeccakState {
    /// The all-zero state the sponge starts from (FIPS 202 Algorithm 8 step 5).
    pub(crate) const fn new() -> Self {
        KeccakState { lanes: [0; 25] }
    }

    /// Applies Keccak-f\[1600\].
    #[inline]
    pub(crate) fn permute(&mut self) {
        keccak_f1600(&mut self.lanes);
    }

    /// XORs `block` (at most 200 bytes, a whole number of lanes) into the state's first
    /// bytes.
    #[inline]
    fn xor_lanes(&mut self, block: &[u8]) {
        let (words, rest) = block.as_chunks::<8>();
        debug_assert!(rest.is_empty(), "internal error: the rate is a whole number of lanes");
        for (lane, w) in self.lanes.iter_mut().zip(words) {
            *lane ^= u64::from_le_bytes(*w);
        }
    }

    /// Copies the state's bytes `offset .. offset + out.len()` into `out`
    /// (`offset + out.len() ≤ 200`).
    pub(crate) fn extract(&self, offset: usize, out: &mut [u8]) {
        for (k, o) in (offset..).zip(out.iter_mut()) {
            *o = (self.lanes[k / 8] >> (8 * (k % 8))) as u8;
        }
    }

    /// The state's first `N` bytes (the digest of SHA-3, `N` below the rate).
    pub(crate) fn bytes<const N: usize>(&self) -> [u8; N] {
        let mut out = [0u8; N];
        self.extract(0, &mut out);
        out
    }
}

/// Absorbing `R`-byte blocks (`R` the rate): each is XORed into the first `R / 8` lanes,
/// then the state is permuted (FIPS 202 Algorithm 8 step 6).
impl<const R: usize> BlockCompress<R> for KeccakState {
    #[inline]
    fn compress(&mut self, blocks: &[[u8; R]]) {
        for block in blocks {
            self.xor_lanes(block);
            self.permute();
        }
    }
}

/// The squeezing phase (FIPS 202 Algorithm 8 steps 8-10) over a rate of `R` bytes: output
/// is read from the first `R` bytes of the state, which is permuted whenever they have all
/// been read.
#[derive(Clone, Zeroize)]
pub(crate) struct Squeezer<const R: usize> {
    state: KeccakState,
    /// Bytes of the current block already read (`≤ R`).
    pos: usize,
}

impl<const R: usize> Squeezer<R> {
    /// A squeezer over the state just after the last absorbing permutation.
    pub(crate) fn new(state: KeccakState) -> Self {
        Squeezer { state, pos: 0 }
    }

    /// Fills `out` with the next output bytes.
    pub(crate) fn read(&mut self, mut out: &mut [u8]) {
        while !out.is_empty() {
            if self.pos == R {
                self.state.permute();
                self.pos = 0;
            }
            let n = (R - self.pos).min(out.len());
            let (now, later) = out.split_at_mut(n);
            self.state.extract(self.pos, now);
            self.pos += n;
            out = later;
        }
    }
}
