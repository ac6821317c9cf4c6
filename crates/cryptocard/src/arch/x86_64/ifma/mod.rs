//! AVX-512 IFMA Montgomery arithmetic in radix 2^52 (docs to come).

// The RSA layer and the engine are the callers; until they land only the tests are.
#![cfg_attr(not(test), allow(dead_code))]

/// Expands `$body` once for each `$k` in `0..$n` (a constant), as straight-line code when
/// `$n <= 32`: the kernels keep their accumulators in registers, which needs every index
/// constant, and LLVM does not fully unroll loops of this size by itself. Larger counts
/// get an ordinary loop (correct, but with the accumulators in memory).
macro_rules! unroll {
    ($k:ident in 0..$n:expr => $body:block) => {
        unroll!(@ $k, $n, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
    };
    (@ $k:ident, $n:expr, $body:block, $($i:literal)*) => {{
        if $n <= 32 {
            $( if $i < $n { let $k: usize = $i; $body } )*
        } else {
            #[allow(clippy::needless_range_loop)]
            for $k in 0..$n $body
        }
    }};
}

pub(crate) mod amm;
pub(crate) mod ams;
pub(crate) mod exp_mb8;
pub(crate) mod exp_x2;
pub(crate) mod radix52;
mod vec52;
mod window;

use crate::Error;

/// The outcome of one lane of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneStatus {
    /// The lane's result is in its output.
    Done,
    /// The lane had no job.
    Empty,
    /// The lane's inputs were invalid; its output was zero-filled.
    Failed(Error),
}

/// Bits `[pos, pos + w)` of the little-endian limbs `e` (zero beyond its end), `w <= 8`.
/// Constant-time in the value of `e`; `pos` and `w` are public.
fn window_bits(e: &[u64], pos: usize, w: usize) -> u64 {
    radix52::bits_at(e, pos) & ((1 << w) - 1)
}

#[cfg(test)]
mod bench;
#[cfg(test)]
pub(super) mod tests;
