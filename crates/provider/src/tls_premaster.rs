//! RSA key exchange of TLS 1.0-1.2 (`pad-mode` "pkcs1-tls", `RSA_PKCS1_WITH_TLS_PADDING`):
//! the server decrypts the client's PreMasterSecret, and whatever it holds, the result
//! is 48 bytes: the secret when the PKCS#1 v1.5 padding and the version in its first two
//! bytes are right, else 48 random bytes, chosen in constant time so that nothing tells
//! the two apart before the Finished messages (RFC 5246 section 7.4.7.1, the
//! Bleichenbacher and ROBOT countermeasure; OpenSSL's
//! `ossl_rsa_padding_check_PKCS1_type_2_TLS`).

/// The length of a TLS PreMasterSecret.
pub const PREMASTER_LEN: usize = 48;

/// 0xff if `a == b`, else 0, without a branch.
fn eq_mask(a: u8, b: u8) -> u8 {
    let x = u32::from(a ^ b);
    (x.wrapping_sub(1) >> 8) as u8
}

/// Writes to `out` the PreMasterSecret in `em` (the k-byte RSADP result), or `random`
/// where the padding or version is wrong. `client_version` is the version the client
/// offered (ClientHello); `alt_version`, if not 0, is accepted too (the negotiated one,
/// for old clients that put it there instead). `em` must be longer than 48 + 11 bytes
/// (the caller checks k). The secret goes to the caller's buffer, not a returned copy,
/// so the caller decides how it is wiped.
pub fn premaster(
    em: &[u8],
    client_version: u16,
    alt_version: u16,
    random: &[u8; PREMASTER_LEN],
    out: &mut [u8; PREMASTER_LEN],
) {
    let k = em.len();
    let zero_at = k - PREMASTER_LEN - 1;
    // 00 02, then at least 8 non-zero bytes (all of them up to the separator), then 00.
    let mut good = eq_mask(em[0], 0) & eq_mask(em[1], 2);
    for &b in &em[2..zero_at] {
        good &= !eq_mask(b, 0);
    }
    good &= eq_mask(em[zero_at], 0);
    let secret = &em[k - PREMASTER_LEN..];
    let [hi, lo] = client_version.to_be_bytes();
    let version_good = eq_mask(secret[0], hi) & eq_mask(secret[1], lo);
    let [alt_hi, alt_lo] = alt_version.to_be_bytes();
    let alt_wanted = !eq_mask(alt_hi | alt_lo, 0);
    let alt_good = alt_wanted & eq_mask(secret[0], alt_hi) & eq_mask(secret[1], alt_lo);
    good &= version_good | alt_good;
    for ((o, &s), &r) in out.iter_mut().zip(secret).zip(random) {
        *o = (s & good) | (r & !good);
    }
}

#[cfg(test)]
mod tests {
    fn em(k: usize, version: [u8; 2], secret_fill: u8) -> Vec<u8> {
        let mut em = vec![0x55u8; k];
        em[0] = 0;
        em[1] = 2;
        em[k - 49] = 0;
        em[k - 48..].fill(secret_fill);
        em[k - 48..k - 46].copy_from_slice(&version);
        em
    }

    fn premaster(em: &[u8], client: u16, alt: u16, random: &[u8; 48]) -> [u8; 48] {
        let mut out = [0; 48];
        super::premaster(em, client, alt, random, &mut out);
        out
    }

    #[test]
    fn the_secret_when_everything_is_right_else_the_random_bytes() {
        let random = [0xaa; 48];
        let good = em(256, [3, 3], 0x11);
        assert_eq!(premaster(&good, 0x0303, 0, &random)[..], good[208..]);
        // Wrong version, unless it is the accepted alternative.
        assert_eq!(premaster(&good, 0x0302, 0, &random), random);
        assert_eq!(premaster(&good, 0x0302, 0x0303, &random)[..], good[208..]);
        // Each broken padding byte.
        for (at, value) in [(0, 1), (1, 1), (5, 0), (207, 7)] {
            let mut bad = good.clone();
            bad[at] = value;
            assert_eq!(premaster(&bad, 0x0303, 0, &random), random, "byte {at}");
        }
    }
}
