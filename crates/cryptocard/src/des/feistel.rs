//! The DES engine: initial and final permutations, the key schedule and the sixteen
//! rounds on expanded halves (FIPS 46-3, "Enciphering", "Deciphering", "Key Schedule
//! Calculation").
//!
//! # Representation
//!
//! Between IP and IP^-1 a block is a [`Halves`]: both 32-bit halves in the expanded
//! 48-bit layout of [`super::tables`]. Every linear step of DES commutes with this
//! representation (E is linear: `E(a xor b) = E(a) xor E(b)`), which the modes use: CBC
//! encryption XORs the next plaintext into the *internal* state, since
//! `IP(P xor C) = IP(P) xor IP(IP^-1(state)) = IP(P) xor state`. IP, IP^-1 and E then
//! leave the serial chain of CBC, CFB and OFB, and triple-DES runs its three passes back
//! to back with no permutation between them.
//!
//! # Rounds with the key XOR off the critical path
//!
//! With `X_r = R_r xor K_r` (the S-box inputs of round r, rounds and keys numbered from 0)
//! the round `R_{r+1} = L_r xor f(R_r, K_r)`, `L_r = R_{r-1}` becomes
//!
//! ```text
//! X_{r+1} = X_{r-1} xor D_r xor T(X_r),   D_r = K_{r-1} xor K_{r+1}   (K_{-1} = K_16 = 0)
//! ```
//!
//! where `T` is the eight lookups of the combined tables. `X_{r-1} xor D_r` is ready a
//! round early, so a round's latency is index extraction, one load and a 3-deep XOR tree;
//! the key XOR has left the chain. Start: `X_{-1} = L_0`, `X_0 = R_0 xor K_0`. End:
//! `R_16 = X_16`, `L_16 = X_15 xor K_15`. Decryption uses the keys in reverse order, whose
//! `D` are the same values reversed.
//!
//! Inside the rounds every byte of `X` also carries a tag in its two spare top bits (byte
//! k holds `k mod 4`, [`super::tables::TAG`]): keys, key differences and table entries
//! are zero there, so the XORs keep the tags, and a whole byte of `X` (offset by 8) picks
//! the right S-box out of a 2 KiB table holding four of them. A lookup is then
//! `[base + ((x >> (8k - 3)) & 0x7f8)]`, unscaled and without displacement, the load form
//! AMD Zen 4 answers in 4 cycles rather than 5. The tags are set on entry and cleared on
//! exit.
//!
//! On the serial chain a round thus costs the latency of the index extraction, the load
//! and the XOR tree, plus what port contention adds; a DES block is sixteen of them and a
//! triple-DES block forty-eight (`cargo bench -p cryptocard-bench --bench des`).
//!
//! # Initial permutation
//!
//! IP is an 8x8 bit-matrix transpose with its rows and columns reordered: reading the
//! block big-endian, output byte r bit j is input byte `7 - j` bit `c_r`, `c = 1, 3, 5, 7,
//! 0, 2, 4, 6` (MSB-first numbering). A byte swap, the three delta swaps of a transpose
//! (Hacker's Delight 7-3) and two byte-unshuffle delta swaps produce `R || L` exactly.
//! IP^-1 runs the same involutions in reverse.
//!
//! # Timing
//!
//! The table lookups are indexed by key- and data-dependent values, as in every
//! table-driven DES (OpenSSL's `DES_SPtrans`, Go's `feistelBox`): the 4 KiB of tables fit
//! the L1 cache, but cache-line and cache-bank timing can leak to an attacker sharing the
//! core. DES is kept for legacy interoperability, not for new designs.

use super::tables::{PC1_MAP, PC2_MAP, SHIFTS, SP_HI, SP_LO, TAG, contract, expand};
use zeroize::Zeroize;

/// Both halves of a block between IP and IP^-1, each expanded to 48 bits (see the module
/// docs). After the rounds they are in pre-output order: `l` holds R16 and `r` holds L16,
/// so that IP^-1 of `l || r` is the ciphertext and another pass can start at once.
/// Its `Debug` prints no bits: between the rounds a block is key-dependent state.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Halves {
    pub(crate) l: u64,
    pub(crate) r: u64,
}

impl core::fmt::Debug for Halves {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Halves(..)")
    }
}

impl core::ops::BitXor for Halves {
    type Output = Halves;
    #[inline(always)]
    fn bitxor(self, o: Halves) -> Halves {
        Halves { l: self.l ^ o.l, r: self.r ^ o.r }
    }
}

/// One delta swap: exchanges the bits of `x` under `mask` with those `n` places above.
#[inline(always)]
const fn delta_swap(x: u64, n: u32, mask: u64) -> u64 {
    let t = ((x >> n) ^ x) & mask;
    x ^ t ^ (t << n)
}

/// The IP network on a big-endian block; returns `R || L` (R in the high word).
#[inline(always)]
const fn ip_network(x: u64) -> u64 {
    let x = x.swap_bytes();
    let x = delta_swap(x, 7, 0x00aa_00aa_00aa_00aa);
    let x = delta_swap(x, 14, 0x0000_cccc_0000_cccc);
    let x = delta_swap(x, 28, 0x0000_0000_f0f0_f0f0);
    let x = delta_swap(x, 8, 0x0000_ff00_0000_ff00);
    delta_swap(x, 16, 0x0000_0000_ffff_0000)
}

/// The inverse of [`ip_network`].
#[inline(always)]
const fn ip_network_inverse(x: u64) -> u64 {
    let x = delta_swap(x, 16, 0x0000_0000_ffff_0000);
    let x = delta_swap(x, 8, 0x0000_ff00_0000_ff00);
    let x = delta_swap(x, 28, 0x0000_0000_f0f0_f0f0);
    let x = delta_swap(x, 14, 0x0000_cccc_0000_cccc);
    let x = delta_swap(x, 7, 0x00aa_00aa_00aa_00aa);
    x.swap_bytes()
}

/// IP of a block (read big-endian), then E of each half.
#[inline(always)]
pub(crate) fn ip_expand(block: u64) -> Halves {
    let z = ip_network(block);
    Halves { l: expand(z as u32), r: expand((z >> 32) as u32) }
}

/// E^-1 of each half, then IP^-1 of `l || r`: the block (big-endian).
#[inline(always)]
pub(crate) fn fp_contract(h: Halves) -> u64 {
    let z = (contract(h.l) as u64) | ((contract(h.r) as u64) << 32);
    ip_network_inverse(z)
}

/// A DES key schedule in the form the rounds use (see the module docs): the first and
/// last round keys and the sixteen `D_r = K_{r-1} xor K_{r+1}`, all in the expanded layout.
/// Zeroized on drop.
#[derive(Clone)]
pub(crate) struct KeySchedule {
    k_first: u64,
    k_last: u64,
    d: [u64; 16],
}

impl Drop for KeySchedule {
    fn drop(&mut self) {
        self.k_first.zeroize();
        self.k_last.zeroize();
        self.d.zeroize();
    }
}

impl KeySchedule {
    /// The schedule of a 64-bit key (read big-endian; the parity bits 8, 16, ..., 64 are
    /// ignored, as FIPS 46-3 says): PC-1, the rotations of C and D, and PC-2 straight into
    /// the expanded layout, each permutation as a [`BitMap`](super::tables::BitMap) of fixed rotations and masks,
    /// so it runs in constant time.
    pub(crate) fn new(key: u64) -> KeySchedule {
        let mut cd = PC1_MAP.apply(key); // C in bits 55..28, D in bits 27..0
        let mut k = [0u64; 16];
        for (kr, &s) in k.iter_mut().zip(&SHIFTS) {
            let s = s as u32;
            let c = cd >> 28;
            let d = cd & 0x0fff_ffff;
            let c = ((c << s) | (c >> (28 - s))) & 0x0fff_ffff;
            let d = ((d << s) | (d >> (28 - s))) & 0x0fff_ffff;
            cd = (c << 28) | d;
            *kr = PC2_MAP.apply(cd);
        }
        let mut deltas = [0u64; 16];
        for (r, dr) in deltas.iter_mut().enumerate() {
            let before = if r == 0 { 0 } else { k[r - 1] };
            let after = if r == 15 { 0 } else { k[r + 1] };
            *dr = before ^ after;
        }
        let schedule = KeySchedule { k_first: k[0], k_last: k[15], d: deltas };
        cd.zeroize();
        k.zeroize();
        deltas.zeroize();
        schedule
    }
}

/// One round on the tagged S-box inputs `x`: `acc xor T(x)`, where `T` is the eight
/// combined-table lookups, one per byte of `x` (the tag in bits 6..7 picks the S-box
/// within [`SP_LO`] or [`SP_HI`]).
///
/// The eight lookups land on disjoint bits (each bit of E's output copies one bit of P's
/// output, which comes from exactly one S-box), so on them OR, ADD and XOR agree. Writing
/// the tree with a different operator on each level keeps LLVM's reassociation from
/// flattening it into a serial chain of eight XORs (it only regroups runs of one
/// operator): the sum is then 3 levels deep after the loads.
#[inline(always)]
fn round(acc: u64, x: u64) -> u64 {
    // Byte k of x, times 8: the byte offset of its table entry.
    let off = |k: u32| (if k == 0 { x << 3 } else { x >> (8 * k - 3) } & 0x7f8) as usize;
    let lo = |k: u32| SP_LO.at(off(k));
    let hi = |k: u32| SP_HI.at(off(k));
    let early = (acc ^ lo(0)) ^ hi(7);
    let pair = lo(1) | lo(2);
    let quad = (lo(3) | hi(4)).wrapping_add(hi(5) | hi(6));
    (early ^ pair) ^ quad
}

/// The sixteen rounds on `N` independent blocks at once (interleaved so that one block's
/// loads fill the other's latency). `decrypt` selects the key order; it is a constant at
/// every call site, so each direction compiles to its own code. The loop runs two rounds
/// an iteration: unrolling all sixteen measured slower on Zen 4 (more so with three
/// lanes), and a hand-scheduled `asm!` round gained too little over this one to keep.
#[inline(always)]
fn rounds<const N: usize>(ks: &KeySchedule, s: &mut [Halves; N], decrypt: bool) {
    let (k0, k15) = if decrypt { (ks.k_last, ks.k_first) } else { (ks.k_first, ks.k_last) };
    // a = X_{r-1}, b = X_r.
    let mut a = [0u64; N];
    let mut b = [0u64; N];
    for i in 0..N {
        a[i] = s[i].l | TAG;
        b[i] = (s[i].r ^ k0) | TAG;
    }
    let mut r = 0;
    while r < 16 {
        let (d0, d1) = if decrypt { (ks.d[15 - r], ks.d[14 - r]) } else { (ks.d[r], ks.d[r + 1]) };
        for i in 0..N {
            a[i] = round(a[i] ^ d0, b[i]);
        }
        for i in 0..N {
            b[i] = round(b[i] ^ d1, a[i]);
        }
        r += 2;
    }
    // a = X_15, b = X_16: R16 = X_16, L16 = X_15 xor K_15; pre-output order (R16, L16).
    for i in 0..N {
        s[i] = Halves { l: b[i] & !TAG, r: (a[i] ^ k15) & !TAG };
    }
}

impl KeySchedule {
    /// The sixteen encryption rounds, from `IP(block)` to the pre-output (no IP/IP^-1).
    #[inline(always)]
    pub(crate) fn encrypt_inner(&self, s: Halves) -> Halves {
        let mut s = [s];
        rounds(self, &mut s, false);
        s[0]
    }

    /// The sixteen decryption rounds (keys in reverse order).
    #[inline(always)]
    pub(crate) fn decrypt_inner(&self, s: Halves) -> Halves {
        let mut s = [s];
        rounds(self, &mut s, true);
        s[0]
    }

    /// [`Self::encrypt_inner`] on `N` independent blocks, interleaved.
    #[inline(always)]
    pub(crate) fn encrypt_inner_par<const N: usize>(&self, s: &mut [Halves; N]) {
        rounds(self, s, false);
    }

    /// [`Self::decrypt_inner`] on `N` independent blocks, interleaved.
    #[inline(always)]
    pub(crate) fn decrypt_inner_par<const N: usize>(&self, s: &mut [Halves; N]) {
        rounds(self, s, true);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tables::{IP, PC1, PC2, to_layout};
    use super::*;

    /// A block between the rounds is key-dependent state: its `Debug` prints no bits.
    #[test]
    fn halves_debug_prints_no_bits() {
        assert_eq!(format!("{:?}", ip_expand(0x0123_4567_89ab_cdef)), "Halves(..)");
    }

    /// The round keys bit by bit, straight from FIPS 46-3's PC-1, shifts and PC-2.
    fn round_keys_by_table(key: u64) -> [u64; 16] {
        let bit = |x: u64, width: u32, n: u8| (x >> (width - n as u32)) & 1;
        let cd = PC1.iter().fold(0u64, |acc, &n| (acc << 1) | bit(key, 64, n));
        let (mut c, mut d) = ((cd >> 28) as u32, (cd & 0x0fff_ffff) as u32);
        let mut k = [0u64; 16];
        for (kr, &s) in k.iter_mut().zip(&SHIFTS) {
            c = ((c << s) | (c >> (28 - s as u32))) & 0x0fff_ffff;
            d = ((d << s) | (d >> (28 - s as u32))) & 0x0fff_ffff;
            let cd = ((c as u64) << 28) | d as u64;
            *kr = to_layout(PC2.iter().fold(0u64, |acc, &n| (acc << 1) | bit(cd, 56, n)));
        }
        k
    }

    #[test]
    fn key_schedule_matches_the_standard_bit_by_bit() {
        let mut key = 0x0123_4567_89ab_cdefu64;
        for _ in 0..500 {
            let k = round_keys_by_table(key);
            let ks = KeySchedule::new(key);
            assert_eq!((ks.k_first, ks.k_last), (k[0], k[15]));
            for r in 0..16 {
                let before = if r == 0 { 0 } else { k[r - 1] };
                let after = if r == 15 { 0 } else { k[r + 1] };
                assert_eq!(ks.d[r], before ^ after, "key {key:016x} round {r}");
            }
            key = key.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(0x1234_5678);
        }
    }

    fn ip_by_table(x: u64) -> u64 {
        IP.iter().fold(0u64, |acc, &n| (acc << 1) | ((x >> (64 - n as u32)) & 1))
    }

    #[test]
    fn ip_network_is_the_standard_ip() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..1000 {
            let y = ip_by_table(x);
            assert_eq!(ip_network(x), y.rotate_left(32), "{x:016x}");
            assert_eq!(ip_network_inverse(ip_network(x)), x);
            let h = ip_expand(x);
            assert_eq!(h.l, expand((y >> 32) as u32));
            assert_eq!(h.r, expand(y as u32));
            x = x.wrapping_mul(0x2545_f491_4f6c_dd1d).wrapping_add(1);
        }
        for i in 0..64 {
            assert_eq!(ip_network(1 << i), ip_by_table(1 << i).rotate_left(32));
        }
    }
}
