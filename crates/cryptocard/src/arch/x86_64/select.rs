//! The masked full-table scan of fixed-window exponentiation on AVX2 vectors.
//!
//! Constant-time exponentiation must read a table entry without letting the memory
//! address depend on the secret index (cache-timing attacks: Percival 2005, Yarom and
//! Falkner's FLUSH+RELOAD 2014, and CacheBleed 2016 against OpenSSL's scattered table). So
//! every entry is read, whole, and all but the wanted one are masked away. The portable
//! twin, [`crate::ct::select_from_table`], does that one limb at a time; here it is
//! 256 bits at a time: for entry `e`, a `vpcmpeqq` of the broadcast counter `e` against
//! the broadcast index gives an all-ones or all-zeros mask, and each 4-limb column of the
//! entry is `vpand`ed with it (the load folded in) and `vpor`ed into an accumulator.
//!
//! The table stays entry after entry (entry `e` is `table[e*w..(e+1)*w]`). OpenSSL
//! interleaves its table instead (`bn_scatter5`: limb `i` of every entry side by side) so
//! that a 128-bit scan yields one limb after a horizontal reduction; with whole entries
//! per vector no horizontal step is needed, and the same bytes are read either way.
//!
//! Up to 8 accumulators (32 limbs) are live at once; a wider entry is scanned in column
//! blocks of 32 limbs, each a full pass over the entries. Limbs beyond the last multiple
//! of 4 (entries of `w % 4 != 0` limbs) go through the portable scan.
//!
//! Constant time: the instruction sequence, the addresses and the trip counts depend on
//! `w` and the number of entries only; the index enters only the compare.
//!
//! A scan reads the whole table, so its floor is the load bandwidth (a 32-entry table of
//! 16-limb entries is 4 KiB, 128 loads of 256 bits); with a quarter of the loads and mask
//! operations of the portable scan, which goes a limb at a time, this one is several times
//! faster (`crates/bench`, `adx -- kernels`).

use super::cpu::Avx2;
use crate::limb::Limb;
use core::arch::asm;

/// Accumulators per pass (`ymm0`..`ymm7`), so 32 limbs of every entry per pass.
const MAX_VECTORS: usize = 8;

/// `out = table[index]` (all zeros when `index` is past the end), reading every entry of
/// `table` in full. Entries have `out.len() > 0` limbs; `table.len()` is a multiple of it.
/// The same contract as [`crate::ct::select_from_table`]; time depends on the lengths only.
pub fn select_from_table(avx2: Avx2, out: &mut [Limb], table: &[Limb], index: usize) {
    let w = out.len();
    assert!(w > 0 && table.len().is_multiple_of(w), "internal error: select_from_table shape");
    let entries = table.len() / w;
    let vectors = w / 4;
    let mut col = 0;
    while col < vectors * 4 {
        let l = (vectors - col / 4).min(MAX_VECTORS);
        match l {
            1 => scan::<1>(avx2, out, table, col, entries, index),
            2 => scan::<2>(avx2, out, table, col, entries, index),
            3 => scan::<3>(avx2, out, table, col, entries, index),
            4 => scan::<4>(avx2, out, table, col, entries, index),
            5 => scan::<5>(avx2, out, table, col, entries, index),
            6 => scan::<6>(avx2, out, table, col, entries, index),
            7 => scan::<7>(avx2, out, table, col, entries, index),
            _ => scan::<8>(avx2, out, table, col, entries, index),
        }
        col += 4 * l;
    }
    // The last w % 4 limbs of every entry, one limb at a time (the portable scan's
    // arithmetic, over strided columns).
    for (i, o) in out.iter_mut().enumerate().skip(col) {
        let mut v = 0;
        for (e, entry) in table.chunks_exact(w).enumerate() {
            v |= crate::ct::eq(e as Limb, index as Limb).mask() & entry[i];
        }
        *o = v;
    }
}

/// One pass: `out[col..col + 4L] = table[index][col..col + 4L]`.
#[inline(always)]
fn scan<const L: usize>(
    _avx2: Avx2,
    out: &mut [Limb],
    table: &[Limb],
    col: usize,
    entries: usize,
    index: usize,
) {
    const { assert!(L >= 1 && L <= MAX_VECTORS) };
    let w = out.len();
    assert!(
        col + 4 * L <= w && entries >= 1 && table.len() == entries * w,
        "internal error: select scan bounds"
    );
    let index = index as u64;
    // SAFETY: the `Avx2` token proves the CPU has AVX2 (and the OS saves the
    // ymm registers). Entry `e` (0..entries) is read at `table + 8(e w + col)` for 32L
    // bytes, within `table` since col + 4L <= w; the result is written to
    // out[col..col + 4L], within `out`. Unaligned `vmovdqu`/folded loads need no
    // alignment (AVX allows unaligned memory operands). No stack use. Clobbered: every
    // register `vzeroupper` changes, ymm0-15 whole (a ymm operand is the whole zmm to the
    // compiler), not only the ymm0-12 written: a list that stopped at ymm12 let the
    // compiler keep a value in ymm13-15 across the block, whose upper half `vzeroupper`
    // zeroes. zmm16-31 it leaves alone.
    unsafe {
        asm!(
            "vmovq xmm9, {index}",
            "vpbroadcastq ymm9, xmm9",
            "vpxor xmm10, xmm10, xmm10",
            "vpcmpeqq ymm11, ymm11, ymm11",
            "vpsubq ymm11, ymm10, ymm11", // ymm11 = 1 in every lane
            ".irp r, 0,1,2,3,4,5,6,7",
            ".if \\r < {l}",
            "vpxor xmm\\r, xmm\\r, xmm\\r",
            ".endif",
            ".endr",
            "2:",
            "vpcmpeqq ymm8, ymm10, ymm9",
            ".irp r, 0,1,2,3,4,5,6,7",
            ".if \\r < {l}",
            "vpand ymm12, ymm8, ymmword ptr [{p} + 32*\\r]",
            "vpor ymm\\r, ymm\\r, ymm12",
            ".endif",
            ".endr",
            "vpaddq ymm10, ymm10, ymm11",
            "add {p}, {stride}",
            "dec {n}",
            "jnz 2b",
            ".irp r, 0,1,2,3,4,5,6,7",
            ".if \\r < {l}",
            "vmovdqu ymmword ptr [{out} + 32*\\r], ymm\\r",
            ".endif",
            ".endr",
            "vzeroupper",
            index = in(reg) index,
            p = inout(reg) table[col..].as_ptr() => _,
            stride = in(reg) w * 8,
            n = inout(reg) entries => _,
            out = in(reg) out[col..].as_mut_ptr(),
            l = const L,
            out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
            out("ymm4") _, out("ymm5") _, out("ymm6") _, out("ymm7") _,
            out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
            out("ymm12") _, out("ymm13") _, out("ymm14") _, out("ymm15") _,
            options(nostack),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(entries: usize, w: usize, seed: u64) -> Vec<Limb> {
        let mut s = crate::test_rng::Lcg64(seed);
        (0..entries * w).map(|_| s.next_u64()).collect()
    }

    /// Every shape the exponentiations use and odd ones around them, every index (and
    /// indices past the end), against the portable scan.
    #[test]
    fn matches_the_portable_scan() {
        let Some(avx2) = Avx2::detect() else { return eprintln!("skipped: no AVX2") };
        for w in [1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 24, 31, 32, 33, 36, 48, 64, 65, 128] {
            for entries in [1, 2, 3, 8, 16, 32, 64, 129] {
                let t = table(entries, w, (w * 1000 + entries) as u64);
                for index in (0..entries + 2).chain([usize::MAX, 1 << 40]) {
                    let mut want = vec![!0; w];
                    crate::ct::select_from_table(&mut want, &t, index);
                    let mut got = vec![0x5555; w];
                    select_from_table(avx2, &mut got, &t, index);
                    assert_eq!(got, want, "w = {w}, entries = {entries}, index = {index}");
                }
            }
        }
    }

    #[test]
    fn all_ones_and_zero_entries() {
        let Some(avx2) = Avx2::detect() else { return eprintln!("skipped: no AVX2") };
        for w in [4, 16, 33] {
            let mut t = vec![0; 32 * w];
            t[5 * w..6 * w].fill(!0);
            let mut got = vec![0; w];
            select_from_table(avx2, &mut got, &t, 5);
            assert!(got.iter().all(|&x| x == !0));
            select_from_table(avx2, &mut got, &t, 6);
            assert!(got.iter().all(|&x| x == 0));
        }
    }
}
