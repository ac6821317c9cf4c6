//! Security levels of a path (OpenSSL's `-auth_level`, `X509_VERIFY_PARAM_set_auth_level`):
//! the bits of security each key and each signature's digest must offer, 80, 112, 128,
//! 192 and 256 for levels 1 to 5 (NIST SP 800-57 part 1, table 2).
//!
//! An RSA key's strength is NIST's estimate for its modulus length (SP 800-56B rev. 2,
//! appendix D; FIPS 140 implementation guidance 7.5), the standard lengths taking the
//! values listed there (2048 bits 112, 3072 bits 128, 4096 bits 152...) and the others the
//! formula's result rounded to a multiple of eight, computed in the same 18-bit fixed
//! point as OpenSSL 3 computes it, so that the two agree on every length. A signature's
//! strength is half its digest's bits, but SHA-1's, which chosen-prefix collisions bring
//! to 2^63.4 (Leurent and Peyrin, "SHA-1 is a Shambles", 2020): 63 bits in PKCS#1 v1.5,
//! 64 in PSS, as OpenSSL counts them, both below level 1.

use crate::sig::SigScheme;
use cryptocard::digest::HashAlg;
use x509_cert::Certificate;

/// The highest level; a higher one asks what this one asks, as in OpenSSL.
pub const MAX_AUTH_LEVEL: u8 = 5;

/// The bits of security `level` (1 to [`MAX_AUTH_LEVEL`]) asks for; 0 at level 0.
pub(super) fn level_bits(level: u8) -> u32 {
    [0, 80, 112, 128, 192, 256][usize::from(level.min(MAX_AUTH_LEVEL))]
}

/// One in the fixed point of [`rsa_security_bits`]: 18 fractional bits.
const ONE: u64 = 1 << 18;

/// NIST's strength estimate for an RSA modulus of `n` bits:
/// `E = (1.923 cbrt(n ln 2 (ln(n ln 2))^2) - 4.69) / ln 2`, rounded to a multiple of 8,
/// capped where the formula overshoots the listed values (192 up to 7680 bits, 256 up to
/// 15360).
pub(super) fn rsa_security_bits(n: u32) -> u32 {
    match n {
        2048 => return 112,
        3072 => return 128,
        4096 => return 152,
        6144 => return 176,
        7680 => return 192,
        8192 => return 200,
        15360 => return 256,
        0..8 => return 0,
        687_737.. => return 1200,
        _ => {}
    }
    // ln 2, log2(e), 1.923 and 4.690, scaled by ONE and truncated.
    const LN_2: u64 = 0x02c5c8;
    const LOG2_E: u64 = 0x05c551;
    const C1_923: u64 = 0x07b126;
    const C4_690: u64 = 0x12c28f;
    let mul = |a: u64, b: u64| a * b / ONE;
    let x = u64::from(n) * LN_2;
    let lx = ln_fixed(x, LOG2_E);
    // Wrapping as OpenSSL's unsigned arithmetic does (for no length it reaches).
    let y = mul(C1_923, cbrt_fixed(mul(mul(x, lx), lx))).wrapping_sub(C4_690) / LN_2;
    let y = ((y as u32 & 0xffff) + 4) & !7;
    let cap = match n {
        ..=7680 => 192,
        7681..=15360 => 256,
        _ => 1200,
    };
    y.min(cap)
}

/// The natural logarithm of the fixed-point `v > 1`: its base-2 logarithm, integer part by
/// halvings and fraction by squarings, times `1 / log2(e)` (`log2_e` in fixed point).
fn ln_fixed(mut v: u64, log2_e: u64) -> u64 {
    let mut r = 0u64;
    while v >= 2 * ONE {
        v >>= 1;
        r += ONE;
    }
    let mut bit = ONE / 2;
    while bit != 0 {
        v = v * v / ONE;
        if v >= 2 * ONE {
            v >>= 1;
            r += bit;
        }
        bit /= 2;
    }
    // The logarithm fits 32 bits, as in OpenSSL's `ilog_e`.
    (r * ONE / log2_e) & 0xffff_ffff
}

/// The cube root of the fixed-point `x`, digit by digit (three bits of `x` a bit of the
/// root) on its raw integer `x ONE`, whose root is `cbrt(x) ONE^(1/3)`: times
/// `ONE^(2/3) = 2^12` it is `cbrt(x)` in fixed point.
fn cbrt_fixed(mut x: u64) -> u64 {
    let mut r = 0u64;
    for s in (0..=63).rev().step_by(3) {
        r <<= 1;
        let b = 3 * r * (r + 1) + 1;
        if (x >> s) >= b {
            x -= b << s;
            r += 1;
        }
    }
    r << 12
}

/// The bits of security of `cert`'s signature algorithm (0 where it is not one we know).
pub(super) fn signature_security_bits(cert: &Certificate) -> u32 {
    let (hash, pss) = match SigScheme::from_algorithm_identifier(cert.signature_algorithm()) {
        Ok(SigScheme::Pkcs1v15(h)) => (h, false),
        Ok(scheme @ SigScheme::Pss(_)) => (scheme.hash(), true),
        Err(_) => return 0,
    };
    match hash {
        HashAlg::Sha1 if pss => 64,
        HashAlg::Sha1 => 63,
        HashAlg::Md5 => 39,
        h => 4 * h.output_len() as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the estimate steps up from 8 to 2048 bits to 20,000-bit moduli: the first
    /// length of each value, as OpenSSL 3.0.19's `RSA_security_bits` gives them (a
    /// program setting an `n` of each length, on 2026-12-02; from 8 bits it is 0).
    const OPENSSL_STEPS: [(u32, u32); 37] = [
        (16, 8),
        (41, 16),
        (81, 24),
        (138, 32),
        (213, 40),
        (308, 48),
        (425, 56),
        (566, 64),
        (729, 72),
        (920, 80),
        (1137, 88),
        (1383, 96),
        (1657, 104),
        (1963, 112),
        (2301, 120),
        (2671, 128),
        (3076, 136),
        (3514, 144),
        (3991, 152),
        (4502, 160),
        (5054, 168),
        (5642, 176),
        (6274, 184),
        (6947, 192),
        (7681, 200),
        (8418, 208),
        (9216, 216),
        (10064, 224),
        (10953, 232),
        (11893, 240),
        (12877, 248),
        (13914, 256),
        (15361, 264),
        (16132, 272),
        (17321, 280),
        (18555, 288),
        (19849, 296),
    ];

    #[test]
    fn rsa_strength_agrees_with_openssl_at_every_length() {
        let mut steps = OPENSSL_STEPS.iter().peekable();
        let mut want = 0;
        for n in 8..20_000 {
            if let Some(&(_, bits)) = steps.next_if(|&&(from, _)| from == n) {
                want = bits;
            }
            assert_eq!(rsa_security_bits(n), want, "{n} bits");
        }
    }

    /// The values NIST lists, and the formula around them: non-decreasing in the length,
    /// 80 bits from 1024 (and a little below, as the rounding gives), 112 from 2048
    /// (likewise), 128 at 3072, the caps at 7680 and 15360.
    #[test]
    fn rsa_strength_estimates() {
        assert_eq!(rsa_security_bits(1024), 80);
        assert_eq!(rsa_security_bits(2048), 112);
        assert_eq!(rsa_security_bits(3072), 128);
        assert_eq!(rsa_security_bits(4096), 152);
        assert_eq!(rsa_security_bits(15360), 256);
        assert_eq!(rsa_security_bits(512), 56);
        assert_eq!(rsa_security_bits(7), 0);
        assert_eq!(rsa_security_bits(1 << 20), 1200);
        let mut last = 0;
        for n in 8..20_000 {
            let s = rsa_security_bits(n);
            assert!(s >= last, "not monotonic at {n}: {s} < {last}");
            assert_eq!(s % 8, 0, "{n}");
            last = s;
        }
        assert!(rsa_security_bits(1023) >= 80 && rsa_security_bits(900) < 80);
        assert!(rsa_security_bits(2047) >= 112 && rsa_security_bits(1800) < 112);
        assert!((8..=7680).all(|n| rsa_security_bits(n) <= 192));
        assert!((7681..=15360).all(|n| rsa_security_bits(n) <= 256));
        assert_eq!(level_bits(0), 0);
        assert_eq!(level_bits(2), 112);
        assert_eq!(level_bits(9), 256);
    }
}
