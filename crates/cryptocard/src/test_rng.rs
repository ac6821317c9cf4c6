//! Deterministic generators for the unit tests (compiled only under `cfg(test)`), so that
//! a failure reproduces: SplitMix64, xorshift64, xorshift64* and the MMIX LCG with its
//! high bits folded in. Each test keeps the generator and seed it was written with, so
//! its inputs are the same as before the generators were shared. Never for keys.

/// SplitMix64 (Steele, Lea and Flood).
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// xorshift64 (Marsaglia; shifts 13, 7, 17): the output is the new state, which must not
/// start at zero.
#[derive(Clone, Debug)]
pub(crate) struct XorShift64(pub(crate) u64);

impl XorShift64 {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// xorshift64* (Vigna; shifts 12, 25, 27, then a multiplication).
#[derive(Clone, Debug)]
pub(crate) struct XorShift64Star(pub(crate) u64);

impl XorShift64Star {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Knuth's MMIX LCG, its output the state with bits 29 and up folded into the low bits.
#[derive(Clone, Debug)]
pub(crate) struct Lcg64(pub(crate) u64);

impl Lcg64 {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 ^ (self.0 >> 29)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_first_outputs() {
        // SplitMix64 from 0 (the reference implementation's first output).
        assert_eq!(SplitMix64(0).next_u64(), 0xe220_a839_7b1d_cdaf);
        // xorshift64 from 1: 1 ^ 1 << 13 = 8193, ^ >> 7 = 8257, ^ << 17.
        assert_eq!(XorShift64(1).next_u64(), 8257 ^ (8257 << 17));
        assert_ne!(XorShift64Star(1).next_u64(), XorShift64Star(2).next_u64());
        assert_ne!(Lcg64(1).next_u64(), Lcg64(2).next_u64());
    }
}
