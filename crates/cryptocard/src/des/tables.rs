//! The tables of FIPS PUB 46-3 (Data Encryption Standard, 1999), written once in the
//! standard's own order and numbering, and the combined round tables derived from them at
//! compile time.
//!
//! Bit numbering is the standard's: bit 1 is the most significant (leftmost) bit of a
//! block, a half or a round key, and every permutation table lists, for each output bit in
//! turn, the input bit that it takes.
//!
//! # The combined tables (Davio et al.'s "48-bit model")
//!
//! The cipher function of FIPS 46-3 section "The Cipher Function f" is
//! `f(R, K) = P(S1(B1) || ... || S8(B8))` with `B1 || ... || B8 = E(R) xor K`. E and P are
//! linear, so Davio, Desmedt, Fosseprez, Govaerts, Hulsbosch, Neutjens, Piret, Quisquater,
//! Vandewalle and Wouters ("Analytical characteristics of the DES", CRYPTO '83), as used by
//! Dusse and Kaliski on the DSP56000 (EUROCRYPT '90, section 4), keep both halves in their
//! expanded 48-bit form `E(L)`, `E(R)` and fold P and the *next* round's E into the S-boxes:
//!
//! ```text
//! SP[j][b] = E(P(Sj(b) placed at output bits 4j-3 .. 4j))        (j = 1..8, b = 0..63)
//! E(R') = E(L) xor SP[1][B1] xor ... xor SP[8][B8]               (a round)
//! ```
//!
//! so a round is eight table lookups and XORs on 48-bit words, with no bit permutation at
//! all (OpenSSL's `DES_SPtrans` is the same idea in two 32-bit halves). E is applied once
//! after IP and undone once before IP^-1.
//!
//! # The expanded layout
//!
//! A 48-bit expanded half lives in a `u64` with each 6-bit S-box input in its own byte
//! (bits 0..5; bits 6 and 7 of every byte are zero), so that extracting `Bj` is one shift
//! and one mask. The byte that holds `Bj` is [`BOX_BYTE`]`[j - 1]`. This byte order falls
//! out of computing E with two rotations (see [`expand`]): the even boxes' inputs are
//! `R >>> 7`'s bytes and the odd boxes' are `R >>> 3`'s, each masked with `0x3f3f3f3f`.
//! Round keys are stored in the same layout, so `E(R) xor K` is one XOR.

/// IP, the initial permutation (FIPS 46-3, "Enciphering", Figure 1 / table IP). The
/// cipher computes it with delta swaps (`feistel`); this table is what they are tested
/// against.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) const IP: [u8; 64] = [
    58, 50, 42, 34, 26, 18, 10, 2, //
    60, 52, 44, 36, 28, 20, 12, 4, //
    62, 54, 46, 38, 30, 22, 14, 6, //
    64, 56, 48, 40, 32, 24, 16, 8, //
    57, 49, 41, 33, 25, 17, 9, 1, //
    59, 51, 43, 35, 27, 19, 11, 3, //
    61, 53, 45, 37, 29, 21, 13, 5, //
    63, 55, 47, 39, 31, 23, 15, 7, //
];

/// E, the expansion of a 32-bit half to 48 bits (FIPS 46-3, "The Cipher Function f",
/// E BIT-SELECTION TABLE).
pub(crate) const E: [u8; 48] = [
    32, 1, 2, 3, 4, 5, //
    4, 5, 6, 7, 8, 9, //
    8, 9, 10, 11, 12, 13, //
    12, 13, 14, 15, 16, 17, //
    16, 17, 18, 19, 20, 21, //
    20, 21, 22, 23, 24, 25, //
    24, 25, 26, 27, 28, 29, //
    28, 29, 30, 31, 32, 1, //
];

/// P, the permutation of the S-box outputs (FIPS 46-3, "The Cipher Function f", P).
pub(crate) const P: [u8; 32] = [
    16, 7, 20, 21, //
    29, 12, 28, 17, //
    1, 15, 23, 26, //
    5, 18, 31, 10, //
    2, 8, 24, 14, //
    32, 27, 3, 9, //
    19, 13, 30, 6, //
    22, 11, 4, 25, //
];

/// The S-boxes S1..S8 (FIPS 46-3, "Primitive Functions for the Data Encryption
/// Algorithm"): `S[j][row][column]`, where for a 6-bit input `b1 b2 b3 b4 b5 b6` the row is
/// `b1 b6` and the column `b2 b3 b4 b5`.
pub(crate) const S: [[[u8; 16]; 4]; 8] = [
    [
        [14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7],
        [0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8],
        [4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0],
        [15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13],
    ],
    [
        [15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10],
        [3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5],
        [0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15],
        [13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9],
    ],
    [
        [10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8],
        [13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1],
        [13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7],
        [1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12],
    ],
    [
        [7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15],
        [13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9],
        [10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4],
        [3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14],
    ],
    [
        [2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9],
        [14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6],
        [4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14],
        [11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3],
    ],
    [
        [12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11],
        [10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8],
        [9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6],
        [4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13],
    ],
    [
        [4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1],
        [13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6],
        [1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2],
        [6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12],
    ],
    [
        [13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7],
        [1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2],
        [7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8],
        [2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11],
    ],
];

/// PC-1, Permuted Choice 1: the 56 key bits that are not parity bits, into C0 (the first
/// 28) and D0 (the last 28) (FIPS 46-3, "Key Schedule Calculation").
pub(crate) const PC1: [u8; 56] = [
    57, 49, 41, 33, 25, 17, 9, //
    1, 58, 50, 42, 34, 26, 18, //
    10, 2, 59, 51, 43, 35, 27, //
    19, 11, 3, 60, 52, 44, 36, //
    63, 55, 47, 39, 31, 23, 15, //
    7, 62, 54, 46, 38, 30, 22, //
    14, 6, 61, 53, 45, 37, 29, //
    21, 13, 5, 28, 20, 12, 4, //
];

/// PC-2, Permuted Choice 2: the 48 bits of round key Kn from the 56 bits of Cn || Dn
/// (FIPS 46-3, "Key Schedule Calculation").
pub(crate) const PC2: [u8; 48] = [
    14, 17, 11, 24, 1, 5, //
    3, 28, 15, 6, 21, 10, //
    23, 19, 12, 4, 26, 8, //
    16, 7, 27, 20, 13, 2, //
    41, 52, 31, 37, 47, 55, //
    30, 40, 51, 45, 33, 48, //
    44, 49, 39, 56, 34, 53, //
    46, 42, 50, 36, 29, 32, //
];

/// The number of left rotations of C and D before round n = 1..16 (FIPS 46-3, "Key
/// Schedule Calculation", table of left shifts).
pub(crate) const SHIFTS: [u8; 16] = [1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1];

/// The byte of an expanded half (and of a round key) that holds the input of S-box
/// `j + 1`: S1 in byte 3, S2 in byte 6, ..., S8 in byte 7 (byte 0 is the least
/// significant). See the module docs.
pub(crate) const BOX_BYTE: [u32; 8] = [3, 6, 2, 5, 1, 4, 0, 7];

/// Bit `n` (1-based, FIPS numbering) of a `width`-bit value.
const fn bit(x: u64, width: u32, n: u8) -> u64 {
    (x >> (width - n as u32)) & 1
}

/// Places the 48-bit value `v` (FIPS numbering: bits 1..6 are the S1 input) in the
/// expanded layout: the 6 bits of box j go to the low 6 bits of byte `BOX_BYTE[j]`.
pub(crate) const fn to_layout(v: u64) -> u64 {
    let mut out = 0u64;
    let mut j = 0;
    while j < 8 {
        let chunk = (v >> (42 - 6 * j)) & 0x3f;
        out |= chunk << (8 * BOX_BYTE[j]);
        j += 1;
    }
    out
}

/// A fixed bit selection (each output bit copies one input bit) written as rotate-and-mask
/// terms: `out = OR over i of (x <<< rot[i]) & mask[i]`, one term per distinct rotation
/// distance. It costs three operations a term at fixed, public shifts and masks, so it
/// runs in constant time; PC-1 needs 39 terms and PC-2 into the expanded layout 31, where
/// bit by bit would take 56 and 48 shift-mask-or steps in one serial chain.
pub(crate) struct BitMap {
    rot: [u32; 64],
    mask: [u64; 64],
    n: usize,
}

impl BitMap {
    /// The map sending input bit `src[i]` to output bit `dst[i]` (bit 0 = least
    /// significant) for `i < len`.
    const fn new(src: &[u32; 64], dst: &[u32; 64], len: usize) -> BitMap {
        let mut map = BitMap { rot: [0; 64], mask: [0; 64], n: 0 };
        let mut i = 0;
        while i < len {
            let rot = (dst[i] + 64 - src[i]) % 64;
            let mut t = 0;
            while t < map.n && map.rot[t] != rot {
                t += 1;
            }
            if t == map.n {
                map.rot[t] = rot;
                map.n += 1;
            }
            map.mask[t] |= 1 << dst[i];
            i += 1;
        }
        map
    }

    /// Applies the map.
    #[inline(always)]
    pub(crate) fn apply(&self, x: u64) -> u64 {
        let mut out = 0;
        let mut i = 0;
        while i < self.n {
            out |= x.rotate_left(self.rot[i]) & self.mask[i];
            i += 1;
        }
        out
    }
}

/// PC-1 from a key (read big-endian: FIPS bit k at bit `64 - k`) to `C0 || D0` (C0 in bits
/// 55..28, D0 in bits 27..0).
pub(crate) const PC1_MAP: BitMap = {
    let (mut src, mut dst) = ([0u32; 64], [0u32; 64]);
    let mut i = 0;
    while i < 56 {
        src[i] = 64 - PC1[i] as u32;
        dst[i] = 55 - i as u32;
        i += 1;
    }
    BitMap::new(&src, &dst, 56)
};

/// PC-2 from `Cn || Dn` (as [`PC1_MAP`] leaves them) straight into the expanded layout:
/// key bit `6j + i` (0-based j, i) to bit `5 - i` of byte `BOX_BYTE[j]`.
pub(crate) const PC2_MAP: BitMap = {
    let (mut src, mut dst) = ([0u32; 64], [0u32; 64]);
    let mut i = 0;
    while i < 48 {
        src[i] = 56 - PC2[i] as u32;
        dst[i] = 8 * BOX_BYTE[i / 6] + 5 - (i % 6) as u32;
        i += 1;
    }
    BitMap::new(&src, &dst, 48)
};

/// E(r) in the expanded layout, computed bit by bit from the table [`E`]. This is the
/// definition; the rounds use the equal but faster [`expand`].
pub(crate) const fn expand_by_table(r: u32) -> u64 {
    let mut v = 0u64;
    let mut i = 0;
    while i < 48 {
        v = (v << 1) | bit(r as u64, 32, E[i]);
        i += 1;
    }
    to_layout(v)
}

/// E(r) in the expanded layout, by rotations: box j (1-based) takes bits 4j-4 .. 4j+1 of
/// `r` (cyclically), which is `(r >>> (31 - 4j)) & 0x3f`. The odd boxes' rotations differ
/// by multiples of 8, so one rotation by 3 lines up S7, S5, S3, S1 in bytes 0..3, and one
/// by 7 lines up S6, S4, S2 and (wrapping) S8 in bytes 4..7. Five operations.
#[inline(always)]
pub(crate) const fn expand(r: u32) -> u64 {
    let odd = r.rotate_right(3) & 0x3f3f_3f3f;
    let even = r.rotate_right(7) & 0x3f3f_3f3f;
    (odd as u64) | ((even as u64) << 32)
}

/// The inverse of [`expand`] on its image: bits 0..5 of each byte of the low word are
/// `r >>> 3`; bits 6..7 of each byte of `r >>> 3` are bits 2..3 of the high word's bytes
/// (`r >>> 7` is `(r >>> 3) >>> 4`).
#[inline(always)]
pub(crate) const fn contract(e: u64) -> u32 {
    let odd = e as u32;
    let even = (e >> 32) as u32;
    let r3 = odd | (even.rotate_left(4) & 0xc0c0_c0c0);
    r3.rotate_left(3)
}

/// The combined table `SP[j][b] = E(P(Sj(b)))`, with `Sj(b)` at the S-box output bits
/// 4j+1 .. 4j+4 (0-based j) and the result in the expanded layout.
pub(crate) const fn combined_tables() -> [[u64; 64]; 8] {
    let mut sp = [[0u64; 64]; 8];
    let mut j = 0;
    while j < 8 {
        let mut b = 0;
        while b < 64 {
            let row = ((b >> 4) & 2) | (b & 1);
            let col = (b >> 1) & 0xf;
            let s = S[j][row][col] as u64;
            let sout = s << (28 - 4 * j);
            let mut p = 0u64;
            let mut i = 0;
            while i < 32 {
                p = (p << 1) | bit(sout, 32, P[i]);
                i += 1;
            }
            sp[j][b] = expand_by_table(p as u32);
            b += 1;
        }
        j += 1;
    }
    sp
}

/// The tag bits the rounds keep in bits 6..7 of every byte of an expanded value: byte k
/// holds `k mod 4`. Tables, keys and key differences have zeros there, so XOR preserves
/// the tags, and a byte of the state, tag included, indexes a 256-entry table that holds
/// four S-boxes: see [`SP_LO`].
pub(crate) const TAG: u64 = 0xc080_4000_c080_4000;

/// The combined tables of the S-boxes whose inputs are in bytes `4 h .. 4 h + 3` of the
/// expanded layout, as little-endian `u64` entries in a byte array: entry `64 c + b`
/// (bytes `8 (64 c + b) ..`) is `SP[j][b]` for the S-box j whose input is in byte `4 h + c`.
const fn by_byte(h: usize) -> ByteTable {
    let sp = combined_tables();
    let mut t = [0u8; 2048];
    let mut j = 0;
    while j < 8 {
        let k = BOX_BYTE[j] as usize;
        if k / 4 == h {
            let mut b = 0;
            while b < 64 {
                let e = sp[j][b].to_le_bytes();
                let at = 8 * (64 * (k % 4) + b);
                let mut i = 0;
                while i < 8 {
                    t[at + i] = e[i];
                    i += 1;
                }
                b += 1;
            }
        }
        j += 1;
    }
    ByteTable(t)
}

/// 256 `u64` table entries addressed by byte offset, on a cache-line boundary.
#[repr(C, align(64))]
pub(crate) struct ByteTable(pub(crate) [u8; 2048]);

impl ByteTable {
    /// The entry at byte offset `at` (a multiple of 8 below 2048, in practice: the callers
    /// mask it with `0x7f8`). An offset rather than an index, so that the load is
    /// `[base + offset]`, which AMD Zen 4 serves in 4 cycles where a scaled index or a
    /// displacement costs 5.
    #[inline(always)]
    pub(crate) fn at(&self, at: usize) -> u64 {
        let mut e = [0u8; 8];
        e.copy_from_slice(&self.0[at..at + 8]);
        u64::from_le_bytes(e)
    }
}

/// The combined S-box/P/E tables for bytes 0..3 of the expanded state (S7, S5, S3, S1),
/// indexed by the whole byte, tag included (2 KiB). With the tag in the index, one base
/// register serves four S-boxes and no displacement is needed.
pub(crate) static SP_LO: ByteTable = by_byte(0);

/// As [`SP_LO`] for bytes 4..7 (S6, S4, S2, S8).
pub(crate) static SP_HI: ByteTable = by_byte(1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_permutations_where_the_standard_says_so() {
        let mut seen = [false; 65];
        for &i in &IP {
            assert!(!seen[i as usize]);
            seen[i as usize] = true;
        }
        let mut seen = [false; 33];
        for &i in &P {
            assert!(!seen[i as usize]);
            seen[i as usize] = true;
        }
        // Every row of every S-box is a permutation of 0..16.
        for sbox in &S {
            for row in sbox {
                let mut seen = [false; 16];
                for &v in row {
                    assert!(!seen[v as usize]);
                    seen[v as usize] = true;
                }
            }
        }
        // PC-1 skips exactly the parity bits 8, 16, ..., 64.
        for &i in &PC1 {
            assert!(i % 8 != 0);
        }
        assert_eq!(SHIFTS.iter().map(|&s| s as u32).sum::<u32>(), 28);
    }

    #[test]
    fn fast_expansion_matches_the_table() {
        let mut x = 0x0123_4567u32;
        for _ in 0..2000 {
            x = x.wrapping_mul(0x9e37_79b9).wrapping_add(0x7f4a_7c15);
            assert_eq!(expand(x), expand_by_table(x), "{x:08x}");
            assert_eq!(contract(expand(x)), x);
        }
        for i in 0..32 {
            let x = 1u32 << i;
            assert_eq!(expand(x), expand_by_table(x));
        }
    }

    #[test]
    fn table_entries_leave_the_tag_bits_clear_and_boxes_are_disjoint() {
        let sp = combined_tables();
        let mut seen = 0u64;
        for sbox in &sp {
            let support = sbox.iter().fold(0, |acc, &e| acc | e);
            assert_eq!(support & TAG, 0);
            assert_eq!(support & 0xc0c0_c0c0_c0c0_c0c0, 0);
            // Each box's outputs land on bits no other box touches (OR = ADD = XOR).
            assert_eq!(support & seen, 0);
            seen |= support;
        }
        assert_eq!(seen, 0x3f3f_3f3f_3f3f_3f3f);
        for (k, byte) in (0..8).map(|k| (k, (TAG >> (8 * k)) as u8)) {
            assert_eq!(byte >> 6, k % 4);
        }
    }
}
