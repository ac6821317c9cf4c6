//! Perfect powers: whether n = a^k for some integers a >= 2 and k >= 2.
//!
//! It suffices to try prime k: if n = a^(k l) then n = (a^l)^k. An odd n >= 3 has no
//! factor 2, so a >= 3 and k <= log_3(n) < bits(n) / 1.58. For each k the candidate root
//! comes from a floating-point estimate, 2^(log2(n) / k) with log2(n) from n's top 64
//! bits, and is confirmed by an exact power:
//!
//! * roots below 2^30 (large k): log2(n) is known to within about 2^-38 (a few ulps of a
//!   double near 2^14), so the estimate of the root is within 2^30 * 2^-38 * ln 2 < 1/2
//!   of the true value and rounding gives the only candidate;
//! * larger roots (k below bits(n) / 30): Newton's iteration for the floor of the k-th
//!   root, x' = ((k - 1) x + floor(n / x^(k-1))) / k, which from any x above the root
//!   decreases strictly to it (Brent and Zimmermann, "Modern Computer Arithmetic", 1.5.2),
//!   started from the estimate raised by a relative 2^-20 (checked to be above the root,
//!   else 2^ceil(bits(n) / k)), so it takes a few steps.
//!
//! A "yes" is exact (a^k = n was computed). A "no" rests on the estimate for the large k,
//! so a mistake there could only miss a perfect power, never refuse another number; the
//! caller (the recovery of RSA primes) has a bound on its work that does not depend on
//! this test.
//!
//! Variable-time: n is public (an RSA modulus).

use super::nat::Nat;

/// The largest root found by rounding the estimate; larger ones take Newton's iteration.
const ROUNDED_ROOT_BITS: f64 = 30.0;

impl Nat {
    /// Whether `self` is a^k for integers a >= 2, k >= 2, for odd `self` (the case of an
    /// RSA modulus; even values answer false). Variable-time (see the module docs).
    pub(crate) fn is_perfect_power_vartime(&self) -> bool {
        if self.is_even() || self.bits() < 2 {
            return false;
        }
        let log2 = log2_estimate(self);
        let max_k = (log2 / 3f64.log2()) as u32;
        (2..=max_k).filter(|&k| is_small_prime(k)).any(|k| is_kth_power(self, k, log2))
    }
}

/// log2(n) to double precision, from the top 64 bits of n (n >= 1).
fn log2_estimate(n: &Nat) -> f64 {
    let bits = n.bits();
    let shift = bits.saturating_sub(64);
    let top = (n >> shift).to_u64().unwrap_or(u64::MAX);
    (top as f64).log2() + shift as f64
}

/// Trial division: k is at most bits(n) / 1.58 < 2^14.
fn is_small_prime(k: u32) -> bool {
    k >= 2 && (2..).take_while(|d| d * d <= k).all(|d| !k.is_multiple_of(d))
}

/// Whether n = a^k for some a, with log2 = log2(n) (see the module docs).
fn is_kth_power(n: &Nat, k: u32, log2: f64) -> bool {
    let root_log2 = log2 / f64::from(k);
    let candidate = if root_log2 < ROUNDED_ROOT_BITS {
        Nat::from_u64(root_log2.exp2().round() as u64)
    } else {
        root_floor(n, k, root_log2)
    };
    candidate.pow(u64::from(k)).is_ok_and(|p| &p == n)
}

/// floor(n^(1/k)) by Newton's iteration from above, for a root of at least 2^30.
fn root_floor(n: &Nat, k: u32, root_log2: f64) -> Nat {
    let k_nat = Nat::from_u64(u64::from(k));
    let k_minus_1 = Nat::from_u64(u64::from(k - 1));
    // 2^root_log2 * (1 + 2^-20) as a 53-bit mantissa times a power of two, plus one.
    let exponent = root_log2.floor();
    let mantissa = ((root_log2 - exponent).exp2() * (1.0 + 2f64.powi(-20)) * 2f64.powi(52)) as u64;
    let shift = exponent as usize;
    let scaled = if shift >= 52 {
        &Nat::from_u64(mantissa) << (shift - 52)
    } else {
        &Nat::from_u64(mantissa) >> (52 - shift)
    };
    let mut x = &scaled + &Nat::one();
    if x.pow(u64::from(k)).is_ok_and(|p| &p <= n) {
        x = &Nat::one() << n.bits().div_ceil(k as usize);
    }
    loop {
        let Ok(power) = x.pow(u64::from(k - 1)) else { return x };
        let Ok(quotient) = n.div_rem(&power).map(|(q, _)| q) else { return x };
        let Ok((next, _)) = (&(&k_minus_1 * &x) + &quotient).div_rem(&k_nat) else { return x };
        if next >= x {
            return x;
        }
        x = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_odd_numbers_are_found() {
        let p = Nat::from_hex("f7e75fdc469067ffdc4e847c51f452df").unwrap(); // 128 bits, odd
        for k in [2u64, 3, 5, 7, 16, 31, 63] {
            let n = p.pow(k).unwrap();
            assert!(n.is_perfect_power_vartime(), "p^{k}");
            assert!(!(&n + &Nat::from_u64(2)).is_perfect_power_vartime(), "p^{k} + 2");
        }
        // Small bases with large exponents: the rounded estimate.
        for (a, k) in [(3u64, 1000u64), (5, 3001), (1_000_003, 400), ((1 << 29) + 1, 200)] {
            let n = Nat::from_u64(a).pow(k).unwrap();
            assert!(n.is_perfect_power_vartime(), "{a}^{k}");
            assert!(!(&n + &Nat::from_u64(2)).is_perfect_power_vartime(), "{a}^{k} + 2");
        }
        // An RSA-like product of two distinct primes is not a power.
        let q = Nat::from_hex("e4d3b7ad0b8ae0d3b2cf0f6e0a3dc6b1").unwrap();
        assert!(!(&p * &q).is_perfect_power_vartime());
        assert!(!Nat::from_u64(15).is_perfect_power_vartime());
        assert!(Nat::from_u64(27).is_perfect_power_vartime());
        assert!(!Nat::from_u64(1).is_perfect_power_vartime());
        assert!(!Nat::from_u64(64).is_perfect_power_vartime(), "even values answer false");
    }

    #[test]
    fn newton_floor_roots() {
        let a = Nat::from_hex("b1a2c3d4e5f60718293a4b5c6d7e8f91").unwrap();
        for k in [2u32, 3, 5] {
            let n = a.pow(u64::from(k)).unwrap();
            let log2 = log2_estimate(&n);
            assert_eq!(root_floor(&n, k, log2 / f64::from(k)), a);
            let below = n.sub(&Nat::one()).unwrap();
            assert_eq!(root_floor(&below, k, log2 / f64::from(k)), a.sub(&Nat::one()).unwrap());
        }
    }
}
