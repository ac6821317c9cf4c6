//! The SHA-512 rounds of the AVX2 kernel, in assembly: one round per `asm!` block on
//! renamed variables, sixteen at a time with a hook for interleaved vector work, and the
//! 80 rounds of a block whose schedule is already stored. See `super` for the design.

use core::arch::asm;

/// One round of FIPS 180-4 section 6.4.2 step 3 in assembly, on renamed variables: on
/// return `$d` is the new `e` and `$h` the new `a` less Σ0 of this round's `a`, which is
/// left in `$s0` and added to the new `a` at the start of the next round (the `a` that
/// round receives is then whole). `$bc` carries `b ^ c` in and `a ^ b` out, for
/// Maj(a,b,c) = b ^ ((a ^ b) & (b ^ c)) (the next round's `b ^ c` is this round's
/// `a ^ b`); `$fc` carries a copy of `f` in and of `e` (the next `f`) out. Ch is
/// `(e & f) + (!e & g)`, disjoint terms, so their OR is their sum. `K[t] + W[t]` is read
/// from `[$kw + $off]`.
///
/// Assembly because LLVM re-associates the sums (it adds Σ1, the deepest term, first,
/// lengthening the chain to the new `e`) and because the round is throughput-bound, so
/// every instruction counts: 22 ALU operations and two register copies.
macro_rules! round_asm {
    (
        $a:ident, $b:ident, $d:ident, $e:ident, $g:ident, $h:ident,
        $s0:ident, $bc:ident, $fc:ident, $kw:expr, $off:expr
    ) => {
        // SAFETY: register arithmetic and one 8-byte load from `$kw + $off`, inside the
        // caller's schedule array (see `rounds16_asm`); BMI1/BMI2 (`andn`, `rorx`) are
        // guaranteed by the caller's token; no stack use; flags clobbered (asm! assumes
        // so).
        unsafe {
            asm!(
                "add {h}, qword ptr [{kw} + {off}]",
                "and {fc}, {e}",
                "rorx {t0}, {e}, 41",
                "rorx {ab}, {e}, 18",
                "add {a}, {s0}",
                "add {h}, {fc}",
                "andn {fc}, {e}, {g}",
                "xor {t0}, {ab}",
                "rorx {s0}, {e}, 14",
                "add {h}, {fc}",
                "xor {t0}, {s0}",
                "mov {ab}, {a}",
                "rorx {fc}, {a}, 39",
                "add {h}, {t0}",
                "xor {ab}, {b}",
                "rorx {s0}, {a}, 34",
                "rorx {t0}, {a}, 28",
                "add {d}, {h}",
                "and {bc}, {ab}",
                "xor {s0}, {fc}",
                "xor {bc}, {b}",
                "xor {s0}, {t0}",
                "add {h}, {bc}",
                "mov {fc}, {e}",
                a = inout(reg) $a,
                b = in(reg) $b,
                e = in(reg) $e,
                g = in(reg) $g,
                d = inout(reg) $d,
                h = inout(reg) $h,
                s0 = inout(reg) $s0,
                bc = inout(reg) $bc => _,
                ab = out(reg) $bc,
                fc = inout(reg) $fc,
                kw = in(reg) $kw,
                off = const $off,
                t0 = out(reg) _,
                options(pure, readonly, nostack),
            );
        }
    };
}

/// The schedule as stored for a pair of blocks: entry `p` holds `K + W` for words `2p`,
/// `2p + 1` of the first block, then of the second (one 32-byte vector store).
pub(super) type PairSchedule = [[u64; 4]; 40];

/// Byte offset of word `j` (of a group of sixteen) in a `PairSchedule` group, first block.
macro_rules! word_offset {
    ($j:expr) => {
        32 * (($j) / 2) + 8 * (($j) % 2)
    };
}

/// Sixteen rounds on the working variables `s`, reading `K[t + j] + W[t + j]` at byte
/// offset `word_offset!(j)` from `kw` (sixteen words of a [`PairSchedule`], first block;
/// the caller adds 16 bytes for the second).
/// `carry` is what one round hands the next besides the variables: Σ0 of the last `a`
/// (added to the new `a` at the start of the next round), `b ^ c`, and a copy of `f`.
/// `side(i)` is called after every second round, `i` = 0..8: the vector schedule runs
/// there, interleaved with the rounds in the instruction stream so that the two kinds
/// of work overlap (a burst of either would fill the out-of-order window alone).
///
/// Safety: `kw` must point to 256 readable bytes (8 entries of a `PairSchedule`, plus
/// at most 16 for the second block's offset, still inside those entries).
#[inline(always)]
pub(super) unsafe fn rounds16_asm(
    s: &mut [u64; 8],
    carry: &mut [u64; 3],
    kw: *const u8,
    mut side: impl FnMut(usize),
) {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *s;
    let [mut s0, mut bc, mut fc] = *carry;
    let p = kw;
    macro_rules! eight {
        ($j:literal) => {
            round_asm!(a, b, d, e, g, h, s0, bc, fc, p, word_offset!($j));
            round_asm!(h, a, c, d, f, g, s0, bc, fc, p, word_offset!($j + 1));
            side($j / 2);
            round_asm!(g, h, b, c, e, f, s0, bc, fc, p, word_offset!($j + 2));
            round_asm!(f, g, a, b, d, e, s0, bc, fc, p, word_offset!($j + 3));
            side($j / 2 + 1);
            round_asm!(e, f, h, a, c, d, s0, bc, fc, p, word_offset!($j + 4));
            round_asm!(d, e, g, h, b, c, s0, bc, fc, p, word_offset!($j + 5));
            side($j / 2 + 2);
            round_asm!(c, d, f, g, a, b, s0, bc, fc, p, word_offset!($j + 6));
            round_asm!(b, c, e, f, h, a, s0, bc, fc, p, word_offset!($j + 7));
            side($j / 2 + 3);
        };
    }
    eight!(0);
    eight!(8);
    *s = [a, b, c, d, e, f, g, h];
    *carry = [s0, bc, fc];
}

/// The 80 rounds of one block from its stored schedule (`second` selects the block of
/// the pair), with nothing interleaved; then the state update of step 4.
#[inline(always)]
pub(super) unsafe fn block_rounds(state: &mut [u64; 8], wk: &PairSchedule, second: bool) {
    let mut s = *state;
    // Nothing deferred yet; b ^ c and a copy of f of the initial variables.
    let mut carry = [0, s[1] ^ s[2], s[5]];
    let base = wk.as_ptr().cast::<u8>().wrapping_add(if second { 16 } else { 0 });
    for g in 0..5 {
        // SAFETY: group g's entries 8g..8g + 8 are inside `wk` (40 entries); with the
        // 16-byte second-block offset every read stays inside entry 8g + 7.
        unsafe { rounds16_asm(&mut s, &mut carry, base.wrapping_add(256 * g), |_| {}) };
    }
    // The last round's Σ0 is still owed to `a`.
    s[0] = s[0].wrapping_add(carry[0]);
    for (h, v) in state.iter_mut().zip(s) {
        *h = h.wrapping_add(v);
    }
}
