//! The x2 normalisations (`normalize_x2!` inline, `normalize_x2` out of line, and the
//! strided layout's `normalize_x2s`) against a digit-by-digit carry pass, on digits built
//! to make their carry lookahead work: random products' digits almost never generate or
//! propagate a carry after its first step (a digit would have to land within 2^11 of
//! 2^52), so these draw digits at and around `2^52 - 1`, `2^52` and far above, runs of
//! `2^52 - 1` that a carry crosses (across blocks and the lookahead's 64-bit words), and
//! different patterns in the two numbers.

use super::{Rng, ifma_or_skip};
use crate::arch::x86_64::ifma::amm_x2_strided::{
    from_strided, normalize_x2s, to_strided, with_strided_slots,
};
use crate::arch::x86_64::ifma::radix52::DIGIT_MASK;
use crate::arch::x86_64::ifma::vec52::{self, X2};
use core::arch::x86_64::*;

/// One unnormalised digit (below 2^63, as the products leave them).
fn digit(rng: &mut Rng) -> u64 {
    match rng.next() % 8 {
        0 => 0,
        1 | 2 => DIGIT_MASK,
        3 => DIGIT_MASK - 1,
        4 => DIGIT_MASK + 1 + rng.next() % 4,
        5 => rng.next() >> 12,
        6 => rng.next() >> 1,
        _ => (rng.next() >> 53) << 52 | DIGIT_MASK,
    }
}

/// `x` normalised one digit at a time, or `None` if its value needs more than `D` digits.
fn reference<const D: usize>(x: &[u64; D]) -> Option<[u64; D]> {
    let mut out = [0; D];
    let mut carry = 0u64;
    for k in 0..D {
        let t = x[k] + carry;
        out[k] = t & DIGIT_MASK;
        carry = t >> 52;
    }
    (carry == 0).then_some(out)
}

/// Two numbers of unnormalised digits whose values fit `D` digits: each either all drawn
/// from `digit`, or a run of `2^52 - 1` (long enough to cross a block or a word of the
/// lookahead) above a digit that carries into it.
fn pair<const D: usize>(rng: &mut Rng) -> ([[u64; D]; 2], [[u64; D]; 2]) {
    loop {
        let mut x = [[0u64; D]; 2];
        for number in &mut x {
            *number = core::array::from_fn(|_| digit(rng));
            if rng.next().is_multiple_of(2) {
                let start = (rng.next() % D as u64) as usize;
                let len = 1 + (rng.next() % 40) as usize;
                number[start] = DIGIT_MASK + 1 + (rng.next() >> 1) % (1 << 62);
                for d in number.iter_mut().take(D).skip(start + 1).take(len) {
                    *d = DIGIT_MASK;
                }
            }
        }
        if let (Some(a), Some(b)) = (reference(&x[0]), reference(&x[1])) {
            return (x, [a, b]);
        }
    }
}

/// The blocks of `x`, as a product's accumulators hold them (24: the most an `X2` has).
#[target_feature(enable = "avx512f")]
fn blocks<const D: usize>(x: &X2<D>) -> [__m512i; 24] {
    let mut acc = [_mm512_setzero_si512(); 24];
    for (v, a) in acc.iter_mut().enumerate().take(X2::<D>::BLOCKS) {
        *a = vec52::block(x, v);
    }
    acc
}

/// `normalize_x2!` as the products inline it.
#[target_feature(enable = "avx512f,avx512bw")]
fn normalize_inline<const D: usize>(x: &X2<D>, out: &mut X2<D>) {
    normalize_x2!(&blocks(x)[..X2::<D>::BLOCKS], out);
}

/// `normalize_x2s` on the strided form of `x` in `P` slots, returned contiguous.
#[target_feature(enable = "avx512f,avx512bw")]
fn normalize_strided<const D: usize, const P: usize>(x: &X2<D>) -> X2<D> {
    let mut out = X2::<P>::ZERO;
    normalize_x2s(&blocks(&to_strided::<D, P>(x))[..P / 4], &mut out);
    from_strided::<D, P>(&out)
}

fn normalize_matches<const D: usize>(rng: &mut Rng) {
    let Some(_ifma) = ifma_or_skip("normalize_x2_matches_a_carry_pass") else { return };
    for _ in 0..400 {
        let (x, want) = pair::<D>(rng);
        let digit_pairs =
            |v: &[[u64; D]; 2]| -> [[u64; 2]; D] { core::array::from_fn(|k| [v[0][k], v[1][k]]) };
        let (mut input, want) = (X2::<D>::ZERO, digit_pairs(&want));
        input.d = digit_pairs(&x);
        let (mut inline, mut call) = (X2::<D>::ZERO, X2::<D>::ZERO);
        // SAFETY: AVX-512 (with IFMA, which implies F and BW here) was detected above.
        unsafe {
            normalize_inline(&input, &mut inline);
            vec52::normalize_x2(&blocks(&input)[..X2::<D>::BLOCKS], &mut call);
        }
        // SAFETY: as above.
        let strided = with_strided_slots!(D, P => Some(unsafe { normalize_strided::<D, P>(&input) }),
            else => None);
        for (k, want) in want.iter().enumerate() {
            if let Some(strided) = &strided {
                assert_eq!(&strided.d[k], want, "strided, D = {D}, digit {k}");
            }
            assert_eq!(&inline.d[k], want, "inline, D = {D}, digit {k}");
            assert_eq!(&call.d[k], want, "call, D = {D}, digit {k}");
        }
    }
}

#[test]
fn normalize_x2_matches_a_carry_pass() {
    let mut rng = Rng(0x6e6f726d);
    normalize_matches::<10>(&mut rng);
    normalize_matches::<20>(&mut rng);
    normalize_matches::<24>(&mut rng);
    normalize_matches::<28>(&mut rng);
    normalize_matches::<30>(&mut rng);
    normalize_matches::<32>(&mut rng);
    normalize_matches::<33>(&mut rng);
    normalize_matches::<40>(&mut rng);
    normalize_matches::<60>(&mut rng);
    normalize_matches::<79>(&mut rng);
    normalize_matches::<96>(&mut rng);
}
