//! The Keccak-f\[1600\] permutation (FIPS 202 section 3), under SHA-3 and SHAKE (the
//! sponge around it is in [`super::sponge`]).
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
//! Speed: the round is written over fixed indices only (the `repeat5!` expansions), so
//! the compiler keeps the lanes in registers and spill slots with no array indexing left.
//! It makes one output row at a time (θ's term, ρ, π, then χ on five lanes), and takes
//! the next round's column parities as the lanes come out, as the Keccak team's
//! optimized 64-bit code does; four rounds are unrolled, between two copies of the state.
//! Lane complementing (the Keccak team's "Keccak implementation overview" section 2.2)
//! turns 20 of χ's 25 `¬` into nothing: the six lanes `(1,0) (2,0) (3,1) (2,2) (2,3)
//! (0,4)` are kept inverted across rounds and each χ term picks `∧`/`∨` and which operand
//! to invert so that the inverted lanes come out inverted again ([`chi_forms`]). The
//! transform is applied on entry and undone on exit of [`keccak_f1600`], so the rest of
//! the code sees the plain state. Nothing depends on data except through XOR, AND, OR,
//! NOT and fixed rotations: constant time.
//!
//! So written, the portable code runs level with OpenSSL's x86-64 Keccak, which is
//! assembly with the same lane complementing (`cryptocard speed sha3-256 sha3-512
//! --compare openssl`).

/// The number of rounds of Keccak-f\[1600\]: `12 + 2ℓ` with `ℓ = 6` (FIPS 202 section 3.4).
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

/// π as a map from destination to source: `PI_SOURCE[PI[i]] = i`.
const PI_SOURCE: [usize; 25] = invert(PI);

const fn invert(p: [usize; 25]) -> [usize; 25] {
    let mut inv = [0usize; 25];
    let mut i = 0;
    while i < 25 {
        inv[p[i]] = i;
        i += 1;
    }
    inv
}

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

/// The lanes kept complemented by lane complementing (the Keccak team's "Keccak
/// implementation overview" section 2.2, transform `P`): `(x, y)` = (1,0) (2,0) (3,1)
/// (2,2) (2,3) (0,4), as indices `x + 5y`.
const COMPLEMENTED: [usize; 6] = [1, 2, 8, 12, 17, 20];

/// Bits of a χ form (see [`chi_forms`]): `|` instead of `&`, and which of the three
/// stored operands enter inverted.
const CHI_OR: u8 = 1;
const CHI_NOT1: u8 = 2;
const CHI_NOT2: u8 = 4;
const CHI_NOT0: u8 = 8;

/// How χ computes each lane when the lanes of [`COMPLEMENTED`] are stored inverted.
///
/// Write `p(i)` for "lane `i` is stored inverted". θ is linear, so it carries inversions
/// through: column parity `C[x]` is stored inverted when column `x` holds an odd number of
/// inverted lanes, `D[x]` when exactly one of `C[x-1]`, `C[x+1]` is, and the lane that ρ
/// and π make of `A[x,y] ⊕ D[x]` when exactly one of those is. χ then needs, for output
/// lane `i` of a row with (stored) inputs `s0, s1, s2` of polarities `q0, q1, q2`, the
/// value `b0 ⊕ (¬b1 ∧ b2)` stored with polarity `p(i)`. Of the forms
/// `s0' ⊕ (s1' ∧ s2')` and `s0' ⊕ (s1' ∨ s2')`, with `'` an optional inversion, this picks
/// the one with fewest inversions:
///
/// * `∧` is right when `s1' = ¬b1` and `s2' = b2`;
/// * `∨` gives the complement, `b1 ∨ ¬b2`, when `s1' = b1` and `s2' = ¬b2`;
/// * `s0` is inverted when `q0`, the complement from `∨`, and `p(i)` do not cancel.
///
/// For the set above that leaves 8 inversions a round, of which the compiler shares three
/// (an inverted `s0` of one lane is an inverted `s1` of its neighbour): 5 `¬` a round
/// instead of 25, the overview's Table 2.
const fn chi_forms() -> [u8; 25] {
    let mut p = [false; 25];
    let mut k = 0;
    while k < COMPLEMENTED.len() {
        p[COMPLEMENTED[k]] = true;
        k += 1;
    }
    let mut column = [false; 5];
    let mut i = 0;
    while i < 25 {
        column[i % 5] ^= p[i];
        i += 1;
    }
    // q[PI[i]]: the polarity of the lane ρ and π make of A[i] ⊕ D[i mod 5].
    let mut q = [false; 25];
    let mut i = 0;
    while i < 25 {
        let x = i % 5;
        q[PI[i]] = p[i] ^ column[(x + 4) % 5] ^ column[(x + 1) % 5];
        i += 1;
    }
    let mut forms = [0u8; 25];
    let mut i = 0;
    while i < 25 {
        let row = i - i % 5;
        let q0 = q[i];
        let q1 = q[row + (i + 1) % 5];
        let q2 = q[row + (i + 2) % 5];
        // The cheapest of ∧ (needs s1 inverted unless q1, s2 plain unless q2) and ∨ (s1
        // plain unless q1, s2 inverted unless q2, output complemented).
        let and_not1 = !q1;
        let and_not2 = q2;
        let and_not0 = q0 ^ p[i];
        let or_not1 = q1;
        let or_not2 = !q2;
        let or_not0 = q0 ^ p[i] ^ true;
        let and_cost = and_not1 as u8 + and_not2 as u8 + and_not0 as u8;
        let or_cost = or_not1 as u8 + or_not2 as u8 + or_not0 as u8;
        forms[i] = if and_cost <= or_cost {
            (and_not1 as u8 * CHI_NOT1) | (and_not2 as u8 * CHI_NOT2) | (and_not0 as u8 * CHI_NOT0)
        } else {
            CHI_OR
                | (or_not1 as u8 * CHI_NOT1)
                | (or_not2 as u8 * CHI_NOT2)
                | (or_not0 as u8 * CHI_NOT0)
        };
        i += 1;
    }
    forms
}

/// The χ form of each lane, for the complemented representation.
const CHI_FORMS: [u8; 25] = chi_forms();

/// χ of one lane in the form `form` (a constant: the branches fold away).
#[inline(always)]
fn chi_lane(form: u8, s0: u64, s1: u64, s2: u64) -> u64 {
    let s0 = if form & CHI_NOT0 != 0 { !s0 } else { s0 };
    let s1 = if form & CHI_NOT1 != 0 { !s1 } else { s1 };
    let s2 = if form & CHI_NOT2 != 0 { !s2 } else { s2 };
    s0 ^ if form & CHI_OR != 0 { s1 | s2 } else { s1 & s2 }
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

/// Keccak-f\[1600\] (FIPS 202 section 3.4, `Keccak-p[1600, 24]`) on the 25 lanes.
///
/// Always inlined (into each rate's absorbing loop and the squeezer): the XOR of the
/// message block then merges with the permutation's first loads, a measurable part of
/// SHA3-256's time.
#[inline(always)]
pub(crate) fn keccak_f1600(a: &mut [u64; 25]) {
    for i in COMPLEMENTED {
        a[i] = !a[i];
    }
    let mut c = [0u64; 5];
    repeat5!(X => { c[X] = a[X] ^ a[X + 5] ^ a[X + 10] ^ a[X + 15] ^ a[X + 20]; });
    // Four rounds a loop iteration, the state going from `a` to `e` and back.
    let mut e = [0u64; 25];
    for rc in RC.as_chunks::<ROUNDS_PER_ITERATION>().0 {
        round(a, &mut c, &mut e, rc[0]);
        round(&e, &mut c, a, rc[1]);
        round(a, &mut c, &mut e, rc[2]);
        round(&e, &mut c, a, rc[3]);
    }
    for i in COMPLEMENTED {
        a[i] = !a[i];
    }
}

/// Rounds unrolled in [`keccak_f1600`]'s loop: 4 ran faster than 2 and than 24 (24
/// rounds of code overflow the op cache). Tuned on AMD Zen 4 with `cryptocard speed
/// sha3-256`; rerun it to retune.
const ROUNDS_PER_ITERATION: usize = 4;
const _: () = assert!(ROUNDS.is_multiple_of(ROUNDS_PER_ITERATION));

/// One round `ι ∘ χ ∘ π ∘ ρ ∘ θ` (FIPS 202 section 3.3) from `a` into `e`, on the
/// complemented representation. `c` holds `a`'s column parities on entry and `e`'s on
/// exit: each lane's parity is taken as it is made, so θ of the next round does not read
/// the 25 lanes again.
#[inline(always)]
fn round(a: &[u64; 25], c: &mut [u64; 5], e: &mut [u64; 25], rc: u64) {
    // θ: the term each column receives.
    let mut d = [0u64; 5];
    repeat5!(X => { d[X] = c[(X + 4) % 5] ^ c[(X + 1) % 5].rotate_left(1); });
    // One output row at a time: its five lanes through θ, ρ and π, then χ (and ι on lane
    // 0), so only five rotated lanes are live at once.
    repeat5!(Y => {
        let mut b = [0u64; 5];
        repeat5!(X => {
            const SRC: usize = PI_SOURCE[5 * Y + X];
            b[X] = (a[SRC] ^ d[SRC % 5]).rotate_left(RHO[SRC]);
        });
        repeat5!(X => {
            const I: usize = 5 * Y + X;
            let mut lane = chi_lane(CHI_FORMS[I], b[X], b[(X + 1) % 5], b[(X + 2) % 5]);
            if I == 0 {
                lane ^= rc;
            }
            e[I] = lane;
            c[X] = if Y == 0 { lane } else { c[X] ^ lane };
        });
    });
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

    /// Keccak-f\[1600\] written as FIPS 202 section 3.2 states the step mappings, on
    /// `A[x][y]` with loops and no complementing, fusion or unrolling.
    #[allow(clippy::needless_range_loop)] // indices as the standard writes them
    fn textbook_f1600(lanes: &mut [u64; 25]) {
        let mut a = [[0u64; 5]; 5];
        for i in 0..25 {
            a[i % 5][i / 5] = lanes[i];
        }
        for rc in RC {
            // θ (Algorithm 1)
            let c: Vec<u64> = (0..5).map(|x| (0..5).fold(0, |p, y| p ^ a[x][y])).collect();
            for x in 0..5 {
                let d = c[(x + 4) % 5] ^ c[(x + 1) % 5].rotate_left(1);
                for y in 0..5 {
                    a[x][y] ^= d;
                }
            }
            // ρ (Algorithm 2), π (Algorithm 3)
            let mut b = [[0u64; 5]; 5];
            for x in 0..5 {
                for y in 0..5 {
                    b[x][y] = a[(x + 3 * y) % 5][x].rotate_left(RHO[(x + 3 * y) % 5 + 5 * x]);
                }
            }
            // χ (Algorithm 4), ι (Algorithm 6)
            for x in 0..5 {
                for y in 0..5 {
                    a[x][y] = b[x][y] ^ (!b[(x + 1) % 5][y] & b[(x + 2) % 5][y]);
                }
            }
            a[0][0] ^= rc;
        }
        for i in 0..25 {
            lanes[i] = a[i % 5][i / 5];
        }
    }

    #[test]
    fn fast_permutation_matches_the_textbook_one() {
        let mut x = crate::test_rng::XorShift64(0x9e37_79b9_7f4a_7c15);
        for _ in 0..50 {
            let mut state = [0u64; 25];
            for lane in &mut state {
                *lane = x.next_u64();
            }
            let mut want = state;
            textbook_f1600(&mut want);
            keccak_f1600(&mut state);
            assert_eq!(state, want);
        }
    }

    #[test]
    fn lane_complementing_needs_eight_inversions_a_round() {
        let nots: u32 =
            CHI_FORMS.iter().map(|f| (f & (CHI_NOT0 | CHI_NOT1 | CHI_NOT2)).count_ones()).sum();
        assert_eq!(nots, 8);
    }
}
