//! Keccak-f[1600] (FIPS 202 section 3) and the sponge's byte-level absorb and squeeze
//! (section 4), for SHA-3 and SHAKE.
//!
//! The state is 25 lanes of 64 bits, lane `(x, y)` at index `x + 5y`; the bytes of the
//! sponge are the lanes written little-endian (the bit order of section 3.1.2 and
//! appendix B.1). A round `Rnd = ι ∘ χ ∘ π ∘ ρ ∘ θ` (section 3.3) is, per lane:
//!
//! * θ (3.2.1): `C[x] = ⊕_y A[x,y]`, `D[x] = C[x-1] ⊕ (C[x+1] <<< 1)`, `A[x,y] ⊕= D[x]`;
//! * ρ (3.2.2): `A[x,y] <<<= r[x,y]`, offsets from Algorithm 2;
//! * π (3.2.3): `A'[x,y] = A[(x + 3y) mod 5, x]`, that is lane `(x, y)` moves to
//!   `(y, 2x + 3y mod 5)`;
//! * χ (3.2.4): `A'[x,y] = A[x,y] ⊕ (¬A[x+1,y] ∧ A[x+2,y])`;
//! * ι (3.2.5): `A[0,0] ⊕= RC[i]`, the constants of Algorithms 5 and 6.
//!
//! The rotation offsets, the π permutation and the round constants are computed here by
//! `const fn`s that follow those algorithms step by step, at compile time; the unit tests
//! check them against the tables of the Keccak reference.
//!
//! Speed: the round is written over fixed indices only (the [`repeat5!`] and [`repeat25!`]
//! expansions), so the compiler keeps the lanes in registers and spill slots with no
//! array indexing left; θ's column parities and χ are computed row by row. Lane
//! complementing (the Keccak team's implementation overview, section 2.2) turns 20 of
//! χ's 25 `¬` into nothing: the six lanes `(1,0) (2,0) (3,1) (2,2) (2,3) (0,4)` are kept
//! inverted across rounds and each χ term picks `∧`/`∨` and which operand to invert so that
//! the inverted lanes come out inverted again. The transform is applied on entry and undone
//! on exit of [`keccak_f1600`], so the rest of the code sees the plain state. Nothing
//! depends on data except through XOR, AND, OR, NOT and fixed rotations: constant time.

use super::buffer::BlockCompress;
use zeroize::Zeroize;

/// The number of rounds of Keccak-f[1600]: `12 + 2ℓ` with `ℓ = 6` (FIPS 202 section 3.4).
const ROUNDS: usize = 24;

/// The round constants `RC[i_r]` (FIPS 202 Algorithm 6): bit `2^j - 1` of `RC[i_r]` is
/// `rc(j + 7 i_r)` for `j = 0..6`, where `rc(t)` is the output of the LFSR of Algorithm 5
/// (`x^8 + x^6 + x^5 + x^4 + 1`) after `t` steps from `R = 1`.
const RC: [u64; ROUNDS] = round_constants();

/// The ρ offsets `r[x + 5y]` (FIPS 202 Algorithm 2): `(t+1)(t+2)/2 mod 64` along the walk
/// `(x, y) ← (y, 2x + 3y mod 5)` from `(1, 0)`; `r[0] = 0`.
const RHO: [u32; 25] = rho_offsets();

/// π as a map from source to destination: lane `i = x + 5y` moves to `PI[i] = y + 5(2x +
/// 3y mod 5)` (FIPS 202 section 3.2.3).
const PI: [usize; 25] = pi_destinations();

const fn round_constants() -> [u64; ROUNDS] {
    let mut rc = [0u64; ROUNDS];
    // Algorithm 5's register R[0..8] as bits 0..7 of `r`; each step shifts it up one bit
    // (R = 0 || R) and folds the bit that leaves, R[8], into R[0], R[4], R[5], R[6].
    let mut r: u16 = 1;
    let mut round = 0;
    while round < ROUNDS {
        let mut j = 0;
        while j < 7 {
            // rc(t) = R[0] at t = j + 7 * round.
            rc[round] |= ((r & 1) as u64) << ((1u32 << j) - 1);
            r <<= 1;
            if r & 0x100 != 0 {
                r ^= 0x100 | 0b0111_0001;
            }
            j += 1;
        }
        round += 1;
    }
    rc
}

const fn rho_offsets() -> [u32; 25] {
    let mut r = [0u32; 25];
    let (mut x, mut y) = (1usize, 0usize);
    let mut t = 0u32;
    while t < 24 {
        r[x + 5 * y] = ((t + 1) * (t + 2) / 2) % 64;
        let next_y = (2 * x + 3 * y) % 5;
        x = y;
        y = next_y;
        t += 1;
    }
    r
}

const fn pi_destinations() -> [usize; 25] {
    let mut d = [0usize; 25];
    let mut i = 0;
    while i < 25 {
        let (x, y) = (i % 5, i / 5);
        d[i] = y + 5 * ((2 * x + 3 * y) % 5);
        i += 1;
    }
    d
}

/// Expands `$body` five times with `$i` a constant `0..5`.
macro_rules! repeat5 {
    ($i:ident => $body:block) => {{
        {
            const $i: usize = 0;
            $body
        }
        {
            const $i: usize = 1;
            $body
        }
        {
            const $i: usize = 2;
            $body
        }
        {
            const $i: usize = 3;
            $body
        }
        {
            const $i: usize = 4;
            $body
        }
    }};
}

/// Expands `$body` 25 times with `$i` a constant `0..25`.
macro_rules! repeat25 {
    ($i:ident => $body:block) => {{
        repeat5!(REPEAT_ROW => {
            repeat5!(REPEAT_COL => { const $i: usize = 5 * REPEAT_ROW + REPEAT_COL; $body })
        });
    }};
}

/// Keccak-f[1600] (FIPS 202 section 3.4, `Keccak-p[1600, 24]`) on the 25 lanes.
pub(crate) fn keccak_f1600(a: &mut [u64; 25]) {
    for rc in RC {
        round(a, rc);
    }
}

/// One round `ι ∘ χ ∘ π ∘ ρ ∘ θ` (FIPS 202 section 3.3) in place.
#[inline(always)]
fn round(a: &mut [u64; 25], rc: u64) {
    // θ: the column parities and the term each column receives.
    let mut c = [0u64; 5];
    repeat5!(X => { c[X] = a[X] ^ a[X + 5] ^ a[X + 10] ^ a[X + 15] ^ a[X + 20]; });
    let mut d = [0u64; 5];
    repeat5!(X => { d[X] = c[(X + 4) % 5] ^ c[(X + 1) % 5].rotate_left(1); });
    // ρ and π together: each lane, with θ's term, rotated into its new place.
    let mut b = [0u64; 25];
    repeat25!(I => { b[PI[I]] = (a[I] ^ d[I % 5]).rotate_left(RHO[I]); });
    // χ along each row, then ι.
    repeat25!(I => {
        let (row, x) = (I - I % 5, I % 5);
        a[I] = b[row + x] ^ (!b[row + (x + 1) % 5] & b[row + (x + 2) % 5]);
    });
    a[0] ^= rc;
}

/// The Keccak-f[1600] state of a sponge.
#[derive(Clone, Zeroize)]
pub(crate) struct KeccakState {
    lanes: [u64; 25],
}

impl KeccakState {
    /// The all-zero state the sponge starts from (FIPS 202 Algorithm 8 step 5).
    pub(crate) const fn new() -> Self {
        KeccakState { lanes: [0; 25] }
    }

    /// Applies Keccak-f[1600].
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_the_reference_tables() {
        // The first, second and last round constants and a few offsets, as printed in
        // the Keccak reference (KeccakF-1600 constants) and FIPS 202 Table 2.
        assert_eq!(RC[0], 0x0000_0000_0000_0001);
        assert_eq!(RC[1], 0x0000_0000_0000_8082);
        assert_eq!(RC[2], 0x8000_0000_0000_808a);
        assert_eq!(RC[23], 0x8000_0000_8000_8008);
        // Table 2 gives r[x,y] before reduction mod 64: (1,0) = 1, (0,1) = 36,
        // (4,4) = 78, (2,3) = 153 → 25, (3,3) = 21, (1,4) = 276 → 20.
        assert_eq!(RHO[1], 1);
        assert_eq!(RHO[5], 36);
        assert_eq!(RHO[24], 14);
        assert_eq!(RHO[17], 15);
        assert_eq!(RHO[18], 21);
        assert_eq!(RHO[21], 2);
        let mut seen = [false; 25];
        for d in PI {
            seen[d] = true;
        }
        assert!(seen.iter().all(|&s| s), "π is a permutation");
        assert_eq!(PI[0], 0);
        // (1,1) → (1, 2 + 3 = 0): index 1; (0,1) → (1, 3): index 16.
        assert_eq!(PI[6], 1);
        assert_eq!(PI[5], 16);
    }

    #[test]
    fn permutation_of_the_zero_state() {
        // KeccakF-1600-IntermediateValues.txt (Keccak reference): the first lanes of
        // Keccak-f[1600] applied once, then twice, to the all-zero state.
        let mut a = [0u64; 25];
        keccak_f1600(&mut a);
        assert_eq!(a[0], 0xF125_8F79_40E1_DDE7);
        assert_eq!(a[1], 0x84D5_CCF9_33C0_478A);
        assert_eq!(a[24], 0xEAF1_FF7B_5CEC_A249);
        keccak_f1600(&mut a);
        assert_eq!(a[0], 0x2D5C_954D_F96E_CB3C);
    }
}
